/**
 * Differential check, live: every scenario (scenarios.ts) runs against the real cloud and then against a
 * fresh in-process simulator, and the transcripts are compared. A difference that is not listed in
 * known-differences.ts fails the scenario. The real transcripts are written out (REGENT_DIFF_RECORD=1:
 * into test/differential/recorded/real-openstack.json, which `npm test` compares the simulator against;
 * otherwise next to the client log) so the simulator can be checked without a cloud.
 */
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { realRun, type RealRun } from '../real-openstack/support/run.js';
import { realTarget } from './real-target.js';
import { startSimTarget, type SimTarget } from './sim-target.js';
import { SCENARIOS, runScenario, type ScenarioHolds } from './scenarios.js';
import type { DiffTarget } from './target.js';
import { compareTranscripts, type Difference, type Transcript } from './transcript.js';
import { knownDifference } from './known-differences.js';
import { RECORDING, type Recording } from './recording.js';

const show = (v: unknown): string => JSON.stringify(v);

describe('differential check: the simulator against the real cloud', function () {
  let run: RealRun;
  let sim: SimTarget;
  const recorded: Transcript[] = [];
  const found: Difference[] = [];

  before(async () => {
    run = await realRun();
    sim = await startSimTarget(run.prefix);
  });

  after(async () => {
    await sim?.close();
    if (recorded.length === 0) return;
    const document: Recording = { recordedAt: new Date().toISOString(), cloud: run.target.description.replace(/ \(.*?\)/, ''), transcripts: recorded };
    const path = process.env.REGENT_DIFF_RECORD === '1' ? RECORDING : join(tmpdir(), `${run.prefix}-transcripts.json`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(document, null, 2)}\n`);
    console.log(`\n  real transcripts written to ${path}`);
    if (found.length > 0) {
      console.log('  differences (real → simulator):');
      for (const d of found) console.log(`    ${d.scenario} / ${d.label}: ${show(d.real)} → ${show(d.sim)}${knownDifference(d) ? `  [known: ${knownDifference(d)?.reason}]` : '  [NEW]'}`);
    }
  });

  /** The real target with the holds only the real cloud needs (scenarios.ts ScenarioHolds), from the run's fault control. */
  const heldRealTarget = (): DiffTarget & ScenarioHolds => {
    const faults = run.faults;
    return {
      ...realTarget(run),
      ...(faults ? { holdLoadBalancerUpdates: async (seconds: number) => faults.set('octavia', { delay: { update: seconds } }) } : {}),
    };
  };

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: ${scenario.about}`, async function () {
      const real = await runScenario(scenario, heldRealTarget());
      if (!real) this.skip();
      recorded.push(real as Transcript);
      const simulated = await runScenario(scenario, sim);
      const differences = compareTranscripts(real as Transcript, simulated as Transcript);
      found.push(...differences);
      const unexplained = differences.filter((d) => !knownDifference(d));
      expect(unexplained.map((d) => `${d.label}: real ${show(d.real)} / simulator ${show(d.sim)} (${d.why})`), 'differences not listed in known-differences.ts').to.deep.equal([]);
    });
  }
});
