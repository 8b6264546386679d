/**
 * A LoadBalancer's Octavia topology — openstack-provider.md, "Octavia Load Balancers" (issue 13). One
 * machine per LoadBalancer, stream `load-balancer-<resource uid>`. The pure diff is
 * machines/load-balancer-topology.ts (`planPass`, `planDeletion`); this file is the write-ahead protocol
 * around it: what is decided, armed, sent, and how Octavia's answers are recorded.
 *
 *   absent ─create (alone)─► provisioning ⟲ one mutation per pass, PENDING_* yields ─converged─► provisioned
 *                                │ ▲ a destructive step is due: armed …                          │
 *                                ▼ │                                                           │
 *                             pruning ─… read back on a later pass: one delete, then yield ◄────┘
 *   any live ─duplicate / ERROR / unknown status / immutable drift / unusable endpoint─► inconsistent (left when a fresh pass is clean)
 *   any live ─Octavia refused (not 409, not 404)─► failed (until a new generation)    any live ─bad spec─► invalid
 *   any ─deletion─► deleting.armed ─read back─► deleting.releasingFloatingIP ─► deleting.submitted ─absent─► deleted
 *
 * Rules (labels used in the tests):
 * - LB1 provisioning status drives the outcome: ACTIVE continues to the next part of the topology;
 *   PENDING_CREATE/PENDING_UPDATE/PENDING_DELETE on the load balancer or any child seen yields with no
 *   effect; any other string (ERROR, DELETED, one Octavia adds later) is a consistency error (parked in
 *   `inconsistent`, never a guessed next action). Only provisioning_status is read: the stimulus has no
 *   operating_status at all.
 * - LB2 exact names: `lb-{lb}`, `lb-{lb}-{listener}-listener`, `-pool`, `-monitor` (topology helpers).
 *   Two exact matches of any name are a consistency error: parked, nothing mutated.
 * - LB3 from nothing: the load balancer alone (`POST /loadbalancers` with its VIP, no listeners), then one
 *   object per pass as below: per listener in spec order the listener (LB4), its pool (LB4), the pool's
 *   member set (LB6), its monitor (LB7); then the floating IP (LB9), whose Neutron answer completes the
 *   topology. Chosen because of Octavia Zed (docs/simulator-differences.md §16): after a fully populated
 *   load-balancer create every nested child stays PENDING_CREATE for good (LB1 would yield for ever), a
 *   listener create with a nested default_pool is a 500, and so is a pool create with nested members or a
 *   healthmonitor (nothing created; measured, test/real-openstack/octavia.openstack.ts "a pool created with
 *   listener_id and nested members + healthmonitor"), while each single create, the batch member update
 *   and the monitor create go ACTIVE by themselves. Nothing → Provisioned for the two-listener TCP+UDP
 *   topology (members and a monitor each) with a floating IP: 11 passes, 10 calls — the create, one pass
 *   Octavia is PENDING_CREATE, 4 per listener, the floating IP — counted in the test against a model of
 *   Zed in which every later change has settled by the next pass; each pass that still finds Octavia
 *   PENDING_* adds one. Without a floating IP: 11 passes, 9 calls (the last pass finds everything
 *   ACTIVE). A pool without members skips its member pass, a listener without a monitor its monitor pass.
 * - LB4 a listener missing on an existing load balancer: the listener alone, on the pool of its
 *   deterministic name when that exists (`defaultPoolId`); a pool missing under an existing listener: the
 *   pool alone, with `listenerId` when the listener has no default pool (Octavia makes it the default
 *   pool: no listener update follows), else unlinked and relinked by LB5; its members follow by LB6's
 *   batch update and its monitor by LB7, on later passes. An object of the deterministic name that exists
 *   is linked or kept, never created twice.
 * - LB5 listener in place: allowed CIDRs, TCP idle timeouts (ms in Octavia, seconds in the spec; a value
 *   the spec leaves out is not managed) and default-pool linkage, all in ONE listener update.
 * - LB6 members: the whole member set in one batch update (`PUT /pools/{id}/members`), by address and port.
 * - LB7 health monitor: created when wanted and missing, thresholds (delay, timeout, max_retries,
 *   max_retries_down; left out → Octavia's default 3) updated in place, deleted when no longer wanted (a
 *   delete: LB8's write-ahead).
 * - LB8 prune: listeners, pools and monitors of Regent's name shape (`lb-{lb}-<label>-listener|pool|monitor`)
 *   whose name the spec no longer implies are deleted — destructive, so write-ahead: one pass arms the
 *   set of targets (`pruning`), a later pass reads the arm back and sends ONE delete for an armed target
 *   it observes again. Orphaned listeners go first (a renamed listener frees its port before its
 *   successor is created), pools and monitors after the topology converged (a pool's delete takes its
 *   monitor along). Any non-destructive step due takes precedence and disarms.
 * - LB9 floating IP: wanted and the load balancer ACTIVE → one create on the VIP port (on the VIP's fixed
 *   address); no longer wanted → released (a delete, armed like LB8). Neutron's answer completes the
 *   topology only when it carries an IP address; otherwise the next pass's observation decides (LB15).
 * - LB10 protocols: a UDP listener has no idle timeouts and no PROXY v2, its monitor is UDP-CONNECT; a TCP
 *   pool is PROXYV2 only with proxyProtocolV2 (the provider pins load-balancer microversion 2.22), else
 *   TCP; a TCP monitor is TCP.
 * - LB11 a field Octavia cannot change in place (the requested VIP address, listener protocol or port, pool
 *   protocol, monitor type) that differs from the spec is a consistency error: never deleted and recreated
 *   by guess.
 * - LB12 one mutation per pass, then yield; Octavia's 409 (immutable while PENDING_*) is a yield, never an
 *   error; a 404 (the object went away) lets the next pass decide; another refusal parks in `failed` until
 *   a new generation. An answer that never came is never re-sent blindly: the next fresh observation
 *   decides — a create that landed is adopted by its exact name (so a crash between Octavia's 202 and the
 *   recorded result adopts, never duplicates), and a create not seen is sent again only once
 *   CREATE_WINDOW_MS has passed since it was decided. Updates and the batch member set are idempotent and
 *   decided afresh from each observation.
 * - LB13 the spec: what Octavia would refuse or could never converge (duplicate listener names, two
 *   listeners on one protocol and port, UDP with idle timeouts or PROXY v2, a health-check timeout above
 *   its interval, a member listed twice) is InvalidSpec before any call; so is a spec the reconciler could
 *   not normalize (`specRejected`).
 * - LB14 delete: write-ahead (one pass arms for the load balancer it observes, a later one reads it back);
 *   the floating IP is released first (the cascade removes the VIP port that anchors its lookup), then ONE
 *   cascade delete; yield until a fresh lookup shows the load balancer absent (or DELETED). PENDING_* yields;
 *   an ERROR load balancer (or ERROR children) is deleted (the one action asked for, and the cascade takes
 *   everything); a load-balancer status Regent does not know parks. A
 *   delete that did not take is sent again on a fresh observation after L8's backoff (at once after a 409).
 *   A deletion withdrawn (a pass without deletionRequested) goes back to converging, nothing more deleted.
 * - LB15 the endpoint (openstack-provider.md: "any other state is treated as a consistency error because the
 *   provider cannot safely infer a valid next action"): once the load balancer and every child seen are
 *   ACTIVE, a VIP address that is missing, empty or not an IP address (v4 or v6), a VIP port id that is
 *   missing or empty, two or more floating IPs on the VIP port, or one whose address is empty or not an IP
 *   address, is a consistency error naming what was seen (the values quoted, e.g. "Octavia reports load
 *   balancer lb-x ACTIVE with VIP address ''"): parked in `inconsistent`, nothing sent, and neither the VIP
 *   nor a floating IP published as the endpoint (`loadBalancerObserved`, which also never publishes a value
 *   that is not an IP address); the first pass that sees a usable endpoint continues. Without a usable VIP
 *   port id the provider sends no floating-IP lookup at all (`usableVipPortId`). In a deletion, several
 *   floating IPs on the VIP port park too (one may not be Regent's to release); one is released by its id
 *   whatever its address, and without a usable VIP port id the cascade goes (there is nothing to look up).
 *   Version 2 of the machine (v1 took such a load balancer as Provisioned and waited for a missing VIP port).
 *
 * Stimuli (`LoadBalancerStimulus`): `reconcile` and `specRejected` from the reconciler only — there is no
 * monitor stimulus (observation is stimulus, never authorization); effect results from the engine
 * (`source: 'effect'`), each naming the `effect` and `subject` of the decision it answers:
 *   reconcile {generation, deletionRequested, at, desired: DesiredTopology, observed?: TopologyObservation}
 *     (observed omitted: the lookup could not be made — nothing is decided)
 *   specRejected {generation, problems[]}
 *   accepted {effect, subject, ids?: {<octavia name or subject>: id}, address?: floating IP address}
 *   conflict {effect, subject}                          Octavia 409: a yield
 *   rejected {effect, subject, status, reason}          reason: Regent's closed word, never Octavia's text
 *   outcomeUnknown {effect, subject, reason}            timeout, reset, 5xx, cancelled
 *
 * Effects (params; every one also carries `subject`, which its result must echo; Octavia field values in
 * the client's camelCase, src/openstack/octavia/):
 *   octavia.createLoadBalancer  {name, vipSubnetId, vipAddress?, listeners: []}  (LB3: `listeners` is always the
 *                                 empty array — the key stays; nothing is nested)
 *   octavia.createListener      {loadBalancerId, name, protocol, protocolPort, allowedCidrs: string[]|null,
 *                                 timeoutClientData?, timeoutMemberData? (ms, TCP only), defaultPoolId?}
 *                                 (no `defaultPool`: defaultPoolId only when a pool of its name exists)
 *   octavia.updateListener      {listenerId, name, allowedCidrs?, timeoutClientData?, timeoutMemberData?, defaultPoolId?} (only what differs)
 *   octavia.createPool          {loadBalancerId, listenerId: string|null (non-null: send listener_id, it becomes the default pool),
 *                                 name, protocol: TCP|PROXYV2|UDP, lbAlgorithm: ROUND_ROBIN}  (no `members`, no `healthMonitor`:
 *                                 Zed answers them with 500; LB6 and LB7 add them)
 *   octavia.setPoolMembers      {poolId, name, members: [{address, protocolPort}]}  (PUT /pools/{id}/members: the whole set)
 *   octavia.createHealthMonitor {poolId, name, monitorType, delay, timeout, maxRetries, maxRetriesDown}
 *   octavia.updateHealthMonitor {healthMonitorId, name, delay, timeout, maxRetries, maxRetriesDown}
 *   octavia.deleteHealthMonitor {healthMonitorId, name}          destructive
 *   octavia.deleteListener      {listenerId, name}               destructive
 *   octavia.deletePool          {poolId, name}                   destructive
 *   octavia.deleteLoadBalancer  {loadBalancerId, name, cascade: true}   destructive
 *   neutron.createFloatingIP    {floatingNetworkId, portId (the VIP port), fixedIpAddress?, description (lb name)}
 *   neutron.deleteFloatingIP    {floatingIPId, portId}           destructive
 * A PENDING_* status is a yield for the provider too: a handler answers Octavia's 409 with `conflict`, a
 * 404 on a delete with `accepted` (gone is done).
 *
 * Open points:
 * - A capability flag (nested creates where an Octavia does provision a nested create's children) would save
 *   passes; not added: Zed is the only Octavia measured, it provisions none, and there a nested create is
 *   not a safe retry either (a graph refused leaves its VIP port behind, §16).
 * - Children left PENDING_CREATE under an ACTIVE load balancer (a fully populated create made outside
 *   Regent) still yield for ever under LB1; Regent itself no longer makes them.
 *
 * Not yet driven by a controller: no LoadBalancer controller, provider or handlers exist; this is the decider.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import type { AnyMachineSnapshot } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';
import { deleteRetryBackoffMs } from './lifecycle.js';
import { atLeastAfter } from './time.js';
import {
  DESTRUCTIVE_EFFECTS,
  DesiredTopology,
  LB_EFFECTS,
  TopologyObservation,
  createMayStillLand,
  endpointOf,
  floatingIPSubject,
  isCreate,
  isIpAddress,
  listenerRows,
  planDeletion,
  planPass,
  presenceOf,
  specProblem,
  type DeletionStep,
  type DestroyTarget,
  type ListenerRow,
  type ListenerState,
  type Orphan,
  type PlanMemory,
  type Problem,
  type Step,
} from './load-balancer-topology.js';

export { loadBalancerName, listenerName, poolName, monitorName, floatingIPSubject, LB_EFFECTS } from './load-balancer-topology.js';

export const LOAD_BALANCER_STREAM_PREFIX = 'load-balancer-';
export const loadBalancerStream = (uid: string): string => `${LOAD_BALANCER_STREAM_PREFIX}${uid}`;

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
type Reconcile = Extract<LoadBalancerStimulus, { type: 'reconcile' }>;
type Result = Extract<LoadBalancerStimulus, { type: 'accepted' | 'conflict' | 'rejected' | 'outcomeUnknown' }>;

/** The mutation decided last (LB12): what its result must name, and what is known of its answer. */
export interface Mutation extends PlanMemory {
  generation: number;
  /** LB9: a floating-IP create decided when nothing else remained: Neutron's answer completes the topology. */
  completes: boolean;
}

export interface LoadBalancerContext {
  uid: string;
  /** `lb-{lb}`, from the last pass's desired topology. */
  name: string | null;
  /** The Octavia id, once accepted or observed. */
  loadBalancerId: string | null;
  /**
   * The last fresh observation, for status only: Octavia's provisioning status word, the VIP, the floating
   * IP when exactly one was seen, and whether they make a usable endpoint (LB15, judged on every pass that
   * observed the load balancer, whatever it decided: only then is either published).
   */
  observed: { provisioningStatus: string | null; vipAddress: string | null; vipPortId: string | null; floatingIP: { id: string; address: string } | null; endpointUsable: boolean } | null;
  /** Per spec listener, what the last pass saw (status only). */
  listeners: ListenerRow[];
  mutation: Mutation | null;
  /** LB8/LB9: the destroy targets armed (only while `pruning`). */
  armed: DestroyTarget[];
  /** LB14: the deletion's write-ahead target and its delete requests. */
  deletion: { loadBalancerId: string | null; step: 'release' | 'cascade' | null; attempts: number; lastAt: string | null; conflicted: boolean } | null;
  problem: Problem | null;
  failure: { effect: string; subject: string; status: number; reason: string; generation: number } | null;
  invalidSpec: { generation: number; message: string } | null;
  /** What the last pass waited for (status only). */
  waiting: { reason: 'Pending' | 'CreateMayStillLand' | 'ObservationIncomplete' | 'NotObserved'; subjects: string[] } | null;
  /** Octavia's (or Neutron's) last answer (status only). */
  lastAnswer: { effect: string; answer: 'accepted' | 'conflict' | 'rejected' | 'notFound' | 'unknown' } | null;
  decidedGeneration: number | null;
}

// ─── reading a stimulus ─────────────────────────────────────────────────────────────────────────────

type Event = LoadBalancerStimulus;
const pass = (event: Event): Reconcile => event as Reconcile;
const observedIn = (event: Event): TopologyObservation | undefined => (event.type === 'reconcile' ? event.observed : undefined);

const liveMemo = new WeakMap<object, WeakMap<object, Step>>();
/** The live plan of this pass (null when nothing was observed), memoized per (context, event). */
const liveStep = (context: LoadBalancerContext, event: Event): Step | null => {
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
const deletionStep = (context: LoadBalancerContext, event: Event): DeletionStep | null => {
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
const kindIs = (context: LoadBalancerContext, event: Event, kind: Step['kind']): boolean => liveStep(context, event)?.kind === kind;
const mutationIs = (effect: string) => (context: LoadBalancerContext, event: Event): boolean => {
  const s = liveStep(context, event);
  return s?.kind === 'mutate' && s.effect === effect;
};
const sameTarget = (a: DestroyTarget, b: DestroyTarget): boolean => a.effect === b.effect && a.id === b.id;
const armedTarget = (context: LoadBalancerContext, event: Event): DestroyTarget | null => {
  const s = liveStep(context, event);
  return s?.kind === 'destroy' && context.armed.some((a) => sameTarget(a, s.target)) ? s.target : null;
};
const deletionKind = (context: LoadBalancerContext, event: Event): DeletionStep['kind'] | null => deletionStep(context, event)?.kind ?? null;
const deletionProblem = (context: LoadBalancerContext, event: Event): Problem['kind'] | null => {
  const s = deletionStep(context, event);
  return s?.kind === 'problem' ? s.problem.kind : null;
};
/** LB14: the load balancer this pass observes is not the one the deletion was armed for. */
const deletionRetargets = (context: LoadBalancerContext, event: Event): boolean => {
  const lb = observedIn(event)?.loadBalancer;
  return lb?.kind === 'present' && lb.provisioningStatus !== 'DELETED' && lb.id !== (context.deletion?.loadBalancerId ?? null);
};
/** LB14/L8: the same delete again: at once after a 409, else after the backoff since the last request. */
const deleteRetryDue = (context: LoadBalancerContext, event: Event, step: 'release' | 'cascade'): boolean => {
  const d = context.deletion;
  return d !== null && d.step === step && (d.conflicted || atLeastAfter(d.lastAt, pass(event).at, deleteRetryBackoffMs(d.attempts)));
};

// ─── effects (params from this pass's plan) ────────────────────────────────────────────────────────

type Args = { context: LoadBalancerContext; event: Event };
const mutationEffect = <T extends string>(type: T) => ({
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
const pruneEffect = <T extends string>(type: T) => ({
  type,
  params: ({ context, event }: Args) => {
    const target = armedTarget(context, event);
    if (!target) return {};
    if (type === LB_EFFECTS.deleteFloatingIP) return { subject: target.subject, floatingIPId: target.id, portId: observedLb(event)?.vipPortId ?? null };
    return { subject: target.subject, [ID_FIELD[type] as string]: target.id, name: target.subject };
  },
});
const observedLb = (event: Event) => {
  const lb = observedIn(event)?.loadBalancer;
  return lb?.kind === 'present' ? lb : null;
};
const releaseEffect = {
  type: LB_EFFECTS.deleteFloatingIP,
  params: ({ context, event }: Args) => {
    const s = deletionStep(context, event);
    return s?.kind === 'release' ? { subject: floatingIPSubject(pass(event).desired.name), floatingIPId: s.floatingIP.id, portId: s.lb.vipPortId } : {};
  },
};
const cascadeEffect = {
  type: LB_EFFECTS.deleteLoadBalancer,
  params: ({ event }: Args) => {
    const lb = observedLb(event);
    return { subject: pass(event).desired.name, loadBalancerId: lb?.id ?? '', name: pass(event).desired.name, cascade: true };
  },
};

// ─── transitions shared by states ───────────────────────────────────────────────────────────────────

const ID = '#loadBalancer';
const to = (state: string) => `${ID}.${state}`;

/** Entering deletion from a live state (LB14, LB2, LB1). */
const DELETION = [
  { guard: 'deletionNotObserved', actions: ['notePass', 'settleMutation', 'waitNotObserved', outcome('notObserved')] },
  { guard: 'deletionFindsDuplicate', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('duplicateNames')] }, // LB2
  { guard: 'deletionFindsUnknownStatus', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('provisioningStatusUnusable')] }, // LB1
  { guard: 'deletionFindsFloatingIPsUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('floatingIPUnusable')] }, // LB15
  { guard: 'deletionWhileCreateMayStillLand', target: to('deleting.armed'), actions: ['notePass', 'settleMutation', 'armDeletion', 'waitForCreate', outcome('awaitingCreate')] }, // LB12
  { guard: 'deletionFindsNothing', target: to('deleted'), actions: ['notePass', 'settleMutation', outcome('nothingToDelete')] }, // LB14: missing is success
  { guard: 'deletionRequested', target: to('deleting.armed'), actions: ['notePass', 'settleMutation', 'armDeletion', outcome('deleteArmed')] }, // LB14: write-ahead
] as const;

/**
 * A live pass (LB1–LB13) from any live state. `self`: the state a PENDING_* yield stays in (pruning keeps
 * its arm while Octavia applies the delete it sent).
 */
const live = (self: string) =>
  [
    { guard: 'specInvalid', target: to('invalid'), actions: ['notePass', 'settleMutation', 'recordInvalid', outcome('invalidSpec')] }, // LB13
    { guard: 'notObserved', actions: ['notePass', 'settleMutation', 'waitNotObserved', outcome('notObserved')] },
    { guard: 'observationIncomplete', actions: ['notePass', 'settleMutation', 'waitIncomplete', outcome('observationIncomplete')] },
    { guard: 'exactNameDuplicated', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordProblem', outcome('duplicateNames')] }, // LB2
    { guard: 'provisioningStatusUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordProblem', outcome('provisioningStatusUnusable')] }, // LB1
    { guard: 'immutableFieldDrift', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordProblem', outcome('immutableFieldDrift')] }, // LB11
    { guard: 'vipUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordProblem', outcome('vipUnusable')] }, // LB15
    { guard: 'floatingIPUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordProblem', outcome('floatingIPUnusable')] }, // LB15
    { guard: 'provisioningStatusPending', target: to(self), actions: ['notePass', 'settleMutation', 'waitPending', outcome('pendingYield')] }, // LB1
    { guard: 'createMayStillLand', target: to('provisioning'), actions: ['notePass', 'settleMutation', 'waitForCreate', outcome('awaitingCreate')] }, // LB12
    { guard: 'loadBalancerAbsent', target: to('provisioning'), actions: ['notePass', mutationEffect(LB_EFFECTS.createLoadBalancer), 'startMutation', outcome('loadBalancerCreateSubmitted')] }, // LB3
    { guard: 'listenerAbsent', target: to('provisioning'), actions: ['notePass', mutationEffect(LB_EFFECTS.createListener), 'startMutation', outcome('listenerCreateSubmitted')] }, // LB4
    { guard: 'poolAbsent', target: to('provisioning'), actions: ['notePass', mutationEffect(LB_EFFECTS.createPool), 'startMutation', outcome('poolCreateSubmitted')] }, // LB4
    { guard: 'listenerFieldsDiffer', target: to('provisioning'), actions: ['notePass', mutationEffect(LB_EFFECTS.updateListener), 'startMutation', outcome('listenerUpdateSubmitted')] }, // LB5
    { guard: 'poolMembersDiffer', target: to('provisioning'), actions: ['notePass', mutationEffect(LB_EFFECTS.setPoolMembers), 'startMutation', outcome('membersUpdateSubmitted')] }, // LB6
    { guard: 'monitorAbsent', target: to('provisioning'), actions: ['notePass', mutationEffect(LB_EFFECTS.createHealthMonitor), 'startMutation', outcome('monitorCreateSubmitted')] }, // LB7
    { guard: 'monitorThresholdsDiffer', target: to('provisioning'), actions: ['notePass', mutationEffect(LB_EFFECTS.updateHealthMonitor), 'startMutation', outcome('monitorUpdateSubmitted')] }, // LB7
    { guard: 'floatingIPWantedAbsent', target: to('provisioning'), actions: ['notePass', mutationEffect(LB_EFFECTS.createFloatingIP), 'startMutation', outcome('floatingIPCreateSubmitted')] }, // LB9
    // LB8/LB9: an armed target read back and observed again: one delete
    { guard: 'armedListenerPruneDue', target: to('pruning'), actions: ['notePass', pruneEffect(LB_EFFECTS.deleteListener), 'startPrune', outcome('listenerPruneSubmitted')] },
    { guard: 'armedPoolPruneDue', target: to('pruning'), actions: ['notePass', pruneEffect(LB_EFFECTS.deletePool), 'startPrune', outcome('poolPruneSubmitted')] },
    { guard: 'armedMonitorPruneDue', target: to('pruning'), actions: ['notePass', pruneEffect(LB_EFFECTS.deleteHealthMonitor), 'startPrune', outcome('monitorPruneSubmitted')] },
    { guard: 'armedFloatingIPReleaseDue', target: to('pruning'), actions: ['notePass', pruneEffect(LB_EFFECTS.deleteFloatingIP), 'startPrune', outcome('floatingIPReleaseSubmitted')] },
    // LB8/LB9: not armed yet: arm (write-ahead), nothing deleted on this pass
    { guard: 'destructiveStepDue', target: to('pruning'), actions: ['notePass', 'settleMutation', 'arm', outcome('pruneArmed')] },
    { target: to('provisioned'), actions: ['notePass', 'settleMutation', outcome('converged')] },
  ] as const;

/** The deletion, read back (LB14): what every deleting substate does before its own step. */
const DELETING_COMMON = [
  { guard: 'notObserved', actions: ['notePass', 'settleMutation', 'waitNotObserved', outcome('notObserved')] },
  { guard: 'deletionDuplicate', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('duplicateNames')] }, // LB2
  { guard: 'deletionStatusUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('provisioningStatusUnusable')] }, // LB1
  { guard: 'deletionFloatingIPsUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('floatingIPUnusable')] }, // LB15
  { guard: 'deletionAwaitingCreate', actions: ['notePass', 'settleMutation', 'waitForCreate', outcome('awaitingCreate')] }, // LB12
  { guard: 'deletionGone', target: to('deleted'), actions: ['notePass', 'settleMutation', outcome('deleted')] }, // LB14: absence confirms
  { guard: 'deletionRetargets', target: to('deleting.armed'), reenter: true, actions: ['notePass', 'settleMutation', 'armDeletion', outcome('deleteArmed')] }, // write-ahead for the one found now
  { guard: 'deletionPending', actions: ['notePass', 'settleMutation', 'waitPendingDeletion', outcome('pendingYield')] }, // LB1
  { guard: 'deletionIncomplete', actions: ['notePass', 'settleMutation', 'waitIncomplete', outcome('observationIncomplete')] },
] as const;

/**
 * The deletion was withdrawn: the next pass converges again (a cascade already sent runs its course: the
 * live passes yield on PENDING_DELETE and create the load balancer anew once it is gone).
 */
const WITHDRAWN = { guard: 'deletionWithdrawn', target: to('provisioning'), actions: ['notePass', 'settleMutation', 'disarmDeletion', outcome('deletionWithdrawn')] } as const;

/** Effect results in live states (LB12); the root records them everywhere else. */
const LIVE_RESULTS = {
  rejected: [
    { guard: 'answersMutationNotFound', actions: ['recordNotFound', outcome('notFound')] },
    { guard: 'answersMutation', target: to('failed'), actions: ['recordRejected', outcome('rejected')] },
  ],
} as const;

// ─── the machine ────────────────────────────────────────────────────────────────────────────────────

const answers = (context: LoadBalancerContext, event: Event): boolean =>
  context.mutation !== null && 'effect' in event && event.source === 'effect' && event.effect === context.mutation.effect && event.subject === context.mutation.subject;

export const buildLoadBalancerMachine = () =>
  setup({
    types: {} as { context: LoadBalancerContext; events: Event; input: { stream: string } },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      [LB_EFFECTS.createLoadBalancer]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.createListener]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.updateListener]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.createPool]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.setPoolMembers]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.createHealthMonitor]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.updateHealthMonitor]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.deleteHealthMonitor]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.deleteListener]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.deletePool]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.deleteLoadBalancer]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.createFloatingIP]: declaredAction<Record<string, unknown>>(),
      [LB_EFFECTS.deleteFloatingIP]: declaredAction<Record<string, unknown>>(),
      // first on every reconcile transition: the generation decided from, what this pass saw (status
      // only), per-pass records cleared. It never touches what the plan reads (mutation, armed, deletion).
      notePass: assign(({ context, event }) => {
        const e = pass(event);
        const o = e.observed;
        const lb = o?.loadBalancer.kind === 'present' ? o.loadBalancer : null;
        const fip = o?.floatingIP?.kind === 'present' ? { id: o.floatingIP.id, address: o.floatingIP.address } : null;
        return {
          name: e.desired.name,
          decidedGeneration: e.generation,
          problem: null,
          invalidSpec: null,
          waiting: null,
          ...(o
            ? {
                loadBalancerId: lb?.id ?? (o.loadBalancer.kind === 'absent' ? null : context.loadBalancerId),
                observed: lb
                  ? { provisioningStatus: lb.provisioningStatus, vipAddress: lb.vipAddress, vipPortId: lb.vipPortId, floatingIP: fip, endpointUsable: endpointOf(e.desired.name, lb, o).kind === 'usable' }
                  : null,
                listeners: listenerRows(e.desired, o),
              }
            : {}),
        };
      }),
      // LB12: a non-create is settled by this fresh observation; a create stands only while it may still land
      settleMutation: assign(({ context, event }) => {
        const m = context.mutation;
        if (!m) return {};
        const e = pass(event);
        const presence = presenceOf(e.observed, m.subject, e.desired.name);
        const stands = isCreate(m.effect) && presence !== 'present' && presence !== 'duplicate' && createMayStillLand(m, m.subject, e.at);
        return stands ? {} : { mutation: null };
      }),
      startMutation: assign(({ context, event }) => {
        const s = liveStep(context, event);
        if (s?.kind !== 'mutate') return {};
        return { mutation: { effect: s.effect, subject: s.subject, decidedAt: pass(event).at, answer: 'pending' as const, generation: pass(event).generation, completes: s.completes } };
      }),
      // LB8: the delete of an armed target; the arm now names what this pass still has to remove
      startPrune: assign(({ context, event }) => {
        const s = liveStep(context, event);
        if (s?.kind !== 'destroy') return {};
        return {
          mutation: { effect: s.target.effect, subject: s.target.subject, decidedAt: pass(event).at, answer: 'pending' as const, generation: pass(event).generation, completes: false },
          armed: s.all.map((x) => ({ ...x })),
        };
      }),
      arm: assign(({ context, event }) => {
        const s = liveStep(context, event);
        return s?.kind === 'destroy' ? { armed: s.all.map((x) => ({ ...x })) } : {};
      }),
      disarm: assign({ armed: [] }),
      recordProblem: assign(({ context, event }) => {
        const s = liveStep(context, event);
        return s?.kind === 'problem' ? { problem: s.problem } : {};
      }),
      recordDeletionProblem: assign(({ context, event }) => {
        const s = deletionStep(context, event);
        return s?.kind === 'problem' ? { problem: s.problem } : {};
      }),
      recordInvalid: assign(({ event }) => {
        const message = specProblem(pass(event).desired);
        return message !== null ? { invalidSpec: { generation: pass(event).generation, message } } : {};
      }),
      recordSpecRejected: assign(({ event }) =>
        event.type === 'specRejected' ? { invalidSpec: { generation: event.generation, message: `the spec is invalid: ${event.problems.join('; ')}` }, decidedGeneration: event.generation } : {},
      ),
      waitNotObserved: assign({ waiting: { reason: 'NotObserved' as const, subjects: [] } }),
      waitIncomplete: assign(({ context, event }) => {
        const s = liveStep(context, event);
        return { waiting: { reason: 'ObservationIncomplete' as const, subjects: s?.kind === 'incomplete' ? s.missing : [] } };
      }),
      waitPending: assign(({ context, event }) => {
        const s = liveStep(context, event);
        return { waiting: { reason: 'Pending' as const, subjects: s?.kind === 'pending' ? s.subjects : [] } };
      }),
      waitPendingDeletion: assign(({ context, event }) => {
        const s = deletionStep(context, event);
        return { waiting: { reason: 'Pending' as const, subjects: s?.kind === 'pending' ? s.subjects : [] } };
      }),
      waitForCreate: assign(({ context }) => ({ waiting: { reason: 'CreateMayStillLand' as const, subjects: context.mutation ? [context.mutation.subject] : [] } })),
      // LB14: write-ahead for the load balancer observed now (none yet: whatever a create that may still land makes)
      armDeletion: assign(({ event }) => ({ armed: [], deletion: { loadBalancerId: observedLb(event)?.id ?? null, step: null, attempts: 0, lastAt: null, conflicted: false } })),
      disarmDeletion: assign({ deletion: null }),
      startRelease: assign(({ context, event }) => ({
        deletion: { loadBalancerId: context.deletion?.loadBalancerId ?? null, step: 'release' as const, attempts: 1, lastAt: pass(event).at, conflicted: false },
        mutation: { effect: LB_EFFECTS.deleteFloatingIP, subject: floatingIPSubject(pass(event).desired.name), decidedAt: pass(event).at, answer: 'pending' as const, generation: pass(event).generation, completes: false },
      })),
      startCascade: assign(({ context, event }) => ({
        deletion: { loadBalancerId: context.deletion?.loadBalancerId ?? null, step: 'cascade' as const, attempts: 1, lastAt: pass(event).at, conflicted: false },
        mutation: { effect: LB_EFFECTS.deleteLoadBalancer, subject: pass(event).desired.name, decidedAt: pass(event).at, answer: 'pending' as const, generation: pass(event).generation, completes: false },
      })),
      repeatDelete: assign(({ context, event }) => ({
        deletion: context.deletion ? { ...context.deletion, attempts: context.deletion.attempts + 1, lastAt: pass(event).at, conflicted: false } : null,
        mutation: context.mutation ? { ...context.mutation, decidedAt: pass(event).at, answer: 'pending' as const } : null,
      })),
      // effect results (LB12)
      recordAccepted: assign(({ context, event }) => {
        const r = event as Result & { type: 'accepted' };
        const m = context.mutation;
        if (!m) return {};
        const lbId = r.ids?.[m.subject];
        return {
          mutation: { ...m, answer: 'accepted' as const },
          lastAnswer: { effect: r.effect, answer: 'accepted' as const },
          ...(r.effect === LB_EFFECTS.createLoadBalancer && lbId ? { loadBalancerId: lbId } : {}),
        };
      }),
      // LB9: Neutron's answer carries the floating IP: nothing else remained
      recordFloatingIPCompleted: assign(({ context, event }) => {
        const r = event as Result & { type: 'accepted' };
        const id = r.ids?.[r.subject] ?? '';
        return {
          mutation: null,
          lastAnswer: { effect: r.effect, answer: 'accepted' as const },
          observed: context.observed ? { ...context.observed, floatingIP: { id, address: r.address ?? '' } } : context.observed,
        };
      }),
      recordConflict: assign(({ context, event }) => ({
        mutation: null,
        lastAnswer: { effect: (event as Result).effect, answer: 'conflict' as const },
        deletion: context.deletion ? { ...context.deletion, conflicted: true } : null,
      })),
      recordNotFound: assign(({ event }) => ({ mutation: null, lastAnswer: { effect: (event as Result).effect, answer: 'notFound' as const } })),
      recordRejected: assign(({ context, event }) => {
        const r = event as Result & { type: 'rejected' };
        return {
          mutation: null,
          lastAnswer: { effect: r.effect, answer: 'rejected' as const },
          failure: { effect: r.effect, subject: r.subject, status: r.status, reason: r.reason, generation: context.mutation?.generation ?? context.decidedGeneration ?? 0 },
        };
      }),
      recordRefusedDelete: assign(({ event }) => ({ mutation: null, lastAnswer: { effect: (event as Result).effect, answer: 'rejected' as const } })),
      recordUnknown: assign(({ context, event }) => ({
        mutation: context.mutation ? { ...context.mutation, answer: 'unknown' as const } : null,
        lastAnswer: { effect: (event as Result).effect, answer: 'unknown' as const },
      })),
      clearFailure: assign({ failure: null }),
    },
    guards: {
      deletionRequested: ({ event }) => pass(event).deletionRequested,
      deletionWithdrawn: ({ event }) => !pass(event).deletionRequested,
      // entering a deletion from a live state (every guard reads deletionRequested)
      deletionNotObserved: ({ event }) => pass(event).deletionRequested && observedIn(event) === undefined,
      deletionFindsDuplicate: ({ context, event }) => pass(event).deletionRequested && deletionProblem(context, event) === 'duplicate',
      deletionFindsUnknownStatus: ({ context, event }) => pass(event).deletionRequested && deletionProblem(context, event) === 'status',
      deletionFindsFloatingIPsUnusable: ({ context, event }) => pass(event).deletionRequested && deletionProblem(context, event) === 'floatingIP',
      deletionWhileCreateMayStillLand: ({ context, event }) => pass(event).deletionRequested && deletionKind(context, event) === 'awaitingCreate',
      deletionFindsNothing: ({ context, event }) => pass(event).deletionRequested && deletionKind(context, event) === 'gone',
      // a deletion read back (deleting.*)
      deletionDuplicate: ({ context, event }) => deletionProblem(context, event) === 'duplicate',
      deletionStatusUnusable: ({ context, event }) => deletionProblem(context, event) === 'status',
      deletionFloatingIPsUnusable: ({ context, event }) => deletionProblem(context, event) === 'floatingIP',
      deletionAwaitingCreate: ({ context, event }) => deletionKind(context, event) === 'awaitingCreate',
      deletionGone: ({ context, event }) => deletionKind(context, event) === 'gone',
      deletionRetargets: ({ context, event }) => deletionRetargets(context, event),
      deletionPending: ({ context, event }) => deletionKind(context, event) === 'pending',
      deletionIncomplete: ({ context, event }) => deletionKind(context, event) === 'incomplete',
      // LB14: the floating IP first, then the cascade
      floatingIPToRelease: ({ context, event }) => deletionKind(context, event) === 'release',
      cascadeDue: ({ context, event }) => deletionKind(context, event) === 'cascade',
      releaseRetryDue: ({ context, event }) => deletionKind(context, event) === 'release' && deleteRetryDue(context, event, 'release'),
      cascadeRetryDue: ({ context, event }) => deletionKind(context, event) === 'cascade' && deleteRetryDue(context, event, 'cascade'),
      notObserved: ({ event }) => observedIn(event) === undefined,
      // LB13: judged on the spec alone, observed or not
      specInvalid: ({ event }) => specProblem(pass(event).desired) !== null,
      observationIncomplete: ({ context, event }) => kindIs(context, event, 'incomplete'),
      // LB2
      exactNameDuplicated: ({ context, event }) => {
        const s = liveStep(context, event);
        return s?.kind === 'problem' && s.problem.kind === 'duplicate';
      },
      // LB1: neither ACTIVE nor PENDING_*
      provisioningStatusUnusable: ({ context, event }) => {
        const s = liveStep(context, event);
        return s?.kind === 'problem' && s.problem.kind === 'status';
      },
      // LB11
      immutableFieldDrift: ({ context, event }) => {
        const s = liveStep(context, event);
        return s?.kind === 'problem' && s.problem.kind === 'drift';
      },
      // LB15: an ACTIVE load balancer's VIP address or VIP port id is not usable
      vipUnusable: ({ context, event }) => {
        const s = liveStep(context, event);
        return s?.kind === 'problem' && s.problem.kind === 'vip';
      },
      // LB15: several floating IPs on the VIP port, or one whose address is not an IP address
      floatingIPUnusable: ({ context, event }) => {
        const s = liveStep(context, event);
        return s?.kind === 'problem' && s.problem.kind === 'floatingIP';
      },
      // LB1: PENDING_* anywhere
      provisioningStatusPending: ({ context, event }) => kindIs(context, event, 'pending'),
      // LB12
      createMayStillLand: ({ context, event }) => kindIs(context, event, 'awaitingCreate'),
      loadBalancerAbsent: ({ context, event }) => mutationIs(LB_EFFECTS.createLoadBalancer)(context, event),
      listenerAbsent: ({ context, event }) => mutationIs(LB_EFFECTS.createListener)(context, event),
      poolAbsent: ({ context, event }) => mutationIs(LB_EFFECTS.createPool)(context, event),
      listenerFieldsDiffer: ({ context, event }) => mutationIs(LB_EFFECTS.updateListener)(context, event),
      poolMembersDiffer: ({ context, event }) => mutationIs(LB_EFFECTS.setPoolMembers)(context, event),
      monitorAbsent: ({ context, event }) => mutationIs(LB_EFFECTS.createHealthMonitor)(context, event),
      monitorThresholdsDiffer: ({ context, event }) => mutationIs(LB_EFFECTS.updateHealthMonitor)(context, event),
      floatingIPWantedAbsent: ({ context, event }) => mutationIs(LB_EFFECTS.createFloatingIP)(context, event),
      armedListenerPruneDue: ({ context, event }) => armedTarget(context, event)?.effect === LB_EFFECTS.deleteListener,
      armedPoolPruneDue: ({ context, event }) => armedTarget(context, event)?.effect === LB_EFFECTS.deletePool,
      armedMonitorPruneDue: ({ context, event }) => armedTarget(context, event)?.effect === LB_EFFECTS.deleteHealthMonitor,
      armedFloatingIPReleaseDue: ({ context, event }) => armedTarget(context, event)?.effect === LB_EFFECTS.deleteFloatingIP,
      destructiveStepDue: ({ context, event }) => kindIs(context, event, 'destroy'),
      // LB12: a failed mutation is not decided again before a new generation
      failedForThisGeneration: ({ context, event }) => context.failure !== null && pass(event).generation <= context.failure.generation,
      answersMutation: ({ context, event }) => answers(context, event),
      answersMutationNotFound: ({ context, event }) => answers(context, event) && event.type === 'rejected' && event.status === 404,
      // LB9: the floating IP was the last thing missing, and Neutron's answer names an address a client can use
      // (LB15: an answer without one never completes: the next pass's observation decides)
      answersFinalFloatingIP: ({ context, event }) =>
        answers(context, event) && context.mutation?.effect === LB_EFFECTS.createFloatingIP && context.mutation.completes && event.type === 'accepted' && isIpAddress(event.address ?? ''),
    },
  }).createMachine({
    id: 'loadBalancer',
    context: ({ input }) => ({
      uid: input.stream.startsWith(LOAD_BALANCER_STREAM_PREFIX) ? input.stream.slice(LOAD_BALANCER_STREAM_PREFIX.length) : input.stream,
      name: null,
      loadBalancerId: null,
      observed: null,
      listeners: [],
      mutation: null,
      armed: [],
      deletion: null,
      problem: null,
      failure: null,
      invalidSpec: null,
      waiting: null,
      lastAnswer: null,
      decidedGeneration: null,
    }),
    // Results anywhere: recorded against the decision they answer (a late or foreign one is not stored).
    on: {
      accepted: { guard: 'answersMutation', actions: ['recordAccepted', outcome('accepted')] },
      conflict: { guard: 'answersMutation', actions: ['recordConflict', outcome('conflict')] }, // LB12: a yield
      rejected: [
        { guard: 'answersMutationNotFound', actions: ['recordNotFound', outcome('notFound')] },
        { guard: 'answersMutation', actions: ['recordRefusedDelete', outcome('rejected')] },
      ],
      outcomeUnknown: { guard: 'answersMutation', actions: ['recordUnknown', outcome('outcomeUnknown')] },
    },
    initial: 'absent',
    states: {
      // Nothing decided yet.
      absent: {
        on: { reconcile: [...DELETION, ...live('provisioning')], specRejected: { target: 'invalid', actions: ['recordSpecRejected', outcome('specRejected')] } },
      },
      // LB3–LB9, LB12: the topology is being converged, one mutation per pass.
      provisioning: {
        on: {
          reconcile: [...DELETION, ...live('provisioning')],
          specRejected: { target: 'invalid', actions: ['recordSpecRejected', outcome('specRejected')] },
          accepted: [
            { guard: 'answersFinalFloatingIP', target: 'provisioned', actions: ['recordFloatingIPCompleted', outcome('floatingIPCreated')] }, // LB9
            { guard: 'answersMutation', actions: ['recordAccepted', outcome('accepted')] },
          ],
          ...LIVE_RESULTS,
        },
      },
      // Every part ACTIVE and as the spec says.
      provisioned: {
        on: { reconcile: [...DELETION, ...live('provisioning')], specRejected: { target: 'invalid', actions: ['recordSpecRejected', outcome('specRejected')] }, ...LIVE_RESULTS },
      },
      // LB8/LB9: destroy targets armed; a later pass reads them back.
      pruning: {
        exit: 'disarm',
        on: { reconcile: [...DELETION, ...live('pruning')], specRejected: { target: 'invalid', actions: ['recordSpecRejected', outcome('specRejected')] }, ...LIVE_RESULTS },
      },
      // LB1/LB2/LB11: parked while a fresh observation shows the problem; a clean pass continues.
      inconsistent: {
        on: { reconcile: [...DELETION, ...live('provisioning')], specRejected: { target: 'invalid', actions: ['recordSpecRejected', outcome('specRejected')] } },
      },
      // LB13: nothing is decided until the spec is valid (a deletion still proceeds).
      invalid: {
        on: { reconcile: [...DELETION, ...live('provisioning')], specRejected: { actions: ['recordSpecRejected', outcome('specRejected')] } },
      },
      // LB12: Octavia refused a mutation: parked until a new generation.
      failed: {
        exit: 'clearFailure',
        on: {
          reconcile: [...DELETION, { guard: 'failedForThisGeneration', actions: ['notePass', 'settleMutation', outcome('failedStands')] }, ...live('provisioning')],
          specRejected: { target: 'invalid', actions: ['recordSpecRejected', outcome('specRejected')] },
        },
      },
      deleting: {
        initial: 'armed',
        exit: 'disarmDeletion',
        states: {
          // LB14: armed for `deletion.loadBalancerId`; a later pass reads it back.
          armed: {
            on: {
              reconcile: [
                WITHDRAWN,
                ...DELETING_COMMON,
                { guard: 'floatingIPToRelease', target: 'releasingFloatingIP', actions: ['notePass', 'settleMutation', releaseEffect, 'startRelease', outcome('floatingIPReleaseSubmitted')] },
                { guard: 'cascadeDue', target: 'submitted', actions: ['notePass', 'settleMutation', cascadeEffect, 'startCascade', outcome('deleteSubmitted')] },
              ],
            },
          },
          // LB14: the floating IP's release was sent; the cascade waits for its absence.
          releasingFloatingIP: {
            on: {
              reconcile: [
                WITHDRAWN,
                ...DELETING_COMMON,
                { guard: 'releaseRetryDue', actions: ['notePass', 'settleMutation', releaseEffect, 'repeatDelete', outcome('floatingIPReleaseResubmitted')] },
                { guard: 'floatingIPToRelease', actions: ['notePass', 'settleMutation', outcome('floatingIPReleaseInProgress')] },
                { guard: 'cascadeDue', target: 'submitted', actions: ['notePass', 'settleMutation', cascadeEffect, 'startCascade', outcome('deleteSubmitted')] },
              ],
            },
          },
          // LB14: the cascade delete was sent; yield until a fresh lookup shows the load balancer absent.
          submitted: {
            on: {
              reconcile: [
                WITHDRAWN,
                ...DELETING_COMMON,
                { guard: 'floatingIPToRelease', target: 'releasingFloatingIP', actions: ['notePass', 'settleMutation', releaseEffect, 'startRelease', outcome('floatingIPReleaseSubmitted')] },
                { guard: 'cascadeRetryDue', actions: ['notePass', 'settleMutation', cascadeEffect, 'repeatDelete', outcome('deleteResubmitted')] },
                { actions: ['notePass', 'settleMutation', outcome('deleteInProgress')] },
              ],
            },
          },
        },
      },
      deleted: { type: 'final' },
    },
  });

// ─── audit ──────────────────────────────────────────────────────────────────────────────────────────

const deletingSubstate = (snapshot: Pick<AnyMachineSnapshot, 'value'>): string | null => {
  const value = snapshot.value as unknown;
  return typeof value === 'object' && value !== null && typeof (value as { deleting?: unknown }).deleting === 'string' ? (value as { deleting: string }).deleting : null;
};
const INTENT_RANK: Record<string, number> = { armed: 1, releasingFloatingIP: 2, submitted: 2 };
/** The write-ahead intents: a prune arm (while `pruning`), and the deletion for the load balancer it was armed for. */
const intentOf = (snapshot: AnyMachineSnapshot) => {
  const c = snapshot.context as LoadBalancerContext;
  if (snapshot.value === 'pruning') return { target: `prune:${c.armed.map((a) => a.id).join(',')}`, state: 'pruneArmed' };
  const sub = deletingSubstate(snapshot);
  if (sub === null) return null;
  return { target: `delete:${c.deletion?.loadBalancerId ?? ''}`, state: sub === 'armed' ? 'deleteArmed' : sub };
};

/** Pass clocks of the audit alphabet: a start, past L8's first backoff but within the create window, past both. */
export const AUDIT_TIMES = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:30Z', '2026-01-01T00:10:00Z'] as const;
const A = 'lb-audit';
const names = (l: string) => ({ listener: `${A}-${l}-listener`, pool: `${A}-${l}-pool`, monitor: `${A}-${l}-monitor` });
const WEB = names('web');
const OLD = names('old');

/** Spec A: one TCP listener with PROXY v2, a CIDR, an idle timeout, one member and a monitor; a floating IP. */
export const auditDesiredA = (): DesiredTopology => ({
  name: A,
  vipSubnetId: 'subnet-1',
  floatingIP: { wanted: true, networkId: 'ext-net' },
  listeners: [
    {
      name: 'web',
      protocol: 'TCP',
      port: 443,
      allowedCIDRs: ['10.0.0.0/8'],
      proxyProtocolV2: true,
      idleTimeouts: { clientDataSeconds: 60 },
      pool: { members: [{ address: '10.0.0.11', port: 8443 }], healthMonitor: { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } },
    },
  ],
});
/** Spec B: the same listener without monitor, CIDR or timeout, two members, no floating IP. */
export const auditDesiredB = (): DesiredTopology => ({
  name: A,
  vipSubnetId: 'subnet-1',
  floatingIP: { wanted: false },
  listeners: [{ name: 'web', protocol: 'TCP', port: 443, allowedCIDRs: [], proxyProtocolV2: true, pool: { members: [{ address: '10.0.0.11', port: 8443 }, { address: '10.0.0.12', port: 8443 }] } }],
});
/** Spec U: a UDP listener with a monitor (LB10), no floating IP. */
export const auditDesiredUdp = (): DesiredTopology => ({
  name: A,
  vipSubnetId: 'subnet-1',
  floatingIP: { wanted: false },
  listeners: [{ name: 'dns', protocol: 'UDP', port: 53, allowedCIDRs: [], proxyProtocolV2: false, pool: { members: [{ address: '10.0.0.21', port: 53 }], healthMonitor: { delaySeconds: 10, timeoutSeconds: 5, maxRetries: 2, maxRetriesDown: 2 } } }],
});
/** Invalid: UDP with PROXY v2 (LB13). */
const auditDesiredInvalid = (): DesiredTopology => ({ ...auditDesiredUdp(), listeners: [{ ...(auditDesiredUdp().listeners[0] as DesiredTopology['listeners'][number]), proxyProtocolV2: true }] });

type Obs = TopologyObservation;
const lbPresent = (status = 'ACTIVE', id = 'lb-1', vipPortId: string | null = 'port-1', vipAddress: string | null = '10.0.0.5') => ({ kind: 'present' as const, id, provisioningStatus: status, vipAddress, vipPortId });
const webListener = (over: Record<string, unknown> = {}) => ({
  kind: 'present' as const,
  id: 'listener-1',
  provisioningStatus: 'ACTIVE',
  protocol: 'TCP',
  port: 443,
  allowedCidrs: ['10.0.0.0/8'],
  timeoutClientData: 60_000,
  timeoutMemberData: 50_000,
  defaultPoolId: 'pool-1',
  ...over,
});
const webPool = (over: Record<string, unknown> = {}) => ({ kind: 'present' as const, id: 'pool-1', provisioningStatus: 'ACTIVE', protocol: 'PROXYV2', members: [{ id: 'm-1', address: '10.0.0.11', port: 8443 }], ...over });
const webMonitor = (over: Record<string, unknown> = {}) => ({ kind: 'present' as const, id: 'hm-1', provisioningStatus: 'ACTIVE', type: 'TCP', delay: 5, timeout: 3, maxRetries: 3, maxRetriesDown: 3, ...over });
const fipPresent = { kind: 'present' as const, id: 'fip-1', address: '203.0.113.7' };
/** LB15: two floating IPs on the VIP port. */
const fipTwo = { kind: 'duplicate' as const, floatingIPs: [{ id: 'fip-1', address: '203.0.113.7' }, { id: 'fip-2', address: '203.0.113.8' }] };

/** Spec A converged, with a floating IP (each case below changes one thing). */
const convergedA = (over: Partial<Obs> = {}): Obs => ({
  loadBalancer: lbPresent(),
  listeners: { [WEB.listener]: webListener() },
  pools: { [WEB.pool]: webPool() as never },
  monitors: { [WEB.monitor]: webMonitor() as never },
  orphans: [],
  floatingIP: fipPresent,
  ...over,
});

/** Spec B converged: no monitor, no CIDR, two members, no floating IP (each case below adds one thing). */
const convergedB = (over: Partial<Obs> = {}): Obs => ({
  loadBalancer: lbPresent(),
  listeners: { [WEB.listener]: webListener({ allowedCidrs: [] }) },
  pools: { [WEB.pool]: webPool({ members: [{ id: 'm-1', address: '10.0.0.11', port: 8443 }, { id: 'm-2', address: '10.0.0.12', port: 8443 }] }) as never },
  monitors: {},
  orphans: [],
  floatingIP: { kind: 'absent' },
  ...over,
});
const DNS = names('dns');
/** Spec U converged. */
const convergedU = (over: Partial<Obs> = {}): Obs => ({
  loadBalancer: lbPresent(),
  listeners: { [DNS.listener]: webListener({ id: 'listener-3', protocol: 'UDP', port: 53, allowedCidrs: null, timeoutClientData: null, timeoutMemberData: null, defaultPoolId: 'pool-3' }) },
  pools: { [DNS.pool]: webPool({ id: 'pool-3', protocol: 'UDP', members: [{ id: 'm-3', address: '10.0.0.21', port: 53 }] }) as never },
  monitors: { [DNS.monitor]: webMonitor({ id: 'hm-3', type: 'UDP-CONNECT', delay: 10, timeout: 5, maxRetries: 2, maxRetriesDown: 2 }) as never },
  orphans: [],
  floatingIP: { kind: 'absent' },
  ...over,
});
const ABSENT = { kind: 'absent' as const };
const orphanListener: Orphan = { kind: 'listener', id: 'listener-9', name: OLD.listener, provisioningStatus: 'ACTIVE' };
const orphanPool: Orphan = { kind: 'pool', id: 'pool-9', name: OLD.pool, provisioningStatus: 'ACTIVE' };
const orphanMonitor: Orphan = { kind: 'monitor', id: 'hm-9', name: OLD.monitor, provisioningStatus: 'ACTIVE' };

/** Live observations for spec A; `timed`: an object is absent, so the pass's clock matters (LB12's window). */
export const auditObservationsA = (): Array<{ observed: Obs | undefined; timed: boolean }> => [
  { observed: undefined, timed: false },
  { observed: { loadBalancer: ABSENT }, timed: true },
  { observed: { loadBalancer: { kind: 'duplicate', ids: ['lb-1', 'lb-2'] } }, timed: false },
  ...['PENDING_CREATE', 'PENDING_UPDATE', 'ERROR', 'SOMETHING_NEW'].map((status) => ({ observed: convergedA({ loadBalancer: lbPresent(status) }), timed: false })),
  // LB15: no VIP port id (no floating-IP lookup), an empty one, an empty VIP address, one that is not an IP;
  // two floating IPs on the VIP port, one whose address is not an IP
  { observed: { ...convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', null) }), floatingIP: undefined } as Obs, timed: false },
  { observed: { ...convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', '') }), floatingIP: undefined } as Obs, timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', 'port-1', '') }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', 'port-1', 'vip.example') }), timed: false },
  { observed: convergedA({ floatingIP: fipTwo }), timed: false },
  { observed: convergedA({ floatingIP: { ...fipPresent, address: '' } }), timed: false },
  { observed: { ...convergedA(), floatingIP: undefined } as Obs, timed: false },
  { observed: convergedA({ listeners: { [WEB.listener]: ABSENT }, pools: { [WEB.pool]: ABSENT }, monitors: { [WEB.monitor]: ABSENT } }), timed: true },
  { observed: convergedA({ listeners: { [WEB.listener]: webListener({ defaultPoolId: null }) }, pools: { [WEB.pool]: ABSENT }, monitors: { [WEB.monitor]: ABSENT } }), timed: true },
  { observed: convergedA({ listeners: { [WEB.listener]: webListener({ allowedCidrs: null }) } }), timed: false },
  { observed: convergedA({ listeners: { [WEB.listener]: webListener({ provisioningStatus: 'PENDING_UPDATE' }) } }), timed: false },
  { observed: convergedA({ listeners: { [WEB.listener]: webListener({ protocol: 'UDP' }) } }), timed: false },
  { observed: convergedA({ listeners: { [WEB.listener]: { kind: 'duplicate', ids: ['listener-1', 'listener-2'] } } }), timed: false },
  { observed: convergedA({ pools: { [WEB.pool]: webPool({ members: [] }) as never } }), timed: false },
  { observed: convergedA({ pools: { [WEB.pool]: webPool({ provisioningStatus: 'ERROR' }) as never } }), timed: false },
  { observed: convergedA({ monitors: { [WEB.monitor]: ABSENT } }), timed: true },
  { observed: convergedA({ monitors: { [WEB.monitor]: webMonitor({ delay: 10 }) as never } }), timed: false },
  { observed: convergedA({ monitors: { [WEB.monitor]: webMonitor({ type: 'UDP-CONNECT' }) as never } }), timed: false },
  { observed: convergedA({ floatingIP: ABSENT }), timed: true },
  { observed: convergedA({ orphans: [orphanListener] }), timed: false },
  { observed: convergedA({ orphans: [orphanPool, orphanMonitor] }), timed: false },
  { observed: convergedA(), timed: false },
];
/** Spec B: its converged state, the things it no longer wants (a monitor, the floating IP, an orphaned pool), and A's converged state (a listener update). */
export const auditObservationsB = (): Obs[] => [
  convergedB(),
  convergedB({ monitors: { [WEB.monitor]: webMonitor() as never } }),
  convergedB({ floatingIP: fipPresent }),
  convergedB({ orphans: [orphanPool] }),
  convergedA(),
];
/** Deletion passes (spec A's desired, never read but for the name); `timed`: the backoff or the window matters. */
export const auditDeletionObservations = (): Array<{ observed: Obs | undefined; timed: boolean }> => [
  { observed: undefined, timed: false },
  { observed: { loadBalancer: ABSENT }, timed: true },
  { observed: { loadBalancer: { kind: 'duplicate', ids: ['lb-1', 'lb-2'] } }, timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('PENDING_DELETE') }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('ERROR') }), timed: true },
  { observed: convergedA({ pools: { [WEB.pool]: webPool({ provisioningStatus: 'ERROR' }) as never }, listeners: { [WEB.listener]: webListener({ provisioningStatus: 'SOMETHING_NEW' }) } }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('SOMETHING_NEW') }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('DELETED') }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-2') }), timed: false },
  { observed: { ...convergedA(), floatingIP: undefined } as Obs, timed: false },
  { observed: convergedA(), timed: true },
  { observed: convergedA({ floatingIP: ABSENT }), timed: true },
  // LB15: several floating IPs park the deletion; without a usable VIP port id nothing was looked up
  { observed: convergedA({ floatingIP: fipTwo }), timed: false },
  { observed: { ...convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', '') }), floatingIP: undefined } as Obs, timed: true },
];

/** The subjects the audit scenario's effects name, per effect (results are sent for each). */
const auditSubjects = (): Array<[string, string]> => [
  [LB_EFFECTS.createLoadBalancer, A],
  [LB_EFFECTS.createListener, WEB.listener],
  [LB_EFFECTS.createListener, DNS.listener],
  [LB_EFFECTS.updateListener, WEB.listener],
  [LB_EFFECTS.createPool, WEB.pool],
  [LB_EFFECTS.setPoolMembers, WEB.pool],
  [LB_EFFECTS.createHealthMonitor, WEB.monitor],
  [LB_EFFECTS.updateHealthMonitor, WEB.monitor],
  [LB_EFFECTS.createFloatingIP, floatingIPSubject(A)],
  [LB_EFFECTS.deleteFloatingIP, floatingIPSubject(A)],
  [LB_EFFECTS.deleteListener, OLD.listener],
  [LB_EFFECTS.deletePool, OLD.pool],
  [LB_EFFECTS.deleteHealthMonitor, WEB.monitor],
  [LB_EFFECTS.deleteLoadBalancer, A],
];

/** A finite alphabet covering every case the guards distinguish (machines/definition.ts MachineAudit). */
export const loadBalancerAuditAlphabet = (): Stimulus[] => {
  const out: Stimulus[] = [];
  const reconcile = (desired: DesiredTopology, observed: Obs | undefined, deletionRequested: boolean, generation: number, at: string): Stimulus =>
    ({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, at, desired, ...(observed ? { observed } : {}) }) as Stimulus;
  const times = (timed: boolean): readonly string[] => (timed ? AUDIT_TIMES : [AUDIT_TIMES[0]]);
  for (const { observed, timed } of auditObservationsA()) for (const at of times(timed)) out.push(reconcile(auditDesiredA(), observed, false, 1, at));
  // a new generation: the designed retry after a refusal
  for (const at of [AUDIT_TIMES[0], AUDIT_TIMES[2]]) out.push(reconcile(auditDesiredA(), { loadBalancer: ABSENT }, false, 2, at));
  out.push(reconcile(auditDesiredA(), convergedA(), false, 2, AUDIT_TIMES[0]));
  for (const observed of auditObservationsB()) out.push(reconcile(auditDesiredB(), observed, false, 1, AUDIT_TIMES[0]));
  // spec U (LB10): from nothing, the listener missing, converged
  for (const at of AUDIT_TIMES) {
    out.push(reconcile(auditDesiredUdp(), { loadBalancer: ABSENT }, false, 1, at));
    out.push(reconcile(auditDesiredUdp(), convergedU({ listeners: { [DNS.listener]: ABSENT }, pools: { [DNS.pool]: ABSENT }, monitors: { [DNS.monitor]: ABSENT } }), false, 1, at));
  }
  out.push(reconcile(auditDesiredUdp(), convergedU(), false, 1, AUDIT_TIMES[0]));
  out.push(reconcile(auditDesiredInvalid(), { loadBalancer: ABSENT }, false, 1, AUDIT_TIMES[0]));
  out.push({ type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.listeners: Required value'] } as Stimulus);
  for (const { observed, timed } of auditDeletionObservations()) for (const at of times(timed)) out.push(reconcile(auditDesiredA(), observed, true, 1, at));
  for (const [effect, subject] of auditSubjects()) {
    out.push({ type: 'accepted', source: 'effect', effect, subject, ids: { [subject]: 'id-new' }, ...(effect === LB_EFFECTS.createFloatingIP ? { address: '203.0.113.7' } : {}) } as Stimulus);
    // LB9/LB15: Neutron's answer with an address that is none
    if (effect === LB_EFFECTS.createFloatingIP) out.push({ type: 'accepted', source: 'effect', effect, subject, ids: { [subject]: 'id-new' }, address: '' } as Stimulus);
    out.push({ type: 'conflict', source: 'effect', effect, subject } as Stimulus);
    out.push({ type: 'rejected', source: 'effect', effect, subject, status: 400, reason: 'badRequest' } as Stimulus);
    out.push({ type: 'rejected', source: 'effect', effect, subject, status: 404, reason: 'notFound' } as Stimulus);
    out.push({ type: 'outcomeUnknown', source: 'effect', effect, subject, reason: 'timeout' } as Stimulus);
  }
  return out;
};

/** Backoff beyond this many delete requests is the same (L8's cap), so the audit folds the count there. */
const ATTEMPTS_FOLD = 6;

const loadBalancerAudit = (): MachineAudit => ({
  alphabet: loadBalancerAuditAlphabet,
  // Only what guards read: the per-pass records (observed facts, listener rows, waiting, problem, invalid
  // spec, answers, ids, name, decided generation) never change a decision.
  // A non-create mutation is read only for its answer's correlation and a refusal's generation; a create
  // also for its clock and whether it was accepted (pending and unknown decide alike, LB12).
  stateKey: (snapshot: AnyMachineSnapshot) => {
    if (snapshot.value === 'deleted') return '"deleted"';
    const c = snapshot.context as LoadBalancerContext;
    const m = c.mutation;
    const mutation = m && (isCreate(m.effect) ? [m.effect, m.subject, m.generation, m.decidedAt, m.answer === 'accepted', m.completes] : [m.effect, m.subject, m.generation]);
    const deletion = c.deletion && { ...c.deletion, attempts: Math.min(c.deletion.attempts, ATTEMPTS_FOLD) };
    return JSON.stringify([snapshot.value, mutation, c.armed, deletion, c.failure?.generation ?? null]);
  },
  intentOf,
  rank: (snapshot: AnyMachineSnapshot) => (snapshot.value === 'pruning' ? 1 : (INTENT_RANK[deletingSubstate(snapshot) ?? ''] ?? 0)),
  parked: (snapshot: AnyMachineSnapshot) => ['inconsistent', 'failed', 'invalid'].includes(String(snapshot.value)),
  evidenceOf: (before: AnyMachineSnapshot, stimulus: Stimulus) => {
    if (stimulus.type !== 'reconcile') return undefined;
    const e = stimulus as Reconcile;
    const c = before.context as LoadBalancerContext;
    const lb = e.observed?.loadBalancer;
    const found = lb?.kind === 'present' ? `${lb.id} in ${lb.provisioningStatus}` : (lb?.kind ?? 'nothing (not observed)');
    if (before.value === 'pruning') return `armed ${c.armed.map((a) => `${a.effect} ${a.subject}`).join(', ')}; this pass found the load balancer ${found}`;
    return e.deletionRequested ? `deletion requested; armed for ${c.deletion?.loadBalancerId ?? 'nothing'}; this pass found ${found}, floating IP ${e.observed?.floatingIP?.kind ?? 'not looked up'}` : undefined;
  },
});

// ─── status ─────────────────────────────────────────────────────────────────────────────────────────

export type LoadBalancerReason = 'Provisioning' | 'Provisioned' | 'Errored' | 'ConsistencyError' | 'Deleting' | 'InvalidSpec';
type Snapshot = Pick<AnyMachineSnapshot, 'value' | 'context'>;

const WHAT: Record<string, string> = {
  [LB_EFFECTS.createLoadBalancer]: 'create the load balancer',
  [LB_EFFECTS.createListener]: 'create a listener',
  [LB_EFFECTS.updateListener]: 'update a listener',
  [LB_EFFECTS.createPool]: 'create a pool',
  [LB_EFFECTS.setPoolMembers]: 'set the pool members',
  [LB_EFFECTS.createHealthMonitor]: 'create a health monitor',
  [LB_EFFECTS.updateHealthMonitor]: 'update a health monitor',
  [LB_EFFECTS.deleteHealthMonitor]: 'delete a health monitor',
  [LB_EFFECTS.deleteListener]: 'delete a listener',
  [LB_EFFECTS.deletePool]: 'delete a pool',
  [LB_EFFECTS.deleteLoadBalancer]: 'delete the load balancer',
  [LB_EFFECTS.createFloatingIP]: 'create the floating IP',
  [LB_EFFECTS.deleteFloatingIP]: 'release the floating IP',
};

/**
 * The Available condition for the machine's state. Messages are user-safe: Regent's own words, the names
 * it made, the spec's values and Octavia's closed status vocabulary — never Octavia's or Neutron's text.
 */
export const loadBalancerAvailable = (snapshot: Snapshot): { status: 'True' | 'False'; reason: LoadBalancerReason; message: string } => {
  const c = snapshot.context as LoadBalancerContext;
  const no = (reason: LoadBalancerReason, message: string) => ({ status: 'False' as const, reason, message });
  const sub = deletingSubstate(snapshot);
  if (sub !== null || snapshot.value === 'deleted') {
    if (snapshot.value === 'deleted') return no('Deleting', 'the load balancer is deleted');
    if (sub === 'releasingFloatingIP') return no('Deleting', 'releasing the floating IP before deleting the load balancer');
    if (c.waiting?.reason === 'Pending') return no('Deleting', 'waiting for Octavia to finish a change before deleting the load balancer');
    return no('Deleting', sub === 'submitted' ? 'deleting the load balancer and its listeners, pools and monitors' : 'deleting the load balancer');
  }
  switch (snapshot.value) {
    case 'invalid':
      return no('InvalidSpec', c.invalidSpec?.message ?? 'the spec is invalid');
    case 'inconsistent':
      return no(c.problem?.status === 'ERROR' ? 'Errored' : 'ConsistencyError', c.problem?.message ?? 'Octavia does not show a consistent topology');
    case 'failed': {
      const f = c.failure;
      const service = f?.effect.startsWith('neutron.') ? 'Neutron' : 'Octavia';
      return no('Errored', f ? `${service} refused to ${WHAT[f.effect] ?? 'apply a change'} (HTTP ${f.status})` : 'a change was refused');
    }
    case 'provisioned':
      return { status: 'True', reason: 'Provisioned', message: 'the load balancer is active' };
    default: {
      const w = c.waiting;
      if (c.lastAnswer?.answer === 'conflict' && c.mutation === null && snapshot.value === 'provisioning' && w === null) return no('Provisioning', 'Octavia was busy with another change; trying again');
      if (w?.reason === 'Pending') return no('Provisioning', 'waiting for Octavia to finish applying a change');
      if (w?.reason === 'CreateMayStillLand') return no('Provisioning', 'waiting to see whether an unanswered create took effect');
      if (snapshot.value === 'pruning') return no('Provisioning', 'removing listeners, pools or monitors the spec no longer names');
      return no('Provisioning', snapshot.value === 'absent' ? 'waiting to create the load balancer' : 'converging the load balancer');
    }
  }
};

/** Per spec listener: its state and Octavia ids, as the last pass saw them (status.listeners). */
export const loadBalancerListenerStates = (snapshot: Snapshot): Array<{ name: string; state: ListenerState; listenerID?: string; poolID?: string; healthMonitorID?: string }> => {
  const c = snapshot.context as LoadBalancerContext;
  const deleting = deletingSubstate(snapshot) !== null || snapshot.value === 'deleted';
  return c.listeners.map((r) => ({
    name: r.name,
    state: deleting ? 'Deleting' : r.state,
    ...(r.listenerId ? { listenerID: r.listenerId } : {}),
    ...(r.poolId ? { poolID: r.poolId } : {}),
    ...(r.healthMonitorId ? { healthMonitorID: r.healthMonitorId } : {}),
  }));
};

/**
 * What status shows besides the conditions: the Octavia id, VIP, public address, provisioning status.
 * LB15: neither the VIP nor the floating IP while the last observation's endpoint is unusable (so never a
 * value that is not an IP address) — a client must never be sent to half an endpoint, nor to the one a
 * previous pass saw (each pass's observation replaces the last).
 */
export const loadBalancerObserved = (snapshot: Snapshot): { loadBalancerID: string | null; vipAddress: string | null; floatingIP: string | null; provisioningStatus: string | null } => {
  const c = snapshot.context as LoadBalancerContext;
  const shown = c.observed?.endpointUsable === true;
  return {
    loadBalancerID: c.loadBalancerId,
    vipAddress: shown ? (c.observed?.vipAddress ?? null) : null,
    floatingIP: shown ? (c.observed?.floatingIP?.address ?? null) : null,
    provisioningStatus: c.observed?.provisioningStatus ?? null,
  };
};

export const loadBalancerDefinition: MachineDefinition = {
  id: 'loadBalancer',
  // v2: LB15 (an unusable VIP, VIP port id or floating IP parks as a consistency error; v1 took it as
  // Provisioned, or waited for a missing VIP port). The stimulus only gained the `duplicate` floating-IP
  // observation: every v1 payload decodes unchanged, so the schema stays 1 and no upcaster is needed.
  version: 2,
  schemaVersion: 1,
  streamPrefix: LOAD_BALANCER_STREAM_PREFIX,
  machine: buildLoadBalancerMachine(),
  stimulus: LoadBalancerStimulus,
  effects: Object.values(LB_EFFECTS),
  destructiveEffects: DESTRUCTIVE_EFFECTS,
  input: (stream) => ({ stream }),
  description:
    'Octavia load balancer lb-{lb} with listeners, pools, members, health monitors and a floating IP on the VIP port: the load balancer created alone, then one object or in-place mutation per pass, never a nested create (Octavia Zed, docs/simulator-differences.md §16); PENDING_* yields, 409 is a yield; write-ahead prune and cascade delete (openstack-provider.md, "Octavia Load Balancers").',
  audit: loadBalancerAudit(),
};
