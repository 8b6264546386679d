/**
 * `regent replay --all`: every stored history re-decided by a candidate machine, the first divergent
 * event per stream as a table and as JSON, exit 3 on divergence (the CI gate before shipping a
 * machine change).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { Engine } from '../../src/engine/engine.js';
import { MachineRegistry } from '../../machines/registry.js';
import { toyDefinition } from '../fixtures/toy-machine.js';
import { recordCleanRebuild, recordRebuildHistory, REBUILD_STREAM } from '../audit/support/rebuild-history.js';
import type { AllReplayReport } from '../../src/audit/replay/all.js';

const regent = (args: string[]) => {
  const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
  return { code: result.status, out: result.stdout, err: result.stderr };
};

const CANDIDATE = 'test/audit/fixtures/server-rebuild-candidate.ts';

describe('regent replay --all', function () {
  this.timeout(60_000);
  let dir: string;
  let store: string[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-replay-all-'));
    const db = join(dir, 'regent.db');
    store = ['--store', `sqlite:${db}`, '--machines', 'test/fixtures/toy-registry.ts'];
    const s = await openStore(`sqlite:${db}`);
    await recordRebuildHistory(s); // a 409, then a second submit: v3 would not re-submit
    await recordCleanRebuild(s, 'server-rebuild-srv-2'); // accepted at once: v3 decides the same
    const engine = new Engine({ store: s, registry: new MachineRegistry([toyDefinition()]), handlers: { 'toy.create': async () => undefined } });
    await engine.dispatch('toy-a', { stimulus: { type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false }, actor: 'r' });
    await s.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('with the current machines every history reproduces (exit 0)', () => {
    const { code, out, err } = regent([...store, 'replay', '--all']);
    expect(code, err).to.equal(0);
    expect(out).to.match(/replayed 3 stream\(s\), 16 event\(s\) against current machines/);
    expect(out).to.match(/server-rebuild-srv-1\s+serverRebuild v2\s+9\s+ok/);
    expect(out).to.include('0 diverged, 0 quarantined, 0 skipped, 3 reproduced');
  });

  it('against a deliberately changed rebuild machine, names the first divergent event per stream with expected vs actual, and exits 3', () => {
    const { code, out } = regent([...store, 'replay', '--all', '--category', 'server-rebuild', '--machine-version', CANDIDATE]);
    expect(code).to.equal(3);
    expect(out).to.match(/replayed 2 stream\(s\), 11 event\(s\) against serverRebuild v3 from .*server-rebuild-candidate\.ts \(category server-rebuild\)/);
    expect(out).to.match(/server-rebuild-srv-1\s+serverRebuild v3\s+5\s+diverged: ignored\s+4\s+serverRebuild\.submitted\s+Initiated nova\.rebuild\s+Initiated -/);
    expect(out).to.match(/server-rebuild-srv-2\s+serverRebuild v3\s+6\s+ok/);
    expect(out).to.not.include('toy-a');
    expect(out).to.match(/server-rebuild-srv-1: first divergence at revision 4 \(serverRebuild\.submitted, event [0-9a-f-]+\): ignored/);
    expect(out).to.include('recorded:   to Initiated  effects [{"serverId":"srv-1","imageId":"B","type":"nova.rebuild"}]');
    expect(out).to.include('recomputed: to Initiated  effects []');
    expect(out).to.include('1 diverged, 0 quarantined, 0 skipped, 1 reproduced');
  });

  it('prints the same report as JSON', () => {
    const { code, out } = regent([...store, 'replay', '--all', '--category', 'serverRebuild', '--machine-version', CANDIDATE, '--json']);
    expect(code).to.equal(3);
    const report = JSON.parse(out) as AllReplayReport;
    expect(report.diverged).to.equal(1);
    const diverged = report.streams.find((s) => s.stream === REBUILD_STREAM);
    expect(diverged?.divergence).to.deep.include({ revision: 4, type: 'serverRebuild.submitted', reason: 'ignored' });
    expect(diverged?.divergence?.expected.effects).to.deep.equal([{ serverId: 'srv-1', imageId: 'B', type: 'nova.rebuild' }]);
    expect(diverged?.divergence?.actual).to.deep.equal({ to: 'Initiated', effects: [] });
  });

  it('takes a registered version number as the candidate, and skips streams of machines it has no version of', () => {
    const { code, out } = regent([...store, '--machines', CANDIDATE, 'replay', '--all', '--machine-version', '3']);
    expect(code).to.equal(3);
    expect(out).to.match(/toy-a\s+toy\s+0\s+skipped\s+the candidate has no version of toy/);
    expect(out).to.include('1 diverged, 0 quarantined, 1 skipped, 1 reproduced');
  });

  it('refuses a stream, --step or --at together with --all', () => {
    const { code, err } = regent([...store, 'replay', REBUILD_STREAM, '--all']);
    expect(code).to.equal(2);
    expect(err).to.match(/^regent: --all replays every stream/);
  });
});
