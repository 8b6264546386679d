/**
 * Where a NovaCompute's node pool runs (nova-operator.md, "NovaCompute"; issue 28): the ports the pool's steps
 * (src/controllers/nova-compute/steps/) read and write, with two adapters each:
 *
 *   kubernetes.ts  Nodes (an uncached list, metadata only), the `{name}-nova-compute` DaemonSet, the immutable
 *                  `{name}-config-<hash>` ConfigMaps, the kvm.cloud.sap/v1 Hypervisors (unstructured), the pool's
 *                  pods, the VerticalPodAutoscaler of the DaemonSet
 *   local.ts       the embedded default: Node objects the embedded store holds (`regent apply` of a v1 Node), one
 *                  supervised nova-compute process (Nova's fake virt driver) per node the affinity selects as the
 *                  pool's "DaemonSet", the configs as directories, no Hypervisor kind (HypervisorOperatorNotInstalled)
 *
 * No secret value crosses these interfaces: the contract Secret is named, and its digest stands for its values.
 */

/** A Node as the pool's rules read it: its name and labels (and the annotation the Traits step honours). */
export interface NodeMeta {
  name: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
}

/** The annotation of a Node whose custom traits another operator owns: the Traits step neither reads nor writes it. */
export const CUSTOM_TRAITS_ANNOTATION = 'nova.openstack.cloud.sap/custom-traits';
/** The label a Node's availability zone is read from. */
export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** A read of the cluster that failed: `status` 403 is NodesForbidden / HypervisorsForbidden; 404 of a kind: not installed. */
export class ComputeClusterError extends Error {
  override readonly name = 'ComputeClusterError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface NodeReader {
  /** The Nodes whose labels match every pair of `selector` (an empty selector matches every Node). Throws ComputeClusterError. */
  list(selector: Readonly<Record<string, string>>): Promise<NodeMeta[]>;
  /** One Node by name; undefined when it is gone. Throws ComputeClusterError. */
  get(name: string): Promise<NodeMeta | undefined>;
}

/** The NovaCompute that owns an object (controller owner reference on Kubernetes). */
export interface PoolOwner {
  name: string;
  uid: string;
}

/**
 * The DaemonSet's node affinity (nova-operator.md, "reconcileNovaComputeDaemonSet"), as its nodeSelectorTerms (ORed):
 *   selector  the pool's spec.nodeSelector, minus the `excluded` nodes (kubernetes.io/hostname NotIn); absent for a
 *             deleting pool (it selects nothing)
 *   held      the Draining nodes the selector no longer matches (kubernetes.io/hostname In): their pod stays while
 *             they drain
 * No term at all: the DaemonSet is deleted instead.
 */
export interface PoolAffinity {
  selector?: { labels: Readonly<Record<string, string>>; excluded: readonly string[] };
  held: readonly string[];
}

export interface PoolDaemonSetSpec {
  namespace: string;
  /** The pool's name; the DaemonSet is `{name}-nova-compute`. */
  pool: string;
  owner: PoolOwner;
  /** The Nova the pool joins (its label `regent.dev/nova`). */
  nova: string;
  image: string;
  /** The immutable ConfigMap the pods mount (compute-pool.conf). */
  config: { name: string; files: Readonly<Record<string, string>> };
  /** The contract Secret `<nova>-compute-config` the pods read transport_url, auth_url, compute.conf (and ca.crt) from. */
  contractSecret: string;
  /** The Secret holding the service user's password (the Nova's spec.serviceUser.secretRef), key `password`. */
  serviceUserSecret: string;
  /** Pod-template annotations, the contract digest among them (`nova.c5c3.io/compute-config-hash`). */
  annotations: Readonly<Record<string, string>>;
  affinity: PoolAffinity;
  /**
   * The nodes the affinity resolves to as the pool's rules see them (the selected nodes minus the excluded, plus the
   * held): the local adapter runs one process per name; Kubernetes' scheduler reads the affinity instead.
   */
  nodes: readonly string[];
}

export interface PoolDaemonSetStatus {
  /** False: no DaemonSet (or local record) exists. */
  present: boolean;
  desiredNumberScheduled: number;
  numberReady: number;
  /** Every scheduled pod runs the current template (updatedNumberScheduled = desired, observedGeneration current). */
  rolledOut: boolean;
  /** The image of the current template. */
  image: string | null;
}

export const daemonSetName = (pool: string): string => `${pool}-nova-compute`;
export const poolConfigName = (pool: string, hash: string): string => `${pool}-config-${hash}`;
export const POOL_CONFIG_FILE = 'compute-pool.conf';
export const CONTRACT_HASH_ANNOTATION = 'nova.c5c3.io/compute-config-hash';
/** The label every object of a pool carries (the owner reference does not cross a cluster). */
export const POOL_LABEL = 'regent.dev/nova-compute';

export interface PoolWorkloads {
  /** Creates or updates the DaemonSet (a write only when it drifted). Throws ComputeClusterError. */
  ensureDaemonSet(spec: PoolDaemonSetSpec): Promise<PoolDaemonSetStatus>;
  /** Deletes the pool's DaemonSet (absent is success); true when one was deleted. */
  deleteDaemonSet(namespace: string, pool: string): Promise<boolean>;
  /** The DaemonSet's counts without writing (the status of what runs). */
  daemonSet(namespace: string, pool: string): Promise<PoolDaemonSetStatus>;
  /** The nodes among `nodes` (all of the pool's when omitted) where a pod of the pool still runs (any phase but Succeeded/Failed). */
  podsOn(namespace: string, pool: string, nodes?: readonly string[]): Promise<Set<string>>;
  /**
   * Makes `{pool}-config-<hash>` (immutable; never rewritten) the newest config of the pool and prunes the history
   * to the three newest; true when it was written.
   */
  publishConfig(namespace: string, owner: PoolOwner, config: { name: string; files: Readonly<Record<string, string>> }): Promise<boolean>;
  /** Removes everything of the pool (DaemonSet, configs, VPA): the remote-children sweep and the local teardown. */
  removeAll(namespace: string, pool: string): Promise<string[]>;
  close?(): Promise<void>;
}

/** A kvm.cloud.sap/v1 Hypervisor as the Traits step reads it. */
export interface HypervisorObject {
  name: string;
  customTraits: readonly string[];
  /** The CUSTOM_ traits its status lists. */
  statusTraits: readonly string[];
}

export type HypervisorRead =
  | { kind: 'found'; hypervisor: HypervisorObject }
  | { kind: 'missing' }
  /** The kind is not served on the cluster (HypervisorOperatorNotInstalled). */
  | { kind: 'notInstalled'; message: string }
  /** 403 (HypervisorsForbidden). */
  | { kind: 'forbidden'; message: string };

export interface Hypervisors {
  get(name: string): Promise<HypervisorRead>;
  /** JSON merge patch `{spec: {customTraits}}` (sorted) under the field owner `cobaltcore-operator`. Throws ComputeClusterError. */
  setCustomTraits(name: string, traits: readonly string[]): Promise<void>;
}

export const HYPERVISOR_FIELD_OWNER = 'cobaltcore-operator';

/** Everything of a pool's cluster the steps use. */
export interface ComputeCluster {
  nodes: NodeReader;
  workloads: PoolWorkloads;
  hypervisors: Hypervisors;
}
