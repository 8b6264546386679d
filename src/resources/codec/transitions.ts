/**
 * Helpers for transition rules (the CRD's CEL rules that read `oldSelf`). CEL equality is deep, and
 * for lists marked `x-kubernetes-list-type: set|map` it ignores order; `sameValue` does the same when
 * told the list is unordered.
 */
import type { FieldError } from './report.js';
import { jsonType } from './primitives.js';

/** JSON with object keys sorted: equal values give equal text. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

export const deepEqual = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** Equality of two lists whose order does not matter (list-type set or map). */
export const sameUnordered = (a: readonly unknown[], b: readonly unknown[]): boolean =>
  a.length === b.length && deepEqual(a.map(canonicalJson).sort(), b.map(canonicalJson).sort());

/** The message a failed CEL rule produces: the type of the value the rule sits on, then the text. */
export const ruleError = (path: string, self: unknown, message: string): FieldError => ({ path, message: `Invalid value: "${jsonType(self)}": ${message}` });
