/** The per-machine table of a chaos batch: runs, kills by crash point, pauses, faults by class, violations by invariant. */
import { INVARIANTS } from '../invariants/types.js';
import { FAULT_CLASSES } from './faults.js';
import { CRASH_POINTS, PAUSE_KINDS } from './run-one.js';
import type { RunOutcome } from './check-run.js';

export interface MachineTally {
  machine: string;
  runs: number;
  kills: Record<string, number>;
  pauses: Record<string, number>;
  faults: Record<string, number>;
  violations: Record<string, number>;
}

const zeros = (keys: readonly string[]): Record<string, number> => Object.fromEntries(keys.map((k) => [k, 0]));

export const tally = (outcomes: readonly RunOutcome[]): MachineTally[] => {
  const byMachine = new Map<string, MachineTally>();
  for (const o of outcomes) {
    const t = byMachine.get(o.machine) ?? { machine: o.machine, runs: 0, kills: zeros(CRASH_POINTS), pauses: zeros(PAUSE_KINDS), faults: zeros(FAULT_CLASSES), violations: zeros(INVARIANTS) };
    t.runs++;
    for (const k of o.kills) t.kills[k.point] = (t.kills[k.point] ?? 0) + 1;
    for (const p of o.pauses) t.pauses[p] = (t.pauses[p] ?? 0) + 1;
    for (const f of o.faults) t.faults[f.cls] = (t.faults[f.cls] ?? 0) + 1;
    for (const v of o.violations) t.violations[v.invariant] = (t.violations[v.invariant] ?? 0) + 1;
    byMachine.set(o.machine, t);
  }
  return [...byMachine.values()];
};

const SHORT: Record<string, string> = {
  'decided-before-append': 'k:dec', 'appended-before-effect': 'k:app', 'effect-answered-before-result': 'k:ans', random: 'k:rnd',
  'stop-with-standby': 'p:stby', 'stop-alone': 'p:alone',
  'one-destructive-per-decision': 'v:once', 'destructive-after-arm': 'v:arm', 'no-lost-decision': 'v:lost', 'no-duplicate-name': 'v:dup',
  'no-false-provisioned': 'v:prov', 'replay-no-divergence': 'v:replay', 'no-secret': 'v:secret',
};

/** A fixed-width text table, one row per machine and a total row; a legend under it. */
export const formatTable = (tallies: readonly MachineTally[]): string => {
  const columns = [
    ...CRASH_POINTS.map((k) => ({ head: SHORT[k] as string, get: (t: MachineTally) => t.kills[k] ?? 0 })),
    ...PAUSE_KINDS.map((k) => ({ head: SHORT[k] as string, get: (t: MachineTally) => t.pauses[k] ?? 0 })),
    ...FAULT_CLASSES.map((k) => ({ head: `f:${k}`, get: (t: MachineTally) => t.faults[k] ?? 0 })),
    ...INVARIANTS.map((k) => ({ head: SHORT[k] as string, get: (t: MachineTally) => t.violations[k] ?? 0 })),
  ];
  const total: MachineTally = { machine: 'TOTAL', runs: tallies.reduce((n, t) => n + t.runs, 0), kills: {}, pauses: {}, faults: {}, violations: {} };
  for (const t of tallies) for (const part of ['kills', 'pauses', 'faults', 'violations'] as const) for (const [k, v] of Object.entries(t[part])) total[part][k] = (total[part][k] ?? 0) + v;
  const rows = [...tallies, total].map((t) => [t.machine, String(t.runs), ...columns.map((c) => String(c.get(t)))]);
  const head = ['machine', 'runs', ...columns.map((c) => c.head)];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join(' ');
  const legend = 'k: kills by crash point (dec decided-before-append, app appended-before-effect, ans effect-answered-before-result, rnd harness SIGKILL at random); ' +
    'p: pauses (SIGSTOP past the lease with a standby / alone); f: cloud faults landed by class; v: invariant violations (once one-destructive-per-decision, arm destructive-after-arm, ' +
    'lost no-lost-decision, dup no-duplicate-name, prov no-false-provisioned, replay replay-no-divergence, secret no-secret)';
  return [line(head), ...rows.map(line), '', legend].join('\n');
};
