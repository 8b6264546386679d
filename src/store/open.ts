/**
 * Store URLs, as given on the command line or in configuration:
 *
 *   sqlite:<path>[?synchronous=full]   one file (created with its parent directories if missing)
 *   memory:                            in-process, gone when the process exits
 *   postgres://user:pw@host:port/db[?schema=<name>]   PostgreSQL (src/store/postgres/); `regent store migrate` creates/upgrades its schema
 *   esdb://host:port[?tls=false]       EventStoreDB through @eventstore/db-client (src/store/eventstoredb/)
 *
 * The default is `sqlite:./data/regent.db`, relative to the working directory.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidStoreUrl, StoreUnavailable } from './errors.js';
import { MemoryEventStore } from './memory.js';
import type { EventStore } from './port.js';
import type { Synchronous } from './sqlite/connection.js';
import { SqliteEventStore, type SqliteStoreOptions } from './sqlite/store.js';

export const DEFAULT_STORE_URL = 'sqlite:./data/regent.db';

export type StoreLocation =
  | { kind: 'memory' }
  | { kind: 'sqlite'; path: string; synchronous: Synchronous }
  | { kind: 'postgres'; url: string }
  | { kind: 'eventstoredb'; url: string };

const SYNCHRONOUS_VALUES: readonly Synchronous[] = ['normal', 'full'];

/** The accepted forms, as every refusal of a URL names them. */
export const STORE_URL_FORMS = 'sqlite:<path>[?synchronous=normal|full], postgres://user:password@host:port/database[?schema=<name>], esdb://host:port[?tls=false] or memory:';

/** Parses a store URL; throws InvalidStoreUrl naming the URL when it is not one of the forms above. */
export const parseStoreUrl = (url: string): StoreLocation => {
  if (url === 'memory:') return { kind: 'memory' };
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return { kind: 'postgres', url };
  if (url.startsWith('esdb://') || url.startsWith('esdb+discover://')) return { kind: 'eventstoredb', url };
  if (!url.startsWith('sqlite:')) {
    throw new InvalidStoreUrl(`unsupported store URL ${JSON.stringify(url)}: expected ${STORE_URL_FORMS}`);
  }
  const rest = url.slice('sqlite:'.length);
  const query = rest.indexOf('?');
  const path = query === -1 ? rest : rest.slice(0, query);
  if (path.length === 0 || path === ':memory:') {
    throw new InvalidStoreUrl(`store URL ${JSON.stringify(url)} needs a file path: expected ${STORE_URL_FORMS}`);
  }
  let synchronous: Synchronous = 'normal';
  if (query !== -1) {
    for (const [key, value] of new URLSearchParams(rest.slice(query + 1))) {
      const known = SYNCHRONOUS_VALUES.find((candidate) => candidate === value.toLowerCase());
      if (key !== 'synchronous' || !known) {
        throw new InvalidStoreUrl(`store URL ${JSON.stringify(url)}: unsupported option ${key}=${value}: expected ${STORE_URL_FORMS}`);
      }
      synchronous = known;
    }
  }
  return { kind: 'sqlite', path, synchronous };
};

export type OpenStoreOptions = Omit<SqliteStoreOptions, 'synchronous'>;

/** Opens the store a URL names. Every failure to open is a StoreUnavailable with one clear message. */
export const openStore = async (url: string = DEFAULT_STORE_URL, options: OpenStoreOptions = {}): Promise<EventStore> => {
  const location = parseStoreUrl(url);
  if (location.kind === 'memory') return new MemoryEventStore();
  // loaded only when named, so a sqlite user never loads pg or the gRPC client
  if (location.kind === 'postgres') return (await import('./postgres/store.js')).openPostgresStore(location.url);
  if (location.kind === 'eventstoredb') return (await import('./eventstoredb/store.js')).openEventStoreDbStore(location.url);
  const path = resolve(location.path);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (error) {
    throw new StoreUnavailable(`cannot open store ${path}: cannot create its directory (${(error as NodeJS.ErrnoException).code ?? 'error'})`, {
      cause: error,
    });
  }
  return new SqliteEventStore(path, { ...options, synchronous: location.synchronous });
};
