/**
 * What the NovaCompute controller runs with (nova-operator.md, "NovaCompute"; issue 28): the plane's engine and
 * resource source, the pool's cluster (src/nova/compute/port.ts: Nodes, the DaemonSet, configs, Hypervisors), the
 * client factory for Keystone, Nova and Placement (src/nova/compute/compute-api.ts), the Nova's Job runner (the
 * host-discovery Job) and its config port; and the spec's requeue intervals.
 */
import type { Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import type { SecretStore } from '../../kube/secrets.js';
import type { Logger } from '../../log/logger.js';
import type { ComputeCluster } from '../../nova/compute/port.js';
import type { ComputeApi, ComputeApiLogin } from '../../nova/compute/compute-api.js';
import type { JobRunner } from '../../nova/jobs/port.js';
import type { ConfigPort } from '../../nova/config/port.js';
import type { Capability } from '../../nova/group/port.js';
import type { NovaMetrics } from '../../observability/nova-metrics.js';

/** nova-operator.md, "Requeue and teardown". */
export const NOVA_COMPUTE_REQUEUE_MS = {
  /** RequeueNextPass: after a finalizer add. */
  nextPass: 1_000,
  /** RequeueComputeReleasePolling: a Releasing node, and a node dropped in this pass. */
  releasePolling: 10_000,
  /** RequeueDeploymentPolling: an aggregate created concurrently. */
  deploymentPolling: 10_000,
  /** RequeueHostDiscoveryPolling: a registered node whose host is not mapped yet. */
  hostDiscoveryPolling: 10_000,
  /** RequeueSecretPolling: the waits of NovaReady and ConfigReady, NodesForbidden. */
  secretPolling: 15_000,
  /** RequeueComputeDrainPolling: a Draining or Pending node, the retry after a failed Keystone, Nova or Placement call, the Traits polls. */
  drainPolling: 30_000,
  /** RequeueComputeServicePolling: a pool whose nodes are all settled. */
  servicePolling: 60_000,
} as const;

/** The VerticalPodAutoscaler of a pool's DaemonSet (the ComputeVPA step; the Nova's VPA flow). */
export interface PoolVPA {
  probe(): Promise<Capability>;
  ensure(namespace: string, owner: { name: string; uid: string }, pool: string): Promise<void>;
  /** 'removed' when one was deleted. */
  remove(namespace: string, pool: string): Promise<'removed' | 'absent'>;
}

export interface NovaComputeDeps {
  engine: Engine;
  source: ResourceSource;
  secrets: SecretStore;
  logger: Logger;
  /** The pool's cluster: the management cluster's (Kubernetes) or the embedded default's. */
  cluster: ComputeCluster;
  /** Opens the pass's client (one token per pass). */
  openComputeApi: (login: ComputeApiLogin) => Promise<ComputeApi>;
  /** The Nova's Job runner: the host-discovery Job runs where the Nova's Jobs run. */
  jobs: JobRunner;
  /** The Nova's config port: the host-discovery Job mounts the config the Nova's roles mount; the service identity. */
  configs?: ConfigPort;
  /** The ComputeVPA step's objects; absent: the VerticalPodAutoscaler API is not served here (the embedded default). */
  vpa?: PoolVPA;
  /** Why a pool in this namespace is not reconciled (Kubernetes: outside the install namespace), or null. */
  namespaceRefused?: (namespace: string) => string | null;
  /** The nova_operator_* series (shared with the Nova controller). */
  metrics?: NovaMetrics;
}
