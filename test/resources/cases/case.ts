/** The shape of one agreement case, and helpers to derive cases from a valid base object. */
export interface AgreementCase {
  /** The rule, in a sentence. */
  readonly title: string;
  readonly object: unknown;
  /** The stored object, for update cases (immutability and other transition rules). */
  readonly old?: unknown;
  /** `valid`, or the exact set of field paths both validators must report. */
  readonly expect: 'valid' | readonly string[];
}

export type Json = Record<string, unknown>;

/** A deep copy of `base` changed by `edit`. */
export const variant = <T>(base: T, edit: (copy: Json) => void): T => {
  const copy = structuredClone(base) as Json;
  edit(copy);
  return copy as T;
};

export const objectOf = (kind: string, spec: unknown, status?: unknown, name = 'example'): Json => ({
  apiVersion: 'regent.dev/v1alpha1',
  kind,
  metadata: { name, namespace: 'default' },
  spec,
  ...(status === undefined ? {} : { status }),
});

export const condition = (type: string, status = 'True', reason = 'Provisioned'): Json => ({
  type,
  status,
  reason,
  message: '',
  lastTransitionTime: '2026-01-02T15:04:05Z',
  observedGeneration: 1,
});

export const IMAGE_ID = '3f1c4f6e-2b7a-4d4b-9a55-0c6f1f3d2e10';
export const OTHER_IMAGE_ID = '9b0d0a52-5d1e-4f0f-8a53-6f1b0b7c9d21';
