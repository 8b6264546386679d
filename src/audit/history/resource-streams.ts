/**
 * The resources' own streams (`resource-<uid>`, src/resource-history/stream.ts) as the audit pages read them: which
 * streams belong to a resource by name (kind, namespace, name — a name outlives its uid: deleted and created again,
 * it has two), the change a decision followed, the spec and status at any revision.
 *
 * One index per AuditViews (no module-level state): the stream list is read again only when the store has more
 * resource streams than the index knows, and each stream's subject is read once (its first event names it).
 */
import type { EventStore } from '../../store/port.js';
import type { RecordedEvent } from '../../events/envelope.js';
import { RESOURCE_STREAM_PREFIX, resourceRecordOf, type ResourceRecord, type SpecChanged, type StatusChanged } from '../../resource-history/stream.js';

export interface Subject {
  kind: string;
  namespace: string;
  name: string;
}

export const subjectKey = (s: Subject): string => `${s.kind}/${s.namespace}/${s.name}`;

export interface ResourceAt {
  /** The resource stream and the revision read up to. */
  stream: string;
  revision: number;
  uid: string;
  spec: SpecChanged | undefined;
  status: StatusChanged | undefined;
  deleted: boolean;
  deletionRequested: boolean;
}

const PAGE = 500;

export class ResourceStreamIndex {
  private readonly byStream = new Map<string, Subject>();
  private known = -1;

  constructor(private readonly store: EventStore) {}

  /** Every resource stream of the subject, oldest first (by the position of its last event). */
  async streamsOf(subject: Subject): Promise<string[]> {
    const streams = await this.store.listStreams({ streamPrefixes: [RESOURCE_STREAM_PREFIX] });
    if (streams.length !== this.known) {
      for (const info of streams) {
        if (this.byStream.has(info.stream)) continue;
        const first = (await this.store.readStream(info.stream, { fromRevision: 0, maxCount: 1 }))[0];
        const s = first?.metadata.subject;
        if (s) this.byStream.set(info.stream, { kind: s.kind, namespace: s.namespace, name: s.name });
      }
      this.known = streams.length;
    }
    const key = subjectKey(subject);
    return streams.filter((i) => this.byStream.has(i.stream) && subjectKey(this.byStream.get(i.stream) as Subject) === key).sort((a, b) => a.lastPosition - b.lastPosition).map((i) => i.stream);
  }

  /** Every subject with a resource stream. */
  async subjects(): Promise<Array<Subject & { stream: string }>> {
    await this.streamsOf({ kind: '', namespace: '', name: '' });
    return [...this.byStream.entries()].map(([stream, s]) => ({ ...s, stream }));
  }

  /**
   * The last change of desired state recorded at or before `at` (RFC 3339) in the subject's streams: the change a
   * decision taken at `at` followed. Undefined when none was recorded (a history older than the records).
   */
  async changeBefore(subject: Subject, at: string): Promise<{ event: RecordedEvent; record: SpecChanged } | undefined> {
    const streams = await this.streamsOf(subject);
    for (const stream of streams.reverse()) {
      let from: number | undefined;
      for (;;) {
        const page = await this.store.readStream(stream, { direction: 'backwards', maxCount: PAGE, ...(from !== undefined ? { fromRevision: from } : {}) });
        for (const event of page) {
          const record = resourceRecordOf(event);
          if (record?.type === 'resource.specChanged' && event.metadata.recordedAt <= at) return { event, record };
        }
        const last = page.at(-1);
        if (!last || page.length < PAGE || last.revision === 0) break;
        from = last.revision - 1;
      }
    }
    return undefined;
  }

  /** The resource as its stream recorded it up to `revision` (default: the head): spec, status, deletion. */
  async at(stream: string, revision?: number): Promise<ResourceAt | undefined> {
    const out: Partial<ResourceAt> & { deleted: boolean; deletionRequested: boolean } = { deleted: false, deletionRequested: false };
    let from = 0;
    let last: RecordedEvent | undefined;
    for (;;) {
      const page = await this.store.readStream(stream, { fromRevision: from, maxCount: PAGE });
      for (const event of page) {
        if (revision !== undefined && event.revision > revision) break;
        last = event;
        const record: ResourceRecord | undefined = resourceRecordOf(event);
        if (!record) continue;
        out.uid = record.uid;
        if (record.type === 'resource.specChanged') out.spec = record;
        else if (record.type === 'resource.statusChanged') out.status = record;
        else if (record.type === 'resource.deletionRequested') out.deletionRequested = true;
        else if (record.type === 'resource.deleted') out.deleted = true;
      }
      const tail = page.at(-1);
      if (!tail || page.length < PAGE || (revision !== undefined && tail.revision >= revision)) break;
      from = tail.revision + 1;
    }
    if (!last || out.uid === undefined) return undefined;
    return { stream, revision: last.revision, uid: out.uid, spec: out.spec, status: out.status, deleted: out.deleted, deletionRequested: out.deletionRequested };
  }
}
