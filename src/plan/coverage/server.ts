/**
 * The plan of a Server: its lifecycle (machines/server-lifecycle.ts), its image rebuild (machines/server-rebuild.ts)
 * (the volume attachments its pass decides, machines/volume-attachment.ts, are the volume group's: volume.ts).
 */
import { r, type RuleRow } from './rule-row.js';
import type { PlanCoverage } from './coverage.js';
import { LIFECYCLE_RULES } from './lifecycle.js';

/** The monitor's facts carry an unreadable image ref (M5 rather than M1). */
const refUnreadableIn = (data: Record<string, unknown>): boolean => (data.server as { imageRef?: { kind?: string } } | undefined)?.imageRef?.kind !== 'image';

/** machines/server-rebuild.ts: R0–R12, M1–M5, E1–E4, U1–U4. */
export const SERVER_REBUILD_RULES: readonly RuleRow[] = [
  { outcome: 'deferred', rule: r('R0', 'defer: the image change waits for the first boot') },
  { outcome: 'rearmed', rule: r('R1', 're-arm: the marker targets another image than the desired one') },
  { outcome: 'refUnreadable', from: ['noMarker'], rule: r('R2', "yield: Nova's image ref is unreadable") },
  { outcome: 'armed', rule: r('R3', "arm: the desired image differs from Nova's (write-ahead marker, nothing destroyed yet)") },
  { outcome: 'inSync', rule: r('R4', 'in sync: nothing to rebuild') },
  { outcome: 'parked', rule: r('R5', 'park: the failed rebuild is read back; user action required') },
  { outcome: 'failureStamped', rule: r('R6', 'stamp Failed: a failure attributable to this rebuild') },
  { outcome: 'refUnreadable', from: ['Initiated', 'Rebuilding', 'Succeeded'], rule: r('R7', "yield: Nova's image ref is unreadable") },
  { outcome: 'cleared', rule: r('R8', 'clear: converged on the target (ref, stable status, task_state empty)') },
  { outcome: 'acceptanceRecorded', rule: r('R9', 'record acceptance: ref on target with a task running') },
  { outcome: 'rebuildInProgress', rule: r('R9', 'in progress: ref on target with a task running') },
  { outcome: 'foreignTaskBusy', rule: r('R10', "yield: a task that is not Regent's holds the server") },
  { outcome: 'submitted', rule: r('R11', 'submit the rebuild: marker read back, server quiescent, nothing unanswered') },
  { outcome: 'waiting', rule: r('R12', 'wait: not settled yet') },
  { outcome: 'observedFailed', from: ['Initiated'], rule: r('M1', 'observed: ERROR on the target → Failed') },
  { outcome: 'observedFailed', from: ['Rebuilding'], when: (d) => !refUnreadableIn(d), rule: r('M1', 'observed: ERROR on the target → Failed') },
  { outcome: 'observedFailed', from: ['Rebuilding'], when: refUnreadableIn, rule: r('M5', 'observed: ERROR with an unreadable ref after acceptance → Failed') },
  { outcome: 'observedRebuilding', rule: r('M2', 'observed: a task running on the target → Rebuilding') },
  { outcome: 'observedSucceeded', rule: r('M3', 'observed: converged → Succeeded') },
  { outcome: 'observedSuperseded', rule: r('M4', 'observed: off target after acceptance → Failed') },
  { outcome: 'accepted', rule: r('E1', 'Nova accepted the rebuild → Rebuilding') },
  { outcome: 'conflict', rule: r('E2', 'Nova answered 409: the marker stays Initiated') },
  { outcome: 'rejected', rule: r('E3', 'Nova refused the rebuild: the marker stays Initiated') },
  { outcome: 'outcomeUnknown', rule: r('E4', "the rebuild's answer never came: an unknown outcome") },
  // E1/E4 after the monitor moved the marker on (LATE_RESULTS): recorded, no outcome named, no retreat
  { outcome: 'rebuild.accepted', rule: r('E1', 'a late acceptance recorded (no retreat, no stamp)') },
  { outcome: 'rebuild.outcomeUnknown', rule: r('E4', 'a late unknown outcome recorded') },
  { outcome: 'awaitingEvidence', from: ['Initiated'], rule: r('U1', 'wait: an unanswered submission may still land') },
  { outcome: 'resubmittedOnEvidence', rule: r('U2', "submit again: the window passed and Nova recorded no rebuild since") },
  { outcome: 'staleSubmissionSettled', rule: r('U3', "settle a superseded target's unanswered submission") },
  { outcome: 'awaitingEvidence', from: ['noMarker'], rule: r('U3', 'wait: a request for another image may still land') },
  { outcome: 'outcomeUnresolvable', rule: r('U4', 'never resubmit: no evidence can settle the unanswered submission') },
];

export const SERVER: PlanCoverage = {
  kinds: ['Server'],
  rules: { serverRebuild: SERVER_REBUILD_RULES, serverLifecycle: LIFECYCLE_RULES },
  waits: {
    serverRebuild: {
      armed: 'the next pass reads the marker back; it submits the rebuild if Nova shows the server quiescent and still on the old image',
      rearmed: 'the next pass reads the new marker back; it submits the rebuild if Nova shows the server quiescent',
      submitted: "after Nova accepts the rebuild: waits for task_state to clear",
      resubmittedOnEvidence: "after Nova accepts the rebuild: waits for task_state to clear",
      acceptanceRecorded: 'waits for task_state to clear (the monitor observes the rebuild settle)',
      rebuildInProgress: 'waits for task_state to clear (the monitor observes the rebuild settle)',
      deferred: "waits for the server's first boot (launched_at)",
      foreignTaskBusy: "waits for the task that holds the server to finish",
      refUnreadable: "waits for Nova's image ref to be readable",
      failureStamped: 'the next pass reads the failure back and parks',
      parked: 'waits for a new image or a replacement (user action)',
      awaitingEvidence: 'waits for evidence whether the unanswered rebuild took effect',
      outcomeUnresolvable: 'waits for an operator: no evidence can settle the unanswered rebuild',
      waiting: 'waits for the rebuild to settle',
      cleared: 'nothing: the server is on the desired image',
      inSync: 'nothing: the server is on the desired image',
    },
    serverLifecycle: {
      createSubmitted: 'after Nova accepts the create: waits for the server to become ACTIVE',
      createResubmitted: 'after Nova accepts the create: waits for the server to become ACTIVE',
      recreateSubmitted: 'after Nova accepts the create: waits for the server to become ACTIVE',
      deleteArmed: 'the next pass reads the deletion back and deletes the server it observes then',
      recreateArmed: 'the next pass reads the intent back and deletes the errored server if it is still in ERROR',
      deleteSubmitted: 'after Nova accepts the delete: waits for the server to be gone',
      deleteResubmitted: 'after Nova accepts the delete: waits for the server to be gone',
      recreateDeleteSubmitted: 'after Nova accepts the delete: waits for the server to be gone, then creates it again',
      desiredUnresolvable: 'looks again in 30 s; nothing else happens until the image or flavor resolves to exactly one',
      specRejected: 'waits for a valid spec',
    },
  },
  unlabelled: {
    serverRebuild: {
      'serverRebuild.observed': "the monitor's health record: it advances nothing",
      'serverRebuild.terminalUnsettled': 'a terminal marker not settled yet (no label in the source)',
    },
    serverLifecycle: {
      'serverLifecycle.present': 'the pass on a new generation recorded (notePass), nothing decided',
      'serverLifecycle.vanished': 'the server is gone without a deletion (no label in the source)',
      'serverLifecycle.created': "the create's answer (an effect result)",
      'serverLifecycle.createRejected': "the create's refusal (an effect result)",
      'serverLifecycle.deleteAccepted': "the delete's answer (an effect result, W5's ledger)",
      'serverLifecycle.deleteRejected': "the delete's refusal (an effect result, W5's ledger)",
      'serverLifecycle.specRejected': 'a spec that does not decode, recorded',
    },
  },
};
