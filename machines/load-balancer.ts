/**
 * A LoadBalancer's Octavia topology — openstack-provider.md, "Octavia Load Balancers" (issue 13). One
 * machine per LoadBalancer, stream `load-balancer-<resource uid>`. The pure diff is
 * machines/load-balancer/topology.ts (`planPass`, `planDeletion`); this file is the write-ahead protocol
 * around it: what is decided, armed, sent, and how Octavia's answers are recorded. Its prunes (LB8, LB9) and its
 * cascade delete (LB14) are the write-ahead delete of machines/write-ahead-delete.ts (W1–W4; a prune's refusal parks
 * instead of backing off, and one Octavia dropped is sent again by the next pass that sees it ACTIVE).
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
 * Effects: the catalogue of each effect's params is the header of machines/load-balancer/effects.ts (every one
 * carries `subject`, which its result must echo; the deletes are destructive).
 *
 * Open points:
 * - A capability flag (nested creates where an Octavia does provision a nested create's children) would save
 *   passes; not added: Zed is the only Octavia measured, it provisions none, and there a nested create is
 *   not a safe retry either (a graph refused leaves its VIP port behind, §16).
 * - Children left PENDING_CREATE under an ACTIVE load balancer (a fully populated create made outside
 *   Regent) still yield for ever under LB1; Regent itself no longer makes them.
 *
 * Driven by the LoadBalancer controller (src/controllers/load-balancer/: the pass builds `reconcile` from the spec and
 * a fresh observation by src/provider/load-balancers.ts, whose handlers execute the effects); status is rendered by
 * projections/load-balancer-status.ts; reference docs/loadbalancer.md.
 *
 * Files (machines/load-balancer/): topology.ts the pure diff (`planPass`, `planDeletion`), with names.ts (LB2's names,
 * statuses, addresses), observation.ts (the desired and observed codecs) and effects.ts (effect types and params);
 * stimuli.ts the codec of what the stream stores; context.ts what the machine keeps; pass.ts what one pass reads
 * (the memoized plan) and the effects' params; transitions.ts the transition lists states share; audit.ts what
 * `regent check` explores. This file is the machine: its actions, guards and states (over 500 lines because this
 * header holds the rules the tests cite by label; the code is under 400).
 */
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineDefinition } from './definition.js';
import { loadBalancerAudit } from './load-balancer/audit.js';
import type { LoadBalancerContext } from './load-balancer/context.js';
import { DESTRUCTIVE_EFFECTS, LB_EFFECTS, isCreate } from './load-balancer/effects.js';
import { floatingIPSubject, isIpAddress } from './load-balancer/names.js';
import {
  armedTarget,
  cascadeEffect,
  deletionKind,
  deletionProblem,
  deletionRetargets,
  deletionStep,
  kindIs,
  liveStep,
  mutationIs,
  observedIn,
  observedLb,
  pass,
  releaseEffect,
  type Event,
} from './load-balancer/pass.js';
import { LoadBalancerStimulus, type Result } from './load-balancer/stimuli.js';
import { createMayStillLand, endpointOf, listenerRows, presenceOf, specProblem } from './load-balancer/topology.js';
import { DELETING_COMMON, DELETION, LIVE_RESULTS, WITHDRAWN, live } from './load-balancer/transitions.js';
import { firstRequest, inProgress, nextRequest, resend, resendDue, submit } from './write-ahead-delete.js';

// What moved into machines/load-balancer/, re-exported so importers of this file need not change.
export { loadBalancerName, listenerName, poolName, monitorName, floatingIPSubject } from './load-balancer/names.js';
export type { ListenerState } from './load-balancer/topology.js';
export { LB_EFFECTS } from './load-balancer/effects.js';
export { LoadBalancerStimulus } from './load-balancer/stimuli.js';
export type { LoadBalancerContext, Mutation } from './load-balancer/context.js';
export {
  AUDIT_TIMES,
  auditDeletionObservations,
  auditDesiredA,
  auditDesiredB,
  auditDesiredUdp,
  auditObservationsA,
  auditObservationsB,
  loadBalancerAuditAlphabet,
} from './load-balancer/audit.js';
/** The deletion's substate (`armed`, `releasingFloatingIP`, `submitted`), or null outside a deletion (status reads it). */
export { deletingSubstate } from './write-ahead-delete.js';

export const LOAD_BALANCER_STREAM_PREFIX = 'load-balancer-';
export const loadBalancerStream = (uid: string): string => `${LOAD_BALANCER_STREAM_PREFIX}${uid}`;

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
        deletion: { loadBalancerId: context.deletion?.loadBalancerId ?? null, step: 'release' as const, ...firstRequest(pass(event).at), conflicted: false },
        mutation: { effect: LB_EFFECTS.deleteFloatingIP, subject: floatingIPSubject(pass(event).desired.name), decidedAt: pass(event).at, answer: 'pending' as const, generation: pass(event).generation, completes: false },
      })),
      startCascade: assign(({ context, event }) => ({
        deletion: { loadBalancerId: context.deletion?.loadBalancerId ?? null, step: 'cascade' as const, ...firstRequest(pass(event).at), conflicted: false },
        mutation: { effect: LB_EFFECTS.deleteLoadBalancer, subject: pass(event).desired.name, decidedAt: pass(event).at, answer: 'pending' as const, generation: pass(event).generation, completes: false },
      })),
      repeatDelete: assign(({ context, event }) => ({
        deletion: context.deletion ? { ...context.deletion, ...nextRequest(context.deletion, pass(event).at), conflicted: false } : null,
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
      // LB14/W4: the same delete again (the same step, its target seen again): at once after a 409, else after the backoff
      releaseRetryDue: resendDue<LoadBalancerContext, Event>({ seenAgain: (context, event) => deletionKind(context, event) === 'release' && context.deletion?.step === 'release', ledger: (context) => context.deletion, at: (event) => pass(event).at, atOnce: (context) => context.deletion?.conflicted === true }),
      cascadeRetryDue: resendDue<LoadBalancerContext, Event>({ seenAgain: (context, event) => deletionKind(context, event) === 'cascade' && context.deletion?.step === 'cascade', ledger: (context) => context.deletion, at: (event) => pass(event).at, atOnce: (context) => context.deletion?.conflicted === true }),
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
                submit({ guard: 'floatingIPToRelease', target: 'releasingFloatingIP', actions: ['notePass', 'settleMutation', releaseEffect, 'startRelease'] }, 'floatingIPReleaseSubmitted'),
                submit({ guard: 'cascadeDue', target: 'submitted', actions: ['notePass', 'settleMutation', cascadeEffect, 'startCascade'] }),
              ],
            },
          },
          // LB14: the floating IP's release was sent; the cascade waits for its absence.
          releasingFloatingIP: {
            on: {
              reconcile: [
                WITHDRAWN,
                ...DELETING_COMMON,
                resend({ guard: 'releaseRetryDue', actions: ['notePass', 'settleMutation', releaseEffect, 'repeatDelete'] }, 'floatingIPReleaseResubmitted'),
                inProgress({ guard: 'floatingIPToRelease', actions: ['notePass', 'settleMutation'] }, 'floatingIPReleaseInProgress'),
                submit({ guard: 'cascadeDue', target: 'submitted', actions: ['notePass', 'settleMutation', cascadeEffect, 'startCascade'] }),
              ],
            },
          },
          // LB14: the cascade delete was sent; yield until a fresh lookup shows the load balancer absent.
          submitted: {
            on: {
              reconcile: [
                WITHDRAWN,
                ...DELETING_COMMON,
                submit({ guard: 'floatingIPToRelease', target: 'releasingFloatingIP', actions: ['notePass', 'settleMutation', releaseEffect, 'startRelease'] }, 'floatingIPReleaseSubmitted'),
                resend({ guard: 'cascadeRetryDue', actions: ['notePass', 'settleMutation', cascadeEffect, 'repeatDelete'] }),
                inProgress({ actions: ['notePass', 'settleMutation'] }),
              ],
            },
          },
        },
      },
      deleted: { type: 'final' },
    },
  });

export const loadBalancerDefinition: MachineDefinition<LoadBalancerContext> = {
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
