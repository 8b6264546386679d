/**
 * `npm run bench:store`: the store benchmarks of issue 2 in one run, each printed as a ratio against
 * a baseline measured in the same run on the same machine.
 *   1. sqlite adapter appends (single events, batches of 100) vs a raw better-sqlite3 insert loop
 *   2. replay of a 10,000-event stream vs a raw loop of XState transition() calls
 *   3. the PostgreSQL adapter (appends single and in batches of 100, a 10,000-event stream read, a
 *      catch-up subscription) vs a raw `pg` loop, beside the sqlite adapter (skipped without a server)
 *   4. the EventStoreDB adapter, the same four, vs the raw `@eventstore/db-client` (REGENT_ESDB_URL, else
 *      the gRPC test server: then only the ratios mean something) — bench/store-eventstoredb.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { NewEvent } from '../src/events/envelope.js';
import { newEventId } from '../src/events/ids.js';
import { migratePostgresStore, openPostgresStore } from '../src/store/postgres/store.js';
import { parsePostgresUrl } from '../src/store/postgres/url.js';
import { SqliteEventStore } from '../src/store/sqlite/store.js';
import { benchStoreAppend } from './store-append.js';
import { benchReplay } from './replay.js';
import { benchEventStoreDb } from './store-eventstoredb.js';
import { timeCatchUp } from './catch-up.js';

const append = await benchStoreAppend({ rounds: 5 });
console.log(`sqlite appends (synchronous=${append.synchronous}, ${append.dataBytes} B data + ${append.metadataBytes} B metadata per event)`);
for (const m of append.measurements) {
  const label = m.scenario === 'single' ? 'single-event appends' : `batches of ${m.eventsPerAppend}`;
  console.log(`  ${label.padEnd(22)} adapter ${Math.round(m.adapterEventsPerSecond)} events/s  raw ${Math.round(m.rawEventsPerSecond)} events/s  ratio ${m.ratio.toFixed(2)} (target ≥ 0.70)`);
}
const replay = await benchReplay();
console.log(`replay of a ${replay.events}-event sqlite stream`);
console.log(`  replayAt ${Math.round(replay.replayPerSecond)} events/s  raw transition() ${Math.round(replay.rawTransitionPerSecond)} events/s  ratio ${replay.ratio.toFixed(2)} (target ≥ 0.70)`);

// --- PostgreSQL (issue 15) ---
// The adapter beside a raw `pg` loop doing the plainest version of the same work (one multi-row INSERT
// per append into the same table, autocommit, no head check, no lock, no NOTIFY), and beside the
// sqlite adapter. Skipped, saying why, when no server answers at REGENT_TEST_POSTGRES_URL.
const pgUrl = process.env.REGENT_TEST_POSTGRES_URL ?? 'postgres://regent:regent@127.0.0.1:5432/regent_test';
const pgReason = await (async (): Promise<string | undefined> => {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message || error.name : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
})();
if (pgReason !== undefined) {
  console.log(`postgres: skipped, no server at ${parsePostgresUrl(pgUrl).description} (${pgReason}); set REGENT_TEST_POSTGRES_URL`);
} else {
  const figures = await benchPostgres(pgUrl, append.measurements);
  console.log(`postgres (${parsePostgresUrl(pgUrl).description}) vs raw pg, beside the sqlite adapter — events/s, median of 3`);
  console.log(`  ${'scenario'.padEnd(30)} ${'postgres'.padStart(9)} ${'raw pg'.padStart(9)} ${'ratio'.padStart(6)} ${'sqlite'.padStart(9)}`);
  for (const f of figures) {
    console.log(`  ${f.label.padEnd(30)} ${fmt(f.adapter)} ${fmt(f.raw)} ${f.ratio.toFixed(2).padStart(6)} ${fmt(f.sqlite)}`);
  }
}

// --- EventStoreDB (issue 15) ---
const esdb = await benchEventStoreDb(benchEvent);
console.log(`eventstoredb (${esdb.target}) vs the raw client — events/s, median of 3`);
console.log(`  ${'scenario'.padEnd(30)} ${'adapter'.padStart(9)} ${'raw'.padStart(9)} ${'ratio'.padStart(6)}`);
for (const f of esdb.figures) console.log(`  ${f.label.padEnd(30)} ${fmt(f.adapter)} ${fmt(f.raw)} ${f.ratio.toFixed(2).padStart(6)}`);

function fmt(value: number): string {
  return Math.round(value).toLocaleString('en-US').padStart(9);
}

interface PgFigure {
  label: string;
  adapter: number;
  raw: number;
  ratio: number;
  sqlite: number;
}

async function benchPostgres(url: string, sqliteAppends: readonly { scenario: string; adapterEventsPerSecond: number }[]): Promise<PgFigure[]> {
  const base = new URL(url);
  const schemas: string[] = [];
  const fresh = (): string => {
    const schema = `regent_bench_${process.pid}_${schemas.length}`;
    schemas.push(schema);
    const copy = new URL(base.href);
    copy.searchParams.set('schema', schema);
    return copy.href;
  };
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const median3 = async (run: () => Promise<number>): Promise<number> => {
    const times = [await run(), await run(), await run()].sort((a, b) => a - b);
    return times[1] ?? NaN;
  };
  const seconds = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;
  const work = (appends: number, size: number): { stream: string; events: NewEvent[] }[] =>
    Array.from({ length: appends }, (_, i) => ({
      stream: `server-rebuild-${i % 50}`,
      events: Array.from({ length: size }, (_, j) => benchEvent(i * size + j)),
    }));

  const adapterAppends = async (appends: number, size: number): Promise<number> => {
    const store = await openPostgresStore(fresh());
    const jobs = work(appends, size);
    const heads = new Map<string, number>();
    const started = process.hrtime.bigint();
    for (const { stream, events } of jobs) {
      heads.set(stream, (await store.append(stream, events, { expectedRevision: heads.get(stream) ?? 'no_stream' })).nextExpectedRevision);
    }
    const elapsed = seconds(started);
    await store.close();
    return elapsed;
  };
  const rawAppends = async (appends: number, size: number): Promise<number> => {
    const target = fresh();
    await migratePostgresStore(target);
    const table = `"${new URL(target).searchParams.get('schema') ?? ''}".events`;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const jobs = work(appends, size);
    const revisions = new Map<string, number>();
    let position = 0;
    const started = process.hrtime.bigint();
    for (const { stream, events } of jobs) {
      const first = (revisions.get(stream) ?? -1) + 1;
      revisions.set(stream, first + events.length - 1);
      await client.query(
        `INSERT INTO ${table} (position, stream, revision, id, type, data, metadata)
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::json[], $7::json[])`,
        [
          events.map((_, k) => position + k + 1),
          events.map(() => stream),
          events.map((_, k) => first + k),
          events.map((e) => e.id),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => JSON.stringify(e.metadata)),
        ],
      );
      position += events.length;
    }
    const elapsed = seconds(started);
    await client.end();
    return elapsed;
  };

  // One store of 10,000 events in one stream, read back whole and through a catch-up subscription.
  const readUrl = fresh();
  const readStore = await openPostgresStore(readUrl);
  for (let i = 0; i < 100; i += 1) await readStore.append('big', work(1, 100)[0]?.events ?? [], { expectedRevision: i === 0 ? 'no_stream' : i * 100 - 1 });
  const readTable = `"${new URL(readUrl).searchParams.get('schema') ?? ''}".events`;
  const readClient = new pg.Client({ connectionString: url });
  await readClient.connect();
  const adapterRead = async (): Promise<number> => {
    const started = process.hrtime.bigint();
    await readStore.readStream('big');
    return seconds(started);
  };
  const rawRead = async (): Promise<number> => {
    const started = process.hrtime.bigint();
    await readClient.query(`SELECT position, stream, revision, id, type, data, metadata FROM ${readTable} WHERE stream = $1 ORDER BY revision`, ['big']);
    return seconds(started);
  };
  const adapterCatchUp = (): Promise<number> => timeCatchUp(readStore, 10_000);
  const rawCatchUp = async (): Promise<number> => {
    const started = process.hrtime.bigint();
    let cursor = 0;
    for (;;) {
      const page = await readClient.query<{ position: string }>(
        `SELECT position, stream, revision, id, type, data, metadata FROM ${readTable} WHERE position > $1 ORDER BY position LIMIT 256`,
        [cursor],
      );
      if (page.rows.length === 0) break;
      cursor = Number(page.rows.at(-1)?.position);
    }
    return seconds(started);
  };

  // The same read figures for the sqlite adapter.
  const directory = mkdtempSync(join(tmpdir(), 'regent-bench-pg-'));
  const sqlite = new SqliteEventStore(join(directory, 'read.db'));
  for (let i = 0; i < 100; i += 1) await sqlite.append('big', work(1, 100)[0]?.events ?? [], { expectedRevision: i === 0 ? 'no_stream' : i * 100 - 1 });
  const sqliteRead = async (): Promise<number> => {
    const started = process.hrtime.bigint();
    await sqlite.readStream('big');
    return seconds(started);
  };
  const sqliteCatchUp = (): Promise<number> => timeCatchUp(sqlite, 10_000);

  try {
    await adapterAppends(200, 1); // warm-up
    await rawAppends(200, 1);
    const single = 2_000;
    const batches = 50;
    const sqliteSingle = sqliteAppends.find((m) => m.scenario === 'single')?.adapterEventsPerSecond ?? NaN;
    const sqliteBatch = sqliteAppends.find((m) => m.scenario === 'batch')?.adapterEventsPerSecond ?? NaN;
    const row = (label: string, events: number, adapter: number, raw: number, sqliteRate: number): PgFigure => ({
      label,
      adapter: events / adapter,
      raw: events / raw,
      ratio: raw / adapter,
      sqlite: sqliteRate,
    });
    return [
      row('single-event appends', single, await median3(() => adapterAppends(single, 1)), await median3(() => rawAppends(single, 1)), sqliteSingle),
      row('batches of 100', batches * 100, await median3(() => adapterAppends(batches, 100)), await median3(() => rawAppends(batches, 100)), sqliteBatch),
      row('read a 10,000-event stream', 10_000, await median3(adapterRead), await median3(rawRead), 10_000 / (await median3(sqliteRead))),
      row('catch-up subscription (10,000)', 10_000, await median3(adapterCatchUp), await median3(rawCatchUp), 10_000 / (await median3(sqliteCatchUp))),
    ];
  } finally {
    await readStore.close();
    await sqlite.close();
    rmSync(directory, { recursive: true, force: true });
    await readClient.end();
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

function benchEvent(n: number): NewEvent {
  return {
    id: newEventId(),
    type: 'serverRebuild.observed',
    data: { type: 'OBSERVED', serverId: '6f1c2a9e-3b7d-4c1e-9a2f-0d8b7c6e5f4a', status: 'ACTIVE', taskState: null, n, note: 'observed by the monitor poll' },
    metadata: {
      machine: 'serverRebuild',
      machineVersion: 3,
      schemaVersion: 1,
      source: 'monitor',
      actor: 'regent-monitor',
      correlationId: newEventId(),
      causationId: null,
      from: 'watching',
      to: { rebuilding: 'submitted' },
      effects: [],
      recordedAt: '2025-01-02T03:04:05.678Z',
    },
  };
}
