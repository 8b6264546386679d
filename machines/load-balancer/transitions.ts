/**
 * The transition lists the load-balancer machine's states share (machines/load-balancer.ts): entering a deletion,
 * a live pass (LB1–LB13), a deletion read back (LB14), a withdrawn deletion and the live states' effect results.
 * Data only: the guards and actions they name are the machine's.
 */
// ─── transitions shared by states ───────────────────────────────────────────────────────────────────

import { outcome } from '../definition.js';
import { arm, confirm, submit, withdraw } from '../write-ahead-delete.js';
import { LB_EFFECTS } from './effects.js';
import { mutationEffect, pruneEffect } from './pass.js';

const ID = '#loadBalancer';
const to = (state: string) => `${ID}.${state}`;

/** Entering deletion from a live state (LB14, LB2, LB1). */
export const DELETION = [
  { guard: 'deletionNotObserved', actions: ['notePass', 'settleMutation', 'waitNotObserved', outcome('notObserved')] },
  { guard: 'deletionFindsDuplicate', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('duplicateNames')] }, // LB2
  { guard: 'deletionFindsUnknownStatus', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('provisioningStatusUnusable')] }, // LB1
  { guard: 'deletionFindsFloatingIPsUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('floatingIPUnusable')] }, // LB15
  arm({ guard: 'deletionWhileCreateMayStillLand', target: to('deleting.armed'), actions: ['notePass', 'settleMutation', 'armDeletion', 'waitForCreate'] }, 'awaitingCreate'), // LB12
  confirm({ guard: 'deletionFindsNothing', target: to('deleted'), actions: ['notePass', 'settleMutation'] }, 'nothingToDelete'), // LB14: missing is success
  arm({ guard: 'deletionRequested', target: to('deleting.armed'), actions: ['notePass', 'settleMutation', 'armDeletion'] }), // LB14: write-ahead (W1)
] as const;

/**
 * A live pass (LB1–LB13) from any live state. `self`: the state a PENDING_* yield stays in (pruning keeps
 * its arm while Octavia applies the delete it sent).
 */
export const live = (self: string) =>
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
    submit({ guard: 'armedListenerPruneDue', target: to('pruning'), actions: ['notePass', pruneEffect(LB_EFFECTS.deleteListener), 'startPrune'] }, 'listenerPruneSubmitted'),
    submit({ guard: 'armedPoolPruneDue', target: to('pruning'), actions: ['notePass', pruneEffect(LB_EFFECTS.deletePool), 'startPrune'] }, 'poolPruneSubmitted'),
    submit({ guard: 'armedMonitorPruneDue', target: to('pruning'), actions: ['notePass', pruneEffect(LB_EFFECTS.deleteHealthMonitor), 'startPrune'] }, 'monitorPruneSubmitted'),
    submit({ guard: 'armedFloatingIPReleaseDue', target: to('pruning'), actions: ['notePass', pruneEffect(LB_EFFECTS.deleteFloatingIP), 'startPrune'] }, 'floatingIPReleaseSubmitted'),
    // LB8/LB9: not armed yet: arm (write-ahead, W1), nothing deleted on this pass
    arm({ guard: 'destructiveStepDue', target: to('pruning'), actions: ['notePass', 'settleMutation', 'arm'] }, 'pruneArmed'),
    { target: to('provisioned'), actions: ['notePass', 'settleMutation', outcome('converged')] },
  ] as const;

/** The deletion, read back (LB14): what every deleting substate does before its own step. */
export const DELETING_COMMON = [
  { guard: 'notObserved', actions: ['notePass', 'settleMutation', 'waitNotObserved', outcome('notObserved')] },
  { guard: 'deletionDuplicate', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('duplicateNames')] }, // LB2
  { guard: 'deletionStatusUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('provisioningStatusUnusable')] }, // LB1
  { guard: 'deletionFloatingIPsUnusable', target: to('inconsistent'), actions: ['notePass', 'settleMutation', 'recordDeletionProblem', outcome('floatingIPUnusable')] }, // LB15
  { guard: 'deletionAwaitingCreate', actions: ['notePass', 'settleMutation', 'waitForCreate', outcome('awaitingCreate')] }, // LB12
  confirm({ guard: 'deletionGone', target: to('deleted'), actions: ['notePass', 'settleMutation'] }), // LB14: absence confirms (W3)
  arm({ guard: 'deletionRetargets', target: to('deleting.armed'), reenter: true, actions: ['notePass', 'settleMutation', 'armDeletion'] }), // write-ahead for the one found now
  { guard: 'deletionPending', actions: ['notePass', 'settleMutation', 'waitPendingDeletion', outcome('pendingYield')] }, // LB1
  { guard: 'deletionIncomplete', actions: ['notePass', 'settleMutation', 'waitIncomplete', outcome('observationIncomplete')] },
] as const;

/**
 * The deletion was withdrawn: the next pass converges again (a cascade already sent runs its course: the
 * live passes yield on PENDING_DELETE and create the load balancer anew once it is gone).
 */
export const WITHDRAWN = withdraw({ guard: 'deletionWithdrawn', target: to('provisioning'), actions: ['notePass', 'settleMutation', 'disarmDeletion'] });

/** Effect results in live states (LB12); the root records them everywhere else. */
export const LIVE_RESULTS = {
  rejected: [
    { guard: 'answersMutationNotFound', actions: ['recordNotFound', outcome('notFound')] },
    { guard: 'answersMutation', target: to('failed'), actions: ['recordRejected', outcome('rejected')] },
  ],
} as const;
