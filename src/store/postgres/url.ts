/**
 * PostgreSQL store URLs: `postgres://user:pass@host:port/db[?schema=<name>]` (or `postgresql://`).
 * `schema` selects the PostgreSQL schema that holds the store's tables (default `public`); every
 * other query parameter (sslmode, …) is handed to `pg` unchanged.
 */
import { InvalidStoreUrl } from '../errors.js';

export const POSTGRES_URL_FORM = 'postgres://user:password@host:port/database[?schema=<name>]';

export interface PostgresLocation {
  /** What `pg` connects with: the URL without `schema`. */
  connectionString: string;
  /** The PostgreSQL schema holding the tables. */
  schema: string;
  /** For logs and errors: the URL with the password replaced by `***`. */
  description: string;
}

/**
 * Schema names are plain identifiers, so they can be quoted into SQL and used in a LISTEN channel
 * name (63 bytes at most) without surprises.
 */
const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,54}$/;

export const isPostgresUrl = (url: string): boolean => url.startsWith('postgres://') || url.startsWith('postgresql://');

/** Parses a PostgreSQL store URL; throws InvalidStoreUrl (naming the URL without its password) when it is not one. */
export const parsePostgresUrl = (url: string): PostgresLocation => {
  let parsed: URL;
  try {
    if (!isPostgresUrl(url)) throw new Error('not a postgres URL');
    parsed = new URL(url);
  } catch {
    throw new InvalidStoreUrl(`unsupported store URL ${JSON.stringify(redact(url))}: expected ${POSTGRES_URL_FORM}`);
  }
  const schema = parsed.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) {
    throw new InvalidStoreUrl(
      `store URL ${JSON.stringify(redact(url))}: schema ${JSON.stringify(schema)} must be an identifier of letters, digits and _ (at most 55)`,
    );
  }
  if (parsed.hostname === '' || parsed.pathname.length <= 1) {
    throw new InvalidStoreUrl(`store URL ${JSON.stringify(redact(url))} needs a host and a database: expected ${POSTGRES_URL_FORM}`);
  }
  parsed.searchParams.delete('schema');
  const description = new URL(parsed.href);
  if (description.password) description.password = '***';
  if (schema !== 'public') description.searchParams.set('schema', schema);
  return { connectionString: parsed.href, schema, description: description.href };
};

/** The URL with any password masked, for messages about a URL that did not parse. */
const redact = (url: string): string => url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/, '$1***@');

/** `"name"`: an identifier quoted for SQL. */
export const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;
