/**
 * What the resource page and `regent viz --stream` show, computed from the store: the overlay
 * (history index + SVG), timeline pages, the state as of an event, and the authorization chains.
 *
 * `AuditViews` caches per stream (bounded), keyed by the stream head: a history is folded once and
 * then only its new events. One instance per server or command: no module-level state.
 *
 * With a shelf (shelf.ts) what was folded outlives the process: the overlay index is kept at its head
 * whenever it has grown by `SHELVE_EVERY` events, and the replay cursors keep their frames every 1,000
 * revisions, so a restarted server's first view of a 100,000-event stream reads the events after the
 * kept head and at most one interval for the state it shows (checkpoint.ts says when one is trusted).
 */
import type { RecordedEvent } from '../../events/envelope.js';
import type { EventStore } from '../../store/port.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import { UnknownMachine, type MachineRegistry } from '../../../machines/registry.js';
import { renderChartViews } from '../graph/render.js';
import { activeNodeIds, edgeLabel, nodeDomId } from '../graph/statechart.js';
import { KeyedQueue } from '../../engine/keyed-queue.js';
import { ReplayCursor, frameView } from '../replay/cursor.js';
import { resolveChain, type ResolvedChain } from './chain.js';
import { ResourceStreamIndex } from './resource-streams.js';
import { structuralDiff } from './diff.js';
import { auditOf } from '../profile.js';
import { emptyIndex, extendHistoryIndex, overlayOf, type EventMatch, type HistoryIndex } from './index.js';
import { checkpointKey, eventAt, parseIndex, serializeIndex } from './checkpoint.js';
import type { CheckpointShelf } from './shelf.js';
import { recordedSubject } from './api-streams.js';

export interface TimelineRow {
  revision: number;
  id: string;
  type: string;
  recordedAt: string;
  source: string;
  actor: string;
  from: unknown;
  to: unknown;
  effects: unknown[];
  destructive: boolean;
  correlationId: string;
  causationId: string | null;
  machineVersion: number;
  data: unknown;
  match: EventMatch;
  /** SVG ids of the state nodes the event left the machine in (the graph follows the timeline). */
  toNodes: string[];
}

export interface FiredEdge {
  edge: string;
  label: string;
  count: number;
  first: { revision: number; at: string };
  last: { revision: number; at: string };
  sources: Record<string, number>;
  destructive: boolean;
}

export interface StreamOverview {
  stream: string;
  machine: string;
  version: number;
  head: number;
  state: unknown;
  svg: string;
  fired: FiredEdge[];
  visited: string[];
  divergence: HistoryIndex['divergence'];
  quarantined: string | undefined;
  destructiveDecisions: number;
  matchKinds: Record<string, number>;
  /** The resource the stream belongs to, as its last event recorded it (metadata.subject). */
  subject?: { kind: string; namespace: string; name: string };
}

/** One stream's line in a fleet view (pages.ts FleetLine). */
export interface FleetLineView {
  stream: string;
  machine: string;
  state: unknown;
  head: number;
  last: { type: string; source: string; actor: string; recordedAt: string } | null;
  parked: boolean;
  intent: { target: string; state: string } | null;
  subject: { kind: string; namespace: string; name: string } | undefined;
}

const LIMIT = 32;
/** The overlay index is put on the shelf each time it has grown by this many events (and a stream shorter than it is never kept: it folds as fast as it reads). */
export const SHELVE_EVERY = 1000;

export class AuditViews {
  private readonly indexes = new Map<string, HistoryIndex>();
  private readonly svgs = new Map<string, { key: string; svg: string }>();
  private readonly cursors = new Map<string, ReplayCursor>();
  /** One fold per stream at a time: two requests extending one index at once would count events twice. */
  private readonly queue = new KeyedQueue();
  /** Per index key, the head last put on (or taken from) the shelf. */
  private readonly shelved = new Map<string, number>();
  /** The resources' own streams: the change each chain starts at, the resource page's spec and status. */
  readonly resources: ResourceStreamIndex;


  constructor(
    private readonly store: EventStore,
    private readonly registry: MachineRegistry,
    private readonly shelf?: CheckpointShelf,
  ) {
    this.resources = new ResourceStreamIndex(store);
  }

  /**
   * Whether a registered machine owns the stream. One that none owns (the server API's `api-server-<uid>`, a
   * machine no longer registered) has no statechart to draw or fold: the pages show it as a plain timeline.
   */
  owns(stream: string): boolean {
    try {
      this.registry.forStream(stream);
      return true;
    } catch (error) {
      if (error instanceof UnknownMachine) return false;
      throw error;
    }
  }

  /** The version a stream is drawn with: the one its last event names if registered, else the current one. */
  async definitionFor(stream: string, version?: number): Promise<MachineDefinition> {
    const owner = this.registry.forStream(stream);
    if (version !== undefined) return this.registry.get(owner.id, version);
    const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return this.registry.list().find((d) => d.id === owner.id && d.version === last?.metadata.machineVersion) ?? owner;
  }

  private remember<T>(map: Map<string, T>, key: string, value: T): T {
    map.delete(key);
    map.set(key, value);
    if (map.size > LIMIT) map.delete(map.keys().next().value as string);
    return value;
  }

  async index(stream: string, version?: number): Promise<HistoryIndex> {
    const definition = await this.definitionFor(stream, version);
    const key = `${stream}@${definition.version}`;
    return this.queue.run(key, async () => {
      const cached = this.indexes.get(key);
      const start = cached && cached.definition === definition ? cached : ((await this.fromShelf(stream, definition)) ?? emptyIndex(stream, definition));
      const index = await extendHistoryIndex(this.store, start);
      await this.toShelf(index);
      return this.remember(this.indexes, key, index);
    });
  }

  /** The index kept on the shelf, when its head event is still the store's event at that revision. */
  private async fromShelf(stream: string, definition: MachineDefinition): Promise<HistoryIndex | undefined> {
    if (!this.shelf) return undefined;
    const key = checkpointKey('index', stream, definition);
    const text = await this.shelf.read(key).catch(() => undefined);
    const kept = text === undefined ? undefined : parseIndex(text, stream, definition);
    if (!kept || (await eventAt(this.store, stream, kept.index.head))?.id !== kept.headEventId) return undefined;
    this.shelved.set(key, kept.index.head);
    return kept.index;
  }

  /** Keeps the index when it has grown by SHELVE_EVERY events since it was last kept. A failed write costs a fold later, nothing else. */
  private async toShelf(index: HistoryIndex): Promise<void> {
    if (!this.shelf) return;
    const key = checkpointKey('index', index.stream, index.definition);
    if (index.head + 1 - ((this.shelved.get(key) ?? -1) + 1) < SHELVE_EVERY) return;
    const head = await eventAt(this.store, index.stream, index.head);
    if (!head) return;
    await this.shelf.write(key, serializeIndex(index, head.id)).then(
      () => this.shelved.set(key, index.head),
      () => undefined,
    );
  }

  async overview(stream: string, version?: number): Promise<StreamOverview> {
    const index = await this.index(stream, version);
    const key = `${stream}@${index.definition.version}`;
    const svgKey = `${index.head}`;
    let svg = this.svgs.get(key);
    if (!svg || svg.key !== svgKey) svg = this.remember(this.svgs, key, { key: svgKey, svg: await renderChartViews(index.chart, overlayOf(index)) });
    const edges = new Map(index.chart.edges.map((e) => [e.id, e]));
    const fired: FiredEdge[] = [...index.stats.values()]
      .map((s) => ({ edge: s.edge, label: edges.get(s.edge) ? edgeLabel(edges.get(s.edge) as never) : s.edge, count: s.count, first: s.first, last: s.last, sources: s.sources as Record<string, number>, destructive: (edges.get(s.edge)?.destructive.length ?? 0) > 0 }))
      .sort((a, b) => a.first.revision - b.first.revision);
    const matchKinds: Record<string, number> = {};
    for (const m of index.matches) if (m) matchKinds[m.kind] = (matchKinds[m.kind] ?? 0) + 1;
    const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return {
      stream,
      machine: index.definition.id,
      version: index.definition.version,
      head: index.head,
      state: last?.metadata.to ?? null,
      svg: svg.svg,
      fired,
      visited: [...index.visited],
      divergence: index.divergence,
      quarantined: index.quarantined,
      destructiveDecisions: index.chains.length,
      matchKinds,
      ...(last?.metadata.subject ? { subject: last.metadata.subject } : {}),
    };
  }

  /** A page of the timeline: at most `limit` events from revision `from`, each with its matched edge. */
  async timeline(stream: string, from: number, limit: number, version?: number): Promise<{ head: number; from: number; rows: TimelineRow[] }> {
    const index = await this.index(stream, version);
    const events = await this.store.readStream(stream, { fromRevision: Math.max(0, from), maxCount: Math.max(1, Math.min(limit, 1000)) });
    return { head: index.head, from: Math.max(0, from), rows: events.map((e) => rowOf(e, index)) };
  }

  /** The state as of an event, what it knew and what it had decided then. */
  async stateAt(stream: string, revision: number, version?: number) {
    return frameView(await (await this.cursorFor(stream, version)).at(revision));
  }

  /** The stream's replay cursor for the version it is drawn with (cached, bounded). */
  private async cursorFor(stream: string, version?: number): Promise<ReplayCursor> {
    const definition = await this.definitionFor(stream, version);
    const key = `${stream}@${definition.version}`;
    return this.cursors.get(key) ?? this.remember(this.cursors, key, new ReplayCursor(this.store, stream, definition, undefined, undefined, this.shelf));
  }

  /**
   * One stream's line in a fleet view: its state now, its last event (the last decision and who took it),
   * whether the machine has parked, and a destructive intent it stands on (armed, not yet settled).
   */
  async fleetLine(stream: string): Promise<FleetLineView> {
    if (!this.owns(stream)) return this.plainFleetLine(stream);
    const frame = await (await this.cursorFor(stream)).at(Number.MAX_SAFE_INTEGER);
    const definition = frame.definition;
    const audit = auditOf(definition);
    const last = frame.event;
    return {
      stream,
      machine: definition.id,
      state: frame.snapshot.value as unknown,
      head: last?.revision ?? -1,
      last: last ? { type: last.type, source: last.metadata.source, actor: last.metadata.actor, recordedAt: last.metadata.recordedAt } : null,
      parked: audit?.parked?.(frame.snapshot) ?? false,
      intent: audit?.intentOf?.(frame.snapshot) ?? null,
      subject: last?.metadata.subject,
    };
  }

  /** The fleet line of a stream no machine owns: its last event as recorded (nothing to fold, so never parked, no intent). */
  private async plainFleetLine(stream: string): Promise<FleetLineView> {
    const [last] = await this.store.readStream(stream, { direction: 'backwards', maxCount: 1 });
    return {
      stream,
      machine: last?.metadata.machine ?? '',
      state: last?.metadata.to ?? null,
      head: last?.revision ?? -1,
      last: last ? { type: last.type, source: last.metadata.source, actor: last.metadata.actor, recordedAt: last.metadata.recordedAt } : null,
      parked: false,
      intent: null,
      subject: recordedSubject(last),
    };
  }

  /** What changed in state and context from revision `from` to revision `to` (diff.ts). */
  async compare(stream: string, from: number, to: number, version?: number) {
    const before = await this.stateAt(stream, from, version);
    const after = await this.stateAt(stream, to, version);
    return {
      stream,
      from: { revision: before.at?.revision ?? null, type: before.at?.type ?? null, recordedAt: before.at?.recordedAt ?? null, state: before.state },
      to: { revision: after.at?.revision ?? null, type: after.at?.type ?? null, recordedAt: after.at?.recordedAt ?? null, state: after.state },
      changes: structuralDiff({ state: before.state, context: before.context }, { state: after.state, context: after.context }),
    };
  }

  /** Authorization chains of the destructive decisions, newest first, at most `limit`. */
  async chains(stream: string, limit = 50, version?: number): Promise<{ total: number; chains: ResolvedChain[] }> {
    const index = await this.index(stream, version);
    const chosen = index.chains.slice(-limit).reverse();
    return { total: index.chains.length, chains: await Promise.all(chosen.map((c) => resolveChain(this.store, stream, c, this.resources))) };
  }
}

export const rowOf = (event: RecordedEvent, index: HistoryIndex): TimelineRow => ({
  revision: event.revision,
  id: event.id,
  type: event.type,
  recordedAt: event.metadata.recordedAt,
  source: event.metadata.source,
  actor: event.metadata.actor,
  from: event.metadata.from,
  to: event.metadata.to,
  effects: event.metadata.effects,
  destructive: event.metadata.effects.some((e) => index.definition.destructiveEffects?.includes(e.type)),
  correlationId: event.metadata.correlationId,
  causationId: event.metadata.causationId,
  machineVersion: event.metadata.machineVersion,
  data: event.data,
  match: index.matches[event.revision] ?? { kind: 'unmatched', edges: [] },
  toNodes: activeNodeIds(index.chart, event.metadata.to).map(nodeDomId),
});
