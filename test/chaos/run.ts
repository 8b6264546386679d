/**
 * The chaos suite's long form (issue 31; docs/chaos.md):
 *   npm run chaos -- --runs 1000 --seed 7 [--machines server,volume] [--only server:700003] [--parallel 2] [--max-minutes 60]
 * Every machine by default; `nova` (the Nova upgrade with the local Job runner) needs the sandbox's MariaDB.
 * Runs the machines' scenarios round-robin, each run planned from its own seed (700000 + i for --seed 7), against
 * one simulator process per worker (`--parallel`, default 1: runs spend most of their time waiting on the
 * machines' timers, so two workers roughly double the rate on two cores); prints a line per run, then the per-machine table (runs, kills by crash point, pauses,
 * faults by class, violations by invariant) and every failing seed with the command that reproduces it. Exit 1 on
 * any violation.
 */
import { parseArgs } from 'node:util';
import { startSimulatorProcess } from './harness/simulator-process.js';
import { checkRun, describeOutcome, optionsForSeed, type RunOutcome } from './harness/check-run.js';
import { existsSync } from 'node:fs';
import { ALL_SCENARIOS, SCENARIOS, scenarioNamed } from './harness/scenarios/index.js';
import { MARIADB_SOCKET } from './harness/scenarios/nova.js';
import { formatTable, tally } from './harness/tally.js';
import { killAllChildren } from './harness/children.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '100' },
    seed: { type: 'string', default: '1' },
    machines: { type: 'string' },
    only: { type: 'string' },
    'max-minutes': { type: 'string' },
    parallel: { type: 'string', default: '1' },
  },
});

/** By default every machine; the Nova upgrade only where its MariaDB answers (the sandbox's socket, or REGENT_CHAOS_MARIADB_SOCKET). */
const defaultMachines = (): readonly (typeof SCENARIOS)[number][] => {
  if (existsSync(MARIADB_SOCKET)) return ALL_SCENARIOS;
  console.log(`nova: left out, no MariaDB socket at ${MARIADB_SOCKET} (start the sandbox, or set REGENT_CHAOS_MARIADB_SOCKET)`);
  return SCENARIOS;
};
const machines = values.machines ? values.machines.split(',').map(scenarioNamed) : defaultMachines();
const jobs = values.only
  ? values.only.split(',').map((o) => {
      const [machine, seed] = o.split(':');
      return { scenario: scenarioNamed(machine as string), seed: Number(seed) };
    })
  : Array.from({ length: Number(values.runs) }, (_, i) => ({ scenario: machines[i % machines.length] as (typeof machines)[number], seed: Number(values.seed) * 100_000 + i }));
const deadline = values['max-minutes'] ? Date.now() + Number(values['max-minutes']) * 60_000 : Infinity;

const outcomes: RunOutcome[] = [];
const started = Date.now();
let nextJob = 0;
/** One worker: its own simulator process, taking the next job until none is left or the deadline passed. */
const worker = async (): Promise<void> => {
  const sim = await startSimulatorProcess();
  try {
    while (nextJob < jobs.length && Date.now() <= deadline) {
      const i = nextJob++;
      const job = jobs[i] as (typeof jobs)[number];
      const outcome = await checkRun(sim, job.scenario, job.seed, optionsForSeed(job.seed, job.scenario));
      outcomes.push(outcome);
      console.log(`[${i + 1}/${jobs.length}] ${describeOutcome(outcome)}`);
    }
  } finally {
    await sim.stop();
  }
};
try {
  await Promise.all(Array.from({ length: Math.max(1, Number(values.parallel)) }, () => worker()));
  if (nextJob < jobs.length) console.log(`stopped after ${outcomes.length} runs: --max-minutes reached`);
} finally {
  killAllChildren();
}
console.log(`\n${outcomes.length} runs in ${((Date.now() - started) / 60_000).toFixed(1)} min (command: npm run chaos -- ${process.argv.slice(2).join(' ')})\n`);
console.log(formatTable(tally(outcomes)));
const failing = outcomes.filter((o) => o.violations.length > 0);
if (failing.length > 0) {
  console.log(`\nfailing runs (reproduce with the command shown):`);
  for (const o of failing) console.log(`  npm run chaos -- --only ${o.machine}:${o.seed}    (${o.violations.length} violations; data in ${o.dir})`);
  process.exit(1);
}
