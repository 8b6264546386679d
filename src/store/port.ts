/**
 * The store port: what the engine, projections and audit tools need from an event store, and nothing
 * more. Every adapter (memory, sqlite, eventstoredb) passes the one conformance suite in
 * test/store/conformance.ts; src/store/README.md states the contract in prose.
 */
import type { NewEvent, RecordedEvent } from '../events/envelope.js';

/**
 * Optimistic concurrency for `append`:
 * - a number: the stream's current last revision must be exactly this;
 * - `no_stream`: the stream must not exist yet;
 * - `any`: no check.
 */
export type ExpectedRevision = number | 'no_stream' | 'any';

export interface AppendResult {
  /**
   * Revision of the last event written (the stream's new head). For an empty append: the current
   * head, or -1 when the stream does not exist.
   */
  nextExpectedRevision: number;
  /** Global position of the last event written. For an empty append: the stream's last position, or 0. */
  position: number;
}

export interface ReadStreamOptions {
  /** Revision to start at, inclusive. Forwards default 0; backwards default the head. */
  fromRevision?: number;
  direction?: 'forwards' | 'backwards';
  /** At most this many events. Default: all. */
  maxCount?: number;
}

export interface StreamFilter {
  /**
   * Keep events whose stream starts with one of these prefixes (e.g. `server-rebuild-`), compared
   * exactly (no wildcards, case-sensitive). An empty array keeps nothing; absent keeps everything.
   */
  streamPrefixes?: readonly string[];
}

export interface ReadAllOptions {
  /** Only events with position strictly greater than this. Default 0: from the beginning. */
  after?: number;
  filter?: StreamFilter;
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Deliver events with position strictly greater than this, then live ones. Default 0. */
  after?: number;
  filter?: StreamFilter;
}

/**
 * Delivered in position order, one at a time: the next call waits for the previous promise. A throw
 * or rejection stops the subscription and rejects `done` with that error.
 */
export type EventHandler = (event: RecordedEvent) => void | Promise<void>;

export interface Subscription {
  /**
   * Stops delivery; resolves once no handler call is in flight (never rejects: a handler failure is
   * reported on `done`). Called from inside the handler, do not await it: it waits for that very call.
   */
  close(): Promise<void>;
  /** Resolves when the subscription has stopped: after close(), or rejects when the handler threw. */
  readonly done: Promise<void>;
  /** Position of the last event delivered (0 before any). */
  readonly position: number;
}

export interface StreamInfo {
  /** Stream names are non-empty and contain no NUL and no lone surrogate (InvalidStoreRequest otherwise). */
  stream: string;
  /** Revision of the last event. */
  head: number;
  /** Position of the last event. */
  lastPosition: number;
}

export interface EventStore {
  /** A short name for logs and CLI output, e.g. `sqlite:./data/regent.db`. */
  readonly description: string;
  /**
   * Appends `events` atomically (all or none) if the stream's revision matches `expectedRevision`;
   * otherwise throws WrongExpectedVersion carrying the actual revision. An empty `events` array
   * only checks the expectation. An event id already stored (or repeated in the batch) throws
   * InvalidStoreRequest and writes nothing. `data` and `metadata` are stored as JSON: they read back
   * as JSON.parse(JSON.stringify(value)).
   */
  append(stream: string, events: readonly NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /** Events of one stream. A stream that does not exist reads as an empty array. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Events of all streams in position order. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * Catch-up from `after`, then live, in order, with no gap and no duplicate, including events other
   * processes append to the same store. Throws InvalidStoreRequest/StoreUnavailable synchronously.
   */
  subscribe(options: SubscribeOptions, handler: EventHandler): Subscription;
  /** Every stream with its head, ordered by stream name (Unicode code-point order); optionally filtered. */
  listStreams(filter?: StreamFilter): Promise<StreamInfo[]>;
  /** Current head revision of a stream, or undefined when it does not exist. */
  streamHead(stream: string): Promise<number | undefined>;
  /**
   * The position of the newest event in the global order (0 when the store is empty): every event
   * appended after this call has a greater position. A reader notes it before it reads the world, so that
   * what it read can later be told apart from decisions recorded after the read began (the server monitor).
   */
  lastPosition(): Promise<number>;
  /** Closes every open subscription (waiting for in-flight handlers), then the store. Later calls throw StoreUnavailable. */
  close(): Promise<void>;
}

/**
 * Named reader positions kept in the store beside the events (PostgreSQL): the status runner's checkpoint
 * lives there, so the replica that takes over resumes where the last leader stopped instead of re-rendering
 * the whole history. Last writer wins; only the leader writes.
 */
export interface CheckpointKeeper {
  /** The position saved under `name`, or undefined when none was. */
  loadCheckpoint(name: string): Promise<number | undefined>;
  saveCheckpoint(name: string, position: number): Promise<void>;
}

export const keepsCheckpoints = (store: EventStore): store is EventStore & CheckpointKeeper =>
  typeof (store as Partial<CheckpointKeeper>).loadCheckpoint === 'function' && typeof (store as Partial<CheckpointKeeper>).saveCheckpoint === 'function';

/** True when the event's stream passes the filter. */
export const matchesFilter = (stream: string, filter: StreamFilter | undefined): boolean =>
  !filter?.streamPrefixes || filter.streamPrefixes.some((prefix) => stream.startsWith(prefix));
