/**
 * The stimuli the load-balancer machine accepts, as stored in its stream (machines/load-balancer.ts
 * "Stimuli"). The codec pins each type to its source: `reconcile` and `specRejected` come from the
 * reconciler only (there is no monitor stimulus: observation is stimulus, never authorization), and every
 * effect result from the engine, naming the `effect` and `subject` of the decision it answers.
 */
import * as t from 'io-ts';
import { DesiredTopology, TopologyObservation } from './observation.js';

const effectResult = { source: t.literal('effect'), effect: t.string, subject: t.string };

export const LoadBalancerStimulus = t.union([
  t.intersection([
    t.type({
      type: t.literal('reconcile'),
      source: t.literal('reconciler'),
      generation: t.number,
      deletionRequested: t.boolean,
      /** The pass's clock (RFC 3339). */
      at: t.string,
      desired: DesiredTopology,
    }),
    /** Omitted when the lookup could not be made. */
    t.partial({ observed: TopologyObservation }),
  ]),
  /** LB13: the LoadBalancer's spec could not be normalized: recorded, nothing else happens. */
  t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
  t.intersection([t.type({ type: t.literal('accepted'), ...effectResult }), t.partial({ ids: t.record(t.string, t.string), address: t.string })]),
  t.type({ type: t.literal('conflict'), ...effectResult }),
  t.type({ type: t.literal('rejected'), ...effectResult, status: t.number, reason: t.string }),
  t.type({ type: t.literal('outcomeUnknown'), ...effectResult, reason: t.string }),
]);
export type LoadBalancerStimulus = t.TypeOf<typeof LoadBalancerStimulus>;
export type Reconcile = Extract<LoadBalancerStimulus, { type: 'reconcile' }>;
export type Result = Extract<LoadBalancerStimulus, { type: 'accepted' | 'conflict' | 'rejected' | 'outcomeUnknown' }>;
