/**
 * The plan of the Database step's provisioning (nova-operator.md, "Database"): a Nova turned into two ordered
 * block plans, nova_api under `{name}-api` and the cell block under `{name}` with cell0 as its additional schema.
 * Pure: no I/O, no clock. The adapters (sql.ts, the mariadb-operator CRs) apply a plan; they never decide names,
 * order or sizes.
 *
 * Invariants:
 * - Steps in the order primary Database, additional Database, User with the primary Grant, additional Grant, so a
 *   grant is never applied before its schema and its user exist.
 * - One user for both cell schemas: nova-manage maps cell0 with the credentials it already runs with, and nova-api
 *   reads cell0 on every instance list, so a separate user would turn a routine list into an error.
 * - Every name is checked before anything is applied: any problem and there is no plan at all, so a refused
 *   cell0 name never leaves a half-provisioned cell block behind.
 */
import type { NovaSpec } from '../../resources/nova.js';
import { DATABASE_TLS_KEYS, enabledTls } from '../database-tls.js';
import type { BlockPlan, ProvisionStep } from './port.js';

/**
 * A schema name. The cells Job interpolates it into a single-quoted shell word and the SQL adapter into a
 * backquoted identifier, so it can carry no quote; 64 is MariaDB's identifier limit. Checked on the primary
 * schema and on cell0's derived name alike (a 60-character cell schema derives a 66-character cell0 name).
 */
export const SCHEMA_NAME_PATTERN = /^[A-Za-z0-9_]{1,64}$/;
/**
 * A SQL user name. MariaDB allows 80 characters (mysql.user.User is CHAR(80) since 10.4); the set is narrower
 * than MariaDB's because the name is interpolated as a quoted literal into CREATE USER / GRANT and as the
 * user part of Nova's DSN (`mysql+pymysql://{user}:{password}@host/db`), which Regent writes without
 * percent-encoding: an `@`, `:`, `/`, `%` or quote would break the URL or the statement.
 */
export const USERNAME_PATTERN = /^[A-Za-z0-9_]{1,80}$/;
/** cell0's schema: the cell schema with this suffix (nova's own convention, `nova` → `nova_cell0`). */
export const CELL0_SUFFIX = '_cell0';
/** The data key of a block's credentials Secret (spec.database.<block>.secretRef) that holds the password. */
export const PASSWORD_KEY = 'password';
/** A Kubernetes object name (the mariadb-operator CRs are named `{name}-api`, `{name}-cell0`). */
const MAX_OBJECT_NAME = 253;

// ---------------------------------------------------------------------------------------------------------------
// Sizing max_user_connections

/** The mariadb-operator's User default; the default topology exceeds it before a single request is served. */
export const MARIADB_OPERATOR_DEFAULT_MAX_USER_CONNECTIONS = 10;
/** oslo.db `[database] max_pool_size` as Regent renders it (one pool per schema a process opens). */
export const OSLO_DB_MAX_POOL_SIZE = 5;
/** oslo.db `[database] max_overflow` as Regent renders it. */
export const OSLO_DB_MAX_OVERFLOW = 10;
/** The most connections one pool may hold: the steady pool plus its overflow. */
export const CONNECTIONS_PER_POOL = OSLO_DB_MAX_POOL_SIZE + OSLO_DB_MAX_OVERFLOW;
/**
 * The Deployment default maxSurge (25%, rounded up). During a rollout, an upgrade included, the surge pods open
 * their pools while the old pods still hold theirs; sizing without it would refuse the new pods' connections
 * ("User already has more than 'max_user_connections' active connections") exactly when the rollout needs them.
 */
export const ROLLOUT_MAX_SURGE_PERCENT = 25;

/** The processes that open Nova's schemas: the five Deployments and the three kinds of Job. */
export type DatabaseRole = 'api' | 'conductor' | 'scheduler' | 'metadata' | 'consoleProxy' | 'dbSyncJob' | 'archiveJob' | 'discoverHostsJob';
/** A schema a process opens: nova_api, cell0, or the cell schema. */
export type NovaSchema = 'api' | 'cell0' | 'cell';

/**
 * Which schemas each role holds a pool on. Nova reaches a cell through its cell mapping and caches one
 * oslo.db engine, with its own pool, per cell it targets, so a process that reaches cell0 and the cell holds two
 * pools under the cell user, and max_user_connections counts both.
 * - api: nova_api for mappings and request specs; cell0 and the cell on every instance list (scatter-gather).
 * - conductor: it runs as the super-conductor of the single cell: nova_api for mappings, cell0 to bury
 *   instances that failed to schedule, the cell for everything else.
 * - scheduler: nova_api (host mappings, aggregates); the cell for compute nodes. The host manager skips cell0.
 * - metadata: nova_api for the instance mapping, the instance's cell. Instances in cell0 never got a port, so
 *   nothing asks the metadata API about them.
 * - consoleProxy: the cell only. Since Rocky, console auth tokens live in the cell database and
 *   nova-novncproxy validates a token against it ([database] connection); it needs no nova_api.
 * - dbSyncJob: api_db sync, map_cell0, create_cell and db sync (which migrates cell0 too). The three
 *   upgrade phase Jobs replace it one at a time, so one Job's worth covers them.
 * - archiveJob: archive_deleted_rows --all-cells walks nova_api and every cell, cell0 included
 *   (ConcurrencyPolicy Forbid: one run at a time).
 * - discoverHostsJob: cell_v2 discover_hosts reads the cell (never cell0) and writes host mappings to nova_api.
 * A Job runs one nova-manage process; it is still sized at its pool's ceiling, as every other process is.
 */
export const SCHEMAS_OPENED: Readonly<Record<DatabaseRole, readonly NovaSchema[]>> = {
  api: ['api', 'cell0', 'cell'],
  conductor: ['api', 'cell0', 'cell'],
  scheduler: ['api', 'cell'],
  metadata: ['api', 'cell'],
  consoleProxy: ['cell'],
  dbSyncJob: ['api', 'cell0', 'cell'],
  archiveJob: ['api', 'cell0', 'cell'],
  discoverHostsJob: ['api', 'cell'],
};

/** The schemas of each block, so of each SQL user. */
export const BLOCK_SCHEMAS: Readonly<Record<'api' | 'cell', readonly NovaSchema[]>> = { api: ['api'], cell: ['cell0', 'cell'] };

const surge = (replicas: number): number => (replicas === 0 ? 0 : Math.ceil((replicas * ROLLOUT_MAX_SURGE_PERCENT) / 100));

/**
 * The most pods of each role that can hold connections at once: the steady count plus the rollout surge for
 * the Deployments, one for each Job. spec.replicas defaults to 1; the API counts autoscaling.maxReplicas when
 * autoscaling is set (the HPA may scale it there without a spec change); the console proxy counts only while
 * spec.consoleProxy.enabled (an absent block is a disabled proxy).
 */
export const podsPerRole = (spec: NovaSpec): Record<DatabaseRole, number> => {
  const replicas = spec.replicas ?? 1;
  const api = spec.autoscaling?.maxReplicas ?? replicas;
  const consoleProxy = spec.consoleProxy?.enabled === true ? replicas : 0;
  const deployment = (n: number): number => n + surge(n);
  return {
    api: deployment(api),
    conductor: deployment(replicas),
    scheduler: deployment(replicas),
    metadata: deployment(replicas),
    consoleProxy: deployment(consoleProxy),
    dbSyncJob: 1,
    archiveJob: 1,
    discoverHostsJob: 1,
  };
};

/**
 * max_user_connections of each block's user, sized for the CR's own topology: for every role, its pods × the
 * pools it holds on the block's schemas × CONNECTIONS_PER_POOL, summed. The mariadb-operator default of 10 is
 * exceeded by a single API pod's nova_api pool (15) before a request is served.
 */
export const maxUserConnections = (spec: NovaSpec): { api: number; cell: number } => {
  const pods = podsPerRole(spec);
  const forBlock = (block: 'api' | 'cell'): number =>
    (Object.keys(SCHEMAS_OPENED) as DatabaseRole[]).reduce(
      (sum, role) => sum + pods[role] * SCHEMAS_OPENED[role].filter((s) => BLOCK_SCHEMAS[block].includes(s)).length * CONNECTIONS_PER_POOL,
      0,
    );
  return { api: forBlock('api'), cell: forBlock('cell') };
};

// ---------------------------------------------------------------------------------------------------------------
// The plan

export interface NovaDatabaseInput {
  metadata: { name: string; uid?: string };
  spec: NovaSpec;
}

/** The user names, read by the Secrets step from each block's credentials Secret. */
export interface DatabaseCredentials {
  api: { username: string };
  cell: { username: string };
}

export type DatabasePlan = { ok: true; blocks: readonly [api: BlockPlan, cell: BlockPlan] } | { ok: false; problems: string[] };

/** The cell0 schema of a cell schema. */
export const cell0Schema = (cellDatabase: string): string => `${cellDatabase}${CELL0_SUFFIX}`;

const quoted = (text: string): string => JSON.stringify(text);

const schemaProblem = (path: string, name: string): string[] =>
  SCHEMA_NAME_PATTERN.test(name) ? [] : [`${path}: ${quoted(name)} is not a schema name: 1 to 64 characters of [A-Za-z0-9_] (it is interpolated into a shell word and a SQL identifier)`];

const usernameProblem = (path: string, name: string): string[] =>
  USERNAME_PATTERN.test(name) ? [] : [`${path}: ${quoted(name)} is not a database user name: 1 to 80 characters of [A-Za-z0-9_] (it is interpolated into SQL and into Nova's DSN unescaped)`];

/** A block's tls for the provisioning connection: the same CA and client certificate Nova's DSNs name. */
const tlsOf = (spec: NovaSpec, block: 'api' | 'cell'): Pick<BlockPlan, 'tls'> => {
  const tls = enabledTls(spec, block);
  if (!tls?.caSecretRef) return {};
  const client = tls.clientCertSecretRef?.name;
  return {
    tls: {
      ca: { name: tls.caSecretRef.name, key: DATABASE_TLS_KEYS.ca },
      ...(client === undefined ? {} : { cert: { name: client, key: DATABASE_TLS_KEYS.cert }, key: { name: client, key: DATABASE_TLS_KEYS.key } }),
    },
  };
};

/**
 * The two block plans, or every problem that keeps the Nova from having one. Checked before anything is
 * applied: the schema names (cell0's derived name included), the user names, the CR names the mariadb-operator
 * adapter derives, and, when both blocks name the same cluster, that they share no schema and no user (two
 * passes ensuring one user with two sizes and perhaps two passwords would undo each other on every pass).
 */
export const planDatabases = (nova: NovaDatabaseInput, credentials: DatabaseCredentials): DatabasePlan => {
  const { name } = nova.metadata;
  const { api, cell } = nova.spec.database;
  const cell0 = cell0Schema(cell.database);
  const apiInstance = `${name}-api`;
  const cell0Instance = `${name}-cell0`;

  const problems = [
    ...schemaProblem('spec.database.api.database', api.database),
    ...schemaProblem('spec.database.cell.database', cell.database),
    // Reported only when the cell schema itself passes, so one bad name is not reported twice.
    ...(SCHEMA_NAME_PATTERN.test(cell.database) ? schemaProblem(`spec.database.cell.database (its cell0 schema ${CELL0_SUFFIX})`, cell0) : []),
    ...usernameProblem(`spec.database.api.secretRef (${quoted(api.secretRef.name)}) username`, credentials.api.username),
    ...usernameProblem(`spec.database.cell.secretRef (${quoted(cell.secretRef.name)}) username`, credentials.cell.username),
    ...[apiInstance, cell0Instance].flatMap((cr) =>
      cr.length <= MAX_OBJECT_NAME ? [] : [`metadata.name: the derived object name ${quoted(cr)} is longer than ${MAX_OBJECT_NAME} characters`],
    ),
  ];
  if (api.clusterRef.name === cell.clusterRef.name) {
    // lower_case_table_names may fold case on the server, so compare folded.
    const cellSchemas = new Set([cell.database.toLowerCase(), cell0.toLowerCase()]);
    if (cellSchemas.has(api.database.toLowerCase())) {
      problems.push(`spec.database: the api schema ${quoted(api.database)} is also a schema of the cell block (${quoted(cell.database)}, ${quoted(cell0)}) on cluster ${quoted(api.clusterRef.name)}`);
    }
    if (credentials.api.username === credentials.cell.username) {
      problems.push(`spec.database: both blocks use the user ${quoted(credentials.api.username)} on cluster ${quoted(api.clusterRef.name)}; each block needs a user of its own (its size and password are ensured per block)`);
    }
  }
  if (problems.length > 0) return { ok: false, problems };

  const sizes = maxUserConnections(nova.spec);
  const uid = nova.metadata.uid ? { uid: nova.metadata.uid } : {};
  const passwordSecret = (secretName: string): { name: string; key: string } => ({ name: secretName, key: PASSWORD_KEY });

  const apiSteps: ProvisionStep[] = [
    { kind: 'Database', name: apiInstance, database: api.database },
    { kind: 'User', name: apiInstance, username: credentials.api.username, passwordSecret: passwordSecret(api.secretRef.name), maxUserConnections: sizes.api },
    { kind: 'Grant', name: apiInstance, username: credentials.api.username, database: api.database },
  ];
  const cellSteps: ProvisionStep[] = [
    { kind: 'Database', name, database: cell.database },
    { kind: 'Database', name: cell0Instance, database: cell0 },
    { kind: 'User', name, username: credentials.cell.username, passwordSecret: passwordSecret(cell.secretRef.name), maxUserConnections: sizes.cell },
    { kind: 'Grant', name, username: credentials.cell.username, database: cell.database },
    { kind: 'Grant', name: cell0Instance, username: credentials.cell.username, database: cell0 },
  ];
  return {
    ok: true,
    blocks: [
      { nova: name, ...uid, instance: apiInstance, clusterRef: api.clusterRef.name, steps: apiSteps, ...tlsOf(nova.spec, 'api') },
      { nova: name, ...uid, instance: name, clusterRef: cell.clusterRef.name, steps: cellSteps, ...tlsOf(nova.spec, 'cell') },
    ],
  };
};
