/**
 * Container codecs: `struct` (an object with required and optional properties), `list` (with the
 * `x-kubernetes-list-type` set/map uniqueness) and `record` (a string map). They behave like the API
 * server's structural-schema validation:
 *
 * - unknown properties are pruned, not rejected (callers report them as warnings);
 * - a `null` is the same as an absent property (the API server prunes nulls of non-nullable fields);
 * - object rules (the CRD's `x-kubernetes-validations` without `oldSelf`) run only once every
 *   property of that object is valid, so a rule never sees a value of the wrong type.
 *
 * Context keys are `name` for properties and `[i]` / `[key]` for list items and map entries, so the
 * reporter can print `spec.listeners[1].port`.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { invalid, quoteShort, typeMismatch } from './primitives.js';

export type Simplify<T> = { [K in keyof T]: T[K] } & {};

export type StructOf<R extends t.Props, O extends t.Props> = Simplify<
  { [K in keyof R]: t.TypeOf<R[K]> } & { [K in keyof O]?: t.TypeOf<O[K]> }
>;

/** A rule over one valid object: the TypeScript twin of one CEL rule in the CRD. */
export interface ObjectRule<A> {
  /** Where the error points, relative to the object: `.sshInjection`. Empty: the object itself. */
  readonly fieldPath?: string;
  readonly message: string;
  readonly check: (self: A) => boolean;
}

export const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * The codec declared for `key`, only if declared: a key such as `constructor`, `toString` or `__proto__` (JSON.parse
 * makes it an own property) must not find the prototype's member and be treated as a codec.
 */
const ownCodec = (codecs: Readonly<Record<string, t.Mixed>>, key: string): t.Mixed | undefined => (Object.hasOwn(codecs, key) ? codecs[key] : undefined);

/** Sets `out[key]` as an own data property, so a map key `__proto__` is kept as data instead of replacing the prototype. */
export const setOwn = (out: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
};

/** Extends a context by a CEL `fieldPath` such as `.a.b`. */
export const appendFieldPath = (c: t.Context, fieldPath: string | undefined, decoder: t.Decoder<unknown, unknown>): t.Context => {
  if (!fieldPath) return c;
  return fieldPath
    .split('.')
    .filter((key) => key !== '')
    .reduce((context, key) => t.appendContext(context, key, decoder), c);
};

export const ruleFailure = (value: unknown, c: t.Context, rule: ObjectRule<never>, decoder: t.Decoder<unknown, unknown>): t.ValidationError => ({
  value,
  context: appendFieldPath(c, rule.fieldPath, decoder),
  message: `Invalid value: "object": ${rule.message}`,
});

export const struct = <R extends t.Props, O extends t.Props>(
  name: string,
  required: R,
  optional: O,
  options: { readonly rules?: readonly ObjectRule<StructOf<R, O>>[] } = {},
): t.Type<StructOf<R, O>, StructOf<R, O>, unknown> => {
  const codecs: Record<string, t.Mixed> = { ...optional, ...required };
  const requiredKeys = Object.keys(required);
  const rules = options.rules ?? [];
  const type: t.Type<StructOf<R, O>, StructOf<R, O>, unknown> = new t.Type<StructOf<R, O>, StructOf<R, O>, unknown>(
    name,
    (u): u is StructOf<R, O> => {
      if (!isPlainObject(u)) return false;
      for (const [key, codec] of Object.entries(codecs)) {
        const v = u[key];
        if (v === undefined || v === null) {
          if (requiredKeys.includes(key)) return false;
        } else if (!codec.is(v)) return false;
      }
      return rules.every((rule) => rule.check(u as StructOf<R, O>));
    },
    (u, c) => {
      if (!isPlainObject(u)) return t.failure(u, c, typeMismatch(u, 'object'));
      const errors: t.Errors = [];
      const out: Record<string, unknown> = {};
      for (const key of requiredKeys) {
        const v = u[key];
        if (v === undefined || v === null) errors.push({ value: v, context: t.appendContext(c, key, codecs[key] as t.Mixed, v), message: 'Required value' });
      }
      for (const [key, v] of Object.entries(u)) {
        const codec = ownCodec(codecs, key);
        if (codec === undefined || v === undefined || v === null) continue; // pruned: unknown or null
        const result = codec.validate(v, t.appendContext(c, key, codec, v));
        if (isLeft(result)) errors.push(...result.left);
        else out[key] = result.right;
      }
      if (errors.length > 0) return t.failures(errors);
      const self = out as StructOf<R, O>;
      for (const rule of rules) if (!rule.check(self)) errors.push(ruleFailure(self, c, rule as ObjectRule<never>, type));
      return errors.length > 0 ? t.failures(errors) : t.success(self);
    },
    t.identity,
  );
  return type;
};

/** A duplicate list item is shown as its JSON; a longer one is quoted and cut like any long value. */
const SHOWN_KEY_LENGTH = 128;

export interface ListOptions {
  readonly minItems?: number;
  readonly maxItems?: number;
  /** `set`: items unique; `map`: items unique by `mapKeys`, like `x-kubernetes-list-type`. */
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly mapKeys?: readonly string[];
}

const keyOf = (item: unknown, options: ListOptions): string => {
  if (options.listType === 'map' && isPlainObject(item)) {
    const key: Record<string, unknown> = {};
    for (const k of options.mapKeys ?? []) key[k] = item[k];
    return JSON.stringify(key);
  }
  return JSON.stringify(item);
};

export const list = <C extends t.Mixed>(name: string, item: C, options: ListOptions = {}): t.Type<Array<t.TypeOf<C>>, Array<t.TypeOf<C>>, unknown> =>
  new t.Type<Array<t.TypeOf<C>>, Array<t.TypeOf<C>>, unknown>(
    name,
    (u): u is Array<t.TypeOf<C>> => Array.isArray(u) && u.every((v) => item.is(v)),
    (u, c) => {
      if (!Array.isArray(u)) return t.failure(u, c, typeMismatch(u, 'array'));
      const errors: t.Errors = [];
      const { minItems, maxItems } = options;
      if (minItems !== undefined && u.length < minItems) errors.push({ value: u, context: c, message: invalid(u.length, `must have at least ${minItems} items`) });
      if (maxItems !== undefined && u.length > maxItems) errors.push({ value: u, context: c, message: `Too many: ${u.length}: must have at most ${maxItems} items` });
      const out: unknown[] = [];
      u.forEach((v, i) => {
        const result = item.validate(v, t.appendContext(c, `[${i}]`, item, v));
        if (isLeft(result)) errors.push(...result.left);
        else out.push(result.right);
      });
      if (errors.length === 0 && (options.listType === 'set' || options.listType === 'map')) {
        const seen = new Set<string>();
        out.forEach((v, i) => {
          const key = keyOf(v, options);
          if (seen.has(key)) errors.push({ value: v, context: t.appendContext(c, `[${i}]`, item, v), message: `Duplicate value: ${key.length > 2 * SHOWN_KEY_LENGTH ? quoteShort(key) : key}` });
          seen.add(key);
        });
      }
      return errors.length > 0 ? t.failures(errors) : t.success(out as Array<t.TypeOf<C>>);
    },
    t.identity,
  );

export const record = <C extends t.Mixed>(
  name: string,
  value: C,
  options: { readonly maxProperties?: number } = {},
): t.Type<Record<string, t.TypeOf<C>>, Record<string, t.TypeOf<C>>, unknown> =>
  new t.Type<Record<string, t.TypeOf<C>>, Record<string, t.TypeOf<C>>, unknown>(
    name,
    (u): u is Record<string, t.TypeOf<C>> => isPlainObject(u) && Object.values(u).every((v) => value.is(v)),
    (u, c) => {
      if (!isPlainObject(u)) return t.failure(u, c, typeMismatch(u, 'object'));
      const errors: t.Errors = [];
      const entries = Object.entries(u).filter(([, v]) => v !== null && v !== undefined);
      const { maxProperties } = options;
      if (maxProperties !== undefined && entries.length > maxProperties) errors.push({ value: u, context: c, message: `Too many: ${entries.length}: must have at most ${maxProperties} items` });
      const out: Record<string, unknown> = {};
      for (const [key, v] of entries) {
        const result = value.validate(v, t.appendContext(c, `[${key}]`, value, v));
        if (isLeft(result)) errors.push(...result.left);
        else setOwn(out, key, result.right);
      }
      return errors.length > 0 ? t.failures(errors) : t.success(out as Record<string, t.TypeOf<C>>);
    },
    t.identity,
  );
