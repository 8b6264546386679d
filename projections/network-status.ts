/**
 * A Network resource's status from its lifecycle: Available, the Neutron network id once present, and the
 * VLAN id of a VLAN provider network (issue 16): the segment its last decided create request carried.
 */
import { mergeConditions, type Condition } from './conditions.js';
import { lifecycleAvailability, type LifecycleView } from './lifecycle-status.js';

export interface NetworkResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  networkID?: string;
  vlanID?: number;
}

export const renderNetworkResource = (input: {
  lifecycle: LifecycleView | undefined;
  generation: number;
  at: string;
  previous?: NetworkResourceStatus;
  /** The segmentation id of the last decided request that carried one (networkVlanIdOf). */
  vlanID?: number | undefined;
}): NetworkResourceStatus => {
  const early = lifecycleAvailability(input.lifecycle, 'Neutron network');
  const decided = input.lifecycle?.context.decidedGeneration ?? null;
  // a spec generation no pass has decided on yet is not Ready, whatever the last one achieved
  const notDecided =
    !early && (decided === null || decided < input.generation)
      ? { type: 'Available', status: 'False' as const, reason: 'Provisioning', message: `generation ${input.generation} is not reconciled yet` }
      : undefined;
  const available = early?.available ?? { type: 'Available', status: 'True' as const, reason: 'Provisioned', message: 'the Neutron network and subnet exist' };
  // observedGeneration: the generation the last pass decided from, as the stream records it
  const observedGeneration = input.lifecycle?.context.decidedGeneration ?? 0;
  const status: NetworkResourceStatus = {
    observedGeneration,
    phase: early ? (early.provisioningStatus === 'error' ? 'Error' : early.provisioningStatus === 'deprovisioning' ? 'Deleting' : 'Provisioning') : notDecided ? 'Provisioning' : 'Ready',
    conditions: mergeConditions(input.previous?.conditions, [notDecided ?? available], observedGeneration, input.at),
  };
  if (!early && input.lifecycle?.context.resourceId) status.networkID = input.lifecycle.context.resourceId;
  // shown while it is held, also on a refused create (V4: the id stays with the network) and while deleting
  if (input.vlanID !== undefined) status.vlanID = input.vlanID;
  return status;
};

/**
 * The VLAN id of a Network from its lifecycle events, newest first: the `segmentationId` of the last
 * reconcile stimulus with a create request (a deleting pass carries none and is skipped). Pure.
 */
export const networkVlanIdOf = (eventsNewestFirst: ReadonlyArray<{ data: unknown }>): number | undefined => {
  for (const event of eventsNewestFirst) {
    const data = event.data as { type?: string; desired?: { uid?: unknown; segmentationId?: unknown } } | undefined;
    if (data?.type !== 'reconcile' || data.desired?.uid === undefined) continue;
    return typeof data.desired.segmentationId === 'number' ? data.desired.segmentationId : undefined;
  }
  return undefined;
};
