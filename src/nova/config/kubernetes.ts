/**
 * The Kubernetes ConfigPort (@kubernetes/client-node 1.4.0): each config an immutable ConfigMap `{name}-config-<hash>`
 * in the Nova's namespace, owned by the Nova (controller reference: deleting the Nova collects them), labelled
 * `regent.dev/nova-config: <nova>`.
 *
 * - publish: one LIST of the Nova's configs (by that label). Absent → created (`immutable: true`, annotated with its
 *   publish time); a 409 means a Job or a workload step created the same content first → adopted with a merge patch
 *   of the label and the annotation (metadata stays writable on an immutable ConfigMap). Present but not the most
 *   recently published (a spec that went back to an earlier config) → the annotation patched, so "newest" follows
 *   what was published, not when its bytes were first written. Already newest → no write at all. Then the history
 *   rule: more than three → the `{name}-api` Deployment read once, and every config but the three newest and the one
 *   it mounts is deleted (404 is success).
 * - current: the `{name}-api` Deployment's pod template, its volume of a ConfigMap named like this Nova's configs, and
 *   that ConfigMap's files; undefined when there is no API Deployment, it mounts none, or the ConfigMap is gone.
 *
 * Client failures become ConfigStoreError with the HTTP status (none when the API server is unreachable), in words of
 * our own plus the Status reason and message.
 */
import { AppsV1Api, CoreV1Api, setHeaderOptions, type KubeConfig, type V1ConfigMap } from '@kubernetes/client-node';
import type { NovaRef } from '../jobs/render.js';
import { deploymentName } from '../workloads/port.js';
import { CONFIG_HISTORY, CONFIG_LABEL, ConfigStoreError, PUBLISHED_AT_ANNOTATION, type ConfigPort, type PublishResult } from './port.js';
import { configHash, configNamePattern, type RenderedConfig } from './render.js';
import { podSettings, type NovaConfigSettings } from './settings.js';
import { apiCodeOf, describeApiError } from '../kube-api-error.js';
import { withOwnership, type Ownership } from '../ownership.js';

const MERGE_PATCH = setHeaderOptions('Content-Type', 'application/merge-patch+json');
const NOVA_API_VERSION = 'regent.dev/v1alpha1';

export interface KubernetesConfigStoreOptions extends Ownership {
  readonly kubeConfig: KubeConfig;
  /** The cloud the roles join (keystoneURL, regionName, the service user), over the pod defaults. */
  readonly settings?: Partial<NovaConfigSettings>;
  readonly now?: () => Date;
}

const storeError = (error: unknown, what: string): ConfigStoreError => {
  const { message, code } = describeApiError(error, what);
  return new ConfigStoreError(message, code);
};

const publishedAt = (configMap: V1ConfigMap): string => configMap.metadata?.annotations?.[PUBLISHED_AT_ANNOTATION] ?? new Date(configMap.metadata?.creationTimestamp ?? 0).toISOString();

/** Most recently published first; a tie (same millisecond) by name, so the order is total. */
const newestFirst = (a: V1ConfigMap, b: V1ConfigMap): number => publishedAt(b).localeCompare(publishedAt(a)) || (b.metadata?.name ?? '').localeCompare(a.metadata?.name ?? '');

export const configMapLabels = (nova: string): Record<string, string> => ({ 'app.kubernetes.io/managed-by': 'regent', 'app.kubernetes.io/name': 'nova', 'regent.dev/nova': nova, [CONFIG_LABEL]: nova });

/** The exact ConfigMap `publish` creates. */
export const configMapBody = (nova: NovaRef, config: RenderedConfig, at: string): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name: config.name,
    namespace: nova.namespace,
    labels: configMapLabels(nova.name),
    annotations: { [PUBLISHED_AT_ANNOTATION]: at },
    ownerReferences: [{ apiVersion: NOVA_API_VERSION, kind: 'Nova', name: nova.name, uid: nova.uid, controller: true, blockOwnerDeletion: true }],
  },
  immutable: true,
  data: { ...config.files },
});

export class KubernetesConfigStore implements ConfigPort {
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly now: () => Date;

  constructor(private readonly options: KubernetesConfigStoreOptions) {
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.apps = options.kubeConfig.makeApiClient(AppsV1Api);
    this.now = options.now ?? (() => new Date());
  }

  settings(): NovaConfigSettings {
    return podSettings(this.options.settings);
  }

  async publish(nova: NovaRef, config: RenderedConfig): Promise<PublishResult> {
    const listed = await this.list(nova);
    const at = this.now().toISOString();
    const existing = listed.find((c) => c.metadata?.name === config.name);
    const newest = [...listed].sort(newestFirst)[0];
    let created = false;
    if (existing === undefined) created = await this.create(nova, config, at);
    else if (newest !== existing) await this.stamp(nova, config.name, at);
    // read again after a write, so the history rule orders by what is stored now
    const configs = existing === undefined || newest !== existing ? await this.list(nova) : listed;
    return { created, pruned: await this.prune(nova, configs) };
  }

  async current(namespace: string, nova: string): Promise<RenderedConfig | undefined> {
    const name = await this.liveName(namespace, nova);
    if (name === undefined) return undefined;
    let configMap: V1ConfigMap;
    try {
      configMap = await this.core.readNamespacedConfigMap({ namespace, name });
    } catch (error) {
      if (apiCodeOf(error) === 404) return undefined;
      throw storeError(error, `reading ConfigMap ${namespace}/${name}`);
    }
    const files = { ...(configMap.data ?? {}) };
    return { name, hash: configHash(files), files };
  }

  /** The config the `{name}-api` Deployment mounts, by name. */
  private async liveName(namespace: string, nova: string): Promise<string | undefined> {
    const name = deploymentName(nova, 'api');
    try {
      const deployment = await this.apps.readNamespacedDeployment({ namespace, name });
      const pattern = configNamePattern(nova);
      return (deployment.spec?.template?.spec?.volumes ?? []).map((v) => v.configMap?.name).find((n): n is string => n !== undefined && pattern.test(n));
    } catch (error) {
      if (apiCodeOf(error) === 404) return undefined;
      throw storeError(error, `reading Deployment ${namespace}/${name}`);
    }
  }

  private async list(nova: NovaRef): Promise<V1ConfigMap[]> {
    try {
      const pattern = configNamePattern(nova.name);
      return (await this.core.listNamespacedConfigMap({ namespace: nova.namespace, labelSelector: `${CONFIG_LABEL}=${nova.name}` })).items.filter((c) => pattern.test(c.metadata?.name ?? ''));
    } catch (error) {
      throw storeError(error, `listing the configs of Nova ${nova.namespace}/${nova.name}`);
    }
  }

  /** True when created; false when it was there already (created by a Job or a workload step): then adopted. */
  private async create(nova: NovaRef, config: RenderedConfig, at: string): Promise<boolean> {
    try {
      await this.core.createNamespacedConfigMap({ namespace: nova.namespace, body: withOwnership(configMapBody(nova, config, at), nova.uid, this.options) });
      return true;
    } catch (error) {
      if (apiCodeOf(error) !== 409) throw storeError(error, `creating ConfigMap ${nova.namespace}/${config.name}`);
    }
    await this.stamp(nova, config.name, at);
    return false;
  }

  /** The label and the publish time: metadata, which an immutable ConfigMap still lets change. */
  private async stamp(nova: NovaRef, name: string, at: string): Promise<void> {
    try {
      await this.core.patchNamespacedConfigMap({ namespace: nova.namespace, name, body: { metadata: { labels: { [CONFIG_LABEL]: nova.name }, annotations: { [PUBLISHED_AT_ANNOTATION]: at } } } }, MERGE_PATCH);
    } catch (error) {
      throw storeError(error, `marking ConfigMap ${nova.namespace}/${name} published`);
    }
  }

  private async prune(nova: NovaRef, configs: V1ConfigMap[]): Promise<string[]> {
    if (configs.length <= CONFIG_HISTORY) return [];
    const live = await this.liveName(nova.namespace, nova.name);
    const doomed = [...configs]
      .sort(newestFirst)
      .slice(CONFIG_HISTORY)
      .map((c) => c.metadata?.name ?? '')
      .filter((name) => name !== '' && name !== live)
      .sort();
    for (const name of doomed) {
      try {
        await this.core.deleteNamespacedConfigMap({ namespace: nova.namespace, name });
      } catch (error) {
        if (apiCodeOf(error) !== 404) throw storeError(error, `deleting ConfigMap ${nova.namespace}/${name}`);
      }
    }
    return doomed;
  }
}
