/**
 * The plan of the Volume kind: its lifecycle (machines/volume-lifecycle.ts, V2–V12, with the write-ahead delete's
 * W4 from machines/write-ahead-delete.ts), and the volume attachments (machines/volume-attachment.ts, A1–A8, D1–D9,
 * P1–P4, M1), which the Server's pass decides (src/controllers/server/volume-attachments.ts): their rows live here
 * with the volumes'.
 *
 * The volume machine is not built by the lifecycle factory (machines/lifecycle.ts), so the shared L-rows
 * (./lifecycle.ts) are not its labels: its decisions carry the V-labels its own source gives them. Its metadata
 * (machines/volume-metadata.ts, M1–M3) is a pure function the create decision computes, not a machine: it takes no
 * decision of its own (the metadata it decides is in the create's parameters).
 *
 * A label is the one the source's comment gives the transition, or, for a transition whose line carries none, the
 * one the comment of the state it is taken in gives (`// V12: armed for …` over `armed: {`); a transition with
 * neither is `unlabelled`, with why. test/plan/volume-plan.test.ts holds each row to its source; test/plan/rules.test.ts
 * checks every decision of both machines' explored graphs has a row or a reason.
 */
import { r, type RuleRow } from './rule-row.js';
import type { PlanCoverage } from './coverage.js';

/** The pass asked for the deletion (the stimulus's `deletionRequested`). */
const deletionRequested = (data: Record<string, unknown>): boolean => data.deletionRequested === true;
/** The pass found the identity without a project (V11: proof that no volume exists). */
const identityUnrealized = (data: Record<string, unknown>): boolean => (data.identity as { kind?: string } | undefined)?.kind === 'unrealized';
/** The pass's lookup found no volume of the exact name (as opposed to another volume under it). */
const observedAbsent = (data: Record<string, unknown>): boolean => (data.observed as { kind?: string } | undefined)?.kind === 'absent';
/** Which stimulus took the transition: a reconciler's attach pass (as opposed to a detach pass or an effect's result). */
const attachPass = (data: Record<string, unknown>): boolean => data.type === 'attach';

/** machines/volume-lifecycle.ts (V2–V12) and machines/volume-lifecycle/transitions.ts; its delete: W4. */
export const VOLUME_LIFECYCLE_RULES: readonly RuleRow[] = [
  { outcome: 'adopted', rule: r('V2', 'adopt: the exact name is found, settled') },
  { outcome: 'adoptedPending', rule: r('V2', 'adopt: the exact name is found, not settled yet') },
  { outcome: 'duplicateVolumes', rule: r('V3', 'park: two or more volumes carry the exact name') },
  { outcome: 'duplicatesResolved', rule: r('V3', 'unpark: a fresh lookup finds at most one') },
  { outcome: 'volumeClassNotExported', rule: r('V4', 'record InvalidSpec: the class is not exported by the Region (no Cinder call)') },
  { outcome: 'createSubmitted', rule: r('V5', 'create: nothing of that name exists') },
  { outcome: 'vanished', when: observedAbsent, rule: r('V5', 'forget the vanished volume: the next pass decides') },
  { outcome: 'awaitingCreate', when: deletionRequested, rule: r('V12', 'wait: an absence is no proof while a create may still land') },
  { outcome: 'awaitingCreate', from: ['creating'], rule: r('V6', 'wait: an unanswered create may still land') },
  { outcome: 'createResubmitted', rule: r('V6', 'create again: the create never landed and its window passed') },
  { outcome: 'createExhausted', rule: r('V6', 'fail: the create attempts are spent') },
  { outcome: 'createFailed', rule: r('V6', 'parked: failed for this generation') },
  { outcome: 'createAccepted', rule: r('V7', "Cinder accepted the create: partial progress") },
  { outcome: 'createRejected', rule: r('V6', 'Cinder refused the create: parked until a new generation') },
  { outcome: 'createOutcomeUnknown', rule: r('V6', "the create's answer never came: sent again only after the window") },
  { outcome: 'available', rule: r('V7', 'converged: Cinder reports the volume available') },
  { outcome: 'createInProgress', rule: r('V7', 'wait: the volume exists, not available yet') },
  { outcome: 'pending', rule: r('V7', 'wait: not available yet') },
  { outcome: 'present', rule: r('V7', 'converged: available (or in-use)') },
  { outcome: 'settling', rule: r('V7', 'wait: a status that is not settled') },
  { outcome: 'recovered', rule: r('V7', 'recovered: the status is no longer an error') },
  { outcome: 'attachmentInProgress', rule: r('V7', 'converged: a settled volume passing through an attach or detach') },
  { outcome: 'errored', rule: r('V8', 'park Errored: a status beginning with error') },
  { outcome: 'extendSubmitted', rule: r('V10', 'grow: one Cinder extend to spec.size') },
  { outcome: 'extendResubmitted', rule: r('V10', 'extend again: below the spec after the window') },
  { outcome: 'extendInProgress', rule: r('V10', 'wait: Cinder reports extending') },
  { outcome: 'extendPending', rule: r('V10', "wait: the extend's answer may still come") },
  { outcome: 'extended', rule: r('V10', 'extended: settled at the size asked for') },
  { outcome: 'waitingForIdentity', rule: r('V11', 'wait: the identity has no project yet') },
  { outcome: 'deletedWithoutProject', rule: r('V11', 'deleted: an identity without a project proves no volume exists') },
  { outcome: 'nothingToDelete', when: identityUnrealized, rule: r('V11', 'deleted: no project, nothing recorded') },
  { outcome: 'nothingToDelete', rule: r('V12', 'deleted: nothing to delete (missing is success)') },
  { outcome: 'deleteArmed', rule: r('V12', 'arm the delete (write-ahead, nothing deleted yet)') },
  { outcome: 'deleteSubmitted', rule: r('V12', 'delete: the armed deletion read back, the volume seen') },
  { outcome: 'deleteInProgress', rule: r('V12', 'wait: the delete is not confirmed by absence yet') },
  { outcome: 'deleted', rule: r('V12', 'deleted: the volume is gone') },
  { outcome: 'waitingForDetach', rule: r('V12', 'wait: the volume is still attached (nothing deleted)') },
  { outcome: 'deleteWaitsForStatus', rule: r('V12', 'wait: a status Cinder would refuse to delete in') },
  { outcome: 'deleteResubmitted', rule: r('W4', 'delete again: the same volume seen after the backoff') },
];

/** machines/volume-attachment.ts: A1–A8 attach, D1–D9 detach, P1–P4 never resent blindly, M1 the monitor. */
export const VOLUME_ATTACHMENT_RULES: readonly RuleRow[] = [
  { outcome: 'identityNotRealized', rule: r('A1', 'notFound: the identity was never realized') },
  { outcome: 'serverNotFound', rule: r('A1', 'notFound: the server is missing') },
  { outcome: 'volumeNotFound', rule: r('A1', 'notFound: the volume is missing') },
  { outcome: 'attached', rule: r('A2', 'attached: Cinder shows it on this server') },
  { outcome: 'attachedElsewhere', rule: r('A3', 'conflict: attached to another server') },
  { outcome: 'attachRequested', rule: r('A4', 'attach: no attachment at all, a Nova create') },
  { outcome: 'attachConflict', rule: r('A5', 'Nova answered 409: one attachment read') },
  { outcome: 'readBackAttached', rule: r('A6', 'the read after the 409 finds ours: attached') },
  { outcome: 'conflictUnresolved', when: attachPass, rule: r('P4', 'conflict: the read never answered and Cinder shows no attachment') },
  { outcome: 'conflictUnresolved', rule: r('A6', 'conflict: the read after the 409 does not find ours') },
  { outcome: 'attachAccepted', rule: r('A7', 'Nova accepted the attach: attached') },
  { outcome: 'attachNotFound', rule: r('A8', 'Nova answered 404: notFound') },
  { outcome: 'attachRejected', rule: r('A8', 'Nova refused the attach: failed') },
  { outcome: 'identityNeverRealized', rule: r('D1', 'detached: the identity was never realized') },
  { outcome: 'detached', rule: r('D2', 'detached: no attachment to this server') },
  { outcome: 'detachArmed', rule: r('D3', 'arm the detach (write-ahead, no Nova call)') },
  { outcome: 'detachRequested', rule: r('D4', 'detach: the arm read back, Cinder still shows it on this server') },
  { outcome: 'detachAccepted', rule: r('D5', 'Nova accepted the detach: waits for Cinder') },
  { outcome: 'detachNotFound', rule: r('D5', 'Nova answered 404: detached') },
  { outcome: 'detachConflict', rule: r('D6', 'Nova answered 409: conflict') },
  { outcome: 'detachRejected', rule: r('D7', 'Nova refused the detach: failed') },
  { outcome: 'detachOutcomeUnknown', rule: r('D7', "the detach's answer never came: still requested") },
  { outcome: 'detachResubmitted', rule: r('D8', 'detach again: still shown past the window') },
  { outcome: 'detachInProgress', when: attachPass, rule: r('D9', 'wait: wanted again, but the detach may still be in flight') },
  { outcome: 'detachInProgress', rule: r('D8', 'wait: still shown within the window') },
  { outcome: 'attachPending', rule: r('P1', 'wait: a pending attach is not decided again') },
  { outcome: 'attachNotLanded', rule: r('P2', 'detached: the unanswered attach did not land within the window') },
  { outcome: 'attachOutcomeUnknown', rule: r('P2', "the attach's answer never came: settled by the next observation") },
  { outcome: 'attachSettling', rule: r('P3', 'wait: an observation older than the accepted attach') },
  { outcome: 'deviceObserved', rule: r('M1', 'the monitor refreshes the device of an attached volume') },
];

export const VOLUME: PlanCoverage = {
  kinds: ['Volume'],
  rules: { volumeLifecycle: VOLUME_LIFECYCLE_RULES, volumeAttachment: VOLUME_ATTACHMENT_RULES },
  waits: {
    volumeLifecycle: {
      createSubmitted: 'after Cinder accepts the create: waits for the volume to become available',
      createResubmitted: 'after Cinder accepts the create: waits for the volume to become available',
      extendSubmitted: 'after Cinder accepts the extend: waits for the volume to be available at the new size',
      extendResubmitted: 'after Cinder accepts the extend: waits for the volume to be available at the new size',
      deleteArmed: 'the next pass reads the arm back and deletes the volume it observes then, if nothing is attached',
      deleteSubmitted: 'after Cinder accepts the delete: waits for the volume to be gone',
      deleteResubmitted: 'after Cinder accepts the delete: waits for the volume to be gone',
      deleteInProgress: 'waits for the volume to be gone (sent again after the backoff if it stays)',
      waitingForDetach: "waits for the servers to detach the volume (their Server passes detach it); nothing is deleted meanwhile",
      deleteWaitsForStatus: 'waits for a status Cinder deletes in',
      waitingForIdentity: "waits for the Identity's project",
      awaitingCreate: 'waits for the unanswered create to land, or for its window to pass',
      createInProgress: 'waits for Cinder to report the volume available',
      adoptedPending: 'waits for Cinder to report the volume available',
      pending: 'waits for Cinder to report the volume available',
      settling: 'waits for Cinder to report the volume available',
      extendInProgress: 'waits for the extend to finish',
      extendPending: "waits for the extend's answer, or for its window to pass",
      volumeClassNotExported: 'waits for a spec whose class the Region exports (nothing is created)',
      createExhausted: 'waits for a new spec generation',
      createFailed: 'waits for a new spec generation',
      errored: "waits for an operator to reset the volume's status, or for a deletion",
      duplicateVolumes: 'waits for an operator to remove all but one of the volumes of this name',
      specRejected: 'waits for a valid spec',
    },
    volumeAttachment: {
      attachRequested: "after Nova accepts the attach: waits for Cinder's attachment to show it",
      detachArmed: 'the next pass reads the arm back and asks Nova to detach, if Cinder still shows the volume on this server',
      detachRequested: "after Nova accepts the detach: waits for Cinder's attachment to be gone",
      detachResubmitted: "after Nova accepts the detach: waits for Cinder's attachment to be gone",
      detachInProgress: "waits for Cinder's attachment to be gone",
      attachPending: "waits for the attach's answer, or for Cinder to show the attachment",
      attachSettling: "waits for Cinder's attachment to show the accepted attach",
      attachedElsewhere: 'waits for the volume to be detached from the other server',
      identityNotRealized: "waits for the Identity's project",
      serverNotFound: 'waits for the server to exist',
      volumeNotFound: 'waits for the volume to exist',
    },
  },
  unlabelled: {
    volumeLifecycle: {
      'volumeLifecycle.notObserved': 'a pass that brought no lookup: nothing decided (no label in the source)',
      'volumeLifecycle.vanished': 'while extending, the name finds another volume: the extended one is forgotten (no label in the source)',
      'volumeLifecycle.deletionWithdrawn': 'the deletion withdrawn before anything was sent (no label in the source)',
      'volumeLifecycle.extendAccepted': "the extend's answer (an effect result, no label in the source)",
      'volumeLifecycle.extendRejected': "the extend's refusal (an effect result, no label in the source)",
      'volumeLifecycle.deleteAccepted': "the delete's answer (an effect result, W5's ledger)",
      'volumeLifecycle.deleteRejected': "the delete's refusal (an effect result, W5's ledger)",
      'volumeLifecycle.specRejected': 'a spec that does not decode, recorded',
    },
  },
};
