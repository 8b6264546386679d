/**
 * The rule that authorizes a decision (R3, L2, …), for the plan to print next to it.
 *
 * Machines label their transitions with rule ids in source comments (machines/server-rebuild.ts: `// R3`; the
 * lifecycle factory: `// L2`), not in data: nothing stored or exposed carries them. A stored event does carry what
 * identifies the transition — its machine, the state it was decided in (`metadata.from`) and its outcome (the event
 * type's suffix) — so the coverage files' tables (src/plan/coverage/) map those to the label the source gives that transition. Nothing stored changes.
 *
 * test/plan/rules.test.ts keeps the table honest: every decision each tabled machine's audit graph can take (its
 * whole explored alphabet, `regent check`'s) has a row, and every label is the one the source comment gives the
 * transition with that outcome. A decision of a machine not tabled here (yet) gets no rule; the plan says so.
 */
import type { RecordedEvent, StateValue } from '../events/envelope.js';
import { formatState } from '../events/state-text.js';
import type { Rule } from './coverage/rule-row.js';
import { COVERED_RULES } from './coverage/index.js';

export type { Rule, RuleRow } from './coverage/rule-row.js';

/** Per machine id, its labelled transitions (read by test/plan/rules.test.ts against the machines' sources). */
export const RULE_TABLES = COVERED_RULES;

/** The machines whose decisions this table labels. */
export const RULED_MACHINES: readonly string[] = Object.keys(RULE_TABLES);

export const stateText = (value: StateValue | null | undefined): string => formatState(value);

/** The rule of a stored (or forked) decision; undefined when its machine or transition is not labelled. */
export const ruleOf = (event: Pick<RecordedEvent, 'type' | 'data' | 'metadata'>): Rule | undefined => {
  const machine = event.metadata.machine;
  const rows = RULE_TABLES[machine];
  if (!rows) return undefined;
  const outcome = event.type.startsWith(`${machine}.`) ? event.type.slice(machine.length + 1) : event.type;
  const from = stateText(event.metadata.from);
  const data = event.data as Record<string, unknown>;
  return rows.find((row) => row.outcome === outcome && (row.from === undefined || row.from.includes(from)) && (row.when === undefined || row.when(data)))?.rule;
};
