/**
 * The contract of a WorkloadMachine pass (openstack-cluster-modules.md, the machine role; issue 29): what the
 * reconciler hands the workload-machine machine (machines/workload-machine.ts) — the desired node resolved from the
 * spec and the cluster's exports, one fresh observation of Neutron, Nova and (for the control plane) the API pools,
 * and the effects' answers (the four outcomes of machines/workload-cluster/observation.ts, `EffectAnswer`).
 *
 * Names: the Neutron port `wm-<uid>`; the Nova server is named after the WorkloadMachine (the Node name equals the
 * server name), and carries the metadata `regent.dev:uid` = the resource's uid, so a server of that name Regent did
 * not create is told apart (`foreign`) and never adopted or deleted.
 *
 * Membership is not this machine's to change: the cluster's load-balancer topology holds every control-plane port's
 * address in every API pool (src/controllers/workload-cluster/). This machine waits for it before the server is
 * created (register before boot) and, while being deleted, for the members to be gone before the server is deleted.
 */
import * as t from 'io-ts';
import { EffectAnswer, lookup, nullable } from '../workload-cluster/observation.js';

export const MachineRole = t.keyof({ controlPlane: null, worker: null });
export type MachineRole = t.TypeOf<typeof MachineRole>;

/** An API pool this control-plane machine must be a member of (from the cluster's exports). */
export const DesiredPool = t.type({ name: t.string, poolId: t.string, port: t.number });

export const DesiredMachine = t.type({
  /** The server's name: the WorkloadMachine's name. */
  name: t.string,
  /** `wm-<uid>`. */
  portName: t.string,
  uid: t.string,
  role: MachineRole,
  networkId: t.string,
  subnetId: t.string,
  /** exports.security_group_ids[control_plane | worker]. */
  securityGroupIds: t.array(t.string),
  /** exports.node_allowed_address_cidrs. */
  allowedAddressCIDRs: t.array(t.string),
  /** The image as resolved this pass (by id, or by exact name in Glance); null: not found (the machine waits, says why). */
  imageId: nullable(t.string),
  /** The flavor by name (no default), resolved to its id this pass; null: not found. */
  flavorId: nullable(t.string),
  /**
   * The sha256 (hex) of the user data as given, or null. The data itself never enters an event (a control plane's
   * bootstrap payload carries the cluster CA keys): the createServer handler reads it from the resource by uid.
   */
  userDataDigest: nullable(t.string),
  availabilityZone: nullable(t.string),
  /** exports.control_plane_server_group_id for the control plane, else null. */
  serverGroupId: nullable(t.string),
  /** Neutron tags ("k=v", mapped: machines/workload-cluster/tags.ts). */
  tags: t.array(t.string),
  /** Nova metadata (the same pairs, mapped keys) plus `regent.dev:uid`. */
  metadata: t.record(t.string, t.string),
  /** Control plane only: the API pools (exports.api.pools); empty for a worker or a supplied endpoint. */
  pools: t.array(DesiredPool),
});
export type DesiredMachine = t.TypeOf<typeof DesiredMachine>;

export const ObservedPort = lookup({
  id: t.string,
  /** The fixed IP on the cluster's subnet, or null while Neutron shows none. */
  address: nullable(t.string),
  status: t.string,
  deviceId: nullable(t.string),
  securityGroupIds: t.array(t.string),
});
export type ObservedPort = t.TypeOf<typeof ObservedPort>;

export const ObservedServer = lookup({
  id: t.string,
  /** Nova's status verbatim (ACTIVE, BUILD, ERROR, …). */
  status: t.string,
  imageId: nullable(t.string),
  taskState: nullable(t.string),
  /** The server carries another `regent.dev:uid` (or none): not Regent's to adopt or delete. */
  foreign: t.boolean,
});
export type ObservedServer = t.TypeOf<typeof ObservedServer>;

/** Per desired pool: whether the port's address (and the pool's port) is a member, as Octavia shows it. */
export const ObservedMembership = t.type({ name: t.string, poolId: t.string, member: t.boolean, provisioningStatus: nullable(t.string) });

export const MachineObservation = t.type({
  port: ObservedPort,
  server: ObservedServer,
  /** One entry per desired pool; empty for a worker. Read only once the port has an address. */
  membership: t.array(ObservedMembership),
});
export type MachineObservation = t.TypeOf<typeof MachineObservation>;

/** Effect types and their params. */
export const WORKLOAD_MACHINE_EFFECTS = {
  /** params { subject, name, networkId, subnetId, securityGroupIds, allowedAddressCIDRs, tags } → accepted { ids: { id } } */
  createPort: 'workloadMachine.createPort',
  /** params { subject, uid, name, imageId, flavorId, portId, userDataDigest, availabilityZone, serverGroupId, metadata } → accepted { ids: { id } } */
  createServer: 'workloadMachine.createServer',
  /** destructive; params { subject, id } → accepted (404 too) */
  deleteServer: 'workloadMachine.deleteServer',
  /** params { subject, id } → accepted (404 too); 409 `conflict` */
  deletePort: 'workloadMachine.deletePort',
} as const;

export const WorkloadMachineStimulus = t.union([
  t.type({
    type: t.literal('reconcile'),
    source: t.literal('reconciler'),
    generation: t.number,
    deletionRequested: t.boolean,
    at: t.string,
    /** null: the cluster has not published its exports yet (or is gone): the machine waits; a deletion still proceeds from what is observed. */
    desired: nullable(DesiredMachine),
    observed: MachineObservation,
  }),
  t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
  EffectAnswer,
]);
export type WorkloadMachineStimulus = t.TypeOf<typeof WorkloadMachineStimulus>;
