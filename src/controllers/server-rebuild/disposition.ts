/**
 * What each server-rebuild outcome means for the pass that produced it. The machine decides; this
 * table says when to come back. Intervals: the spec's 10 s re-check before first boot; 1 s after a
 * write the next pass must read back (arm, clear, park stamp); 10 s for other waits; an unanswered
 * submission comes back when its evidence window ends.
 */
import { done, park, yieldFor, type Disposition } from '../disposition.js';
import { PARKED_MESSAGE } from '../../../projections/server-status.js';
import { UNKNOWN_OUTCOME_WINDOW_MS, type OutstandingSubmission } from '../../../machines/server-rebuild.js';

export const READ_BACK_MS = 1_000;
export const RECHECK_MS = 10_000;
/** An outcome no evidence can settle is re-checked slowly: only a new image (or a replacement) ends it. */
export const UNRESOLVABLE_RECHECK_MS = 60_000;

export class RebuildRejected extends Error {
  override readonly name = 'RebuildRejected';
}

/** Time left until an outstanding submission's evidence window ends (at least the read-back interval). */
export const untilWindowEnds = (outstanding: OutstandingSubmission | null | undefined, now: Date | undefined): number => {
  const start = outstanding ? Date.parse(outstanding.decidedAt ?? outstanding.waitingSince ?? '') : NaN;
  if (!now || Number.isNaN(start)) return RECHECK_MS;
  return Math.min(UNKNOWN_OUTCOME_WINDOW_MS, Math.max(READ_BACK_MS, start + UNKNOWN_OUTCOME_WINDOW_MS - now.getTime() + 100));
};

export const dispositionFor = (
  outcome: string | undefined,
  detail: { targetImageID?: string | undefined; outstanding?: OutstandingSubmission | null; now?: Date } = {},
): Disposition => {
  switch (outcome) {
    case 'deferred':
      return yieldFor(RECHECK_MS, 'image change waits for first boot (launched_at is zero)');
    case 'armed':
    case 'rearmed':
      return yieldFor(READ_BACK_MS, 'rebuild intent armed; the next pass reads it back before submitting');
    case 'refUnreadable':
      return yieldFor(RECHECK_MS, "Nova's image ref is missing or unparseable; convergence cannot be checked");
    case 'foreignTaskBusy':
      return yieldFor(RECHECK_MS, 'another task holds the server');
    case 'conflict':
      return yieldFor(RECHECK_MS, 'Nova answered 409 to the rebuild; the marker stays Initiated');
    case 'outcomeUnknown':
    case 'awaitingEvidence':
      return yieldFor(untilWindowEnds(detail.outstanding, detail.now), "Nova's answer to the rebuild never came; waiting for evidence before deciding again");
    case 'outcomeUnresolvable':
      return yieldFor(UNRESOLVABLE_RECHECK_MS, 'no evidence can show whether Nova accepted the rebuild; a new image or a replacement ends it');
    case 'staleSubmissionSettled':
      return yieldFor(READ_BACK_MS, 'the unanswered submission for a superseded image is settled; the next pass proceeds');
    case 'waiting':
    case 'terminalUnsettled':
      return yieldFor(RECHECK_MS, 'waiting for the server to settle');
    case 'cleared':
      return yieldFor(READ_BACK_MS, 'rebuild settled; the next pass confirms the clear');
    case 'failureStamped':
      return yieldFor(READ_BACK_MS, 'rebuild failure stamped; the next pass reads it back and parks');
    case 'parked':
      return park('RebuildFailed', `${PARKED_MESSAGE}${detail.targetImageID ? ` (image ${detail.targetImageID})` : ''}`);
    case 'rejected':
      return { kind: 'fail', error: new RebuildRejected('Nova refused the rebuild request; see the operator log') };
    case 'accepted':
    case 'acceptanceRecorded':
    case 'rebuildInProgress':
      return done('rebuild accepted; the monitor wakes the settlement pass');
    case 'inSync':
      return done('server runs the desired image');
    default:
      return done(`no decision (${outcome ?? 'unhandled'})`);
  }
};
