/**
 * Differential check without a cloud (runs in `npm test`): the scenarios recorded against a real OpenStack
 * (recorded/real-openstack.json, written by `REGENT_DIFF_RECORD=1 npm run test:openstack`) are replayed
 * against the simulator and compared step by step. A difference not listed in known-differences.ts fails:
 * a simulator change that drifts from what real Nova, Cinder or Octavia showed is caught here, before any
 * test that trusts the simulator can be fooled by it.
 */
import { expect } from 'chai';
import { startSimTarget, type SimTarget } from './sim-target.js';
import { SCENARIOS, runScenario } from './scenarios.js';
import { compareTranscripts, type Difference } from './transcript.js';
import { KNOWN_DIFFERENCES, knownDifference } from './known-differences.js';
import { readRecording } from './recording.js';

const show = (v: unknown): string => JSON.stringify(v);

describe('differential check: the simulator against the recorded real-cloud transcripts', function () {
  this.timeout(60_000);
  const recording = readRecording();
  let sim: SimTarget;
  const seen: Difference[] = [];

  before(async () => {
    sim = await startSimTarget('regent-ci-sim');
  });
  after(async () => {
    await sim?.close();
    const gone = KNOWN_DIFFERENCES.filter((k) => k.timingDependent !== true && !seen.some((d) => d.scenario === k.scenario && d.label === k.label));
    const recordedScenarios = new Set(recording?.transcripts.map((t) => t.scenario) ?? []);
    for (const k of gone.filter((g) => recordedScenarios.has(g.scenario))) {
      console.log(`    note: known difference ${k.scenario} / ${k.label} no longer occurs; remove it from known-differences.ts and docs/simulator-differences.md`);
    }
  });

  it('a recording of the real cloud exists and covers every scenario', () => {
    expect(recording, 'test/differential/recorded/real-openstack.json').to.not.equal(undefined);
    expect(recording?.transcripts.map((t) => t.scenario)).to.have.members(SCENARIOS.map((s) => s.name));
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: ${scenario.about}`, async function () {
      const real = recording?.transcripts.find((t) => t.scenario === scenario.name);
      if (!real) this.skip();
      const simulated = await runScenario(scenario, sim);
      const differences = compareTranscripts(real as NonNullable<typeof real>, simulated as NonNullable<typeof simulated>);
      seen.push(...differences);
      const unexplained = differences.filter((d) => !knownDifference(d));
      expect(unexplained.map((d) => `${d.label}: real ${show(d.real)} / simulator ${show(d.sim)} (${d.why})`), 'differences from the real cloud not listed in known-differences.ts').to.deep.equal([]);
    });
  }
});
