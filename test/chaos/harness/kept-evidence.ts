/**
 * What a failing run leaves beside its data for the engineer who reads it later (docs/chaos.md): the plane's log
 * lines (every life, the standby's too, in order of life) in `plane.log`, and `run.json` with the run's plan (the kills
 * planned, the pause and when, the faults with what became of them), what actually happened (kills fired, pauses) and
 * the violations. A violation that does not reproduce (a run that stalls once in a few dozen) is then still
 * readable: the stores alone do not say what a plane that decided nothing was doing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Violation } from '../invariants/types.js';
import type { RunEvidence } from './run-one.js';

export const PLANE_LOG = 'plane.log';
export const RUN_JSON = 'run.json';

export const keepEvidence = (evidence: Pick<RunEvidence, 'dir' | 'plan' | 'kills' | 'pauses' | 'faults' | 'logLines' | 'durationMs'>, violations: readonly Violation[]): void => {
  writeFileSync(join(evidence.dir, PLANE_LOG), evidence.logLines.map((line) => `${line}\n`).join(''));
  const { plan } = evidence;
  const run = {
    machine: plan.scenario.machine,
    seed: plan.seed,
    reproduce: `npm run chaos -- --only ${plan.scenario.machine}:${plan.seed}`,
    planned: { crashes: plan.crashes, pause: plan.pause ?? null },
    happened: { kills: evidence.kills, pauses: evidence.pauses, faults: evidence.faults },
    durationMs: evidence.durationMs,
    violations,
  };
  writeFileSync(join(evidence.dir, RUN_JSON), `${JSON.stringify(run, null, 2)}\n`);
};
