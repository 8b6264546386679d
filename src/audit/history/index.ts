/**
 * One pass over a stream that says, for every stored event, which statechart edge it fired; per edge
 * how often, when first and last, and from which sources; which states were visited; and, for every
 * destructive effect, the chain of events that authorised it (chain.ts).
 *
 * Matching is exact while the machine reproduces the history: the stored stimulus is re-fed to the
 * snapshot folded so far and XState's own choice (`machine.getTransitionData`) names the transition
 * by identity. If the recomputed state ever differs from the recorded `to` (the history was made by
 * another machine version), the fold is no longer trusted: that event and every later one are matched
 * by the recorded from → to and the stimulus type only, which can be ambiguous (several guarded
 * transitions of one event between the same states); such events list every candidate edge.
 *
 * The pass reads the stream page by page and can resume from where it stopped (`extend`), so a
 * 100,000-event history is folded once and then only its new events.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { Effect, RecordedEvent, Source, StateValue } from '../../events/envelope.js';
import type { EventStore } from '../../store/port.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import { upcasters as shippedUpcasters } from '../../../migrations/index.js';
import type { Upcaster } from '../../../migrations/upcaster.js';
import { initialSnapshot, sameJson, step } from '../../engine/fold.js';
import { storedStimulus } from '../../engine/load.js';
import { QuarantinedEvent } from '../../engine/errors.js';
import { streamEvents } from '../../engine/pages.js';
import { activeNodeIds, statechartOfDefinition, transitionIndex, type ChartEdge, type Statechart } from '../graph/statechart.js';
import type { EdgeStats } from '../graph/dot.js';
import { auditOf } from '../profile.js';

/** How an event was tied to an edge: `exact` (XState's choice), or from the recorded states only. */
export type MatchKind = 'exact' | 'by-state' | 'ambiguous' | 'unmatched';

export interface EventMatch {
  kind: MatchKind;
  /** The fired edge(s); for `ambiguous`, every candidate. */
  edges: readonly string[];
}

/** Who armed the intent a destructive decision stood on, and what the decision read back. */
export interface AuthorizationChain {
  effect: Effect;
  /** Revision of the event that declared the effect (the decision). */
  decision: number;
  /** Revision of the event that recorded the intent (the arm), when one was found. */
  arm: number | undefined;
  armSource: Source | undefined;
  /** The durable state the decision was taken on: the stream head before it (revision decision − 1). */
  readBack: { revision: number; state: StateValue | null; intent: { target: string; state: string } | null };
  /** Events between the arm and the decision (earlier attempts, observations). */
  between: number;
  /** Revisions of events caused by the decision (effect results: causationId = decision id). */
  results: number[];
  /** `intent`: from the machine's marker (audit.intentOf); `entered-state`: from recorded states only. */
  method: 'intent' | 'entered-state';
  problems: string[];
  /** The machine's account of the evidence the decision was taken on (audit.evidenceOf), when it gives one. */
  evidence?: string;
  /** Revision of the event that cleared the intent after the decision (the settle), once it did. */
  settled?: number;
}

export interface HistoryIndex {
  stream: string;
  definition: MachineDefinition;
  chart: Statechart;
  /** Last revision indexed; -1 when the stream is empty. */
  head: number;
  /** By revision. */
  matches: EventMatch[];
  stats: Map<string, EdgeStats>;
  /** State node ids any event entered (and the initial state). */
  visited: Set<string>;
  /** First event the machine does not reproduce (state, effects, or ignored); later matches are by recorded state only. */
  divergence: { revision: number; reason: 'state' | 'effects' | 'ignored'; expected: StateValue; actual: StateValue; expectedEffects: Effect[]; actualEffects: Effect[] } | undefined;
  quarantined: string | undefined;
  chains: AuthorizationChain[];
  /** Resume state (internal). */
  cursor: IndexCursor;
}

interface IndexCursor {
  snapshot: AnyMachineSnapshot;
  trusted: boolean;
  intentArm: { revision: number; source: Source; target: string } | undefined;
  enteredBy: Map<string, { revision: number; source: Source }>;
  pending: Map<string, number>;
  flyweights: Map<string, EventMatch>;
}

export interface IndexOptions {
  definition: MachineDefinition;
  upcasters?: readonly Upcaster[];
}

export const emptyIndex = (stream: string, definition: MachineDefinition): HistoryIndex => {
  const chart = statechartOfDefinition(definition);
  const snapshot = initialSnapshot(definition, stream);
  return {
    stream,
    definition,
    chart,
    head: -1,
    matches: [],
    stats: new Map(),
    visited: new Set(activeNodeIds(chart, snapshot.value)),
    divergence: undefined,
    quarantined: undefined,
    chains: [],
    cursor: { snapshot, trusted: true, intentArm: undefined, enteredBy: new Map(), pending: new Map(), flyweights: new Map() },
  };
};

/** Builds the index of a whole stream. */
export const buildHistoryIndex = async (store: EventStore, stream: string, options: IndexOptions): Promise<HistoryIndex> =>
  extendHistoryIndex(store, emptyIndex(stream, options.definition), options.upcasters);

/** Indexes the events appended since `index.head` (in place) and returns the index. */
export const extendHistoryIndex = async (store: EventStore, index: HistoryIndex, upcasters: readonly Upcaster[] = shippedUpcasters): Promise<HistoryIndex> => {
  if (index.quarantined) return index;
  const byTransition = transitionIndex(index.definition.machine);
  const edges = new Map(index.chart.edges.map((e) => [e.id, e]));
  for await (const event of streamEvents(store, index.stream, index.head + 1)) {
    indexEvent(index, event, byTransition, edges, upcasters);
    if (index.quarantined) break;
  }
  return index;
};

const intern = (cursor: IndexCursor, kind: MatchKind, edges: string[]): EventMatch => {
  const key = `${kind}|${edges.join(',')}`;
  let match = cursor.flyweights.get(key);
  if (!match) cursor.flyweights.set(key, (match = { kind, edges }));
  return match;
};

/** Candidate edges from the recorded from → to and stimulus type alone. */
export const edgesByState = (chart: Statechart, event: RecordedEvent): ChartEdge[] => {
  const type = typeof event.data.type === 'string' ? event.data.type : '';
  const from = event.metadata.from === null ? [chart.nodes.find((n) => n.id === chart.root)?.initial ?? chart.root] : activeNodeIds(chart, event.metadata.from);
  const to = new Set(activeNodeIds(chart, event.metadata.to));
  return chart.edges.filter(
    (edge) =>
      edge.event === type &&
      from.includes(edge.source) &&
      (edge.targets.length === 0 ? sameJson(event.metadata.from, event.metadata.to) : edge.targets.every((t) => to.has(t))),
  );
};

const indexEvent = (
  index: HistoryIndex,
  event: RecordedEvent,
  byTransition: Map<unknown, string>,
  edges: Map<string, ChartEdge>,
  upcasters: readonly Upcaster[],
): void => {
  const { cursor, definition, chart } = index;
  const audit = auditOf(definition);
  const previous = cursor.snapshot;
  let match: EventMatch | undefined;
  let next: AnyMachineSnapshot | undefined;
  if (cursor.trusted) {
    try {
      const stimulus = storedStimulus(definition, upcasters, event);
      const taken = (definition.machine as unknown as { getTransitionData: (s: AnyMachineSnapshot, e: unknown) => unknown[] }).getTransitionData(previous, stimulus);
      const result = step(definition, previous, stimulus);
      next = result.snapshot;
      // The same judgement as verifyStream: a different state, different effects, or now ignored.
      const reason = event.metadata.from !== null && !sameJson(event.metadata.from, previous.value)
        ? 'state'
        : !result.changed && result.effects.length === 0
          ? 'ignored'
          : !sameJson(next.value, event.metadata.to)
            ? 'state'
            : !sameJson(result.effects, event.metadata.effects)
              ? 'effects'
              : undefined;
      if (!reason) {
        match = intern(cursor, 'exact', taken.map((t) => byTransition.get(t)).filter((id): id is string => id !== undefined));
      } else {
        cursor.trusted = false;
        index.divergence = { revision: event.revision, reason, expected: event.metadata.to, actual: next.value as StateValue, expectedEffects: event.metadata.effects, actualEffects: result.effects };
        next = undefined;
      }
    } catch (error) {
      if (!(error instanceof QuarantinedEvent)) throw error;
      index.quarantined = error.message;
      return;
    }
  }
  if (!match) {
    const candidates = edgesByState(chart, event).map((e) => e.id);
    match = intern(cursor, candidates.length === 1 ? 'by-state' : candidates.length === 0 ? 'unmatched' : 'ambiguous', candidates);
  }
  index.matches[event.revision] = match;
  index.head = event.revision;
  for (const id of activeNodeIds(chart, event.metadata.to)) index.visited.add(id);
  if (match.kind === 'exact' || match.kind === 'by-state') {
    for (const id of match.edges) {
      if (!edges.has(id)) continue;
      const at = { revision: event.revision, at: event.metadata.recordedAt };
      const stats = index.stats.get(id) ?? { edge: id, count: 0, first: at, last: at, sources: {} };
      stats.count++;
      stats.last = at;
      stats.sources[event.metadata.source] = (stats.sources[event.metadata.source] ?? 0) + 1;
      index.stats.set(id, stats);
    }
  }

  // Authorization: results caused by an earlier destructive decision.
  const causedBy = event.metadata.causationId === null ? undefined : cursor.pending.get(event.metadata.causationId);
  if (causedBy !== undefined) index.chains[causedBy]?.results.push(event.revision);

  const useIntent = Boolean(audit?.intentOf) && next !== undefined;
  const intentBefore = useIntent ? (audit?.intentOf?.(previous) ?? null) : null;
  const destructive = event.metadata.effects.filter((e) => definition.destructiveEffects?.includes(e.type));
  for (const effect of destructive) {
    const arm = useIntent
      ? cursor.intentArm && intentBefore && cursor.intentArm.target === intentBefore.target
        ? cursor.intentArm
        : undefined
      : event.metadata.from === null
        ? undefined
        : cursor.enteredBy.get(JSON.stringify(event.metadata.from));
    const problems: string[] = [];
    if (event.metadata.source !== 'reconciler') problems.push(`the decision came from ${event.metadata.source}, not the reconciler`);
    if (!arm) problems.push(useIntent ? 'no intent (marker) was recorded before the decision' : 'no earlier event entered the state the decision was taken in');
    else if (arm.source !== 'reconciler') problems.push(`the intent was recorded by ${arm.source}, not the reconciler`);
    if (useIntent && !intentBefore) problems.push('the state read back before the decision holds no intent');
    cursor.pending.set(event.id, index.chains.length);
    const evidence = useIntent ? audit?.evidenceOf?.(previous, event.data as never) : undefined;
    index.chains.push({
      ...(evidence ? { evidence } : {}),
      effect,
      decision: event.revision,
      arm: arm?.revision,
      armSource: arm?.source,
      readBack: { revision: event.revision - 1, state: event.metadata.from, intent: intentBefore },
      between: arm ? event.revision - arm.revision - 1 : 0,
      results: [],
      method: useIntent ? 'intent' : 'entered-state',
      problems,
    });
  }

  if (next) {
    const intentAfter = audit?.intentOf?.(next) ?? null;
    if (intentAfter && (!intentBefore || intentBefore.target !== intentAfter.target || !cursor.intentArm)) {
      cursor.intentArm = { revision: event.revision, source: event.metadata.source, target: intentAfter.target };
    } else if (!intentAfter) {
      cursor.intentArm = undefined;
      // the intent is gone: every decision taken on it is settled here (newest first, up to one already settled)
      if (intentBefore) {
        for (let i = index.chains.length - 1; i >= 0; i--) {
          const chain = index.chains[i] as AuthorizationChain;
          if (chain.settled !== undefined || chain.method !== 'intent' || !chain.readBack.intent) break;
          if (chain.readBack.intent.target === intentBefore.target && chain.decision < event.revision) chain.settled = event.revision;
        }
      }
    }
    cursor.snapshot = next;
  }
  if (!sameJson(event.metadata.from, event.metadata.to)) cursor.enteredBy.set(JSON.stringify(event.metadata.to), { revision: event.revision, source: event.metadata.source });
};

/** The index's edge statistics and visited states, in the shape the DOT overlay takes. */
export const overlayOf = (index: HistoryIndex) => ({ visited: index.visited, fired: index.stats });
