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
  const available = early?.available ?? { type: 'Available', status: 'True' as const, reason: 'Provisioned', message: 'the Neutron network and subnet exist' };
  const status: NetworkResourceStatus = {
    observedGeneration: input.generation,
    phase: early ? (early.provisioningStatus === 'error' ? 'Error' : early.provisioningStatus === 'deprovisioning' ? 'Deleting' : 'Provisioning') : 'Ready',
    conditions: mergeConditions(input.previous?.conditions, [available], input.generation, input.at),
  };
  if (!early && input.lifecycle?.context.resourceId) status.networkID = input.lifecycle.context.resourceId;
  return status;
};
