import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/store/sqlite/store.js';
import { storeConformance } from './conformance.js';

const root = mkdtempSync(join(tmpdir(), 'regent-store-sqlite-'));
let counter = 0;
const freshPath = (): string => join(root, `store-${(counter += 1)}.db`);
const pathOf = (url: string): string => url.slice('sqlite:'.length);

/** Probes the write lock without waiting: BEGIN IMMEDIATE fails with SQLITE_BUSY while another connection holds it. */
const isWriteLocked = (url: string): boolean => {
  const probe = new Database(pathOf(url), { timeout: 0 });
  try {
    probe.exec('BEGIN IMMEDIATE');
    probe.exec('ROLLBACK');
    return false;
  } catch (error) {
    if (error instanceof Database.SqliteError && error.code === 'SQLITE_BUSY') return true;
    throw error;
  } finally {
    probe.close();
  }
};

after(() => rmSync(root, { recursive: true, force: true }));

storeConformance('sqlite', async () => new SqliteEventStore(freshPath()), {
  shared: {
    freshUrl: () => `sqlite:${freshPath()}`,
    open: async (url) => new SqliteEventStore(pathOf(url)),
    isWriteLocked,
  },
});
