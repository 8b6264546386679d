/**
 * Shared pieces of the bad-input fuzzers (issue 31): the run count (FUZZ_RUNS overrides every file's default, for the
 * long runs), the fixed seed (FUZZ_SEED overrides it; fast-check prints seed and path on a failure), hostile values,
 * and path-addressed mutation of a JSON value (remove a field, replace it, add a field next to it).
 */
import fc from 'fast-check';

/** numRuns: FUZZ_RUNS when set (the long runs), else the file's default (kept small: the folder runs in `npm test`). */
export const fuzzRuns = (fallback: number): number => {
  const given = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(given) && given > 0 ? given : fallback;
};

/** A fixed seed so CI is deterministic; FUZZ_SEED replays another (fast-check prints the seed of a failure). */
export const fuzzSeed = (): number => {
  const given = Number(process.env.FUZZ_SEED);
  return Number.isInteger(given) ? given : 20261205;
};

/** The fast-check parameters of one property: the run count, the seed, and no time-based interruption. */
export const fuzzParameters = (fallback: number): { numRuns: number; seed: number } => ({ numRuns: fuzzRuns(fallback), seed: fuzzSeed() });

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = readonly (string | number)[];

/** Every path inside a JSON value (containers and leaves), the root excluded. */
export const pathsOf = (value: unknown, prefix: Path = []): Path[] => {
  if (Array.isArray(value)) return value.flatMap((item, i) => [[...prefix, i], ...pathsOf(item, [...prefix, i])]);
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])]);
  return [];
};

/** A copy of `value` where `edit` replaced the container holding the last key of `path`. */
const editAt = (value: unknown, path: Path, edit: (container: Record<string | number, unknown>, key: string | number) => void): unknown => {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let container = copy;
  for (const key of path.slice(0, -1)) container = container[key] as Record<string | number, unknown>;
  edit(container, path[path.length - 1] as string | number);
  return copy;
};

/** Defines `key` as an own data property (a `__proto__` key as JSON.parse makes it, not a prototype change). */
const defineOwn = (container: Record<string | number, unknown>, key: string | number, item: unknown): void => {
  Object.defineProperty(container, key, { value: item, enumerable: true, writable: true, configurable: true });
};

export const removeAt = (value: unknown, path: Path): unknown =>
  editAt(value, path, (container, key) => (Array.isArray(container) ? container.splice(Number(key), 1) : delete container[key]));

export const replaceAt = (value: unknown, path: Path, item: unknown): unknown => editAt(value, path, (container, key) => defineOwn(container, key, item));

/** Adds `key: item` to the object at `path` (or to the object holding a leaf at `path`). */
export const addFieldAt = (value: unknown, path: Path, key: string, item: unknown): unknown => {
  const target = path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], value);
  const objectPath = typeof target === 'object' && target !== null && !Array.isArray(target) ? path : path.slice(0, -1);
  const copy = structuredClone(value) as Record<string | number, unknown>;
  const container = objectPath.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], copy);
  if (typeof container === 'object' && container !== null && !Array.isArray(container)) defineOwn(container as Record<string, unknown>, key, item);
  return copy;
};

/** A value nested `depth` levels deep in objects or arrays. */
export const deeplyNested = (depth: number, asArray: boolean): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) value = asArray ? [value] : { nested: value };
  return value;
};

/** Keys that find a member of Object.prototype when looked up carelessly. */
export const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'] as const;

/** Values of the wrong type or out of every range: what a careless or hostile client sends. */
export const hostileValue = (): fc.Arbitrary<unknown> =>
  fc.oneof(
    fc.constantFrom<unknown>(null, true, false, 0, -1, -2147483649, 2 ** 53 + 1, 1e308, -1e308, 0.5, '', ' ', '0', 'null', [], {}, [null], { '': '' }),
    fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0),
    fc.constantFrom('x'.repeat(70_000), 'é'.repeat(5_000), '😀'.repeat(3_000), '\u0000\u202e\ud800', 'a\nb\tc', '../../etc/passwd', '%s%n{{7*7}}'),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.integer({ min: 1, max: 60 }).chain((depth) => fc.boolean().map((asArray) => deeplyNested(depth * 10, asArray))),
    fc.constantFrom(...PROTOTYPE_KEYS).map((key) => JSON.parse(`{"${key}": {"polluted": true}}`) as unknown),
    fc.jsonValue({ maxDepth: 3 }),
  );

export type Mutation = { readonly op: 'remove'; readonly path: Path } | { readonly op: 'replace'; readonly path: Path; readonly value: unknown } | { readonly op: 'add'; readonly path: Path; readonly key: string; readonly value: unknown };

/** One mutation of `value`: a field removed, replaced by a hostile value, or an extra field added. */
export const mutationOf = (value: unknown): fc.Arbitrary<Mutation> => {
  const paths = pathsOf(value);
  const path = fc.constantFrom(...paths);
  const key = fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 12 }));
  return fc.oneof(
    path.map((p): Mutation => ({ op: 'remove', path: p })),
    fc.tuple(path, hostileValue()).map(([p, v]): Mutation => ({ op: 'replace', path: p, value: v })),
    fc.tuple(path, key, hostileValue()).map(([p, k, v]): Mutation => ({ op: 'add', path: p, key: k, value: v })),
  );
};

export const applyMutation = (value: unknown, mutation: Mutation): unknown => {
  if (mutation.op === 'remove') return removeAt(value, mutation.path);
  if (mutation.op === 'replace') return replaceAt(value, mutation.path, mutation.value);
  return addFieldAt(value, mutation.path, mutation.key, mutation.value);
};

/** A human-readable path: `spec.listeners[1].port`. */
export const showPath = (path: Path): string => path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');

/** Problems that make an error message unreadable for the person who has to fix the input. */
export const unreadable = (message: string): string[] =>
  [
    message.includes('[object Object]') ? 'prints [object Object]' : '',
    /\n\s+at .+:\d+:\d+/.test(message) ? 'contains a stack trace' : '',
    /supplied to :|Invalid value undefined supplied/.test(message) ? 'io-ts internals' : '',
    message.trim() === '' ? 'empty' : '',
  ].filter((p) => p !== '');

/** Mocha's timeout for a fuzz test: none on a long run (FUZZ_RUNS), a minute for the default runs. */
export const fuzzTimeout = (): number => (process.env.FUZZ_RUNS === undefined ? 60_000 : 0);
