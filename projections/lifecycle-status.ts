/**
 * The provisioning part of a resource's status, from its create/delete lifecycle (machines/lifecycle.ts).
 *
 * | lifecycle state | Available | provisioningStatus |
 * |---|---|---|
 * | spec refused | False / InvalidSpec (the fields that are wrong) | error |
 * | absent, creating | False / Provisioning | provisioning |
 * | present | (the kind decides; True / Provisioned by default) | provisioned |
 * | failed | False / Errored (why the cloud refused) | error |
 * | deleting | False / Deprovisioning | deprovisioning |
 */
import type { LifecycleContext } from '../machines/lifecycle.js';
import type { ConditionInput } from './conditions.js';

export type LifecycleProvisioning = 'pending' | 'provisioning' | 'provisioned' | 'deprovisioning' | 'error';

export interface LifecycleView {
  state: string;
  context: LifecycleContext;
}

/** Available and provisioningStatus while the resource is not (yet) present; undefined when present. */
export const lifecycleAvailability = (lifecycle: LifecycleView | undefined, what: string): { available: ConditionInput; provisioningStatus: LifecycleProvisioning } | undefined => {
  if (lifecycle?.context.specProblems) {
    return {
      available: { type: 'Available', status: 'False', reason: 'InvalidSpec', message: `the spec is invalid: ${lifecycle.context.specProblems.problems.join('; ')}` },
      provisioningStatus: 'error',
    };
  }
  switch (lifecycle?.state) {
    case undefined:
    case 'absent':
      return { available: { type: 'Available', status: 'False', reason: 'Provisioning', message: `waiting to create the ${what}` }, provisioningStatus: 'pending' };
    case 'creating':
      return { available: { type: 'Available', status: 'False', reason: 'Provisioning', message: `creating the ${what}` }, provisioningStatus: 'provisioning' };
    case 'failed':
      return { available: { type: 'Available', status: 'False', reason: 'Errored', message: `the cloud refused to create the ${what}: ${lifecycle.context.lastError ?? 'unknown'}` }, provisioningStatus: 'error' };
    case 'deleting':
    case 'deleted':
      return { available: { type: 'Available', status: 'False', reason: 'Deprovisioning', message: `deleting the ${what}` }, provisioningStatus: 'deprovisioning' };
    default:
      return undefined;
  }
};
