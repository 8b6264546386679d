/**
 * `regent replay <stream> --step`: stepping through a history in the terminal (next, prev, jump by
 * revision or time, first, last, quit), each frame with the event, the state and context as of it,
 * what the control plane had last observed and what it had last decided.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { ReplayCursor } from '../../src/audit/replay/cursor.js';
import { replayAt } from '../../src/engine/replay.js';
import { createProductRegistry } from '../../machines/index.js';
import { serverRebuildDefinition } from '../../machines/server-rebuild.js';
import { recordRebuildHistory, REBUILD_STREAM } from '../audit/support/rebuild-history.js';

const regent = (args: string[], input: string) => {
  const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', input, env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
  return { code: result.status, out: result.stdout, err: result.stderr };
};

const frames = (out: string) => [...out.matchAll(/── (?:revision (\d+) of \d+|before the first event)/g)].map((m) => (m[1] === undefined ? -1 : Number(m[1])));

describe('regent replay --step', function () {
  this.timeout(30_000);
  let dir: string;
  let db: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-step-'));
    db = join(dir, 'regent.db');
    const store = await openStore(`sqlite:${db}`);
    await recordRebuildHistory(store);
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('steps next, prev, jump, first and last, one frame per command', () => {
    const { code, out, err } = regent(['--store', `sqlite:${db}`, 'replay', REBUILD_STREAM, '--step'], 'n\n\np\nj 7\nf\nl\nn\nq\n');
    expect(code, err).to.equal(0);
    // start 0, n → 1, Enter → 2, p → 1, j 7, f → 0, l → 8, n → (already last)
    expect(frames(out)).to.deep.equal([0, 1, 2, 1, 7, 0, 8]);
    expect(out).to.include('already at the last event (revision 8)');
  });

  it('each frame shows the event, the state then, what it knew and what it had decided', () => {
    const { out } = regent(['--store', `sqlite:${db}`, 'replay', REBUILD_STREAM, '--step', '--at', '4'], 'q\n');
    const frame = out.split('──')[1] ?? '';
    expect(frame).to.match(/revision 4 of 8 {2}serverRebuild\.submitted {2}2026-11-29T10:05:00\.000Z/);
    expect(frame).to.match(/fired: +Initiated → Initiated {3}effects \[\{"serverId":"srv-1","imageId":"B","type":"nova\.rebuild"\}\]/);
    expect(frame).to.match(/state: +Initiated/);
    expect(frame).to.match(/"submissions":2/);
    expect(frame).to.match(/knew: +last observation, revision 3 at 2026-11-29T10:04:00\.000Z/);
    expect(frame).to.match(/decided: +last decision, revision 4 serverRebuild\.submitted effects/);
  });

  it('jumps to an ISO time (the last event at or before it) and explains a bad jump', () => {
    const { out } = regent(['--store', `sqlite:${db}`, 'replay', REBUILD_STREAM, '--step'], 'j 2026-11-29T10:06:30Z\nj soon\nq\n');
    expect(frames(out)).to.deep.equal([0, 5]);
    expect(out).to.include('jump needs a revision or an ISO time');
  });

  it('the cursor agrees with replayAt at every revision, stepping forwards, backwards and jumping', async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    const registry = createProductRegistry();
    const cursor = new ReplayCursor(store, REBUILD_STREAM, serverRebuildDefinition, undefined, 3);
    for (const revision of [0, 1, 2, 3, 4, 5, 6, 7, 8, 7, 6, 2, 8, 0, -1, 5]) {
      const frame = await cursor.at(revision);
      const expected = await replayAt(store, registry, REBUILD_STREAM, { revision });
      expect(frame.revision, `at ${revision}`).to.equal(expected.last?.revision ?? -1);
      expect(frame.snapshot.value, `at ${revision}`).to.deep.equal(expected.snapshot.value);
      expect(frame.snapshot.context, `at ${revision}`).to.deep.equal(expected.snapshot.context);
      expect(frame.lastObservation?.revision).to.equal(expected.lastObservation?.revision);
      expect(frame.lastDecision?.revision).to.equal(expected.lastDecision?.revision);
    }
  });
});
