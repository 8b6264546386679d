/**
 * The PostgreSQL adapter: one events table, appends serialised on a transaction-level advisory lock
 * (so positions commit in order), LISTEN/NOTIFY to wake subscriptions. See README.md here for the
 * technique and its trade-off, src/store/README.md for the contract.
 */
import pg from 'pg';
import type { NewEvent, RecordedEvent } from '../../events/envelope.js';
import { InvalidStoreRequest, StoreUnavailable, WrongExpectedVersion } from '../errors.js';
import { ChangeSignal } from '../internal/change-signal.js';
import { NO_STREAM_REVISION } from '../internal/expectation.js';
import { toJson } from '../internal/json.js';
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
  CheckpointKeeper,
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
import { Listener } from './listener.js';
import { SCHEMA_VERSION, migrate, readHeader } from './schema.js';
import { parsePostgresUrl, quoteIdent, type PostgresLocation } from './url.js';

export interface PostgresStoreOptions {
  /**
   * Create or upgrade the schema on open (default true, like the sqlite adapter). With false, a
   * missing or older schema is refused with StoreUnavailable naming `regent store migrate`.
   */
  migrate?: boolean;
  /** Connections in the pool (default 10), plus one for LISTEN while a subscription is open. */
  poolSize?: number;
  /**
   * How long a subscription keeps retrying reads while the server is unreachable before `done`
   * rejects with StoreUnavailable (default 30 s). The listener reconnects for as long as needed.
   */
  reconnectTimeoutMs?: number;
  /** `application_name` of the connections (default `regent`), as pg_stat_activity shows them. */
  applicationName?: string;
}

interface EventRow {
  position: string;
  stream: string;
  revision: string;
  id: string;
  type: string;
  data: RecordedEvent['data'];
  metadata: RecordedEvent['metadata'];
}

const EVENT_COLUMNS = 'e.position, e.stream, e.revision, e.id, e.type, e.data, e.metadata';

/** pg returns bigint as text and json already parsed (a fresh object per read). */
const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  id: row.id,
  stream: row.stream,
  revision: Number(row.revision),
  position: Number(row.position),
  type: row.type,
  data: row.data,
  metadata: row.metadata,
});

/** The server closed or lost the connection, or cannot take one now: worth retrying a read. */
export const isConnectionError = (error: unknown): boolean => {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('08') || ['57P01', '57P02', '57P03', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND'].includes(code)) {
      return true;
    }
  }
  return /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(error.message);
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class PostgresEventStore implements EventStore, CheckpointKeeper {
  readonly description: string;
  private readonly s: string;
  private readonly channel: string;
  private readonly changes = new ChangeSignal();
  private readonly listener: Listener;
  private readonly subscriptions: SubscriptionSet;
  private readonly reconnectTimeoutMs: number;
  private closed = false;

  private constructor(
    private readonly location: PostgresLocation,
    private readonly pool: pg.Pool,
    options: PostgresStoreOptions,
  ) {
    this.description = location.description;
    this.s = quoteIdent(location.schema);
    this.channel = `regent_${location.schema}`;
    this.reconnectTimeoutMs = options.reconnectTimeoutMs ?? 30_000;
    this.listener = new Listener(
      () => new pg.Client(clientConfig(location, options, 'listen')),
      this.channel,
      () => this.changes.fire(),
    );
    this.subscriptions = new SubscriptionSet((count) => this.listener.update(count));
  }

  /** Connects, checks (and unless told otherwise migrates) the schema. Throws StoreUnavailable. */
  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresEventStore> {
    const location = parsePostgresUrl(url);
    const pool = new pg.Pool({ ...clientConfig(location, options, 'pool'), max: options.poolSize ?? 10 });
    // An idle pooled client whose server connection dies emits 'error' on the pool; the pool drops it.
    pool.on('error', () => undefined);
    try {
      const { version } = await readHeader(pool, location.schema, location.description);
      if (version < SCHEMA_VERSION) {
        if (options.migrate === false) {
          throw new StoreUnavailable(
            `${location.description} has store schema version ${version}, this build needs ${SCHEMA_VERSION}: run regent store migrate`,
          );
        }
        const client = await pool.connect();
        try {
          await migrate(client, location.schema, location.description);
        } finally {
          client.release();
        }
      }
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw asUnavailable(error, `cannot open store ${location.description}`);
    }
    return new PostgresEventStore(location, pool, options);
  }

  async append(stream: string, events: readonly NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    this.assertOpen();
    assertStreamName(stream);
    assertExpectedRevision(options?.expectedRevision);
    assertNewEvents(events);
    const expected = options.expectedRevision;
    const data = events.map((event) => toJson(event.data, `event ${event.id}: data`));
    const metadata = events.map((event) => toJson(event.metadata, `event ${event.id}: metadata`));
    let row: { o_ok: boolean; o_head: string | null; o_last_position: string | null } | undefined;
    try {
      const result = await this.pool.query<{ o_ok: boolean; o_head: string | null; o_last_position: string | null }>(
        `SELECT o_ok, o_head, o_last_position FROM ${this.s}.append_events($1, $2, $3, $4, $5, $6, $7)`,
        [stream, String(expected), events.map((e) => e.id), events.map((e) => e.type), data, metadata, this.channel],
      );
      row = result.rows[0];
    } catch (error) {
      const constraint = (error as { constraint?: unknown }).constraint;
      if ((error as { code?: unknown }).code === '23505') {
        if (constraint === 'events_id_key') {
          throw new InvalidStoreRequest(`stream ${stream}: an event id of this append is already stored; nothing was written`, { cause: error });
        }
        // Unreachable while every writer goes through append_events (it holds the append lock); kept
        // so that a writer that bypassed it still gets the port's error, with the head as it is now.
        throw new WrongExpectedVersion(stream, expected, await this.streamHead(stream));
      }
      throw asUnavailable(error, `append to ${stream} in store ${this.description} failed (it may or may not have been written)`);
    }
    if (!row) throw new StoreUnavailable(`append to ${stream} in store ${this.description}: no answer`);
    const head = row.o_head === null ? undefined : Number(row.o_head);
    if (!row.o_ok) throw new WrongExpectedVersion(stream, expected, head);
    if (events.length > 0) this.changes.fire();
    return { nextExpectedRevision: head ?? NO_STREAM_REVISION, position: Number(row.o_last_position ?? 0) };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertStreamName(stream);
    assertReadStreamOptions(options);
    const backwards = options.direction === 'backwards';
    const sql = backwards
      ? `SELECT ${EVENT_COLUMNS} FROM ${this.s}.events e WHERE e.stream = $1 AND e.revision <= $2 ORDER BY e.revision DESC LIMIT $3`
      : `SELECT ${EVENT_COLUMNS} FROM ${this.s}.events e WHERE e.stream = $1 AND e.revision >= $2 ORDER BY e.revision LIMIT $3`;
    const from = options.fromRevision ?? (backwards ? Number.MAX_SAFE_INTEGER : 0);
    const rows = await this.query<EventRow>(sql, [stream, from, options.maxCount ?? null]);
    return rows.map(toRecordedEvent);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    assertReadAllOptions(options);
    const prefixes = options.filter?.streamPrefixes;
    if (prefixes?.length === 0) return [];
    const rows = await this.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${this.s}.events e WHERE e.position > $1 AND ${this.prefixClause('$3')} ORDER BY e.position LIMIT $2`,
      [options.after ?? 0, options.maxCount ?? null, prefixes ?? null],
    );
    return rows.map(toRecordedEvent);
  }

  subscribe(options: SubscribeOptions, handler: EventHandler): Subscription {
    this.assertOpen();
    assertAfter(options?.after);
    assertFilter(options?.filter);
    const subscription = new CatchUpSubscription(
      { readPage: (after, filter, limit) => this.readPageRetrying(after, filter, limit), changes: this.changes },
      options,
      handler,
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  async listStreams(filter?: StreamFilter): Promise<StreamInfo[]> {
    this.assertOpen();
    assertFilter(filter);
    const prefixes = filter?.streamPrefixes;
    if (prefixes?.length === 0) return [];
    const rows = await this.query<{ stream: string; head: string; last_position: string }>(
      `SELECT e.stream, e.head, e.last_position FROM ${this.s}.streams e WHERE ${this.prefixClause('$1')} ORDER BY e.stream`,
      [prefixes ?? null],
    );
    return rows.map((row) => ({ stream: row.stream, head: Number(row.head), lastPosition: Number(row.last_position) }));
  }

  async loadCheckpoint(name: string): Promise<number | undefined> {
    this.assertOpen();
    assertStreamName(name);
    const rows = await this.query<{ position: string }>(`SELECT position FROM ${this.s}.checkpoints WHERE name = $1`, [name]);
    return rows[0] === undefined ? undefined : Number(rows[0].position);
  }

  async saveCheckpoint(name: string, position: number): Promise<void> {
    this.assertOpen();
    assertStreamName(name);
    if (!Number.isSafeInteger(position) || position < 0) throw new InvalidStoreRequest(`checkpoint ${name}: position ${position} is not a non-negative integer`);
    await this.query(
      `INSERT INTO ${this.s}.checkpoints (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = now()`,
      [name, position],
    );
  }

  async lastPosition(): Promise<number> {
    this.assertOpen();
    const rows = await this.query<{ position: string | null }>(`SELECT max(position) AS position FROM ${this.s}.events`, []);
    return Number(rows[0]?.position ?? 0);
  }

  async streamHead(stream: string): Promise<number | undefined> {
    this.assertOpen();
    assertStreamName(stream);
    const rows = await this.query<{ head: string }>(`SELECT head FROM ${this.s}.streams WHERE stream = $1`, [stream]);
    return rows[0] === undefined ? undefined : Number(rows[0].head);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.subscriptions.closeAll();
    await this.listener.stop();
    await this.pool.end();
  }

  /** `e.stream` starts with one of the prefixes in parameter `param` (a text[]; NULL keeps every stream). */
  private prefixClause(param: string): string {
    return `(${param}::text[] IS NULL OR EXISTS (SELECT 1 FROM unnest(${param}::text[]) AS p(prefix) WHERE starts_with(e.stream, p.prefix)))`;
  }

  /**
   * One statement, so one snapshot: the page and the highest position it covers. Because appends
   * commit in position order (the append lock), a snapshot holds every position up to its maximum,
   * and a filtered subscription may skip to it for good.
   */
  private async readPage(after: number, filter: StreamFilter | undefined, limit: number): Promise<ReadPage> {
    const prefixes = filter?.streamPrefixes;
    const rows = await this.query<Partial<EventRow> & { high: string }>(
      `SELECT h.high, p.* FROM (SELECT coalesce(max(position), 0) AS high FROM ${this.s}.events) h
       LEFT JOIN LATERAL (
         SELECT ${EVENT_COLUMNS} FROM ${this.s}.events e
         WHERE e.position > $1 AND ${this.prefixClause('$3')} ORDER BY e.position LIMIT $2
       ) p ON true`,
      [after, prefixes?.length === 0 ? 0 : limit, prefixes ?? null],
    );
    const events = rows.filter((row) => row.position !== null && row.position !== undefined).map((row) => toRecordedEvent(row as EventRow));
    const high = Number(rows[0]?.high ?? after);
    const scannedTo = events.length >= limit ? (events.at(-1)?.position ?? after) : Math.max(after, high);
    return { events, scannedTo };
  }

  /**
   * A subscription outlives a dropped connection: reads that fail for connection reasons are retried
   * (the pool reconnects) until reconnectTimeoutMs has passed without one succeeding; then `done`
   * rejects with StoreUnavailable. The cursor is only advanced by delivered events, so a retried read
   * neither skips nor repeats anything.
   */
  private async readPageRetrying(after: number, filter: StreamFilter | undefined, limit: number): Promise<ReadPage> {
    const deadline = Date.now() + this.reconnectTimeoutMs;
    for (let attempt = 0; ; attempt += 1) {
      if (this.closed) return { events: [], scannedTo: after };
      try {
        return await this.readPage(after, filter, limit);
      } catch (error) {
        const unavailable = error instanceof StoreUnavailable && isConnectionError(error.cause);
        if (!unavailable || Date.now() >= deadline) throw error;
        await sleep(Math.min(50 * 2 ** attempt, 1_000));
      }
    }
  }

  private async query<R extends pg.QueryResultRow>(sql: string, params: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(sql, params)).rows;
    } catch (error) {
      if (this.closed) throw new StoreUnavailable(`store ${this.description} is closed`, { cause: error });
      throw asUnavailable(error, `store ${this.description} is unavailable`);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailable(`store ${this.description} is closed`);
  }
}

const clientConfig = (location: PostgresLocation, options: PostgresStoreOptions, role: string): pg.ClientConfig => ({
  connectionString: location.connectionString,
  application_name: `${options.applicationName ?? 'regent'}:${role}:${location.schema}`,
  keepAlive: true,
  connectionTimeoutMillis: 10_000,
  // The append's max(position) + 1 needs each statement to see the latest commits (READ COMMITTED),
  // whatever the database's default isolation is.
  options: '-c default_transaction_isolation=read\\ committed',
});

/** Typed store errors pass through; anything else becomes StoreUnavailable with `what` and the cause. */
const asUnavailable = (error: unknown, what: string): Error => {
  if (error instanceof StoreUnavailable || error instanceof InvalidStoreRequest || error instanceof WrongExpectedVersion) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreUnavailable(`${what}: ${message}`, { cause: error });
};

/** Opens the PostgreSQL store a `postgres://` URL names (creating or upgrading its schema unless `migrate: false`). */
export const openPostgresStore = (url: string, options: PostgresStoreOptions = {}): Promise<PostgresEventStore> =>
  PostgresEventStore.open(url, options);

/**
 * `regent store migrate`: creates or upgrades the schema the URL names; idempotent; refuses (with
 * StoreUnavailable, changing nothing) a newer schema or a foreign one. Returns the versions before and after.
 */
export const migratePostgresStore = async (url: string): Promise<{ from: number; to: number }> => {
  const location = parsePostgresUrl(url);
  const client = new pg.Client(clientConfig(location, {}, 'migrate'));
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await migrate(client, location.schema, location.description);
  } catch (error) {
    throw asUnavailable(error, `cannot migrate store ${location.description}`);
  } finally {
    await client.end().catch(() => undefined);
  }
};
