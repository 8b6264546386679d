/**
 * What a status says while Regent cannot see the resource (issue 24, item 2; machines/scope-reachability.ts).
 *
 * | reachability | DependenciesReady | Available |
 * |---|---|---|
 * | no verdict yet | Unknown / NotYetObserved | as the kind renders it |
 * | reachable | True / Reachable | as the kind renders it |
 * | unreachable | False / NetworkMissing, IdentityNotReady, RegionUnusable, CredentialsRefused, CloudUnreachable (naming the dependency and why) | a True becomes Unknown / DependencyUnavailable; a False stays (it claims nothing) |
 *
 * The facts the kind rendered (ids, addresses, phase) are kept: they are the last ones observed, and the
 * Available message dates them ("… cannot be observed since <time>; what is shown was observed before then").
 * Nothing here is new evidence: it only withdraws a success claim that the evidence no longer backs.
 */
import type { ScopeReachabilityContext } from '../machines/scope-reachability.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

export interface ReachabilityView {
  state: 'unverified' | 'reachable' | 'unreachable';
  context: ScopeReachabilityContext;
}

export const DEPENDENCIES_READY = 'DependenciesReady';

const dependencyCondition = (reach: ReachabilityView | undefined): ConditionInput => {
  if (!reach || reach.state === 'unverified') return { type: DEPENDENCIES_READY, status: 'Unknown', reason: 'NotYetObserved', message: 'no pass has looked at this resource in its cloud yet' };
  const blocked = reach.context.blocked;
  if (reach.state === 'reachable' || !blocked) return { type: DEPENDENCIES_READY, status: 'True', reason: 'Reachable', message: 'its Network, Identity and Region are usable and the cloud answers' };
  const who = blocked.dependency.kind === 'Cloud' ? `the cloud (${blocked.dependency.name})` : `${blocked.dependency.kind} ${blocked.dependency.name}`;
  return { type: DEPENDENCIES_READY, status: 'False', reason: blocked.problem, message: `${who}: ${blocked.message}` };
};

/**
 * The kind's rendered status with DependenciesReady added and, while unreachable, its success claim withdrawn.
 * `what` names the resource in the cloud ("Nova server", "Cinder volume") for the message.
 */
export const withReachability = <S extends { conditions: Condition[]; observedGeneration: number }>(
  status: S,
  reach: ReachabilityView | undefined,
  input: { what: string; at: string; previous?: readonly Condition[] | undefined },
): S => {
  const dependency = dependencyCondition(reach);
  // a verdict changes at the pass that recorded it: the conditions it drives are stamped with that time
  const changedAt = reach?.context.since ?? input.at;
  const blocked = reach?.state === 'unreachable' ? reach.context : undefined;
  const conditions = status.conditions.map((condition) => {
    if (!blocked || condition.type !== 'Available' || condition.status !== 'True') return condition;
    const since = blocked.since ?? 'an unknown time';
    const withdrawn: ConditionInput = {
      type: 'Available',
      status: 'Unknown',
      reason: 'DependencyUnavailable',
      message: `the ${input.what} cannot be observed since ${since} (${dependency.message}); what this status shows was observed before then (it last read ${condition.reason})`,
    };
    return mergeConditions(input.previous, [withdrawn], condition.observedGeneration, changedAt)[0] ?? condition;
  });
  conditions.push(...mergeConditions(input.previous, [dependency], status.observedGeneration, changedAt));
  return { ...status, conditions };
};
