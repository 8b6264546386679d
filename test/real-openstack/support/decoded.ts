/**
 * "Decoded with the io-ts decoders" means more than "did not throw": an observation's Field that does not
 * decode becomes `unreadable` quietly (the decider then refuses to guess). Against a real cloud every
 * field Regent reads must come back as a value; this walks an observation and names any that did not.
 */
import { expect } from 'chai';

type FieldLike = { kind: 'value'; value: unknown } | { kind: 'absent' } | { kind: 'unreadable'; raw?: unknown };

const isField = (v: unknown): v is FieldLike =>
  typeof v === 'object' && v !== null && 'kind' in v && ['value', 'absent', 'unreadable'].includes(String((v as { kind: unknown }).kind));

/** Every Field of `observation` is a value, except the keys listed as allowed to be absent. */
export const expectDecoded = (observation: object, what: string, allowAbsent: readonly string[] = []): void => {
  const problems: string[] = [];
  for (const [key, field] of Object.entries(observation)) {
    if (!isField(field)) continue;
    if (field.kind === 'unreadable') problems.push(`${key} unreadable (raw ${JSON.stringify(field.raw)})`);
    else if (field.kind === 'absent' && !allowAbsent.includes(key)) problems.push(`${key} absent`);
  }
  expect(problems, `${what}: fields that did not decode from the real answer`).to.deep.equal([]);
};
