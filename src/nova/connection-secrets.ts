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
 * Writes are idempotent: a Secret is written only when its data differs. Values never reach a log or an event.
 */
import type { SecretStore } from '../kube/secrets.js';
import type { NovaSpec } from '../resources/nova.js';
import { PASSWORD_KEY, cell0Schema } from './database/plan.js';
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

/** A pymysql DSN; user and password percent-encoded. */
export const pymysqlDSN = (endpoint: DatabaseEndpoint, credentials: BlockCredentials, schema: string): string =>
  `mysql+pymysql://${encodeURIComponent(credentials.username)}:${encodeURIComponent(credentials.password)}@${hostPart(endpoint.host)}:${endpoint.port}/${schema}?charset=utf8`;

export interface ConnectionInputs {
  api: { endpoint: DatabaseEndpoint; credentials: BlockCredentials };
  cell: { endpoint: DatabaseEndpoint; credentials: BlockCredentials };
  transportURL: string;
}

const sameData = (a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>>): boolean =>
  a !== undefined && Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => a[k] === v);

/** Writes the three derived Secrets when their data differ; returns how many were written. */
export const materializeConnectionSecrets = async (secrets: SecretStore, nova: NovaRef, spec: NovaSpec, inputs: ConnectionInputs): Promise<number> => {
  const names = connectionSecretNames(nova.name);
  const wanted: Array<[string, Record<string, string>]> = [
    [names.api, { [CONNECTION_KEY]: pymysqlDSN(inputs.api.endpoint, inputs.api.credentials, spec.database.api.database) }],
    [
      names.cell,
      {
        [CONNECTION_KEY]: pymysqlDSN(inputs.cell.endpoint, inputs.cell.credentials, spec.database.cell.database),
        [CELL0_CONNECTION_KEY]: pymysqlDSN(inputs.cell.endpoint, inputs.cell.credentials, cell0Schema(spec.database.cell.database)),
      },
    ],
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
