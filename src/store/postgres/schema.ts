/**
 * The PostgreSQL schema and its forward migrations (`regent store migrate`).
 *
 * The store says what it is in its own table, `regent_store` (one row: application `regent`, schema
 * version). Opening reads it before touching anything, so that pointing Regent at another
 * application's tables, or at a schema written by a newer Regent, fails loudly instead of adding
 * tables to it or misreading it — exactly as the sqlite adapter refuses a foreign or newer file.
 */
import type pg from 'pg';
import { StoreUnavailable } from '../errors.js';
import { quoteIdent } from './url.js';

export const APPLICATION = 'regent';

/** First key of every advisory lock the store takes ('RGNT'); the second is hashtext(schema). */
const LOCK_APPEND = 0x52474e54;
const LOCK_MIGRATE = 0x52474e55;

const literal = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * MIGRATIONS[n] takes the schema from version n to n + 1, given the schema name. Append only: a
 * released step never changes, because databases in the field were migrated by it.
 */
const MIGRATIONS: readonly ((schema: string) => string)[] = [
  (schema) => {
    const s = quoteIdent(schema);
    return `
    -- position: the global order, assigned by append_events under the append lock (max + 1), so
    -- commit order = position order and every snapshot holds a prefix of the log.
    -- data/metadata: json (not jsonb) keeps the exact text JSON.stringify wrote: jsonb would refuse
    -- \\u0000 and lone-surrogate escapes that the store contract must round-trip.
    -- COLLATE "C": byte order of UTF-8 = Unicode code-point order, as listStreams promises.
    CREATE TABLE ${s}.events (
      position    bigint      NOT NULL,
      stream      text        COLLATE "C" NOT NULL,
      revision    bigint      NOT NULL,
      id          text        COLLATE "C" NOT NULL,
      type        text        NOT NULL,
      data        json        NOT NULL,
      metadata    json        NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT events_pkey PRIMARY KEY (position),
      CONSTRAINT events_stream_revision_key UNIQUE (stream, revision), -- the backstop behind the head check
      CONSTRAINT events_id_key UNIQUE (id),
      CONSTRAINT events_position_check CHECK (position > 0),
      CONSTRAINT events_revision_check CHECK (revision >= 0)
    );

    -- One row per stream: the head append_events compares with the expected revision.
    CREATE TABLE ${s}.streams (
      stream        text   COLLATE "C" PRIMARY KEY,
      head          bigint NOT NULL,
      last_position bigint NOT NULL
    );

    -- One append = one call = one transaction. The transaction-level advisory lock serialises every
    -- append to this schema, so the head check cannot race and positions commit in order; it is
    -- released after the commit is visible. Returns (ok, head, last_position): on a failed
    -- expectation ok is false and head is the actual head (NULL: no stream), and nothing is written.
    CREATE FUNCTION ${s}.append_events(
      p_stream text, p_expected text, p_ids text[], p_types text[], p_data text[], p_metadata text[], p_channel text
    ) RETURNS TABLE (o_ok boolean, o_head bigint, o_last_position bigint)
    LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      v_head bigint;
      v_last bigint;
      v_position bigint;
      v_count integer := coalesce(cardinality(p_ids), 0);
    BEGIN
      PERFORM pg_advisory_xact_lock(${LOCK_APPEND}, hashtext(${literal(schema)}));
      SELECT st.head, st.last_position INTO v_head, v_last FROM ${s}.streams st WHERE st.stream = p_stream;
      IF (p_expected = 'no_stream' AND v_head IS NOT NULL)
         OR (p_expected NOT IN ('any', 'no_stream') AND v_head IS DISTINCT FROM p_expected::bigint) THEN
        RETURN QUERY SELECT false, v_head, v_last;
        RETURN;
      END IF;
      IF v_count = 0 THEN
        RETURN QUERY SELECT true, coalesce(v_head, -1), coalesce(v_last, 0);
        RETURN;
      END IF;
      SELECT coalesce(max(e.position), 0) INTO v_position FROM ${s}.events e;
      INSERT INTO ${s}.events (position, stream, revision, id, type, data, metadata)
        SELECT v_position + u.n, p_stream, coalesce(v_head, -1) + u.n, u.id, u.type, u.data::json, u.metadata::json
        FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS u(id, type, data, metadata, n);
      INSERT INTO ${s}.streams AS st (stream, head, last_position)
        VALUES (p_stream, coalesce(v_head, -1) + v_count, v_position + v_count)
        ON CONFLICT (stream) DO UPDATE SET head = excluded.head, last_position = excluded.last_position;
      -- Delivered at commit, to every LISTEN on the channel: the subscriptions' wake-up.
      PERFORM pg_notify(p_channel, (v_position + v_count)::text);
      RETURN QUERY SELECT true, coalesce(v_head, -1) + v_count, v_position + v_count;
    END
    $fn$;
    `;
  },
  (schema) => `
    -- Named reader positions (the status runner's checkpoint): what the next leader resumes from.
    CREATE TABLE ${quoteIdent(schema)}.checkpoints (
      name       text        COLLATE "C" PRIMARY KEY,
      position   bigint      NOT NULL CHECK (position >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export interface Header {
  /** The version the schema records, or 0 when the store has not been created there yet. */
  version: number;
}

/**
 * Reads what the schema holds. Throws StoreUnavailable when it holds another application's store, a
 * newer schema, or tables named like the store's without the marker (some other application's).
 */
export const readHeader = async (client: pg.ClientBase | pg.Pool, schema: string, where: string): Promise<Header> => {
  const s = quoteIdent(schema);
  const probe = await client.query<{ marker: string | null; events: string | null; streams: string | null; encoding: string }>(
    `SELECT to_regclass($1) AS marker, to_regclass($2) AS events, to_regclass($3) AS streams, current_setting('server_encoding') AS encoding`,
    [`${s}.regent_store`, `${s}.events`, `${s}.streams`],
  );
  const row = probe.rows[0];
  if (!row) throw new StoreUnavailable(`${where}: no answer to the schema probe`);
  if (row.encoding !== 'UTF8') {
    throw new StoreUnavailable(`${where}: the database's encoding is ${row.encoding}; a Regent store needs UTF8 (createdb -E UTF8)`);
  }
  if (row.marker === null) {
    if (row.events !== null || row.streams !== null) {
      throw new StoreUnavailable(`${where}: schema ${schema} has tables named events/streams but is not a Regent store; use ?schema=<another>`);
    }
    return { version: 0 };
  }
  const marker = await client.query<{ application: string; version: number }>(`SELECT application, version FROM ${s}.regent_store`);
  const record = marker.rows[0];
  if (!record || record.application !== APPLICATION) {
    throw new StoreUnavailable(`${where}: schema ${schema} is not a Regent store (application ${JSON.stringify(record?.application ?? null)})`);
  }
  if (record.version > SCHEMA_VERSION) {
    throw new StoreUnavailable(
      `${where} has store schema version ${record.version}, newer than this build supports (${SCHEMA_VERSION}); upgrade Regent`,
    );
  }
  return { version: record.version };
};

/**
 * Brings the schema up to SCHEMA_VERSION in one transaction, under an advisory lock, re-reading the
 * header inside it: several processes may migrate the same fresh database at once, and the later
 * ones find the work done and do nothing. Returns the version found and the version left.
 */
export const migrate = async (client: pg.ClientBase, schema: string, where: string): Promise<{ from: number; to: number }> => {
  const s = quoteIdent(schema);
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${LOCK_MIGRATE}, hashtext($1))`, [schema]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    const { version } = await readHeader(client, schema, where);
    if (version === 0) {
      await client.query(`
        CREATE TABLE ${s}.regent_store (
          singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
          application text    NOT NULL,
          version     integer NOT NULL
        );
        INSERT INTO ${s}.regent_store (application, version) VALUES ('${APPLICATION}', 0);
      `);
    }
    for (let step = version; step < SCHEMA_VERSION; step += 1) {
      await client.query(MIGRATIONS[step]?.(schema) ?? '');
      await client.query(`UPDATE ${s}.regent_store SET version = $1`, [step + 1]);
    }
    await client.query('COMMIT');
    return { from: version, to: SCHEMA_VERSION };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
};
