/**
 * Regent's resource kinds: types, io-ts codecs and one validate function per kind. The registry
 * `KINDS` is what the stores, the CLI and the CRD agreement test iterate.
 */
import type { KindDefinition } from './kind.js';
import { IdentityKind } from './identity.js';
import { LoadBalancerKind } from './loadbalancer.js';
import { NetworkKind } from './network.js';
import { NovaKind } from './nova.js';
import { NovaComputeKind } from './nova-compute.js';
import { NodeKind } from './node.js';
import { RegionKind } from './region.js';
import { SecurityGroupKind } from './security-group.js';
import { ServerKind } from './server.js';
import { VolumeKind } from './volume.js';
import { SshCertificateAuthorityKind } from './ssh-certificate-authority.js';
import { WorkloadClusterKind } from './workload-cluster.js';
import { WorkloadMachineKind } from './workload-machine.js';
import { ConfigMapKind } from './config-map.js';

export * from './kind.js';
export * from './meta.js';
export * from './region.js';
export * from './identity.js';
export * from './network.js';
export * from './server.js';
export * from './volume.js';
export * from './loadbalancer.js';
export * from './nova.js';
export * from './nova-compute.js';
export * from './node.js';
export * from './ssh-certificate-authority.js';
export * from './security-group.js';
export * from './workload-cluster.js';
export * from './workload-machine.js';
export * from './config-map.js';
export * from './registry.js';
export { describeFieldErrors, type FieldError } from './codec/report.js';
export { Condition, Conditions, type ConditionStatus, LocalObjectReference, SecretKeyReference } from './codec/common.js';

export type AnyKindDefinition = KindDefinition<string, unknown, unknown>;

/**
 * Every Regent kind (one CRD each), in dependency order (a Region before its Identities, a Network before its
 * Servers, a Nova before its NovaComputes, a WorkloadCluster before its WorkloadMachines).
 */
export const KINDS: readonly AnyKindDefinition[] = [
  RegionKind,
  IdentityKind,
  NetworkKind,
  SecurityGroupKind,
  SshCertificateAuthorityKind,
  ServerKind,
  VolumeKind,
  LoadBalancerKind,
  NovaKind,
  NovaComputeKind,
  WorkloadClusterKind,
  WorkloadMachineKind,
] as unknown as readonly AnyKindDefinition[];
/**
 * Core Kubernetes kinds the embedded store holds (a v1 Node, cluster-scoped; a v1 ConfigMap, namespaced): no CRD, no
 * RBAC, no controller.
 */
export const CORE_KINDS: readonly AnyKindDefinition[] = [NodeKind, ConfigMapKind] as unknown as readonly AnyKindDefinition[];
/** What a resource source resolves kind names against (src/kube/kinds.ts): Regent's kinds, then the core ones. */
export const STORED_KINDS: readonly AnyKindDefinition[] = [...KINDS, ...CORE_KINDS];
