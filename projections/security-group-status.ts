/**
 * A SecurityGroup resource's status from its lifecycle (machines/security-group-lifecycle.ts): Available,
 * SpecRealized, the phase, and the Neutron security group id once present. Rules are applied at create only, so a
 * spec generation after the create's is named (SpecRealized=False RulesNotApplied) and Available does not claim it. Pure.
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
  // Rules (and the description) are applied at create only: a spec changed since the create is not realized.
  // Only rules and description are mutable (networkID is immutable), so a later generation means they changed.
  const createdFor = input.lifecycle?.context.createdForGeneration ?? null;
  const stale = !early && input.lifecycle?.context.resourceId && createdFor !== null && input.generation > createdFor;
  const specRealized = stale
    ? { type: 'SpecRealized', status: 'False' as const, reason: 'RulesNotApplied', message: `spec.rules and spec.description are applied at create only: the group was created for generation ${createdFor}, the spec is at ${input.generation}; delete and recreate the SecurityGroup to apply the change` }
    : { type: 'SpecRealized', status: 'True' as const, reason: 'Realized', message: 'every spec field is realized' };
  const status: SecurityGroupResourceStatus = {
    observedGeneration,
    phase: early ? (early.provisioningStatus === 'error' ? 'Error' : early.provisioningStatus === 'deprovisioning' ? 'Deleting' : 'Provisioning') : notDecided ? 'Provisioning' : 'Ready',
    conditions: mergeConditions(input.previous?.conditions, [notDecided ?? (stale ? { ...available, status: 'False' as const, reason: 'RulesNotApplied', message: specRealized.message } : available), specRealized], observedGeneration, input.at),
  };
  if (!early && input.lifecycle?.context.resourceId) status.securityGroupID = input.lifecycle.context.resourceId;
  return status;
};
