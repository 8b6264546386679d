/**
 * Leaf codecs with the constraints a structural OpenAPI schema can express (type, enum, minimum,
 * maximum, minLength, maxLength, pattern, format). Failure messages use the API server's words
 * ("Required value", "Unsupported value", "Invalid value") so an error from the embedded store reads
 * like the 422 a real cluster returns for the same object.
 */
import * as t from 'io-ts';
import { formatMessage, hasFormat, type StringFormat } from './formats.js';

/** How many code points of an offending string a message quotes: an error names the value, it does not echo 70 kB. */
export const SHOWN_STRING_LENGTH = 128;

/** A string quoted for a message, cut after SHOWN_STRING_LENGTH code points (`"abc…" (70000 characters)`). */
export const quoteShort = (s: string): string => {
  const points = [...s];
  return points.length <= SHOWN_STRING_LENGTH ? JSON.stringify(s) : `${JSON.stringify(points.slice(0, SHOWN_STRING_LENGTH).join(''))}… (${points.length} characters)`;
};

/** How the API server shows an offending value: strings quoted (long ones cut), scalars raw, containers by type. */
export const showValue = (u: unknown): string => {
  if (typeof u === 'string') return quoteShort(u);
  if (typeof u === 'number' || typeof u === 'boolean') return String(u);
  if (u === null || u === undefined) return 'null';
  return Array.isArray(u) ? '"array"' : '"object"';
};

/** The JSON type name of a value, as OpenAPI names it. */
export const jsonType = (u: unknown): string => {
  if (u === null) return 'null';
  if (Array.isArray(u)) return 'array';
  if (typeof u === 'number') return Number.isInteger(u) ? 'integer' : 'number';
  return typeof u;
};

export const invalid = (u: unknown, detail: string): string => `Invalid value: ${showValue(u)}: ${detail}`;
export const typeMismatch = (u: unknown, expected: string): string => invalid(u, `must be of type ${expected}`);

type Check<A> = (value: A) => string | undefined;

const leaf = <A>(name: string, guard: (u: unknown) => u is A, typeName: string, checks: readonly Check<A>[]): t.Type<A, A, unknown> =>
  new t.Type<A, A, unknown>(
    name,
    (u): u is A => guard(u) && checks.every((check) => check(u) === undefined),
    (u, c) => {
      if (!guard(u)) return t.failure(u, c, typeMismatch(u, typeName));
      for (const check of checks) {
        const problem = check(u);
        if (problem !== undefined) return t.failure(u, c, problem);
      }
      return t.success(u);
    },
    t.identity,
  );

export interface StringConstraints {
  readonly minLength?: number;
  readonly maxLength?: number;
  /** An RE2-compatible pattern, the same text the CRD carries. */
  readonly pattern?: string;
  readonly format?: StringFormat;
}

const isString = (u: unknown): u is string => typeof u === 'string';

/** A string; lengths count Unicode code points, as the API server does. */
export const str = (name: string, constraints: StringConstraints = {}): t.Type<string, string, unknown> => {
  const checks: Check<string>[] = [];
  const { minLength, maxLength, pattern, format } = constraints;
  if (minLength !== undefined) checks.push((s) => ([...s].length < minLength ? invalid(s, `must be at least ${minLength} characters long`) : undefined));
  if (maxLength !== undefined) checks.push((s) => ([...s].length > maxLength ? `Too long: may not be longer than ${maxLength}` : undefined));
  if (pattern !== undefined) {
    const re = new RegExp(pattern, 'u');
    checks.push((s) => (re.test(s) ? undefined : invalid(s, `must match '${pattern}'`)));
  }
  if (format !== undefined) checks.push((s) => (hasFormat(format, s) ? undefined : invalid(s, formatMessage(format))));
  return leaf(name, isString, 'string', checks);
};

export interface IntegerConstraints {
  readonly minimum?: number;
  readonly maximum?: number;
}

const isInteger = (u: unknown): u is number => typeof u === 'number' && Number.isInteger(u);

export const int = (name: string, constraints: IntegerConstraints = {}): t.Type<number, number, unknown> => {
  const checks: Check<number>[] = [];
  const { minimum, maximum } = constraints;
  if (minimum !== undefined) checks.push((n) => (n < minimum ? invalid(n, `must be greater than or equal to ${minimum}`) : undefined));
  if (maximum !== undefined) checks.push((n) => (n > maximum ? invalid(n, `must be less than or equal to ${maximum}`) : undefined));
  return leaf(name, isInteger, 'integer', checks);
};

export const bool: t.Type<boolean, boolean, unknown> = leaf('boolean', (u): u is boolean => typeof u === 'boolean', 'boolean', []);

/** One of a closed set of strings, like `enum:` in the CRD. */
export const enumOf = <const V extends readonly [string, ...string[]]>(name: string, values: V): t.Type<V[number], V[number], unknown> => {
  const allowed = new Set<string>(values);
  const supported = values.map((v) => JSON.stringify(v)).join(', ');
  return leaf(name, isString, 'string', [(s) => (allowed.has(s) ? undefined : `Unsupported value: ${quoteShort(s)}: supported values: ${supported}`)]) as t.Type<
    V[number],
    V[number],
    unknown
  >;
};
