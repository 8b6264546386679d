/**
 * The EventStoreDB adapter: Regent's store port over EventStoreDB's gRPC API (through client.ts, the
 * one module that names the client package). The mapping is stated in ./README.md.
 */
import type { EventMetadata, NewEvent, RecordedEvent } from '../../events/envelope.js';
import { InvalidStoreRequest, InvalidStoreUrl, StoreUnavailable, WrongExpectedVersion } from '../errors.js';
import { NO_STREAM_REVISION, expectationHolds } from '../internal/expectation.js';
import { toJson } from '../internal/json.js';
import { compareCodePoints } from '../internal/order.js';
import {
  assertAfter,
  assertExpectedRevision,
  assertFilter,
  assertNewEvents,
  assertReadAllOptions,
  assertReadStreamOptions,
  assertStreamName,
} from '../internal/validate.js';
import type {
  AppendResult,
  EventHandler,
  EventStore,
  ExpectedRevision,
  ReadAllOptions,
  ReadStreamOptions,
  StreamFilter,
  StreamInfo,
  SubscribeOptions,
  Subscription,
} from '../port.js';
import {
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  connect,
  jsonEvent,
  readAllFiltered,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type EventStoreDBClient,
  type Position,
  type ReadPosition,
} from './client.js';

/** Events read from `$all` per request when paging (listStreams, unbounded readAll). */
const PAGE_SIZE = 512;
/** Consecutive failed (re)subscriptions, without a delivery in between, before a subscription gives up. */
const MAX_RESUBSCRIBE_ATTEMPTS = 20;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The metadata keys EventStoreDB's projections and UI read; Regent's envelope never uses them itself. */
const CORRELATION = '$correlationId';
const CAUSATION = '$causationId';

/**
 * Regent's position of an EventStoreDB event: its prepare position (the byte offset of the event's record
 * in the transaction log), as a number. See README.md, "Positions".
 */
export const toRegentPosition = (position: Position): number => {
  const value = Number(position.prepare);
  if (!Number.isSafeInteger(value)) throw new StoreUnavailable(`EventStoreDB position ${position.prepare} is beyond 2^53: Regent's numeric positions cannot hold it`);
  return value;
};

/** The EventStoreDB position a Regent `after` reads from: commit = prepare = the number (see README.md). */
export const toReadPosition = (after: number): ReadPosition => (after === 0 ? START : { commit: BigInt(after), prepare: BigInt(after) });

export const toClientExpectedRevision = (expected: ExpectedRevision): AppendExpectedRevision => {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  return BigInt(expected);
};

/** Regent's metadata plus `$correlationId` / `$causationId` (the latter omitted when Regent's is null). */
export const toEsdbMetadata = (metadata: EventMetadata): Record<string, unknown> => {
  const record = metadata as unknown as Record<string, unknown>;
  if (CORRELATION in record || CAUSATION in record) {
    throw new InvalidStoreRequest(`metadata keys ${CORRELATION} and ${CAUSATION} are written by the eventstoredb adapter and cannot be set`);
  }
  return {
    ...(JSON.parse(toJson(metadata, 'event metadata')) as Record<string, unknown>),
    [CORRELATION]: metadata.correlationId,
    ...(metadata.causationId === null || metadata.causationId === undefined ? {} : { [CAUSATION]: metadata.causationId }),
  };
};

export const fromEsdbMetadata = (metadata: unknown): EventMetadata => {
  const { [CORRELATION]: _correlation, [CAUSATION]: _causation, ...rest } = (metadata ?? {}) as Record<string, unknown>;
  return rest as unknown as EventMetadata;
};

/** A Regent event from a resolved EventStoreDB event; undefined for what Regent does not own ($-streams, links, binary). */
const toRecorded = (resolved: AllStreamResolvedEvent): RecordedEvent | undefined => {
  const event = resolved.event;
  if (!event || resolved.link || !event.isJson || event.streamId.startsWith('$') || event.type.startsWith('$')) return undefined;
  if (!event.position) throw new StoreUnavailable(`EventStoreDB returned event ${event.id} without a position`);
  return {
    id: event.id,
    stream: event.streamId,
    revision: Number(event.revision),
    position: toRegentPosition(event.position),
    type: event.type,
    data: event.data as unknown as RecordedEvent['data'],
    metadata: fromEsdbMetadata(event.metadata),
  };
};

const isRegentError = (error: unknown): boolean =>
  error instanceof WrongExpectedVersion || error instanceof InvalidStoreRequest || error instanceof StoreUnavailable;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class EventStoreDbStore implements EventStore {
  readonly description: string;
  private readonly client: EventStoreDBClient;
  private readonly subscriptions = new Set<EsdbSubscription>();
  private closed = false;

  constructor(url: string) {
    const parsed = parseEsdbUrl(url);
    this.description = parsed.description;
    this.client = connect(url);
  }

  async append(stream: string, events: readonly NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    this.assertOpen();
    assertWritableStream(stream);
    assertExpectedRevision(options?.expectedRevision);
    assertNewEvents(events);
    const expected = options.expectedRevision;
    const proposed = events.map((event) => {
      if (!UUID.test(event.id)) throw new InvalidStoreRequest(`event id ${event.id}: EventStoreDB needs a lowercase UUID`);
      return jsonEvent({
        id: event.id,
        type: event.type,
        data: JSON.parse(toJson(event.data, `event ${event.id} data`)) as Record<string, unknown>,
        metadata: toEsdbMetadata(event.metadata),
      });
    });
    if (proposed.length === 0) {
      const last = await this.lastEvent(stream);
      const actual = last?.revision;
      if (!expectationHolds(expected, actual)) throw new WrongExpectedVersion(stream, expected, actual);
      return { nextExpectedRevision: actual ?? NO_STREAM_REVISION, position: last?.position ?? 0 };
    }
    let result;
    try {
      result = await this.client.appendToStream(stream, proposed, { expectedRevision: toClientExpectedRevision(expected) });
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion === 'no_stream' ? undefined : Number(error.actualVersion);
        throw new WrongExpectedVersion(stream, expected, actual);
      }
      throw this.unavailable('append', error);
    }
    const nextExpectedRevision = Number(result.nextExpectedRevision);
    // One event: the write's position is that event's. Several: read the last one back (see README.md).
    if (proposed.length === 1 && result.position) return { nextExpectedRevision, position: toRegentPosition(result.position) };
    const [last] = await this.readStream(stream, { fromRevision: nextExpectedRevision, maxCount: 1 });
    if (!last) throw new StoreUnavailable(`${this.description}: event ${nextExpectedRevision} of ${stream} is missing right after its append`);
    return { nextExpectedRevision, position: last.position };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertStreamName(stream);
    assertReadStreamOptions(options);
    if (options.maxCount === 0 || stream.startsWith('$')) return [];
    const backwards = options.direction === 'backwards';
    const fromRevision = options.fromRevision === undefined ? (backwards ? END : START) : BigInt(options.fromRevision);
    const out: RecordedEvent[] = [];
    try {
      const reading = this.client.readStream(stream, {
        direction: backwards ? BACKWARDS : FORWARDS,
        fromRevision,
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
      });
      for await (const resolved of reading) {
        const event = toRecorded(resolved as AllStreamResolvedEvent);
        if (event) out.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw this.unavailable('readStream', error);
    }
    return out;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertReadAllOptions(options);
    return this.readAllEvents(options.after ?? 0, options.filter, options.maxCount ?? Infinity);
  }

  subscribe(options: SubscribeOptions, handler: EventHandler): Subscription {
    this.assertOpen();
    assertAfter(options?.after);
    assertFilter(options?.filter);
    const subscription = new EsdbSubscription(this.client, options, handler);
    this.subscriptions.add(subscription);
    const forget = (): void => {
      this.subscriptions.delete(subscription);
    };
    subscription.done.then(forget, forget);
    return subscription;
  }

  /** Folds `$all` (filtered server-side): cost proportional to every event stored. See README.md. */
  async listStreams(filter?: StreamFilter): Promise<StreamInfo[]> {
    this.assertOpen();
    assertFilter(filter);
    const heads = new Map<string, StreamInfo>();
    for (const event of await this.readAllEvents(0, filter, Infinity)) {
      heads.set(event.stream, { stream: event.stream, head: event.revision, lastPosition: event.position });
    }
    return [...heads.values()].sort((a, b) => compareCodePoints(a.stream, b.stream));
  }

  /** The newest record of `$all` (a system event's is as good an upper bound as Regent's own). */
  async lastPosition(): Promise<number> {
    this.assertOpen();
    try {
      // read to the end of the (one-record) answer rather than leave the call half-consumed
      let newest = 0;
      for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 })) {
        if (resolved.event?.position) newest = Math.max(newest, toRegentPosition(resolved.event.position));
      }
      return newest;
    } catch (error) {
      throw this.unavailable('lastPosition', error);
    }
  }

  async streamHead(stream: string): Promise<number | undefined> {
    this.assertOpen();
    assertStreamName(stream);
    return (await this.lastEvent(stream))?.revision;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    await this.client.dispose();
  }

  private async lastEvent(stream: string): Promise<RecordedEvent | undefined> {
    return (await this.readStream(stream, { direction: 'backwards', maxCount: 1 }))[0];
  }

  /**
   * Events with position > after, in order, at most maxCount, in pages. Reads from a position are
   * inclusive, so each page re-reads the event it starts at and drops it.
   */
  private async readAllEvents(after: number, filter: StreamFilter | undefined, maxCount: number): Promise<RecordedEvent[]> {
    const prefixes = filter?.streamPrefixes;
    if (maxCount === 0 || prefixes?.length === 0) return [];
    const out: RecordedEvent[] = [];
    let from = toReadPosition(after);
    let cursor = after;
    try {
      while (out.length < maxCount) {
        const want = Math.min(PAGE_SIZE, maxCount - out.length) + 1;
        const reading = prefixes
          ? readAllFiltered(this.client, from, prefixes, want)
          : this.client.readAll({ fromPosition: from, maxCount: want });
        let received = 0;
        for await (const resolved of reading) {
          received += 1;
          const position = resolved.event?.position;
          if (!position) continue;
          from = position;
          const event = toRecorded(resolved);
          if (event && event.position > cursor) out.push(event);
          cursor = Math.max(cursor, toRegentPosition(position));
        }
        if (received < want) break;
      }
    } catch (error) {
      throw this.unavailable('readAll', error);
    }
    return out.slice(0, maxCount);
  }

  private unavailable(operation: string, error: unknown): Error {
    if (isRegentError(error)) return error as Error;
    return new StoreUnavailable(`${this.description}: ${operation} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailable(`the store ${this.description} is closed`);
  }
}

const assertWritableStream = (stream: string): void => {
  assertStreamName(stream);
  if (stream.startsWith('$')) throw new InvalidStoreRequest(`stream ${stream}: names starting with $ are EventStoreDB system streams`);
};

/**
 * A catch-up subscription to `$all` with the filter evaluated by the server. It remembers the exact
 * EventStoreDB position of the last event it handled (or skipped) and, when the call fails — a dropped
 * connection, a server restart — subscribes again from there: no gap (nothing after it is skipped) and no
 * duplicate (anything at or before Regent's cursor is dropped, should a server include the start).
 */
export class EsdbSubscription implements Subscription {
  readonly done: Promise<void>;
  private delivered = 0;
  private stopped = false;
  private current: AllStreamSubscription | undefined;
  private wakeStopped: (() => void) | undefined;
  private opened = 0;

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly options: SubscribeOptions,
    private readonly handler: EventHandler,
  ) {
    this.done = this.run();
    this.done.catch(() => undefined);
  }

  get position(): number {
    return this.delivered;
  }

  /** How many times the subscription was opened on the server: 1 plus the resumptions. */
  get subscribeCount(): number {
    return this.opened;
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.wakeStopped?.();
    await this.current?.unsubscribe().catch(() => undefined);
    await this.done.catch(() => undefined);
  }

  private async run(): Promise<void> {
    await Promise.resolve();
    const prefixes = this.options.filter?.streamPrefixes;
    if (prefixes?.length === 0) {
      // Nothing can ever match: wait for close() without holding a server call open.
      if (!this.stopped) await new Promise<void>((resolve) => (this.wakeStopped = resolve));
      return;
    }
    let cursor = this.options.after ?? 0;
    let from: ReadPosition = toReadPosition(cursor);
    let failures = 0;
    while (!this.stopped) {
      const subscription = this.client.subscribeToAll({ fromPosition: from, ...(prefixes ? { filter: streamNameFilter({ prefixes: [...prefixes] }) } : {}) });
      this.current = subscription;
      this.opened += 1;
      let handlerFailure: { error: unknown } | undefined;
      let failure: unknown = new Error('the server ended the subscription');
      try {
        for await (const resolved of subscription) {
          if (this.stopped) return;
          const position = (resolved as AllStreamResolvedEvent).event?.position;
          if (!position) continue;
          const event = toRecorded(resolved as AllStreamResolvedEvent);
          if (event && event.position > cursor) {
            try {
              await this.handler(event);
            } catch (error) {
              handlerFailure = { error };
              throw error;
            }
            this.delivered = event.position;
            failures = 0;
          }
          cursor = Math.max(cursor, toRegentPosition(position));
          from = position;
        }
      } catch (error) {
        if (handlerFailure) throw handlerFailure.error;
        failure = error;
      } finally {
        await subscription.unsubscribe().catch(() => undefined);
      }
      // The call failed or the server ended it: subscribe again from the last handled position.
      if (this.stopped) return;
      failures += 1;
      if (failures >= MAX_RESUBSCRIBE_ATTEMPTS) {
        throw new StoreUnavailable(`subscription to $all failed ${failures} times in a row: ${failure instanceof Error ? failure.message : String(failure)}`, {
          cause: failure,
        });
      }
      await sleep(Math.min(1000, 25 * 2 ** failures));
    }
  }
}

interface ParsedEsdbUrl {
  description: string;
}

/** Accepts `esdb://host:port[,host:port…]?tls=false…` and `esdb+discover://…` (the client parses the rest). */
export const parseEsdbUrl = (url: string): ParsedEsdbUrl => {
  const match = /^(esdb(?:\+discover)?):\/\/(?:[^@/]*@)?([^/?]+)/.exec(url);
  if (!match) throw new InvalidStoreUrl(`unsupported store URL ${JSON.stringify(url)}: expected esdb://host:port?tls=false`);
  return { description: `${match[1]}://${match[2]}` };
};

/** Opens an EventStoreDB store and checks that the server answers (one read of a stream that need not exist). */
export const openEventStoreDbStore = async (url: string): Promise<EventStore> => {
  let store: EventStoreDbStore;
  try {
    store = new EventStoreDbStore(url);
  } catch (error) {
    if (error instanceof StoreUnavailable) throw error;
    throw new InvalidStoreUrl(`store URL ${JSON.stringify(url)}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    await store.streamHead('regent-connection-check');
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error instanceof StoreUnavailable ? error : new StoreUnavailable(`cannot reach ${store.description}`, { cause: error });
  }
  return store;
};
