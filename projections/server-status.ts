/**
 * Server status rendered from the server-rebuild stream (server-api.md: "while a rebuild is pending
 * … the v2 read reports provisioningStatus=provisioning …; a parked rebuild still surfaces as error").
 *
 * | condition | True | False / Unknown |
 * |---|---|---|
 * | Available | Provisioned: no rebuild intent pending | Provisioning: a rebuild intent is pending (armed, accepted, or stamped but not yet parked); Errored: the rebuild failed and was parked (user action required) |
 * | Healthy | Healthy: Nova reports ACTIVE | Provisioning (BUILD/REBUILD), Errored (ERROR), Unknown/Stopped (SHUTOFF), Unknown/Transitioning, Unknown/NotObserved |
 * | Active | Running | Building, Stopped, Errored, Transitioning, Unknown/NotObserved |
 *
 * Pure: the same events give the same status, times included (transition times are event times).
 */
import type { ServerRebuildContext } from '../machines/server-rebuild.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

export type ProvisioningStatus = 'provisioning' | 'provisioned' | 'error';

export interface ServerStatus {
  observedGeneration: number;
  phase: string;
  provisioningStatus: ProvisioningStatus;
  conditions: Condition[];
  /** The standing rebuild intent; absent when none. */
  rebuild?: { targetImageID: string; state: string };
  provisionedAt?: string;
  macAddress?: string;
}

/** The condition types of a Server, in the order they are rendered: the single source. */
export const SERVER_CONDITION_TYPES = ['Available', 'Healthy', 'Active'] as const;

export const PARKED_MESSAGE =
  'The rebuild to the requested image failed; the root disk was recreated and its data is gone. Choose another image or replace the server.';

const available = (context: ServerRebuildContext): ConditionInput => {
  if (context.parked) return { type: 'Available', status: 'False', reason: 'Errored', message: `${PARKED_MESSAGE} (image ${context.marker?.targetImageID ?? '?'})` };
  if (context.marker) {
    return { type: 'Available', status: 'False', reason: 'Provisioning', message: `rebuild to image ${context.marker.targetImageID} is pending (${context.marker.state})` };
  }
  return { type: 'Available', status: 'True', reason: 'Provisioned', message: 'the server runs its desired image' };
};

const observed = (type: 'Healthy' | 'Active', context: ServerRebuildContext): ConditionInput => {
  const judgement = context.health ? (type === 'Healthy' ? context.health.healthy : context.health.active) : undefined;
  if (!judgement) return { type, status: 'Unknown', reason: 'NotObserved', message: 'Nova has not been observed yet' };
  const by = context.health?.writtenBy === 'reconciler' ? 'recorded by the reconciler' : 'observed by the monitor';
  return { type, status: judgement.status, reason: judgement.reason, message: `${judgement.reason} (${by})` };
};

export const provisioningStatusOf = (context: ServerRebuildContext): ProvisioningStatus =>
  context.parked ? 'error' : context.marker ? 'provisioning' : 'provisioned';

export const renderServerStatus = (input: {
  context: ServerRebuildContext;
  generation: number;
  /** Time of the last event folded in: the transition time of any condition that changed. */
  at: string;
  previous?: ServerStatus;
}): ServerStatus => {
  const { context, generation, at, previous } = input;
  const status: ServerStatus = {
    observedGeneration: generation,
    phase: context.health?.phase ?? 'Pending',
    provisioningStatus: provisioningStatusOf(context),
    conditions: mergeConditions(previous?.conditions, [available(context), observed('Healthy', context), observed('Active', context)], generation, at),
  };
  if (context.marker) status.rebuild = { targetImageID: context.marker.targetImageID, state: context.marker.state };
  if (context.provisionedAt) status.provisionedAt = context.provisionedAt;
  if (context.macAddress) status.macAddress = context.macAddress;
  return status;
};
