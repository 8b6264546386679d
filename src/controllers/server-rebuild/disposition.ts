/**
 * What each server-rebuild outcome means for the pass that produced it. The machine decides; this
 * table says when to come back. Intervals: the spec's 10 s re-check before first boot; 1 s after a
 * write the next pass must read back (arm, clear, park stamp); 10 s for other waits.
 */
import { done, park, yieldFor, type Disposition } from '../disposition.js';
import { PARKED_MESSAGE } from '../../../projections/server-status.js';

export const READ_BACK_MS = 1_000;
export const RECHECK_MS = 10_000;

export class RebuildRejected extends Error {
  override readonly name = 'RebuildRejected';
}


export const dispositionFor = (outcome: string | undefined, detail: { targetImageID?: string } = {}): Disposition => {
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
