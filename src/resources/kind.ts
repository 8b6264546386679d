/**
 * A kind's definition: names, codecs, printer columns, and the one `validate(new, old?)` that does
 * what the API server does with the kind's CRD: structural validation with pruning, the CEL object
 * rules (inside the codecs), and the CEL transition rules (immutability) given the old object.
 */
import type * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { describeFieldErrors, toFieldErrors, type FieldError } from './codec/report.js';
import { quoteShort, showValue } from './codec/primitives.js';
import { isPlainObject } from './codec/structure.js';
import { ObjectMetaInput, type ObjectMeta } from './meta.js';

export const GROUP = 'regent.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

/** A stored object of one kind: what list/get/watch return. */
export interface ResourceObject<K extends string = string, Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: K;
  metadata: ObjectMeta;
  spec: Spec;
  status?: Status;
}

/** What a client sends: metadata beyond the name is optional, status is ignored on create. */
export interface ResourceInput<K extends string = string, Spec = unknown, Status = unknown> {
  apiVersion: string;
  kind: K;
  metadata: ObjectMetaInput;
  spec: Spec;
  status?: Status;
}

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'boolean';
  /** The CRD's jsonPath: `.status.phase`, `.status.conditions[?(@.type=="Available")].reason`. */
  readonly jsonPath: string;
  readonly priority?: number;
}

/** Columns every kind prints: the summary condition's status and reason, phase, age. */
export const standardColumns = (summary: 'Available' | 'Ready'): PrinterColumn[] => [
  { name: summary, type: 'string', jsonPath: `.status.conditions[?(@.type=="${summary}")].status` },
  { name: 'Reason', type: 'string', jsonPath: `.status.conditions[?(@.type=="${summary}")].reason` },
  { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
];

/**
 * The TypeScript twin of CEL rules that read `oldSelf`. Given valid new and old objects, the field
 * errors to report (full paths, e.g. `spec.listeners[0].port`).
 */
export type TransitionRule<Spec, Status> = (self: { spec: Spec; status?: Status }, old: { spec: Spec; status?: Status }) => FieldError[];

export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly errors: readonly FieldError[]; readonly message: string };

/** `Namespaced` (every Regent CRD) or `Cluster` (a core kind such as Node, stored under CLUSTER_NAMESPACE). */
export type KindScope = 'Namespaced' | 'Cluster';

/**
 * Where the embedded store keeps the objects of a cluster-scoped kind (a core v1 Node): one fixed namespace, so
 * the store's (kind, namespace, name) key holds; the embedded store maps every namespace a caller names for such a
 * kind onto it, and `regent get` prints no NAMESPACE column for it.
 */
export const CLUSTER_NAMESPACE = 'default';

export interface KindDefinition<K extends string = string, Spec = unknown, Status = unknown> {
  readonly kind: K;
  /** `regent.dev/v1alpha1` for Regent's kinds (a CRD each); `v1` for a core kind (Node: no CRD). */
  readonly apiVersion: string;
  readonly scope: KindScope;
  readonly listKind: string;
  readonly singular: string;
  readonly plural: string;
  readonly shortNames: readonly string[];
  readonly spec: t.Type<Spec, Spec, unknown>;
  readonly status: t.Type<Status, Status, unknown>;
  readonly columns: readonly PrinterColumn[];
  /**
   * Validates a whole object as the API server would on create (`old` absent) or update. Returns
   * the pruned object and warnings naming pruned unknown fields, or every field error.
   */
  validate(input: unknown, old?: ResourceInput<K, Spec, Status>): ValidationResult<ResourceInput<K, Spec, Status>>;
}

export interface KindOptions<K extends string, Spec, Status> {
  readonly kind: K;
  readonly plural: string;
  readonly shortNames?: readonly string[];
  readonly spec: t.Type<Spec, Spec, unknown>;
  readonly status: t.Type<Status, Status, unknown>;
  readonly columns: readonly PrinterColumn[];
  readonly transitions?: readonly TransitionRule<Spec, Status>[];
  /** Default API_VERSION (a Regent CRD). */
  readonly apiVersion?: string;
  /** Default Namespaced. */
  readonly scope?: KindScope;
  /** The object may omit spec (a core Node): it is then validated as `{}`. Default: spec is required. */
  readonly optionalSpec?: boolean;
  /**
   * Top-level fields besides metadata, spec and status, each optional, validated and kept (a core ConfigMap's `data`
   * and `binaryData`). Default: none; any other top-level field is dropped.
   */
  readonly fields?: Readonly<Record<string, t.Mixed>>;
}

const decodeAt = <A>(codec: t.Type<A, A, unknown>, value: unknown, key: string, errors: FieldError[]): A | undefined => {
  const result = codec.validate(value, [{ key, type: codec, actual: value }]);
  if (isLeft(result)) {
    errors.push(...toFieldErrors(result.left));
    return undefined;
  }
  return result.right;
};

/** Paths present in `input` but gone from `output`: the fields the schema pruned. */
export const prunedFields = (input: unknown, output: unknown, path: string): string[] => {
  if (isPlainObject(input) && isPlainObject(output)) {
    return Object.entries(input).flatMap(([key, value]) => {
      if (value === null || value === undefined) return [];
      if (!Object.hasOwn(output, key)) return [`${path}.${key}`];
      return prunedFields(value, output[key], `${path}.${key}`);
    });
  }
  if (Array.isArray(input) && Array.isArray(output)) return input.flatMap((value, i) => prunedFields(value, output[i], `${path}[${i}]`));
  return [];
};

export const defineKind = <K extends string, Spec, Status>(options: KindOptions<K, Spec, Status>): KindDefinition<K, Spec, Status> => {
  const { kind, spec, status } = options;
  const apiVersion = options.apiVersion ?? API_VERSION;
  const transitions = options.transitions ?? [];
  const validate = (input: unknown, old?: ResourceInput<K, Spec, Status>): ValidationResult<ResourceInput<K, Spec, Status>> => {
    const errors: FieldError[] = [];
    if (!isPlainObject(input)) {
      errors.push({ path: '', message: 'Invalid value: must be an object' });
    } else {
      if (input.apiVersion !== apiVersion) errors.push({ path: 'apiVersion', message: `Unsupported value: ${showValue(input.apiVersion)}: supported values: "${apiVersion}"` });
      if (input.kind !== kind) errors.push({ path: 'kind', message: `Unsupported value: ${showValue(input.kind)}: supported values: "${kind}"` });
      if (input.metadata === undefined || input.metadata === null) errors.push({ path: 'metadata.name', message: 'Required value' });
      if ((input.spec === undefined || input.spec === null) && options.optionalSpec !== true) errors.push({ path: 'spec', message: 'Required value' });
    }
    const given = isPlainObject(input) ? input : {};
    const object = options.optionalSpec === true && given.spec == null ? { ...given, spec: {} } : given;
    const metadata = object.metadata == null ? undefined : decodeAt(ObjectMetaInput, object.metadata, 'metadata', errors);
    const decodedSpec = object.spec == null ? undefined : decodeAt(spec, object.spec, 'spec', errors);
    const decodedStatus = object.status == null ? undefined : decodeAt(status, object.status, 'status', errors);
    const fields = Object.entries(options.fields ?? {}).flatMap(([key, codec]) => {
      const decoded = object[key] == null ? undefined : decodeAt(codec, object[key], key, errors);
      return decoded === undefined ? [] : [[key, decoded] as const];
    });
    if (errors.length === 0 && old !== undefined) {
      const self = { spec: decodedSpec as Spec, ...(decodedStatus === undefined ? {} : { status: decodedStatus }) };
      for (const rule of transitions) errors.push(...rule(self, old));
    }
    if (errors.length > 0) return { ok: false, errors, message: `${kind} ${describeName(object)} is invalid: ${describeFieldErrors(errors)}` };
    const value: ResourceInput<K, Spec, Status> = {
      apiVersion,
      kind,
      metadata: metadata as ObjectMetaInput,
      spec: decodedSpec as Spec,
      ...(decodedStatus === undefined ? {} : { status: decodedStatus }),
      ...Object.fromEntries(fields),
    };
    const warnings = (['metadata', 'spec', 'status', ...Object.keys(options.fields ?? {})] as const)
      .flatMap((key) => prunedFields(object[key], (value as unknown as Record<string, unknown>)[key], key))
      .map((path) => `unknown field "${path}"`);
    return { ok: true, value, warnings };
  };
  return {
    kind,
    apiVersion,
    scope: options.scope ?? 'Namespaced',
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    plural: options.plural,
    shortNames: options.shortNames ?? [],
    spec,
    status,
    columns: options.columns,
    validate,
  };
};

const describeName = (object: Record<string, unknown>): string => {
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '<unnamed>';
  return quoteShort(typeof metadata.namespace === 'string' ? `${metadata.namespace}/${name}` : name);
};
