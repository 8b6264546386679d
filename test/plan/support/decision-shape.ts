/**
 * What the faithfulness tests compare (test/plan/faithful*.test.ts): a decision as the plan shows it and an event as
 * the real pass stored it, in one shape — stream, event, state before and after, the rule, the effects with their
 * parameters (the stored ones digested as the plan shows them: secret-shaped members as `sha256:` digests) and the
 * destructive flag.
 */
import type { RecordedEvent } from '../../../src/events/envelope.js';
import { createProductRegistry } from '../../../machines/index.js';
import { ruleOf, stateText } from '../../../src/plan/rules.js';
import { isDestructive } from '../../../src/plan/destructive.js';
import { digestSecrets } from '../../../src/resource-history/digest-secrets.js';
import type { PlannedDecision } from '../../../src/plan/report.js';

export interface DecisionShape {
  stream: string;
  event: string;
  from: string;
  to: string;
  rule: string | null;
  effects: Record<string, unknown>[];
  destructive: boolean;
}

const registry = createProductRegistry();

export function shapeOfPlanned(d: PlannedDecision | undefined): DecisionShape | undefined;
export function shapeOfPlanned(d: PlannedDecision): DecisionShape;
export function shapeOfPlanned(d: PlannedDecision | undefined): DecisionShape | undefined {
  return d && { stream: d.stream, event: d.event, from: d.from, to: d.to, rule: d.rule?.id ?? null, effects: d.effects.map((e) => ({ type: e.type, ...e.params })), destructive: d.destructive };
}

export function shapeOfStored(e: RecordedEvent | undefined): DecisionShape | undefined;
export function shapeOfStored(e: RecordedEvent): DecisionShape;
export function shapeOfStored(e: RecordedEvent | undefined): DecisionShape | undefined {
  if (!e) return undefined;
  const definition = registry.get(e.metadata.machine);
  return {
    stream: e.stream,
    event: e.type,
    from: stateText(e.metadata.from),
    to: stateText(e.metadata.to),
    rule: ruleOf(e)?.id ?? null,
    effects: e.metadata.effects.map(({ type, ...params }) => ({ type, ...digestSecrets(params) })),
    destructive: e.metadata.effects.some((x) => isDestructive(x.type, definition)),
  };
}
