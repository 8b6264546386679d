/**
 * Where the audit views keep what they folded, so a restarted server's first view of a long stream
 * reads at most one checkpoint interval of events instead of the whole stream (issue 18, "Fast first
 * view"). A shelf holds opaque text under a key; it is a cache of the store, never a source of truth:
 * anything missing, torn, written by another format or machine fingerprint, or not matching the
 * store's event at its revision is ignored and folded again (checkpoint.ts checks).
 *
 * Kept beside an sqlite store (a directory `<file>.audit-checkpoints/`, one file per key, written then
 * renamed so a crash never leaves a torn one), else in memory for the life of the process.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStoreUrl } from '../../store/open.js';

export interface CheckpointShelf {
  /** Where it is kept, for logs and the README. */
  readonly description: string;
  read(key: string): Promise<string | undefined>;
  write(key: string, text: string): Promise<void>;
}

export const memoryShelf = (): CheckpointShelf => {
  const shelf = new Map<string, string>();
  return {
    description: 'memory',
    read: async (key) => shelf.get(key),
    write: async (key, text) => void shelf.set(key, text),
  };
};

/** One file per key (its sha-256), written then renamed. */
export const directoryShelf = (dir: string): CheckpointShelf => {
  const file = (key: string) => join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`);
  return {
    description: `directory ${dir}`,
    read: async (key) => {
      try {
        return readFileSync(file(key), 'utf8');
      } catch {
        return undefined; // missing or unreadable: fold again
      }
    },
    write: async (key, text) => {
      mkdirSync(dir, { recursive: true });
      const path = file(key);
      const temp = `${path}.${process.pid}.tmp`;
      writeFileSync(temp, text);
      renameSync(temp, path);
    },
  };
};

/** The shelf for a store URL: beside an sqlite file, else in memory. */
export const shelfForStoreUrl = (url: string): CheckpointShelf => {
  try {
    const location = parseStoreUrl(url);
    return location.kind === 'sqlite' ? directoryShelf(`${location.path}.audit-checkpoints`) : memoryShelf();
  } catch {
    return memoryShelf();
  }
};
