/**
 * What the audit views put on their shelf (shelf.ts) and how they take it back: the overlay index at
 * its head, and the replay cursor's folded frames every 1,000 revisions. Pure conversions between the
 * in-memory forms (index.ts, ../replay/cursor.ts) and JSON text, plus the key they are kept under.
 *
 * A checkpoint is trusted only when all of these hold, else it is ignored and the stream folded again:
 *   - the key matches: checkpoint format, stream, machine id and version, and the machine's
 *     fingerprint (a hash of its config and the source of its guards and actions), so a Regent whose
 *     machine changed under the same version never reads an index folded by the old one;
 *   - the store still holds, at the checkpoint's revision, the event the checkpoint was folded up to
 *     (same id): a store that was replaced or restored from an older backup is not mistaken for this one.
 */
import { createHash } from 'node:crypto';
import { createActor, type AnyMachineSnapshot } from 'xstate';
import type { RecordedEvent } from '../../events/envelope.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import type { EdgeStats } from '../graph/dot.js';
import { statechartOfDefinition } from '../graph/statechart.js';
import type { EventMatch, HistoryIndex } from './index.js';

/** Bump when the shape below changes: older checkpoints are then ignored, never misread. */
// 2: chains record the revision that settled them (issue 30)
export const CHECKPOINT_FORMAT = 2;

const fingerprints = new WeakMap<MachineDefinition, string>();

/** A hash of what decides how the machine folds: its config and the source of its guards and actions. */
export const machineFingerprint = (definition: MachineDefinition): string => {
  const known = fingerprints.get(definition);
  if (known) return known;
  const machine = definition.machine as unknown as { config: unknown; implementations: unknown };
  const text = JSON.stringify({ config: machine.config, implementations: machine.implementations }, (_key, value: unknown) => (typeof value === 'function' ? `fn:${String(value)}` : value));
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 24);
  fingerprints.set(definition, digest);
  return digest;
};

export const checkpointKey = (what: 'index' | 'frames', stream: string, definition: MachineDefinition): string =>
  `${what}|v${CHECKPOINT_FORMAT}|${stream}|${definition.id}@${definition.version}|${machineFingerprint(definition)}`;

type Persisted = ReturnType<AnyMachineSnapshot['machine']['getPersistedSnapshot']>;

export const persistSnapshot = (definition: MachineDefinition, snapshot: AnyMachineSnapshot): Persisted =>
  (definition.machine as unknown as { getPersistedSnapshot: (s: AnyMachineSnapshot) => Persisted }).getPersistedSnapshot(snapshot);

/** A snapshot back from its persisted form (XState restores it; nothing starts). */
export const restoreSnapshot = (definition: MachineDefinition, stream: string, persisted: Persisted): AnyMachineSnapshot => {
  const input = definition.input ? definition.input(stream) : { stream };
  return createActor(definition.machine, { snapshot: persisted as never, input } as never).getSnapshot() as AnyMachineSnapshot;
};

/** The index at its head, as text; `headEventId` is the id of the event at `index.head`. */
export const serializeIndex = (index: HistoryIndex, headEventId: string): string => {
  const table: EventMatch[] = [];
  const codes = new Map<EventMatch, number>();
  const matches = index.matches.map((m) => {
    let code = codes.get(m);
    if (code === undefined) {
      code = table.push(m) - 1;
      codes.set(m, code);
    }
    return code;
  });
  const { cursor } = index;
  return JSON.stringify({
    format: CHECKPOINT_FORMAT,
    head: index.head,
    headEventId,
    table,
    matches,
    stats: [...index.stats.values()],
    visited: [...index.visited],
    divergence: index.divergence ?? null,
    quarantined: index.quarantined ?? null,
    chains: index.chains,
    cursor: {
      snapshot: persistSnapshot(index.definition, cursor.snapshot),
      trusted: cursor.trusted,
      intentArm: cursor.intentArm ?? null,
      enteredBy: [...cursor.enteredBy],
      pending: [...cursor.pending],
    },
  });
};

interface IndexText {
  format: number;
  head: number;
  headEventId: string;
  table: EventMatch[];
  matches: number[];
  stats: EdgeStats[];
  visited: string[];
  divergence: HistoryIndex['divergence'] | null;
  quarantined: string | null;
  chains: HistoryIndex['chains'];
  cursor: { snapshot: Persisted; trusted: boolean; intentArm: HistoryIndex['cursor']['intentArm'] | null; enteredBy: Array<[string, { revision: number; source: never }]>; pending: Array<[string, number]> };
}

/**
 * The index back from its text, or undefined when the text is not one this format wrote. The caller
 * checks `headEventId` against the store before trusting it.
 */
export const parseIndex = (text: string, stream: string, definition: MachineDefinition): { index: HistoryIndex; headEventId: string } | undefined => {
  let parsed: IndexText;
  try {
    parsed = JSON.parse(text) as IndexText;
  } catch {
    return undefined;
  }
  if (parsed?.format !== CHECKPOINT_FORMAT || !Array.isArray(parsed.matches) || parsed.matches.length !== parsed.head + 1 || typeof parsed.headEventId !== 'string') return undefined;
  const table = parsed.table;
  const flyweights = new Map(table.map((m) => [`${m.kind}|${m.edges.join(',')}`, m] as const));
  const matches = parsed.matches.map((code) => table[code] as EventMatch);
  if (matches.some((m) => m === undefined)) return undefined;
  const index: HistoryIndex = {
    stream,
    definition,
    chart: statechartOfDefinition(definition),
    head: parsed.head,
    matches,
    stats: new Map(parsed.stats.map((s) => [s.edge, s])),
    visited: new Set(parsed.visited),
    divergence: parsed.divergence ?? undefined,
    quarantined: parsed.quarantined ?? undefined,
    chains: parsed.chains,
    cursor: {
      snapshot: restoreSnapshot(definition, stream, parsed.cursor.snapshot),
      trusted: parsed.cursor.trusted,
      intentArm: parsed.cursor.intentArm ?? undefined,
      enteredBy: new Map(parsed.cursor.enteredBy),
      pending: new Map(parsed.cursor.pending),
      flyweights,
    },
  };
  return { index, headEventId: parsed.headEventId };
};

/** A replay frame as kept: the folded snapshot and the revisions of the events the frame names. */
export interface FrameCheckpoint {
  revision: number;
  eventId: string;
  snapshot: Persisted;
  lastObservation: number | null;
  lastDecision: number | null;
}

export const serializeFrames = (frames: readonly FrameCheckpoint[]): string => JSON.stringify({ format: CHECKPOINT_FORMAT, frames });

export const parseFrames = (text: string): FrameCheckpoint[] => {
  try {
    const parsed = JSON.parse(text) as { format?: number; frames?: FrameCheckpoint[] };
    if (parsed.format !== CHECKPOINT_FORMAT || !Array.isArray(parsed.frames)) return [];
    return parsed.frames.filter((f) => Number.isInteger(f.revision) && f.revision >= 0 && typeof f.eventId === 'string');
  } catch {
    return [];
  }
};

/** The one event at `revision`, when the store still has it. */
export const eventAt = async (store: { readStream: (s: string, o: { fromRevision: number; maxCount: number }) => Promise<RecordedEvent[]> }, stream: string, revision: number): Promise<RecordedEvent | undefined> => {
  const [event] = await store.readStream(stream, { fromRevision: revision, maxCount: 1 });
  return event?.revision === revision ? event : undefined;
};
