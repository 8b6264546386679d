/**
 * The sqlite schema and its forward migrations.
 *
 * The file says what it is in its header: `application_id` marks a Regent store and `user_version` is
 * the schema version. Opening checks both before touching anything, so that pointing Regent at some
 * other database (or at a file written by a newer Regent) fails loudly instead of adding tables to it
 * or misreading it.
 */
import type Database from 'better-sqlite3';
import { StoreUnavailable } from '../errors.js';

/** 'RGNT' in ASCII. */
export const APPLICATION_ID = 0x52474e54;

/**
 * MIGRATIONS[n] takes the schema from version n to n + 1. Append only: a released step never changes,
 * because files in the field were migrated by it.
 */
const MIGRATIONS: readonly string[] = [
  `
  -- position: the global order. AUTOINCREMENT so a position is never reused, even after a rollback
  -- of the last rows; assigned under SQLite's single write lock, so commit order = position order.
  CREATE TABLE events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    id       TEXT    NOT NULL UNIQUE,
    stream   TEXT    NOT NULL,
    revision INTEGER NOT NULL,
    type     TEXT    NOT NULL,
    data     TEXT    NOT NULL, -- JSON
    metadata TEXT    NOT NULL, -- JSON
    UNIQUE (stream, revision)  -- the backstop behind the head check in append
  ) STRICT;

  -- One row per stream: the head the append transaction compares with the expected revision.
  CREATE TABLE streams (
    stream        TEXT    PRIMARY KEY,
    head          INTEGER NOT NULL,
    last_position INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

interface Header {
  applicationId: number;
  userVersion: number;
  tables: number;
}

/**
 * The three reads run in one read transaction, so they see one snapshot. Read one by one, a process
 * opening a fresh file while another migrates it could see application_id 0 from before that commit
 * and the tables from after it, and refuse its own store as a foreign database.
 */
export const readHeader = (db: Database.Database): Header =>
  db.transaction(() => ({
    applicationId: Number(db.pragma('application_id', { simple: true })),
    userVersion: Number(db.pragma('user_version', { simple: true })),
    tables: Number(db.prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().get()),
  }))();

/** Throws StoreUnavailable unless the file is empty or a Regent store this build can read. */
export const assertRegentStore = (db: Database.Database, location: string): Header => {
  const header = readHeader(db);
  const empty = header.applicationId === 0 && header.userVersion === 0 && header.tables === 0;
  if (!empty && header.applicationId !== APPLICATION_ID) {
    throw new StoreUnavailable(`${location} is an SQLite database but not a Regent store (application_id ${header.applicationId})`);
  }
  if (header.userVersion > SCHEMA_VERSION) {
    throw new StoreUnavailable(
      `${location} has store schema version ${header.userVersion}, newer than this build supports (${SCHEMA_VERSION}); upgrade Regent`,
    );
  }
  return header;
};

/**
 * Brings the schema up to SCHEMA_VERSION. Runs in an IMMEDIATE transaction and re-reads the header
 * inside it, because two processes may open the same fresh file at once: the second one finds the
 * work done and does nothing.
 */
export const migrate = (db: Database.Database, location: string): void => {
  if (assertRegentStore(db, location).userVersion === SCHEMA_VERSION) return;
  db.transaction(() => {
    const { userVersion } = assertRegentStore(db, location);
    for (let version = userVersion; version < SCHEMA_VERSION; version += 1) {
      db.exec(MIGRATIONS[version] ?? '');
      db.pragma(`user_version = ${version + 1}`);
    }
    db.pragma(`application_id = ${APPLICATION_ID}`);
  }).immediate();
};
