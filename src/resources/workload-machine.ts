/**
 * WorkloadMachine: one Nova server of a WorkloadCluster (openstack-cluster-modules.md, "Machine"; issue 29), on a
 * Neutron port of the cluster's subnet; a control-plane machine is a member of the cluster's API pools before it boots.
 * The cluster (`spec.clusterRef`, same namespace) and the role are fixed for the machine's life.
 *
 * `userData` is the bootstrap payload and is NOT secret-free in general (a control-plane payload carries the cluster CA
 * keys): it is stored in the resource like any spec field, but never written into an event — the machine records only
 * its digest (machines/workload-machine/observation.ts).
 *
 * The image is taken by id or by name, exactly one; a later image change is not applied to the server (no rebuild:
 * the modules ignore image changes), the status says which image the server runs (`imageID`).
 */
import type * as t from 'io-ts';
import { AuditURL, Conditions, DisplayName, Generation, LocalObjectReference, Phase, Uuid } from './codec/common.js';
import { bool, enumOf, str } from './codec/primitives.js';
import { list, struct } from './codec/structure.js';
import { ruleError } from './codec/transitions.js';
import { defineKind, standardColumns, type PrinterColumn, type ResourceObject, type TransitionRule } from './kind.js';
import { AdditionalTags, withRules } from './workload-cluster.js';

export const WORKLOAD_MACHINE_ROLES = ['ControlPlane', 'Worker'] as const;
export type WorkloadMachineRole = (typeof WORKLOAD_MACHINE_ROLES)[number];

export const USER_DATA_MAX_BYTES = 65535;
export const USER_DATA_BYTES_MESSAGE = 'userData must be at most 65535 bytes (UTF-8)';
export const IMAGE_EXACTLY_ONE_MESSAGE = 'exactly one of image.id and image.name must be set';

export const MachineImage = struct(
  'MachineImage',
  {},
  { id: Uuid, name: DisplayName },
  { rules: [{ message: IMAGE_EXACTLY_ONE_MESSAGE, check: (self) => (self.id !== undefined) !== (self.name !== undefined) }] },
);
export type MachineImage = t.TypeOf<typeof MachineImage>;

/** At most 65535 bytes once UTF-8 encoded (Nova's user_data limit); the character bound keeps CEL's cost estimate finite. */
export const UserData = withRules(str('UserData', { maxLength: USER_DATA_MAX_BYTES }), [{ message: USER_DATA_BYTES_MESSAGE, check: (s) => Buffer.byteLength(s, 'utf8') <= USER_DATA_MAX_BYTES }]);

export const WorkloadMachineSpec = struct(
  'WorkloadMachineSpec',
  {
    /** The WorkloadCluster in this namespace. Immutable. */
    clusterRef: LocalObjectReference,
    /** Immutable: a control-plane machine is an API pool member and joins the server group, a worker neither. */
    role: enumOf('WorkloadMachineRole', WORKLOAD_MACHINE_ROLES),
    image: MachineImage,
    /** The Nova flavor by name; no default. */
    flavorName: DisplayName,
  },
  {
    /** The bootstrap payload. Never written into an event: only its digest is recorded. */
    userData: UserData,
    availabilityZone: DisplayName,
    additionalTags: AdditionalTags,
  },
);
export type WorkloadMachineSpec = t.TypeOf<typeof WorkloadMachineSpec>;

export const MachinePoolMembership = struct('MachinePoolMembership', { name: str('PoolName', { minLength: 1, maxLength: 255 }), member: bool }, {});

export const WorkloadMachineStatus = struct(
  'WorkloadMachineStatus',
  {},
  {
    observedGeneration: Generation,
    auditURL: AuditURL,
    phase: Phase,
    conditions: Conditions,
    serverID: Uuid,
    portID: Uuid,
    /** The port's fixed IP (IPv4 or IPv6). */
    address: str('Address', { minLength: 1, maxLength: 45, pattern: '^[0-9A-Fa-f.:]+$' }),
    /** The image the server was observed to run. */
    imageID: Uuid,
    /** The API pools (by the export keys' names) and whether the machine is their member. */
    pools: list('MachinePools', MachinePoolMembership, { maxItems: 8, listType: 'map', mapKeys: ['name'] }),
  },
);
export type WorkloadMachineStatus = t.TypeOf<typeof WorkloadMachineStatus>;

const immutable: TransitionRule<WorkloadMachineSpec, WorkloadMachineStatus> = (self, old) => [
  ...(self.spec.clusterRef.name === old.spec.clusterRef.name ? [] : [ruleError('spec.clusterRef.name', self.spec.clusterRef.name, 'clusterRef.name is immutable')]),
  ...(self.spec.role === old.spec.role ? [] : [ruleError('spec.role', self.spec.role, 'role is immutable')]),
];

export const WORKLOAD_MACHINE_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Cluster', type: 'string', jsonPath: '.spec.clusterRef.name' },
  { name: 'Role', type: 'string', jsonPath: '.spec.role' },
  { name: 'Address', type: 'string', jsonPath: '.status.address' },
  ...standardColumns('Available'),
];

export const WorkloadMachineKind = defineKind({
  kind: 'WorkloadMachine',
  plural: 'workloadmachines',
  shortNames: ['wlm'],
  spec: WorkloadMachineSpec,
  status: WorkloadMachineStatus,
  columns: WORKLOAD_MACHINE_COLUMNS,
  transitions: [immutable],
});
export type WorkloadMachine = ResourceObject<'WorkloadMachine', WorkloadMachineSpec, WorkloadMachineStatus>;
export const validateWorkloadMachine = WorkloadMachineKind.validate;
