/**
 * A failing chaos run keeps, beside its data, the plane's log and the run's plan and outcome
 * (test/chaos/harness/kept-evidence.ts): what the stores alone cannot say about a run that stalled.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepEvidence, PLANE_LOG, RUN_JSON } from './harness/kept-evidence.js';
import { scenarioNamed } from './harness/scenarios/index.js';
import { evidenceWindows } from './harness/run-one.js';

describe('chaos: the evidence a failing run keeps', () => {
  it('writes every plane log line in order, and the plan, what happened and the violations with the command that reproduces it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-kept-'));
    try {
      const scenario = scenarioNamed('vlan');
      keepEvidence(
        {
          dir,
          plan: { seed: 2000182, scenario, crashes: [{ point: 'appended-before-effect', nth: 1 }], faults: [], pause: { kind: 'stop-alone', step: 0, delayMs: 700 } } as never,
          kills: [],
          pauses: ['stop-alone'],
          faults: [],
          logLines: ['{"message":"became leader"}', '{"message":"stopped leading","reason":"renew deadline exceeded"}'],
          durationMs: 326_600,
        },
        [{ invariant: 'no-lost-decision', detail: 'step "identity vt": not settled within 320000 ms' }],
      );
      expect(readFileSync(join(dir, PLANE_LOG), 'utf8')).to.equal('{"message":"became leader"}\n{"message":"stopped leading","reason":"renew deadline exceeded"}\n');
      const run = JSON.parse(readFileSync(join(dir, RUN_JSON), 'utf8')) as Record<string, unknown>;
      expect(run).to.deep.include({ machine: 'vlan', seed: 2000182, reproduce: 'npm run chaos -- --only vlan:2000182', durationMs: 326_600 });
      expect(run.planned).to.deep.equal({ crashes: [{ point: 'appended-before-effect', nth: 1 }], pause: { kind: 'stop-alone', step: 0, delayMs: 700 } });
      expect(run.happened).to.deep.equal({ kills: [], pauses: ['stop-alone'], faults: [] });
      expect(run.violations).to.deep.equal([{ invariant: 'no-lost-decision', detail: 'step "identity vt": not settled within 320000 ms' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a step's deadline counts a window for each kill, 5xx, timeout and duplicate name (volume:2000137: a duplicate's 60 s recheck, then a killed extend's 120 s window)", () => {
    const fault = (cls: string) => ({ cls }) as never;
    expect(evidenceWindows({ crashes: [], faults: [] })).to.equal(1);
    expect(evidenceWindows({ crashes: [{ point: 'appended-before-effect', nth: 1 }] as never, faults: [fault('latency'), fault('duplicate')] })).to.equal(2);
    expect(evidenceWindows({ crashes: [], faults: [fault('5xx'), fault('timeout'), fault('409'), fault('unknown-status')] })).to.equal(2);
  });
});
