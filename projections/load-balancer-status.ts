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
import { loadBalancerAvailable, loadBalancerListenerStates, loadBalancerObserved, type LoadBalancerContext } from '../machines/load-balancer.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

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
