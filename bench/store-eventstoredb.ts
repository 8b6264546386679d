/**
 * The EventStoreDB adapter (src/store/eventstoredb/) beside the raw `@eventstore/db-client` doing the
 * plainest version of the same work, and beside the sqlite adapter's figures of the same run:
 * appends single and in batches of 100, a 10,000-event stream read, a catch-up subscription to `$all`.
 *
 * Against REGENT_ESDB_URL when it is set; otherwise against the test gRPC server
 * (test/store/support/esdb-test-server.ts) over Regent's memory store. Then the absolute figures say
 * nothing about EventStoreDB: both sides pay the same fake server, so the ratio is what it measures —
 * the adapter's cost over the client on the real wire protocol.
 */
import { connect, jsonEvent, NO_STREAM, START, streamNameFilter, type AppendExpectedRevision } from '../src/store/eventstoredb/client.js';
import { openEventStoreDbStore, toEsdbMetadata } from '../src/store/eventstoredb/store.js';
import type { NewEvent } from '../src/events/envelope.js';
import type { EventStore } from '../src/store/port.js';
import { startEsdbTestServer } from '../test/store/support/esdb-test-server.js';
import { timeCatchUp } from './catch-up.js';

export interface EsdbFigure {
  label: string;
  /** events/s through the adapter */
  adapter: number;
  /** events/s through the raw client */
  raw: number;
  /** adapter / raw */
  ratio: number;
}

export interface EsdbBench {
  target: string;
  figures: EsdbFigure[];
}

const seconds = (started: bigint): number => Number(process.hrtime.bigint() - started) / 1e9;
const median3 = async (run: () => Promise<number>): Promise<number> => [await run(), await run(), await run()].sort((a, b) => a - b)[1] ?? NaN;

export async function benchEventStoreDb(makeEvent: (n: number) => NewEvent): Promise<EsdbBench> {
  const real = process.env.REGENT_ESDB_URL;
  const server = real ? undefined : await startEsdbTestServer();
  const url = real ?? (server as NonNullable<typeof server>).url;
  const target = real ? `the EventStoreDB at ${real.replace(/:[^:@/]*@/, ':***@')}` : 'the gRPC test server (memory store): ratios only';
  // A real server cannot be emptied: every run and scenario writes its own streams.
  const run = `bench-${process.pid}-${Date.now().toString(36)}`;
  let scenario = 0;
  const streamsOf = (n: number) => Array.from({ length: n }, (_, i) => `${run}-${scenario}-server-rebuild-${i}`);
  const work = (appends: number, size: number) => {
    scenario += 1;
    const streams = streamsOf(50);
    return Array.from({ length: appends }, (_, i) => ({ stream: streams[i % 50] as string, events: Array.from({ length: size }, (_, j) => makeEvent(i * size + j)) }));
  };

  const store: EventStore = await openEventStoreDbStore(url);
  const client = connect(url);
  try {
    const adapterAppends = async (appends: number, size: number): Promise<number> => {
      const jobs = work(appends, size);
      const heads = new Map<string, number>();
      const started = process.hrtime.bigint();
      for (const { stream, events } of jobs) heads.set(stream, (await store.append(stream, events, { expectedRevision: heads.get(stream) ?? 'no_stream' })).nextExpectedRevision);
      return seconds(started);
    };
    const rawAppends = async (appends: number, size: number): Promise<number> => {
      const jobs = work(appends, size);
      const heads = new Map<string, bigint>();
      const started = process.hrtime.bigint();
      for (const { stream, events } of jobs) {
        const expectedRevision: AppendExpectedRevision = heads.get(stream) ?? NO_STREAM;
        const result = await client.appendToStream(stream, events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as Record<string, unknown>, metadata: toEsdbMetadata(e.metadata) })), { expectedRevision });
        heads.set(stream, result.nextExpectedRevision);
      }
      return seconds(started);
    };

    // one 10,000-event stream, for the read and (it is all of $all on the test server) the catch-up
    const big = `${run}-big`;
    for (let i = 0; i < 100; i += 1) await store.append(big, Array.from({ length: 100 }, (_, j) => makeEvent(i * 100 + j)), { expectedRevision: i === 0 ? 'no_stream' : i * 100 - 1 });
    const adapterRead = async (): Promise<number> => {
      const started = process.hrtime.bigint();
      await store.readStream(big);
      return seconds(started);
    };
    const rawRead = async (): Promise<number> => {
      const started = process.hrtime.bigint();
      for await (const _ of client.readStream(big, { fromRevision: START, maxCount: 10_000 })) void _;
      return seconds(started);
    };
    const catchUpTotal = (await store.readAll({ filter: { streamPrefixes: [big] } })).length;
    const adapterCatchUp = (): Promise<number> => timeCatchUp(store, catchUpTotal, { filter: { streamPrefixes: [big] } });
    const rawCatchUp = async (): Promise<number> => {
      const started = process.hrtime.bigint();
      let seen = 0;
      const subscription = client.subscribeToAll({ fromPosition: START, filter: streamNameFilter({ prefixes: [big] }) });
      for await (const resolved of subscription) {
        if (resolved.event && ++seen === catchUpTotal) break;
      }
      const elapsed = seconds(started);
      await subscription.unsubscribe();
      return elapsed;
    };

    await adapterAppends(100, 1); // warm-up
    await rawAppends(100, 1);
    const single = 1_000;
    const batches = 50;
    const row = (label: string, events: number, adapterSeconds: number, rawSeconds: number): EsdbFigure => ({ label, adapter: events / adapterSeconds, raw: events / rawSeconds, ratio: rawSeconds / adapterSeconds });
    return {
      target,
      figures: [
        row('single-event appends', single, await median3(() => adapterAppends(single, 1)), await median3(() => rawAppends(single, 1))),
        row('batches of 100', batches * 100, await median3(() => adapterAppends(batches, 100)), await median3(() => rawAppends(batches, 100))),
        row('read a 10,000-event stream', 10_000, await median3(adapterRead), await median3(rawRead)),
        row(`catch-up subscription (${catchUpTotal.toLocaleString('en-US')})`, catchUpTotal, await median3(adapterCatchUp), await median3(rawCatchUp)),
      ],
    };
  } finally {
    await store.close();
    await client.dispose();
    await server?.close();
  }
}
