/**
 * A pass of the Nova lane for the gate and probe steps' tests: a Nova, a SecretStore over a record that counts its
 * writes (a delete or list fails loudly: no step may do either), and deps of which only what the steps may touch is
 * present — any other port a step reaches for throws, naming it.
 */
import type { SecretStore, StoredSecret } from '../../../src/kube/secrets.js';
import type { Nova, NovaSpec } from '../../../src/resources/nova.js';
import type { NovaLanePass } from '../../../src/controllers/nova/pass.js';
import type { NovaControllerDeps } from '../../../src/controllers/nova/reconcile.js';
import type { DatabaseEndpoint } from '../../../src/nova/connection-secrets.js';
import type { SecretStoreGate } from '../../../src/nova/secret-store.js';
import type { HealthProbeCache } from '../../../src/nova/health-probe.js';
import type { GroupObjects } from '../../../src/nova/group/port.js';

export const NS = 'openstack';
export const NAME = 'nova';
export const UID = 'nova-uid';

/** Credentials whose values tests look for in messages, outcomes and digests (none may appear). */
export const VALUES = {
  apiPassword: 'api-S3cret-pw',
  cellPassword: 'cell-S3cret-pw',
  serviceUser: 'service-S3cret-pw',
  metadata: 'metadata-S3cret-shared',
  busPassword: 'bus-S3cret-pw',
} as const;

export const baseSpec = (): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: {
    api: { clusterRef: { name: 'maria-api' }, database: 'nova_api', secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'maria-cell' }, database: 'nova', secretRef: { name: 'nova-db' } },
  },
  messaging: { secretRef: { name: 'nova-bus', key: 'url' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
  metadata: { sharedSecretRef: { name: 'nova-metadata' } },
});

export const transportURL = (host = 'rabbit.openstack.svc:5672'): string => `rabbit://nova:${VALUES.busPassword}@${host}/nova`;

/** Every Secret the base spec reads, present and filled. */
export const allSecrets = (): Record<string, Record<string, string>> => ({
  'nova-api-db': { username: 'nova_api', password: VALUES.apiPassword },
  'nova-db': { username: 'nova', password: VALUES.cellPassword },
  'nova-service-user': { password: VALUES.serviceUser },
  'nova-metadata': { 'shared-secret': VALUES.metadata },
  'nova-bus': { url: transportURL() },
});

export interface RecordingSecrets extends SecretStore {
  /** namespace-less name → data, as stored now (seeded and written). */
  readonly data: Map<string, Record<string, string>>;
  /** Names in the order they were put. */
  readonly puts: string[];
}

export const recordingSecrets = (seed: Record<string, Record<string, string>> = {}): RecordingSecrets => {
  const data = new Map(Object.entries(seed).map(([name, d]) => [name, { ...d }]));
  const puts: string[] = [];
  let version = 1;
  return {
    data,
    puts,
    get: async (namespace, name) => {
      if (namespace !== NS) throw new Error(`a Secret read outside the Nova's namespace: ${namespace}/${name}`);
      const found = data.get(name);
      return found === undefined ? undefined : ({ data: { ...found }, version: String(version), labels: {} } satisfies StoredSecret);
    },
    put: async (namespace, name, d) => {
      if (namespace !== NS) throw new Error(`a Secret written outside the Nova's namespace: ${namespace}/${name}`);
      const created = !data.has(name);
      data.set(name, { ...d });
      puts.push(name);
      version += 1;
      return { version: String(version), created };
    },
    delete: async (namespace, name) => {
      throw new Error(`unexpected SecretStore.delete(${namespace}/${name})`);
    },
    list: async () => {
      throw new Error('unexpected SecretStore.list');
    },
  };
};

export interface PassOptions {
  spec?: NovaSpec;
  secrets?: RecordingSecrets;
  /** Address per cluster name; absent: unknown. Default: both clusters known. */
  endpoints?: Record<string, DatabaseEndpoint>;
  secretStoreGate?: SecretStoreGate;
  healthProbe?: HealthProbeCache;
  /** The parallel group's objects; absent: the embedded default's (every capability not installed). */
  group?: GroupObjects;
  values?: Partial<NovaLanePass['values']>;
}

/** Deps holding only the ports these steps may use; reaching for another one throws. */
const strictDeps = (present: Record<string, unknown>): NovaControllerDeps =>
  new Proxy(present, {
    get(target, property) {
      if (typeof property === 'string' && !(property in target)) throw new Error(`the step reached for deps.${property}, which it must not use`);
      return Reflect.get(target, property);
    },
  }) as unknown as NovaControllerDeps;

export const tlsDir = (block: string): string => `/var/run/nova-tls/${block}`;

export const makePass = (options: PassOptions = {}): NovaLanePass & { secrets: RecordingSecrets; endpointAsks: string[] } => {
  const spec = options.spec ?? baseSpec();
  const secrets = options.secrets ?? recordingSecrets(allSecrets());
  const endpoints = options.endpoints ?? { 'maria-api': { host: 'maria-api.openstack.svc', port: 3306 }, 'maria-cell': { host: 'maria-cell.openstack.svc', port: 3306 } };
  const endpointAsks: string[] = [];
  const nova = { apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', metadata: { name: NAME, namespace: NS, uid: UID, generation: 1 }, spec } as unknown as Nova;
  const deps = strictDeps({
    secrets,
    databaseEndpoint: async (namespace: string, cluster: string) => {
      endpointAsks.push(cluster);
      return namespace === NS ? endpoints[cluster] : undefined;
    },
    jobs: new Proxy({ databaseTlsDir: (_ns: string, _nova: string, block: string) => tlsDir(block) }, {
      get(target, property) {
        if (property !== 'databaseTlsDir' && property !== 'then') throw new Error(`the step reached for deps.jobs.${String(property)}`);
        return Reflect.get(target, property);
      },
    }),
    ...(options.secretStoreGate ? { secretStoreGate: options.secretStoreGate } : {}),
    ...(options.healthProbe ? { healthProbe: options.healthProbe } : {}),
  });
  // The optional ports are read as `deps.x ?? default`: present-but-absent must answer undefined, not throw.
  const lenient = new Proxy(deps as object, {
    get(target, property) {
      if (property === 'secretStoreGate' || property === 'healthProbe' || property === 'group') return (options as Record<string, unknown>)[property];
      return Reflect.get(target, property);
    },
  }) as NovaControllerDeps;
  return {
    nova,
    ref: { namespace: NS, name: NAME, uid: UID },
    deps: lenient,
    values: { digests: {}, ...options.values },
    upgrading: false,
    now: () => new Date('2026-01-01T00:00:00Z'),
    secrets,
    endpointAsks,
  };
};

/** Everything a step said, as text: no credential value may appear in it. */
export const spoken = (report: unknown): string => JSON.stringify(report, (_k, v: unknown) => (v instanceof Error ? v.message : v));

export const containsNoCredential = (text: string): string | undefined => Object.values(VALUES).find((value) => text.includes(value));
