/**
 * The rows every lifecycle machine shares (machines/lifecycle.ts, L1–L10, and its write-ahead delete,
 * machines/write-ahead-delete.ts, W1–W5): serverLifecycle, networkLifecycle, securityGroupLifecycle and the other
 * machines the lifecycle factory builds take the same decisions under the same labels.
 */
import { r, type RuleRow } from './rule-row.js';

/** machines/lifecycle.ts (L1–L10) and the write-ahead delete it uses (machines/write-ahead-delete.ts, W1–W5). */
export const LIFECYCLE_RULES: readonly RuleRow[] = [
  { outcome: 'adopted', rule: r('L1', 'adopt: the exact name is found in the cloud') },
  { outcome: 'observedCreated', rule: r('L1', 'created: the exact name is found after the create') },
  { outcome: 'recreateSuperseded', rule: r('L1', 'adopt another of its servers found by name') },
  { outcome: 'createSubmitted', rule: r('L2', 'create: nothing of that name exists') },
  { outcome: 'createResubmitted', rule: r('L2', 'create again: the create never landed') },
  { outcome: 'createExhausted', rule: r('L2', 'fail: the create attempts are spent') },
  { outcome: 'deleteArmed', rule: r('L3', 'arm the delete (write-ahead, nothing deleted yet)') },
  { outcome: 'deleteSubmitted', rule: r('L3', 'delete: the armed deletion read back, the target seen') },
  { outcome: 'deleted', rule: r('L4', 'deleted: the cloud resource is gone') },
  { outcome: 'nothingToDelete', rule: r('L4', 'deleted: nothing to delete') },
  { outcome: 'recreateArmed', rule: r('L5', 'arm delete-and-recreate: ERROR before the first boot (write-ahead)') },
  { outcome: 'recreateDeleteSubmitted', rule: r('L5', 'delete the never-booted ERROR server (read back)') },
  { outcome: 'recreateSubmitted', rule: r('L5', 'create again after the errored server is gone') },
  { outcome: 'recreateCancelled', rule: r('L5', 'keep it: booted meanwhile') },
  { outcome: 'createRetriesExhausted', rule: r('L6', 'fail: ERROR before the first boot, retries spent') },
  { outcome: 'createFailed', rule: r('L7', 'failed: waits for a new generation') },
  { outcome: 'deleteResubmitted', rule: r('L8', 'delete again: the same target seen after the backoff') },
  { outcome: 'recreateDeleteResubmitted', rule: r('L8', 'delete again: the same target seen after the backoff') },
  { outcome: 'desiredUnresolvable', rule: r('L9', 'record: the image or flavor does not resolve to exactly one') },
  { outcome: 'deletionWithdrawn', rule: r('W2', 'withdraw: the deletion is no longer asked for') },
  { outcome: 'deleteInProgress', rule: r('W3', 'wait: the delete is not confirmed by absence yet') },
  { outcome: 'recreateDeleteInProgress', rule: r('W3', 'wait: the delete is not confirmed by absence yet') },
];
