/**
 * `npm run bench:audit`: what auditors and incident reviewers wait for on a long history, measured on a
 * 100,000-event sqlite stream and printed as ratios against a baseline measured in the same run:
 * the raw cost of reading the same events out of the store (paged `readStream`, no decoding of
 * machines, no folding).
 *   - replayAt the head            vs reading the whole stream
 *   - building the overlay index   vs reading the whole stream
 *   - a timeline page, index built vs reading that page's 200 events
 *   - a cursor step back / a jump  vs reading one checkpoint interval (1,000 events)
 *   - the first view of the resource page (overview, chains, state at the head) in a new process-like
 *     AuditViews: with nothing kept, and after a restart with the shelf beside the sqlite file
 *     (src/audit/history/shelf.ts)   vs reading one checkpoint interval
 * The test suite asserts how many events each of these reads (test/audit/large.scale.ts), never seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/open.js';
import type { EventStore } from '../src/store/port.js';
import { replayAt } from '../src/engine/replay.js';
import { AuditViews } from '../src/audit/history/views.js';
import { ReplayCursor } from '../src/audit/replay/cursor.js';
import { createProductRegistry } from '../machines/index.js';
import { serverRebuildDefinition } from '../machines/server-rebuild.js';
import { writeLongHistory } from '../test/audit/fixtures/long-history.js';
import { shelfForStoreUrl } from '../src/audit/history/shelf.js';

const EVENTS = Number(process.env.REGENT_BENCH_EVENTS ?? 100_000);
const STREAM = 'server-rebuild-bench';

const seconds = async (work: () => Promise<unknown>): Promise<number> => {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e9;
};

/** Fastest of `runs` (the first run of a cold path is measured separately where it matters). */
const best = async (runs: number, work: () => Promise<unknown>): Promise<number> => {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) fastest = Math.min(fastest, await seconds(work));
  return fastest;
};

/** The baseline: read `count` events from `from` in pages of 1,000, touching each one. */
const rawRead = async (store: EventStore, from: number, count: number): Promise<void> => {
  let next = from;
  let touched = 0;
  while (next < from + count) {
    const page = await store.readStream(STREAM, { fromRevision: next, maxCount: Math.min(1000, from + count - next) });
    if (page.length === 0) break;
    for (const e of page) touched += e.type.length;
    next += page.length;
  }
  if (touched === 0) throw new Error('baseline read nothing');
};

const dir = mkdtempSync(join(tmpdir(), 'regent-bench-audit-'));
const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
try {
  const write = await seconds(() => writeLongHistory(store, STREAM, EVENTS));
  console.log(`audit history bench: ${EVENTS} events written in ${write.toFixed(2)} s (sqlite, ${dir})`);
  const registry = createProductRegistry();

  const readAll = await best(3, () => rawRead(store, 0, EVENTS));
  const replay = await best(3, () => replayAt(store, registry, STREAM, { revision: EVENTS - 1 }));
  const views = new AuditViews(store, registry);
  const index = await seconds(() => views.index(STREAM));
  const readPage = await best(20, () => rawRead(store, 12_345, 200));
  const page = await best(20, () => views.timeline(STREAM, 12_345, 200));
  const readInterval = await best(20, () => rawRead(store, 31_000, 1000));
  const cursor = new ReplayCursor(store, STREAM, serverRebuildDefinition);
  const firstPass = await seconds(() => cursor.at(EVENTS - 1));
  let back = Number.POSITIVE_INFINITY;
  let jump = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 10; i++) {
    back = Math.min(back, await seconds(() => cursor.at(EVENTS - 2 - i)));
    jump = Math.min(jump, await seconds(() => cursor.at(31_337 + i)));
  }

  // The resource page's first view, as a restarted server serves it: the overview and chains (the HTML) and
  // the state at the head (the page's first /state request).
  const firstView = (shelved: boolean) => async () => {
    const fresh = new AuditViews(store, registry, shelved ? shelfForStoreUrl(`sqlite:${join(dir, 'regent.db')}`) : undefined);
    await fresh.overview(STREAM);
    await fresh.chains(STREAM);
    await fresh.stateAt(STREAM, EVENTS - 1);
  };
  const unkept = await seconds(firstView(false));
  const keeping = await seconds(firstView(true)); // folds once more and keeps what it folded
  const restarted = await best(5, firstView(true));

  const row = (label: string, s: number, base: number, baseLabel: string) =>
    console.log(`  ${label.padEnd(34)} ${(s * 1000).toFixed(1).padStart(8)} ms   ${(s / base).toFixed(2).padStart(6)} × ${baseLabel} (${(base * 1000).toFixed(1)} ms)`);
  console.log(`baseline: paged readStream of all ${EVENTS} events ${(readAll * 1000).toFixed(0)} ms (${Math.round(EVENTS / readAll)} events/s)`);
  row('replayAt the head', replay, readAll, 'raw read of the stream');
  row('overlay index (first page)', index, readAll, 'raw read of the stream');
  row('cursor first pass', firstPass, readAll, 'raw read of the stream');
  row('timeline page of 200, index built', page, readPage, 'raw read of 200 events');
  row('cursor step back', back, readInterval, 'raw read of 1,000 events');
  row('cursor jump to 31,337', jump, readInterval, 'raw read of 1,000 events');
  row('first view, nothing kept', unkept, readInterval, 'raw read of 1,000 events');
  row('first view, keeping it', keeping, readInterval, 'raw read of 1,000 events');
  row('first view after a restart', restarted, readInterval, 'raw read of 1,000 events');
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
