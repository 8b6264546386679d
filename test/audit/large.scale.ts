/**
 * A 100,000-event history stays usable: the overlay index, timeline pages, `replay --at` and stepping
 * read the stream in pages of at most 1,000 events (never the whole stream at once), and once the overlay
 * index or the cursor's checkpoints exist, a page or a step reads at most one page of events (not the
 * stream again). The bounds are on events read, never on seconds; timings are printed for the note, and
 * measured as ratios in `npm run bench:audit` (bench/audit-history.ts).
 *
 * The history (fixtures/long-history.ts) is what long streams really look like: one arm by the
 * reconciler, then monitor observations whose health flips.
 *
 * A scale test (`*.scale.ts`): `npm run test:scale` runs it, and `.ci/run` as its own stage, not `npm test`
 * (writing and folding 100,000 events was two minutes of the suite's run on a 2-core machine; issue 25).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/port.js';
import { replayAt } from '../../src/engine/replay.js';
import { createProductRegistry } from '../../machines/index.js';
import { serverRebuildDefinition } from '../../machines/server-rebuild.js';
import { AuditViews } from '../../src/audit/history/views.js';
import { ReplayCursor } from '../../src/audit/replay/cursor.js';
import { startAuditServer } from '../../src/audit/web/server.js';
import { shelfForStoreUrl } from '../../src/audit/history/shelf.js';
import { LONG_HISTORY_START, writeLongHistory } from './fixtures/long-history.js';

const EVENTS = 100_000;
const STREAM = 'server-rebuild-big';

/**
 * Counts what the store hands out: the largest single read is the memory bound, the total is the work
 * bound (`reset()` starts a new measurement).
 */
const spied = (store: EventStore) => {
  const seen = { calls: 0, largest: 0, events: 0, reset() { this.events = 0; } };
  const wrapped: EventStore = Object.create(store) as EventStore;
  wrapped.readStream = async (stream, options) => {
    const page = await store.readStream(stream, options);
    seen.calls++;
    seen.largest = Math.max(seen.largest, page.length);
    seen.events += page.length;
    return page;
  };
  return { store: wrapped, seen };
};

const timed = async <T>(label: string, work: () => Promise<T>): Promise<{ value: T; seconds: number }> => {
  const start = process.hrtime.bigint();
  const value = await work();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`      ${label}: ${seconds.toFixed(3)} s`);
  return { value, seconds };
};

describe('audit: 100,000-event history', function () {
  this.timeout(600_000);
  let dir: string;
  let db: string;
  let store: EventStore;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-large-'));
    db = join(dir, 'regent.db');
    store = await openStore(`sqlite:${db}`);
    await timed(`writing ${EVENTS} events`, () => writeLongHistory(store, STREAM, EVENTS));
    expect(await store.streamHead(STREAM)).to.equal(EVENTS - 1);
  });
  after(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('replay --at a revision or a time folds in pages, never the whole stream', async () => {
    const { store: s, seen } = spied(store);
    const registry = createProductRegistry();
    const { value: middle } = await timed('replayAt revision 50,000', () => replayAt(s, registry, STREAM, { revision: 50_000 }));
    expect(middle.last?.revision).to.equal(50_000);
    expect(middle.lastObservation?.revision).to.equal(50_000);
    expect(middle.lastDecision?.revision).to.equal(0);
    expect((middle.snapshot.context as { health: { phase: string } }).health.phase).to.equal('Running');
    const { value: atTime } = await timed('replayAt an ISO time (revision 70,000)', () => replayAt(s, registry, STREAM, { time: new Date(LONG_HISTORY_START + 70_000 * 1000) }));
    expect(atTime.last?.revision).to.equal(70_000);
    expect(seen.largest).to.be.at.most(1000);
  });

  it('the overlay index covers all 100,000 events exactly; later timeline pages and steps are fast', async () => {
    const { store: s, seen } = spied(store);
    const views = new AuditViews(s, createProductRegistry());
    const first = await timed('first timeline page (builds the overlay index)', () => views.timeline(STREAM, 99_800, 200));
    expect(first.value.rows.map((r) => r.revision)).to.deep.equal(Array.from({ length: 200 }, (_, i) => 99_800 + i));
    expect(first.value.rows.every((r) => r.match.kind === 'exact')).to.equal(true);
    const index = await views.index(STREAM);
    expect(index.divergence).to.equal(undefined);
    expect(index.stats.get('e--serverRebuild.Initiated--observed--3')?.count).to.equal(EVENTS - 1);
    seen.reset();
    const again = await timed('another timeline page (index cached)', () => views.timeline(STREAM, 12_345, 200));
    expect(again.value.rows[0]?.revision).to.equal(12_345);
    expect(again.value.rows).to.have.length(200);
    // The index is extended from its head (no new events), not rebuilt: the page's rows and the head.
    expect(seen.events, 'events read for a page once the index exists').to.be.at.most(202);
    const overview = await timed('resource overview (overlay SVG)', () => views.overview(STREAM));
    expect(overview.value.head).to.equal(EVENTS - 1);
    expect(overview.value.fired.find((f) => f.edge === 'e--serverRebuild.Initiated--observed--3')?.count).to.equal(EVENTS - 1);
    expect(seen.largest).to.be.at.most(1000);
  });

  it('stepping backwards or jumping after one pass costs at most one checkpoint interval', async () => {
    const { store: s, seen } = spied(store);
    const cursor = new ReplayCursor(s, STREAM, serverRebuildDefinition);
    await timed('cursor to the last event (first pass)', () => cursor.at(EVENTS - 1));
    expect(seen.events).to.equal(EVENTS);
    seen.reset();
    const back = await timed('one step back', () => cursor.at(EVENTS - 2));
    expect(back.value.revision).to.equal(EVENTS - 2);
    expect(seen.events, 'events read for one step back').to.be.at.most(1000);
    seen.reset();
    const jump = await timed('jump to revision 31,337', () => cursor.at(31_337));
    expect(jump.value.lastObservation?.revision).to.equal(31_337);
    expect(seen.events, 'events read for a jump').to.be.at.most(1000);
    expect(seen.largest).to.be.at.most(1000);
  });

  it('the web timeline API pages a 100,000-event stream', async () => {
    const { store: s, seen } = spied(store);
    const server = await startAuditServer({ port: 0, store: s, registry: createProductRegistry() });
    try {
      const get = async (path: string) => (await fetch(new URL(path, server.url))).json() as Promise<{ rows: Array<{ revision: number }> }>;
      const first = await timed('HTTP first page', () => get(`api/streams/${STREAM}/timeline?from=0&limit=200`));
      expect(first.value.rows.map((r) => r.revision)).to.deep.equal(Array.from({ length: 200 }, (_, i) => i));
      expect(seen.largest).to.be.at.most(1000);
      seen.reset();
      const last = await timed('HTTP last page', () => get(`api/streams/${STREAM}/timeline?from=99800&limit=200`));
      expect(last.value.rows.at(-1)?.revision).to.equal(EVENTS - 1);
      expect(seen.events, 'events read for a page once the server has indexed the stream').to.be.at.most(202);
    } finally {
      await server.close();
    }
  });

  it('a restarted server\'s first view of the stream, and a jump, read at most one checkpoint interval (the shelf beside the sqlite file)', async () => {
    const shelf = () => shelfForStoreUrl(`sqlite:${db}`);
    const pagePath = `streams/${STREAM}`;
    const first = await startAuditServer({ port: 0, store, registry: createProductRegistry(), checkpoints: shelf() });
    try {
      const built = await timed('first view, nothing kept (folds the stream)', async () => {
        expect((await fetch(new URL(pagePath, first.url))).status).to.equal(200);
        return (await fetch(new URL(`api/streams/${STREAM}/state?at=${EVENTS - 1}`, first.url))).json() as Promise<{ at: { revision: number } }>;
      });
      expect(built.value.at.revision).to.equal(EVENTS - 1);
    } finally {
      await first.close();
    }
    const { store: s, seen } = spied(store);
    const restarted = await startAuditServer({ port: 0, store: s, registry: createProductRegistry(), checkpoints: shelf() });
    try {
      const get = async (path: string) => (await fetch(new URL(path, restarted.url))).json() as Promise<Record<string, unknown>>;
      seen.reset();
      const html = await timed('first view after a restart (page + state at the head)', async () => {
        const response = await fetch(new URL(pagePath, restarted.url));
        const state = (await get(`api/streams/${STREAM}/state?at=${EVENTS - 1}`)) as { at: { revision: number } };
        return { text: await response.text(), state };
      });
      expect(html.value.text).to.contain('serverRebuild');
      expect(html.value.state.at.revision).to.equal(EVENTS - 1);
      expect(seen.events, 'events read for the first view after a restart').to.be.at.most(1000);
      seen.reset();
      const rows = (await timed('its timeline page', () => get(`api/streams/${STREAM}/timeline?from=${EVENTS - 200}&limit=200`))).value.rows as Array<{ revision: number; match: { kind: string } }>;
      expect(rows.map((r) => r.revision)).to.deep.equal(Array.from({ length: 200 }, (_, i) => EVENTS - 200 + i));
      expect(rows.every((r) => r.match.kind === 'exact')).to.equal(true);
      expect(seen.events, 'events read for the timeline page').to.be.at.most(200 + 2);
      seen.reset();
      const jump = (await timed('a jump to revision 31,337', () => get(`api/streams/${STREAM}/state?at=31337`))).value as { lastObservation: { revision: number } };
      expect(jump.lastObservation.revision).to.equal(31_337);
      expect(seen.events, 'events read for a jump').to.be.at.most(1000 + 3);
    } finally {
      await restarted.close();
    }
  });

  it('regent replay --at on the 100,000-event stream answers from a separate process', () => {
    const start = Date.now();
    const result = spawnSync(process.execPath, ['bin/regent.js', '--store', `sqlite:${db}`, 'replay', STREAM, '--at', '99999'], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
    console.log(`      regent replay --at 99999 (whole process): ${((Date.now() - start) / 1000).toFixed(3)} s`);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.match(/as of: +revision 99999 serverRebuild\.observed/);
  });
});
