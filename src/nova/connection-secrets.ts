/**
 * The derived connection Secrets the Database step's Jobs read (nova-operator.md, "DBConnectionSecrets",
 * "TransportURLSecret"; issue 14 builds the part the Jobs need): `{name}-api-db-connection` and
 * `{name}-db-connection` (the pymysql DSNs; the cell Secret also carries cell0's) and `{name}-transport-url`.
 * The nova_api half is read first, so a cell Secret is never derived while the nova_api credentials are missing.
 *
 * Inputs, resolved here from the Nova's Secrets:
 * - each block's credentials Secret (spec.database.<block>.secretRef): `password`, and optionally `username`
 *   (default: the block's schema name);
 * - the transport URL: spec.messaging.secretRef (brownfield, a rabbit:// URL under the named key, default `url`), or for a
 *   managed spec.messaging.clusterRef the Secret `rabbitmq-<clusterRef>` key `url` (Regent's convention until the
 *   messaging steps are built).
 *
 * The DSN query: `charset=utf8`, then for a block whose tls is enabled ssl_ca (and ssl_cert, ssl_key) naming the files
 * in the directory the JobRunner puts them in (src/nova/database-tls.ts). cell0's DSN is the cell DSN with cell0's
 * schema: the same server, user and query, so cell0 is reached over TLS exactly when the cell schema is.
 *
 * Writes are idempotent: a Secret is written only when its data differs. Values never reach a log or an event.
 */
import type { SecretStore } from '../kube/secrets.js';
import type { NovaSpec } from '../resources/nova.js';
import { PASSWORD_KEY, cell0Schema } from './database/plan.js';
import { databaseTlsQuery } from './database-tls.js';
import type { DatabaseTlsMount } from './jobs/port.js';
import { CELL0_CONNECTION_KEY, CONNECTION_KEY, TRANSPORT_URL_KEY, connectionSecretNames, type NovaRef } from './jobs/render.js';

export const USERNAME_KEY = 'username';
export const RABBITMQ_SECRET_PREFIX = 'rabbitmq-';

export interface DatabaseEndpoint {
  host: string;
  port: number;
}

export type Missing = { missing: 'credentials' | 'transport'; message: string };


export interface BlockCredentials {
  username: string;
  password: string;
}

/** Reads a block's credentials Secret; a Missing names the Secret and key, never a value. */
export const readCredentials = async (secrets: SecretStore, namespace: string, spec: NovaSpec, block: 'api' | 'cell'): Promise<BlockCredentials | Missing> => {
  const ref = spec.database[block].secretRef.name;
  const secret = await secrets.get(namespace, ref);
  if (!secret) return { missing: 'credentials', message: `waiting for the ${block === 'api' ? 'nova_api' : 'cell'} database credentials: no Secret ${ref}` };
  const password = secret.data[PASSWORD_KEY];
  if (!password) return { missing: 'credentials', message: `waiting for the ${block === 'api' ? 'nova_api' : 'cell'} database credentials: Secret ${ref} has no key ${PASSWORD_KEY}` };
  return { username: secret.data[USERNAME_KEY] || spec.database[block].database, password };
};

/** The service user's password is there (its value is read by the Jobs, never here). */
export const serviceUserMissing = async (secrets: SecretStore, namespace: string, spec: NovaSpec): Promise<string | null> => {
  const ref = spec.serviceUser.secretRef.name;
  const secret = await secrets.get(namespace, ref);
  if (!secret) return `waiting for the service-user password: no Secret ${ref}`;
  return secret.data[PASSWORD_KEY] ? null : `waiting for the service-user password: Secret ${ref} has no key ${PASSWORD_KEY}`;
};

/** The brownfield or managed transport URL, or what is missing. */
export const readTransportURL = async (secrets: SecretStore, namespace: string, spec: NovaSpec): Promise<string | Missing> => {
  const ref = spec.messaging.secretRef ?? (spec.messaging.clusterRef ? { name: `${RABBITMQ_SECRET_PREFIX}${spec.messaging.clusterRef.name}`, key: TRANSPORT_URL_KEY } : undefined);
  if (!ref) return { missing: 'transport', message: 'spec.messaging names neither a Secret nor a cluster' };
  const secret = await secrets.get(namespace, ref.name);
  const key = ref.key ?? TRANSPORT_URL_KEY;
  const url = secret?.data[key];
  if (!url) {
    const how = spec.messaging.secretRef ? '' : ` (the managed RabbitMQ ${spec.messaging.clusterRef?.name}: Regent reads its transport URL from this Secret)`;
    return { missing: 'transport', message: `waiting for the transport URL: ${secret ? `Secret ${ref.name} has no key ${key}` : `no Secret ${ref.name}`}${how}` };
  }
  return url;
};

const hostPart = (host: string): string => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/**
 * A query value: percent-encoded, `/` kept (legal in a query, and a path stays readable). SQLAlchemy decodes the
 * query with parse_qsl, which reads a bare `+` as a space, so a `+` in a path must travel as %2B.
 */
const queryValue = (value: string): string => encodeURIComponent(value).replace(/%2F/gi, '/');

/** The DSN query of a block: charset=utf8, then the TLS files' parameters when its tls is enabled. */
export const connectionQuery = (tls?: DatabaseTlsMount): string =>
  [['charset', 'utf8'] as [string, string], ...(tls ? databaseTlsQuery(tls) : [])].map(([k, v]) => `${k}=${queryValue(v)}`).join('&');

/** A pymysql DSN; user and password percent-encoded (so the authority holds no `/`); the query per connectionQuery. */
export const pymysqlDSN = (endpoint: DatabaseEndpoint, credentials: BlockCredentials, schema: string, tls?: DatabaseTlsMount): string =>
  `mysql+pymysql://${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@${hostPart(endpoint.host)}:${endpoint.port}/${schema}?${connectionQuery(tls)}`;

/**
 * The same connection to another schema: only the path changes; scheme, credentials, host, port and the whole query
 * (charset, the TLS files) are kept as they are. A fixed query here once dropped the cell block's ssl_* parameters
 * from cell0's DSN, so the contract's cell0 pass would have connected in clear text.
 */
export const withSchema = (dsn: string, schema: string): string => {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)\/[^?#]*(.*)$/s.exec(dsn);
  if (!match) throw new Error('withSchema: not a DSN with an authority and a path');
  return `${match[1]}/${schema}${match[2]}`;
};

export interface ConnectionInputs {
  /** tls: the block's TLS files when its tls is enabled (their directory as the Jobs' pods see it). */
  api: { endpoint: DatabaseEndpoint; credentials: BlockCredentials; tls?: DatabaseTlsMount };
  cell: { endpoint: DatabaseEndpoint; credentials: BlockCredentials; tls?: DatabaseTlsMount };
  transportURL: string;
}

const sameData = (a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>>): boolean =>
  a !== undefined && Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);

/** Writes the three derived Secrets when their data differ; returns how many were written. */
export const materializeConnectionSecrets = async (secrets: SecretStore, nova: NovaRef, spec: NovaSpec, inputs: ConnectionInputs): Promise<number> => {
  const names = connectionSecretNames(nova.name);
  const cell = pymysqlDSN(inputs.cell.endpoint, inputs.cell.credentials, spec.database.cell.database, inputs.cell.tls);
  const wanted: Array<[string, Record<string, string>]> = [
    [names.api, { [CONNECTION_KEY]: pymysqlDSN(inputs.api.endpoint, inputs.api.credentials, spec.database.api.database, inputs.api.tls) }],
    [names.cell, { [CONNECTION_KEY]: cell, [CELL0_CONNECTION_KEY]: withSchema(cell, cell0Schema(spec.database.cell.database)) }],
    [names.transport, { [TRANSPORT_URL_KEY]: inputs.transportURL }],
  ];
  let written = 0;
  for (const [name, data] of wanted) {
    const current = await secrets.get(nova.namespace, name);
    if (sameData(current?.data, data)) continue;
    await secrets.put(nova.namespace, name, data, { ownerUid: nova.uid, labels: { 'regent.dev/nova': nova.name } });
    written++;
  }
  return written;
};
