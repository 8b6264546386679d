/**
 * The rule that authorizes a decision (R3, L2, …), for the plan to print next to it.
 *
 * Machines label their transitions with rule ids in source comments (machines/server-rebuild.ts: `// R3`; the
 * lifecycle factory: `// L2`), not in data: nothing stored or exposed carries them. A stored event does carry what
 * identifies the transition — its machine, the state it was decided in (`metadata.from`) and its outcome (the event
 * type's suffix) — so this table maps those to the label the source gives that transition. Nothing stored changes.
 *
 * test/plan/rules.test.ts keeps the table honest: every decision each tabled machine's audit graph can take (its
 * whole explored alphabet, `regent check`'s) has a row, and every label is the one the source comment gives the
 * transition with that outcome. A decision of a machine not tabled here (yet) gets no rule; the plan says so.
 */
import type { RecordedEvent, StateValue } from '../events/envelope.js';
import { formatState } from '../events/state-text.js';

export interface Rule {
  /** The label the machine's source gives the transition, e.g. `R3`. */
  id: string;
  /** What it decides, in a few words. */
  says: string;
}

export interface RuleRow {
  outcome: string;
  /** The states the decision is taken in (formatState's text); absent: any. */
  from?: readonly string[];
  /** For two transitions with one outcome in one state: which one the stimulus took. */
  when?: (data: Record<string, unknown>) => boolean;
  rule: Rule;
}

const r = (id: string, says: string): Rule => ({ id, says });

/** The monitor's facts carry an unreadable image ref (M5 rather than M1). */
const refUnreadableIn = (data: Record<string, unknown>): boolean => (data.server as { imageRef?: { kind?: string } } | undefined)?.imageRef?.kind !== 'image';

/** machines/server-rebuild.ts: R0–R12, M1–M5, E1–E4, U1–U4. */
const SERVER_REBUILD: readonly RuleRow[] = [
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

/** machines/lifecycle.ts (L1–L10) and the write-ahead delete it uses (machines/write-ahead-delete.ts, W1–W5). */
const LIFECYCLE: readonly RuleRow[] = [
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

/** Per machine id, its labelled transitions (read by test/plan/rules.test.ts against the machines' sources). */
export const RULE_TABLES: Readonly<Record<string, readonly RuleRow[]>> = {
  serverRebuild: SERVER_REBUILD,
  serverLifecycle: LIFECYCLE,
};

/** The machines whose decisions this table labels. */
export const RULED_MACHINES: readonly string[] = Object.keys(RULE_TABLES);

export const stateText = (value: StateValue | null | undefined): string => formatState(value);

/** The rule of a stored (or forked) decision; undefined when its machine or transition is not labelled. */
export const ruleOf = (event: Pick<RecordedEvent, 'type' | 'data' | 'metadata'>): Rule | undefined => {
  const machine = event.metadata.machine;
  const rows = RULE_TABLES[machine];
  if (!rows) return undefined;
  const outcome = event.type.startsWith(`${machine}.`) ? event.type.slice(machine.length + 1) : event.type;
  const from = stateText(event.metadata.from);
  const data = event.data as Record<string, unknown>;
  return rows.find((row) => row.outcome === outcome && (row.from === undefined || row.from.includes(from)) && (row.when === undefined || row.when(data)))?.rule;
};
