/**
 * What the plan covers of one group of kinds: the kinds whose passes it runs, the rule labels of their machines'
 * decisions (src/plan/rules.ts reads them), and what each machine waits for after a decision (src/plan/waits.ts).
 * One file per group (server.ts, volume.ts, …); index.ts puts them together.
 */
import type { KindName } from '../../resources/index.js';
import type { RuleRow } from './rule-row.js';

export interface PlanCoverage {
  /** The kinds whose plan is built: their real passes run against the plan's fork. */
  kinds: readonly KindName[];
  /** Per machine id, its labelled transitions (test/plan/rules.test.ts checks them against the explored graphs). */
  rules: Readonly<Record<string, readonly RuleRow[]>>;
  /** Per machine id and outcome, what the machine waits for after that decision, in words. */
  waits: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Per machine id, the decisions (event types) its source gives no label, and why (test/plan/rules.test.ts). */
  unlabelled?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}
