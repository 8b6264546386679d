/**
 * A SecurityGroup resource's status from its lifecycle (machines/security-group-lifecycle.ts): Available,
 * the phase, and the Neutron security group id once present. Pure.
 */
import { mergeConditions, type Condition } from './conditions.js';
import { lifecycleAvailability, type LifecycleView } from './lifecycle-status.js';

export interface SecurityGroupResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  securityGroupID?: string;
}

export const renderSecurityGroupResource = (input: { lifecycle: LifecycleView | undefined; generation: number; at: string; previous?: SecurityGroupResourceStatus }): SecurityGroupResourceStatus => {
  const early = lifecycleAvailability(input.lifecycle, 'Neutron security group');
  const decided = input.lifecycle?.context.decidedGeneration ?? null;
  // a spec generation no pass has decided on yet is not Available, whatever the last one achieved
  const notDecided =
    !early && (decided === null || decided < input.generation)
      ? { type: 'Available', status: 'False' as const, reason: 'Provisioning', message: `generation ${input.generation} is not reconciled yet` }
      : undefined;
  const available = early?.available ?? { type: 'Available', status: 'True' as const, reason: 'Provisioned', message: 'the Neutron security group and its rules exist' };
  const observedGeneration = input.lifecycle?.context.decidedGeneration ?? 0;
  const status: SecurityGroupResourceStatus = {
    observedGeneration,
    phase: early ? (early.provisioningStatus === 'error' ? 'Error' : early.provisioningStatus === 'deprovisioning' ? 'Deleting' : 'Provisioning') : notDecided ? 'Provisioning' : 'Ready',
    conditions: mergeConditions(input.previous?.conditions, [notDecided ?? available], observedGeneration, input.at),
  };
  if (!early && input.lifecycle?.context.resourceId) status.securityGroupID = input.lifecycle.context.resourceId;
  return status;
};
