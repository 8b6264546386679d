/**
 * What the incident views know of a store without reading its histories: every stream's head (its last event: the
 * resource it recorded, its time) and, for each resource's own stream (`resource-<uid>`, src/resource-history), the
 * latest spec and status it recorded. Relations (related.ts) and the streams a timeline reads (timeline.ts) are
 * computed from this and nothing else: the audit layer has no resource source, so a resource deleted an hour ago
 * is found exactly like one that exists.
 *
 * Cost. One `listStreams` per refresh; then, only for a stream whose head moved since the last refresh, one
 * backwards read of its last event, and for a resource stream the events back to its latest `resource.specChanged`
 * and `resource.statusChanged` (pages of `pageSize`; after the first refresh only the events appended since).
 * At most `concurrency` reads at a time. What is kept is a few hundred bytes per stream plus one spec and one
 * status per resource. An `IncidentIndex` held by a server (incident-routes.ts) is refreshed per request; one
 * made per call (`relatedResources(store, …)`) reads every head once.
 *
 * A stream whose events recorded no subject (written before events named their resource) is given one when its
 * name carries the uid of a resource stream (`server-lifecycle-<uid>`, `volume-attachment-<server uid>-<volume
 * uid>`: the first uid, the Server) or, for `server-rebuild-<nova id>`, when a Server's or WorkloadMachine's
 * recorded status names that Nova id (`status.serverID`).
 */
import type { RecordedEvent } from '../../events/envelope.js';
import type { EventStore } from '../../store/port.js';
import { isResourceStream, resourceRecordOf, type ResourceRecord } from '../../resource-history/stream.js';
import { apiServerOf, recordedSubject } from '../history/api-streams.js';
import { subjectKey, type IncidentSubject } from './query.js';

/** A resource stream's latest records. */
export interface ResourceHead {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
  /** The spec of the latest `resource.specChanged` (secrets as digests), and its revision. */
  spec?: Record<string, unknown>;
  specRevision?: number;
  generation?: number;
  /** The status of the latest `resource.statusChanged`. */
  status?: Record<string, unknown>;
  statusRevision?: number;
  /** A `resource.deleted` was recorded. */
  deleted: boolean;
}

export interface StreamHeadEntry {
  stream: string;
  head: number;
  lastPosition: number;
  /** `metadata.recordedAt` of the last event. */
  lastAt: string | undefined;
  machine: string | undefined;
  /** The resource its last event recorded (`metadata.subject`; an old API event: the Server its data names). */
  recorded: IncidentSubject | undefined;
  /** The name the server API was given the Server (an `api-server-` stream). */
  displayName?: string;
  /** A resource stream's latest records. */
  resource?: ResourceHead;
}

/** One resource as the store knows it: from its own stream(s) and the subjects other streams recorded. */
export interface ResourceNode extends IncidentSubject {
  /** Every uid a resource stream of this kind, namespace and name had (a resource deleted and made again has two); the newest last. */
  uids: string[];
  /** The newest incarnation's records. */
  head?: ResourceHead;
  /** Every stream that belongs to it (recorded or inferred subject), its own `resource-<uid>` streams included. */
  streams: string[];
  /** A Server created through the API: the name it was given. */
  displayName?: string;
}

export interface IndexSnapshot {
  streams: ReadonlyMap<string, StreamHeadEntry & { subject: IncidentSubject | undefined }>;
  /** By `Kind/namespace/name`. */
  resources: ReadonlyMap<string, ResourceNode>;
  byUid: ReadonlyMap<string, ResourceNode>;
  /** `Kind/namespace/name` of the streams' resource (recorded or inferred), undefined for a stream of no resource. */
  subjectOf(stream: string): IncidentSubject | undefined;
  /** The resource of a subject, by name (a Server also by the name the API was given). */
  find(subject: IncidentSubject): ResourceNode | undefined;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const REBUILD_PREFIX = 'server-rebuild-';

/** Runs `work` on every item, at most `limit` at a time. */
const pool = async <T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> => {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
};

const applyRecord = (head: ResourceHead, record: ResourceRecord, revision: number, newer: boolean): void => {
  // newer: reading forwards (each record replaces); else backwards (only the first, newest, of each type counts)
  if (record.type === 'resource.specChanged' && (newer || head.spec === undefined)) {
    head.spec = record.spec;
    head.specRevision = revision;
    head.generation = record.generation;
  } else if (record.type === 'resource.statusChanged' && (newer || head.status === undefined)) {
    head.status = record.status;
    head.statusRevision = revision;
  } else if (record.type === 'resource.deleted') head.deleted = true;
};

export class IncidentIndex {
  private readonly entries = new Map<string, StreamHeadEntry>();
  private running: Promise<IndexSnapshot> | undefined;

  constructor(
    private readonly store: Pick<EventStore, 'listStreams' | 'readStream'>,
    private readonly options: { concurrency?: number; pageSize?: number } = {},
  ) {}

  /** The index as of now: refreshed (one at a time; concurrent callers share one refresh). */
  async snapshot(): Promise<IndexSnapshot> {
    this.running ??= this.refresh().finally(() => (this.running = undefined));
    return this.running;
  }

  private async refresh(): Promise<IndexSnapshot> {
    const infos = await this.store.listStreams();
    const listed = new Set(infos.map((i) => i.stream));
    for (const stream of this.entries.keys()) if (!listed.has(stream)) this.entries.delete(stream);
    const moved = infos.filter((i) => this.entries.get(i.stream)?.head !== i.head);
    await pool(moved, this.options.concurrency ?? 16, async (info) => {
      const [last] = (await this.store.readStream(info.stream, { direction: 'backwards', maxCount: 1 })) as [RecordedEvent?];
      if (!last) return void this.entries.delete(info.stream);
      const cached = this.entries.get(info.stream);
      const api = apiServerOf(last);
      const entry: StreamHeadEntry = {
        stream: info.stream,
        head: last.revision,
        lastPosition: last.position,
        lastAt: last.metadata.recordedAt,
        machine: last.metadata.machine,
        recorded: recordedSubject(last),
        ...(api && api.serverName !== api.id ? { displayName: api.serverName } : {}),
      };
      if (isResourceStream(info.stream)) {
        const resource = await this.resourceHead(info.stream, last, cached);
        if (resource) entry.resource = resource;
      }
      this.entries.set(info.stream, entry);
    });
    return this.build();
  }

  /** A resource stream's latest spec and status: the events since the cached head, else backwards from the head until both are found. */
  private async resourceHead(stream: string, last: RecordedEvent, cached: StreamHeadEntry | undefined): Promise<ResourceHead | undefined> {
    const pageSize = this.options.pageSize ?? 200;
    const lastRecord = resourceRecordOf(last);
    if (cached?.resource && cached.head < last.revision) {
      const head: ResourceHead = { ...cached.resource };
      for (let from = cached.head + 1; from <= last.revision; ) {
        const page = await this.store.readStream(stream, { fromRevision: from, maxCount: pageSize });
        for (const event of page) {
          const record = resourceRecordOf(event);
          if (record) applyRecord(head, record, event.revision, true);
        }
        if (page.length < pageSize) break;
        from = (page[page.length - 1]?.revision ?? last.revision) + 1;
      }
      return head;
    }
    if (!lastRecord) return undefined;
    const head: ResourceHead = { kind: lastRecord.kind, namespace: lastRecord.namespace, name: lastRecord.name, uid: lastRecord.uid, deleted: false };
    for (let from = last.revision; from >= 0 && (head.spec === undefined || head.status === undefined); ) {
      const page = await this.store.readStream(stream, { direction: 'backwards', fromRevision: from, maxCount: pageSize });
      for (const event of page) {
        const record = resourceRecordOf(event);
        if (record) applyRecord(head, record, event.revision, false);
      }
      const oldest = page[page.length - 1];
      if (page.length < pageSize || !oldest) break;
      from = oldest.revision - 1;
    }
    return head;
  }

  private build(): IndexSnapshot {
    const resources = new Map<string, ResourceNode>();
    const byUid = new Map<string, ResourceNode>();
    const nodeOf = (s: IncidentSubject): ResourceNode => {
      const key = subjectKey(s);
      let node = resources.get(key);
      if (!node) resources.set(key, (node = { kind: s.kind, namespace: s.namespace, name: s.name, uids: [], streams: [] }));
      return node;
    };
    // resource streams first, oldest incarnation first: a node's head is its newest
    const entries = [...this.entries.values()].sort((a, b) => a.lastPosition - b.lastPosition);
    for (const entry of entries) {
      const r = entry.resource;
      if (!r) continue;
      const node = nodeOf(r);
      node.uids.push(r.uid);
      node.head = r;
      byUid.set(r.uid.toLowerCase(), node);
    }
    const novaIds = new Map<string, ResourceNode>();
    for (const node of resources.values()) {
      const serverID = node.head?.status?.serverID;
      if (typeof serverID === 'string' && serverID !== '') novaIds.set(serverID, node);
    }
    const subjects = new Map<string, IncidentSubject | undefined>();
    const inferred = (stream: string): IncidentSubject | undefined => {
      if (stream.startsWith(REBUILD_PREFIX)) {
        const node = novaIds.get(stream.slice(REBUILD_PREFIX.length));
        if (node) return node;
      }
      for (const uid of stream.match(UUID) ?? []) {
        const node = byUid.get(uid.toLowerCase());
        if (node) return node;
      }
      return undefined;
    };
    const streams = new Map<string, StreamHeadEntry & { subject: IncidentSubject | undefined }>();
    for (const entry of [...this.entries.values()].sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0))) {
      const found = entry.resource ?? entry.recorded ?? inferred(entry.stream);
      const subject = found ? { kind: found.kind, namespace: found.namespace, name: found.name } : undefined;
      subjects.set(entry.stream, subject);
      streams.set(entry.stream, { ...entry, subject });
      if (!subject) continue;
      const node = nodeOf(subject);
      node.streams.push(entry.stream);
      if (entry.displayName !== undefined) node.displayName = entry.displayName;
    }
    return {
      streams,
      resources,
      byUid,
      subjectOf: (stream) => subjects.get(stream),
      find: (s) => {
        const exact = resources.get(subjectKey(s));
        if (exact) return exact;
        // a Server created through the API is named by a UUIDv5; its user knows the name the API was given
        return [...resources.values()].find((n) => n.kind === s.kind && n.namespace === s.namespace && n.displayName === s.name);
      },
    };
  }
}
