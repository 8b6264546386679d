/**
 * Opening the sqlite file: connection pragmas, identity check, migration. Every failure here becomes
 * one StoreUnavailable naming the file, because the operator's next step is about the file (path,
 * permissions, wrong database), not about SQLite internals.
 */
import Database from 'better-sqlite3';
import { StoreUnavailable } from '../errors.js';
import { assertRegentStore, migrate } from './schema.js';

/**
 * `normal` (default): in WAL mode a commit survives a crash of the process (SIGKILL, OOM) but the last
 * commits before an OS crash or power loss may be rolled back (never corrupted). `full`: every commit
 * is fsynced, so it also survives power loss, at roughly half the single-append throughput. Regent
 * runs an effect only after its event is appended: on machines that can lose power without the
 * process noticing, use `full`, or an effect could run whose deciding event is later lost.
 */
export type Synchronous = 'normal' | 'full';

export interface SqliteConnectionOptions {
  synchronous?: Synchronous;
  /** How long a write waits for another writer (any process) to release the lock. Default 5000 ms. */
  busyTimeoutMs?: number;
}

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

const describeCause = (error: unknown): string => {
  if (error instanceof Database.SqliteError) {
    if (error.code === 'SQLITE_NOTADB') return 'the file is not an SQLite database';
    if (error.code === 'SQLITE_CANTOPEN') return 'the file cannot be opened (missing directory, a directory, or no permission)';
    if (error.code === 'SQLITE_BUSY') return 'another process holds the database lock';
    if (error.code === 'SQLITE_READONLY') return 'the file is read-only';
    return `${error.code}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
};

export const openDatabase = (path: string, options: SqliteConnectionOptions = {}): Database.Database => {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { timeout: options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS });
    // Identity first: switching a foreign database to WAL would already modify it.
    assertRegentStore(db, path);
    const mode = String(db.pragma('journal_mode = WAL', { simple: true }));
    if (mode !== 'wal') throw new StoreUnavailable(`cannot open store ${path}: WAL journal mode refused (got ${mode})`);
    db.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    migrate(db, path);
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof StoreUnavailable) throw error;
    throw new StoreUnavailable(`cannot open store ${path}: ${describeCause(error)}`, { cause: error });
  }
};
