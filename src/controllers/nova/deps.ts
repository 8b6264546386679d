/**
 * What the Nova controller runs with (its ports, from the plane and the Nova runtime: src/controllers/nova/runtime.ts)
 * and the spec's requeue intervals. The steps of ./steps/ read both through the pass (./pass.ts).
 */
import type { Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import type { SecretStore } from '../../kube/secrets.js';
import type { Logger } from '../../log/logger.js';
import type { NovaJob } from '../../../machines/nova-upgrade.js';
import type { DatabaseProvisioner } from '../../nova/database/port.js';
import type { DatabaseEndpoint } from '../../nova/connection-secrets.js';
import type { NovaRef, RenderOptions } from '../../nova/jobs/render.js';
import type { JobRunner } from '../../nova/jobs/port.js';
import type { WorkloadPort } from '../../nova/workloads/port.js';
import type { ConfigPort } from '../../nova/config/port.js';
import type { SecretStoreGate } from '../../nova/secret-store.js';
import type { HealthProbeCache } from '../../nova/health-probe.js';
import type { GroupObjects } from '../../nova/group/port.js';
import type { NovaMetrics } from '../../observability/nova-metrics.js';
import type { TargetCluster, TargetClusters } from '../../nova/target-clusters.js';
import type { RemoteChildren } from '../../nova/remote-children.js';

/** nova-operator.md, "Requeue semantics". */
export const NOVA_REQUEUE_MS = {
  /** RequeueNextPass: after the RollingUpdate to Contracting flip (and every other phase change). */
  nextPass: 1_000,
  /** RequeueDeploymentPolling: the rollout wait of every workload during an upgrade. */
  deploymentPolling: 10_000,
  /** RequeueDatabaseWait: the MariaDB gate, the db-sync wait, the config wait. */
  databaseWait: 30_000,
  /** RequeueUpgradeWait: the expand, migrate and contract phase Jobs. */
  upgradeWait: 30_000,
  /** RequeueSecretPolling: a secret-store or credential gate, a DB-connection half, the transport URL. */
  secretPolling: 15_000,
  /** Synced, where nothing watches the children (the embedded default, a target whose watch set is not live): read again in a minute. */
  synced: 60_000,
  /**
   * Where the children are watched (src/nova/watches.ts on the management cluster; src/nova/target-watches.ts on a
   * target, by the uid label): a change of a Deployment, Job,
   * CronJob, Secret, MariaDB cluster or store wakes the pass; this is only the resync behind them.
   */
  watchedResync: 600_000,
} as const;

export interface NovaControllerDeps {
  engine: Engine;
  source: ResourceSource;
  secrets: SecretStore;
  logger: Logger;
  provisioner: DatabaseProvisioner;
  /** Where Nova's own DSNs point for a MariaDB cluster (undefined: not known yet). */
  databaseEndpoint: (namespace: string, clusterRef: string) => Promise<DatabaseEndpoint | undefined>;
  jobs: JobRunner;
  workloads: WorkloadPort;
  /** The local runner renders the cells report into a file of the Job's own. */
  renderOptions?: (nova: NovaRef, job: NovaJob) => RenderOptions;
  /** Why Jobs cannot run here at all (e.g. no nova-manage for the local runner), or null. */
  jobsUnavailable?: () => string | null;
  /** Why a Nova in this namespace is not reconciled (on Kubernetes: outside the install namespace), or null. */
  namespaceRefused?: (namespace: string) => string | null;
  /** Where the rendered config is published: src/nova/config/local.ts (embedded) or kubernetes.ts. */
  configs?: ConfigPort;
  /** The selected secret store's gate (absent: Regent's own store stands in: src/nova/secret-store.ts). */
  secretStoreGate?: SecretStoreGate;
  /** The HealthCheck step's probe cache (absent: the process's shared one). */
  healthProbe?: HealthProbeCache;
  /** The nova_operator_* series (src/observability/nova-metrics.ts); absent: not exported (tests, tools). */
  metrics?: NovaMetrics;
  /**
   * The registry of target clusters spec.targetClusterRef names (src/nova/target-clusters.ts); absent: none is
   * registered here, so a Nova naming one is TargetClusterUnavailable.
   */
  targetClusters?: TargetClusters;
  /**
   * The ports on a resolved target cluster (Kubernetes only: src/app/nova-runtime.ts), built on its kubeconfig with
   * `remote: true` (src/nova/ownership.ts); absent: a target that resolves is TargetClusterNotSupported.
   */
  forTarget?: (cluster: TargetCluster) => TargetPorts;
  /**
   * The runtime watches the children on the management cluster while this process leads (Kubernetes): a pass need
   * not poll for a rollout or a Job there, the watch wakes it.
   */
  childrenWatched?: boolean;
  /**
   * Watches the children a Nova placed on `cluster` has in `namespace` there, by the uid label (src/nova/target-watches.ts),
   * starting the cluster's watch set on the first call; true while that set is live, so the pass need not poll.
   * Absent (the embedded default, or not leading): a pass on a target polls.
   */
  watchTarget?: (cluster: TargetCluster, namespace: string) => boolean;
  /** The parallel group's objects (routes, HPA, VPA, NetworkPolicy); absent: the embedded default's (src/nova/group/local.ts). */
  group?: GroupObjects;
  /**
   * What a Nova that is gone leaves running here and nothing else would stop (the embedded default: its role
   * processes); absent on Kubernetes, where the roles' owner references let the garbage collector remove them.
   */
  released?: (namespace: string, name: string) => Promise<void>;
}

/** What a Nova placed on a target cluster runs with there instead of the management cluster's ports. */
export type TargetPorts = Pick<NovaControllerDeps, 'provisioner' | 'databaseEndpoint' | 'jobs' | 'workloads' | 'secrets'> &
  Required<Pick<NovaControllerDeps, 'configs' | 'group' | 'secretStoreGate'>> & {
    /** The sweep of the remote-children finalizer (src/nova/remote-children.ts). */
    remoteChildren: RemoteChildren;
  };
