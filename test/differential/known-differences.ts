/**
 * Differences between the real cloud's transcripts and the simulator's that are accepted, each with its
 * reason and the Regent decision it touches. Every entry has a matching section in
 * docs/simulator-differences.md (what the real cloud does, what the simulator does, which decision).
 * A difference not listed here fails the differential check; an entry that no longer differs is reported
 * so it can be removed.
 */
import type { Difference } from './transcript.js';

export interface KnownDifference {
  scenario: string;
  label: string;
  /** Why it is accepted (or why it waits for the simulator's owner). */
  reason: string;
  /** A polled sequence whose real sample varies run to run: its absence in one recording says nothing. */
  timingDependent?: true;
}

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  {
    scenario: 'server-boot',
    label: 'BUILD → ACTIVE (status, task_state, vm_state, image)',
    reason:
      'real Nova hands the build from conductor to compute with task_state null (BUILD, task null) before ' +
      'block_device_mapping; the simulator goes scheduling → block_device_mapping → networking → spawning without the gap. ' +
      'No rebuild decision depends on it (a BUILD server has launched_at null: R0 defers); see docs/simulator-differences.md #1.',
    timingDependent: true,
  },
  {
    scenario: 'never-booted',
    label: 'held boot',
    reason: 'the same BUILD sequence difference as server-boot (task_state null between scheduling and the compute steps); docs/simulator-differences.md #1.',
    timingDependent: true,
  },
  {
    scenario: 'one-task-at-a-time',
    label: 'delete: statuses until 404',
    reason:
      'a GET by id of a server being deleted can answer status DELETED (vm_state deleted) for a moment before the 404; the ' +
      'simulator goes from ACTIVE (task deleting) straight to 404. Regent observes servers through the list (lookup, monitor), ' +
      'which never shows DELETED; see docs/simulator-differences.md #3.',
    timingDependent: true,
  },
  {
    scenario: 'request-validation',
    label: 'unknown flavor',
    reason: "same 400; wording differs ('Flavor X could not be found.' vs 'Invalid flavorRef provided.'); docs/simulator-differences.md #2.",
  },
  {
    scenario: 'request-validation',
    label: 'unknown image',
    reason: "same 400; wording differs ('Can not find requested image' vs 'Image X could not be found.'); docs/simulator-differences.md #2.",
  },
  {
    scenario: 'volume-lifecycle',
    label: 'attach again to the same server',
    reason:
      'same status (400) and reason; the fault wording differs ("is already attached to instances: X" vs "already attached to ' +
      'instance X"). Regent never parses fault text; see docs/simulator-differences.md #2.',
  },
];

export const knownDifference = (d: Difference): KnownDifference | undefined =>
  KNOWN_DIFFERENCES.find((k) => k.scenario === d.scenario && k.label === d.label);
