/**
 * One pass of the workload-cluster machine (machines/workload-cluster.ts), as a pure function of what it kept and
 * the pass's stimulus: what it records (the next context) and what it decides. Memoized per (context, event), so
 * the machine's guards and actions, however many ask, read one plan.
 */
import { atLeastAfter } from '../time.js';
import { backoffElapsed } from '../write-ahead-delete.js';
import type { DeletionProgress, DeletionTarget, GuardViolation, PendingCreate, WaitingReason, WorkloadClusterContext } from './context.js';
import { WORKLOAD_CLUSTER_EFFECTS as E, type ClusterObservation, type DesiredCluster, type EndpointGuard, type ObservedSecurityGroup, type RuleParams, type WorkloadClusterStimulus } from './observation.js';
import { GROUP_ROLES, clusterRules, groupDescription, groupName, ruleMatches, ruleSubject, serverGroupName, type GroupRole, type WantedRule } from './rules.js';
import { renderTags } from './tags.js';

export type Event = WorkloadClusterStimulus;
export type Reconcile = Extract<Event, { type: 'reconcile' }>;
export type Answer = Exclude<Event, { type: 'reconcile' | 'specRejected' }>;

/** WC9: how long a create whose answer never came (or was not known) may still land before it is decided again. */
export const CREATE_GRACE_MS = 30_000;

export type GroupParams = { subject: string; name: string; description: string; tags: string[] };
export type RuleEffectParams = { subject: string; rule: RuleParams };
export type ServerGroupParams = { subject: string; name: string; policy: string };
export type DeleteParams = { subject: string; id: string };

export type LiveDecision =
  | { kind: 'refused' }
  | { kind: 'waitSubnet' }
  | { kind: 'failureHeld' }
  | { kind: 'inconsistent' }
  | { kind: 'guardViolated' }
  | { kind: 'createGroup'; params: GroupParams }
  | { kind: 'createRules'; rules: RuleEffectParams[] }
  | { kind: 'createServerGroup'; params: ServerGroupParams }
  | { kind: 'mayStillLand' }
  | { kind: 'ready' };

export type DeletionDecision =
  | { kind: 'waitMachines' }
  | { kind: 'waitLoadBalancer' }
  | { kind: 'arm'; target: DeletionTarget }
  | { kind: 'submit'; target: DeletionTarget }
  | { kind: 'resend'; target: DeletionTarget }
  | { kind: 'inProgress'; target: DeletionTarget }
  | { kind: 'released' };

export interface Plan<D> {
  /** The context after the pass (the whole of it: a pass that saw what the last one did yields an equal one). */
  next: WorkloadClusterContext;
  decision: D;
}

// ─── WC2, WC3: preconditions ────────────────────────────────────────────────────────────────────────

/** WC2: what refuses the spec before anything is created (on every pass). */
export const preconditionProblems = (desired: DesiredCluster): string[] => {
  const problems: string[] = [];
  const ep = desired.endpoint;
  if (ep.kind === 'loadBalancer') {
    if (ep.provider === 'ovn' && ep.allowedCIDRs.length > 0) problems.push('endpoint: the ovn provider rejects api_allowed_cidrs (allowedCIDRs must be empty with provider ovn)');
    if (ep.public && ep.allowedCIDRs.length === 0) problems.push('endpoint: a public load balancer needs allowedCIDRs (the listeners would be open to everyone)');
    if (ep.public && (ep.floatingIPPool === null || ep.floatingIPPool === '')) problems.push('endpoint: a public load balancer needs floatingIPPool (the external network the floating IP comes from)');
  }
  const tags = renderTags(desired.tags);
  if (!tags.ok) problems.push(...tags.problems.map((p) => `tags: ${p}`));
  return problems;
};

// ─── WC4: the endpoint guard ────────────────────────────────────────────────────────────────────────

/** WC4: the guard a first create records (a supplied endpoint: not public, no pool). */
export const guardOf = (desired: DesiredCluster): EndpointGuard => ({
  subnetId: desired.subnetId,
  public: desired.endpoint.kind === 'loadBalancer' ? desired.endpoint.public : false,
  floatingIPPool: desired.endpoint.kind === 'loadBalancer' ? desired.endpoint.floatingIPPool : null,
  apiServerPort: desired.apiServerPort,
  provider: null,
});

/** WC4: what the spec (and the observed load balancer's provider) would change of the recorded guard. */
export const guardViolations = (guard: EndpointGuard, desired: DesiredCluster, observed: ClusterObservation): GuardViolation[] => {
  const now = guardOf(desired);
  const out: GuardViolation[] = [];
  for (const field of ['subnetId', 'public', 'floatingIPPool', 'apiServerPort'] as const) {
    if (guard[field] !== now[field]) out.push({ field, recorded: guard[field], requested: now[field] });
  }
  const lb = observed.loadBalancer;
  // the provider a later spec names (null: the cloud's default, which names none) must be the one recorded
  const asked = desired.endpoint.kind === 'loadBalancer' ? desired.endpoint.provider : null;
  if (guard.provider !== null && asked !== null && asked !== guard.provider) out.push({ field: 'provider', recorded: guard.provider, requested: asked });
  else if (guard.provider !== null && lb.kind === 'present' && lb.provider !== guard.provider) out.push({ field: 'provider', recorded: guard.provider, requested: lb.provider });
  return out;
};

// ─── what a pass observes ───────────────────────────────────────────────────────────────────────────

const idOf = (lookup: { kind: string; id?: string }): string | null => (lookup.kind === 'present' ? (lookup.id ?? null) : null);

/** The wanted rules, once both groups and the subnet are observed (null before). */
export const wantedRules = (desired: DesiredCluster, observed: ClusterObservation): WantedRule[] | null => {
  const { controlPlane, node } = observed.securityGroups;
  if (observed.subnet.kind !== 'present' || controlPlane.kind !== 'present' || node.kind !== 'present') return null;
  return clusterRules(desired, observed.subnet, { controlPlane: controlPlane.id, node: node.id });
};

const groupOf = (observed: ClusterObservation, role: GroupRole): ObservedSecurityGroup => observed.securityGroups[role];
const ruleObserved = (observed: ClusterObservation, wanted: WantedRule): boolean => {
  const group = groupOf(observed, wanted.group);
  return group.kind === 'present' && group.rules.some((r) => ruleMatches(wanted.rule, r));
};

/** Whether a create's subject is observed now (present or duplicate: either way it landed). */
const landed = (p: PendingCreate, desired: DesiredCluster, observed: ClusterObservation, wanted: WantedRule[] | null): boolean => {
  switch (p.effect) {
    case E.createSecurityGroup:
      return GROUP_ROLES.some((role) => groupName(desired.name, role) === p.subject && groupOf(observed, role).kind !== 'absent');
    case E.createServerGroup:
      return observed.serverGroup.kind !== 'absent';
    default:
      return (wanted ?? []).some((w) => ruleSubject(desired.name, w) === p.subject && ruleObserved(observed, w));
  }
};

/** WC9: a create may still land: unanswered or its outcome unknown, and decided less than the grace ago. */
const mayStillLand = (p: PendingCreate, at: string): boolean => (p.answer === 'pending' || p.answer === 'unknown') && !atLeastAfter(p.decidedAt, at, CREATE_GRACE_MS);

/**
 * WC9: the creates that stand after this observation: one observed is settled; an accepted one not observed is
 * created again (Neutron and Nova create synchronously: it was removed); a rule Neutron answered 409 for stands
 * (it exists) while the spec still wants it; an unanswered or unknown one stands for the grace.
 */
const settle = (pending: readonly PendingCreate[], desired: DesiredCluster, observed: ClusterObservation, wanted: WantedRule[] | null, at: string): PendingCreate[] =>
  pending.filter((p) => {
    if (landed(p, desired, observed, wanted)) return false;
    if (p.answer === 'conflict' && p.effect === E.createSecurityGroupRule) return (wanted ?? []).some((w) => ruleSubject(desired.name, w) === p.subject);
    return mayStillLand(p, at);
  });

/** The creates standing in one order whatever the history (a context is data: equal records, equal contexts). */
const byName = (pending: PendingCreate[]): PendingCreate[] => [...pending].sort((a, b) => (a.effect === b.effect ? (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0) : a.effect < b.effect ? -1 : 1));

/** WC7, WC8: duplicates and a server group of another policy. */
export const inconsistenciesOf = (desired: DesiredCluster, observed: ClusterObservation): string[] => {
  const out: string[] = [];
  for (const role of GROUP_ROLES) {
    const g = groupOf(observed, role);
    if (g.kind === 'duplicate') out.push(`security group ${groupName(desired.name, role)}: ${g.ids.length} groups of this name (${g.ids.join(', ')}); none is picked`);
  }
  const sg = observed.serverGroup;
  if (sg.kind === 'duplicate') out.push(`server group ${serverGroupName(desired.name)}: ${sg.ids.length} groups of this name (${sg.ids.join(', ')}); none is picked`);
  if (sg.kind === 'present' && desired.serverGroupPolicy !== null && sg.policy !== desired.serverGroupPolicy)
    out.push(`server group ${serverGroupName(desired.name)} has policy ${sg.policy}, the spec asks for ${desired.serverGroupPolicy}: Nova cannot change a server group's policy`);
  return out;
};

/** What every pass records of its observation. */
const observedFacts = (e: Reconcile) => {
  const o = e.observed;
  return {
    name: e.desired.name,
    decidedGeneration: e.generation,
    subnet: o.subnet.kind === 'present' ? { id: o.subnet.id, networkId: o.subnet.networkId, cidr: o.subnet.cidr, ipVersion: o.subnet.ipVersion } : null,
    securityGroupIds: { controlPlane: idOf(o.securityGroups.controlPlane), node: idOf(o.securityGroups.node) },
    serverGroupId: e.desired.serverGroupPolicy === null || e.deletionRequested ? null : idOf(o.serverGroup),
    availabilityZones: [...o.availabilityZones],
  };
};

// ─── WC2–WC9: a live pass ───────────────────────────────────────────────────────────────────────────

const waitingFor = (reason: WaitingReason, subjects: string[]) => ({ reason, subjects });

export const planLive = (context: WorkloadClusterContext, e: Reconcile): Plan<LiveDecision> => {
  const { observed, at } = e;
  // WC4: what the guard records is never applied when the spec changes it: the rules keep the recorded port
  const desired = context.guard ? { ...e.desired, apiServerPort: context.guard.apiServerPort } : e.desired;
  const facts = observedFacts(e);
  const wanted = wantedRules(desired, observed);
  const missing = (wanted ?? []).filter((w) => !ruleObserved(observed, w));
  const settled = settle(context.pending, desired, observed, wanted, at);
  const stands = (effect: string, subject: string) => settled.some((p) => p.effect === effect && p.subject === subject);
  const drift: WorkloadClusterContext['drift'] = [];
  if (wanted)
    for (const role of GROUP_ROLES) {
      const g = groupOf(observed, role);
      if (g.kind !== 'present') continue;
      for (const r of g.rules) if (r.direction === 'ingress' && !wanted.some((w) => w.group === role && ruleMatches(w.rule, r))) drift.push({ group: role, ruleId: r.id });
    }
  const problems = preconditionProblems(desired);
  const inconsistencies = inconsistenciesOf(desired, observed);
  const failure = context.failure !== null && e.generation > context.failure.generation ? null : context.failure;
  // WC4: the provider is recorded once, from the first pass that observes the load balancer present
  const lb = observed.loadBalancer;
  const guardNow = context.guard && context.guard.provider === null && desired.endpoint.kind === 'loadBalancer' && lb.kind === 'present' ? { ...context.guard, provider: lb.provider } : context.guard;
  const violations = guardNow ? guardViolations(guardNow, e.desired, observed) : [];
  const rulesMissing = missing.filter((w) => !stands(E.createSecurityGroupRule, ruleSubject(desired.name, w)));
  const serverGroupWanted = desired.serverGroupPolicy !== null;
  const complete =
    wanted !== null && rulesMissing.length === 0 && missing.every((w) => settled.some((p) => p.subject === ruleSubject(desired.name, w) && p.answer === 'conflict')) && (!serverGroupWanted || observed.serverGroup.kind === 'present');
  const base: WorkloadClusterContext = {
    ...context,
    ...facts,
    problems,
    inconsistencies,
    guard: guardNow,
    guardViolation: violations,
    drift,
    partsReady: complete && problems.length === 0 && inconsistencies.length === 0,
    waiting: null,
    pending: settled,
    failure,
  };
  const held = (decision: LiveDecision, over: Partial<WorkloadClusterContext> = {}): Plan<LiveDecision> => ({ next: { ...base, ...over }, decision });
  if (problems.length > 0) return held({ kind: 'refused' }); // WC2
  if (observed.subnet.kind !== 'present') return held({ kind: 'waitSubnet' }, { waiting: waitingFor('WaitingForSubnet', [desired.subnetId]) }); // WC3
  if (failure !== null) return held({ kind: 'failureHeld' }); // WC9
  if (inconsistencies.length > 0) return held({ kind: 'inconsistent' }); // WC7, WC8
  if (violations.length > 0) return held({ kind: 'guardViolated' }); // WC4
  // WC4: the first pass that gets this far records the guard (its provider from a load balancer it already sees)
  const guard = guardNow ?? { ...guardOf(desired), provider: desired.endpoint.kind === 'loadBalancer' && lb.kind === 'present' ? lb.provider : null };
  // WC9: a decision's creates replace those of an earlier step (which landed, or the pass would not have got this
  // far); a rule Neutron said exists, and a create of the same kind still in its grace, stand
  const decided = (decision: LiveDecision, creates: Array<{ effect: string; subject: string }>): Plan<LiveDecision> => {
    const kept = settled.filter((p) => p.answer === 'conflict' || creates.some((c) => c.effect === p.effect));
    return held(decision, { guard, pending: byName([...kept, ...creates.map((c) => ({ ...c, decidedAt: at, generation: e.generation, answer: 'pending' as const }))]) });
  };
  const mayLand = (subjects: string[]) => held({ kind: 'mayStillLand' }, { guard, waiting: waitingFor('CreateMayStillLand', subjects) });
  // WC5: the node group, then the control-plane group, one per decision
  for (const role of GROUP_ROLES) {
    if (groupOf(observed, role).kind !== 'absent') continue;
    const name = groupName(desired.name, role);
    if (stands(E.createSecurityGroup, name)) return mayLand([name]);
    const tags = renderTags(desired.tags);
    const params = { subject: name, name, description: groupDescription(desired.name, role), tags: tags.ok ? tags.tags : [] };
    return decided({ kind: 'createGroup', params }, [{ effect: E.createSecurityGroup, subject: name }]);
  }
  // WC6: every missing rule in one decision
  if (rulesMissing.length > 0) {
    const rules = rulesMissing.map((w) => ({ subject: ruleSubject(desired.name, w), rule: w.rule }));
    return decided({ kind: 'createRules', rules }, rules.map((r) => ({ effect: E.createSecurityGroupRule, subject: r.subject })));
  }
  const unsettledRules = missing.map((w) => ruleSubject(desired.name, w)).filter((s) => settled.some((p) => p.subject === s && p.answer !== 'conflict'));
  if (unsettledRules.length > 0) return mayLand(unsettledRules);
  // WC8: the server group after the security groups
  if (desired.serverGroupPolicy !== null && observed.serverGroup.kind === 'absent') {
    const name = serverGroupName(desired.name);
    if (stands(E.createServerGroup, name)) return mayLand([name]);
    return decided({ kind: 'createServerGroup', params: { subject: name, name, policy: desired.serverGroupPolicy } }, [{ effect: E.createServerGroup, subject: name }]);
  }
  return held({ kind: 'ready' }, { guard }); // WC11
};

// ─── WC10: a deletion pass ──────────────────────────────────────────────────────────────────────────

/** WC10: the next thing to delete, in order: the server group, the control-plane group, the node group (a duplicate: its ids one by one). */
export const nextDeletionTarget = (desired: DesiredCluster, observed: ClusterObservation): DeletionTarget | null => {
  const first = (lookup: { kind: string; id?: string; ids?: string[] }): string | null => (lookup.kind === 'present' ? (lookup.id ?? null) : lookup.kind === 'duplicate' ? ([...(lookup.ids ?? [])].sort()[0] ?? null) : null);
  const candidates: Array<[DeletionTarget['kind'], string | null, string]> = [
    ['serverGroup', first(observed.serverGroup), serverGroupName(desired.name)],
    ['controlPlane', first(observed.securityGroups.controlPlane), groupName(desired.name, 'controlPlane')],
    ['node', first(observed.securityGroups.node), groupName(desired.name, 'node')],
  ];
  for (const [kind, id, name] of candidates) if (id !== null) return { kind, id, name };
  return null;
};

const sameTarget = (a: DeletionTarget | null, b: DeletionTarget | null): boolean => a !== null && b !== null && a.kind === b.kind && a.id === b.id;

export const deleteEffectOf = (target: DeletionTarget): string => (target.kind === 'serverGroup' ? E.deleteServerGroup : E.deleteSecurityGroup);

const NO_DELETION: DeletionProgress = { armed: null, attempts: 0, lastAt: null, conflicted: false, refusal: null, deleted: [] };

export const planDeletion = (context: WorkloadClusterContext, e: Reconcile): Plan<DeletionDecision> => {
  const { desired, observed, at } = e;
  const progress = context.deletion ?? NO_DELETION;
  const base: WorkloadClusterContext = { ...context, ...observedFacts(e), partsReady: false, waiting: null, guardViolation: [], inconsistencies: [], problems: [], pending: [], deletion: progress };
  const plan = (decision: DeletionDecision, over: Partial<WorkloadClusterContext> = {}): Plan<DeletionDecision> => ({ next: { ...base, ...over }, decision });
  if (observed.machines > 0) return plan({ kind: 'waitMachines' }, { waiting: waitingFor('WaitingForMachines', [`${observed.machines} WorkloadMachine(s) of the cluster`]) });
  const lb = observed.loadBalancer;
  if (lb.kind !== 'absent') return plan({ kind: 'waitLoadBalancer' }, { waiting: waitingFor('WaitingForLoadBalancer', lb.kind === 'present' ? [lb.id] : lb.ids) });
  const target = nextDeletionTarget(desired, observed);
  // W3: the armed target no longer observed: its delete is over
  const gone = progress.armed !== null && !sameTarget(progress.armed, target) && progress.attempts > 0 ? [...progress.deleted, progress.armed.name] : progress.deleted;
  if (target === null) return plan({ kind: 'released' }, { deletion: { ...NO_DELETION, deleted: gone }, released: true });
  if (!sameTarget(progress.armed, target)) return plan({ kind: 'arm', target }, { deletion: { ...NO_DELETION, armed: target, deleted: gone } }); // W1
  if (progress.attempts === 0) return plan({ kind: 'submit', target }, { deletion: { ...progress, attempts: 1, lastAt: at, conflicted: false } }); // W2
  if (progress.conflicted || backoffElapsed({ attempts: progress.attempts, lastAt: progress.lastAt }, at))
    return plan({ kind: 'resend', target }, { deletion: { ...progress, attempts: progress.attempts + 1, lastAt: at, conflicted: false } }); // W4
  return plan({ kind: 'inProgress', target });
};

// ─── memoized per (context, event) ──────────────────────────────────────────────────────────────────

const liveMemo = new WeakMap<object, WeakMap<object, Plan<LiveDecision>>>();
const deletionMemo = new WeakMap<object, WeakMap<object, Plan<DeletionDecision>>>();
const memo = <D>(table: WeakMap<object, WeakMap<object, Plan<D>>>, f: (c: WorkloadClusterContext, e: Reconcile) => Plan<D>) => (context: WorkloadClusterContext, e: Reconcile): Plan<D> => {
  const byContext = table.get(e) ?? new WeakMap<object, Plan<D>>();
  table.set(e, byContext);
  const known = byContext.get(context);
  if (known) return known;
  const plan = f(context, e);
  byContext.set(context, plan);
  return plan;
};
export const livePlan = memo(liveMemo, planLive);
export const deletionPlan = memo(deletionMemo, planDeletion);
