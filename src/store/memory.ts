/**
 * The in-process adapter, for tests and demos. It keeps the sqlite adapter's semantics on purpose —
 * JSON-serialised payloads, positions from 1, code-point ordering of stream names, the same errors —
 * because the engine's tests run against it and must not pass on behaviour sqlite does not have.
 */
import type { NewEvent, RecordedEvent } from '../events/envelope.js';
import { InvalidStoreRequest, StoreUnavailable, WrongExpectedVersion } from './errors.js';
import { ChangeSignal } from './internal/change-signal.js';
import { NO_STREAM_REVISION, expectationHolds } from './internal/expectation.js';
import { toJson } from './internal/json.js';
import { compareCodePoints } from './internal/order.js';
import { CatchUpSubscription, SubscriptionSet, type ReadPage } from './internal/subscription.js';
import {
  assertAfter,
  assertExpectedRevision,
  assertFilter,
  assertNewEvents,
  assertReadAllOptions,
  assertReadStreamOptions,
  assertStreamName,
} from './internal/validate.js';
import {
  matchesFilter,
  type AppendResult,
  type EventHandler,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type StreamFilter,
  type StreamInfo,
  type SubscribeOptions,
  type Subscription,
} from './port.js';

/** An event as held in memory: payloads as JSON text, parsed afresh on every read. */
interface StoredEvent {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
}

interface StoredStream {
  events: StoredEvent[];
  lastPosition: number;
}

const materialise = (event: StoredEvent): RecordedEvent => ({
  id: event.id,
  stream: event.stream,
  revision: event.revision,
  position: event.position,
  type: event.type,
  data: JSON.parse(event.data) as RecordedEvent['data'],
  metadata: JSON.parse(event.metadata) as RecordedEvent['metadata'],
});

/** Index of the first event with position > after (positions are dense from 1, but do not rely on it). */
const firstAfter = (events: readonly StoredEvent[], after: number): number => {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((events[middle]?.position ?? Infinity) <= after) low = middle + 1;
    else high = middle;
  }
  return low;
};

export class MemoryEventStore implements EventStore {
  readonly description = 'memory:';
  private readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredStream>();
  private readonly ids = new Set<string>();
  private readonly changes = new ChangeSignal();
  private readonly subscriptions = new SubscriptionSet();
  private closed = false;

  async append(stream: string, events: readonly NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    this.assertOpen();
    assertStreamName(stream);
    assertExpectedRevision(options?.expectedRevision);
    assertNewEvents(events);
    const existing = this.streams.get(stream);
    const actual = existing ? existing.events.length - 1 : undefined;
    if (!expectationHolds(options.expectedRevision, actual)) {
      throw new WrongExpectedVersion(stream, options.expectedRevision, actual);
    }
    if (events.length === 0) {
      return { nextExpectedRevision: actual ?? NO_STREAM_REVISION, position: existing?.lastPosition ?? 0 };
    }
    // Everything that can fail is done before the first write, so the append is all or none.
    let revision = actual ?? NO_STREAM_REVISION;
    let position = this.all.at(-1)?.position ?? 0;
    const staged: StoredEvent[] = events.map((event) => {
      if (this.ids.has(event.id)) throw new InvalidStoreRequest(`event id ${event.id} is already stored`);
      revision += 1;
      position += 1;
      return {
        position,
        stream,
        revision,
        id: event.id,
        type: event.type,
        data: toJson(event.data, `event ${event.id} data`),
        metadata: toJson(event.metadata, `event ${event.id} metadata`),
      };
    });
    const target = existing ?? { events: [], lastPosition: 0 };
    for (const event of staged) {
      this.all.push(event);
      target.events.push(event);
      this.ids.add(event.id);
    }
    target.lastPosition = position;
    this.streams.set(stream, target);
    this.changes.fire();
    return { nextExpectedRevision: revision, position };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertStreamName(stream);
    assertReadStreamOptions(options);
    const events = this.streams.get(stream)?.events ?? [];
    const maxCount = options.maxCount ?? Infinity;
    if (options.direction === 'backwards') {
      const from = Math.min(options.fromRevision ?? Infinity, events.length - 1);
      const out: RecordedEvent[] = [];
      for (let revision = from; revision >= 0 && out.length < maxCount; revision -= 1) {
        const event = events[revision];
        if (event) out.push(materialise(event));
      }
      return out;
    }
    const from = options.fromRevision ?? 0;
    return events.slice(from, from + Math.min(maxCount, events.length)).map(materialise);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertReadAllOptions(options);
    return this.readPage(options.after ?? 0, options.filter, options.maxCount ?? Infinity).events;
  }

  subscribe(options: SubscribeOptions, handler: EventHandler): Subscription {
    this.assertOpen();
    assertAfter(options?.after);
    assertFilter(options?.filter);
    const source = { readPage: this.readPage.bind(this), changes: this.changes };
    const subscription = new CatchUpSubscription(source, options, handler);
    this.subscriptions.add(subscription);
    return subscription;
  }

  async listStreams(filter?: StreamFilter): Promise<StreamInfo[]> {
    this.assertOpen();
    assertFilter(filter);
    return [...this.streams.entries()]
      .filter(([stream]) => matchesFilter(stream, filter))
      .map(([stream, stored]) => ({ stream, head: stored.events.length - 1, lastPosition: stored.lastPosition }))
      .sort((a, b) => compareCodePoints(a.stream, b.stream));
  }

  async lastPosition(): Promise<number> {
    this.assertOpen();
    return this.all.at(-1)?.position ?? 0;
  }

  async streamHead(stream: string): Promise<number | undefined> {
    this.assertOpen();
    assertStreamName(stream);
    const stored = this.streams.get(stream);
    return stored ? stored.events.length - 1 : undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscriptions.closeAll();
  }

  private readPage(after: number, filter: StreamFilter | undefined, limit: number): ReadPage {
    const events: RecordedEvent[] = [];
    let index = firstAfter(this.all, after);
    for (; index < this.all.length && events.length < limit; index += 1) {
      const event = this.all[index];
      if (event && matchesFilter(event.stream, filter)) events.push(materialise(event));
    }
    const scannedTo = events.length >= limit ? (events.at(-1)?.position ?? after) : (this.all.at(-1)?.position ?? after);
    return { events, scannedTo };
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailable('the memory store is closed');
  }
}
