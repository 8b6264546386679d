/**
 * The kind-name type map: which spec and status belong to which kind, so the resource source can be
 * generic and still typed (`source.get('Server', …)` returns a `Server`).
 */
import type { IdentitySpec, IdentityStatus } from './identity.js';
import type { ResourceInput, ResourceObject } from './kind.js';
import type { LoadBalancerSpec, LoadBalancerStatus } from './loadbalancer.js';
import type { NetworkSpec, NetworkStatus } from './network.js';
import type { NovaSpec, NovaStatus } from './nova.js';
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
}

export type KindName = keyof KindTypes;
export const KIND_NAMES: readonly KindName[] = ['Region', 'Identity', 'Network', 'Server', 'Volume', 'LoadBalancer', 'Nova', 'SecurityGroup', 'SSHCertificateAuthority'];

export type SpecOf<K extends KindName> = KindTypes[K]['spec'];
export type StatusOf<K extends KindName> = KindTypes[K]['status'];
/** A stored object of kind K. */
export type ObjectOf<K extends KindName> = ResourceObject<K, SpecOf<K>, StatusOf<K>>;
/** What a client sends for kind K. */
export type InputOf<K extends KindName> = ResourceInput<K, SpecOf<K>, StatusOf<K>>;
