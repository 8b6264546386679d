/**
 * Nova: one Nova control plane (API, conductor, scheduler, metadata, console proxy, cells) run by the
 * nova operator pipeline (nova-operator.md). The aggregate condition is Ready, True exactly when all
 * of NOVA_READY_SUBCONDITIONS are; ExtraConfigHealthy is informational and kept out of it.
 */
import type * as t from 'io-ts';
import { AuditURL, Conditions, DnsLabel, Generation, LocalObjectReference, ObjectName, Phase, SecretKeyReference } from './codec/common.js';
import { bool, enumOf, int, str } from './codec/primitives.js';
import { list, record, struct } from './codec/structure.js';
import { ruleError } from './codec/transitions.js';
import { defineKind, standardColumns, type ResourceObject, type TransitionRule } from './kind.js';

/** The one list of the sub-conditions that make up Ready (nova-operator.md, "Conditions"). */
export const NOVA_READY_SUBCONDITIONS = [
  'SecretsReady',
  'ComputeConfigReady',
  'DatabaseReady',
  'ConductorReady',
  'SchedulerReady',
  'MetadataReady',
  'ConsoleProxyReady',
  'DeploymentReady',
  'DBArchiveReady',
  'NovaAPIReady',
  'HPAReady',
  'VPAReady',
  'NetworkPolicyReady',
  'HTTPRouteReady',
  'MetadataHTTPRouteReady',
  'ConsoleHTTPRouteReady',
] as const;
export const NOVA_INFORMATIONAL_CONDITIONS = ['ExtraConfigHealthy'] as const;

/** A schema name: interpolated into a single-quoted shell word by the cells Job, so no quotes. */
export const SCHEMA_NAME = '^[A-Za-z0-9_]{1,64}$';
export const OPENSTACK_RELEASE = '^20[0-9]{2}\\.[12]$';

export const DatabaseTls = struct(
  'DatabaseTls',
  { enabled: bool },
  { caSecretRef: LocalObjectReference, clientCertSecretRef: LocalObjectReference },
  { rules: [{ fieldPath: '.caSecretRef', message: 'tls.enabled requires caSecretRef', check: (tls) => !tls.enabled || tls.caSecretRef !== undefined }] },
);

const databaseBlock = (name: string, database: ReturnType<typeof str>) => struct(name, { clusterRef: LocalObjectReference, database, secretRef: LocalObjectReference }, { tls: DatabaseTls });
export const DatabaseBlock = databaseBlock('DatabaseBlock', str('SchemaName', { pattern: SCHEMA_NAME }));
/** The cell schema leaves room for cell0's `<database>_cell0`, which must fit the same 64 characters. */
export const CELL_SCHEMA_MAX_LENGTH = 58;
export const CellDatabaseBlock = databaseBlock('CellDatabaseBlock', str('CellSchemaName', { pattern: SCHEMA_NAME, maxLength: CELL_SCHEMA_MAX_LENGTH }));

export const Messaging = struct(
  'Messaging',
  {},
  {
    /** Brownfield: a Secret holding a rabbit:// transport URL. */
    secretRef: SecretKeyReference,
    /** Managed: a RabbitMQ cluster in this namespace. */
    clusterRef: LocalObjectReference,
    tls: struct('MessagingTls', { enabled: bool }, { caSecretRef: LocalObjectReference }),
  },
  { rules: [{ message: 'exactly one of secretRef or clusterRef must be set', check: (m) => (m.secretRef === undefined) !== (m.clusterRef === undefined) }] },
);

export const Gateway = struct(
  'Gateway',
  { parentRef: struct('GatewayParentRef', { name: ObjectName }, { namespace: DnsLabel }), hostname: str('Hostname', { maxLength: 253, pattern: '^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$' }) },
  {},
);

export const DBArchive = struct(
  'DBArchive',
  {},
  {
    schedule: str('CronSchedule', { minLength: 1, maxLength: 64 }),
    suspend: bool,
    retentionDays: int('RetentionDays', { minimum: 1, maximum: 3650 }),
    maxRows: int('MaxRows', { minimum: 1, maximum: 100000 }),
    sleepSeconds: int('SleepSeconds', { minimum: 0, maximum: 3600 }),
  },
);

export const Autoscaling = struct(
  'Autoscaling',
  { minReplicas: int('Replicas', { minimum: 1, maximum: 64 }), maxReplicas: int('Replicas', { minimum: 1, maximum: 64 }) },
  { targetCPUUtilizationPercentage: int('Percentage', { minimum: 1, maximum: 100 }) },
  { rules: [{ fieldPath: '.maxReplicas', message: 'maxReplicas must be at least minReplicas', check: (a) => a.maxReplicas >= a.minReplicas }] },
);

export const NetworkPolicy = struct(
  'NetworkPolicy',
  { enabled: bool },
  { ingressNamespaces: list('IngressNamespaces', DnsLabel, { maxItems: 32, listType: 'set' }) },
  // Fail closed: an enabled policy with no ingress would cut the API off.
  { rules: [{ fieldPath: '.ingressNamespaces', message: 'an enabled network policy needs at least one ingress namespace', check: (p) => !p.enabled || (p.ingressNamespaces?.length ?? 0) > 0 }] },
);

const ConfigValue = str('ConfigValue', { maxLength: 4096 });

export const NovaSpec = struct(
  'NovaSpec',
  {
    image: str('Image', { minLength: 1, maxLength: 512, pattern: '^[^\\s]+$' }),
    openStackRelease: str('OpenStackRelease', { pattern: OPENSTACK_RELEASE }),
    database: struct('NovaDatabases', { api: DatabaseBlock, cell: CellDatabaseBlock }, {}),
    messaging: Messaging,
    serviceUser: struct('ServiceUser', { secretRef: LocalObjectReference }, {}),
  },
  {
    replicas: int('Replicas', { minimum: 1, maximum: 64 }),
    secretStoreRef: struct('SecretStoreRef', { name: ObjectName }, { kind: enumOf('SecretStoreKind', ['SecretStore', 'ClusterSecretStore']) }),
    targetClusterRef: LocalObjectReference,
    metadata: struct('MetadataService', { sharedSecretRef: LocalObjectReference }, { gateway: Gateway }),
    consoleProxy: struct('ConsoleProxy', { enabled: bool }, { gateway: Gateway }),
    gateway: Gateway,
    remoteCompute: struct('RemoteCompute', { transportURLSecretRef: SecretKeyReference }, {}),
    dbArchive: DBArchive,
    autoscaling: Autoscaling,
    vpa: struct('Vpa', { enabled: bool }, {}),
    networkPolicy: NetworkPolicy,
    /** nova.conf overlay: section → key → value. Keys Regent owns are reported by ExtraConfigHealthy. */
    extraConfig: record('ExtraConfig', record('ExtraConfigSection', ConfigValue, { maxProperties: 128 }), { maxProperties: 64 }),
  },
);
export type NovaSpec = t.TypeOf<typeof NovaSpec>;

export const Cell = struct('Cell', { name: str('CellName', { pattern: '^[A-Za-z0-9_-]+$', maxLength: 255 }), uuid: str('CellUUID', { pattern: '^[0-9a-f-]{36}$' }) }, {});

export const NovaStatus = struct(
  'NovaStatus',
  {},
  {
    observedGeneration: Generation,
    auditURL: AuditURL,
    phase: Phase,
    conditions: Conditions,
    installedRelease: str('OpenStackRelease', { pattern: OPENSTACK_RELEASE }),
    upgradePhase: enumOf('UpgradePhase', ['Expanding', 'Migrating', 'RollingUpdate', 'Contracting']),
    endpoint: str('Endpoint', { maxLength: 2048 }),
    cells: list('Cells', Cell, { maxItems: 64, listType: 'map', mapKeys: ['name'] }),
    computeConfigSecretRef: LocalObjectReference,
    remoteComputeConfigSecretRef: LocalObjectReference,
  },
);
export type NovaStatus = t.TypeOf<typeof NovaStatus>;

/** Renaming a schema would strand the data in the old one: the names are fixed at creation. */
const schemaNamesImmutable: TransitionRule<NovaSpec, NovaStatus> = (self, old) =>
  (['api', 'cell'] as const).flatMap((block) =>
    self.spec.database[block].database === old.spec.database[block].database
      ? []
      : [ruleError(`spec.database.${block}.database`, self.spec.database[block].database, 'database is immutable')],
  );

export const NovaKind = defineKind({
  kind: 'Nova',
  plural: 'novas',
  spec: NovaSpec,
  status: NovaStatus,
  columns: standardColumns('Ready'),
  transitions: [schemaNamesImmutable],
});
export type Nova = ResourceObject<'Nova', NovaSpec, NovaStatus>;
export const validateNova = NovaKind.validate;
