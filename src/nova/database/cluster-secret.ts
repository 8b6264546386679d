/**
 * How the embedded default names a MariaDB server: a Secret `mariadb-<clusterRef>` in the Nova's namespace, read
 * through the SecretStore port, so spec.database.<block>.clusterRef means the same thing on one machine as it
 * does on Kubernetes (where it names a mariadb-operator MariaDB).
 *
 * Keys:
 * - `host`, `port`: the address Nova's DSNs use;
 * - `adminUser`, optional `adminPassword`: how Regent provisions (no password: e.g. root over the socket with
 *   unix_socket authentication);
 * - optional `adminSocket`: Regent connects over that unix socket instead of host:port.
 *
 * A Secret that is absent or unusable is a ClusterResolutionError, which the SQL adapter reports as
 * ClusterNotReady; its message names the Secret and the key, never a value.
 */
import { secretNameErrors, type SecretStore } from '../../kube/secrets.js';
import { ClusterResolutionError, type ClusterResolver, type MariaDBServer } from './sql.js';

export const CLUSTER_SECRET_PREFIX = 'mariadb-';
export const CLUSTER_SECRET_KEYS = { host: 'host', port: 'port', adminUser: 'adminUser', adminPassword: 'adminPassword', adminSocket: 'adminSocket' } as const;

/** The Secret that describes the cluster a clusterRef names. */
export const clusterSecretName = (clusterRef: string): string => `${CLUSTER_SECRET_PREFIX}${clusterRef}`;

const quoted = (text: string): string => JSON.stringify(text);

const PORT = /^[0-9]{1,5}$/;
/** A host name or an IP address (IPv6 bare, as mysql2 takes it); no scheme, path, user or whitespace. */
const HOST = /^[A-Za-z0-9.:_-]{1,253}$/;

export const resolveClusterFromSecrets =
  (secrets: SecretStore): ClusterResolver =>
  async (namespace, clusterRef): Promise<MariaDBServer> => {
    const name = clusterSecretName(clusterRef);
    const secret = `Secret ${quoted(`${namespace}/${name}`)}`;
    if (secretNameErrors(namespace, name).length > 0) throw new ClusterResolutionError(`${quoted(clusterRef)} does not make a valid Secret name (${quoted(name)})`);
    const stored = await secrets.get(namespace, name);
    if (stored === undefined) {
      throw new ClusterResolutionError(`no ${secret} describes it (keys ${CLUSTER_SECRET_KEYS.host}, ${CLUSTER_SECRET_KEYS.port}, ${CLUSTER_SECRET_KEYS.adminUser}; optional ${CLUSTER_SECRET_KEYS.adminPassword}, ${CLUSTER_SECRET_KEYS.adminSocket})`);
    }
    const { data } = stored;
    const bad = (key: string, why: string): never => {
      throw new ClusterResolutionError(`${secret} key ${quoted(key)} ${why}`);
    };
    const required = (key: string): string => {
      const value = data[key];
      return value === undefined || value.trim() === '' ? bad(key, 'is missing or empty') : value.trim();
    };
    const host = required(CLUSTER_SECRET_KEYS.host);
    if (!HOST.test(host)) bad(CLUSTER_SECRET_KEYS.host, 'is not a host name or an IP address');
    const portText = required(CLUSTER_SECRET_KEYS.port);
    const port = PORT.test(portText) ? Number(portText) : NaN;
    if (!(port >= 1 && port <= 65535)) bad(CLUSTER_SECRET_KEYS.port, 'is not a port (1 to 65535)');
    const user = required(CLUSTER_SECRET_KEYS.adminUser);
    const socket = data[CLUSTER_SECRET_KEYS.adminSocket];
    if (socket !== undefined && !socket.startsWith('/')) bad(CLUSTER_SECRET_KEYS.adminSocket, 'is not an absolute path');
    const password = data[CLUSTER_SECRET_KEYS.adminPassword];
    return {
      admin: {
        ...(socket === undefined ? { host, port } : { socketPath: socket }),
        user,
        ...(password === undefined ? {} : { password }),
      },
      host,
      port,
    };
  };
