/**
 * Replay for incident review: rebuild a stream's state as of a revision or a time, and verify that a
 * machine (the current one, or a candidate) reproduces every recorded decision.
 *
 * `verifyStream` re-feeds each stored stimulus and compares the recomputed `to` and `effects` with the
 * recorded ones; the first mismatch is reported with expected (recorded) and actual (recomputed).
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { Effect, RecordedEvent, StateValue } from '../events/envelope.js';
import type { EventStore } from '../store/port.js';
import type { MachineDefinition } from '../../machines/definition.js';
import type { MachineRegistry } from '../../machines/registry.js';
import { upcasters as shippedUpcasters } from '../../migrations/index.js';
import type { Upcaster } from '../../migrations/upcaster.js';
import { QuarantinedEvent } from './errors.js';
import { advance, initialSnapshot, sameJson, stateValueOf, step } from './fold.js';
import { readStoredPages, storedStimulus } from './load.js';

export type ReplayPoint = { revision: number } | { time: Date } | undefined;

export interface ReplayState {
  stream: string;
  definition: MachineDefinition;
  snapshot: AnyMachineSnapshot;
  /** The last event applied (undefined: the point is before the first event). */
  last: RecordedEvent | undefined;
  /** The last monitor observation applied: what the control plane knew of the cloud then. */
  lastObservation: RecordedEvent | undefined;
  /** The last reconciler or operator decision applied: what it had decided. */
  lastDecision: RecordedEvent | undefined;
  applied: number;
}

export interface ReplayOptions {
  /** Fold with this definition instead of the registry's current one (a candidate machine). */
  definition?: MachineDefinition;
  upcasters?: readonly Upcaster[];
}

/** When the event was recorded, or a quarantine when its metadata cannot say (a replay to a time needs it). */
const recordedAt = (event: RecordedEvent): number => {
  const metadata: unknown = event.metadata;
  const text = typeof metadata === 'object' && metadata !== null ? (metadata as Record<string, unknown>).recordedAt : undefined;
  const time = typeof text === 'string' ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) throw new QuarantinedEvent(event.stream, event.revision, event.id, 'metadata.recordedAt is not a time');
  return time;
};

const within = (event: RecordedEvent, at: ReplayPoint): boolean => {
  if (at === undefined) return true;
  if ('revision' in at) return event.revision <= at.revision;
  return recordedAt(event) <= at.time.getTime();
};

/**
 * Why `at` names no point of the stream's recorded history, or undefined when it names one. A
 * revision past the head, or a time before the first event, used to replay silently as the head or
 * as the empty state, so an incident review read a state the user had not asked for. (A time after
 * the head is a real point: the state then was the head's.)
 */
export const outsideHistory = async (store: EventStore, stream: string, at: ReplayPoint): Promise<string | undefined> => {
  if (at === undefined) return undefined;
  const [first] = await store.readStream(stream, { maxCount: 1 });
  const [head] = await store.readStream(stream, { direction: 'backwards', maxCount: 1 });
  if (first === undefined || head === undefined) return `stream ${stream} has no events`;
  if ('revision' in at) return at.revision > head.revision ? `stream ${stream} has revisions ${first.revision}…${head.revision}` : undefined;
  if (at.time.getTime() < Date.parse(first.metadata.recordedAt)) return `stream ${stream} starts at ${first.metadata.recordedAt} (revision ${first.revision})`;
  return undefined;
};

/** The state of `stream` after the last event at or before `at`. */
export const replayAt = async (
  store: EventStore,
  registry: MachineRegistry,
  stream: string,
  at?: ReplayPoint,
  options: ReplayOptions = {},
): Promise<ReplayState> => {
  const definition = options.definition ?? registry.forStream(stream);
  const upcasters = options.upcasters ?? shippedUpcasters;
  let snapshot = initialSnapshot(definition, stream);
  let last: RecordedEvent | undefined;
  let lastObservation: RecordedEvent | undefined;
  let lastDecision: RecordedEvent | undefined;
  let applied = 0;
  pages: for await (const page of readStoredPages(store, stream)) {
    for (const event of page) {
      if (!within(event, at)) break pages;
      snapshot = advance(definition, snapshot, storedStimulus(definition, upcasters, event));
      last = event;
      applied++;
      const source = event.metadata.source;
      if (source === 'monitor') lastObservation = event;
      else if (source === 'reconciler' || source === 'operator' || source === 'api') lastDecision = event;
    }
  }
  const state: ReplayState = { stream, definition, snapshot, last, lastObservation, lastDecision, applied };
  return state;
};

export interface Divergence {
  revision: number;
  eventId: string;
  type: string;
  reason: 'state' | 'effects' | 'ignored';
  expected: { to: StateValue; effects: Effect[] };
  actual: { to: StateValue; effects: Effect[] };
}

export interface VerifyReport {
  stream: string;
  machine: string;
  /** Version of the machine that was checked. */
  machineVersion: number;
  checked: number;
  divergence: Divergence | undefined;
  quarantined: QuarantinedEvent | undefined;
}

/** Re-decides every stored event; stops at the first divergence (later states depend on it). */
export const verifyStream = async (
  store: EventStore,
  registry: MachineRegistry,
  stream: string,
  options: ReplayOptions = {},
): Promise<VerifyReport> => {
  const definition = options.definition ?? registry.forStream(stream);
  const upcasters = options.upcasters ?? shippedUpcasters;
  const report: VerifyReport = { stream, machine: definition.id, machineVersion: definition.version, checked: 0, divergence: undefined, quarantined: undefined };
  let snapshot = initialSnapshot(definition, stream);
  const events = readStoredPages(store, stream);
  for (;;) {
    let page: RecordedEvent[] | undefined;
    try {
      page = (await events.next()).value ?? undefined;
    } catch (error) {
      if (error instanceof QuarantinedEvent) return { ...report, quarantined: error };
      throw error;
    }
    if (page === undefined) return report;
    for (const event of page) {
      const verdict = verifyEvent(definition, upcasters, snapshot, event);
      if ('quarantined' in verdict) return { ...report, quarantined: verdict.quarantined };
      report.checked++;
      if (verdict.divergence) return { ...report, divergence: verdict.divergence };
      snapshot = verdict.snapshot;
    }
  }
};

type EventVerdict = { quarantined: QuarantinedEvent } | { snapshot: AnyMachineSnapshot; divergence: Divergence | undefined };

/** Re-decides one stored event on `snapshot`: its quarantine, or the next snapshot and any divergence from the record. */
const verifyEvent = (definition: MachineDefinition, upcasters: readonly Upcaster[], snapshot: AnyMachineSnapshot, event: RecordedEvent): EventVerdict => {
  let stimulus;
  try {
    stimulus = storedStimulus(definition, upcasters, event);
  } catch (error) {
    if (error instanceof QuarantinedEvent) return { quarantined: error };
    throw error;
  }
  const result = step(definition, snapshot, stimulus);
  const expected = { to: event.metadata.to, effects: event.metadata.effects };
  const actual = { to: stateValueOf(result.snapshot), effects: result.effects };
  const reason: Divergence['reason'] | undefined = !result.changed && result.effects.length === 0
    ? 'ignored'
    : !sameJson(expected.to, actual.to)
      ? 'state'
      : !sameJson(expected.effects, actual.effects)
        ? 'effects'
        : undefined;
  return { snapshot: result.snapshot, divergence: reason ? { revision: event.revision, eventId: event.id, type: event.type, reason, expected, actual } : undefined };
};
