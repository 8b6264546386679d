/**
 * Append throughput of the sqlite adapter against a raw better-sqlite3 loop doing the same work: same
 * schema (created by the adapter's migration), same pragmas, same IMMEDIATE transaction per append
 * (read head, compare, insert each event, upsert head), same JSON payloads, same uuid v7 ids. The
 * ratio adapter/raw is the adapter's overhead; the target is >= 0.7.
 *
 *   node --import tsx bench/store-append.ts [--single N] [--batches N] [--batch-size N] [--rounds N] [--full]
 *
 * A benchmark, never a test assertion: figures depend on the machine and its load.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EventMetadata, NewEvent } from '../src/events/envelope.js';
import { newEventId } from '../src/events/ids.js';
import type { Synchronous } from '../src/store/sqlite/connection.js';
import { SqliteEventStore } from '../src/store/sqlite/store.js';

export interface BenchStoreAppendOptions {
  /** Number of single-event appends per run. Default 5000. */
  singleAppends?: number;
  /** Number of batch appends per run. Default 100. */
  batches?: number;
  /** Events per batch. Default 100. */
  batchSize?: number;
  /** Streams the appends rotate over (each append names the exact expected revision). Default 50. */
  streams?: number;
  /** Runs per figure; the median is reported. Default 3. */
  rounds?: number;
  synchronous?: Synchronous;
  /** Directory for the temporary files. Default: a fresh directory under the OS temp dir, removed after. */
  directory?: string;
}

export interface Measurement {
  scenario: 'single' | 'batch';
  eventsPerAppend: number;
  appends: number;
  adapterEventsPerSecond: number;
  rawEventsPerSecond: number;
  /** adapter / raw. */
  ratio: number;
}

export interface BenchStoreAppendResult {
  synchronous: Synchronous;
  dataBytes: number;
  metadataBytes: number;
  measurements: Measurement[];
}

const metadata = (): EventMetadata => ({
  machine: 'serverRebuild',
  machineVersion: 3,
  schemaVersion: 1,
  source: 'monitor',
  actor: 'regent-monitor',
  correlationId: newEventId(),
  causationId: newEventId(),
  from: 'watching',
  to: { rebuilding: 'submitted' },
  effects: [],
  recordedAt: '2025-01-02T03:04:05.678Z',
});

/** A monitor observation of about 250 bytes of JSON. */
const event = (n: number): NewEvent => ({
  id: newEventId(),
  type: 'serverRebuild.observed',
  data: {
    type: 'OBSERVED',
    serverId: '6f1c2a9e-3b7d-4c1e-9a2f-0d8b7c6e5f4a',
    status: 'ACTIVE',
    taskState: null,
    imageRef: 'c4f0e2b1-8a7d-4e6f-b5c3-2d1a0f9e8b7c',
    launchedAt: '2025-01-02T03:04:05.000000',
    n,
    note: 'observed by the monitor poll; rank advanced',
  },
  metadata: metadata(),
});

/** The same transaction the adapter runs, written directly against better-sqlite3. */
const rawAppender = (db: Database.Database) => {
  const head = db.prepare<[string], { head: number; lastPosition: number }>('SELECT head, last_position AS lastPosition FROM streams WHERE stream = ?');
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  const upsert = db.prepare(
    'INSERT INTO streams (stream, head, last_position) VALUES (?, ?, ?) ON CONFLICT (stream) DO UPDATE SET head = excluded.head, last_position = excluded.last_position',
  );
  const transaction = db.transaction((stream: string, events: readonly NewEvent[], expected: number | undefined) => {
    const actual = head.get(stream)?.head;
    if (actual !== expected) throw new Error(`conflict on ${stream}`);
    let revision = actual ?? -1;
    let position = 0;
    for (const e of events) {
      revision += 1;
      position = Number(insert.run(e.id, stream, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)).lastInsertRowid);
    }
    upsert.run(stream, revision, position);
    return { nextExpectedRevision: revision, position };
  });
  return (stream: string, events: readonly NewEvent[], expected: number | undefined) => transaction.immediate(stream, events, expected);
};

type Workload = { stream: string; events: NewEvent[] }[];

const workload = (appends: number, size: number, streams: number): Workload =>
  Array.from({ length: appends }, (_, i) => ({ stream: `server-rebuild-${i % streams}`, events: Array.from({ length: size }, (_, j) => event(i * size + j)) }));

const runAdapter = async (path: string, work: Workload, synchronous: Synchronous): Promise<number> => {
  const store = new SqliteEventStore(path, { synchronous });
  const heads = new Map<string, number>();
  const started = process.hrtime.bigint();
  for (const { stream, events } of work) {
    const result = await store.append(stream, events, { expectedRevision: heads.get(stream) ?? 'no_stream' });
    heads.set(stream, result.nextExpectedRevision);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  await store.close();
  return seconds;
};

const runRaw = async (path: string, work: Workload, synchronous: Synchronous): Promise<number> => {
  // Same schema: let the adapter create it, then write through a plain connection with the same pragmas.
  await new SqliteEventStore(path).close();
  const db = new Database(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  const append = rawAppender(db);
  const heads = new Map<string, number>();
  const started = process.hrtime.bigint();
  for (const { stream, events } of work) heads.set(stream, append(stream, events, heads.get(stream)).nextExpectedRevision);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  db.close();
  return seconds;
};

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

export async function benchStoreAppend(options: BenchStoreAppendOptions = {}): Promise<BenchStoreAppendResult> {
  const synchronous = options.synchronous ?? 'normal';
  const rounds = options.rounds ?? 3;
  const streams = options.streams ?? 50;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'regent-bench-'));
  let files = 0;
  const freshFile = (): string => join(directory, `bench-${(files += 1)}.db`);
  const scenarios = [
    { scenario: 'single' as const, appends: options.singleAppends ?? 5000, size: 1 },
    { scenario: 'batch' as const, appends: options.batches ?? 100, size: options.batchSize ?? 100 },
  ];
  try {
    // Warm-up: JIT and page cache, not measured.
    const warm = workload(500, 1, streams);
    await runAdapter(freshFile(), warm, synchronous);
    await runRaw(freshFile(), warm, synchronous);

    const measurements: Measurement[] = [];
    for (const { scenario, appends, size } of scenarios) {
      const adapterTimes: number[] = [];
      const rawTimes: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        // Fresh ids every run (a UNIQUE id index that already holds them would be a different workload);
        // alternate the order so neither side always runs on a warmer machine.
        const adapterFirst = round % 2 === 0;
        if (adapterFirst) adapterTimes.push(await runAdapter(freshFile(), workload(appends, size, streams), synchronous));
        rawTimes.push(await runRaw(freshFile(), workload(appends, size, streams), synchronous));
        if (!adapterFirst) adapterTimes.push(await runAdapter(freshFile(), workload(appends, size, streams), synchronous));
      }
      const total = appends * size;
      const adapterEventsPerSecond = total / median(adapterTimes);
      const rawEventsPerSecond = total / median(rawTimes);
      measurements.push({ scenario, eventsPerAppend: size, appends, adapterEventsPerSecond, rawEventsPerSecond, ratio: adapterEventsPerSecond / rawEventsPerSecond });
    }
    const sample = event(0);
    return {
      synchronous,
      dataBytes: Buffer.byteLength(JSON.stringify(sample.data)),
      metadataBytes: Buffer.byteLength(JSON.stringify(sample.metadata)),
      measurements,
    };
  } finally {
    if (!options.directory) rmSync(directory, { recursive: true, force: true });
  }
}

const argument = (name: string): number | undefined => {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : Number(process.argv[index + 1]);
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchStoreAppend({
    singleAppends: argument('--single'),
    batches: argument('--batches'),
    batchSize: argument('--batch-size'),
    rounds: argument('--rounds'),
    synchronous: process.argv.includes('--full') ? 'full' : 'normal',
  });
  console.log(`sqlite append benchmark — synchronous=${result.synchronous}, data ${result.dataBytes} B + metadata ${result.metadataBytes} B of JSON per event`);
  for (const m of result.measurements) {
    const label = m.scenario === 'single' ? 'single-event appends' : `batches of ${m.eventsPerAppend}`;
    console.log(
      `${label.padEnd(22)} adapter ${Math.round(m.adapterEventsPerSecond).toLocaleString('en-US').padStart(8)} events/s (${Math.round(m.adapterEventsPerSecond / m.eventsPerAppend).toLocaleString('en-US')} appends/s)` +
        `   raw ${Math.round(m.rawEventsPerSecond).toLocaleString('en-US').padStart(8)} events/s   ratio adapter/raw ${m.ratio.toFixed(2)}`,
    );
  }
}
