/** A Network resource's status from its lifecycle: Available, and the Neutron network id once present. */
import { mergeConditions, type Condition } from './conditions.js';
import { lifecycleAvailability, type LifecycleView } from './lifecycle-status.js';

export interface NetworkResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  networkID?: string;
}

export const renderNetworkResource = (input: { lifecycle: LifecycleView | undefined; generation: number; at: string; previous?: NetworkResourceStatus }): NetworkResourceStatus => {
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
  return status;
};
