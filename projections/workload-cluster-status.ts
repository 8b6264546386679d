/**
 * A WorkloadCluster's status from its two streams (machines/workload-cluster.ts and the API load balancer's
 * machines/load-balancer.ts on `load-balancer-<uid>`); the table is docs/workload-cluster.md.
 *
 * | condition | True when | False reasons |
 * |---|---|---|
 * | SecurityGroupsReady | both groups exist with every rule the cluster implies | Provisioning, ConsistencyError, Errored |
 * | ServerGroupReady | the control plane's server group exists (or none is wanted: NotRequested) | Provisioning, ConsistencyError |
 * | EndpointGuard | the endpoint's guarded fields are as recorded at creation | EndpointChangeRefused (names each field, recorded and requested) |
 * | EndpointReady | the load balancer is ACTIVE (provisioning_status, never operating_status) with a usable VIP (and floating IP when public); or the endpoint is supplied | Provisioning, Errored, ConsistencyError, Deleting |
 * | Available | all of the above and the exports published | PreconditionFailed, InvalidSpec, EndpointChangeRefused, WaitingForSubnet, Provisioning, Errored, ConsistencyError, Deleting |
 *
 * `exports` as published in the ConfigMap the machines read (complete or not at all: clusterExports), `endpoint` {host, port}, `loadBalancerID`, `securityGroupIDs`,
 * `serverGroupID`, `guard` (as recorded). Nothing is claimed that no pass observed.
 */
import type { LoadBalancerContext } from '../machines/load-balancer.js';
import type { WorkloadClusterContext } from '../machines/workload-cluster.js';
import type { ClusterExports } from '../src/resources/workload-cluster.js';
import { loadBalancerAvailable } from './load-balancer-status.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';
import { loadBalancerEndpointHost } from './workload-cluster-exports.js';

export interface WorkloadClusterView {
  state: string;
  context: WorkloadClusterContext;
}
export interface EndpointView {
  state: unknown;
  context: LoadBalancerContext;
}

export interface WorkloadClusterResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  exports?: ClusterExports;
  endpoint?: { host: string; port: number };
  loadBalancerID?: string;
  securityGroupIDs?: { controlPlane?: string; node?: string };
  serverGroupID?: string;
  guard?: { subnetID: string; public: boolean; floatingIPPool: string | null; apiServerPort: number; provider: string | null };
  exportsConfigMap?: string;
}

export interface WorkloadClusterStatusInput {
  cluster: WorkloadClusterView | undefined;
  loadBalancer: EndpointView | undefined;
  generation: number;
  deleting: boolean;
  spec: { controlPlaneEndpoint?: { host: string; port: number }; serverGroupPolicy?: string };
  /** The exports the controller published in the ConfigMap the machines read (computed by clusterExports), if any. */
  published: ClusterExports | undefined;
  exportsConfigMap: string;
  at: string;
  previous?: { conditions?: Condition[] };
}

const cond = (type: string, status: 'True' | 'False', reason: string, message: string): ConditionInput => ({ type, status, reason, message });

export const renderWorkloadClusterResource = (input: WorkloadClusterStatusInput): WorkloadClusterResourceStatus => {
  const c = input.cluster?.context;
  const observedGeneration = c?.decidedGeneration ?? 0;
  const supplied = input.spec.controlPlaneEndpoint !== undefined;
  const conditions: ConditionInput[] = [];

  // the parts
  const groupsPresent = !!c?.securityGroupIds.controlPlane && !!c.securityGroupIds.node;
  const inconsistent = c?.inconsistencies ?? [];
  const failed = c?.failure ?? null;
  conditions.push(
    inconsistent.some((i) => /security group/i.test(i))
      ? cond('SecurityGroupsReady', 'False', 'ConsistencyError', inconsistent.filter((i) => /security group/i.test(i)).join('; '))
      : failed && /SecurityGroup/.test(failed.effect)
        ? cond('SecurityGroupsReady', 'False', 'Errored', `Neutron refused ${failed.subject} (HTTP ${failed.status})`)
        : groupsPresent && c?.partsReady
          ? cond('SecurityGroupsReady', 'True', 'Ready', `control plane ${c.securityGroupIds.controlPlane}, node ${c.securityGroupIds.node}${c.drift.length ? `; ${c.drift.length} rule(s) the cluster does not imply are left as they are` : ''}`)
          : cond('SecurityGroupsReady', 'False', 'Provisioning', groupsPresent ? 'creating the rules' : 'creating the control-plane and node security groups'),
  );
  const wantsServerGroup = input.spec.serverGroupPolicy !== 'None';
  conditions.push(
    inconsistent.some((i) => /server group/i.test(i))
      ? cond('ServerGroupReady', 'False', 'ConsistencyError', inconsistent.filter((i) => /server group/i.test(i)).join('; '))
      : c?.serverGroupId
        ? cond('ServerGroupReady', 'True', 'Ready', `server group ${c.serverGroupId}`)
        : !wantsServerGroup
          ? cond('ServerGroupReady', 'True', 'NotRequested', 'serverGroupPolicy is None: the control plane joins no server group')
          : cond('ServerGroupReady', 'False', 'Provisioning', 'creating the control plane\'s server group'),
  );

  // the guard
  const violations = c?.guardViolation ?? [];
  conditions.push(
    violations.length > 0
      ? cond('EndpointGuard', 'False', 'EndpointChangeRefused', `the endpoint cannot change after creation; refused, not applied: ${violations.map((v) => `${v.field} ${JSON.stringify(v.recorded)} → ${JSON.stringify(v.requested)}`).join(', ')}`)
      : c?.guard
        ? cond('EndpointGuard', 'True', 'Recorded', `recorded at creation: subnet ${c.guard.subnetId}, public ${c.guard.public}, port ${c.guard.apiServerPort}${c.guard.provider ? `, provider ${c.guard.provider}` : ''}`)
        : cond('EndpointGuard', 'False', 'NotRecorded', 'nothing was created yet'),
  );

  // the endpoint
  const lb = input.loadBalancer;
  let endpoint: { host: string; port: number } | undefined;
  if (supplied) {
    endpoint = input.spec.controlPlaneEndpoint;
    conditions.push(cond('EndpointReady', 'True', 'Supplied', `the endpoint ${endpoint?.host}:${endpoint?.port} is supplied: no load balancer`));
  } else if (lb) {
    const a = loadBalancerAvailable({ value: lb.state as never, context: lb.context });
    const host = c?.guard ? loadBalancerEndpointHost(lb.context, c.guard.public) : null;
    if (a.status === 'True' && host && c?.guard) {
      endpoint = { host, port: c.guard.apiServerPort };
      conditions.push(cond('EndpointReady', 'True', 'Ready', `the load balancer is ACTIVE; the endpoint is ${host}:${c.guard.apiServerPort}`));
    } else conditions.push(cond('EndpointReady', 'False', a.status === 'True' ? 'Provisioning' : a.reason, a.status === 'True' ? 'waiting for a usable endpoint address' : a.message));
  } else conditions.push(cond('EndpointReady', 'False', 'Provisioning', c?.partsReady ? 'creating the API load balancer' : 'the load balancer is created once the security groups and the server group are ready'));

  const exports = input.cluster && !input.deleting ? (input.published ?? null) : null;

  // while deleting, no part is being created: say what happens to each instead
  if (input.deleting) {
    for (const [i, x] of conditions.entries()) {
      if (['SecurityGroupsReady', 'ServerGroupReady', 'EndpointReady'].includes(x.type) && x.reason !== 'NotRequested' && x.reason !== 'Supplied') {
        conditions[i] = cond(x.type, 'False', 'Deleting', x.type === 'EndpointReady' ? 'the load balancer is deleted once every machine is gone' : 'deleted after the machines and the load balancer');
      }
    }
  }

  // Available
  let available: ConditionInput;
  const notReady = conditions.find((x) => x.status === 'False');
  if (!input.cluster) available = cond('Available', 'False', 'Provisioning', 'not reconciled yet');
  else if (input.deleting || c?.deletion) available = cond('Available', 'False', 'Deleting', c?.waiting?.reason === 'WaitingForMachines' ? 'waiting for the cluster\'s machines to be deleted' : c?.waiting?.reason === 'WaitingForLoadBalancer' ? 'deleting the API load balancer' : 'deleting the server group and the security groups');
  else if ((c?.problems ?? []).length > 0) available = cond('Available', 'False', 'PreconditionFailed', (c?.problems ?? []).join('; '));
  else if (violations.length > 0) available = cond('Available', 'False', 'EndpointChangeRefused', 'a guarded endpoint field changed; see EndpointGuard');
  else if (c?.waiting?.reason === 'WaitingForSubnet') available = cond('Available', 'False', 'WaitingForSubnet', `the subnet ${c.waiting.subjects.join(', ')} is not visible in the Identity's project`);
  else if (notReady && notReady.type !== 'EndpointGuard') available = cond('Available', 'False', notReady.reason === 'Ready' ? 'Provisioning' : notReady.reason, `${notReady.type}: ${notReady.message}`);
  else if (!exports) available = cond('Available', 'False', 'Provisioning', 'the exports are not complete yet');
  else if (observedGeneration < input.generation) available = cond('Available', 'False', 'Provisioning', `generation ${input.generation} is not reconciled yet`);
  else available = cond('Available', 'True', 'Ready', `the endpoint and the exports are published (ConfigMap ${input.exportsConfigMap})`);
  conditions.unshift(available);

  const phase = available.status === 'True' ? 'Ready' : available.reason === 'Deleting' ? 'Deleting' : ['Provisioning', 'WaitingForSubnet'].includes(available.reason) ? 'Provisioning' : 'Error';
  const status: WorkloadClusterResourceStatus = {
    observedGeneration,
    phase,
    conditions: mergeConditions(input.previous?.conditions, conditions, observedGeneration, input.at),
  };
  if (exports) {
    status.exports = exports;
    status.exportsConfigMap = input.exportsConfigMap;
  }
  if (endpoint) status.endpoint = endpoint;
  if (lb?.context.loadBalancerId) status.loadBalancerID = lb.context.loadBalancerId;
  if (c && (c.securityGroupIds.controlPlane || c.securityGroupIds.node)) {
    status.securityGroupIDs = { ...(c.securityGroupIds.controlPlane ? { controlPlane: c.securityGroupIds.controlPlane } : {}), ...(c.securityGroupIds.node ? { node: c.securityGroupIds.node } : {}) };
  }
  if (c?.serverGroupId) status.serverGroupID = c.serverGroupId;
  if (c?.guard) status.guard = { subnetID: c.guard.subnetId, public: c.guard.public, floatingIPPool: c.guard.floatingIPPool, apiServerPort: c.guard.apiServerPort, provider: c.guard.provider };
  return status;
};
