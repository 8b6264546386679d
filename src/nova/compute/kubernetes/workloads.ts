/**
 * The pool's workloads on Kubernetes (nova-operator.md, "reconcileNovaComputeConfig", "reconcileNovaComputeDaemonSet",
 * "Requeue and teardown"), in the one namespace the adapter is made for (a call naming another is refused: it would be
 * a pool writing outside the namespace its RBAC and its watches cover).
 *
 * **ensureDaemonSet**: one GET of `{pool}-nova-compute`; created on 404; replaced (PUT with the read's resourceVersion,
 * the labels and annotations others put on it kept, ours over theirs) only when it drifted:
 *   - its SPEC_HASH_ANNOTATION is not the digest of what we render now (./render.ts: our template, selector or
 *     strategy changed),
 *   - a field we render reads differently on the live object (someone edited the image, the affinity, …): compared
 *     as "ours is contained in theirs", since the API server adds defaults everywhere in a pod template,
 *   - one of our labels is missing or different, or the owner references are not exactly the NovaCompute's.
 * Otherwise nothing is written, so a pass that changes nothing writes nothing and never rolls a pod. The status is
 * judged from the DaemonSet as the API server returned it (the GET, or the write's answer): rolled out when the
 * controller observed the current generation and every scheduled pod is updated and ready (a DaemonSet that
 * schedules no pod is rolled out: there is nothing to roll).
 * An affinity without a term is refused (ComputeClusterError without a status): it selects no node, and the step
 * deletes the DaemonSet instead.
 *
 * **podsOn**: one LIST of the pool's pods (labelSelector POOL_LABEL=<pool>), narrowed by `fieldSelector
 * spec.nodeName=<node>` when exactly one node is asked for ("the pods are listed once per pass: on the node for a
 * single Releasing node, and for the whole pool when there are more"). A pod counts until its phase is Succeeded or
 * Failed: a terminating pod still runs nova-compute.
 *
 * **publishConfig**: the pool's configs are the ConfigMaps labelled POOL_LABEL=<pool> named `{pool}-config-…`, listed
 * once. Absent → created immutable, annotated with its publish time (a 409 means a concurrent pass created the same
 * content: adopted by a merge patch of the annotation); present but not the most recently published → only the
 * annotation patched (metadata stays writable on an immutable ConfigMap); already newest → no write. More than
 * CONFIG_HISTORY (3) → the DaemonSet read once, and every config but the three newest and the one it mounts deleted.
 *
 * **removeAll**: the DaemonSet (Background, so its pods go with it), every ConfigMap labelled with the pool, and the
 * VerticalPodAutoscaler when the VPA API is served (a probe that failed still tries: 404 is absent).
 *
 * Every client failure is ComputeClusterError with the HTTP status (none when the API server is unreachable).
 */
import { AppsV1Api, CoreV1Api, setHeaderOptions, type KubeConfig, type V1ConfigMap, type V1DaemonSet } from '@kubernetes/client-node';
import { apiCodeOf } from '../../kube-api-error.js';
import type { Ownership } from '../../ownership.js';
import { CONFIG_HISTORY, PUBLISHED_AT_ANNOTATION } from '../../config/port.js';
import { canonicalJson } from '../../group/kubernetes.js';
import { ComputeClusterError, POOL_LABEL, daemonSetName, type PoolDaemonSetSpec, type PoolDaemonSetStatus, type PoolOwner, type PoolWorkloads } from '../port.js';
import { clusterError, withPoolOwnership } from './common.js';
import { COMPUTE_CONTAINER, SPEC_HASH_ANNOTATION, daemonSetBody, poolConfigMapBody } from './render.js';
import type { KubernetesPoolVPA } from './vpa.js';

const MERGE_PATCH = setHeaderOptions('Content-Type', 'application/merge-patch+json');
const FINISHED_PHASES = new Set(['Succeeded', 'Failed']);

export interface KubernetesPoolWorkloadsOptions extends Ownership {
  readonly kubeConfig: KubeConfig;
  /** The namespace the pools live in: the adapter serves this one only. */
  readonly namespace: string;
  /** The pool VPA adapter removeAll deletes through (its probe shared with the ComputeVPA step). */
  readonly vpa: KubernetesPoolVPA;
  /** The clock of the configs' publish time. */
  readonly now?: () => Date;
}

const ABSENT: PoolDaemonSetStatus = { present: false, desiredNumberScheduled: 0, numberReady: 0, rolledOut: false, image: null };

/** True when every field of `ours` reads the same in `theirs` (theirs may carry more: the API server's defaults). */
export const contains = (theirs: unknown, ours: unknown): boolean => {
  if (Array.isArray(ours)) return Array.isArray(theirs) && theirs.length === ours.length && ours.every((o, i) => contains(theirs[i], o));
  if (typeof ours === 'object' && ours !== null) {
    if (typeof theirs !== 'object' || theirs === null || Array.isArray(theirs)) return false;
    return Object.entries(ours).every(([key, value]) => value === undefined || contains((theirs as Record<string, unknown>)[key], value));
  }
  return theirs === ours;
};

/** Why the live DaemonSet must be replaced, or undefined when it is as rendered. */
export const daemonSetDrift = (live: V1DaemonSet, body: V1DaemonSet): string | undefined => {
  if (live.metadata?.annotations?.[SPEC_HASH_ANNOTATION] !== body.metadata?.annotations?.[SPEC_HASH_ANNOTATION]) return 'spec hash';
  if (!contains(live.spec, body.spec)) return 'spec';
  const labels = live.metadata?.labels ?? {};
  if (Object.entries(body.metadata?.labels ?? {}).some(([k, v]) => labels[k] !== v)) return 'labels';
  if (canonicalJson(live.metadata?.ownerReferences ?? []) !== canonicalJson(body.metadata?.ownerReferences ?? [])) return 'ownerReferences';
  return undefined;
};

/** The counts the step mirrors, judged from the DaemonSet as the API server returned it. */
export const daemonSetStatus = (daemonSet: V1DaemonSet): PoolDaemonSetStatus => {
  const status = daemonSet.status;
  const desired = status?.desiredNumberScheduled ?? 0;
  const ready = status?.numberReady ?? 0;
  const observed = status?.observedGeneration ?? 0;
  const generation = daemonSet.metadata?.generation ?? 0;
  const containers = daemonSet.spec?.template?.spec?.containers ?? [];
  const container = containers.find((c) => c.name === COMPUTE_CONTAINER) ?? containers[0];
  return {
    present: true,
    desiredNumberScheduled: desired,
    numberReady: ready,
    rolledOut: observed >= generation && (status?.updatedNumberScheduled ?? 0) === desired && ready === desired,
    image: container?.image ?? null,
  };
};

const publishedAt = (configMap: V1ConfigMap): string => configMap.metadata?.annotations?.[PUBLISHED_AT_ANNOTATION] ?? new Date(configMap.metadata?.creationTimestamp ?? 0).toISOString();
/** Most recently published first; a tie by name, so the order is total. */
const newestFirst = (a: V1ConfigMap, b: V1ConfigMap): number => publishedAt(b).localeCompare(publishedAt(a)) || (b.metadata?.name ?? '').localeCompare(a.metadata?.name ?? '');

export class KubernetesPoolWorkloads implements PoolWorkloads {
  private readonly apps: AppsV1Api;
  private readonly core: CoreV1Api;
  private readonly ownership: Ownership;
  private readonly namespace: string;
  private readonly vpa: KubernetesPoolVPA;
  private readonly now: () => Date;

  constructor(options: KubernetesPoolWorkloadsOptions) {
    this.apps = options.kubeConfig.makeApiClient(AppsV1Api);
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
    this.ownership = { remote: options.remote === true };
    this.namespace = options.namespace;
    this.vpa = options.vpa;
    this.now = options.now ?? (() => new Date());
  }

  async ensureDaemonSet(spec: PoolDaemonSetSpec): Promise<PoolDaemonSetStatus> {
    this.serves(spec.namespace);
    const { namespace } = spec;
    const name = daemonSetName(spec.pool);
    let body: V1DaemonSet;
    try {
      body = withPoolOwnership(daemonSetBody(spec), this.ownership);
    } catch (error) {
      throw new ComputeClusterError((error as Error).message);
    }
    let live = await this.readDaemonSet(namespace, name);
    if (live === undefined) {
      try {
        live = await this.apps.createNamespacedDaemonSet({ namespace, body });
      } catch (error) {
        throw clusterError(error, `cannot create DaemonSet ${namespace}/${name}`);
      }
    } else if (daemonSetDrift(live, body) !== undefined) {
      const metadata = {
        ...body.metadata,
        labels: { ...live.metadata?.labels, ...body.metadata?.labels },
        annotations: { ...live.metadata?.annotations, ...body.metadata?.annotations },
        resourceVersion: live.metadata?.resourceVersion,
      };
      try {
        live = await this.apps.replaceNamespacedDaemonSet({ namespace, name, body: { ...body, metadata } });
      } catch (error) {
        throw clusterError(error, `cannot replace DaemonSet ${namespace}/${name}`);
      }
    }
    return daemonSetStatus(live);
  }

  async deleteDaemonSet(namespace: string, pool: string): Promise<boolean> {
    this.serves(namespace);
    const name = daemonSetName(pool);
    try {
      await this.apps.deleteNamespacedDaemonSet({ namespace, name, propagationPolicy: 'Background' });
      return true;
    } catch (error) {
      if (apiCodeOf(error) === 404) return false;
      throw clusterError(error, `cannot delete DaemonSet ${namespace}/${name}`);
    }
  }

  async daemonSet(namespace: string, pool: string): Promise<PoolDaemonSetStatus> {
    this.serves(namespace);
    const live = await this.readDaemonSet(namespace, daemonSetName(pool));
    return live === undefined ? { ...ABSENT } : daemonSetStatus(live);
  }

  async podsOn(namespace: string, pool: string, nodes?: readonly string[]): Promise<Set<string>> {
    this.serves(namespace);
    const running = new Set<string>();
    if (nodes !== undefined && nodes.length === 0) return running;
    const wanted = nodes === undefined ? undefined : new Set(nodes);
    const labelSelector = `${POOL_LABEL}=${pool}`;
    const fieldSelector = nodes?.length === 1 ? `spec.nodeName=${nodes[0]!}` : undefined;
    let pods;
    try {
      pods = await this.core.listNamespacedPod({ namespace, labelSelector, ...(fieldSelector === undefined ? {} : { fieldSelector }) });
    } catch (error) {
      throw clusterError(error, `cannot list the pods of pool ${namespace}/${pool}${fieldSelector === undefined ? '' : ` on ${nodes![0]!}`}`);
    }
    for (const pod of pods.items) {
      const node = pod.spec?.nodeName;
      if (node === undefined || node === '' || FINISHED_PHASES.has(pod.status?.phase ?? '')) continue;
      if (wanted === undefined || wanted.has(node)) running.add(node);
    }
    return running;
  }

  async publishConfig(namespace: string, owner: PoolOwner, config: { name: string; files: Readonly<Record<string, string>> }): Promise<boolean> {
    this.serves(namespace);
    const listed = await this.configs(namespace, owner.name);
    const at = this.now().toISOString();
    const existing = listed.find((c) => c.metadata?.name === config.name);
    const newest = [...listed].sort(newestFirst)[0];
    let created = false;
    if (existing === undefined) created = await this.createConfig(namespace, owner, config, at);
    else if (newest !== existing) await this.stamp(namespace, config.name, at);
    // read again after a write, so the history rule orders by what is stored now
    const configs = existing === undefined || newest !== existing ? await this.configs(namespace, owner.name) : listed;
    await this.prune(namespace, owner.name, configs);
    return created;
  }

  async removeAll(namespace: string, pool: string): Promise<string[]> {
    this.serves(namespace);
    const removed: string[] = [];
    if (await this.deleteDaemonSet(namespace, pool)) removed.push(`DaemonSet/${daemonSetName(pool)}`);
    let configMaps: V1ConfigMap[];
    try {
      configMaps = (await this.core.listNamespacedConfigMap({ namespace, labelSelector: `${POOL_LABEL}=${pool}` })).items;
    } catch (error) {
      throw clusterError(error, `cannot list the ConfigMaps of pool ${namespace}/${pool}`);
    }
    for (const name of configMaps.map((c) => c.metadata?.name ?? '').filter((n) => n !== '').sort()) {
      if (await this.deleteConfig(namespace, name)) removed.push(`ConfigMap/${name}`);
    }
    // a cluster without the VPA API holds no VPA; a probe that failed says nothing, so the delete is tried
    if ((await this.vpa.vpaAPI()).kind !== 'notInstalled' && (await this.vpa.removePoolVPA(namespace, pool)) === 'removed') removed.push(`VerticalPodAutoscaler/${daemonSetName(pool)}`);
    return removed;
  }

  private serves(namespace: string): void {
    if (namespace !== this.namespace) throw new ComputeClusterError(`this pool adapter serves namespace ${this.namespace}, not ${namespace}`);
  }

  private async readDaemonSet(namespace: string, name: string): Promise<V1DaemonSet | undefined> {
    try {
      return await this.apps.readNamespacedDaemonSet({ namespace, name });
    } catch (error) {
      if (apiCodeOf(error) === 404) return undefined;
      throw clusterError(error, `cannot read DaemonSet ${namespace}/${name}`);
    }
  }

  /** The pool's configs: labelled with the pool, named `{pool}-config-…`. */
  private async configs(namespace: string, pool: string): Promise<V1ConfigMap[]> {
    try {
      const prefix = `${pool}-config-`;
      return (await this.core.listNamespacedConfigMap({ namespace, labelSelector: `${POOL_LABEL}=${pool}` })).items.filter((c) => c.metadata?.name?.startsWith(prefix) === true);
    } catch (error) {
      throw clusterError(error, `cannot list the configs of pool ${namespace}/${pool}`);
    }
  }

  /** True when created; false when a concurrent pass had created it: then marked published now. */
  private async createConfig(namespace: string, owner: PoolOwner, config: { name: string; files: Readonly<Record<string, string>> }, at: string): Promise<boolean> {
    try {
      await this.core.createNamespacedConfigMap({ namespace, body: withPoolOwnership(poolConfigMapBody(namespace, owner, config, at), this.ownership) });
      return true;
    } catch (error) {
      if (apiCodeOf(error) !== 409) throw clusterError(error, `cannot create ConfigMap ${namespace}/${config.name}`);
    }
    await this.stamp(namespace, config.name, at);
    return false;
  }

  /** The publish time: metadata, which an immutable ConfigMap still lets change. */
  private async stamp(namespace: string, name: string, at: string): Promise<void> {
    try {
      await this.core.patchNamespacedConfigMap({ namespace, name, body: { metadata: { annotations: { [PUBLISHED_AT_ANNOTATION]: at } } } }, MERGE_PATCH);
    } catch (error) {
      throw clusterError(error, `cannot mark ConfigMap ${namespace}/${name} published`);
    }
  }

  private async prune(namespace: string, pool: string, configs: V1ConfigMap[]): Promise<string[]> {
    if (configs.length <= CONFIG_HISTORY) return [];
    const mounted = new Set((((await this.readDaemonSet(namespace, daemonSetName(pool)))?.spec?.template?.spec?.volumes) ?? []).map((v) => v.configMap?.name).filter((n): n is string => n !== undefined));
    const doomed = [...configs]
      .sort(newestFirst)
      .slice(CONFIG_HISTORY)
      .map((c) => c.metadata?.name ?? '')
      .filter((name) => name !== '' && !mounted.has(name))
      .sort();
    for (const name of doomed) await this.deleteConfig(namespace, name);
    return doomed;
  }

  private async deleteConfig(namespace: string, name: string): Promise<boolean> {
    try {
      await this.core.deleteNamespacedConfigMap({ namespace, name });
      return true;
    } catch (error) {
      if (apiCodeOf(error) === 404) return false;
      throw clusterError(error, `cannot delete ConfigMap ${namespace}/${name}`);
    }
  }
}
