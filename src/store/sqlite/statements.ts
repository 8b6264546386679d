/**
 * Every statement the adapter runs, prepared once per connection. Preparing is the dominant per-call
 * cost of better-sqlite3 after the I/O itself, so nothing on a hot path prepares.
 *
 * Prefix filters become `substr(stream, 1, length(@pN)) = @pN` clauses: exact, code-point based and
 * free of LIKE/GLOB escaping (a prefix may contain `%`, `_` or `*`). The statement for k prefixes is
 * prepared on first use and cached.
 */
import type Database from 'better-sqlite3';
import type { EventRow, HeadRow, StreamRow } from './rows.js';

const EVENT_COLUMNS = 'position, id, stream, revision, type, data, metadata';

type Params = Record<string, string | number>;

const prefixClause = (count: number): string =>
  Array.from({ length: count }, (_, i) => `substr(stream, 1, length(@p${i})) = @p${i}`).join(' OR ');

export const prefixParams = (prefixes: readonly string[]): Params =>
  Object.fromEntries(prefixes.map((prefix, i) => [`p${i}`, prefix]));

export class Statements {
  readonly head: Database.Statement<[string], HeadRow>;
  readonly insert: Database.Statement<[string, string, number, string, string, string]>;
  readonly upsertHead: Database.Statement<[string, number, number]>;
  readonly idExists: Database.Statement<[string], number>;
  readonly maxRevision: Database.Statement<[string], number | null>;
  readonly maxPosition: Database.Statement<[], number>;
  readonly readForwards: Database.Statement<[string, number, number], EventRow>;
  readonly readBackwards: Database.Statement<[string, number, number], EventRow>;
  readonly readAll: Database.Statement<[number, number], EventRow>;
  readonly listStreams: Database.Statement<[], StreamRow>;
  readonly dataVersion: Database.Statement<[], number>;
  private readonly filteredReadAll = new Map<number, Database.Statement<[Params], EventRow>>();
  private readonly filteredListStreams = new Map<number, Database.Statement<[Params], StreamRow>>();

  constructor(private readonly db: Database.Database) {
    this.head = db.prepare('SELECT head, last_position AS lastPosition FROM streams WHERE stream = ?');
    this.insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
    this.upsertHead = db.prepare(
      'INSERT INTO streams (stream, head, last_position) VALUES (?, ?, ?) ' +
        'ON CONFLICT (stream) DO UPDATE SET head = excluded.head, last_position = excluded.last_position',
    );
    this.idExists = db.prepare<[string], number>('SELECT 1 FROM events WHERE id = ?').pluck();
    this.maxRevision = db.prepare<[string], number | null>('SELECT max(revision) FROM events WHERE stream = ?').pluck();
    this.maxPosition = db.prepare<[], number>('SELECT coalesce(max(position), 0) FROM events').pluck();
    this.readForwards = db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?`,
    );
    this.readBackwards = db.prepare(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE stream = ? AND revision <= ? ORDER BY revision DESC LIMIT ?`,
    );
    this.readAll = db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`);
    this.listStreams = db.prepare('SELECT stream, head, last_position AS lastPosition FROM streams ORDER BY stream');
    // Changes when another connection (this process or another) commits: the cross-process wake-up.
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** Bind with `{ after, limit, ...prefixParams(prefixes) }`. */
  readAllWithPrefixes(count: number): Database.Statement<[Params], EventRow> {
    let statement = this.filteredReadAll.get(count);
    if (!statement) {
      statement = this.db.prepare<[Params], EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events WHERE position > @after AND (${prefixClause(count)}) ORDER BY position LIMIT @limit`,
      );
      this.filteredReadAll.set(count, statement);
    }
    return statement;
  }

  /** Bind with `prefixParams(prefixes)`. */
  listStreamsWithPrefixes(count: number): Database.Statement<[Params], StreamRow> {
    let statement = this.filteredListStreams.get(count);
    if (!statement) {
      statement = this.db.prepare<[Params], StreamRow>(
        `SELECT stream, head, last_position AS lastPosition FROM streams WHERE ${prefixClause(count)} ORDER BY stream`,
      );
      this.filteredListStreams.set(count, statement);
    }
    return statement;
  }
}
