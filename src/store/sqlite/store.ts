/**
 * The sqlite adapter: one file, WAL, any number of processes. See src/store/README.md for the contract
 * and the durability trade-off of `synchronous`.
 *
 * better-sqlite3 is synchronous: each method does its work inside the call and returns a settled
 * promise. That keeps an append's check-and-write free of interleaving in this process; SQLite's
 * write lock (BEGIN IMMEDIATE) does the same across processes.
 */
import Database from 'better-sqlite3';
import type { NewEvent, RecordedEvent } from '../../events/envelope.js';
import { StoreUnavailable } from '../errors.js';
import { ChangeSignal } from '../internal/change-signal.js';
import { CatchUpSubscription, SubscriptionSet, type ReadPage } from '../internal/subscription.js';
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
import { createAppender, type Appender } from './append.js';
import { openDatabase, type SqliteConnectionOptions, type Synchronous } from './connection.js';
import { DEFAULT_POLL_INTERVAL_MS, DataVersionPoller } from './poller.js';
import { toRecordedEvent } from './rows.js';
import { Statements, prefixParams } from './statements.js';

export interface SqliteStoreOptions extends SqliteConnectionOptions {
  /** How often open subscriptions look for commits by other processes. Default 25 ms. */
  pollIntervalMs?: number;
}

/** SQLite's "no limit" for LIMIT. */
const UNLIMITED = -1;

export class SqliteEventStore implements EventStore {
  readonly description: string;
  private readonly db: Database.Database;
  private readonly statements: Statements;
  private readonly appender: Appender;
  private readonly changes = new ChangeSignal();
  private readonly poller: DataVersionPoller;
  private readonly subscriptions: SubscriptionSet;
  /** A consistent snapshot for a subscription page: the filtered rows and how far they cover. */
  private readonly readPageSnapshot: (after: number, filter: StreamFilter | undefined, limit: number) => ReadPage;
  private closed = false;

  /** Opens (creating and migrating if needed) the store at `path`. Throws StoreUnavailable. */
  constructor(readonly path: string, options: SqliteStoreOptions = {}) {
    this.description = `sqlite:${path}`;
    this.db = openDatabase(path, options);
    this.statements = new Statements(this.db);
    this.appender = createAppender(this.db, this.statements);
    this.poller = new DataVersionPoller(() => this.statements.dataVersion.get() ?? 0, this.changes, options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
    this.subscriptions = new SubscriptionSet((count) => this.poller.update(count));
    // One read transaction, so that max(position) describes the same snapshot as the page: without it
    // an event committed between the two reads could be counted as scanned but never delivered.
    this.readPageSnapshot = this.db.transaction((after: number, filter: StreamFilter | undefined, limit: number): ReadPage => {
      const events = this.selectAfter(after, filter, limit);
      const scannedTo = events.length >= limit ? (events.at(-1)?.position ?? after) : (this.statements.maxPosition.get() ?? after);
      return { events, scannedTo };
    });
  }

  async append(stream: string, events: readonly NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    this.assertOpen();
    assertStreamName(stream);
    assertExpectedRevision(options?.expectedRevision);
    assertNewEvents(events);
    const result = this.run(() => this.appender(stream, events, options.expectedRevision));
    if (events.length > 0) this.changes.fire();
    return result;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertStreamName(stream);
    assertReadStreamOptions(options);
    const limit = options.maxCount ?? UNLIMITED;
    const rows = this.run(() =>
      options.direction === 'backwards'
        ? this.statements.readBackwards.all(stream, options.fromRevision ?? Number.MAX_SAFE_INTEGER, limit)
        : this.statements.readForwards.all(stream, options.fromRevision ?? 0, limit),
    );
    return rows.map(toRecordedEvent);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertReadAllOptions(options);
    return this.run(() => this.selectAfter(options.after ?? 0, options.filter, options.maxCount ?? UNLIMITED));
  }

  subscribe(options: SubscribeOptions, handler: EventHandler): Subscription {
    this.assertOpen();
    assertAfter(options?.after);
    assertFilter(options?.filter);
    const source = {
      readPage: (after: number, filter: StreamFilter | undefined, limit: number) => this.run(() => this.readPageSnapshot(after, filter, limit)),
      changes: this.changes,
    };
    const subscription = new CatchUpSubscription(source, options, handler);
    this.subscriptions.add(subscription);
    return subscription;
  }

  async listStreams(filter?: StreamFilter): Promise<StreamInfo[]> {
    this.assertOpen();
    assertFilter(filter);
    const prefixes = filter?.streamPrefixes;
    if (prefixes === undefined) return this.run(() => this.statements.listStreams.all());
    if (prefixes.length === 0) return [];
    return this.run(() => this.statements.listStreamsWithPrefixes(prefixes.length).all(prefixParams(prefixes)));
  }

  async lastPosition(): Promise<number> {
    this.assertOpen();
    return this.run(() => this.statements.maxPosition.get() ?? 0);
  }

  async streamHead(stream: string): Promise<number | undefined> {
    this.assertOpen();
    assertStreamName(stream);
    return this.run(() => this.statements.head.get(stream)?.head);
  }

  /** The pragmas in force on this connection, as SQLite reports them (for `regent doctor` and tests). */
  connectionSettings(): { journalMode: string; synchronous: Synchronous; busyTimeoutMs: number } {
    this.assertOpen();
    // PRAGMA synchronous reports 1 for NORMAL and 2 for FULL.
    const level = Number(this.db.pragma('synchronous', { simple: true }));
    return {
      journalMode: String(this.db.pragma('journal_mode', { simple: true })),
      synchronous: level >= 2 ? 'full' : 'normal',
      busyTimeoutMs: Number(this.db.pragma('busy_timeout', { simple: true })),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscriptions.closeAll();
    this.poller.stop();
    this.db.close();
  }

  private selectAfter(after: number, filter: StreamFilter | undefined, limit: number): RecordedEvent[] {
    const prefixes = filter?.streamPrefixes;
    if (prefixes === undefined) return this.statements.readAll.all(after, limit).map(toRecordedEvent);
    if (prefixes.length === 0) return [];
    return this.statements
      .readAllWithPrefixes(prefixes.length)
      .all({ after, limit, ...prefixParams(prefixes) })
      .map(toRecordedEvent);
  }

  /**
   * Runs a database call, turning "the lock stayed busy past busy_timeout" and I/O failures into
   * StoreUnavailable; typed store errors and programming errors pass through unchanged.
   */
  private run<T>(work: () => T): T {
    try {
      return work();
    } catch (error) {
      if (isUnavailable(error)) throw new StoreUnavailable(`store ${this.path} is unavailable: ${error.message}`, { cause: error });
      throw error;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailable(`store ${this.path} is closed`);
  }
}

const UNAVAILABLE_CODES = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_FULL', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_CORRUPT', 'SQLITE_NOTADB'];

const isUnavailable = (error: unknown): error is Error =>
  error instanceof Database.SqliteError &&
  UNAVAILABLE_CODES.some((code) => error.code === code || error.code.startsWith(`${code}_`));
