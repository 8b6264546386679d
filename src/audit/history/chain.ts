/**
 * The authorization chain of a destructive effect, resolved into events and rendered for people.
 *
 * What the chain shows, in order (server rebuild: "Rebuild intent is write-ahead"):
 * 1. **arm** — the earlier event that recorded the intent (the marker for this target), and its source;
 *    it must be the reconciler, and strictly earlier than the decision.
 * 2. **read-back** — the durable state the decision was taken on: the engine loads the stream and
 *    appends the decision with the head revision as expected revision, so the decision's recorded
 *    `from` is the state read back (the marker stood, durable, before the submit was decided).
 * 3. **decision** — the reconciler event that declared the effect; its stimulus carries the fresh
 *    observation it decided on (for the rebuild: Nova's server read on that pass).
 * 4. **result** — every event caused by the decision (effect results: causationId = decision id).
 * Where an arm or decision names a causationId, the causing event is looked up in the same stream
 * and shown as **cause** (repeatedly, a few levels deep); an id not found there is named as such.
 */
import type { RecordedEvent } from '../../events/envelope.js';
import type { EventStore } from '../../store/port.js';
import { formatState } from '../../events/state-text.js';
import type { AuthorizationChain } from './index.js';
import type { ResourceStreamIndex } from './resource-streams.js';
import { describeAuthor, describeFieldChanges, type SpecChanged } from '../../resource-history/stream.js';

export type LinkRole = 'change' | 'cause' | 'arm' | 'read-back' | 'decision' | 'result' | 'settle';

export interface ChainLink {
  role: LinkRole;
  revision: number;
  eventId: string | undefined;
  type: string | undefined;
  source: string | undefined;
  actor: string | undefined;
  recordedAt: string | undefined;
  from: unknown;
  to: unknown;
  correlationId: string | undefined;
  causationId: string | null | undefined;
  note: string;
  /** The stimulus, for the decision (its fresh observation) and results. */
  data?: unknown;
  /** The link's stream when it is not the chain's: the change of desired state, in the resource's own stream. */
  stream?: string;
  /** The change's author, in words (describeAuthor), for the change link. */
  author?: string;
}

export interface ResolvedChain {
  stream: string;
  effect: AuthorizationChain['effect'];
  authorised: boolean;
  method: AuthorizationChain['method'];
  problems: string[];
  links: ChainLink[];
}

export const eventAt = async (store: EventStore, stream: string, revision: number): Promise<RecordedEvent | undefined> =>
  revision < 0 ? undefined : (await store.readStream(stream, { fromRevision: revision, maxCount: 1 }))[0];

/** Finds an event by id at or before a revision, reading backwards in pages (bounded). */
const findById = async (store: EventStore, stream: string, id: string, before: number, limit = 5000): Promise<RecordedEvent | undefined> => {
  let from = before;
  let read = 0;
  while (from >= 0 && read < limit) {
    const page = await store.readStream(stream, { fromRevision: from, direction: 'backwards', maxCount: 500 });
    const found = page.find((e) => e.id === id);
    if (found) return found;
    read += page.length;
    const last = page[page.length - 1];
    if (!last || page.length < 500) return undefined;
    from = last.revision - 1;
  }
  return undefined;
};

const link = (role: LinkRole, event: RecordedEvent, note: string, withData = false): ChainLink => ({
  role,
  revision: event.revision,
  eventId: event.id,
  type: event.type,
  source: event.metadata.source,
  actor: event.metadata.actor,
  recordedAt: event.metadata.recordedAt,
  from: event.metadata.from,
  to: event.metadata.to,
  correlationId: event.metadata.correlationId,
  causationId: event.metadata.causationId,
  note,
  ...(withData ? { data: observationOf(event) } : {}),
});

/** The stimulus without its envelope fields: for a reconcile pass, the desired state and the fresh read. */
const observationOf = (event: RecordedEvent): Record<string, unknown> => {
  const { type: _type, source: _source, ...rest } = event.data;
  return rest;
};

const causes = async (store: EventStore, stream: string, event: RecordedEvent, seen: Set<string>): Promise<ChainLink[]> => {
  const out: ChainLink[] = [];
  let current = event;
  for (let depth = 0; depth < 5 && current.metadata.causationId; depth++) {
    const id = current.metadata.causationId;
    if (seen.has(id)) break;
    seen.add(id);
    const cause = await findById(store, stream, id, current.revision - 1);
    if (!cause) {
      out.unshift({ role: 'cause', revision: -1, eventId: id, type: undefined, source: undefined, actor: undefined, recordedAt: undefined, from: undefined, to: undefined, correlationId: undefined, causationId: undefined, note: `caused by event ${id}, not in this stream (or more than 5000 events earlier)` });
      break;
    }
    out.unshift(link('cause', cause, `caused ${current.type} (revision ${current.revision})`));
    current = cause;
  }
  return out;
};

/** What a change of desired state changed, in one line: `created`, or its field changes (describeFieldChanges). */
export const describeChanges = (record: SpecChanged): string => (record.previousGeneration === null ? 'created' : describeFieldChanges(record.changes));

/**
 * The change of desired state a decision followed (issue 30, "who"): the resource's last recorded spec change at or
 * before the arm (or the decision, with no arm), found by the subject its events name.
 */
const changeLink = async (resources: ResourceStreamIndex, anchor: RecordedEvent): Promise<ChainLink> => {
  const subject = anchor.metadata.subject;
  const missing = (why: string): ChainLink => ({ role: 'change', revision: -1, eventId: undefined, type: undefined, source: undefined, actor: undefined, recordedAt: undefined, from: undefined, to: undefined, correlationId: undefined, causationId: undefined, note: why });
  if (!subject) return missing('the decision names no resource (an event recorded before events named their resource): the change that asked for it is unknown');
  const found = await resources.changeBefore(subject, anchor.metadata.recordedAt);
  if (!found) return missing(`no change of ${subject.kind} ${subject.namespace}/${subject.name}'s desired state is recorded before this decision (a history older than the resource records): who asked is unknown`);
  const { event, record } = found;
  const author = describeAuthor(record.author);
  return {
    ...link('change', event, `${record.name}: ${describeChanges(record)}, generation ${record.generation}, by ${author} at ${event.metadata.recordedAt}${record.author.channel === 'api' && record.author.requestId ? ` (REST API request ${record.author.requestId}, also recorded in api-server-${record.uid})` : ''}${record.missedGenerations ? ` (${record.missedGenerations} earlier generation(s) written too quickly to be seen)` : ''}`),
    stream: event.stream,
    author,
  };
};

export const resolveChain = async (store: EventStore, stream: string, chain: AuthorizationChain, resources?: ResourceStreamIndex): Promise<ResolvedChain> => {
  const links: ChainLink[] = [];
  const seen = new Set<string>();
  const decision = await eventAt(store, stream, chain.decision);
  const armEvent = chain.arm !== undefined ? await eventAt(store, stream, chain.arm) : undefined;
  const anchor = armEvent ?? decision;
  if (resources && anchor) links.push(await changeLink(resources, anchor));
  if (chain.arm !== undefined) {
    const arm = armEvent;
    if (arm) {
      seen.add(arm.id);
      links.push(...(await causes(store, stream, arm, seen)));
      const what = chain.method === 'intent' ? `recorded the intent ${chain.readBack.intent ? `(target ${chain.readBack.intent.target})` : ''}` : `entered ${formatState(arm.metadata.to)}`;
      links.push(link('arm', arm, `${what} by ${arm.metadata.source}${chain.between > 0 ? `; ${chain.between} event(s) between it and the decision` : ''}`));
    }
  }
  links.push({
    role: 'read-back',
    revision: chain.readBack.revision,
    eventId: undefined,
    type: undefined,
    source: undefined,
    actor: undefined,
    recordedAt: undefined,
    from: undefined,
    to: chain.readBack.state,
    correlationId: undefined,
    causationId: undefined,
    note: `decided on the durable head at revision ${chain.readBack.revision}: state ${formatState(chain.readBack.state as never)}${chain.readBack.intent ? `, intent ${chain.readBack.intent.target} ${chain.readBack.intent.state}` : ''}`,
  });
  if (decision) {
    seen.add(decision.id);
    links.push(...(await causes(store, stream, decision, seen)));
    links.push(link('decision', decision, `declared ${chain.effect.type} on the observation in its stimulus${chain.evidence ? `; ${chain.evidence}` : ''}`, true));
  }
  for (const revision of chain.results) {
    const result = await eventAt(store, stream, revision);
    if (result) links.push(link('result', result, `result of ${chain.effect.type} (causationId = the decision)`, true));
  }
  if (chain.settled !== undefined) {
    const settle = await eventAt(store, stream, chain.settled);
    if (settle) links.push(link('settle', settle, `the intent cleared: ${formatState(settle.metadata.from as never)} → ${formatState(settle.metadata.to as never)}`));
  }
  return { stream, effect: chain.effect, authorised: chain.problems.length === 0, method: chain.method, problems: chain.problems, links };
};

const compact = (value: unknown, max = 160): string => {
  const text = JSON.stringify(value) ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/** Plain text, one block per chain. */
export const formatChain = (chain: ResolvedChain): string => {
  const { type, ...params } = chain.effect;
  const decision = chain.links.find((l) => l.role === 'decision');
  const out = [`${type} ${compact(params)} decided at revision ${decision?.revision ?? '?'}: ${chain.authorised ? 'AUTHORISED' : 'NOT AUTHORISED'} (${chain.method === 'intent' ? 'by the recorded intent' : 'by entered state; the machine has no intentOf'})`];
  chain.links.forEach((l, i) => {
    const head = l.revision < 0 ? 'rev ?' : l.stream ? `${l.stream} rev ${l.revision}` : `rev ${l.revision}`;
    const who = l.type ? `${l.type}  ${l.source}  ${l.actor}  ${l.recordedAt}  ${formatState(l.from as never)} → ${formatState(l.to as never)}` : '';
    out.push(`  ${String(i + 1).padStart(2)}. ${l.role.padEnd(9)} ${head.padEnd(9)} ${who}`.trimEnd());
    out.push(`      ${l.note}`);
    if (l.data !== undefined) out.push(`      ${l.role === 'decision' ? 'observation' : 'stimulus'}: ${compact(l.data, 240)}`);
    if (l.correlationId) out.push(`      correlation ${l.correlationId}${l.causationId ? `  causation ${l.causationId}` : ''}`);
  });
  for (const problem of chain.problems) out.push(`  ✗ ${problem}`);
  return out.join('\n');
};
