/**
 * Regent's resource kinds: types, io-ts codecs and one validate function per kind. The registry
 * `KINDS` is what the stores, the CLI and the CRD agreement test iterate.
 */
import type { KindDefinition } from './kind.js';
import { IdentityKind } from './identity.js';
import { LoadBalancerKind } from './loadbalancer.js';
import { NetworkKind } from './network.js';
import { NovaKind } from './nova.js';
import { RegionKind } from './region.js';
import { SecurityGroupKind } from './security-group.js';
import { ServerKind } from './server.js';
import { VolumeKind } from './volume.js';
import { SshCertificateAuthorityKind } from './ssh-certificate-authority.js';

export * from './kind.js';
export * from './meta.js';
export * from './region.js';
export * from './identity.js';
export * from './network.js';
export * from './server.js';
export * from './volume.js';
export * from './loadbalancer.js';
export * from './nova.js';
export * from './ssh-certificate-authority.js';
export * from './security-group.js';
export * from './registry.js';
export { describeFieldErrors, type FieldError } from './codec/report.js';
export { Condition, Conditions, type ConditionStatus, LocalObjectReference, SecretKeyReference } from './codec/common.js';

export type AnyKindDefinition = KindDefinition<string, unknown, unknown>;

/** Every kind, in dependency order (a Region before its Identities, a Network before its Servers). */
export const KINDS: readonly AnyKindDefinition[] = [RegionKind, IdentityKind, NetworkKind, SecurityGroupKind, SshCertificateAuthorityKind, ServerKind, VolumeKind, LoadBalancerKind, NovaKind] as unknown as readonly AnyKindDefinition[];
