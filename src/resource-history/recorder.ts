/**
 * The resource recorder (issue 30, "who"): every change of a resource's desired state, and every status Regent
 * wrote for it, as one event in the resource's own stream `resource-<uid>` (stream.ts). The control plane's leader
 * hands it every object its informers deliver and, when it starts leading, every cached object; the recorder
 * compares with what the stream last recorded and appends only what is new, so it is idempotent: a restart, a
 * second leader term or a replayed informer event records nothing twice.
 *
 * What it records for an object:
 *   - `resource.specChanged` when the spec (secrets as digests) differs from the last recorded one, or nothing is
 *     recorded yet: the generation, the field changes, the author (author.ts) — with the generations it never saw
 *     (two writes between two informer deliveries) counted, never invented;
 *   - `resource.deletionRequested` once deletionTimestamp is set; `resource.deleted` when the object is gone;
 *   - `resource.statusChanged` when the status differs from the last recorded one.
 *
 * Each append names the stream revision it read (expected revision): a concurrent writer (the admission webhook's
 * resource.admitted, another replica in a lease hand-over) makes it reload and decide again, so no record is lost
 * or doubled. Per resource the work is serialized; across resources it runs as the informers deliver.
 */
import { v7 as uuidv7 } from 'uuid';
import type { EventStore } from '../store/port.js';
import { WrongExpectedVersion } from '../store/errors.js';
import type { NewEvent, RecordedEvent, Source } from '../events/envelope.js';
import { structuralDiff } from '../events/structural-diff.js';
import { canonicalJson } from '../resources/codec/transitions.js';
import { authorOf } from './author.js';
import { digestSecrets, sha256Of } from './digest-secrets.js';
import { recordEvent, resourceStream, type Admitted, type ChangeAuthor, type FieldChange, type ResourceRecord, type ResourceRef } from './stream.js';

/** What the recorder needs of an object (any kind, either store). */
export interface RecordedObject {
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid: string;
    generation: number;
    deletionTimestamp?: string;
    finalizers?: string[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    managedFields?: unknown;
  };
  spec?: unknown;
  status?: unknown;
}

export interface RecorderOptions {
  store: EventStore;
  /** Where the objects live: decides what an author stamp is worth (author.ts). */
  platform: 'embedded' | 'kubernetes';
  now?: () => Date;
  onError?: (error: unknown, object: ResourceRef) => void;
  /**
   * The leadership lease, as the engine's appends are fenced on it: while this process does not lead nothing is
   * recorded (the next leader records it when it starts), and every record names the term it was written under.
   */
  fence?: { current(): { holder: string; term: number } | undefined };
}

/** What the stream last recorded of a resource. */
interface Head {
  revision: number | undefined;
  generation: number | undefined;
  spec: Record<string, unknown> | undefined;
  status: Record<string, unknown> | undefined;
  deletionRecorded: boolean;
  deletedRecorded: boolean;
  /** Admission records after the last specChanged, newest last. */
  admitted: Admitted[];
}

const PAGE = 200;

/** Field changes between two recorded values, with the root (`spec`, `status`) in front of every path. */
export const fieldChanges = (root: string, before: unknown, after: unknown): FieldChange[] =>
  structuralDiff(before ?? {}, after ?? {}).map((c) => ({
    path: c.path === '' ? root : `${root}.${c.path}`,
    ...(c.kind !== 'added' ? { from: c.before } : {}),
    ...(c.kind !== 'removed' ? { to: c.after } : {}),
  }));

const refOf = (o: RecordedObject): ResourceRef => ({ kind: o.kind, namespace: o.metadata.namespace ?? 'default', name: o.metadata.name, uid: o.metadata.uid });

/** The spec digest the admission webhook and the recorder agree on. */
export const specDigestOf = (spec: unknown): string => sha256Of(spec ?? {});

export class ResourceRecorder {
  private readonly heads = new Map<string, Head>();
  private readonly queues = new Map<string, Promise<void>>();
  private readonly now: () => Date;

  constructor(private readonly options: RecorderOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** Records what is new about a live object (its spec, its deletion request, its status). */
  observe(object: RecordedObject): Promise<void> {
    return this.serialized(object, () => this.record(object, false));
  }

  /** Records that the object is gone (the informer's DELETED: its last state). */
  deleted(object: RecordedObject): Promise<void> {
    return this.serialized(object, () => this.record(object, true));
  }

  /** Waits for everything handed in so far (tests, a clean stop). */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()]);
  }

  private serialized(object: RecordedObject, work: () => Promise<void>): Promise<void> {
    const uid = object.metadata.uid;
    const before = this.queues.get(uid) ?? Promise.resolve();
    const next = before
      .then(work)
      .catch((error: unknown) => this.options.onError?.(error, refOf(object)))
      .finally(() => {
        if (this.queues.get(uid) === next) this.queues.delete(uid);
      });
    this.queues.set(uid, next);
    return next;
  }

  private async record(object: RecordedObject, gone: boolean): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const head = await this.head(object.metadata.uid);
      const events = this.decide(object, gone, head);
      if (events.length === 0) return;
      const leader = this.options.fence?.current();
      if (this.options.fence && !leader) return;
      try {
        const stream = resourceStream(object.metadata.uid);
        const stamped = events.map(({ event }) => (leader ? { ...event, metadata: { ...event.metadata, leader: { holder: leader.holder, term: leader.term } } } : event));
        await this.options.store.append(stream, stamped, { expectedRevision: head.revision ?? 'no_stream' });
        let revision = head.revision ?? -1;
        for (const { record } of events) this.fold(head, record, ++revision);
        return;
      } catch (error) {
        // another writer appended to the stream (the webhook, a replica): read it again and decide again
        this.heads.delete(object.metadata.uid);
        if (!(error instanceof WrongExpectedVersion) || attempt >= 4) throw error;
      }
    }
  }

  /** What to append for the object given what the stream holds: in order spec, deletion, status, gone. */
  private decide(object: RecordedObject, gone: boolean, head: Head): Array<{ event: NewEvent; record: ResourceRecord }> {
    const ref = refOf(object);
    const out: Array<{ event: NewEvent; record: ResourceRecord }> = [];
    const generation = object.metadata.generation;
    if (head.deletedRecorded) return out;
    const spec = digestSecrets((object.spec ?? {}) as Record<string, unknown>);
    const deleting = object.metadata.deletionTimestamp !== undefined;
    if (head.spec === undefined || canonicalJson(spec) !== canonicalJson(head.spec)) {
      const admitted = [...head.admitted].reverse().find((a) => a.specDigest === specDigestOf(object.spec));
      const context = { platform: this.options.platform, ...(admitted ? { admitted: { username: admitted.user.username } } : {}) } as const;
      // a deletion bumps the generation once without a spec change: the spec's own generation is the one before it
      const specGeneration = deleting ? Math.max(1, generation - 1) : generation;
      const previous = head.generation ?? null;
      const missed = previous === null ? specGeneration - 1 : specGeneration - previous - 1;
      const record: ResourceRecord = {
        type: 'resource.specChanged',
        ...ref,
        generation: specGeneration,
        previousGeneration: previous,
        ...(missed > 0 ? { missedGenerations: missed } : {}),
        spec,
        changes: fieldChanges('spec', head.spec, spec),
        ...(object.metadata.labels ? { labels: object.metadata.labels } : {}),
        author: authorOf(object, specGeneration, context),
      };
      out.push(this.event(record, record.author, previous === null ? null : `generation ${previous}`, `generation ${specGeneration}`));
    }
    if (deleting && !head.deletionRecorded) {
      const author = authorOf(object, generation, { platform: this.options.platform });
      const record: ResourceRecord = { type: 'resource.deletionRequested', ...ref, generation, finalizers: object.metadata.finalizers ?? [], author };
      out.push(this.event(record, author, `generation ${head.generation ?? generation}`, 'deletion requested'));
    }
    const status = digestSecrets((object.status ?? {}) as Record<string, unknown>);
    const hasStatus = Object.keys(status).length > 0;
    if (!gone && (head.status !== undefined ? canonicalJson(status) !== canonicalJson(head.status) : hasStatus)) {
      const record: ResourceRecord = { type: 'resource.statusChanged', ...ref, generation, status, changes: fieldChanges('status', head.status, status) };
      out.push(this.event(record, undefined, null, 'status written'));
    }
    if (gone) {
      const author = authorOf(object, generation, { platform: this.options.platform });
      const record: ResourceRecord = { type: 'resource.deleted', ...ref, author };
      out.push(this.event(record, author, deleting ? 'deletion requested' : `generation ${generation}`, 'deleted'));
    }
    return out;
  }

  private event(record: ResourceRecord, author: ChangeAuthor | undefined, from: string | null, to: string): { event: NewEvent; record: ResourceRecord } {
    const source: Source = author === undefined ? 'reconciler' : author.channel === 'api' ? 'api' : 'operator';
    const actor = author === undefined ? 'regent status runner' : (author.name ?? author.manager ?? 'unknown');
    return {
      record,
      event: recordEvent(record, { id: uuidv7(), source, actor, correlationId: author?.requestId ?? uuidv7(), from, to, recordedAt: this.now().toISOString() }),
    };
  }

  private fold(head: Head, record: ResourceRecord, revision: number): void {
    head.revision = revision;
    switch (record.type) {
      case 'resource.specChanged':
        head.spec = record.spec;
        head.generation = record.generation;
        head.admitted = [];
        break;
      case 'resource.statusChanged':
        head.status = record.status;
        break;
      case 'resource.deletionRequested':
        head.deletionRecorded = true;
        break;
      case 'resource.deleted':
        head.deletedRecorded = true;
        break;
      case 'resource.admitted':
        head.admitted.push(record);
        break;
    }
  }

  /** What the stream holds, read backwards until the last spec and status are known (then cached). */
  private async head(uid: string): Promise<Head> {
    const cached = this.heads.get(uid);
    if (cached) return cached;
    const head: Head = { revision: undefined, generation: undefined, spec: undefined, status: undefined, deletionRecorded: false, deletedRecorded: false, admitted: [] };
    const stream = resourceStream(uid);
    const newestFirst: RecordedEvent[] = [];
    let from: number | undefined;
    for (;;) {
      const page = await this.options.store.readStream(stream, { direction: 'backwards', maxCount: PAGE, ...(from !== undefined ? { fromRevision: from } : {}) });
      newestFirst.push(...page);
      const last = page.at(-1);
      const types = new Set(newestFirst.map((e) => e.type));
      if (page.length < PAGE || !last || last.revision === 0 || (types.has('resource.specChanged') && types.has('resource.statusChanged'))) break;
      from = last.revision - 1;
    }
    head.revision = newestFirst[0]?.revision;
    let specSeen = false;
    let statusSeen = false;
    for (const event of newestFirst) {
      const record = event.data as unknown as ResourceRecord;
      if (record.type === 'resource.specChanged' && !specSeen) {
        specSeen = true;
        head.spec = record.spec;
        head.generation = record.generation;
      } else if (record.type === 'resource.statusChanged' && !statusSeen) {
        statusSeen = true;
        head.status = record.status;
      } else if (record.type === 'resource.admitted' && !specSeen) head.admitted.unshift(record);
      else if (record.type === 'resource.deletionRequested') head.deletionRecorded = true;
      else if (record.type === 'resource.deleted') head.deletedRecorded = true;
    }
    this.heads.set(uid, head);
    return head;
  }
}
