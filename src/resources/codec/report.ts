/**
 * Turns io-ts errors into field errors with a path in the API server's notation
 * (`spec.listeners[1].port`) and one readable message. The raw io-ts reporter prints type names
 * and nested unions; an operator needs to know which field to fix.
 */
import type * as t from 'io-ts';

export interface FieldError {
  /** `spec.listeners[1].port`; `metadata.name`; `spec` for a rule on the spec object. */
  readonly path: string;
  /** In the API server's words: `Required value`, `Invalid value: 70000: must be ...`. */
  readonly message: string;
}

export const joinPath = (keys: readonly string[]): string =>
  keys.reduce((path, key) => (key === '' ? path : key.startsWith('[') || path === '' ? `${path}${key}` : `${path}.${key}`), '');

export const pathOf = (context: t.Context): string => joinPath(context.map((entry) => entry.key));

export const toFieldErrors = (errors: t.Errors): FieldError[] => {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const error of errors) {
    const fieldError = { path: pathOf(error.context), message: error.message ?? 'Invalid value' };
    const key = `${fieldError.path}\u0000${fieldError.message}`;
    if (!seen.has(key)) out.push(fieldError);
    seen.add(key);
  }
  return out;
};

/** `spec.port: Invalid value: 70000: must be ...; spec.flavor: Required value` */
export const describeFieldErrors = (errors: readonly FieldError[]): string => errors.map((e) => `${e.path}: ${e.message}`).join('; ');
