/**
 * Opening the store a user named, for code that only reads it (the audit commands and pages, `regent
 * history`, `regent migrate`, replay): the `--store` option, else `REGENT_STORE`, else the default
 * sqlite file; a missing sqlite file is a UsageError, never a new, empty store. Shared by src/cli and
 * src/audit (which must not import the CLI).
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../errors/usage.js';
import { DEFAULT_STORE_URL, openStore, parseStoreUrl } from './open.js';
import type { EventStore } from './port.js';

/** Which store: the `--store <url>` option (undefined: REGENT_STORE, else the default). */
export interface StoreSelection {
  store?: string;
}

export const storeUrlOf = (options: StoreSelection): string => options.store ?? process.env.REGENT_STORE ?? DEFAULT_STORE_URL;

/** Opens the store; for commands that only read, a missing sqlite file is an error, not a new store. */
export const openExistingStore = async (options: StoreSelection): Promise<EventStore> => {
  const url = storeUrlOf(options);
  const location = parseStoreUrl(url);
  if (location.kind === 'sqlite' && !existsSync(location.path)) {
    throw new UsageError(`no store at ${location.path} (start Regent first with \`npm start\`, or pass --store sqlite:<path>)`);
  }
  return openStore(url);
};
