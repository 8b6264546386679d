/**
 * The pool's opt-in VerticalPodAutoscaler on Kubernetes (nova-operator.md, "reconcileVPA" of the NovaCompute
 * pipeline): autoscaling.k8s.io/v1 `{pool}-nova-compute`, targeting the pool's DaemonSet, updateMode Auto, labelled
 * and owned like the DaemonSet.
 *
 * The VPA API is a CRD a cluster may lack, probed exactly as the Nova's parallel group probes it
 * (src/nova/group/kubernetes.ts, whose capabilityFromList / capabilityFromError / VPA_API this reuses): the
 * discovery GET of autoscaling.k8s.io/v1; 404, or a list without verticalpodautoscalers, is notInstalled; any other
 * failure is probeFailed (it says nothing about the cluster). An answer is kept for `probeTtlMs` (30 s) so the steps of
 * a pass share one discovery request.
 *
 * ensure is the group's too (driftOf / replacement): one GET, created on 404, replaced only when the spec, our labels
 * or the owner reference drifted. remove: DELETE, 404 (the object or the CRD gone) is 'absent'.
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { apiCodeOf } from '../../kube-api-error.js';
import type { Ownership } from '../../ownership.js';
import { DEFAULT_PROBE_TTL_MS, VPA_API, capabilityFromError, capabilityFromList, driftOf, replacement } from '../../group/kubernetes.js';
import type { Capability } from '../../group/port.js';
import { daemonSetName, type PoolOwner } from '../port.js';
import { clusterError, withPoolOwnership } from './common.js';
import { poolVPABody, type PoolVPABody } from './render.js';

export interface KubernetesPoolVPAOptions extends Ownership {
  readonly kubeConfig: KubeConfig;
  readonly probeTtlMs?: number;
  /** The clock of the probe's TTL (milliseconds); Date.now by default. */
  readonly now?: () => number;
}

interface LiveVPA {
  metadata?: { resourceVersion?: string; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: unknown[] };
  spec?: unknown;
}

export class KubernetesPoolVPA {
  private readonly custom: CustomObjectsApi;
  private readonly probeTtlMs: number;
  private readonly now: () => number;
  private readonly ownership: Ownership;
  private probe: { at: number; answer: Promise<Capability> } | undefined;

  constructor(options: KubernetesPoolVPAOptions) {
    this.custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.probeTtlMs = options.probeTtlMs ?? DEFAULT_PROBE_TTL_MS;
    this.now = options.now ?? Date.now;
    this.ownership = { remote: options.remote === true };
  }

  /** Whether autoscaling.k8s.io/v1 verticalpodautoscalers is served (VPANotInstalled / CapabilityProbeFailed). */
  vpaAPI(): Promise<Capability> {
    const at = this.now();
    if (this.probe !== undefined && at - this.probe.at < this.probeTtlMs) return this.probe.answer;
    const answer = this.custom.getAPIResources({ group: VPA_API.group, version: VPA_API.version }).then(
      (list) => capabilityFromList(VPA_API, list),
      (error: unknown) => capabilityFromError(VPA_API, error),
    );
    this.probe = { at, answer };
    return answer;
  }

  /** Forgets the probe's answer. */
  evict(): void {
    this.probe = undefined;
  }

  async ensurePoolVPA(namespace: string, owner: PoolOwner, pool: string): Promise<void> {
    const body = withPoolOwnership(poolVPABody(namespace, owner, pool), this.ownership);
    const name = body.metadata.name;
    const at = { group: VPA_API.group, version: VPA_API.version, namespace, plural: VPA_API.resource };
    let live: LiveVPA | undefined;
    try {
      live = (await this.custom.getNamespacedCustomObject({ ...at, name })) as LiveVPA;
    } catch (error) {
      if (apiCodeOf(error) !== 404) throw clusterError(error, `cannot read VerticalPodAutoscaler ${namespace}/${name}`);
    }
    try {
      if (live === undefined) await this.custom.createNamespacedCustomObject({ ...at, body });
      else if (driftOf(live, body) !== undefined) {
        await this.custom.replaceNamespacedCustomObject({ ...at, name, body: replacement<PoolVPABody>(live, body) });
      }
    } catch (error) {
      throw clusterError(error, `cannot ${live === undefined ? 'create' : 'replace'} VerticalPodAutoscaler ${namespace}/${name}`);
    }
  }

  async removePoolVPA(namespace: string, pool: string): Promise<'removed' | 'absent'> {
    const name = daemonSetName(pool);
    try {
      await this.custom.deleteNamespacedCustomObject({ group: VPA_API.group, version: VPA_API.version, namespace, plural: VPA_API.resource, name });
      return 'removed';
    } catch (error) {
      if (apiCodeOf(error) === 404) return 'absent';
      throw clusterError(error, `cannot delete VerticalPodAutoscaler ${namespace}/${name}`);
    }
  }
}
