/**
 * What the Nova controller runs with besides the plane's services: the database provisioner, the Job runner and the
 * workload port of the runtime the control plane opened (embedded: SQL and local Jobs; Kubernetes: CRs and Jobs;
 * src/app/nova-runtime.ts opens it).
 */
import type { NovaControllerDeps } from './deps.js';
export type { TargetPorts } from './deps.js';
import type { Nova } from '../../resources/nova.js';
import type { TargetCluster } from '../../nova/target-clusters.js';
import type { ComputeCluster } from '../../nova/compute/port.js';
import type { PoolVPA } from '../nova-compute/deps.js';
import type { NovaCompute } from '../../resources/nova-compute.js';
import type { ComputeApi, ComputeApiLogin } from '../../nova/compute/compute-api.js';

/** How a NovaCompute pool's client to Keystone, Nova and Placement is opened (src/nova/compute/compute-api.ts `openComputeApi`). */
export type ComputeApiOpener = (login: ComputeApiLogin) => Promise<ComputeApi>;

export type NovaRuntime = Pick<NovaControllerDeps, 'provisioner' | 'databaseEndpoint' | 'jobs' | 'workloads' | 'jobsUnavailable' | 'namespaceRefused' | 'configs' | 'secretStoreGate' | 'healthProbe' | 'released' | 'group' | 'targetClusters' | 'forTarget' | 'childrenWatched'> & {
  description: string;
  /** This replica starts leading: what runs in the background (the local runner's CronJob scheduler; embedded: the roles' sweep). */
  start(): void;
  /** This replica stopped leading: the scheduler stops; embedded: the local roles and compute nodes are stopped. */
  stop(): void | Promise<void>;
  /**
   * While this process leads, what wakes a Nova: on Kubernetes the watches of its children, its Secrets, its MariaDB
   * clusters and its secret store (src/nova/watches.ts); on the embedded default the end of a Job this process
   * started (its roles stay polled: childrenWatched is not set).
   */
  startWatches?(enqueue: (key: string) => void, novas: () => readonly Nova[]): { stop(): Promise<void> };
  /**
   * Kubernetes only: the registry of the target clusters' watch sets (src/nova/target-watches.ts), while this process
   * leads: `ensure` starts a cluster's set (the Nova pass calls it through deps.watchTarget), `stopAll` ends them.
   */
  startTargetWatches?(enqueue: (key: string) => void, novas: () => readonly Nova[]): { ensure(cluster: TargetCluster, namespace: string): boolean; stopAll(): Promise<void> };
  /**
   * Where NovaCompute pools run (issue 28): the embedded default's Node objects and local nova-compute processes, or
   * the management cluster's Nodes, DaemonSets, ConfigMaps and Hypervisors; absent: pools are not served here.
   */
  compute?: {
    cluster: ComputeCluster;
    vpa?: PoolVPA;
    /**
     * Kubernetes only: the watches that wake a pool when its DaemonSet or ConfigMaps or its Nova's contract Secret
     * change (src/nova/compute/watches.ts), while this process leads; the embedded default has none (its polls stay).
     */
    startWatches?(enqueue: (key: string) => void, pools: () => readonly NovaCompute[]): { stop(): Promise<void> };
    /**
     * How the pools' client is opened; absent: `openComputeApi` itself. A plan's read-only runtime sets it (its writes
     * are refused, src/plan/nova-guards.ts), and a test may plant one.
     */
    openComputeApi?: ComputeApiOpener;
  };
  close(): Promise<void>;
};
