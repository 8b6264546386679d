/**
 * Region: one OpenStack cloud region Regent manages (openstack-provider.md). Region-level credentials
 * only manage the Keystone domain scaffolding and discover inventory; workload operations switch into
 * per-Identity projects. Flavor and VolumeClass exports are operator-curated allowlists.
 */
import type * as t from 'io-ts';
import { AuditURL, Conditions, DisplayName, DnsLabel, Generation, ObjectName, Phase, Uuid } from './codec/common.js';
import { bool, enumOf, int, str } from './codec/primitives.js';
import { list, record, struct } from './codec/structure.js';
import { defineKind, standardColumns, type ResourceObject } from './kind.js';

export const SecretReference = struct('SecretReference', { name: ObjectName }, { namespace: DnsLabel });

const Architecture = enumOf('Architecture', ['x86_64', 'aarch64']);

/** A Placement trait name (standard or CUSTOM_). */
const TraitName = str('TraitName', { minLength: 1, maxLength: 255, pattern: '^[A-Z0-9_]+$' });

/** Per-flavor enrichment of what Nova reports (issue 16, flavors): keyed by flavor id. */
export const FlavorMetadata = struct(
  'FlavorMetadata',
  { id: DisplayName },
  {
    cpu: struct('FlavorCpu', {}, { architecture: Architecture }),
    gpu: struct('FlavorGpu', {}, { vendor: enumOf('GpuVendor', ['NVIDIA', 'AMD', 'Intel']), model: DisplayName, count: int('GpuCount', { minimum: 1, maximum: 64 }) }),
  },
);

export const ComputeSettings = struct(
  'ComputeSettings',
  {},
  {
    /** Ask Placement whether a pinned host has room for the flavor before a pinned create. */
    placementPreflight: bool,
    /** Flavors whose servers are baremetal: BUILD progress is read from Ironic. */
    baremetalFlavorIDs: list('BaremetalFlavorIDs', DisplayName, { maxItems: 64, listType: 'set' }),
    /** Flavors exported to users; omitted exports every flavor. */
    flavorSelector: struct('FlavorSelector', { ids: list('FlavorIDs', DisplayName, { maxItems: 256, listType: 'set' }) }, {}),
    /** Traits every pinned host must have (the Placement preflight adds them to the flavor's). */
    requiredTraits: list('RequiredTraits', TraitName, { maxItems: 32, listType: 'set' }),
    /** Architecture and GPU of flavors, overriding what is derived from Nova. */
    flavorMetadata: list('FlavorMetadataList', FlavorMetadata, { maxItems: 256, listType: 'map', mapKeys: ['id'] }),
  },
);

const CacheSeconds = int('CacheSeconds', { minimum: 1, maximum: 86400 });

/** The image inventory (issue 16, images): signature verification of public images and the refresh-ahead cache. */
export const ImageSettings = struct(
  'ImageSettings',
  {},
  {
    /** A PEM public key (not a secret): public images must carry a valid signature by it. */
    signingKey: str('SigningKey', { minLength: 1, maxLength: 16384 }),
    cache: struct(
      'ImageCacheSettings',
      {},
      { enabled: bool, refreshAfterSeconds: CacheSeconds, staleAfterSeconds: CacheSeconds },
      {
        rules: [
          {
            fieldPath: '.staleAfterSeconds',
            message: 'staleAfterSeconds must be greater than refreshAfterSeconds',
            check: (c) => c.refreshAfterSeconds === undefined || c.staleAfterSeconds === undefined || c.staleAfterSeconds > c.refreshAfterSeconds,
          },
        ],
      },
    ),
  },
);

const QuotaLimit = int('QuotaLimit', { minimum: -1, maximum: 2147483647 });
const QuotaValues = (name: string) => record(name, QuotaLimit, { maxProperties: 64 });

/** Per-service quota overrides (Nova os-quota-sets, Neutron quotas, Cinder os-quota-sets keys). */
export const IdentityQuotas = struct('IdentityQuotas', {}, { compute: QuotaValues('ComputeQuotas'), network: QuotaValues('NetworkQuotas'), volume: QuotaValues('VolumeQuotas') });

export const VlanRange = struct(
  'VlanRange',
  { minID: int('VlanID', { minimum: 1, maximum: 4094 }), maxID: int('VlanID', { minimum: 1, maximum: 4094 }) },
  {},
  { rules: [{ fieldPath: '.maxID', message: 'maxID must be at least minID', check: (r) => r.maxID >= r.minID }] },
);

export const NetworkSettings = struct(
  'NetworkSettings',
  {},
  {
    externalNetworkID: Uuid,
    providerNetworks: struct('ProviderNetworks', { physicalNetwork: DisplayName, vlan: VlanRange }, {}),
  },
);

const CapacityGiB = int('CapacityGiB', { minimum: 1, maximum: 1048576 });

/** Flavors a VolumeClass may be used with; omitted, or omitted or empty ids: every flavor (unrestricted). */
export const SupportedFlavors = struct('SupportedFlavors', {}, { ids: list('SupportedFlavorIDs', DisplayName, { maxItems: 256, listType: 'set' }) });

export const VolumeClassMetadata = struct(
  'VolumeClassMetadata',
  { id: Uuid },
  {
    minCapacityGiB: CapacityGiB,
    maxCapacityGiB: CapacityGiB,
    supportedFlavors: SupportedFlavors,
    media: enumOf('VolumeMedia', ['hdd', 'ssd', 'nvme']),
    /** Caps, not guaranteed reservations (openstack-provider.md). */
    maxIOPS: int('MaxIOPS', { minimum: 1, maximum: 100000000 }),
    maxThroughputMiBps: int('MaxThroughputMiBps', { minimum: 1, maximum: 1048576 }),
    encrypted: bool,
  },
  {
    rules: [
      {
        fieldPath: '.maxCapacityGiB',
        message: 'maxCapacityGiB must be at least minCapacityGiB',
        check: (m) => m.minCapacityGiB === undefined || m.maxCapacityGiB === undefined || m.maxCapacityGiB >= m.minCapacityGiB,
      },
    ],
  },
);

export const BlockStorageSettings = struct(
  'BlockStorageSettings',
  {},
  {
    volumeClasses: struct(
      'VolumeClasses',
      {},
      {
        /** A strict allowlist of Cinder volume type IDs; missing or empty exports none (fail closed). */
        selector: struct('VolumeClassSelector', {}, { ids: list('VolumeTypeIDs', Uuid, { maxItems: 64, listType: 'set' }) }),
        metadata: list('VolumeClassMetadataList', VolumeClassMetadata, { maxItems: 64, listType: 'map', mapKeys: ['id'] }),
      },
    ),
  },
);

export const OpenStackRegionSettings = struct(
  'OpenStackRegionSettings',
  {
    /** The Keystone v3 endpoint. */
    endpoint: str('Endpoint', { maxLength: 2048, pattern: '^https?://[^\\s]+$' }),
    /** The OpenStack region name in the service catalog. */
    region: DisplayName,
    /** Secret with the region-level application credential. */
    credentialsSecretRef: SecretReference,
  },
  {
    /** The managed Keystone domain that holds per-Identity projects and users. */
    domainID: DisplayName,
    /** The roles every Identity's user is granted on its project (default manager, member, load-balancer_member). */
    managedRoles: list('ManagedRoles', DisplayName, { minItems: 1, maxItems: 16, listType: 'set' }),
    /**
     * The roles the region credentials' own user is granted on every Identity's project (default manager), so
     * that region credentials can be bound to that project for the privileged project-scoped work (pinned creates).
     */
    serviceRoles: list('ServiceRoles', DisplayName, { minItems: 1, maxItems: 16, listType: 'set' }),
    /** Quotas applied to every Identity's project, per service and key, over Regent's defaults (-1 = unlimited). */
    quotas: IdentityQuotas,
    defaultArchitecture: Architecture,
    compute: ComputeSettings,
    images: ImageSettings,
    network: NetworkSettings,
    blockStorage: BlockStorageSettings,
  },
);

export const RegionSpec = struct('RegionSpec', { provider: enumOf('Provider', ['openstack']), openstack: OpenStackRegionSettings }, {});
export type RegionSpec = t.TypeOf<typeof RegionSpec>;

export const RegionStatus = struct('RegionStatus', {}, { observedGeneration: Generation, auditURL: AuditURL, phase: Phase, conditions: Conditions });
export type RegionStatus = t.TypeOf<typeof RegionStatus>;

export const RegionKind = defineKind({ kind: 'Region', plural: 'regions', shortNames: ['rg'], spec: RegionSpec, status: RegionStatus, columns: standardColumns('Available') });
export type Region = ResourceObject<'Region', RegionSpec, RegionStatus>;
export const validateRegion = RegionKind.validate;
