/**
 * The chaos suite's quick form (`npm run test:chaos`, its own CI stage, ≤ 4 min on 2 cores): per machine one run
 * with fixed seeds in which the control plane is SIGKILLed at each of the engine's failpoints in turn (each life of
 * the plane arms the next: decided-before-append, effect-answered-before-result, appended-before-effect), then every
 * invariant is checked over the simulator's call log and state, the stored events, the settle claims and the log
 * lines. The long form (`npm run chaos`) draws kills, faults and pauses at random; docs/chaos.md.
 */
import { expect } from 'chai';
import { startSimulatorProcess, type SimulatorProcess } from './harness/simulator-process.js';
import { checkRun, describeOutcome } from './harness/check-run.js';
import { SCENARIOS } from './harness/scenarios/index.js';
import type { CrashPoint } from './harness/run-one.js';
import { killAllChildren } from './harness/children.js';

const POINTS: CrashPoint[] = ['decided-before-append', 'effect-answered-before-result', 'appended-before-effect'];
/**
 * The hit each point fires at, per machine: chosen so the kills land on the machine's own destructive path and not
 * on an effect whose lost answer opens a 120 s evidence window (a Cinder extend, a Nova attach or detach, an Octavia
 * create killed between append and effect wait that long before deciding again: correct, but too slow for this
 * stage). The attachment's appended-before-effect kill always opens one, so it runs in the long form only.
 */
const NTHS: Record<string, number[]> = {
  server: [1, 1, 2],
  volume: [1, 1, 2],
  attachment: [1, 1],
  'load-balancer': [2, 1, 5],
  'security-group': [1, 1, 1],
  identity: [1, 1, 1],
  vlan: [1, 1, 1],
};

describe('chaos (quick): kills at every failpoint, per machine, all invariants', function () {
  this.timeout(240_000);
  let sim: SimulatorProcess;
  before(async () => {
    sim = await startSimulatorProcess();
  });
  after(async () => {
    await sim?.stop();
    killAllChildren();
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.machine}: killed at each failpoint, restarted, every invariant holds`, async () => {
      const nths = NTHS[scenario.machine] ?? [1, 1, 1];
      const outcome = await checkRun(sim, scenario, 31_000 + SCENARIOS.indexOf(scenario), { crashes: nths.length, faults: 0, pause: false, points: POINTS.slice(0, nths.length), nths });
      console.log(`      ${describeOutcome(outcome)}`);
      expect(outcome.violations.map((v) => `${v.invariant}: ${v.detail}`), `seed ${outcome.seed}; data in ${outcome.dir}`).to.deep.equal([]);
      expect(outcome.kills.length, 'the plane was killed at least once').to.be.greaterThan(0);
    });
  }
});
