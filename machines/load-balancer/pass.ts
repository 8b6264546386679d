/**
 * What one pass of the load-balancer machine reads from its stimulus (machines/load-balancer.ts): the live or
 * deletion plan of the topology diff (topology.ts) for this observation, computed once per (context, event)
 * however many guards ask, and the params of the effects the machine declares from it.
 */
import type { LoadBalancerContext } from './context.js';
import { LB_EFFECTS, type DestroyTarget } from './effects.js';
import { floatingIPSubject } from './names.js';
import type { TopologyObservation } from './observation.js';
import type { LoadBalancerStimulus, Reconcile } from './stimuli.js';
import { planDeletion, planPass, type DeletionStep, type Problem, type Step } from './topology.js';

// ─── reading a stimulus ─────────────────────────────────────────────────────────────────────────────

export type Event = LoadBalancerStimulus;
export const pass = (event: Event): Reconcile => event as Reconcile;
export const observedIn = (event: Event): TopologyObservation | undefined => (event.type === 'reconcile' ? event.observed : undefined);

const liveMemo = new WeakMap<object, WeakMap<object, Step>>();
/** The live plan of this pass (null when nothing was observed), memoized per (context, event). */
export const liveStep = (context: LoadBalancerContext, event: Event): Step | null => {
  const observed = observedIn(event);
  if (!observed) return null;
  const byContext = liveMemo.get(event) ?? new WeakMap<object, Step>();
  liveMemo.set(event, byContext);
  const known = byContext.get(context);
  if (known) return known;
  const e = pass(event);
  const step = planPass(e.desired, observed, context.mutation, e.at);
  byContext.set(context, step);
  return step;
};
const deletionMemo = new WeakMap<object, WeakMap<object, DeletionStep>>();
export const deletionStep = (context: LoadBalancerContext, event: Event): DeletionStep | null => {
  const observed = observedIn(event);
  if (!observed) return null;
  const byContext = deletionMemo.get(event) ?? new WeakMap<object, DeletionStep>();
  deletionMemo.set(event, byContext);
  const known = byContext.get(context);
  if (known) return known;
  const step = planDeletion(pass(event).desired.name, observed, context.mutation, pass(event).at);
  byContext.set(context, step);
  return step;
};
export const kindIs = (context: LoadBalancerContext, event: Event, kind: Step['kind']): boolean => liveStep(context, event)?.kind === kind;
export const mutationIs = (effect: string) => (context: LoadBalancerContext, event: Event): boolean => {
  const s = liveStep(context, event);
  return s?.kind === 'mutate' && s.effect === effect;
};
const sameTarget = (a: DestroyTarget, b: DestroyTarget): boolean => a.effect === b.effect && a.id === b.id;
export const armedTarget = (context: LoadBalancerContext, event: Event): DestroyTarget | null => {
  const s = liveStep(context, event);
  return s?.kind === 'destroy' && context.armed.some((a) => sameTarget(a, s.target)) ? s.target : null;
};
export const deletionKind = (context: LoadBalancerContext, event: Event): DeletionStep['kind'] | null => deletionStep(context, event)?.kind ?? null;
export const deletionProblem = (context: LoadBalancerContext, event: Event): Problem['kind'] | null => {
  const s = deletionStep(context, event);
  return s?.kind === 'problem' ? s.problem.kind : null;
};
/** LB14: the load balancer this pass observes is not the one the deletion was armed for. */
export const deletionRetargets = (context: LoadBalancerContext, event: Event): boolean => {
  const lb = observedIn(event)?.loadBalancer;
  return lb?.kind === 'present' && lb.provisioningStatus !== 'DELETED' && lb.id !== (context.deletion?.loadBalancerId ?? null);
};

// ─── effects (params from this pass's plan) ────────────────────────────────────────────────────────

export type Args = { context: LoadBalancerContext; event: Event };
export const mutationEffect = <T extends string>(type: T) => ({
  type,
  params: ({ context, event }: Args) => {
    const s = liveStep(context, event);
    return s?.kind === 'mutate' ? s.params : {};
  },
});
const ID_FIELD: Record<string, string> = {
  [LB_EFFECTS.deleteListener]: 'listenerId',
  [LB_EFFECTS.deletePool]: 'poolId',
  [LB_EFFECTS.deleteHealthMonitor]: 'healthMonitorId',
  [LB_EFFECTS.deleteFloatingIP]: 'floatingIPId',
};
export const pruneEffect = <T extends string>(type: T) => ({
  type,
  params: ({ context, event }: Args) => {
    const target = armedTarget(context, event);
    if (!target) return {};
    if (type === LB_EFFECTS.deleteFloatingIP) return { subject: target.subject, floatingIPId: target.id, portId: observedLb(event)?.vipPortId ?? null };
    return { subject: target.subject, [ID_FIELD[type] as string]: target.id, name: target.subject };
  },
});
export const observedLb = (event: Event) => {
  const lb = observedIn(event)?.loadBalancer;
  return lb?.kind === 'present' ? lb : null;
};
export const releaseEffect = {
  type: LB_EFFECTS.deleteFloatingIP,
  params: ({ context, event }: Args) => {
    const s = deletionStep(context, event);
    return s?.kind === 'release' ? { subject: floatingIPSubject(pass(event).desired.name), floatingIPId: s.floatingIP.id, portId: s.lb.vipPortId } : {};
  },
};
export const cascadeEffect = {
  type: LB_EFFECTS.deleteLoadBalancer,
  params: ({ event }: Args) => {
    const lb = observedLb(event);
    return { subject: pass(event).desired.name, loadBalancerId: lb?.id ?? '', name: pass(event).desired.name, cascade: true };
  },
};
