/**
 * The embedded store's SQLite file: one file, WAL, opened by any number of processes at once.
 *
 * objects   the current state, one row per (kind, namespace, name), the whole object as JSON
 * changes   the change log watchers poll: one row per write, keyed by the global resourceVersion;
 *           bounded, so a watcher that falls further behind than the bound gets 410 Gone
 * meta      the global resourceVersion counter, the compaction mark, the schema version
 * events    recorded events, deduplicated by (object, type, reason, message), bounded
 * leases    leader-election leases
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SourceUnavailable } from '../errors.js';

export const SCHEMA_VERSION = 1;
const APPLICATION = 'regent-resources';

const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
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
`;

export interface DatabaseOptions {
  /** How long a writer waits for another process's write lock before failing. Default 5000 ms. */
  readonly busyTimeoutMs?: number;
}

export const openDatabase = (path: string, options: DatabaseOptions = {}): Database.Database => {
  let db: Database.Database;
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
  } catch (error) {
    throw new SourceUnavailable(`cannot open resource store ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.transaction(() => {
      db.exec(DDL);
      const application = db.prepare<[], { value: string }>(`SELECT value FROM meta WHERE key = 'application'`).get();
      if (application !== undefined && application.value !== APPLICATION) throw new Error(`not a Regent resource store (application ${application.value})`);
      const version = db.prepare<[], { value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`).get();
      if (version !== undefined && Number(version.value) > SCHEMA_VERSION) throw new Error(`written by a newer Regent (schema ${version.value} > ${SCHEMA_VERSION})`);
      const insert = db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)`);
      insert.run('application', APPLICATION);
      insert.run('schema_version', String(SCHEMA_VERSION));
      insert.run('resource_version', '0');
      insert.run('compacted_through', '0');
    }).immediate();
  } catch (error) {
    db.close();
    throw new SourceUnavailable(`cannot open resource store ${path}: ${(error as Error).message}`, { cause: error });
  }
  return db;
};
