/**
 * Fast first view (issue 18): what the audit views folded is kept on a shelf (src/audit/history/shelf.ts,
 * checkpoint.ts), so a new AuditViews — a restarted server — reads only what the shelf does not hold:
 * the events appended after the kept index head, and at most one 1,000-revision interval for any state
 * it shows. What it shows is exactly what a full fold shows. A shelf that is not this store's, a torn
 * file, or another machine is ignored, never misread. Bounds are on events read, never seconds.
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEventStore } from '../../src/store/memory.js';
import type { EventStore } from '../../src/store/port.js';
import { createProductRegistry } from '../../machines/index.js';
import { serverRebuildDefinition } from '../../machines/server-rebuild.js';
import { AuditViews, SHELVE_EVERY } from '../../src/audit/history/views.js';
import { buildHistoryIndex, type HistoryIndex } from '../../src/audit/history/index.js';
import { ReplayCursor, frameView } from '../../src/audit/replay/cursor.js';
import { directoryShelf, shelfForStoreUrl } from '../../src/audit/history/shelf.js';
import { checkpointKey, machineFingerprint, parseIndex, serializeIndex } from '../../src/audit/history/checkpoint.js';
import { serverRebuildV3 } from './fixtures/server-rebuild-candidate.js';
import { recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';
import { Engine } from '../../src/engine/engine.js';
import { image, reconcile } from '../machines/server-rebuild-facts.js';

/** Counts the events the store hands out. */
const spied = (store: EventStore) => {
  const seen = { events: 0, reset() { this.events = 0; } };
  const wrapped: EventStore = Object.create(store) as EventStore;
  wrapped.readStream = async (stream, options) => {
    const page = await store.readStream(stream, options);
    seen.events += page.length;
    return page;
  };
  return { store: wrapped, seen };
};

/** A rebuild history (arms, submits, a 409, accepts, clears: destructive chains) repeated past one shelving interval. */
const longRebuildHistory = async (store: EventStore, atLeast: number) => {
  while (((await store.streamHead(REBUILD_STREAM)) ?? -1) + 1 < atLeast) await recordRebuildHistory(store);
};

/** The parts of an index a page shows, as plain data. */
const shown = (index: HistoryIndex) => ({
  head: index.head,
  matches: index.matches.map((m) => `${m.kind}:${m.edges.join(',')}`),
  stats: [...index.stats.entries()],
  visited: [...index.visited].sort(),
  divergence: index.divergence,
  chains: index.chains,
  state: index.cursor.snapshot.value,
  context: index.cursor.snapshot.context,
});

describe('audit: checkpoints for a fast first view', function () {
  this.timeout(120_000);
  let dir: string;
  /** One long history (≥ 2,050 events) for every test that only reads it or appends to it. */
  let store: MemoryEventStore;
  before(async () => {
    store = new MemoryEventStore();
    await longRebuildHistory(store, 2_050);
  });
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'regent-shelf-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a new view starts from the kept index: it reads only the events appended since, and shows what a full fold shows', async () => {
    const registry = createProductRegistry();
    const first = new AuditViews(store, registry, directoryShelf(dir));
    const before = await first.index(REBUILD_STREAM);
    expect(before.chains.length, 'the history has destructive chains').to.be.greaterThan(100);
    expect(readdirSync(dir), 'the index was kept').to.have.length(1);

    await recordRebuildHistory(store); // 9 more events after the kept head
    const { store: s, seen } = spied(store);
    const restarted = new AuditViews(s, registry, directoryShelf(dir));
    const index = await restarted.index(REBUILD_STREAM);
    // the machine's version (1, backwards), the kept head read back (1), the 9 new events
    expect(seen.events, 'events read by the restarted view').to.be.at.most(1 + 1 + 9);
    expect(shown(index)).to.deep.equal(shown(await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildDefinition })));
  });

  it('without a shelf a new view folds the whole stream again (what the shelf saves)', async () => {
    const registry = createProductRegistry();
    await new AuditViews(store, registry).index(REBUILD_STREAM);
    const { store: s, seen } = spied(store);
    await new AuditViews(s, registry).index(REBUILD_STREAM);
    expect(seen.events).to.be.greaterThan(SHELVE_EVERY);
  });

  it('a short stream is not kept: it folds as fast as it reads', async () => {
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    await new AuditViews(store, createProductRegistry(), directoryShelf(dir)).index(REBUILD_STREAM);
    expect(readdirSync(dir)).to.have.length(0);
  });

  it('a new cursor starts from the kept frame nearest below its target: its first step and any jump read at most one interval, and show the same state', async () => {
    const head = (await store.streamHead(REBUILD_STREAM)) as number;
    await new ReplayCursor(store, REBUILD_STREAM, serverRebuildDefinition, undefined, undefined, directoryShelf(dir)).at(head);
    const fresh = new ReplayCursor(store, REBUILD_STREAM, serverRebuildDefinition);
    const { store: s, seen } = spied(store);
    const cursor = new ReplayCursor(s, REBUILD_STREAM, serverRebuildDefinition, undefined, undefined, directoryShelf(dir));
    for (const target of [head, 1_517, 1_999, 3, head - 1, 1_000]) {
      seen.reset();
      const frame = await cursor.at(target);
      // up to 999 folded events past the kept frame, and three single-event reads (its event, last observation, last decision)
      expect(seen.events, `events read for revision ${target}`).to.be.at.most(1000 + 3);
      expect(frameView(frame)).to.deep.equal(frameView(await fresh.at(target)));
    }
  });

  it('a shelf that is not this store\'s (another store, the same stream name) is ignored and the stream folded again', async () => {
    const a = store;
    const registry = createProductRegistry();
    await new AuditViews(a, registry, directoryShelf(dir)).index(REBUILD_STREAM);
    await new ReplayCursor(a, REBUILD_STREAM, serverRebuildDefinition, undefined, undefined, directoryShelf(dir)).at(Number.MAX_SAFE_INTEGER);

    // another store: its first event arms a rebuild to another image, then the same history, past the first kept frame
    const b = new MemoryEventStore();
    await new Engine({ store: b, registry }).dispatch(REBUILD_STREAM, { stimulus: reconcile('C', { imageRef: image('A') }), actor: 'reconciler/server-image' });
    await longRebuildHistory(b, SHELVE_EVERY + 50);
    const index = await new AuditViews(b, registry, directoryShelf(dir)).index(REBUILD_STREAM);
    expect(shown(index)).to.deep.equal(shown(await buildHistoryIndex(b, REBUILD_STREAM, { definition: serverRebuildDefinition })));
    const cursor = new ReplayCursor(b, REBUILD_STREAM, serverRebuildDefinition, undefined, undefined, directoryShelf(dir));
    const fresh = new ReplayCursor(b, REBUILD_STREAM, serverRebuildDefinition);
    for (const target of [SHELVE_EVERY - 1, Number.MAX_SAFE_INTEGER]) expect(frameView(await cursor.at(target)), `revision ${target}`).to.deep.equal(frameView(await fresh.at(target)));
  });

  it('a torn or foreign file on the shelf is ignored', async () => {
    const registry = createProductRegistry();
    await new AuditViews(store, registry, directoryShelf(dir)).index(REBUILD_STREAM);
    for (const file of readdirSync(dir)) writeFileSync(join(dir, file), '{"format": 1, "head": 3, "matc');
    const index = await new AuditViews(store, registry, directoryShelf(dir)).index(REBUILD_STREAM);
    expect(shown(index)).to.deep.equal(shown(await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildDefinition })));
    expect(parseIndex('{"format": 99}', REBUILD_STREAM, serverRebuildDefinition)).to.equal(undefined);
  });

  it('another machine keys its checkpoints apart: a changed guard or version never reads the old fold', async () => {
    expect(machineFingerprint(serverRebuildV3)).to.not.equal(machineFingerprint(serverRebuildDefinition));
    expect(checkpointKey('index', REBUILD_STREAM, serverRebuildV3)).to.not.equal(checkpointKey('index', REBUILD_STREAM, serverRebuildDefinition));
    // a fold that diverged (history made by another version) keeps its divergence and by-state matches
    const store = new MemoryEventStore();
    await recordRebuildHistory(store);
    const diverged = await buildHistoryIndex(store, REBUILD_STREAM, { definition: serverRebuildV3 });
    expect(diverged.divergence).to.not.equal(undefined);
    const back = parseIndex(serializeIndex(diverged, 'id'), REBUILD_STREAM, serverRebuildV3);
    expect(back && shown(back.index)).to.deep.equal(shown(diverged));
  });

  it('the shelf of an sqlite store lies beside its file; other stores keep it in memory', () => {
    expect(shelfForStoreUrl('sqlite:/var/lib/regent/regent.db').description).to.equal('directory /var/lib/regent/regent.db.audit-checkpoints');
    expect(shelfForStoreUrl('memory:').description).to.equal('memory');
    expect(shelfForStoreUrl('postgres://u:p@127.0.0.1:5432/regent').description).to.equal('memory');
  });
});
