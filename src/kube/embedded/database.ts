/**
 * The embedded store's SQLite file: one file, WAL, opened by any number of processes at once.
 *
 * objects   the current state, one row per (kind, namespace, name), the whole object as JSON
 * changes   the change log watchers poll: one row per write, keyed by the global resourceVersion;
 *           bounded, so a watcher that falls further behind than the bound gets 410 Gone
 * meta      the global resourceVersion counter, the compaction mark, the schema version, the
 *           secret version counter
 * events    recorded events, deduplicated by (object, type, reason, message), bounded
 * leases    leader-election leases
 * secrets   the secret store (src/kube/secrets.ts): one row per (namespace, name), data as JSON
 *           (schema 2)
 *
 * The file holds credentials (schema 2 on), so Regent creates it readable by its owner only (0600);
 * SQLite gives the -wal and -shm files it creates next to it the database file's mode.
 */
import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { SourceUnavailable } from '../errors.js';

const APPLICATION = 'regent-resources';

/**
 * STEPS[n] takes the schema from version n to n + 1, inside the opening BEGIN IMMEDIATE transaction
 * (two processes opening one old file: the second finds the work done). Append only: a released
 * step never changes, because files in the field were upgraded by it.
 */
const STEPS: readonly string[] = [
  // 1: objects, the change log, events, leases (`meta` exists before any step runs).
  `
CREATE TABLE IF NOT EXISTS objects (
  kind TEXT NOT NULL, namespace TEXT NOT NULL, name TEXT NOT NULL,
  uid TEXT NOT NULL UNIQUE, resource_version INTEGER NOT NULL, body TEXT NOT NULL,
  PRIMARY KEY (kind, namespace, name));
CREATE TABLE IF NOT EXISTS changes (
  resource_version INTEGER PRIMARY KEY, kind TEXT NOT NULL, namespace TEXT NOT NULL,
  type TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS changes_by_kind ON changes (kind, resource_version);
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, namespace TEXT NOT NULL, involved_kind TEXT NOT NULL,
  involved_name TEXT NOT NULL, involved_uid TEXT NOT NULL, type TEXT NOT NULL, reason TEXT NOT NULL,
  message TEXT NOT NULL, count INTEGER NOT NULL, first_timestamp TEXT NOT NULL, last_timestamp TEXT NOT NULL,
  component TEXT NOT NULL, body TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS events_dedup ON events (involved_uid, type, reason, message);
CREATE TABLE IF NOT EXISTS leases (
  namespace TEXT NOT NULL, name TEXT NOT NULL, holder_identity TEXT, lease_duration_ms INTEGER NOT NULL,
  acquire_time TEXT, renew_time TEXT, lease_transitions INTEGER NOT NULL, version INTEGER NOT NULL,
  PRIMARY KEY (namespace, name));
INSERT OR IGNORE INTO meta (key, value) VALUES ('resource_version', '0'), ('compacted_through', '0');
`,
  // 2: the secret store. `keys` repeats data's keys so that list never reads a value; versions come
  // from their own counter (secrets are not objects: no change log entry, no watch).
  `
CREATE TABLE IF NOT EXISTS secrets (
  namespace TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,
  data TEXT NOT NULL, keys TEXT NOT NULL, labels TEXT NOT NULL, created_at TEXT NOT NULL,
  PRIMARY KEY (namespace, name));
INSERT OR IGNORE INTO meta (key, value) VALUES ('secret_version', '0');
`,
];

export const SCHEMA_VERSION = STEPS.length;

/**
 * Creates the file, readable and writable by its owner only, when it does not exist yet. SQLite
 * would create it with 0644 (less the umask); it then creates -wal and -shm with the main file's
 * mode, so all three stay private. A file that exists keeps its mode (see src/kube/README.md).
 */
const createPrivately = (path: string): void => {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
};

export interface DatabaseOptions {
  /** How long a writer waits for another process's write lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

export const openDatabase = (path: string, options: DatabaseOptions = {}): Database.Database => {
  let db: Database.Database;
  try {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true });
      createPrivately(path);
    }
    db = new Database(path);
  } catch (error) {
    throw new SourceUnavailable(`cannot open resource store ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // A deleted or replaced secret's bytes are overwritten in the database file, not left in free
    // pages (the WAL's old frames are a caveat: src/kube/README.md).
    db.pragma('secure_delete = ON');
    db.transaction(() => {
      const tables = db.prepare<[], { name: string }>(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all().map((t) => t.name);
      if (tables.length > 0 && !tables.includes('meta')) throw new Error('not a Regent resource store (it has tables but no meta table)');
      db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
      const application = db.prepare<[], { value: string }>(`SELECT value FROM meta WHERE key = 'application'`).get();
      if (application !== undefined && application.value !== APPLICATION) throw new Error(`not a Regent resource store (application ${application.value})`);
      const stored = db.prepare<[], { value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).get();
      const version = stored === undefined ? 0 : Number(stored.value);
      if (version > SCHEMA_VERSION) throw new Error(`written by a newer Regent (schema ${version} > ${SCHEMA_VERSION})`);
      for (let step = version; step < SCHEMA_VERSION; step += 1) db.exec(STEPS[step]!);
      db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES ('application', ?)`).run(APPLICATION);
      db.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(String(SCHEMA_VERSION));
    }).immediate();
  } catch (error) {
    db.close();
    throw new SourceUnavailable(`cannot open resource store ${path}: ${(error as Error).message}`, { cause: error });
  }
  return db;
};

/** True for SQLite's "another connection holds the write lock past busy_timeout". */
export const isBusy = (error: unknown): boolean => error instanceof Error && 'code' in error && String((error as { code: unknown }).code).startsWith('SQLITE_BUSY');
