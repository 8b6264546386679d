/**
 * The Kubernetes adapters of a NovaCompute's pool ports (./port.ts; nova-operator.md, "NovaCompute"), one concept per
 * file under ./kubernetes/:
 *
 *   nodes.ts        NodeReader: an uncached, metadata-only read of the Nodes (PartialObjectMetadataList)
 *   workloads.ts    PoolWorkloads: the `{pool}-nova-compute` DaemonSet, the pool's pods, its immutable configs, the sweep
 *   render.ts       the DaemonSet (its node affinity), the config ConfigMap and the VPA as written (pure)
 *   vpa.ts          the opt-in VerticalPodAutoscaler of the DaemonSet and the VPA API probe (the ComputeVPA step's)
 *   hypervisors.ts  Hypervisors: the kvm.cloud.sap/v1 objects, unstructured; the custom-traits merge patch
 *   common.ts       ComputeClusterError from a client failure; owner references (none on a target cluster)
 *
 * kubernetesComputeCluster builds them on one kubeconfig for one namespace: the management cluster's, or a target
 * cluster's with `remote` (no owner references there: src/nova/ownership.ts). The VPA adapter is handed out beside
 * the ports, since the port has no VPA member (the local runtime has no VPA) and removeAll shares its probe.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Ownership } from '../ownership.js';
import type { ComputeCluster } from './port.js';
import { KubernetesHypervisors } from './kubernetes/hypervisors.js';
import { KubernetesNodeReader } from './kubernetes/nodes.js';
import { KubernetesPoolVPA } from './kubernetes/vpa.js';
import { KubernetesPoolWorkloads } from './kubernetes/workloads.js';

export { KubernetesHypervisors, HYPERVISOR_API, HYPERVISOR_GROUP, HYPERVISOR_PLURAL, HYPERVISOR_VERSION } from './kubernetes/hypervisors.js';
export { KubernetesNodeReader, PARTIAL_METADATA, PARTIAL_METADATA_LIST } from './kubernetes/nodes.js';
export { KubernetesPoolVPA, type KubernetesPoolVPAOptions } from './kubernetes/vpa.js';
export { KubernetesPoolWorkloads, contains, daemonSetDrift, daemonSetStatus, type KubernetesPoolWorkloadsOptions } from './kubernetes/workloads.js';
export { daemonSetBody, nodeSelectorTerms, poolConfigMapBody, poolLabels, poolSelector, poolVPABody, SPEC_HASH_ANNOTATION } from './kubernetes/render.js';

export interface KubernetesComputeClusterOptions extends Ownership {
  /** The VPA probe's TTL (default 30 s) and its clock. */
  readonly probeTtlMs?: number;
  readonly now?: () => number;
  /** The clock of the configs' publish time. */
  readonly clock?: () => Date;
}

export interface KubernetesComputeCluster extends ComputeCluster {
  readonly nodes: KubernetesNodeReader;
  readonly workloads: KubernetesPoolWorkloads;
  readonly hypervisors: KubernetesHypervisors;
  /** The ComputeVPA step's: ensurePoolVPA / removePoolVPA / vpaAPI. */
  readonly vpa: KubernetesPoolVPA;
}

export const kubernetesComputeCluster = (kubeConfig: KubeConfig, namespace: string, options: KubernetesComputeClusterOptions = {}): KubernetesComputeCluster => {
  const remote = options.remote === true;
  const vpa = new KubernetesPoolVPA({ kubeConfig, remote, ...(options.probeTtlMs === undefined ? {} : { probeTtlMs: options.probeTtlMs }), ...(options.now === undefined ? {} : { now: options.now }) });
  return {
    nodes: new KubernetesNodeReader(kubeConfig),
    workloads: new KubernetesPoolWorkloads({ kubeConfig, namespace, vpa, remote, ...(options.clock === undefined ? {} : { now: options.clock }) }),
    hypervisors: new KubernetesHypervisors(kubeConfig),
    vpa,
  };
};
