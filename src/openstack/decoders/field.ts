/**
 * Tagged fields for the OpenStack values decisions depend on. A field is one of:
 * - `value`: present and decoded;
 * - `absent`: the key is missing (e.g. `OS-EXT-STS:task_state` hidden by policy). Absent is NOT "null" and NOT
 *   "at rest": a hidden task_state decodes indistinguishably from an idle server unless absence is kept apart;
 * - `unreadable`: present but not of the expected shape; `raw` keeps what was there. Never guessed into a value.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import type { RequestContext } from '../errors.js';
import { UnreadableResponse } from '../errors.js';
import { errorPath } from '../../events/decode.js';

export type Field<T> =
  | { readonly kind: 'value'; readonly value: T }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unreadable'; readonly raw: unknown };

export const present = <T>(value: T): Field<T> => ({ kind: 'value', value });
export const absent: Field<never> = Object.freeze({ kind: 'absent' as const });
export const unreadable = (raw: unknown): Field<never> => ({ kind: 'unreadable', raw });

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const hasOwn = (obj: Record<string, unknown>, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

/** Read `obj[key]` through `codec` into a Field. */
export const readField = <T>(obj: Record<string, unknown>, key: string, codec: t.Decoder<unknown, T>): Field<T> => {
  if (!hasOwn(obj, key)) return absent;
  const raw = obj[key];
  const result = codec.decode(raw);
  return isLeft(result) ? unreadable(raw) : present(result.right);
};

/** Transform a value, keeping absent/unreadable as they are. */
export const mapField = <A, B>(field: Field<A>, f: (a: A) => B): Field<B> => (field.kind === 'value' ? present(f(field.value)) : field);

/** The value, or `fallback` for absent/unreadable (for display only; decisions must look at `kind`). */
export const valueOr = <T, F>(field: Field<T>, fallback: F): T | F => (field.kind === 'value' ? field.value : fallback);

/** A string from a closed set. */
export const oneOf = <const T extends readonly string[]>(name: string, values: T): t.Type<T[number], string, unknown> =>
  new t.Type<T[number], string, unknown>(
    name,
    (u): u is T[number] => typeof u === 'string' && (values as readonly string[]).includes(u),
    (u, c) => (typeof u === 'string' && (values as readonly string[]).includes(u) ? t.success(u as T[number]) : t.failure(u, c)),
    (a) => a,
  );

/**
 * An OpenStack timestamp. Nova's `launched_at` has no zone ("2024-05-01T10:00:00.000000") and is UTC; Cinder and
 * Octavia often omit it too. Kept as the service wrote it; only checked to parse.
 */
export const timestamp = new t.Type<string, string, unknown>(
  'Timestamp',
  (u): u is string => typeof u === 'string',
  (u, c) => {
    if (typeof u !== 'string' || u === '') return t.failure(u, c);
    const withZone = /([zZ]|[+-]\d\d:?\d\d)$/.test(u) ? u : `${u}Z`;
    return Number.isNaN(Date.parse(withZone)) ? t.failure(u, c) : t.success(u);
  },
  (a) => a,
);

export const nullable = <A, O>(codec: t.Type<A, O, unknown>): t.Type<A | null, O | null, unknown> => t.union([codec, t.null]);

export const stringMap = t.record(t.string, t.string);

/** Key paths that failed, without the values (a value may be a secret or user data). */
export const problemPaths = (errors: t.Errors): string[] => {
  const out = new Set<string>();
  for (const error of errors) {
    const last = error.context[error.context.length - 1];
    const got = error.value === null ? 'null' : Array.isArray(error.value) ? 'array' : typeof error.value;
    out.add(`${errorPath(error)}: expected ${last?.type.name ?? 'unknown'}, got ${got}`);
  }
  return [...out];
};

/** Decode a whole record the caller cannot do without (an item needs its id), or throw UnreadableResponse. */
export const decodeOrThrow = <A>(codec: t.Decoder<unknown, A>, input: unknown, what: string, context: RequestContext = {}): A => {
  const result = codec.decode(input);
  if (isLeft(result)) throw new UnreadableResponse(`unreadable ${what}`, problemPaths(result.left), context);
  return result.right;
};

/** The object under `key` of a response body (`{"server": {...}}`), or UnreadableResponse. */
export const unwrap = (body: unknown, key: string, context: RequestContext = {}): Record<string, unknown> => {
  const inner = isRecord(body) ? body[key] : undefined;
  if (!isRecord(inner)) throw new UnreadableResponse(`response has no '${key}' object`, [key], context);
  return inner;
};

/** The array under `key` of a response body, or UnreadableResponse. */
export const unwrapList = (body: unknown, key: string, context: RequestContext = {}): unknown[] => {
  const inner = isRecord(body) ? body[key] : undefined;
  if (!Array.isArray(inner)) throw new UnreadableResponse(`response has no '${key}' array`, [key], context);
  return inner as unknown[];
};

/** `{id, name}` every listed resource must have; name may be null (Cinder) or absent. */
export const identity = t.intersection([t.type({ id: t.string }), t.partial({ name: nullable(t.string) })]);
