/**
 * Server: one Nova server on a Network (server-api.md). Create-time decisions are immutable: the
 * server name (it becomes the guest hostname), the flavor (resizes are not supported), the network
 * (a server is owned by its network), infrastructureRef (placement) and providerCreateGates. The
 * image is mutable: changing it is a destructive in-place rebuild, tracked in `status.rebuild`.
 */
import type * as t from 'io-ts';
import { AuditURL, Conditions, DateTime, DisplayName, DnsLabel, Generation, ObjectName, Phase, Uuid } from './codec/common.js';
import { bool, enumOf, str } from './codec/primitives.js';
import { list, struct } from './codec/structure.js';
import { canonicalJson, deepEqual, ruleError, sameUnordered } from './codec/transitions.js';
import { defineKind, standardColumns, type ResourceObject, type TransitionRule } from './kind.js';

export const exactlyOneOfIdOrName = { message: 'exactly one of id or name must be set', check: (r: { id?: string; name?: string }) => (r.id === undefined) !== (r.name === undefined) };

/** An image by Glance ID or by exact name (resolved by exact match; duplicates are an error). */
export const ImageReference = struct('ImageReference', {}, { id: Uuid, name: DisplayName }, { rules: [exactlyOneOfIdOrName] });
export type ImageReference = t.TypeOf<typeof ImageReference>;

/** A flavor by Nova ID (any string: Nova flavor IDs need not be UUIDs) or by exact name. */
export const FlavorReference = struct('FlavorReference', {}, { id: DisplayName, name: DisplayName }, { rules: [exactlyOneOfIdOrName] });
export type FlavorReference = t.TypeOf<typeof FlavorReference>;

export const SshInjection = enumOf('SshInjection', ['ca', 'identityKeypair', 'none']);
export type SshInjection = t.TypeOf<typeof SshInjection>;

/** Create-time placement on a provider-specific physical host. */
export const InfrastructureRef = struct('InfrastructureRef', { host: DisplayName }, { resourceProviderID: Uuid });
export type InfrastructureRef = t.TypeOf<typeof InfrastructureRef>;

export const ProviderCreateGate = struct('ProviderCreateGate', { name: DnsLabel }, { description: str('GateDescription', { maxLength: 256 }) });
export type ProviderCreateGate = t.TypeOf<typeof ProviderCreateGate>;

export const VolumeAttachment = struct('VolumeAttachment', { volumeID: ObjectName }, { device: str('Device', { maxLength: 32, pattern: '^/dev/[a-z]+$' }) });
export type VolumeAttachment = t.TypeOf<typeof VolumeAttachment>;

export const ServerSpec = struct(
  'ServerSpec',
  { name: DnsLabel, image: ImageReference, flavor: FlavorReference, networkID: ObjectName },
  {
    userData: str('UserData', { maxLength: 65535, format: 'byte' }),
    sshInjection: SshInjection,
    sshCertificateAuthorityId: ObjectName,
    securityGroups: list('SecurityGroups', ObjectName, { maxItems: 16, listType: 'set' }),
    infrastructureRef: InfrastructureRef,
    providerCreateGates: list('ProviderCreateGates', ProviderCreateGate, { maxItems: 8, listType: 'map', mapKeys: ['name'] }),
    volumes: list('VolumeAttachments', VolumeAttachment, { maxItems: 16, listType: 'map', mapKeys: ['volumeID'] }),
  },
  {
    rules: [
      { fieldPath: '.sshCertificateAuthorityId', message: 'sshCertificateAuthorityId requires sshInjection ca (or sshInjection omitted)', check: (s) => s.sshCertificateAuthorityId === undefined || s.sshInjection === undefined || s.sshInjection === 'ca' },
      { fieldPath: '.sshCertificateAuthorityId', message: 'sshInjection ca requires sshCertificateAuthorityId', check: (s) => s.sshInjection !== 'ca' || s.sshCertificateAuthorityId !== undefined },
      {
        fieldPath: '.sshInjection',
        message: 'a pinned server (infrastructureRef) cannot use identityKeypair SSH injection',
        check: (s) => s.infrastructureRef === undefined || (s.sshInjection !== undefined ? s.sshInjection !== 'identityKeypair' : s.sshCertificateAuthorityId !== undefined),
      },
    ],
  },
);
export type ServerSpec = t.TypeOf<typeof ServerSpec>;

/** Omitted sshInjection keeps the legacy contract: a CA ID means `ca`, anything else `identityKeypair`. */
export const resolveSshInjection = (spec: ServerSpec): SshInjection => spec.sshInjection ?? (spec.sshCertificateAuthorityId !== undefined ? 'ca' : 'identityKeypair');

export const REBUILD_STATES = ['Initiated', 'Rebuilding', 'Succeeded', 'Failed'] as const;
export const RebuildState = enumOf('RebuildState', REBUILD_STATES);
export type RebuildState = t.TypeOf<typeof RebuildState>;

/**
 * The write-ahead rebuild marker. For one target image the state only moves forward
 * (Initiated < Rebuilding < Succeeded|Failed); the one sideways step is the reconciler's park,
 * which may overwrite Succeeded with Failed. A different target image replaces the marker.
 */
export const RebuildStatus = struct('RebuildStatus', { targetImageID: Uuid, state: RebuildState }, {});
export type RebuildStatus = t.TypeOf<typeof RebuildStatus>;

export const rebuildStepAllowed = (from: RebuildState, to: RebuildState): boolean =>
  from === to || from === 'Initiated' || (from === 'Rebuilding' && to !== 'Initiated') || (from === 'Succeeded' && to === 'Failed');

export const PROVISIONING_STATUSES = ['unknown', 'pending', 'provisioning', 'provisioned', 'deprovisioning', 'error'] as const;
export const ProvisioningStatus = enumOf('ProvisioningStatus', PROVISIONING_STATUSES);
export type ProvisioningStatus = t.TypeOf<typeof ProvisioningStatus>;

/** Region's per-gate record; reads expose only `remainingProviderCreateGates`. */
export const ProviderCreateGateStatus = struct(
  'ProviderCreateGateStatus',
  { name: DnsLabel, satisfied: bool },
  { actor: str('Actor', { maxLength: 253 }), reason: str('GateReason', { maxLength: 1024 }), message: str('GateMessage', { maxLength: 32768 }), satisfiedAt: DateTime },
);

export const VolumeAttachmentStatus = struct(
  'VolumeAttachmentStatus',
  { volumeID: ObjectName },
  // device: what Nova reports the guest got; requestedDevice: what spec.volumes asked for (a hint the hypervisor may not follow)
  { device: str('Device', { maxLength: 32 }), requestedDevice: str('Device', { maxLength: 32 }), state: enumOf('AttachmentState', ['Attaching', 'Attached', 'Detaching', 'Error']) },
);

export const ServerStatus = struct(
  'ServerStatus',
  {},
  {
    observedGeneration: Generation,
    auditURL: AuditURL,
    phase: Phase,
    provisioningStatus: ProvisioningStatus,
    serverID: Uuid,
    imageID: Uuid,
    flavorID: DisplayName,
    networkID: ObjectName,
    infrastructureRef: InfrastructureRef,
    provisionedAt: DateTime,
    launchedAt: DateTime,
    macAddress: str('MacAddress', { pattern: '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$' }),
    ipAddresses: list('IpAddresses', str('IpAddress', { maxLength: 45 }), { maxItems: 16 }),
    rebuild: RebuildStatus,
    providerCreateGates: list('ProviderCreateGateStatuses', ProviderCreateGateStatus, { maxItems: 8, listType: 'map', mapKeys: ['name'] }),
    remainingProviderCreateGates: list('RemainingGates', DnsLabel, { maxItems: 8, listType: 'set' }),
    volumes: list('VolumeAttachmentStatuses', VolumeAttachmentStatus, { maxItems: 16, listType: 'map', mapKeys: ['volumeID'] }),
    conditions: Conditions,
  },
);
export type ServerStatus = t.TypeOf<typeof ServerStatus>;

/** The condition types a Server reports: provisioning (Available), health, and power/boot state. */
export const SERVER_CONDITION_TYPES = ['Available', 'Healthy', 'Active'] as const;

const immutableField = <K extends 'name' | 'flavor' | 'networkID'>(key: K): TransitionRule<ServerSpec, ServerStatus> => (self, old) =>
  deepEqual(self.spec[key], old.spec[key]) ? [] : [ruleError(`spec.${key}`, self.spec[key], `${key} is immutable`)];

const immutableOnceSet = (key: 'infrastructureRef' | 'providerCreateGates'): TransitionRule<ServerSpec, ServerStatus> => (self, old) => {
  const a = self.spec[key];
  const b = old.spec[key];
  const same = a === undefined || b === undefined ? a === b : Array.isArray(a) && Array.isArray(b) ? sameUnordered(a, b) : canonicalJson(a) === canonicalJson(b);
  return same ? [] : [ruleError(`spec.${key}`, self.spec, `${key} is immutable`)];
};

const rebuildForwardOnly: TransitionRule<ServerSpec, ServerStatus> = (self, old) => {
  const now = self.status?.rebuild;
  const before = old.status?.rebuild;
  if (now === undefined || before === undefined || now.targetImageID !== before.targetImageID) return [];
  return rebuildStepAllowed(before.state, now.state)
    ? []
    : [ruleError('status.rebuild.state', now, 'rebuild state only moves forward for one targetImageID (Initiated < Rebuilding < Succeeded|Failed; Succeeded may become Failed)')];
};

export const ServerKind = defineKind({
  kind: 'Server',
  plural: 'servers',
  shortNames: ['srv'],
  spec: ServerSpec,
  status: ServerStatus,
  columns: standardColumns('Available'),
  transitions: [immutableField('name'), immutableField('flavor'), immutableField('networkID'), immutableOnceSet('infrastructureRef'), immutableOnceSet('providerCreateGates'), rebuildForwardOnly],
});

export type Server = ResourceObject<'Server', ServerSpec, ServerStatus>;
export const validateServer = ServerKind.validate;
