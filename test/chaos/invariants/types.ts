/** What every invariant reads (a run's evidence, all of it gathered after the plane stopped) and what it answers. */
import type { RecordedEvent } from '../../../src/events/envelope.js';
import type { CallRecord } from '../harness/simulator-process.js';
import type { CloudState } from '../harness/cloud-state.js';
import type { ScenarioEvidence, SettleClaim } from '../harness/scenarios/scenario.js';

export const INVARIANTS = ['one-destructive-per-decision', 'destructive-after-arm', 'no-lost-decision', 'no-duplicate-name', 'no-false-provisioned', 'replay-no-divergence', 'no-secret'] as const;
export type InvariantName = (typeof INVARIANTS)[number];

export interface Violation {
  invariant: InvariantName;
  detail: string;
}

export interface InvariantInput {
  calls: CallRecord[];
  events: RecordedEvent[];
  claims: SettleClaim[];
  logLines: string[];
  secrets: string[];
  divergences: Array<{ stream: string; detail: string }>;
  cloud: CloudState;
  stuck: Array<{ step: string; detail: string }>;
  unexpectedExits: string[];
  /** Ids of records the simulator made up on the harness's request (/_sim/duplicate). */
  madeUpIds: string[];
  /** A scenario's own ground truth, where it is not the simulator (the Nova upgrade's). */
  scenario?: ScenarioEvidence;
}

export type Invariant = (input: InvariantInput) => Violation[];

export const accepted = (call: CallRecord): boolean => call.status >= 200 && call.status < 300 && call.fault === undefined;

/** Counts items by key and lists the keys seen more than once. */
export const repeated = <T>(items: readonly T[], key: (item: T) => string | undefined): Array<[string, number]> => {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].filter(([, n]) => n > 1);
};
