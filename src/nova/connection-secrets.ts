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
 *   messaging steps are built); these are the messaging credentials (the URL carries the user and password);
 * - the service user's password (spec.serviceUser.secretRef, key `password`), the metadata shared secret
 *   (spec.metadata.sharedSecretRef, key `shared-secret`) and, on a TLS bus, the broker CA bundle
 *   (spec.messaging.tls.caSecretRef, key `ca.crt`): the Secrets step's gates (src/controllers/nova/steps/secrets.ts).
 *
 * The DSN query: `charset=utf8`, then for a block whose tls is enabled ssl_ca (and ssl_cert, ssl_key) naming the files
 * in the directory the JobRunner puts them in (src/nova/database-tls.ts). cell0's DSN is the cell DSN with cell0's
 * schema: the same server, user and query, so cell0 is reached over TLS exactly when the cell schema is.
 *
 * Writes are idempotent: a Secret is written only when its data differs. Values never reach a log or an event.
 */
import { X509Certificate } from 'node:crypto';
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

/** The key of the metadata shared secret in spec.metadata.sharedSecretRef's Secret. */
export const METADATA_SHARED_SECRET_KEY = 'shared-secret';
/** The key of the broker CA bundle in spec.messaging.tls.caSecretRef's Secret (cert-manager's layout, as the database's). */
export const MESSAGING_CA_KEY = 'ca.crt';

/** What a read found missing; the message names the field, the Secret and the key, never a value. */
export type Missing = { missing: 'credentials' | 'transport' | 'serviceUser' | 'metadata' | 'metadataEmpty' | 'messagingCA'; message: string };

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

/** The service user's password; an empty key is missing (keystone refuses an empty password). */
export const readServiceUserPassword = async (secrets: SecretStore, namespace: string, spec: NovaSpec): Promise<string | Missing> => {
  const ref = spec.serviceUser.secretRef.name;
  const secret = await secrets.get(namespace, ref);
  if (!secret) return { missing: 'serviceUser', message: `waiting for the service-user password: no Secret ${ref}` };
  const password = secret.data[PASSWORD_KEY];
  return password ? password : { missing: 'serviceUser', message: `waiting for the service-user password: Secret ${ref} has no key ${PASSWORD_KEY}` };
};

/** The service user's password is there (part 1's gate: its value is read by the Jobs). */
export const serviceUserMissing = async (secrets: SecretStore, namespace: string, spec: NovaSpec): Promise<string | null> => {
  const password = await readServiceUserPassword(secrets, namespace, spec);
  return typeof password === 'string' ? null : password.message;
};

/**
 * The metadata shared secret (undefined without a spec.metadata block). A key that exists but is empty (or only
 * white space) is `metadataEmpty`, not a value: nova would verify instance signatures against an empty key
 * (nova-operator.md, "Pipeline", Secrets), so it waits like a missing one, under its own reason.
 */
export const readMetadataSharedSecret = async (secrets: SecretStore, namespace: string, spec: NovaSpec): Promise<string | Missing | undefined> => {
  const ref = spec.metadata?.sharedSecretRef.name;
  if (ref === undefined) return undefined;
  const secret = await secrets.get(namespace, ref);
  if (!secret) return { missing: 'metadata', message: `waiting for the metadata shared secret (spec.metadata.sharedSecretRef): no Secret ${ref}` };
  const value = secret.data[METADATA_SHARED_SECRET_KEY];
  if (value === undefined) return { missing: 'metadata', message: `waiting for the metadata shared secret (spec.metadata.sharedSecretRef): Secret ${ref} has no key ${METADATA_SHARED_SECRET_KEY}` };
  if (value.trim() === '') {
    return { missing: 'metadataEmpty', message: `the metadata shared secret is empty: key ${METADATA_SHARED_SECRET_KEY} of Secret ${ref} exists but holds nothing, and nova would verify instance metadata requests against an empty key` };
  }
  return value;
};

/**
 * The broker CA bundle on a TLS bus (undefined when spec.messaging.tls is absent or disabled): key `ca.crt` of
 * spec.messaging.tls.caSecretRef, checked to parse as a PEM certificate. A TLS bus without a CA bundle is not
 * verified, so the CA is required, for a brownfield and a managed broker alike.
 */
export const readMessagingCA = async (secrets: SecretStore, namespace: string, spec: NovaSpec): Promise<string | Missing | undefined> => {
  const tls = spec.messaging.tls;
  if (tls?.enabled !== true) return undefined;
  const field = 'spec.messaging.tls.caSecretRef';
  if (!tls.caSecretRef) return { missing: 'messagingCA', message: `spec.messaging.tls.enabled is true but ${field} names no Secret: the broker's certificate cannot be verified without its CA bundle` };
  const ref = tls.caSecretRef.name;
  const secret = await secrets.get(namespace, ref);
  if (!secret) return { missing: 'messagingCA', message: `waiting for the broker CA bundle (${field}): no Secret ${ref}` };
  const ca = secret.data[MESSAGING_CA_KEY];
  if (ca === undefined || ca.trim() === '') return { missing: 'messagingCA', message: `waiting for the broker CA bundle (${field}): Secret ${ref} has no key ${MESSAGING_CA_KEY}` };
  try {
    new X509Certificate(ca);
  } catch {
    return { missing: 'messagingCA', message: `${field}: key ${MESSAGING_CA_KEY} of Secret ${ref} is not a PEM certificate` };
  }
  return ca;
};

/** Where the transport URL is read: the brownfield secretRef, or the managed cluster's `rabbitmq-<clusterRef>`, key `url`. */
export const transportURLRef = (spec: NovaSpec): { name: string; key: string } | undefined => {
  if (spec.messaging.secretRef) return { name: spec.messaging.secretRef.name, key: spec.messaging.secretRef.key ?? TRANSPORT_URL_KEY };
  return spec.messaging.clusterRef ? { name: `${RABBITMQ_SECRET_PREFIX}${spec.messaging.clusterRef.name}`, key: TRANSPORT_URL_KEY } : undefined;
};

/** The brownfield or managed transport URL, or what is missing. */
export const readTransportURL = async (secrets: SecretStore, namespace: string, spec: NovaSpec): Promise<string | Missing> => {
  const ref = transportURLRef(spec);
  if (!ref) return { missing: 'transport', message: 'spec.messaging names neither a Secret nor a cluster' };
  const secret = await secrets.get(namespace, ref.name);
  const key = ref.key;
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

/** What one derived Secret's write did, and the value its rotation digest is taken of. */
export interface Materialized {
  written: boolean;
  /** The DSN or URL the workloads read (a credential: digest it, never log it). */
  value: string;
}

/** Writes one derived Secret, owned by the Nova, when its data differ. */
const writeDerived = async (secrets: SecretStore, nova: NovaRef, name: string, data: Record<string, string>): Promise<boolean> => {
  const current = await secrets.get(nova.namespace, name);
  if (sameData(current?.data, data)) return false;
  await secrets.put(nova.namespace, name, data, { ownerUid: nova.uid, labels: { 'regent.dev/nova': nova.name } });
  return true;
};

/** `{name}-api-db-connection`: the nova_api DSN. */
export const materializeApiConnection = async (secrets: SecretStore, nova: NovaRef, spec: NovaSpec, input: ConnectionInputs['api']): Promise<Materialized> => {
  const dsn = pymysqlDSN(input.endpoint, input.credentials, spec.database.api.database, input.tls);
  return { written: await writeDerived(secrets, nova, connectionSecretNames(nova.name).api, { [CONNECTION_KEY]: dsn }), value: dsn };
};

/** `{name}-db-connection`: the cell DSN and cell0's (the cell DSN with cell0's schema, its query kept). */
export const materializeCellConnection = async (secrets: SecretStore, nova: NovaRef, spec: NovaSpec, input: ConnectionInputs['cell']): Promise<Materialized> => {
  const dsn = pymysqlDSN(input.endpoint, input.credentials, spec.database.cell.database, input.tls);
  const data = { [CONNECTION_KEY]: dsn, [CELL0_CONNECTION_KEY]: withSchema(dsn, cell0Schema(spec.database.cell.database)) };
  return { written: await writeDerived(secrets, nova, connectionSecretNames(nova.name).cell, data), value: dsn };
};

/** `{name}-transport-url`: the URL as read (check it with src/nova/transport-url.ts first: this writes what it is given). */
export const materializeTransportURL = async (secrets: SecretStore, nova: NovaRef, transportURL: string): Promise<Materialized> => ({
  written: await writeDerived(secrets, nova, connectionSecretNames(nova.name).transport, { [TRANSPORT_URL_KEY]: transportURL }),
  value: transportURL,
});

/** Writes the three derived Secrets when their data differ, nova_api first; returns how many were written. */
export const materializeConnectionSecrets = async (secrets: SecretStore, nova: NovaRef, spec: NovaSpec, inputs: ConnectionInputs): Promise<number> => {
  const outcomes = [
    await materializeApiConnection(secrets, nova, spec, inputs.api),
    await materializeCellConnection(secrets, nova, spec, inputs.cell),
    await materializeTransportURL(secrets, nova, inputs.transportURL),
  ];
  return outcomes.filter((o) => o.written).length;
};
