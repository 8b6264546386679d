/**
 * The plain-SQL adapter of the DatabaseProvisioner port (port.ts): a block plan applied to a MariaDB server with
 * mysql2, as the embedded default does and as CI does against the sandbox's MariaDB.
 *
 * Every step reads first and writes only what differs, so a pass over a converged server issues no DDL (on
 * Galera each DDL statement is a cluster-wide total-order operation, and the Database step runs on every pass):
 * - Database: absent from information_schema.SCHEMATA → CREATE DATABASE IF NOT EXISTS … CHARACTER SET utf8mb3
 *   COLLATE utf8mb3_general_ci. That is what nova's tables declare (mysql_charset='utf8') and what
 *   MariaDB 10.11 stores for `utf8` under its default old_mode UTF8_IS_UTF8MB3; spelled out so a server whose
 *   old_mode maps `utf8` to utf8mb4 does not give the schema another default. An existing schema is never altered.
 * - User: absent from mysql.user → CREATE USER IF NOT EXISTS 'u'@'%' IDENTIFIED BY … WITH MAX_USER_CONNECTIONS n;
 *   present with another password or another limit → ALTER USER with both, so a rotated password and a resized
 *   topology converge. The password is compared as mysql_native_password's hash, computed here, so the
 *   comparison sends nothing; a user under another plugin, or a mysql.user the admin cannot read, is altered.
 * - Grant: missing from SHOW GRANTS → GRANT ALL PRIVILEGES ON `db`.* TO 'u'@'%'. The `_` of the schema name is
 *   escaped (`nova\_api`): in a database-level GRANT `_` and `%` are wildcards, and an unescaped grant on
 *   nova_api would also grant novaXapi.
 *
 * Identifiers are interpolated only after the plan's checks (re-checked here: ProvisioningError); values are
 * escaped by mysql2, never concatenated. The password never reaches a log, an error or the statement hook.
 * One pool of one connection per server (address and admin user): passes against one server run one after the
 * other; `close()` ends them.
 *
 * TLS (spec.database.<block>.tls, plan.tls): over TCP the connection is TLS with the block's CA bundle and, when
 * given, its client certificate, so a server with require_secure_transport (and users that REQUIRE X509) accepts
 * it. The server's certificate chain must lead to the block's CA, else the connection is refused before the
 * admin's password is sent (ClusterNotReady, in words); a host name is also checked against the certificate, as
 * pymysql checks it for Nova's own DSNs. An IP address is not: mysql2 (3.x) checks an IP host against "localhost"
 * instead of the address, which refuses every certificate, so for an IP only the chain is verified — a server
 * holding any certificate of the block's CA is accepted. A rotated CA or client certificate replaces the pool.
 * Over adminSocket the connection never leaves the host and is not TLS: MariaDB does not negotiate TLS on a unix
 * socket, and counts the socket as a secure transport.
 *
 * Deprovisioning (the Nova finalizer; port.ts says why the claims are written ahead). The rule of the issue: the
 * embedded default drops the schemas and users it created, and never a schema it did not create.
 * - `absent()`: which of the plan's schemas and users do not exist yet — one information_schema.SCHEMATA query,
 *   one mysql.user query (Host '%'), no DDL. A schema counts as existing by the test the Database step uses (its
 *   exact name, folded only where the server folds names), so what is claimed is what the next pass creates. An
 *   admin that may not read mysql.user claims no user: a user that cannot be seen is never claimed, so it is
 *   never dropped (left behind rather than someone else's dropped).
 * - `deprovision(owned)`: only the plan's schemas (its Database steps) and users (its User steps) that are in
 *   `owned` are considered; everything else of the plan is left, and the message says Regent did not create it.
 *   Which of them still exist is read first, by the same test, then each is dropped: DROP USER IF EXISTS 'u'@'%'
 *   before DROP DATABASE IF EXISTS `db` (the reverse of the plan's order). live = any of them existed before the
 *   drops, so the finalizer holds one more pass and the next call, finding none, answers live=false without a
 *   statement. Nothing owned in the plan: no connection at all.
 * - Both take the Secret reader for the block's TLS files and throw ServerNotReadyError where `provision()` would
 *   answer clusterNotReady or waiting.
 * Caveat: a grant Regent gave on an owned schema to a user it did not create stays in mysql.db after the schema
 * is dropped (the user is not Regent's to alter); a schema re-created later under that name is reachable by it.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import mysql from 'mysql2/promise';
import type { Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';
import { SCHEMA_NAME_PATTERN, USERNAME_PATTERN } from './plan.js';
import {
  ProvisioningError,
  ServerNotReadyError,
  type BlockPlan,
  type DatabaseProvisioner,
  type DeprovisionOutcome,
  type ProvisionedObject,
  type ProvisionOutcome,
  type ProvisionStep,
  type SecretKey,
  type SecretReader,
} from './port.js';

/** A MariaDB server as Regent knows it. */
export interface MariaDBServer {
  /** How Regent connects to provision: a unix socket, or host and port (default 127.0.0.1:3306). */
  admin: { host?: string; port?: number; socketPath?: string; user: string; password?: string };
  /** The address Nova's own DSNs use. */
  host: string;
  port: number;
}

/** Finds the server a block's clusterRef names; undefined when there is none. */
export type ClusterResolver = (namespace: string, clusterRef: string) => Promise<MariaDBServer | undefined>;

/** A resolver's refusal: the cluster is named but not usable. Its message is user-safe (no value of a secret). */
export class ClusterResolutionError extends Error {
  override readonly name = 'ClusterResolutionError';
}

export interface SqlProvisionerOptions {
  /** Connect timeout (default 5 s): a server that does not answer is ClusterNotReady, not a hung pass. */
  connectTimeoutMs?: number;
  /** Timeout of one statement (default 30 s). */
  statementTimeoutMs?: number;
  /** Each statement that writes, as run, with the password replaced (for the operator log and the tests). */
  onStatement?: (statement: string) => void;
}

/** MariaDB's limit for MAX_USER_CONNECTIONS. */
const MAX_USER_CONNECTIONS_LIMIT = 2 ** 32 - 1;
const CHARSET = 'utf8mb3';
const COLLATION = 'utf8mb3_general_ci';
const ANY_HOST = '%';
const REDACTED = "'<redacted>'";

/**
 * Server answers that mean the server cannot be used now rather than that a step is wrong: lost or refused
 * connections (mysql2 marks those fatal), too many connections, a read-only server or a Galera node that is not
 * primary.
 */
const NOT_READY_CODES = new Set([
  'ER_CON_COUNT_ERROR', // 1040
  'ER_TOO_MANY_USER_CONNECTIONS', // 1203
  'ER_OPTION_PREVENTS_STATEMENT', // 1290: read_only
  'ER_UNKNOWN_COM_ERROR', // 1047: WSREP has not yet prepared node for application use
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'PROTOCOL_SEQUENCE_TIMEOUT',
]);

interface SqlError {
  code?: string;
  errno?: number;
  fatal?: boolean;
  sqlMessage?: string;
  message?: string;
}

const asSqlError = (error: unknown): SqlError => (typeof error === 'object' && error !== null ? (error as SqlError) : { message: String(error) });

const quoted = (text: string): string => JSON.stringify(text);

/** An error in words: its code and the server's message, with the password (if any) taken out. */
const inWords = (error: unknown, secret?: string): string => {
  const e = asSqlError(error);
  const text = e.sqlMessage ?? e.message ?? 'unknown error';
  const words = e.code === undefined || text.includes(e.code) ? text : `${e.code}: ${text}`;
  return secret === undefined || secret === '' ? words : words.split(secret).join('<redacted>');
};

const where = (server: MariaDBServer): string =>
  server.admin.socketPath !== undefined ? `socket ${server.admin.socketPath}` : `${server.admin.host ?? '127.0.0.1'}:${server.admin.port ?? 3306}`;

/** mysql_native_password's stored form: `*` and the upper-case hex of SHA1(SHA1(password)). */
export const nativePasswordHash = (password: string): string =>
  `*${createHash('sha1').update(createHash('sha1').update(password, 'utf8').digest()).digest('hex').toUpperCase()}`;

/** A database-level GRANT reads `_` and `%` as wildcards; escape them so the grant names exactly one schema. */
const grantPattern = (database: string): string => database.replace(/[_%]/g, (c) => `\\${c}`);

/** The plan's rules, again: an adapter that interpolates names must not trust that the caller ran the planner. */
export const checkPlan = (plan: BlockPlan): void => {
  const problems: string[] = [];
  const databases = new Set<string>();
  const users = new Set<string>();
  for (const [index, step] of plan.steps.entries()) {
    const at = `step ${index + 1} (${step.kind} ${quoted(step.name)})`;
    if (step.kind !== 'User' && !SCHEMA_NAME_PATTERN.test(step.database)) problems.push(`${at}: schema ${quoted(step.database)} is not ${SCHEMA_NAME_PATTERN.source}`);
    if (step.kind !== 'Database' && !USERNAME_PATTERN.test(step.username)) problems.push(`${at}: user ${quoted(step.username)} is not ${USERNAME_PATTERN.source}`);
    if (step.kind === 'Database') databases.add(step.database);
    if (step.kind === 'User') {
      if (!Number.isInteger(step.maxUserConnections) || step.maxUserConnections < 1 || step.maxUserConnections > MAX_USER_CONNECTIONS_LIMIT) {
        problems.push(`${at}: maxUserConnections ${step.maxUserConnections} is not an integer from 1 to ${MAX_USER_CONNECTIONS_LIMIT}`);
      }
      users.add(step.username);
    }
    if (step.kind === 'Grant' && (!databases.has(step.database) || !users.has(step.username))) {
      problems.push(`${at}: a grant must come after the Database of ${quoted(step.database)} and the User ${quoted(step.username)}`);
    }
  }
  if (problems.length > 0) throw new ProvisioningError(`the plan of ${quoted(plan.instance)} cannot be applied: ${problems.join('; ')}`);
};

interface ServerPool {
  /** A digest of the admin credentials and the TLS material: a rotated password, CA or client certificate replaces the pool. */
  credentials: string;
  pool: Pool;
}

/** The TLS material of a connection (values: never logged). */
interface ClientTls {
  ca: string;
  cert?: string;
  key?: string;
}

type Password = (secret: { name: string; key: string }) => Promise<string | undefined>;

/** A pass's answer short of ready: the outcome to return. */
class Stop extends Error {
  constructor(readonly outcome: ProvisionOutcome) {
    super(outcome.kind);
  }
}

/** An open admin connection, and how it was reached in words (for messages; never a secret). */
interface Opened {
  connection: PoolConnection;
  reach: string;
  /** The admin password, to take out of a server message that might echo it. */
  secret: string | undefined;
}

/** The plan's schemas (its Database steps) and users (its User steps), in plan order. */
const objectsOf = (plan: BlockPlan): ProvisionedObject[] =>
  plan.steps.flatMap((step): ProvisionedObject[] => (step.kind === 'Database' ? [{ kind: 'database', name: step.database }] : step.kind === 'User' ? [{ kind: 'user', name: step.username }] : []));

const sameObject = (a: ProvisionedObject, b: ProvisionedObject): boolean => a.kind === b.kind && a.name === b.name;

const inList = (objects: readonly ProvisionedObject[]): string => {
  const list = (kind: ProvisionedObject['kind'], word: string): string[] => {
    const names = objects.filter((o) => o.kind === kind).map((o) => quoted(o.name));
    return names.length === 0 ? [] : [`${word}${names.length > 1 ? 's' : ''} ${names.join(', ')}`];
  };
  return [...list('database', 'schema'), ...list('user', 'user')].join(' and ');
};

export class SqlDatabaseProvisioner implements DatabaseProvisioner {
  private readonly pools = new Map<string, ServerPool>();
  private readonly connectTimeoutMs: number;
  private readonly statementTimeoutMs: number;
  private readonly onStatement: (statement: string) => void;

  constructor(
    private readonly resolveCluster: ClusterResolver,
    options: SqlProvisionerOptions = {},
  ) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    this.statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
    this.onStatement = options.onStatement ?? (() => undefined);
  }

  async provision(namespace: string, plan: BlockPlan, password: Password): Promise<ProvisionOutcome> {
    checkPlan(plan);
    const opened = await this.open(namespace, plan, password);
    if ('kind' in opened) return opened;
    const { connection, reach } = opened;
    let secret: string | undefined;
    try {
      for (const step of plan.steps) {
        if (step.kind === 'User') {
          secret = await this.userPassword(namespace, step, password);
          await this.ensureUser(connection, step, secret);
        } else if (step.kind === 'Database') await this.ensureDatabase(connection, step);
        else await this.ensureGrant(connection, step);
      }
      return { kind: 'ready' };
    } catch (error) {
      if (error instanceof Stop) return error.outcome;
      const e = asSqlError(error);
      if (e.fatal === true || (e.code !== undefined && NOT_READY_CODES.has(e.code))) {
        return { kind: 'clusterNotReady', message: `${reach}: ${inWords(error, secret)}` };
      }
      // Never the mysql2 error itself as a cause: it carries the statement, which may carry the password.
      throw new ProvisioningError(`provisioning ${quoted(plan.instance)} on ${reach} failed: ${inWords(error, secret)}`);
    } finally {
      connection.release();
    }
  }

  async absent(namespace: string, plan: BlockPlan, secrets: SecretReader): Promise<ProvisionedObject[]> {
    checkPlan(plan);
    const wanted = objectsOf(plan);
    const opened = await this.openOrThrow(namespace, plan, secrets);
    try {
      const schemas = await this.existingSchemas(opened.connection, wanted);
      const users = await this.existingUsers(opened.connection, wanted);
      // A user that cannot be seen is not claimed: claiming one that exists would later drop someone else's.
      return wanted.filter((o) => (o.kind === 'database' ? !schemas.has(o.name) : users !== 'unreadable' && !users.has(o.name)));
    } catch (error) {
      throw this.failure('reading which schemas and users exist for', plan, opened, error);
    } finally {
      opened.connection.release();
    }
  }

  async deprovision(namespace: string, plan: BlockPlan, owned: readonly ProvisionedObject[], secrets: SecretReader): Promise<DeprovisionOutcome> {
    checkPlan(plan);
    const planned = objectsOf(plan);
    const mine = planned.filter((o) => owned.some((claim) => sameObject(claim, o)));
    const notMine = planned.filter((o) => !mine.includes(o));
    const left = notMine.length === 0 ? [] : [`left ${inList(notMine)}: Regent did not create ${notMine.length > 1 ? 'them' : 'it'}`];
    if (mine.length === 0) return { live: false, message: [`Regent created nothing of ${quoted(plan.instance)}; it drops nothing`, ...left].join('; ') };

    const opened = await this.openOrThrow(namespace, plan, secrets);
    try {
      // Observed before any drop: live is what was there when this pass began.
      const schemas = await this.existingSchemas(opened.connection, mine);
      const users = await this.existingUsers(opened.connection, mine);
      if (users === 'unreadable' && mine.some((o) => o.kind === 'user')) {
        throw new ProvisioningError(`cannot tell whether ${inList(mine.filter((o) => o.kind === 'user'))} of ${quoted(plan.instance)} still exists: the admin may not read mysql.user`);
      }
      const present = mine.filter((o) => (o.kind === 'database' ? schemas.has(o.name) : users !== 'unreadable' && users.has(o.name)));
      // Users first, then schemas: the reverse of the plan's order.
      for (const o of [...present].reverse()) {
        if (o.kind === 'user') await this.run(opened.connection, `DROP USER IF EXISTS ${mysql.escape(o.name)}@${mysql.escape(ANY_HOST)}`);
        else await this.run(opened.connection, `DROP DATABASE IF EXISTS ${mysql.escapeId(o.name)}`);
      }
      const live = present.length > 0;
      const head = live ? `dropped ${inList(present)}` : `no schema or user Regent created for ${quoted(plan.instance)} is left`;
      return { live, message: [head, ...left].join('; ') };
    } catch (error) {
      if (error instanceof ProvisioningError) throw error;
      throw this.failure('deprovisioning', plan, opened, error);
    } finally {
      opened.connection.release();
    }
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map(({ pool }) => pool.end().catch(() => undefined)));
  }

  /** An admin connection for the plan's server, or the outcome that says why there is none. */
  private async open(namespace: string, plan: BlockPlan, password: Password): Promise<Opened | Exclude<ProvisionOutcome, { kind: 'ready' }>> {
    const cluster = `MariaDB cluster ${quoted(plan.clusterRef)} (namespace ${quoted(namespace)})`;
    let server: MariaDBServer | undefined;
    try {
      server = await this.resolveCluster(namespace, plan.clusterRef);
    } catch (error) {
      if (error instanceof ClusterResolutionError) return { kind: 'clusterNotReady', message: `${cluster}: ${error.message}` };
      throw error;
    }
    if (server === undefined) return { kind: 'clusterNotReady', message: `${cluster} is not known: no server is registered under that name` };

    let tls: ClientTls | undefined;
    if (plan.tls !== undefined && server.admin.socketPath === undefined) {
      const read = await this.clientTls(namespace, plan.tls, password);
      if ('waiting' in read) return { kind: 'waiting', message: read.waiting };
      tls = read;
    }
    const reach = `${cluster} at ${where(server)}${tls ? ' over TLS' : ''} as ${quoted(server.admin.user)}`;
    try {
      return { connection: await this.connect(server, tls), reach, secret: server.admin.password };
    } catch (error) {
      return { kind: 'clusterNotReady', message: `cannot connect to ${reach}: ${inWords(error, server.admin.password)}` };
    }
  }

  private async openOrThrow(namespace: string, plan: BlockPlan, secrets: SecretReader): Promise<Opened> {
    const opened = await this.open(namespace, plan, secrets);
    if ('kind' in opened) throw new ServerNotReadyError(opened);
    return opened;
  }

  /** A failed query of absent() or deprovision(): the server not usable now, or a ProvisioningError in words. */
  private failure(doing: string, plan: BlockPlan, opened: Opened, error: unknown): ProvisioningError {
    const e = asSqlError(error);
    if (e.fatal === true || (e.code !== undefined && NOT_READY_CODES.has(e.code))) {
      return new ServerNotReadyError({ kind: 'clusterNotReady', message: `${opened.reach}: ${inWords(error, opened.secret)}` });
    }
    // Never the mysql2 error itself as a cause: a statement may carry a value.
    return new ProvisioningError(`${doing} ${quoted(plan.instance)} on ${opened.reach} failed: ${inWords(error, opened.secret)}`);
  }

  /**
   * Which of the objects' schemas exist: the name exactly, or folded when the server folds names
   * (lower_case_table_names ≠ 0) — what ensureDatabase's `SCHEMA_NAME = ?` finds (MariaDB looks that up in the data
   * directory, case-sensitively unless it folds), so absent() claims exactly what the Database step creates. The
   * `IN (?)` below compares in the column's case-insensitive collation instead, hence the match here: a deprovision
   * must not keep finding a differently-cased schema that DROP DATABASE of the owned name never removes, and hold
   * the finalizer for good.
   */
  private async existingSchemas(connection: PoolConnection, objects: readonly ProvisionedObject[]): Promise<Set<string>> {
    const names = objects.filter((o) => o.kind === 'database').map((o) => o.name);
    if (names.length === 0) return new Set();
    const [rows] = await connection.query<RowDataPacket[]>({
      sql: 'SELECT SCHEMA_NAME AS name, @@lower_case_table_names AS folds FROM information_schema.SCHEMATA WHERE SCHEMA_NAME IN (?)',
      values: [names],
      timeout: this.statementTimeoutMs,
    });
    const folds = rows.some((r) => Number(r.folds) !== 0);
    const found = rows.map((r) => String(r.name));
    return new Set(names.filter((n) => found.some((f) => f === n || (folds && f.toLowerCase() === n.toLowerCase()))));
  }

  /** Which of the objects' users exist as 'u'@'%'; 'unreadable' when the admin may not read mysql.user. */
  private async existingUsers(connection: PoolConnection, objects: readonly ProvisionedObject[]): Promise<Set<string> | 'unreadable'> {
    const names = objects.filter((o) => o.kind === 'user').map((o) => o.name);
    if (names.length === 0) return new Set();
    try {
      const [rows] = await connection.query<RowDataPacket[]>({ sql: 'SELECT User AS user FROM mysql.user WHERE Host = ? AND User IN (?)', values: [ANY_HOST, names], timeout: this.statementTimeoutMs });
      const found = rows.map((r) => String(r.user));
      return new Set(names.filter((n) => found.includes(n)));
    } catch (error) {
      const e = asSqlError(error);
      if (e.code === 'ER_TABLEACCESS_DENIED_ERROR' || e.code === 'ER_NO_SUCH_TABLE' || e.code === 'ER_BAD_FIELD_ERROR') return 'unreadable';
      throw error;
    }
  }

  /** plan.tls's values, or what is missing (names only). */
  private async clientTls(namespace: string, tls: NonNullable<BlockPlan['tls']>, password: Password): Promise<ClientTls | { waiting: string }> {
    const read = async (ref: SecretKey): Promise<string | { waiting: string }> => {
      const value = await password(ref);
      return value === undefined || value === '' ? { waiting: `waiting for the database TLS files: Secret ${quoted(`${namespace}/${ref.name}`)} has no key ${quoted(ref.key)}, or it does not exist` } : value;
    };
    const ca = await read(tls.ca);
    if (typeof ca !== 'string') return ca;
    if (tls.cert === undefined || tls.key === undefined) return { ca };
    const cert = await read(tls.cert);
    if (typeof cert !== 'string') return cert;
    const key = await read(tls.key);
    if (typeof key !== 'string') return key;
    return { ca, cert, key };
  }

  /** A connection to the server that answers: a pooled connection the server dropped is replaced once. */
  private async connect(server: MariaDBServer, tls: ClientTls | undefined): Promise<PoolConnection> {
    const pool = this.poolFor(server, tls);
    let connection = await pool.getConnection();
    try {
      await connection.ping();
    } catch {
      connection.destroy();
      connection = await pool.getConnection();
    }
    try {
      await this.pinSqlMode(connection);
    } catch (error) {
      connection.release();
      throw error;
    }
    return connection;
  }

  private poolFor(server: MariaDBServer, tls: ClientTls | undefined): Pool {
    const { admin } = server;
    // TLS or not is part of the key: two blocks on one server, one with tls and one without, keep a pool each
    const key = JSON.stringify([admin.socketPath ?? null, admin.socketPath === undefined ? (admin.host ?? '127.0.0.1') : null, admin.socketPath === undefined ? (admin.port ?? 3306) : null, admin.user, tls !== undefined]);
    const credentials = createHash('sha256').update(JSON.stringify([admin.password ?? '', tls?.ca ?? null, tls?.cert ?? null, tls?.key ?? null])).digest('hex');
    const existing = this.pools.get(key);
    if (existing?.credentials === credentials) return existing.pool;
    if (existing) void existing.pool.end().catch(() => undefined);
    const pool = mysql.createPool({
      ...(admin.socketPath !== undefined ? { socketPath: admin.socketPath } : { host: admin.host ?? '127.0.0.1', port: admin.port ?? 3306 }),
      user: admin.user,
      ...(admin.password === undefined ? {} : { password: admin.password }),
      connectionLimit: 1,
      maxIdle: 1,
      idleTimeout: 60_000,
      connectTimeout: this.connectTimeoutMs,
      waitForConnections: true,
      queueLimit: 0,
      enableKeepAlive: true,
      multipleStatements: false,
      charset: 'utf8mb4',
      // verifyIdentity for a host name only: mysql2 compares an IP host with "localhost" (see the header)
      ...(tls === undefined
        ? {}
        : { ssl: { ca: tls.ca, ...(tls.cert !== undefined && tls.key !== undefined ? { cert: tls.cert, key: tls.key } : {}), rejectUnauthorized: true, verifyIdentity: isIP(admin.host ?? '127.0.0.1') === 0 } }),
    });
    this.pools.set(key, { credentials, pool });
    return pool;
  }

  /** The password literal is escaped with backslashes, which NO_BACKSLASH_ESCAPES would read as characters. */
  private async pinSqlMode(connection: PoolConnection): Promise<void> {
    const [rows] = await connection.query<RowDataPacket[]>({ sql: 'SELECT @@SESSION.sql_mode AS mode', timeout: this.statementTimeoutMs });
    const modes = String(rows[0]?.mode ?? '').split(',').filter((m) => m !== '');
    if (!modes.includes('NO_BACKSLASH_ESCAPES')) return;
    await connection.query({ sql: mysql.format('SET SESSION sql_mode = ?', [modes.filter((m) => m !== 'NO_BACKSLASH_ESCAPES').join(',')]), timeout: this.statementTimeoutMs });
  }

  private async run(connection: PoolConnection, sql: string, logged: string = sql): Promise<void> {
    this.onStatement(logged);
    await connection.query({ sql, timeout: this.statementTimeoutMs });
  }

  private async userPassword(namespace: string, step: Extract<ProvisionStep, { kind: 'User' }>, password: Password): Promise<string> {
    const value = await password(step.passwordSecret);
    if (value === undefined || value === '') {
      const { name, key } = step.passwordSecret;
      const why = value === '' ? `its key ${quoted(key)} is empty` : `it has no key ${quoted(key)}, or it does not exist`;
      throw new Stop({ kind: 'waiting', message: `waiting for the password of database user ${quoted(step.username)}: Secret ${quoted(`${namespace}/${name}`)}: ${why}` });
    }
    return value;
  }

  private async ensureDatabase(connection: PoolConnection, step: Extract<ProvisionStep, { kind: 'Database' }>): Promise<void> {
    const [rows] = await connection.query<RowDataPacket[]>({ sql: 'SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', values: [step.database], timeout: this.statementTimeoutMs });
    if (rows.length > 0) return;
    await this.run(connection, `CREATE DATABASE IF NOT EXISTS ${mysql.escapeId(step.database)} CHARACTER SET ${CHARSET} COLLATE ${COLLATION}`);
  }

  private async ensureUser(connection: PoolConnection, step: Extract<ProvisionStep, { kind: 'User' }>, password: string): Promise<void> {
    const account = `${mysql.escape(step.username)}@${mysql.escape(ANY_HOST)}`;
    const current = await this.readUser(connection, step.username);
    if (current === 'absent') {
      const sql = (secret: string): string => `CREATE USER IF NOT EXISTS ${account} IDENTIFIED BY ${secret} WITH MAX_USER_CONNECTIONS ${step.maxUserConnections}`;
      await this.run(connection, sql(mysql.escape(password)), sql(REDACTED));
      return;
    }
    const converged =
      current !== 'unreadable' &&
      current.maxUserConnections === step.maxUserConnections &&
      (current.plugin === 'mysql_native_password' || current.plugin === '') &&
      current.authenticationString === nativePasswordHash(password);
    if (converged) return;
    const sql = (secret: string): string => `ALTER USER ${account} IDENTIFIED BY ${secret} WITH MAX_USER_CONNECTIONS ${step.maxUserConnections}`;
    await this.run(connection, sql(mysql.escape(password)), sql(REDACTED));
  }

  /** The user's row; 'unreadable' when the admin may not read mysql.user (then every pass alters the user). */
  private async readUser(connection: PoolConnection, username: string): Promise<'absent' | 'unreadable' | { plugin: string; authenticationString: string; maxUserConnections: number }> {
    try {
      const [rows] = await connection.query<RowDataPacket[]>({
        sql: 'SELECT plugin, authentication_string, max_user_connections FROM mysql.user WHERE User = ? AND Host = ?',
        values: [username, ANY_HOST],
        timeout: this.statementTimeoutMs,
      });
      const row = rows[0];
      if (row === undefined) return 'absent';
      return { plugin: String(row.plugin ?? ''), authenticationString: String(row.authentication_string ?? ''), maxUserConnections: Number(row.max_user_connections) };
    } catch (error) {
      const e = asSqlError(error);
      if (e.code === 'ER_TABLEACCESS_DENIED_ERROR' || e.code === 'ER_NO_SUCH_TABLE' || e.code === 'ER_BAD_FIELD_ERROR') return 'unreadable';
      throw error;
    }
  }

  private async ensureGrant(connection: PoolConnection, step: Extract<ProvisionStep, { kind: 'Grant' }>): Promise<void> {
    const account = `${mysql.escape(step.username)}@${mysql.escape(ANY_HOST)}`;
    const target = mysql.escapeId(grantPattern(step.database));
    const [rows] = await connection.query<RowDataPacket[]>({ sql: `SHOW GRANTS FOR ${account}`, timeout: this.statementTimeoutMs, rowsAsArray: true });
    // MariaDB prints `GRANT ALL PRIVILEGES ON \`nova\_api\`.* TO \`u\`@\`%\``; any other spelling falls to the GRANT.
    const held = `GRANT ALL PRIVILEGES ON ${target}.* TO ${mysql.escapeId(step.username)}@${mysql.escapeId(ANY_HOST)}`;
    if ((rows as unknown as unknown[][]).some((row) => typeof row[0] === 'string' && (row[0] === held || row[0].startsWith(`${held} `)))) return;
    await this.run(connection, `GRANT ALL PRIVILEGES ON ${target}.* TO ${account}`);
  }
}
