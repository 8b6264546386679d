/**
 * The exports publication port (issue 29; openstack-cluster-modules.md, "Exports"): a WorkloadCluster's exports,
 * schema `captf.io/openstack-cluster/v1`, published as the ConfigMap `<cluster>-openstack-exports` in the cluster's
 * namespace, where its machines (and anything else of the workload cluster's tooling) read them:
 *
 *   metadata.labels  regent.dev/workload-cluster: <cluster>
 *   data.schema      captf.io/openstack-cluster/v1
 *   data.exports.json  the exports as JSON (keys sorted, so equal exports are equal bytes and republishing is no write)
 *
 * With `owner` (the WorkloadCluster's uid) the ConfigMap is owned by the cluster (a controller reference): deleting the
 * cluster collects it, on a cluster and in the embedded store alike.
 *
 * Two implementations: `embeddedExportsPublisher(source)` over the embedded resource store, which holds core v1
 * ConfigMaps (src/resources/config-map.ts; `regent get configmaps -n <ns>`), and `kubernetesExportsPublisher(kubeConfig)`
 * over the core API (CoreV1Api: read, create on 404, replace with the read's resourceVersion on a change, delete). A
 * ConfigMap whose exports do not decode is an ExportsPublisherError on read, never guessed at.
 */
import { CoreV1Api, KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import { isLeft } from 'fp-ts/lib/Either.js';
import { canonicalJson } from '../resources/codec/transitions.js';
import { CLUSTER_EXPORTS_SCHEMA, ClusterExports, type ConfigMap, type InputOf, type OwnerReference } from '../resources/index.js';
import { describeFieldErrors, toFieldErrors } from '../resources/codec/report.js';
import { NotFound } from '../kube/errors.js';
import type { ResourceSource } from '../kube/port.js';

export const EXPORTS_CONFIG_MAP_SUFFIX = '-openstack-exports';
export const WORKLOAD_CLUSTER_LABEL = 'regent.dev/workload-cluster';
export const EXPORTS_SCHEMA_KEY = 'schema';
export const EXPORTS_JSON_KEY = 'exports.json';

/** `<cluster>-openstack-exports`. */
export const exportsConfigMapName = (clusterName: string): string => `${clusterName}${EXPORTS_CONFIG_MAP_SUFFIX}`;

export interface PublishOptions {
  /** The WorkloadCluster's uid: the ConfigMap gets a controller reference to it (garbage-collected with it). */
  readonly owner?: { readonly uid: string };
}

export interface ExportsPublisher {
  /** Creates or updates `<cluster>-openstack-exports`; no write when it already holds these exports. */
  publish(namespace: string, clusterName: string, exports: ClusterExports, options?: PublishOptions): Promise<{ name: string }>;
  /** The published exports; undefined when there is no ConfigMap. */
  read(namespace: string, clusterName: string): Promise<ClusterExports | undefined>;
  /** Deletes the ConfigMap; absent is success. */
  remove(namespace: string, clusterName: string): Promise<void>;
}

/** A failed publication, read or removal; `code` is the Kubernetes API's HTTP status when there was one. */
export class ExportsPublisherError extends Error {
  override readonly name = 'ExportsPublisherError';
  constructor(message: string, readonly code?: number, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The ConfigMap's data: the schema and the canonical JSON. */
export const exportsConfigMapData = (exports: ClusterExports): Record<string, string> => ({ [EXPORTS_SCHEMA_KEY]: exports.schema, [EXPORTS_JSON_KEY]: canonicalJson(exports) });

export const exportsLabels = (clusterName: string): Record<string, string> => ({ 'app.kubernetes.io/managed-by': 'regent', [WORKLOAD_CLUSTER_LABEL]: clusterName });

const ownerReference = (clusterName: string, uid: string): OwnerReference => ({ apiVersion: 'regent.dev/v1alpha1', kind: 'WorkloadCluster', name: clusterName, uid, controller: true, blockOwnerDeletion: true });

/** The exports a ConfigMap's data holds, decoded; an ExportsPublisherError when they are missing or do not decode. */
export const exportsFromData = (where: string, data: Record<string, string> | undefined): ClusterExports => {
  const text = data?.[EXPORTS_JSON_KEY];
  if (text === undefined) throw new ExportsPublisherError(`${where}: no ${EXPORTS_JSON_KEY} key`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ExportsPublisherError(`${where}: ${EXPORTS_JSON_KEY} is not JSON`, undefined, { cause: error });
  }
  const decoded = ClusterExports.decode(parsed);
  if (isLeft(decoded)) throw new ExportsPublisherError(`${where}: ${EXPORTS_JSON_KEY} is not ${CLUSTER_EXPORTS_SCHEMA} exports: ${describeFieldErrors(toFieldErrors(decoded.left))}`);
  return decoded.right;
};

// ─── embedded ────────────────────────────────────────────────────────────────────────────────────────

/**
 * The embedded store's core v1 ConfigMaps (src/resources/config-map.ts), through its resource source. For the embedded
 * store only: the Kubernetes resource source serves Regent's custom resources and refuses a ConfigMap, so
 * exportsPublisherFor never hands it one (a Kubernetes source gets KubernetesExportsPublisher). Hence `embedded`, not
 * `source`: no call here is a call of the Kubernetes adapter (test/deploy/support/adapter.ts scans `source.<method>(`).
 */
export const embeddedExportsPublisher = (embedded: ResourceSource): ExportsPublisher => ({
  async publish(namespace, clusterName, exports, options = {}) {
    const name = exportsConfigMapName(clusterName);
    const existing = (await embedded.get('ConfigMap', namespace, name)) as ConfigMap | undefined;
    const labels = { ...(existing?.metadata.labels ?? {}), ...exportsLabels(clusterName) };
    const ownerReferences = options.owner === undefined ? existing?.metadata.ownerReferences : [ownerReference(clusterName, options.owner.uid)];
    const input = {
      apiVersion: 'v1',
      kind: 'ConfigMap' as const,
      metadata: { name, namespace, labels, ...(ownerReferences === undefined ? {} : { ownerReferences }) },
      spec: {},
      data: exportsConfigMapData(exports),
    };
    // apply: created when absent; otherwise data replaced, labels merged, no write when nothing changed
    await embedded.apply(input as InputOf<'ConfigMap'>);
    return { name };
  },

  async read(namespace, clusterName) {
    const name = exportsConfigMapName(clusterName);
    const configMap = (await embedded.get('ConfigMap', namespace, name)) as ConfigMap | undefined;
    return configMap === undefined ? undefined : exportsFromData(`ConfigMap ${namespace}/${name}`, configMap.data);
  },

  async remove(namespace, clusterName) {
    try {
      await embedded.delete('ConfigMap', namespace, exportsConfigMapName(clusterName));
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
    }
  },
});

// ─── Kubernetes ──────────────────────────────────────────────────────────────────────────────────────

const codeOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
};

const apiError = (error: unknown, what: string): ExportsPublisherError => {
  const code = codeOf(error);
  return new ExportsPublisherError(code === undefined ? `${what}: cannot reach the Kubernetes API` : `${what}: the API server answered ${code}`, code, { cause: error });
};

/** A replace that lost a race (409) is read and tried again, at most this many times in all. */
const PUBLISH_ATTEMPTS = 3;

/**
 * The core v1 ConfigMaps of a cluster (@kubernetes/client-node 1.4.0 CoreV1Api): readNamespacedConfigMap,
 * createNamespacedConfigMap (404), replaceNamespacedConfigMap (a change; PUT with the read's resourceVersion),
 * deleteNamespacedConfigMap. Never lists, watches or patches.
 */
export class KubernetesExportsPublisher implements ExportsPublisher {
  private readonly core: CoreV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async publish(namespace: string, clusterName: string, exports: ClusterExports, options: PublishOptions = {}): Promise<{ name: string }> {
    const name = exportsConfigMapName(clusterName);
    const data = exportsConfigMapData(exports);
    for (let attempt = 1; ; attempt++) {
      const existing = await this.get(namespace, name);
      const ownerReferences = options.owner === undefined ? existing?.metadata?.ownerReferences : [ownerReference(clusterName, options.owner.uid)];
      const body: V1ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name,
          namespace,
          labels: { ...(existing?.metadata?.labels ?? {}), ...exportsLabels(clusterName) },
          ...(existing?.metadata?.annotations === undefined ? {} : { annotations: existing.metadata.annotations }),
          ...(ownerReferences === undefined ? {} : { ownerReferences }),
          ...(existing?.metadata?.resourceVersion === undefined ? {} : { resourceVersion: existing.metadata.resourceVersion }),
        },
        data,
      };
      try {
        if (existing === undefined) {
          await this.core.createNamespacedConfigMap({ namespace, body });
        } else {
          if (canonicalJson({ data: existing.data ?? {}, labels: existing.metadata?.labels, owners: existing.metadata?.ownerReferences }) === canonicalJson({ data, labels: body.metadata?.labels, owners: ownerReferences })) return { name };
          await this.core.replaceNamespacedConfigMap({ namespace, name, body });
        }
        return { name };
      } catch (error) {
        if (codeOf(error) === 409 && attempt < PUBLISH_ATTEMPTS) continue; // created or changed meanwhile: read again
        throw apiError(error, `publishing ConfigMap ${namespace}/${name}`);
      }
    }
  }

  async read(namespace: string, clusterName: string): Promise<ClusterExports | undefined> {
    const name = exportsConfigMapName(clusterName);
    const configMap = await this.get(namespace, name);
    return configMap === undefined ? undefined : exportsFromData(`ConfigMap ${namespace}/${name}`, configMap.data);
  }

  async remove(namespace: string, clusterName: string): Promise<void> {
    const name = exportsConfigMapName(clusterName);
    try {
      await this.core.deleteNamespacedConfigMap({ namespace, name });
    } catch (error) {
      if (codeOf(error) !== 404) throw apiError(error, `deleting ConfigMap ${namespace}/${name}`);
    }
  }

  private async get(namespace: string, name: string): Promise<V1ConfigMap | undefined> {
    try {
      return await this.core.readNamespacedConfigMap({ namespace, name });
    } catch (error) {
      if (codeOf(error) === 404) return undefined;
      throw apiError(error, `reading ConfigMap ${namespace}/${name}`);
    }
  }
}

export const kubernetesExportsPublisher = (kubeConfig: KubeConfig): ExportsPublisher => new KubernetesExportsPublisher(kubeConfig);

/**
 * The publisher for a resource source: over the Kubernetes source's own kubeConfig (the cluster client Regent already
 * uses: src/kube/kubernetes/source.ts) when the source has one, else over the embedded store's ConfigMaps.
 */
export const exportsPublisherFor = (source: ResourceSource): ExportsPublisher => {
  const kubeConfig = (source as { kubeConfig?: unknown }).kubeConfig;
  return kubeConfig instanceof KubeConfig ? kubernetesExportsPublisher(kubeConfig) : embeddedExportsPublisher(source);
};
