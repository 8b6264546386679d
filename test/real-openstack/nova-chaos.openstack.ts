/**
 * The Nova upgrade's chaos run, quick form (issue 31): the chaos suite's control plane as a child process on the
 * embedded default, the SQL adapter provisioning scratch schemas in the sandbox's real MariaDB, the local JobRunner
 * running the rendered scripts against a scripted nova-manage whose call log is the ground truth, stand-in roles
 * rolled by the local workloads (test/chaos/harness/scenarios/nova.ts). The plane is SIGKILLed at each of the
 * engine's failpoints in turn on the Nova's streams — install 2025.1, upgrade to 2025.2, delete — and every
 * invariant is checked: each Job of one hash ran once and only after its stored decision, never two at once, no
 * Ready over a running phase Job or an unproven release, nothing left in MariaDB or the runner after the delete, no
 * lost decision, every stream replays, no secret in an event or a log line. Here because it needs the sandbox's
 * MariaDB (the chaos CI stage runs before the sandbox is up); the long form is `npm run chaos -- --machines nova`.
 */
import { expect } from 'chai';
import { startSimulatorProcess, type SimulatorProcess } from '../chaos/harness/simulator-process.js';
import { checkRun, describeOutcome } from '../chaos/harness/check-run.js';
import { novaScenario } from '../chaos/harness/scenarios/nova.js';
import { killAllChildren } from '../chaos/harness/children.js';

describe('chaos (quick) for the Nova upgrade: killed at every failpoint, restarted, every invariant holds', function () {
  this.timeout(900_000);
  let sim: SimulatorProcess;
  before(async () => {
    sim = await startSimulatorProcess();
  });
  after(async () => {
    await sim?.stop();
    killAllChildren();
  });

  it('install, upgrade and delete with a kill at each failpoint: 0 violations', async () => {
    const outcome = await checkRun(sim, novaScenario, 31_100, {
      crashes: 3,
      faults: 0,
      pause: false,
      points: ['decided-before-append', 'effect-answered-before-result', 'appended-before-effect'],
      nths: [2, 1, 3],
    });
    console.log(`      ${describeOutcome(outcome)}`);
    expect(outcome.violations.map((v) => `${v.invariant}: ${v.detail}`), `seed ${outcome.seed}; data in ${outcome.dir}`).to.deep.equal([]);
    expect(outcome.kills.map((k) => k.point), 'each failpoint fired').to.include.members(['decided-before-append', 'effect-answered-before-result', 'appended-before-effect']);
  });
});
