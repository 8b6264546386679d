/**
 * TLS to a Nova's databases: spec.database.<block>.tls (issue 24; nova-operator.md, "DBArchive": "The database TLS
 * files are projected at mode 0400, and without the group owning them nova-manage could not read the client key
 * it connects with"; "Watches": "the CA bundle and client certificate of each database block whose tls is
 * enabled").
 *
 * A block whose tls is enabled:
 * - its CA bundle is key `ca.crt` of tls.caSecretRef; its client certificate and key are keys `tls.crt` and `tls.key`
 *   of tls.clientCertSecretRef, which is optional (without it the server is verified and no client certificate is
 *   presented). That is cert-manager's Secret layout, so a Certificate's Secret can be named as it is;
 * - every DSN Regent derives for it (the block's own; for the cell block cell0's too, src/nova/connection-secrets.ts)
 *   carries ssl_ca, and with a client certificate ssl_cert and ssl_key, naming the files in the directory the
 *   JobRunner puts them in (JobRunner.databaseTlsDir). SQLAlchemy's pymysql dialect hands these to pymysql as its
 *   `ssl` argument, which then verifies the server's certificate and host name against the CA;
 * - the Jobs' pods get those files (JobSpec.databaseTls): on Kubernetes a projected volume at defaultMode 0400 in a
 *   pod whose fsGroup is the openstack GID; the local runner writes them at 0400 into a private directory;
 * - Regent's own provisioning connection (src/nova/database/sql.ts) uses the same CA and client certificate.
 * A block without tls, or with enabled: false, reads nothing and renders nothing: a disabled block contributes nothing.
 *
 * The cell mappings nova-manage stores are templates (`…?{query}`, src/nova/scripts/db-sync.ts) that every nova
 * process expands from its own [database] connection, so the ssl_* paths a process uses are always those of its
 * own DSN and pod, never paths another pod wrote into nova_api.
 *
 * Pure except readDatabaseTls, which reads the Secrets through the SecretStore port. No value of a Secret reaches a
 * message, a log, an event or a hash.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import type { SecretStore } from '../kube/secrets.js';
import type { NovaSpec } from '../resources/nova.js';
import type { DatabaseBlockName, DatabaseTlsMount } from './jobs/port.js';

/** The Secret keys, which are also the file names in the block's TLS directory. */
export const DATABASE_TLS_KEYS = { ca: 'ca.crt', cert: 'tls.crt', key: 'tls.key' } as const;

/**
 * Where a Kubernetes Job's pod mounts a block's files: `/etc/nova-db-tls/<block>`. Not under /etc/nova, which is the
 * read-only config ConfigMap: a mount point nested in a read-only volume cannot be created by the runtime.
 */
export const POD_DATABASE_TLS_ROOT = '/etc/nova-db-tls';
export const podDatabaseTlsDir = (block: DatabaseBlockName): string => `${POD_DATABASE_TLS_ROOT}/${block}`;

/** The openstack user's group in the service images; the pods' fsGroup, so the 0400 files are group-readable to it. */
export const OPENSTACK_GID = 42424;

type Tls = NonNullable<NovaSpec['database']['api']['tls']>;

/** The block's tls when it is enabled; undefined for an absent or disabled block. */
export const enabledTls = (spec: NovaSpec, block: DatabaseBlockName): Tls | undefined => {
  const tls = spec.database[block].tls;
  return tls?.enabled === true ? tls : undefined;
};

/** The files of a block whose tls is enabled, in `dir`; undefined otherwise. */
export const databaseTlsMount = (spec: NovaSpec, block: DatabaseBlockName, dir: string): DatabaseTlsMount | undefined => {
  const tls = enabledTls(spec, block);
  if (!tls) return undefined;
  const files: Array<{ secret: string; key: string; path: string }> = [];
  // The codec requires caSecretRef when enabled; a stored object from before that rule still gets no mount of ''.
  if (tls.caSecretRef) files.push({ secret: tls.caSecretRef.name, key: DATABASE_TLS_KEYS.ca, path: DATABASE_TLS_KEYS.ca });
  if (tls.clientCertSecretRef) {
    files.push({ secret: tls.clientCertSecretRef.name, key: DATABASE_TLS_KEYS.cert, path: DATABASE_TLS_KEYS.cert });
    files.push({ secret: tls.clientCertSecretRef.name, key: DATABASE_TLS_KEYS.key, path: DATABASE_TLS_KEYS.key });
  }
  return { block, dir, files };
};

/** The TLS mounts of both blocks (only the enabled ones), for a Job's pod. */
export const databaseTlsMounts = (spec: NovaSpec, dir: (block: DatabaseBlockName) => string): DatabaseTlsMount[] =>
  (['api', 'cell'] as const).flatMap((block) => {
    if (!enabledTls(spec, block)) return [];
    const mount = databaseTlsMount(spec, block, dir(block));
    return mount ? [mount] : [];
  });

const QUERY_PARAMETER: Readonly<Record<string, string>> = { [DATABASE_TLS_KEYS.ca]: 'ssl_ca', [DATABASE_TLS_KEYS.cert]: 'ssl_cert', [DATABASE_TLS_KEYS.key]: 'ssl_key' };

/** The DSN query parameters of a mount: ssl_ca, and ssl_cert and ssl_key with a client certificate. */
export const databaseTlsQuery = (mount: DatabaseTlsMount): Array<[string, string]> =>
  mount.files.flatMap((f) => {
    const parameter = QUERY_PARAMETER[f.path];
    return parameter ? [[parameter, `${mount.dir}/${f.path}`] as [string, string]] : [];
  });

/** The client-side TLS material of a block, for Regent's own provisioning connection. Values: never log them. */
export interface DatabaseTlsMaterial {
  ca: string;
  cert?: string;
  key?: string;
}

const quoted = (text: string): string => JSON.stringify(text);

/**
 * Reads and checks a block's TLS Secrets: the CA bundle parses as an X.509 certificate, the client certificate too,
 * and its key is the certificate's. Undefined for a block without enabled tls; `{ missing }` names the field, the
 * Secret and the key (and what is wrong), never a value: a Job started without them would fail against a server
 * that requires TLS, or silently connect in clear text to one that does not.
 */
export const readDatabaseTls = async (secrets: SecretStore, namespace: string, spec: NovaSpec, block: DatabaseBlockName): Promise<DatabaseTlsMaterial | { missing: string } | undefined> => {
  const tls = enabledTls(spec, block);
  if (!tls) return undefined;
  const field = `spec.database.${block}.tls`;
  if (!tls.caSecretRef) return { missing: `${field}.enabled is true but ${field}.caSecretRef names no Secret` };
  const value = async (ref: 'caSecretRef' | 'clientCertSecretRef', name: string, key: string): Promise<string | { missing: string }> => {
    const secret = await secrets.get(namespace, name);
    if (!secret) return { missing: `waiting for ${field}.${ref}: no Secret ${quoted(name)}` };
    const text = secret.data[key];
    if (text === undefined || text.trim() === '') return { missing: `waiting for ${field}.${ref}: Secret ${quoted(name)} has no key ${quoted(key)}` };
    return text;
  };
  const ca = await value('caSecretRef', tls.caSecretRef.name, DATABASE_TLS_KEYS.ca);
  if (typeof ca !== 'string') return ca;
  try {
    new X509Certificate(ca);
  } catch {
    return { missing: `${field}.caSecretRef: key ${quoted(DATABASE_TLS_KEYS.ca)} of Secret ${quoted(tls.caSecretRef.name)} is not a PEM certificate` };
  }
  if (!tls.clientCertSecretRef) return { ca };
  const name = tls.clientCertSecretRef.name;
  const cert = await value('clientCertSecretRef', name, DATABASE_TLS_KEYS.cert);
  if (typeof cert !== 'string') return cert;
  const key = await value('clientCertSecretRef', name, DATABASE_TLS_KEYS.key);
  if (typeof key !== 'string') return key;
  const problem = (what: string) => ({ missing: `${field}.clientCertSecretRef: Secret ${quoted(name)}: ${what}` });
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    return problem(`key ${quoted(DATABASE_TLS_KEYS.cert)} is not a PEM certificate`);
  }
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(key))) return problem(`key ${quoted(DATABASE_TLS_KEYS.key)} is not the private key of ${quoted(DATABASE_TLS_KEYS.cert)}`);
  } catch {
    return problem(`key ${quoted(DATABASE_TLS_KEYS.key)} is not a PEM private key`);
  }
  return { ca, cert, key };
};
