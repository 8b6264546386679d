/** io-ts decoding with readable failures: each problem names the field path that is wrong. */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';

export type Decoded<A> = { ok: true; value: A } | { ok: false; problems: string[] };

/** The data path of one io-ts error: `spec.listeners[1].port`, or `(root)`. */
export const errorPath = (error: t.ValidationError): string => {
  const path: string[] = [];
  error.context.forEach((entry, i) => {
    if (i === 0 || entry.key === '') return;
    const parent = error.context[i - 1]?.type;
    // A union or intersection member index is not part of the data path.
    if (parent instanceof t.UnionType || parent instanceof t.IntersectionType) return;
    path.push(/^[0-9]+$/.test(entry.key) && parent instanceof t.ArrayType ? `[${entry.key}]` : entry.key);
  });
  return path.join('.').replace(/\.\[/g, '[') || '(root)';
};

/** `spec.listeners[1].port: expected number, got "80"`-style messages, one per failing leaf. */
export const formatErrors = (errors: t.Errors): string[] => {
  const messages = new Set<string>();
  for (const error of errors) {
    const last = error.context[error.context.length - 1];
    const where = errorPath(error);
    const expected = last?.type.name ?? 'unknown';
    const got = error.value === undefined ? 'nothing' : JSON.stringify(error.value)?.slice(0, 80);
    messages.add(error.message ?? `${where}: expected ${expected}, got ${got}`);
  }
  return [...messages];
};

export const decodeWith = <A, I>(codec: t.Decoder<I, A>, input: I): Decoded<A> => {
  const result = codec.decode(input);
  return isLeft(result) ? { ok: false, problems: formatErrors(result.left) } : { ok: true, value: result.right };
};
