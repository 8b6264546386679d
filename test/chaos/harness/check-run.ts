/**
 * One run, checked: plan → execute → every invariant over the evidence. A clean run's data directory is removed;
 * a failing one's is kept and named, with its seed, for reproduction, and the plane's log and the run's plan are
 * written beside it (./kept-evidence.ts; docs/chaos.md).
 */
import { checkInvariants } from '../invariants/index.js';
import type { Violation } from '../invariants/types.js';
import type { InjectedFault } from './faults.js';
import { executeRun, planRun, removeRunDir, type CrashPoint, type Kill, type PauseKind, type RunOptions } from './run-one.js';
import { rngFrom } from './rng.js';
import { keepEvidence } from './kept-evidence.js';
import type { Scenario } from './scenarios/scenario.js';
import type { SimulatorProcess } from './simulator-process.js';

export interface RunOutcome {
  machine: string;
  seed: number;
  crashesPlanned: CrashPoint[];
  kills: Kill[];
  pauses: PauseKind[];
  faults: InjectedFault[];
  /** Every planned fault with what became of it (landed or not, and why). */
  allFaults: InjectedFault[];
  violations: Violation[];
  durationMs: number;
  dir: string | undefined;
}

/** The long form's options for a seed (one or two kills; faults and pauses drawn from the seed), so a seed alone reproduces a run. */
export const optionsForSeed = (seed: number, scenario: Scenario): RunOptions => {
  const rng = rngFrom(seed ^ 0x5eed);
  return { crashes: rng.int(1, 2), faults: rng.chance(0.7) ? 2 : 0, pause: rng.chance(0.2) && scenario.machine !== 'identity' };
};

export const checkRun = async (sim: SimulatorProcess, scenario: Scenario, seed: number, options: RunOptions): Promise<RunOutcome> => {
  const plan = planRun(seed, scenario, options);
  const evidence = await executeRun(sim, plan);
  const faults = evidence.faults.filter((f) => f.landed);
  const violations = checkInvariants({ ...evidence, madeUpIds: evidence.faults.flatMap((f) => f.madeUpIds) });
  if (violations.length === 0 && !process.env.CHAOS_KEEP) removeRunDir(evidence);
  else keepEvidence(evidence, violations);
  return {
    machine: scenario.machine, seed, crashesPlanned: plan.crashes.map((c) => c.point), kills: evidence.kills, pauses: evidence.pauses, faults, allFaults: evidence.faults, violations,
    durationMs: evidence.durationMs, dir: violations.length > 0 || process.env.CHAOS_KEEP ? evidence.dir : undefined,
  };
};

/** One line per run for progress output. */
export const describeOutcome = (o: RunOutcome): string =>
  `${o.machine} seed=${o.seed} ${(o.durationMs / 1000).toFixed(1)}s kills=[${o.kills.map((k) => k.point).join(',')}] pauses=[${o.pauses.join(',')}] faults=[${o.faults.map((f) => f.cls).join(',')}] violations=${o.violations.length}` +
  (o.violations.length > 0 ? `\n  ${o.violations.map((v) => `${v.invariant}: ${v.detail}`).join('\n  ')}\n  faults: ${o.allFaults.map((f) => `${f.cls}@${f.step} ${f.detail}`).join('; ')}\n  data: ${o.dir}` : '');
