/**
 * A LoadBalancer's status from its stream (machines/load-balancer.ts); the table is docs/loadbalancer.md.
 *
 * | machine | Available | phase |
 * |---|---|---|
 * | no pass yet, absent, provisioning, pruning, a generation not decided yet | False / Provisioning (what it waits for) | Provisioning |
 * | provisioned | True / Provisioned | Ready |
 * | ERROR in Octavia, a refused change | False / Errored (user-safe: which change, the HTTP status; never Octavia's text) | Error |
 * | duplicates, an unknown provisioning status, drift Octavia cannot change, an unusable endpoint (LB15) | False / ConsistencyError | Error |
 * | spec refused | False / InvalidSpec | Error |
 * | deleting | False / Deleting | Deleting |
 *
 * `loadBalancerID`, `vipAddress`, `publicIP` (the floating IP on the VIP port), `provisioningStatus` (Octavia's
 * word, when it is one the CRD knows) and `listeners[]` (name, state, Octavia ids) from the last pass.
 * `vipAddress` and `publicIP` only while that pass found the endpoint usable (LB15, `loadBalancerObserved`):
 * left out otherwise, and the status runner then removes the last good values (it owns both keys).
 */
import type { AnyMachineSnapshot } from 'xstate';
import { deletingSubstate, LB_EFFECTS, type ListenerState, type LoadBalancerContext } from '../machines/load-balancer.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

// ─── the machine's state, read for status (moved here from machines/load-balancer.ts, issue 25) ─────

export type LoadBalancerReason = 'Provisioning' | 'Provisioned' | 'Errored' | 'ConsistencyError' | 'Deleting' | 'InvalidSpec';
type Snapshot = Pick<AnyMachineSnapshot, 'value' | 'context'>;

const WHAT: Record<string, string> = {
  [LB_EFFECTS.createLoadBalancer]: 'create the load balancer',
  [LB_EFFECTS.createListener]: 'create a listener',
  [LB_EFFECTS.updateListener]: 'update a listener',
  [LB_EFFECTS.createPool]: 'create a pool',
  [LB_EFFECTS.setPoolMembers]: 'set the pool members',
  [LB_EFFECTS.createHealthMonitor]: 'create a health monitor',
  [LB_EFFECTS.updateHealthMonitor]: 'update a health monitor',
  [LB_EFFECTS.deleteHealthMonitor]: 'delete a health monitor',
  [LB_EFFECTS.deleteListener]: 'delete a listener',
  [LB_EFFECTS.deletePool]: 'delete a pool',
  [LB_EFFECTS.deleteLoadBalancer]: 'delete the load balancer',
  [LB_EFFECTS.createFloatingIP]: 'create the floating IP',
  [LB_EFFECTS.deleteFloatingIP]: 'release the floating IP',
};

/**
 * The Available condition for the machine's state. Messages are user-safe: Regent's own words, the names
 * it made, the spec's values and Octavia's closed status vocabulary — never Octavia's or Neutron's text.
 */
export const loadBalancerAvailable = (snapshot: Snapshot): { status: 'True' | 'False'; reason: LoadBalancerReason; message: string } => {
  const c = snapshot.context as LoadBalancerContext;
  const no = (reason: LoadBalancerReason, message: string) => ({ status: 'False' as const, reason, message });
  const sub = deletingSubstate(snapshot);
  if (sub !== null || snapshot.value === 'deleted') {
    if (snapshot.value === 'deleted') return no('Deleting', 'the load balancer is deleted');
    if (sub === 'releasingFloatingIP') return no('Deleting', 'releasing the floating IP before deleting the load balancer');
    if (c.waiting?.reason === 'Pending') return no('Deleting', 'waiting for Octavia to finish a change before deleting the load balancer');
    return no('Deleting', sub === 'submitted' ? 'deleting the load balancer and its listeners, pools and monitors' : 'deleting the load balancer');
  }
  switch (snapshot.value) {
    case 'invalid':
      return no('InvalidSpec', c.invalidSpec?.message ?? 'the spec is invalid');
    case 'inconsistent':
      return no(c.problem?.status === 'ERROR' ? 'Errored' : 'ConsistencyError', c.problem?.message ?? 'Octavia does not show a consistent topology');
    case 'failed': {
      const f = c.failure;
      const service = f?.effect.startsWith('neutron.') ? 'Neutron' : 'Octavia';
      return no('Errored', f ? `${service} refused to ${WHAT[f.effect] ?? 'apply a change'} (HTTP ${f.status})` : 'a change was refused');
    }
    case 'provisioned':
      return { status: 'True', reason: 'Provisioned', message: 'the load balancer is active' };
    default: {
      const w = c.waiting;
      if (c.lastAnswer?.answer === 'conflict' && c.mutation === null && snapshot.value === 'provisioning' && w === null) return no('Provisioning', 'Octavia was busy with another change; trying again');
      if (w?.reason === 'Pending') return no('Provisioning', 'waiting for Octavia to finish applying a change');
      if (w?.reason === 'CreateMayStillLand') return no('Provisioning', 'waiting to see whether an unanswered create took effect');
      if (snapshot.value === 'pruning') return no('Provisioning', 'removing listeners, pools or monitors the spec no longer names');
      return no('Provisioning', snapshot.value === 'absent' ? 'waiting to create the load balancer' : 'converging the load balancer');
    }
  }
};

/** Per spec listener: its state and Octavia ids, as the last pass saw them (status.listeners). */
export const loadBalancerListenerStates = (snapshot: Snapshot): Array<{ name: string; state: ListenerState; listenerID?: string; poolID?: string; healthMonitorID?: string }> => {
  const c = snapshot.context as LoadBalancerContext;
  const deleting = deletingSubstate(snapshot) !== null || snapshot.value === 'deleted';
  return c.listeners.map((r) => ({
    name: r.name,
    state: deleting ? 'Deleting' : r.state,
    ...(r.listenerId ? { listenerID: r.listenerId } : {}),
    ...(r.poolId ? { poolID: r.poolId } : {}),
    ...(r.healthMonitorId ? { healthMonitorID: r.healthMonitorId } : {}),
  }));
};

/**
 * What status shows besides the conditions: the Octavia id, VIP, public address, provisioning status.
 * LB15: neither the VIP nor the floating IP while the last observation's endpoint is unusable (so never a
 * value that is not an IP address) — a client must never be sent to half an endpoint, nor to the one a
 * previous pass saw (each pass's observation replaces the last).
 */
export const loadBalancerObserved = (snapshot: Snapshot): { loadBalancerID: string | null; vipAddress: string | null; floatingIP: string | null; provisioningStatus: string | null } => {
  const c = snapshot.context as LoadBalancerContext;
  const shown = c.observed?.endpointUsable === true;
  return {
    loadBalancerID: c.loadBalancerId,
    vipAddress: shown ? (c.observed?.vipAddress ?? null) : null,
    floatingIP: shown ? (c.observed?.floatingIP?.address ?? null) : null,
    provisioningStatus: c.observed?.provisioningStatus ?? null,
  };
};

// ─── the resource's status ──────────────────────────────────────────────────────────────────────────

export interface LoadBalancerResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  loadBalancerID?: string;
  vipAddress?: string;
  publicIP?: string;
  provisioningStatus?: string;
  listeners?: Array<{ name: string; state: string; listenerID?: string; poolID?: string; healthMonitorID?: string }>;
}

const PHASES: Record<string, string> = { Provisioned: 'Ready', Provisioning: 'Provisioning', Deleting: 'Deleting' };
const KNOWN_PROVISIONING = ['ACTIVE', 'PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE', 'DELETED', 'ERROR'];

export const renderLoadBalancerResource = (input: { lifecycle: { state: unknown; context: LoadBalancerContext } | undefined; generation: number; at: string; previous?: LoadBalancerResourceStatus }): LoadBalancerResourceStatus => {
  const view = input.lifecycle;
  const snapshot = view ? { value: view.state as never, context: view.context } : undefined;
  const observedGeneration = view?.context.decidedGeneration ?? 0;
  let available: ConditionInput = { type: 'Available', status: 'False', reason: 'Provisioning', message: 'not reconciled yet' };
  if (snapshot) {
    const a = loadBalancerAvailable(snapshot);
    available = { type: 'Available', ...a };
    if (a.status === 'True' && observedGeneration < input.generation) available = { type: 'Available', status: 'False', reason: 'Provisioning', message: `generation ${input.generation} is not reconciled yet` };
  }
  const status: LoadBalancerResourceStatus = {
    observedGeneration,
    phase: PHASES[available.reason] ?? 'Error',
    conditions: mergeConditions(input.previous?.conditions, [available], observedGeneration, input.at),
  };
  if (snapshot) {
    const seen = loadBalancerObserved(snapshot);
    if (seen.loadBalancerID) status.loadBalancerID = seen.loadBalancerID;
    if (seen.vipAddress) status.vipAddress = seen.vipAddress;
    if (seen.floatingIP) status.publicIP = seen.floatingIP;
    if (seen.provisioningStatus && KNOWN_PROVISIONING.includes(seen.provisioningStatus)) status.provisioningStatus = seen.provisioningStatus;
    const listeners = loadBalancerListenerStates(snapshot);
    if (listeners.length > 0) status.listeners = listeners;
  }
  return status;
};
