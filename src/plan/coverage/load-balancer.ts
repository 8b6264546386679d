/**
 * The plan of the LoadBalancer kind: its Octavia topology machine (machines/load-balancer.ts, rules LB1–LB15 in its
 * header; the shared transition lists in machines/load-balancer/transitions.ts; the pure diff in
 * machines/load-balancer/topology.ts). Its prunes (LB8, LB9) and its cascade delete (LB14) are the write-ahead delete
 * (machines/write-ahead-delete.ts): one pass arms, a later one reads the arm back and sends ONE delete — so a plan of a
 * removed listener shows the arm on its first pass and the destructive delete on the next.
 *
 * Labels are the ones the source gives each transition where it is defined: its own trailing comment (`// LB4`), else
 * the comment heading its run of transitions (`// LB8/LB9: an armed target read back …`), else the comment of the
 * state or exported list that holds it when that comment names exactly one rule (the `deleting` substates and
 * DELETING_COMMON: LB14; `failed` and LIVE_RESULTS: LB12); and the header rule that names its outcome (LB13:
 * `specRejected`). A transition with none of these has no rule (`—`), never an invented one, even where the header's
 * prose describes it (a withdrawn deletion, LB14). test/plan/load-balancer-plan.test.ts checks every row and every
 * unlabelled decision against the source; test/plan/rules.test.ts checks that every decision of the machine's explored
 * graph has a row or is named below as unlabelled.
 */
import { r, type RuleRow } from './rule-row.js';
import type { PlanCoverage } from './coverage.js';
import { planPass } from '../../../machines/load-balancer/topology.js';
import { LB_EFFECTS } from '../../../machines/load-balancer/effects.js';
import type { Reconcile } from '../../../machines/load-balancer/stimuli.js';

/** The live states a pass converges from (a result of a mutation is recorded there by LIVE_RESULTS, LB12). */
const LIVE_RESULT_STATES = ['provisioning', 'provisioned', 'pruning'] as const;
/** The deletion's substates (LB14: each one's comment in the source). */
const DELETING = ['deleting.armed', 'deleting.releasingFloatingIP', 'deleting.submitted'] as const;

/**
 * The first destroy target of a live pass is a floating IP no longer wanted (LB9) rather than a listener, pool or
 * monitor the spec no longer implies (LB8). The destroy targets depend on the spec and the observation only (never on
 * the create memory: a create that may still land is a step of its own, ahead of any late destroy), so the stored
 * stimulus alone answers it.
 */
const firstTargetIsFloatingIP = (data: Record<string, unknown>): boolean => {
  const stimulus = data as unknown as Reconcile;
  if (stimulus.type !== 'reconcile' || !stimulus.observed) return false;
  const step = planPass(stimulus.desired, stimulus.observed, null, stimulus.at);
  return step.kind === 'destroy' && step.target.effect === LB_EFFECTS.deleteFloatingIP;
};

/** machines/load-balancer.ts: LB1–LB15, as its transitions (and machines/load-balancer/transitions.ts) label them. */
export const LOAD_BALANCER_RULES: readonly RuleRow[] = [
  // a live pass (transitions.ts `live`), in the order its guards are tried
  { outcome: 'invalidSpec', rule: r('LB13', 'InvalidSpec: the spec names what Octavia would refuse or could never converge; nothing sent') },
  { outcome: 'duplicateNames', rule: r('LB2', 'consistency error: two Octavia objects (or load balancers) of one exact name; parked, nothing mutated') },
  { outcome: 'provisioningStatusUnusable', rule: r('LB1', 'consistency error: a provisioning status neither ACTIVE nor PENDING_*; parked, nothing mutated') },
  { outcome: 'immutableFieldDrift', rule: r('LB11', 'consistency error: a field Octavia cannot change in place differs; never deleted and recreated by guess') },
  { outcome: 'vipUnusable', rule: r('LB15', "consistency error: an ACTIVE load balancer's VIP address or VIP port id is not usable") },
  { outcome: 'floatingIPUnusable', rule: r('LB15', 'consistency error: several floating IPs on the VIP port, or one whose address is not an IP address') },
  { outcome: 'pendingYield', rule: r('LB1', 'yield: a PENDING_* status on the load balancer or a child; nothing sent') },
  { outcome: 'awaitingCreate', rule: r('LB12', 'wait: an unanswered create may still land (never re-sent blindly)') },
  { outcome: 'loadBalancerCreateSubmitted', rule: r('LB3', 'create the load balancer alone, with its VIP (no listeners nested)') },
  { outcome: 'listenerCreateSubmitted', rule: r('LB4', 'create a missing listener alone (on the pool of its name when that exists)') },
  { outcome: 'poolCreateSubmitted', rule: r('LB4', 'create a missing pool alone (the default pool via listener_id when the listener has none)') },
  { outcome: 'listenerUpdateSubmitted', rule: r('LB5', "update the listener in place: allowed CIDRs, TCP idle timeouts, default-pool linkage, in one update") },
  { outcome: 'membersUpdateSubmitted', rule: r('LB6', "set the pool's whole member set in one batch update") },
  { outcome: 'monitorCreateSubmitted', rule: r('LB7', 'create the health monitor: wanted and missing') },
  { outcome: 'monitorUpdateSubmitted', rule: r('LB7', "update the health monitor's thresholds in place") },
  { outcome: 'floatingIPCreateSubmitted', rule: r('LB9', "create the floating IP on the VIP port (the load balancer ACTIVE, its VIP usable)") },
  { outcome: 'listenerPruneSubmitted', rule: r('LB8', 'delete an orphaned listener: armed in an earlier pass, read back, observed again') },
  { outcome: 'poolPruneSubmitted', rule: r('LB8', 'delete an orphaned pool (and its monitor): armed in an earlier pass, read back, observed again') },
  { outcome: 'monitorPruneSubmitted', rule: r('LB8', 'delete a health monitor no longer wanted: armed in an earlier pass, read back, observed again') },
  { outcome: 'floatingIPReleaseSubmitted', from: ['pruning'], rule: r('LB9', 'release the floating IP no longer wanted: armed in an earlier pass, read back, observed again') },
  { outcome: 'pruneArmed', when: firstTargetIsFloatingIP, rule: r('LB9', 'arm the release of a floating IP no longer wanted (write-ahead, nothing deleted yet)') },
  { outcome: 'pruneArmed', when: (d) => !firstTargetIsFloatingIP(d), rule: r('LB8', 'arm the prune of what the spec no longer implies (write-ahead, nothing deleted yet)') },
  // a failed mutation stands for its generation (state `failed`)
  { outcome: 'failedStands', rule: r('LB12', 'parked: Octavia refused a mutation; nothing is decided again before a new generation') },
  // the reconciler could not normalize the spec (header LB13: `specRejected`)
  { outcome: 'specRejected', rule: r('LB13', 'InvalidSpec: the reconciler could not normalize the spec; recorded, nothing sent') },
  // the deletion (transitions.ts `DELETION`, `DELETING_COMMON`, `WITHDRAWN`; the `deleting` substates)
  { outcome: 'deleteArmed', rule: r('LB14', 'arm the delete for the load balancer observed now (write-ahead, nothing deleted yet)') },
  { outcome: 'nothingToDelete', rule: r('LB14', 'deleted: nothing to delete (missing is success)') },
  { outcome: 'floatingIPReleaseSubmitted', from: DELETING, rule: r('LB14', 'release the floating IP first: the deletion read back, the floating IP seen') },
  { outcome: 'floatingIPReleaseResubmitted', rule: r('LB14', 'release the floating IP again: the same one seen after the backoff (at once after a 409)') },
  { outcome: 'floatingIPReleaseInProgress', rule: r('LB14', 'wait: the floating IP release is not confirmed by absence yet') },
  { outcome: 'deleteSubmitted', rule: r('LB14', 'cascade-delete the load balancer: the deletion read back, no floating IP left on the VIP port') },
  { outcome: 'deleteResubmitted', rule: r('LB14', 'cascade-delete again: the same load balancer seen after the backoff (at once after a 409)') },
  { outcome: 'deleteInProgress', rule: r('LB14', 'wait: the cascade delete is not confirmed by absence yet') },
  { outcome: 'deleted', rule: r('LB14', 'deleted: a fresh lookup shows the load balancer absent (or DELETED)') },
  { outcome: 'notObserved', from: DELETING, rule: r('LB14', "wait: the deletion's lookup could not be made; nothing deleted") },
  { outcome: 'observationIncomplete', from: DELETING, rule: r('LB14', "wait: the deletion's observation did not answer for every name; nothing deleted") },
  // effect results the source labels (the root's `conflict`; LIVE_RESULTS, "(LB12)")
  { outcome: 'conflict', rule: r('LB12', "Octavia's 409 (busy while PENDING_*): a yield, never an error") },
  { outcome: 'rejected', from: LIVE_RESULT_STATES, rule: r('LB12', 'Octavia refused the mutation: parked in failed until a new generation') },
  { outcome: 'notFound', from: LIVE_RESULT_STATES, rule: r('LB12', "a 404: the object went away; the next pass decides") },
  { outcome: 'floatingIPCreated', rule: r('LB9', "Neutron's answer carries the floating IP, the last thing missing: Provisioned") },
];

const PARKED = 'parked as a consistency error: looks again in 60 s; nothing is sent until a fresh observation is clean (an operator mends Octavia)';
const OCTAVIA_ACCEPTS = (what: string, then: string) => `after Octavia accepts ${what}: waits for provisioning_status to leave PENDING_UPDATE; ${then}`;

export const LOAD_BALANCER: PlanCoverage = {
  kinds: ['LoadBalancer'],
  rules: { loadBalancer: LOAD_BALANCER_RULES },
  waits: {
    loadBalancer: {
      loadBalancerCreateSubmitted: 'after Octavia accepts the create: waits for provisioning_status to leave PENDING_CREATE; then one listener, pool, member set or monitor per pass',
      listenerCreateSubmitted: OCTAVIA_ACCEPTS('the listener create', 'the next pass creates its pool'),
      poolCreateSubmitted: OCTAVIA_ACCEPTS('the pool create', 'the next pass sets its members'),
      listenerUpdateSubmitted: OCTAVIA_ACCEPTS('the listener update', 'the next pass observes it settled'),
      membersUpdateSubmitted: OCTAVIA_ACCEPTS('the member set', 'the next pass observes it settled'),
      monitorCreateSubmitted: OCTAVIA_ACCEPTS('the health monitor create', 'the next pass observes it settled'),
      monitorUpdateSubmitted: OCTAVIA_ACCEPTS('the health monitor update', 'the next pass observes it settled'),
      floatingIPCreateSubmitted: "after Neutron allocates the floating IP on the VIP port: its address completes the topology (else the next pass's observation decides)",
      listenerPruneSubmitted: OCTAVIA_ACCEPTS('the listener delete', 'the next pass sees it gone'),
      poolPruneSubmitted: OCTAVIA_ACCEPTS('the pool delete', 'the next pass sees it (and its monitor) gone'),
      monitorPruneSubmitted: OCTAVIA_ACCEPTS('the health monitor delete', 'the next pass sees it gone'),
      floatingIPReleaseSubmitted: 'after Neutron releases the floating IP: waits for it to be gone (in a deletion, the cascade delete follows)',
      floatingIPReleaseResubmitted: 'after Neutron releases the floating IP: waits for it to be gone (in a deletion, the cascade delete follows)',
      floatingIPReleaseInProgress: 'waits for the floating IP to be gone; then the cascade delete',
      pruneArmed: 'the next pass reads the arm back and deletes the first armed target it observes again (one delete per pass)',
      deleteArmed: 'the next pass reads the deletion back: it releases the floating IP, then sends the cascade delete, for the load balancer it observes then',
      deleteSubmitted: 'after Octavia accepts the cascade delete: waits for the load balancer to be gone (PENDING_DELETE to clear)',
      deleteResubmitted: 'after Octavia accepts the cascade delete: waits for the load balancer to be gone (PENDING_DELETE to clear)',
      deleteInProgress: 'waits for the load balancer to be gone (PENDING_DELETE to clear)',
      pendingYield: "waits for Octavia's PENDING_* to clear (looks again in 2 s); nothing is sent meanwhile",
      awaitingCreate: 'waits for the unanswered create to show in Octavia, or its window (120 s) to pass before it is sent again',
      duplicateNames: PARKED,
      provisioningStatusUnusable: PARKED,
      immutableFieldDrift: PARKED,
      vipUnusable: PARKED,
      floatingIPUnusable: PARKED,
      invalidSpec: 'waits for a valid spec',
      specRejected: 'waits for a valid spec',
      failedStands: 'waits for a new generation of the spec',
      converged: 'nothing: the topology is as the spec says (looks again in 60 s for drift)',
      nothingToDelete: 'nothing: there is no load balancer to delete; the finalizer is removed',
      deleted: 'nothing: the load balancer is gone; the finalizer is removed',
      deletionWithdrawn: 'the next pass converges again (a cascade already sent runs its course)',
      observationIncomplete: 'looks again on the next pass: the observation did not answer for every name',
      notObserved: 'looks again on the next pass: Octavia could not be observed',
    },
  },
  unlabelled: {
    loadBalancer: {
      'loadBalancer.notObserved': 'outside a deletion, the lookup could not be made: recorded, nothing decided (no label in the source)',
      'loadBalancer.observationIncomplete': 'outside a deletion, the observation did not answer for every name the spec implies: recorded, nothing decided (no label in the source)',
      'loadBalancer.deletionWithdrawn': "a deletion withdrawn (a pass without deletionRequested): WITHDRAWN carries no label (the header's LB14 describes it in prose)",
      'loadBalancer.converged': 'everything ACTIVE and as the spec says: nothing to do (no label in the source)',
      'loadBalancer.accepted': "Octavia's or Neutron's acceptance, recorded against the mutation it answers (an effect result; the root's transition has no label)",
      'loadBalancer.outcomeUnknown': "an answer that never came, recorded (an effect result; the root's transition has no label)",
      'loadBalancer.rejected': "outside the live states, a refusal recorded by the root's transition (an effect result, no label)",
      'loadBalancer.notFound': "outside the live states, a 404 recorded by the root's transition (an effect result, no label)",
    },
  },
};
