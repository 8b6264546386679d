/**
 * The provisioning part of a resource's status, from its create/delete lifecycle (machines/lifecycle.ts).
 *
 * | lifecycle | Available | provisioningStatus |
 * |---|---|---|
 * | spec refused | False / InvalidSpec (the fields that are wrong) | error |
 * | desired unresolvable (L9) | False / ImageNotFound, ImageAmbiguous, FlavorNotFound, FlavorAmbiguous; VlanRangeExhausted (the allocator's message) | error |
 * | absent, creating | False / Provisioning | pending, provisioning |
 * | present | (the kind decides; True / Provisioned by default) | provisioned |
 * | failed: create refused | False / QuotaExceeded (403/413 naming a quota or limit), CreateRejected (the cloud's message, HTTP status) | error |
 * | failed: L6 retries exhausted | False / CreateRetriesExhausted (how many times, the last fault) | error |
 * | failed: L2 creates never landed | False / Errored | error |
 * | deleting | False / Deprovisioning; DeleteRetrying once a delete was refused or re-sent (L8) | deprovisioning |
 * | recreating (L5), once its delete was refused or re-sent | False / DeleteRetrying | provisioning |
 *
 * Every message is user-safe: the cloud's fault messages are ones the cloud shows the project itself
 * (redacted by the client, capped here), and Regent adds no ids or hosts of its own.
 */
import type { CreateFailure, LifecycleContext, Refusal } from '../machines/lifecycle.js';
import type { ConditionInput } from './conditions.js';

export type LifecycleProvisioning = 'pending' | 'provisioning' | 'provisioned' | 'deprovisioning' | 'error';

export interface LifecycleView {
  state: string;
  context: LifecycleContext;
}

/** Longest cloud fault text a condition message quotes. */
export const MAX_FAULT_IN_STATUS = 300;
const capped = (text: string): string => (text.length > MAX_FAULT_IN_STATUS ? `${text.slice(0, MAX_FAULT_IN_STATUS)}…` : text);

/** `what` is "<Service> <noun>" ("Nova server", "Neutron network"): the service speaks, the noun is refused. */
const subjectOf = (what: string): { service: string; noun: string } => {
  const space = what.indexOf(' ');
  return space > 0 ? { service: what.slice(0, space), noun: what.slice(space + 1) } : { service: 'the cloud', noun: what };
};

const QUOTA_WORDS = /quota|limit/i;

const availableFalse = (reason: string, message: string): ConditionInput => ({ type: 'Available', status: 'False', reason, message });

const createFailureCondition = (failure: CreateFailure | null, context: LifecycleContext, what: string): ConditionInput => {
  const { service, noun } = subjectOf(what);
  switch (failure?.kind) {
    case 'rejected': {
      const quota = (failure.status === 403 || failure.status === 413) && QUOTA_WORDS.test(failure.fault ?? '');
      return availableFalse(quota ? 'QuotaExceeded' : 'CreateRejected', `${service} refused to create the ${noun}: ${capped(failure.fault ?? failure.reason)} (HTTP ${failure.status})`);
    }
    case 'retriesExhausted':
      return availableFalse(
        'CreateRetriesExhausted',
        `${service} put the ${noun} in ERROR before it ever booted, ${failure.attempts} times (the create bound); last ${service} fault: ${failure.fault ? capped(failure.fault) : 'none reported'}`,
      );
    case 'attemptsExhausted':
      return availableFalse('Errored', `${failure.attempts} creates were attempted, but the ${what} never appeared`);
    default:
      // a failure recorded before createFailure existed
      return availableFalse('Errored', `the cloud refused to create the ${what}: ${context.lastError ?? 'unknown'}`);
  }
};

/** L8: a delete was refused, or Nova still shows the resource after it was re-sent. */
const deleteRetrying = (context: LifecycleContext): boolean => context.deleteAttempts > 1 || context.deleteRefusal !== null;

const describeRefusal = (refusal: Refusal): string => `${capped(refusal.fault ?? refusal.reason)} (HTTP ${refusal.status})`;

const deleteRetryingMessage = (context: LifecycleContext, what: string): string => {
  const { service, noun } = subjectOf(what);
  const sent = `sent ${context.deleteAttempts} delete request${context.deleteAttempts === 1 ? '' : 's'} for the ${noun}`;
  const last = context.deleteRefusal ? `${service} refused the last: ${describeRefusal(context.deleteRefusal)}` : `${service} has not deleted it yet`;
  return `${sent}; ${last}; re-sending with backoff until it is gone`;
};

/** Available and provisioningStatus while the resource is not (yet) present; undefined when present. */
export const lifecycleAvailability = (lifecycle: LifecycleView | undefined, what: string): { available: ConditionInput; provisioningStatus: LifecycleProvisioning } | undefined => {
  if (lifecycle?.context.specProblems) {
    return { available: availableFalse('InvalidSpec', `the spec is invalid: ${lifecycle.context.specProblems.problems.join('; ')}`), provisioningStatus: 'error' };
  }
  if (lifecycle?.context.unresolvable) {
    const { reason, message } = lifecycle.context.unresolvable;
    // an exhausted VLAN range is the Region's condition, not the spec's: the allocator's message says which range
    // a Placement preflight miss is transient (the pinned host may free up): provisioning, retried every 30 s
    if (reason === 'PlacementPreflightMiss') return { available: availableFalse(reason, `waiting for room on the pinned host (Placement preflight, re-checked every 30 s): ${message}`), provisioningStatus: 'provisioning' };
    if (reason === 'PinnedCreateUnavailable') return { available: availableFalse(reason, `the pinned create cannot be sent: ${message}`), provisioningStatus: 'error' };
    return { available: availableFalse(reason, reason === 'VlanRangeExhausted' ? `waiting for a VLAN id: ${message}` : `the spec cannot be resolved: ${message}`), provisioningStatus: 'error' };
  }
  switch (lifecycle?.state) {
    case undefined:
    case 'absent':
      return { available: availableFalse('Provisioning', `waiting to create the ${what}`), provisioningStatus: 'pending' };
    case 'creating':
      return { available: availableFalse('Provisioning', `creating the ${what}`), provisioningStatus: 'provisioning' };
    case 'failed':
      return { available: createFailureCondition(lifecycle.context.createFailure ?? null, lifecycle.context, what), provisioningStatus: 'error' };
    case 'deleting':
    case 'deleted':
      if (deleteRetrying(lifecycle.context)) return { available: availableFalse('DeleteRetrying', deleteRetryingMessage(lifecycle.context, what)), provisioningStatus: 'deprovisioning' };
      return { available: availableFalse('Deprovisioning', `deleting the ${what}`), provisioningStatus: 'deprovisioning' };
    case 'recreating':
      if (deleteRetrying(lifecycle.context)) {
        return { available: availableFalse('DeleteRetrying', `deleting the ${what} that failed before it booted, to create it again: ${deleteRetryingMessage(lifecycle.context, what)}`), provisioningStatus: 'provisioning' };
      }
      return undefined;
    default:
      return undefined;
  }
};
