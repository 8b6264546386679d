/**
 * A WorkloadMachine's status from its streams (machines/workload-machine.ts, and the rebuild protocol's
 * machines/server-rebuild.ts on `server-rebuild-<nova id>` once the server runs); the table is
 * docs/workload-cluster.md.
 *
 * | condition | True when | False reasons |
 * |---|---|---|
 * | PortReady | the port exists with an address on the cluster's subnet | Provisioning, ConsistencyError |
 * | Registered | (control plane) the address is a member of every API pool; (worker, supplied endpoint) NotRequired | WaitingForPoolMembership, LeavingPools |
 * | ServerReady | the server is ACTIVE | Provisioning, Errored, ServerNameTaken, ImageNotFound, FlavorNotFound |
 * | ImageReady | the server runs the desired image (a change is rebuilt in place through the rebuild protocol) | Rebuilding, RebuildFailed |
 * | Available | all of the above on the current generation | the first False one's reason; WaitingForCluster; Deleting |
 */
import type { WorkloadMachineContext } from '../machines/workload-machine.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

export interface WorkloadMachineResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  serverID?: string;
  portID?: string;
  address?: string;
  imageID?: string;
  pools?: Array<{ name: string; member: boolean }>;
}

export interface RebuildView {
  /** The marker's state (Initiated, Failed, …) or null when none stands. */
  marker: { state: string; targetImageID?: string } | null;
}

export interface WorkloadMachineStatusInput {
  machine: { state: string; context: WorkloadMachineContext } | undefined;
  rebuild: RebuildView | undefined;
  role: 'ControlPlane' | 'Worker';
  /** The image the spec asks for, resolved by the last pass (its id), when known. */
  desiredImageId: string | null;
  generation: number;
  deleting: boolean;
  at: string;
  previous?: { conditions?: Condition[] };
}

const cond = (type: string, status: 'True' | 'False', reason: string, message: string): ConditionInput => ({ type, status, reason, message });

export const renderWorkloadMachineResource = (input: WorkloadMachineStatusInput): WorkloadMachineResourceStatus => {
  const c = input.machine?.context;
  const observedGeneration = c?.decidedGeneration ?? 0;
  const waiting = c?.waiting ?? null;
  const problem = c?.problem ?? null;
  const conditions: ConditionInput[] = [];

  conditions.push(
    problem && /Port/.test(problem.kind)
      ? cond('PortReady', 'False', 'ConsistencyError', problem.detail)
      : c?.portId && c.address
        ? cond('PortReady', 'True', 'Ready', `port ${c.portId}, address ${c.address}`)
        : cond('PortReady', 'False', 'Provisioning', c?.portId ? 'waiting for the port\'s address' : 'creating the port on the cluster\'s subnet'),
  );
  const membership = c?.membership ?? [];
  if (input.role === 'Worker') conditions.push(cond('Registered', 'True', 'NotRequired', 'a worker is not a member of the API pools'));
  else if (input.deleting) conditions.push(cond('Registered', 'False', 'LeavingPools', membership.some((m) => m.member) ? `leaving ${membership.filter((m) => m.member).map((m) => m.name).join(', ')} before the server is deleted` : 'left every API pool'));
  else if (membership.length > 0 && membership.every((m) => m.member)) conditions.push(cond('Registered', 'True', 'Member', `a member of ${membership.map((m) => m.name).join(', ')}`));
  else if (membership.length === 0 && c?.serverId) conditions.push(cond('Registered', 'True', 'NotRequired', 'the cluster\'s endpoint has no API pools (a supplied endpoint)'));
  else conditions.push(cond('Registered', 'False', 'WaitingForPoolMembership', membership.length ? `waiting to be a member of ${membership.filter((m) => !m.member).map((m) => m.name).join(', ')} before the server boots` : 'waiting for the port before joining the API pools'));

  const failed = c?.failure ?? null;
  conditions.push(
    problem && /Server/.test(problem.kind)
      ? cond('ServerReady', 'False', problem.kind, problem.detail)
      : failed
        ? cond('ServerReady', 'False', 'Errored', `OpenStack refused ${failed.effect.replace(/^workloadMachine\./, '')} (HTTP ${failed.status})`)
        : c?.serverStatus === 'ACTIVE'
          ? cond('ServerReady', 'True', 'Active', `server ${c.serverId} is ACTIVE`)
          : c?.serverStatus === 'ERROR'
            ? cond('ServerReady', 'False', 'Errored', `server ${c.serverId} is in ERROR`)
            : waiting && ['ImageNotFound', 'FlavorNotFound'].includes(waiting.reason)
              ? cond('ServerReady', 'False', waiting.reason, waiting.detail)
              : cond('ServerReady', 'False', 'Provisioning', c?.serverId ? `the server is ${c.serverStatus ?? 'being created'}` : waiting ? `${waiting.reason}: ${waiting.detail}` : 'creating the server'),
  );

  const marker = input.rebuild?.marker ?? null;
  if (c?.serverStatus === 'ACTIVE' || marker) {
    if (marker?.state === 'Failed') conditions.push(cond('ImageReady', 'False', 'RebuildFailed', `the rebuild to ${marker.targetImageID ?? 'the new image'} failed; a new image retries`));
    else if (marker) conditions.push(cond('ImageReady', 'False', 'Rebuilding', `rebuilding in place to ${marker.targetImageID ?? 'the new image'}`));
    else if (input.desiredImageId && c?.imageId && c.imageId !== input.desiredImageId) conditions.push(cond('ImageReady', 'False', 'Rebuilding', `the server runs ${c.imageId}; ${input.desiredImageId} is asked for`));
    else conditions.push(cond('ImageReady', 'True', 'Ready', `the server runs ${c?.imageId ?? 'the desired image'}`));
  }

  let available: ConditionInput;
  const notReady = conditions.find((x) => x.status === 'False');
  if (!input.machine) available = cond('Available', 'False', 'Provisioning', 'not reconciled yet');
  else if (input.deleting) available = cond('Available', 'False', 'Deleting', waiting ? `${waiting.reason}: ${waiting.detail}` : 'deleting the server, then its port');
  else if (c?.invalidSpec) available = cond('Available', 'False', 'InvalidSpec', c.invalidSpec.problems.join('; '));
  else if (waiting?.reason === 'WaitingForCluster') available = cond('Available', 'False', 'WaitingForCluster', waiting.detail);
  else if (notReady) available = cond('Available', 'False', notReady.reason, `${notReady.type}: ${notReady.message}`);
  else if (observedGeneration < input.generation) available = cond('Available', 'False', 'Provisioning', `generation ${input.generation} is not reconciled yet`);
  else available = cond('Available', 'True', 'Ready', `server ${c?.serverId} is ACTIVE on port ${c?.portId}`);
  conditions.unshift(available);

  const phase = available.status === 'True' ? 'Ready' : available.reason === 'Deleting' ? 'Deleting' : ['Errored', 'RebuildFailed', 'InvalidSpec', 'ServerNameTaken', 'ConsistencyError'].includes(available.reason) ? 'Error' : 'Provisioning';
  const status: WorkloadMachineResourceStatus = { observedGeneration, phase, conditions: mergeConditions(input.previous?.conditions, conditions, observedGeneration, input.at) };
  if (c?.serverId) status.serverID = c.serverId;
  if (c?.portId) status.portID = c.portId;
  if (c?.address) status.address = c.address;
  if (c?.imageId) status.imageID = c.imageId;
  if (membership.length) status.pools = membership.map((m) => ({ name: m.name, member: m.member }));
  return status;
};
