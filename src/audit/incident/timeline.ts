/**
 * One incident timeline across resources (issue 30): every event — decisions, observations, effect results, spec and
 * status changes, admissions, API events — of one resource, of it and everything related to it (related.ts), or of
 * every stream, in a time window, in one time-ordered list. What the page `/incidents`, `GET /api/incidents`, the
 * export and `regent timeline` show.
 *
 * Reading. The streams come from the index of stream heads (heads.ts): a stream whose last event is older than the
 * window's start, or whose resource is not of an asked-for kind, is never read. Each other stream is entered at its
 * first event at or after `from` (a binary search by revision, one event per probe) and read forwards in pages until
 * `to`; the streams are merged by time (then global position) and reading stops at `limit` rows. So a request reads
 * about `limit` events plus a page per stream in the window, whatever the size of the store. This relies on each
 * stream's `recordedAt` not going backwards (the engine stamps every decision when it appends it); an event recorded
 * out of order within a stream may be missed at a window's edge.
 *
 * Each row is built from redacted data (redaction.ts): its summary can never quote a secret.
 */
import type { RecordedEvent } from '../../events/envelope.js';
import { formatState } from '../../events/state-text.js';
import type { EventStore } from '../../store/port.js';
import type { MachineRegistry } from '../../../machines/registry.js';
import { createProductRegistry } from '../../../machines/index.js';
import { describeAuthor, describeFieldChanges, isResourceStream, type ChangeAuthor, type FieldChange } from '../../resource-history/stream.js';
import { REDACTED, SECRET_KEY } from '../evidence/redact.js';
import { payloadSummary } from '../web/pages.js';
import { IncidentIndex, type IndexSnapshot } from './heads.js';
import { normalizeQuery, subjectKey, type IncidentQuery, type IncidentQueryInput, type IncidentSubject } from './query.js';
import { redactForIncident } from './redaction.js';
import { relatedSetOf, resolveSubject, type RelatedResource, type SubjectResource } from './related.js';

export interface IncidentEffect {
  type: string;
  destructive: boolean;
  [member: string]: unknown;
}

export interface IncidentRow {
  /** `metadata.recordedAt`. */
  time: string;
  stream: string;
  revision: number;
  position: number;
  id: string;
  type: string;
  /** decision, observation, effect result, API event, operator action, spec change, status change, deletion requested, deleted, admission. */
  category: string;
  /** The resource the stream belongs to (recorded, or inferred: heads.ts); null for a stream of no resource. */
  resource: IncidentSubject | null;
  /** A Server created through the API: the name it was given. */
  displayName?: string;
  /** With a resource asked for: `subject` for its own streams, else the relation of the stream's resource. */
  relation: string | null;
  source: string;
  /** `metadata.actor`: the component (or for the API the token's subject) that recorded the event. */
  actor: string;
  /** Who asked for a spec change or a deletion (describeAuthor), or whom an admission authenticated. */
  author?: string;
  correlationId: string;
  causationId: string | null;
  from: string | null;
  to: string;
  /** Declared effects (redacted), each marked destructive when its machine says so. */
  effects: IncidentEffect[];
  destructive: boolean;
  summary: string;
  /** Deep links on the audit pages: the event on its stream's page, the resource's page. */
  links: { event: string; resource?: string };
  /** The event's data, redacted. */
  data: unknown;
  /** Members of data and effects replaced by the redaction marker. */
  redacted: string[];
}

export interface IncidentTimeline {
  query: IncidentQuery;
  generatedAt: string;
  /** The resource asked for. */
  subject?: SubjectResource;
  /** With `related`: everything related to it (related.ts). */
  related?: RelatedResource[];
  rows: IncidentRow[];
  /** More events lay in the window after the last row (narrow the window or raise the limit). */
  truncated: boolean;
  /** When truncated: the time of the first event left out, the `from` of the next page (rows recorded in that same millisecond appear again). */
  nextFrom?: string;
  /** How many streams were read (after the window and the kinds pruned them), and how many of them had events in the window. */
  streamsRead: number;
  streamsInWindow: number;
}

export interface IncidentOptions {
  /** Which effects are destructive (each machine's `destructiveEffects`); default: the product machines. */
  registry?: MachineRegistry;
  /** An index kept between calls (a server's); default: a fresh one. */
  index?: IncidentIndex;
  now?: () => Date;
  /** Where the audit pages are mounted, for the links ('' at the root). */
  base?: string;
  /** Events per read (default 100; fewer per stream when many streams are read at once). */
  pageSize?: number;
}

const CATEGORY_OF_TYPE: Record<string, string> = {
  'resource.specChanged': 'spec change',
  'resource.statusChanged': 'status change',
  'resource.deletionRequested': 'deletion requested',
  'resource.deleted': 'deleted',
  'resource.admitted': 'admission',
};
const CATEGORY_OF_SOURCE: Record<string, string> = { reconciler: 'decision', monitor: 'observation', effect: 'effect result', api: 'API event', operator: 'operator action' };

export const streamLink = (base: string, stream: string, revision: number): string => `${base}/streams/${encodeURIComponent(stream)}#rev-${revision}`;
export const resourceLink = (base: string, s: IncidentSubject): string => `${base}/resources/${encodeURIComponent(s.kind)}/${encodeURIComponent(s.namespace)}/${encodeURIComponent(s.name)}`;

/** Which effect types each machine (and version) declares destructive. */
const destructiveLookup = (registry: MachineRegistry) => {
  const byVersion = new Map(registry.list().map((d) => [`${d.id}@${d.version}`, new Set(d.destructiveEffects ?? [])]));
  const current = new Map(registry.current().map((d) => [d.id, new Set(d.destructiveEffects ?? [])]));
  return (event: RecordedEvent, effectType: string): boolean =>
    (byVersion.get(`${event.metadata.machine}@${event.metadata.machineVersion}`) ?? current.get(event.metadata.machine))?.has(effectType) ?? false;
};

const SUMMARY_CHARS = 240;
const cut = (text: string): string => (text.length > SUMMARY_CHARS ? `${text.slice(0, SUMMARY_CHARS - 1)}…` : text);

/** What a recorded change changed, in a line (src/resource-history/stream.ts). */
export const describeChanges = describeFieldChanges;

/** A change of a secret-named member shows neither side (a writer that forgot to digest it must not leak it here). */
const redactChanges = (data: Record<string, unknown>, paths: string[]): void => {
  if (!Array.isArray(data.changes)) return;
  data.changes = data.changes.map((c: unknown, i) => {
    if (c === null || typeof c !== 'object') return c;
    const change = c as FieldChange;
    const last = String(change.path ?? '').split('.').pop()?.replace(/\[\d+\]$/, '') ?? '';
    if (!SECRET_KEY.test(last)) return change;
    const out: Record<string, unknown> = { path: change.path };
    for (const side of ['from', 'to'] as const) {
      if (side in change && change[side] !== REDACTED) {
        out[side] = REDACTED;
        paths.push(`data.changes[${i}].${side}`);
      } else if (side in change) out[side] = change[side];
    }
    return out;
  });
};

const summaryOf = (type: string, data: Record<string, unknown>, machine: string): string => {
  switch (type) {
    case 'resource.specChanged': {
      const generation = data.generation;
      const missed = typeof data.missedGenerations === 'number' && data.missedGenerations > 0 ? ` (${data.missedGenerations} generation(s) written but never seen)` : '';
      if (data.previousGeneration === null || data.previousGeneration === undefined) return cut(`first recorded generation ${String(generation)}${missed}`);
      return cut(`generation ${String(generation)}${missed}: ${describeChanges(data.changes as FieldChange[] | undefined)}`);
    }
    case 'resource.statusChanged':
      return cut(`status: ${describeChanges(data.changes as FieldChange[] | undefined)}`);
    case 'resource.deletionRequested': {
      const finalizers = Array.isArray(data.finalizers) ? data.finalizers.map(String) : [];
      return cut(`deletion requested${finalizers.length > 0 ? ` (waits for finalizers: ${finalizers.join(', ')})` : ''}`);
    }
    case 'resource.deleted':
      return 'deleted';
    case 'resource.admitted': {
      const user = (data.user as { username?: unknown } | undefined)?.username;
      return cut(`${String(data.operation ?? 'request')} admitted for ${String(user ?? 'an unknown user')}`);
    }
    default: {
      const kind = machine ? type.replace(`${machine}.`, '') : type;
      // the stimulus's own `source` is the row's source column already
      const payload = payloadSummary(data, ['source']);
      return cut(payload ? `${kind}: ${payload}` : kind);
    }
  }
};

const authorOf = (type: string, data: Record<string, unknown>): string | undefined => {
  if (type === 'resource.specChanged' || type === 'resource.deletionRequested' || type === 'resource.deleted') return describeAuthor(data.author as ChangeAuthor | undefined);
  if (type === 'resource.admitted') {
    const user = (data.user as { username?: unknown } | undefined)?.username;
    return `${String(user ?? 'unknown user')} (authenticated by the Kubernetes API server)`;
  }
  return undefined;
};

/** One event as a row: redacted, summarised, linked. */
export const incidentRow = (
  event: RecordedEvent,
  context: { resource: IncidentSubject | undefined; displayName?: string | undefined; relation: string | null; base: string; destructive: (event: RecordedEvent, effectType: string) => boolean },
): IncidentRow => {
  const redactedData = redactForIncident(event.data, 'data');
  const paths = [...redactedData.paths];
  const data = { ...(redactedData.value as unknown as Record<string, unknown>) };
  if (isResourceStream(event.stream)) redactChanges(data, paths);
  const effects = event.metadata.effects.map((effect, i) => {
    const r = redactForIncident(effect, `metadata.effects[${i}]`);
    paths.push(...r.paths);
    return { ...r.value, destructive: context.destructive(event, effect.type) };
  });
  const m = event.metadata;
  const author = authorOf(event.type, data);
  return {
    time: m.recordedAt,
    stream: event.stream,
    revision: event.revision,
    position: event.position,
    id: event.id,
    type: event.type,
    category: CATEGORY_OF_TYPE[event.type] ?? CATEGORY_OF_SOURCE[m.source] ?? m.source,
    resource: context.resource ? { kind: context.resource.kind, namespace: context.resource.namespace, name: context.resource.name } : null,
    ...(context.displayName !== undefined ? { displayName: context.displayName } : {}),
    relation: context.relation,
    source: m.source,
    actor: m.actor,
    ...(author !== undefined ? { author } : {}),
    correlationId: m.correlationId,
    causationId: m.causationId,
    from: m.from === null || m.from === undefined ? null : formatState(m.from),
    to: formatState(m.to),
    effects,
    destructive: effects.some((e) => e.destructive),
    summary: summaryOf(event.type, data, m.machine),
    links: { event: streamLink(context.base, event.stream, event.revision), ...(context.resource ? { resource: resourceLink(context.base, context.resource) } : {}) },
    data,
    redacted: paths,
  };
};

const timeOf = (event: RecordedEvent): number => {
  const ms = Date.parse(event.metadata.recordedAt);
  return Number.isNaN(ms) ? 0 : ms;
};

/** The first revision whose event was recorded at or after `fromMs` (head + 1 when none): a binary search, one event per probe. */
const firstAtOrAfter = async (store: Pick<EventStore, 'readStream'>, stream: string, head: number, fromMs: number): Promise<number> => {
  let low = 0;
  let high = head + 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const [event] = await store.readStream(stream, { fromRevision: middle, maxCount: 1 });
    if (!event) high = middle;
    else if (timeOf(event) < fromMs) low = middle + 1;
    else high = middle;
  }
  return low;
};

/** One stream's events in the window, a page at a time. */
class WindowCursor {
  private page: RecordedEvent[] = [];
  private index = 0;
  private next = 0;
  private done = false;

  constructor(
    private readonly store: Pick<EventStore, 'readStream'>,
    readonly stream: string,
    private readonly head: number,
    private readonly fromMs: number | undefined,
    private readonly toMs: number | undefined,
    private readonly pageSize: number,
  ) {}

  /** Positions the cursor on its first event in the window; false when it has none. */
  async open(): Promise<boolean> {
    this.next = this.fromMs === undefined ? 0 : await firstAtOrAfter(this.store, this.stream, this.head, this.fromMs);
    return this.advanceTo();
  }

  get current(): RecordedEvent | undefined {
    return this.done ? undefined : this.page[this.index];
  }

  /** Moves past the current event; false when the stream has no more in the window. */
  async step(): Promise<boolean> {
    this.index++;
    return this.advanceTo();
  }

  private async advanceTo(): Promise<boolean> {
    for (;;) {
      if (this.done) return false;
      if (this.index >= this.page.length) {
        if (this.next > this.head) return (this.done = true), false;
        this.page = await this.store.readStream(this.stream, { fromRevision: this.next, maxCount: this.pageSize });
        this.index = 0;
        if (this.page.length === 0) return (this.done = true), false;
        this.next = (this.page[this.page.length - 1] as RecordedEvent).revision + 1;
      }
      const event = this.page[this.index] as RecordedEvent;
      const at = timeOf(event);
      if (this.toMs !== undefined && at >= this.toMs) return (this.done = true), false;
      if (this.fromMs !== undefined && at < this.fromMs) {
        this.index++;
        continue;
      }
      return true;
    }
  }
}

/** A min-heap of cursors by their current event's (time, position). */
class CursorHeap {
  private readonly items: WindowCursor[] = [];
  private static before(a: WindowCursor, b: WindowCursor): boolean {
    const x = a.current as RecordedEvent;
    const y = b.current as RecordedEvent;
    const dt = timeOf(x) - timeOf(y);
    return dt < 0 || (dt === 0 && x.position < y.position);
  }
  get size(): number {
    return this.items.length;
  }
  push(cursor: WindowCursor): void {
    const items = this.items;
    items.push(cursor);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >>> 1;
      if (!CursorHeap.before(items[i] as WindowCursor, items[parent] as WindowCursor)) break;
      [items[i], items[parent]] = [items[parent] as WindowCursor, items[i] as WindowCursor];
      i = parent;
    }
  }
  pop(): WindowCursor | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      for (let i = 0; ; ) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let smallest = i;
        if (l < items.length && CursorHeap.before(items[l] as WindowCursor, items[smallest] as WindowCursor)) smallest = l;
        if (r < items.length && CursorHeap.before(items[r] as WindowCursor, items[smallest] as WindowCursor)) smallest = r;
        if (smallest === i) break;
        [items[i], items[smallest]] = [items[smallest] as WindowCursor, items[i] as WindowCursor];
        i = smallest;
      }
    }
    return top;
  }
}

interface Selected {
  stream: string;
  head: number;
  resource: IncidentSubject | undefined;
  displayName: string | undefined;
  relation: string | null;
}

/** The streams a query reads, each with its resource and relation, and the related set when one was asked for. */
const selectStreams = (snapshot: IndexSnapshot, query: IncidentQuery): { selected: Selected[]; subject?: SubjectResource; related?: RelatedResource[] } => {
  const fromMs = query.from === null ? undefined : Date.parse(query.from);
  const entryOf = (stream: string) => snapshot.streams.get(stream);
  const keep = (s: Selected | undefined): s is Selected => {
    if (!s) return false;
    const entry = entryOf(s.stream);
    if (!entry) return false;
    // its last event is older than the window: nothing of it lies in the window
    if (fromMs !== undefined && entry.lastAt !== undefined && Date.parse(entry.lastAt) < fromMs) return false;
    return query.kinds.length === 0 || (s.resource !== undefined && query.kinds.includes(s.resource.kind));
  };
  const of = (stream: string, relation: string | null): Selected | undefined => {
    const entry = entryOf(stream);
    if (!entry) return undefined;
    const resource = entry.subject;
    const node = resource ? snapshot.resources.get(subjectKey(resource)) : undefined;
    return { stream, head: entry.head, resource, displayName: node?.displayName, relation };
  };
  if (!query.resource) return { selected: [...snapshot.streams.keys()].map((s) => of(s, null)).filter(keep) };
  const node = resolveSubject(snapshot, query.resource);
  const set = relatedSetOf(snapshot, node);
  const selected = new Map<string, Selected | undefined>(node.streams.map((s) => [s, of(s, 'subject')]));
  if (query.related) for (const r of set.related) for (const s of r.streams) if (!selected.has(s)) selected.set(s, of(s, r.relation));
  return { selected: [...selected.values()].filter(keep), subject: set.subject, ...(query.related ? { related: set.related } : {}) };
};

/** The incident timeline of a query (the module comment says what it reads). */
export const incidentTimeline = async (store: Pick<EventStore, 'listStreams' | 'readStream'>, input: IncidentQueryInput | IncidentQuery, options: IncidentOptions = {}): Promise<IncidentTimeline> => {
  const now = options.now ?? (() => new Date());
  const generatedAt = now();
  const query = normalizeQuery(input, generatedAt);
  const snapshot = await (options.index ?? new IncidentIndex(store)).snapshot();
  const { selected, subject, related } = selectStreams(snapshot, query);
  const destructive = destructiveLookup(options.registry ?? createProductRegistry());
  const base = options.base ?? '';
  const fromMs = query.from === null ? undefined : Date.parse(query.from);
  const toMs = query.to === null ? undefined : Date.parse(query.to);
  // a page per stream is held while merging: fewer events per read when many streams are open at once
  const pageSize = Math.max(10, Math.min(options.pageSize ?? 100, Math.floor(20_000 / Math.max(1, selected.length)), query.limit + 1));
  const byStream = new Map(selected.map((s) => [s.stream, s]));
  const heap = new CursorHeap();
  let opened = 0;
  const cursors = selected.map((s) => new WindowCursor(store, s.stream, s.head, fromMs, toMs, pageSize));
  for (let i = 0; i < cursors.length; i += 16) {
    const batch = cursors.slice(i, i + 16);
    const open = await Promise.all(batch.map((c) => c.open()));
    batch.forEach((c, j) => open[j] && (heap.push(c), opened++));
  }
  const rows: IncidentRow[] = [];
  const sources = new Set<string>(query.sources);
  let nextFrom: string | undefined;
  while (heap.size > 0) {
    const cursor = heap.pop() as WindowCursor;
    const event = cursor.current as RecordedEvent;
    if (sources.size === 0 || sources.has(event.metadata.source)) {
      if (rows.length === query.limit) {
        nextFrom = event.metadata.recordedAt;
        break;
      }
      const s = byStream.get(cursor.stream) as Selected;
      rows.push(incidentRow(event, { resource: s.resource, displayName: s.displayName, relation: s.relation, base, destructive }));
    }
    if (await cursor.step()) heap.push(cursor);
  }
  return { query, generatedAt: generatedAt.toISOString(), ...(subject ? { subject } : {}), ...(related ? { related } : {}), rows, truncated: nextFrom !== undefined, ...(nextFrom !== undefined ? { nextFrom } : {}), streamsRead: selected.length, streamsInWindow: opened };
};
