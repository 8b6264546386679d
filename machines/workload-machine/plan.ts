/**
 * What one pass of the workload-machine machine (machines/workload-machine.ts) decides, as pure functions of the
 * context kept between passes and the pass's stimulus: the live step (WM3–WM9) and the deletion step (WM10–WM15),
 * and the params of the effects declared from them. The machine's guards ask these, its actions record them; nothing
 * here reads a clock (the pass's `at` is compared with machines/time.ts).
 */
import type { EffectAnswer } from '../workload-cluster/observation.js';
import { atLeastAfter } from '../time.js';
import { backoffElapsed } from '../write-ahead-delete.js';
import { WORKLOAD_MACHINE_EFFECTS as E, type DesiredMachine, type MachineObservation, type MachineRole, type WorkloadMachineStimulus } from './observation.js';

/**
 * WM8: how long a create decided earlier, not refused, whose object a fresh lookup by name does not show, may still
 * land (a Nova create answered late, a lost answer, a listing that lags) before it is decided again. Measured between
 * the deciding pass's `at` and this pass's `at`; an unparseable time never elapses.
 */
export const CREATE_GRACE_MS = 60_000;

export type WaitReason =
  | 'WaitingForCluster'
  | 'ImageNotFound'
  | 'FlavorNotFound'
  | 'WaitingForAddress'
  | 'WaitingForPoolMembership'
  | 'CreateMayStillLand'
  | 'ServerNotActive'
  | 'LeavingPools'
  | 'ServerDeleting'
  | 'PortDeleting';

export type ProblemKind = 'DuplicatePort' | 'DuplicateServer' | 'ServerNameTaken' | 'PortInUse';

/** The create decided last (WM8): what its answer must name, and what is known of that answer. */
export interface CreateMemory {
  effect: typeof E.createPort | typeof E.createServer;
  subject: string;
  generation: number;
  /** The deciding pass's clock. */
  decidedAt: string;
  /** pending: no answer recorded yet; unknown: the answer never came (outcomeUnknown). */
  answer: 'pending' | 'accepted' | 'conflict' | 'unknown';
}

/** WM10–WM14: the deletion's progress: the write-ahead target, the delete decided and its ledger (W5). */
export interface DeletionProgress {
  /** waiting: for the pools to drop the members, or for a create that may still land; armed: the server id is armed; server: its delete was decided; port: the port's delete was decided; blocked: a problem stands. */
  step: 'waiting' | 'armed' | 'server' | 'port' | 'blocked';
  /** The server armed for (armed) or whose delete was decided (server, port). */
  serverId: string | null;
  /** The server whose delete was decided (WM13: the only device a port may still name when it is deleted). */
  deletedServerId: string | null;
  /** The port whose delete was decided. */
  portId: string | null;
  /** W5: requests decided for the current delete, and the clock of the last. */
  attempts: number;
  lastAt: string | null;
  /** The last refusal (rejected or conflict) of the current delete. */
  refusal: { effect: string; status: number; reason: string } | null;
}

export interface WorkloadMachineContext {
  uid: string;
  /** From the last pass that carried a desired machine (null until one did). */
  name: string | null;
  portName: string;
  role: MachineRole | null;
  /** The port as last observed (or as the create's answer named it). */
  portId: string | null;
  address: string | null;
  /** The server as last observed (or as the create's answer named it); a foreign server is never recorded here. */
  serverId: string | null;
  serverStatus: string | null;
  /** The image the observed server runs (not the desired one: an image change is the rebuild protocol's, WM9). */
  imageId: string | null;
  /** The API pools' membership as last observed (one entry per desired pool; empty for a worker). */
  membership: Array<{ name: string; poolId: string; member: boolean; provisioningStatus: string | null }>;
  /** What the last pass waited for. */
  waiting: { reason: WaitReason; detail: string } | null;
  /** A consistency problem the last pass found (WM4, WM5, WM13): nothing is decided while it stands. */
  problem: { kind: ProblemKind; detail: string; ids: string[] } | null;
  /** WM8: a create the cloud refused; parked until a new generation. */
  failure: { effect: string; subject: string; status: number; reason: string; generation: number } | null;
  /** The spec the last specRejected named (WM16). */
  invalidSpec: { generation: number; problems: string[] } | null;
  lastAnswer: { effect: string; answer: 'accepted' | 'conflict' | 'rejected' | 'unknown' } | null;
  create: CreateMemory | null;
  /** The generation of the last reconcile pass. */
  decidedGeneration: number | null;
  deletion: DeletionProgress | null;
  released: boolean;
}

export type Event = WorkloadMachineStimulus;
export type Reconcile = Extract<WorkloadMachineStimulus, { type: 'reconcile' }>;
export type Answer = EffectAnswer;
export type Args = { context: WorkloadMachineContext; event: Event };

export const isReconcile = (event: Event): event is Reconcile => event.type === 'reconcile' && event.source === 'reconciler';
export const isAnswer = (event: Event): event is Answer =>
  event.source === 'effect' && (event.type === 'accepted' || event.type === 'conflict' || event.type === 'rejected' || event.type === 'outcomeUnknown');

export const WORKLOAD_MACHINE_STREAM_PREFIX = 'workload-machine-';
export const portNameOf = (uid: string): string => `wm-${uid}`;

// ─── the live step (WM3–WM9) ───────────────────────────────────────────────────────────────────────

export type CreatePortParams = { subject: string; name: string; networkId: string; subnetId: string; securityGroupIds: string[]; allowedAddressCIDRs: string[]; tags: string[] };
export type CreateServerParams = {
  subject: string;
  uid: string;
  name: string;
  imageId: string;
  flavorId: string;
  portId: string;
  userDataDigest: string | null;
  availabilityZone: string | null;
  serverGroupId: string | null;
  metadata: Record<string, string>;
};

export type LiveStep =
  | { kind: 'wait'; reason: WaitReason; detail: string }
  | { kind: 'problem'; problem: NonNullable<WorkloadMachineContext['problem']> }
  | { kind: 'createPort'; params: CreatePortParams }
  | { kind: 'createServer'; params: CreateServerParams }
  | { kind: 'running' }
  | { kind: 'errored'; status: string };

/** WM4/WM5: a duplicate lookup, or a server of this name Regent did not create. */
export const problemOf = (observed: MachineObservation): LiveStep & { kind: 'problem' } | null => {
  if (observed.port.kind === 'duplicate') return { kind: 'problem', problem: { kind: 'DuplicatePort', detail: `${observed.port.ids.length} ports carry the machine's port name`, ids: [...observed.port.ids] } };
  if (observed.server.kind === 'duplicate') return { kind: 'problem', problem: { kind: 'DuplicateServer', detail: `${observed.server.ids.length} servers carry the machine's name`, ids: [...observed.server.ids] } };
  if (observed.server.kind === 'present' && observed.server.foreign)
    return { kind: 'problem', problem: { kind: 'ServerNameTaken', detail: `server ${observed.server.id} has the machine's name but is not Regent's (regent.dev:uid differs)`, ids: [observed.server.id] } };
  return null;
};

/** WM8: an earlier create of this effect, not refused, may still land: its grace has not passed on this pass's clock. */
export const createMayStillLand = (create: CreateMemory | null, effect: CreateMemory['effect'], at: string): boolean =>
  create !== null && create.effect === effect && !atLeastAfter(create.decidedAt, at, CREATE_GRACE_MS);

/** WM7: the desired pools the observation does not show this machine a member of (an unobserved pool counts as missing). */
export const poolsMissing = (desired: DesiredMachine, observed: MachineObservation): string[] =>
  desired.role !== 'controlPlane' ? [] : desired.pools.filter((p) => !observed.membership.some((m) => m.poolId === p.poolId && m.member)).map((p) => p.name);

export const liveStep = (context: WorkloadMachineContext, event: Reconcile): LiveStep => {
  const { desired, observed, at } = event;
  // WM2
  if (desired === null) return { kind: 'wait', reason: 'WaitingForCluster', detail: 'the cluster has not published its exports' };
  // WM4, WM5
  const problem = problemOf(observed);
  if (problem) return problem;
  const server = observed.server;
  // WM9: a server of Regent's decides the state; its image is never compared with the desired one
  if (server.kind === 'present') {
    if (server.status === 'ACTIVE') return { kind: 'running' };
    if (server.status === 'ERROR') return { kind: 'errored', status: server.status };
    return { kind: 'wait', reason: 'ServerNotActive', detail: `server ${server.id} is ${server.status}${server.taskState ? ` (${server.taskState})` : ''}` };
  }
  // WM3: nothing is created for a machine that cannot boot
  if (desired.imageId === null) return { kind: 'wait', reason: 'ImageNotFound', detail: 'the image was not found in Glance' };
  if (desired.flavorId === null) return { kind: 'wait', reason: 'FlavorNotFound', detail: 'the flavor was not found in Nova' };
  // WM6: the port first
  const port = observed.port;
  if (port.kind !== 'present') {
    if (createMayStillLand(context.create, E.createPort, at)) return { kind: 'wait', reason: 'CreateMayStillLand', detail: `port ${desired.portName}` };
    return {
      kind: 'createPort',
      params: {
        subject: desired.portName,
        name: desired.portName,
        networkId: desired.networkId,
        subnetId: desired.subnetId,
        securityGroupIds: [...desired.securityGroupIds],
        allowedAddressCIDRs: [...desired.allowedAddressCIDRs],
        tags: [...desired.tags],
      },
    };
  }
  if (port.address === null) return { kind: 'wait', reason: 'WaitingForAddress', detail: `port ${port.id} has no fixed IP on the subnet yet` };
  // WM7: register before boot
  const missing = poolsMissing(desired, observed);
  if (missing.length > 0) return { kind: 'wait', reason: 'WaitingForPoolMembership', detail: `not yet a member of ${missing.join(', ')}` };
  // WM8
  if (createMayStillLand(context.create, E.createServer, at)) return { kind: 'wait', reason: 'CreateMayStillLand', detail: `server ${desired.name}` };
  return {
    kind: 'createServer',
    params: {
      subject: desired.name,
      uid: desired.uid,
      name: desired.name,
      imageId: desired.imageId,
      flavorId: desired.flavorId,
      portId: port.id,
      userDataDigest: desired.userDataDigest,
      availabilityZone: desired.availabilityZone,
      serverGroupId: desired.serverGroupId,
      metadata: { ...desired.metadata },
    },
  };
};

// ─── the deletion step (WM10–WM15) ─────────────────────────────────────────────────────────────────

export type DeletionStep =
  | { kind: 'problem'; problem: NonNullable<WorkloadMachineContext['problem']> }
  | { kind: 'leaving'; pools: string[] }
  | { kind: 'awaitingCreate'; subject: string }
  | { kind: 'arm'; serverId: string }
  | { kind: 'deleteServer'; serverId: string }
  | { kind: 'resendServer'; serverId: string }
  | { kind: 'serverInProgress'; serverId: string }
  | { kind: 'deletePort'; portId: string }
  | { kind: 'resendPort'; portId: string }
  | { kind: 'portInProgress'; portId: string }
  | { kind: 'released' };

export const deletionStep = (context: WorkloadMachineContext, event: Reconcile): DeletionStep => {
  const { observed, at } = event;
  const d = context.deletion;
  // WM4 holds during a deletion too: a duplicate is never picked from
  if (observed.port.kind === 'duplicate' || observed.server.kind === 'duplicate') return problemOf(observed) as DeletionStep;
  // WM10: leave before delete
  const members = observed.membership.filter((m) => m.member).map((m) => m.name);
  if (members.length > 0) return { kind: 'leaving', pools: members };
  // WM11/WM12: Regent's server, write-ahead (a foreign one is not Regent's: WM5, never deleted)
  const server = observed.server.kind === 'present' && !observed.server.foreign ? observed.server : null;
  if (server) {
    if (d?.step === 'armed' && d.serverId === server.id) return { kind: 'deleteServer', serverId: server.id };
    if (d?.step === 'server' && d.serverId === server.id) {
      return backoffElapsed({ attempts: d.attempts, lastAt: d.lastAt }, at) ? { kind: 'resendServer', serverId: server.id } : { kind: 'serverInProgress', serverId: server.id };
    }
    return { kind: 'arm', serverId: server.id };
  }
  // WM15: a create decided earlier may still land: nothing is released under it
  if (createMayStillLand(context.create, E.createServer, at)) return { kind: 'awaitingCreate', subject: context.create?.subject ?? '' };
  // WM13: the port, once no server of Regent's is observed
  const port = observed.port.kind === 'present' ? observed.port : null;
  if (!port && createMayStillLand(context.create, E.createPort, at)) return { kind: 'awaitingCreate', subject: context.create?.subject ?? '' };
  if (port) {
    const deleted = d?.deletedServerId ?? null;
    if (port.deviceId !== null && port.deviceId !== deleted) {
      return { kind: 'problem', problem: { kind: 'PortInUse', detail: `port ${port.id} is bound to ${port.deviceId}, not a server this machine deleted`, ids: [port.id, port.deviceId] } };
    }
    if (d?.step === 'port' && d.portId === port.id) {
      return backoffElapsed({ attempts: d.attempts, lastAt: d.lastAt }, at) ? { kind: 'resendPort', portId: port.id } : { kind: 'portInProgress', portId: port.id };
    }
    return { kind: 'deletePort', portId: port.id };
  }
  // WM14
  return { kind: 'released' };
};

// ─── memoized per (context, event): however many guards ask, one plan ─────────────────────────────

const memo = <T>(plan: (c: WorkloadMachineContext, e: Reconcile) => T) => {
  const cache = new WeakMap<object, WeakMap<object, T>>();
  return (context: WorkloadMachineContext, event: Event): T | null => {
    if (!isReconcile(event)) return null;
    const byContext = cache.get(event) ?? new WeakMap<object, T>();
    cache.set(event, byContext);
    if (byContext.has(context)) return byContext.get(context) as T;
    const step = plan(context, event);
    byContext.set(context, step);
    return step;
  };
};
export const live = memo(liveStep);
export const deletion = memo(deletionStep);

// ─── answers (WM1, WM8, WM12, WM13) ────────────────────────────────────────────────────────────────

/** The answer names the create decided last. */
export const answersCreate = (context: WorkloadMachineContext, event: Event): boolean =>
  isAnswer(event) && context.create !== null && context.create.effect === event.effect && context.create.subject === event.subject;

/** The subject a delete is decided under (and its answer must name). */
export const serverSubject = (context: WorkloadMachineContext, serverId: string): string => context.name ?? serverId;

/** The answer names the delete standing (the server's while `server`, the port's while `port`). */
export const answersDelete = (context: WorkloadMachineContext, event: Event): boolean => {
  const d = context.deletion;
  if (!isAnswer(event) || d === null) return false;
  if (d.step === 'server' && d.serverId !== null) return event.effect === E.deleteServer && event.subject === serverSubject(context, d.serverId);
  if (d.step === 'port') return event.effect === E.deletePort && event.subject === context.portName;
  return false;
};
