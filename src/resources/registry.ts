/**
 * The kind-name type map: which spec and status belong to which kind, so the resource source can be
 * generic and still typed (`source.get('Server', …)` returns a `Server`).
 */
import type { IdentitySpec, IdentityStatus } from './identity.js';
import type { ResourceInput, ResourceObject } from './kind.js';
import type { LoadBalancerSpec, LoadBalancerStatus } from './loadbalancer.js';
import type { NetworkSpec, NetworkStatus } from './network.js';
import type { NovaSpec, NovaStatus } from './nova.js';
import type { NovaComputeSpec, NovaComputeStatus } from './nova-compute.js';
import type { NodeSpec, NodeStatus } from './node.js';
import type { RegionSpec, RegionStatus } from './region.js';
import type { SecurityGroupSpec, SecurityGroupStatus } from './security-group.js';
import type { ServerSpec, ServerStatus } from './server.js';
import type { VolumeSpec, VolumeStatus } from './volume.js';
import type { SshCertificateAuthoritySpec, SshCertificateAuthorityStatus } from './ssh-certificate-authority.js';
import type { WorkloadClusterSpec, WorkloadClusterStatus } from './workload-cluster.js';
import type { WorkloadMachineSpec, WorkloadMachineStatus } from './workload-machine.js';
import type { ConfigMapSpec, ConfigMapStatus } from './config-map.js';

export interface KindTypes {
  Region: { spec: RegionSpec; status: RegionStatus };
  Identity: { spec: IdentitySpec; status: IdentityStatus };
  Network: { spec: NetworkSpec; status: NetworkStatus };
  Server: { spec: ServerSpec; status: ServerStatus };
  Volume: { spec: VolumeSpec; status: VolumeStatus };
  LoadBalancer: { spec: LoadBalancerSpec; status: LoadBalancerStatus };
  Nova: { spec: NovaSpec; status: NovaStatus };
  SecurityGroup: { spec: SecurityGroupSpec; status: SecurityGroupStatus };
  SSHCertificateAuthority: { spec: SshCertificateAuthoritySpec; status: SshCertificateAuthorityStatus };
  NovaCompute: { spec: NovaComputeSpec; status: NovaComputeStatus };
  WorkloadCluster: { spec: WorkloadClusterSpec; status: WorkloadClusterStatus };
  WorkloadMachine: { spec: WorkloadMachineSpec; status: WorkloadMachineStatus };
  /** A core v1 Node, held by the embedded store only (src/resources/node.ts): not in KIND_NAMES. */
  Node: { spec: NodeSpec; status: NodeStatus };
  /** A core v1 ConfigMap, held by the embedded store only (src/resources/config-map.ts; its data is top-level): not in KIND_NAMES. */
  ConfigMap: { spec: ConfigMapSpec; status: ConfigMapStatus };
}

export type KindName = keyof KindTypes;
/**
 * Regent's own kinds (one CRD each in deploy/crds): what the control plane informs on and renders a status for, what
 * the Kubernetes source serves. Not the core kinds the embedded store also holds (CORE_KIND_NAMES).
 */
export const KIND_NAMES: readonly KindName[] = ['Region', 'Identity', 'Network', 'Server', 'Volume', 'LoadBalancer', 'Nova', 'SecurityGroup', 'SSHCertificateAuthority', 'NovaCompute', 'WorkloadCluster', 'WorkloadMachine'];
/**
 * Core Kubernetes kinds the embedded store holds for the embedded default (a v1 Node; a v1 ConfigMap, where a
 * WorkloadCluster's exports are published): no CRD, no controller, no status.
 */
export const CORE_KIND_NAMES: readonly KindName[] = ['Node', 'ConfigMap'];
/** Every kind a resource source may be asked for by name: Regent's, then the core ones. */
export const STORED_KIND_NAMES: readonly KindName[] = [...KIND_NAMES, ...CORE_KIND_NAMES];

export type SpecOf<K extends KindName> = KindTypes[K]['spec'];
export type StatusOf<K extends KindName> = KindTypes[K]['status'];
/** A stored object of kind K. */
export type ObjectOf<K extends KindName> = ResourceObject<K, SpecOf<K>, StatusOf<K>>;
/** What a client sends for kind K. */
export type InputOf<K extends KindName> = ResourceInput<K, SpecOf<K>, StatusOf<K>>;
