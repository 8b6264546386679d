/**
 * `regent store copy` (issue 15): every stream with its ids, metadata and global order; resumable after a kill
 * with no duplicate; a target that is not a copy refused; `--verify` comparing event by event; the command as a
 * user runs it (progress, counts, the head check, exit codes). Between the adapters this machine always has
 * (memory, sqlite); test/store/postgres.test.ts and eventstoredb.test.ts run the conformance suite on the others.
 */
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEventStore } from '../../src/store/memory.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/port.js';
import { checkResumable, copyStore, verifyCopy, CopyConflict } from '../../src/store/copy.js';
import { newEventId } from '../../src/events/ids.js';
import type { NewEvent } from '../../src/events/envelope.js';

const event = (i: number, _stream: string): NewEvent => ({
  id: newEventId(),
  type: 'toy.step',
  data: { type: 'step', source: 'reconciler', i } as never,
  metadata: { machine: 'toy', machineVersion: 1, schemaVersion: 1, source: 'reconciler', actor: 'test', correlationId: `c-${i}`, causationId: null, recordedAt: new Date(Date.UTC(2026, 10, 1, 0, 0, i)).toISOString() } as never,
});

/** `count` events over `streams` streams, interleaved so the global order matters. */
const fill = async (store: EventStore, count: number, streams = 7): Promise<void> => {
  for (let i = 0; i < count; i++) {
    const stream = `toy-${i % streams}`;
    const head = await store.streamHead(stream);
    const batch = i % 5 === 0 ? [event(i, stream), event(i + 0.5, stream)] : [event(i, stream)];
    await store.append(stream, batch, { expectedRevision: head === undefined ? 'no_stream' : head });
  }
};

const regent = (args: string[]) => {
  const r = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('regent store copy (issue 15)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'regent-copy-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copies every stream with its ids, data, metadata and the global order; verify finds them the same', async () => {
    const from = new MemoryEventStore();
    await fill(from, 120);
    const to = await openStore(`sqlite:${join(dir, 'to.db')}`);
    const report = await copyStore(from, to, { batchSize: 17 });
    expect(report).to.deep.include({ streams: 7, events: 144, copied: 144, skipped: 0, headMismatches: [] });
    const a = await from.readAll({});
    const b = await to.readAll({});
    expect(b.map((e) => [e.id, e.stream, e.revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)])).to.deep.equal(a.map((e) => [e.id, e.stream, e.revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)]));
    expect((await verifyCopy(from, to)).differences).to.deep.equal([]);
    await to.close();
  });

  it('a second run over a partial copy continues where it stopped and writes nothing twice', async () => {
    const from = new MemoryEventStore();
    await fill(from, 60);
    const to = new MemoryEventStore();
    // what an interrupted run leaves: the first 40 source events, appended in order
    for (const e of await from.readAll({ maxCount: 40 })) await to.append(e.stream, [{ id: e.id, type: e.type, data: e.data, metadata: e.metadata }], { expectedRevision: e.revision === 0 ? 'no_stream' : e.revision - 1 });
    await checkResumable(from, to);
    const report = await copyStore(from, to);
    expect(report.copied + report.skipped).to.equal(72);
    expect(report.skipped).to.equal(40);
    expect((await to.readAll({})).length).to.equal(72);
    expect((await verifyCopy(from, to)).differences).to.deep.equal([]);
    const again = await copyStore(from, to);
    expect(again).to.deep.include({ copied: 0, skipped: 72 });
  });

  it('a target stream that is not a prefix of the source is refused before anything is written', async () => {
    const from = new MemoryEventStore();
    await fill(from, 10, 2);
    const to = new MemoryEventStore();
    await to.append('toy-0', [event(99, 'toy-0')], { expectedRevision: 'no_stream' });
    let error: unknown;
    try {
      await checkResumable(from, to);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(CopyConflict);
    expect((error as Error).message).to.contain('toy-0').and.contain('not a copy');
    expect((await to.readAll({})).length).to.equal(1);
  });

  it('verify names an event that differs', async () => {
    const from = new MemoryEventStore();
    await fill(from, 6, 2);
    const to = new MemoryEventStore();
    await copyStore(from, to);
    const extra = new MemoryEventStore();
    for (const e of await from.readAll({})) {
      const changed = e.revision === 1 && e.stream === 'toy-1' ? { ...e, data: { ...e.data, i: -1 } as never } : e;
      await extra.append(e.stream, [{ id: changed.id, type: changed.type, data: changed.data, metadata: changed.metadata }], { expectedRevision: e.revision === 0 ? 'no_stream' : e.revision - 1 });
    }
    expect((await verifyCopy(from, to)).differences).to.deep.equal([]);
    expect((await verifyCopy(from, extra)).differences).to.deep.equal(['toy-1@1: data differs']);
  });

  it('the command: counts, the head check, --verify; a second run after a SIGKILL mid-copy finishes with no duplicate', async () => {
    const source = join(dir, 'from.db');
    const target = join(dir, 'to.db');
    const from = await openStore(`sqlite:${source}`);
    await fill(from, 3000, 11);
    const total = (await from.readAll({})).length;
    await from.close();
    // killed mid-copy: the child SIGKILLs itself after 1,000 source events (test/fixtures/store-copy-child.ts)
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/store-copy-child.ts', `sqlite:${source}`, `sqlite:${target}`, '1000'], { stdio: 'ignore' });
    const signal = await new Promise((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    expect(signal).to.equal('SIGKILL');
    const partial = await openStore(`sqlite:${target}`);
    const partialCount = (await partial.readAll({})).length;
    await partial.close();
    expect(partialCount, 'the kill came mid-copy').to.be.greaterThan(0).and.lessThan(total);
    const resumed = regent(['store', 'copy', '--from', `sqlite:${source}`, '--to', `sqlite:${target}`, '--verify']);
    expect(resumed.code, resumed.err).to.equal(0);
    expect(resumed.out).to.contain(`${total} events in 11 streams:`).and.contain(`${partialCount} already in`).and.contain("every stream's head matches (11 checked)").and.contain(`verified: ${total} events`);
    const done = await openStore(`sqlite:${target}`);
    const ids = (await done.readAll({})).map((e) => e.id);
    await done.close();
    expect(ids.length).to.equal(total);
    expect(new Set(ids).size, 'no duplicate').to.equal(total);
  });

  it('the command refuses what cannot be a copy: the same store twice, a source that does not exist (usage, exit 2)', () => {
    expect(regent(['store', 'copy', '--from', `sqlite:${join(dir, 'a.db')}`, '--to', `sqlite:${join(dir, 'a.db')}`]).code).to.equal(2);
    const missing = regent(['store', 'copy', '--from', `sqlite:${join(dir, 'nope.db')}`, '--to', `sqlite:${join(dir, 'b.db')}`]);
    expect(missing.code).to.equal(2);
    expect(missing.err).to.contain('no store at');
  });
});

describe('regent store copy and migrate with PostgreSQL (issue 15)', function () {
  this.timeout(60_000);
  const base = process.env.REGENT_TEST_POSTGRES_URL ?? 'postgres://regent:regent@127.0.0.1:5432/regent_test';
  const schema = `copy_${process.pid}_${Date.now().toString(36)}`;
  const url = `${base}${base.includes('?') ? '&' : '?'}schema=${schema}`;
  let dir: string;
  before(async function () {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: base, connectionTimeoutMillis: 3_000 });
    try {
      await client.connect();
    } catch (error) {
      console.log(`    (skipped: no PostgreSQL at ${base.replace(/:[^:@/]*@/, ':***@')}: ${(error as Error).message}; set REGENT_TEST_POSTGRES_URL)`);
      this.skip();
    } finally {
      await client.end().catch(() => undefined);
    }
    dir = mkdtempSync(join(tmpdir(), 'regent-copy-pg-'));
  });
  after(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: base });
    await client.connect().then(() => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).catch(() => undefined);
    await client.end().catch(() => undefined);
  });

  it('store migrate creates the schema once, then has nothing to do; the password never reaches the output', () => {
    const first = regent(['--store', url, 'store', 'migrate']);
    expect(first.code, first.err).to.equal(0);
    expect(first.out).to.match(/schema version 0 → \d+/);
    const second = regent(['--store', url, 'store', 'migrate']);
    expect(second.out).to.contain('nothing to do');
    expect(first.out + second.out).to.not.contain(':regent@');
  });

  it('sqlite → PostgreSQL → sqlite: the same events, ids, metadata and order on every side (--verify)', async () => {
    const source = join(dir, 'from.db');
    const from = await openStore(`sqlite:${source}`);
    await fill(from, 400, 9);
    await from.close();
    const there = regent(['store', 'copy', '--from', `sqlite:${source}`, '--to', url, '--verify']);
    expect(there.code, there.err).to.equal(0);
    expect(there.out).to.contain('480 events in 9 streams: 480 copied').and.contain('verified: 480 events');
    const back = regent(['store', 'copy', '--from', url, '--to', `sqlite:${join(dir, 'back.db')}`, '--verify']);
    expect(back.code, back.err).to.equal(0);
    expect(back.out).to.contain('verified: 480 events');
    const again = regent(['store', 'copy', '--from', `sqlite:${source}`, '--to', url]);
    expect(again.out, 'a second run writes nothing').to.contain('0 copied, 480 already in');
  });
});
