/**
 * The transition lists the volume-lifecycle machine's states share (machines/volume-lifecycle.ts): classifying a
 * single volume observed fresh, entering a deletion, a live pass that decides nothing, a vanished volume, a
 * withdrawn deletion. Data only: the guards and actions they name are the machine's.
 */
import { outcome } from '../definition.js';
import { arm, confirm, withdraw } from '../write-ahead-delete.js';
import { extendEffect } from './pass.js';

const ID = '#volumeLifecycle';
export const to = (state: string) => `${ID}.${state}`;

/**
 * A single volume observed fresh (V2/V7/V8/V10): adopted, then classified by its status. `settled` and
 * `pending` name the outcome for the state it is used in.
 */
export const classify = (names: { settled: string; pending: string }) =>
  [
    { guard: 'observedErrored', target: to('errored'), actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8
    { guard: 'growDue', target: to('extending'), actions: ['notePass', 'adopt', 'startExtend', extendEffect, outcome('extendSubmitted')] }, // V10
    { guard: 'observedSettled', target: to('available'), actions: ['notePass', 'adopt', 'noteShrink', outcome(names.settled)] }, // V7
    { target: to('pending'), actions: ['notePass', 'adopt', outcome(names.pending)] }, // V7: every other non-error status yields
  ] as const;

/** V7: a settled volume passing through an attach or detach (the attachment slice's statuses) is still converged. */
export const THROUGH_ATTACHMENT = { guard: 'observedAttachmentTransition', target: to('available'), actions: ['notePass', 'adopt', outcome('attachmentInProgress')] } as const;

/** Entering deletion from a live state, decided on this same pass (V11, V3, V12). */
export const DELETION = [
  confirm({ guard: 'deletionWithoutProjectNothingRecorded', target: to('deleted'), actions: ['notePass', 'forget'] }, 'nothingToDelete'), // V11
  confirm({ guard: 'deletionWithoutProject', target: to('deleted'), actions: ['notePass', 'forget', 'noteDeletedWithoutProject'] }, 'deletedWithoutProject'), // V11
  { guard: 'deletionNotObserved', actions: ['notePass', outcome('notObserved')] },
  { guard: 'deletionObservedDuplicate', target: to('inconsistent'), actions: ['notePass', 'recordDuplicates', outcome('duplicateVolumes')] }, // V3
  { guard: 'deletionAbsentCreateMayStillLand', target: to('deleting.waiting'), actions: ['notePass', 'waitForCreate', outcome('awaitingCreate')] }, // V12/V6
  confirm({ guard: 'deletionAbsent', target: to('deleted'), actions: ['notePass', 'forget'] }, 'nothingToDelete'), // V12: missing is success
  { guard: 'deletionAttached', target: to('deleting.waiting'), actions: ['notePass', 'adopt', 'waitForDetach', outcome('waitingForDetach')] }, // V12
  { guard: 'deletionErrorNotDeletable', target: to('errored'), actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8: Cinder would refuse
  arm({ guard: 'deletionRequested', target: to('deleting.armed'), actions: ['notePass', 'adopt'] }), // V12: write-ahead (W1)
] as const;

/** V3: two or more exact matches park, whatever else the pass says. */
export const DUPLICATE = { guard: 'observedDuplicate', target: to('inconsistent'), actions: ['notePass', 'recordDuplicates', outcome('duplicateVolumes')] } as const;

/** A live pass outside deletion that decides nothing about the volume (V11, V3). */
export const LIVE = [
  { guard: 'identityUnrealized', actions: ['notePass', 'waitForIdentity', outcome('waitingForIdentity')] }, // V11
  { guard: 'notObserved', actions: ['notePass', outcome('notObserved')] },
  DUPLICATE,
] as const;

/** A settled or pending volume that is no longer found: forgotten; the next pass decides (V5). */
export const VANISHED = { guard: 'observedAbsent', target: to('absent'), actions: ['notePass', 'forget', outcome('vanished')] } as const;

/**
 * The deletion was withdrawn before anything was sent: back to a create that may still land (V6), or to
 * nothing known, and the next pass rediscovers.
 */
export const WITHDRAWN = [
  withdraw({ guard: 'deletionWithdrawnCreateOutstanding', target: to('creating'), actions: ['notePass'] }),
  withdraw({ guard: 'deletionWithdrawn', target: to('absent'), actions: ['notePass', 'forget'] }),
] as const;
