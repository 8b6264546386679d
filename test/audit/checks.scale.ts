/**
 * `regent check` as a command: it passes on the whole product registry, and exits 3 with a counterexample on
 * a broken candidate. A scale test (`npm run test:scale`, its own CI stage; issue 25): it explores every
 * product machine's reachable graph in a child process, the single longest test of `npm test` (50-80 s on a
 * busy 2-core machine, past its 60 s timeout once). The same explorations still run in `npm test` in
 * process (checks.test.ts: no product machine fails a check), and `.ci/run` runs `regent check` as a stage.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import type { MachineCheckReport } from '../../src/audit/checks/rules.js';

const regent = (args: string[]) => {
  const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
  return { code: result.status, out: result.stdout, err: result.stderr };
};

describe('audit: static checks', function () {
  this.timeout(300_000);

  it('regent check passes on the product registry and exits 3 with a counterexample on a broken candidate', () => {
    const ok = regent(['check']);
    expect(ok.code, ok.err).to.equal(0);
    expect(ok.out).to.match(/serverRebuild v2: \d+ states/);
    expect(ok.out).to.include('all checks passed');
    const broken = regent(['--machines', 'test/audit/fixtures/broken-machines.ts', 'check', 'serverRebuild@92']);
    expect(broken.code).to.equal(3);
    expect(broken.out).to.include('✗ no path reaches a destructive effect without a reconciler-sourced arm recorded in an earlier event');
    expect(broken.out).to.match(/1\. reconcile \(reconciler\) {2}noMarker → Initiated {2}\/ armedAndSubmitted ! nova\.rebuild/);
    const json = regent(['--machines', 'test/audit/fixtures/broken-machines.ts', 'check', 'serverRebuild@91', '--json']);
    const [report] = JSON.parse(json.out) as MachineCheckReport[];
    expect(report?.results.find((r) => r.status === 'fail')?.counterexample?.path[0]?.event).to.include({ type: 'observed', source: 'monitor' });
  });
});
