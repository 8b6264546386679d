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
  /** A core v1 Node, held by the embedded store only (src/resources/node.ts): not in KIND_NAMES. */
  Node: { spec: NodeSpec; status: NodeStatus };
}

export type KindName = keyof KindTypes;
/**
 * Regent's own kinds (one CRD each in deploy/crds): what the control plane informs on and renders a status for, what
 * the Kubernetes source serves. Not the core kinds the embedded store also holds (CORE_KIND_NAMES).
 */
export const KIND_NAMES: readonly KindName[] = ['Region', 'Identity', 'Network', 'Server', 'Volume', 'LoadBalancer', 'Nova', 'SecurityGroup', 'SSHCertificateAuthority', 'NovaCompute'];
/** Core Kubernetes kinds the embedded store holds for the embedded default (a v1 Node): no CRD, no controller, no status. */
export const CORE_KIND_NAMES: readonly KindName[] = ['Node'];
/** Every kind a resource source may be asked for by name: Regent's, then the core ones. */
export const STORED_KIND_NAMES: readonly KindName[] = [...KIND_NAMES, ...CORE_KIND_NAMES];

export type SpecOf<K extends KindName> = KindTypes[K]['spec'];
export type StatusOf<K extends KindName> = KindTypes[K]['status'];
/** A stored object of kind K. */
export type ObjectOf<K extends KindName> = ResourceObject<K, SpecOf<K>, StatusOf<K>>;
/** What a client sends for kind K. */
export type InputOf<K extends KindName> = ResourceInput<K, SpecOf<K>, StatusOf<K>>;
