/**
 * The Nova pipeline's sequential lane (nova-operator.md, "Pipeline"; issue 26): a table of named steps, each
 * setting its condition(s) and returning an outcome; the first step that returns a requeue or an error ends the
 * pass, and the conditions set so far are recorded on every exit path (the pass appends them to the Nova's
 * `nova-pipeline-<uid>` stream before it returns or rethrows: machines/nova-pipeline.ts). Every step is timed.
 *
 * Steps hand what later steps need through the pass-local `values` (the credentials read, the transport URL, the
 * rendered config's name, the credential digests): never through a long-lived object.
 *
 * Outside an upgrade a workload step never ends the lane on a role that is still starting: it sets its condition
 * and returns `continue` (the spec: "a metadata API mid-rollout does not keep the API step from running").
 */
import type { ConditionInput } from '../../../projections/conditions.js';

export type StepOutcome =
  /** a zero result: the next step runs */
  | { kind: 'continue' }
  /** a non-zero result: the lane ends and the pass comes back after `afterMs` */
  | { kind: 'requeue'; afterMs: number; why: string }
  /** the lane ends; the pass fails (backoff) after the conditions are recorded */
  | { kind: 'error'; error: unknown };

export interface StepReport {
  /** The conditions this step set in this pass (types among its `conditions`). */
  conditions: ConditionInput[];
  outcome: StepOutcome;
}

export interface NovaStep<P> {
  /** The spec's step name (the `sub_reconciler` label): Secrets, DBConnectionSecrets, TransportURLSecret, Config, … */
  name: string;
  /** The condition types this step may set. */
  conditions: readonly string[];
  run(pass: P): Promise<StepReport>;
}

export interface StepTiming {
  step: string;
  ms: number;
  outcome: StepOutcome['kind'];
}

export interface LaneResult {
  /** Every condition the steps that ran set, in step order (a later setting of the same type wins). */
  conditions: ConditionInput[];
  /** The step that ended the lane (a requeue or an error), or null when every step continued. */
  endedAt: string | null;
  outcome: StepOutcome;
  timings: StepTiming[];
}

export const continueLane: StepOutcome = { kind: 'continue' };
export const requeue = (afterMs: number, why: string): StepOutcome => ({ kind: 'requeue', afterMs, why });

/** Runs the steps in order until one ends the lane; a step that throws ends it as an error, its conditions kept. */
export const runLane = async <P>(steps: ReadonlyArray<NovaStep<P>>, pass: P, clock: () => number = () => performance.now()): Promise<LaneResult> => {
  const conditions = new Map<string, ConditionInput>();
  const timings: StepTiming[] = [];
  for (const step of steps) {
    const started = clock();
    let report: StepReport;
    try {
      report = await step.run(pass);
    } catch (error) {
      report = { conditions: [], outcome: { kind: 'error', error } };
    }
    timings.push({ step: step.name, ms: clock() - started, outcome: report.outcome.kind });
    for (const condition of report.conditions) {
      // a step sets only what it owns: anything else is a bug in the step table, not a status to write
      if (!step.conditions.includes(condition.type)) throw new Error(`step ${step.name} set ${condition.type}, which it does not own (it owns ${step.conditions.join(', ')})`);
      conditions.set(condition.type, condition);
    }
    if (report.outcome.kind !== 'continue') return { conditions: [...conditions.values()], endedAt: step.name, outcome: report.outcome, timings };
  }
  return { conditions: [...conditions.values()], endedAt: null, outcome: continueLane, timings };
};
