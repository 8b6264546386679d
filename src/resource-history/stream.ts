/**
 * A resource's own stream (issue 30, "who"): `resource-<uid>` records every change of the resource's desired
 * state — its generation, the spec (secrets as digests), what changed from the spec recorded before, the author
 * and the channel — and every status Regent wrote for it. No machine decides these events: the desired state was
 * decided by whoever wrote it, the status by the projections; this stream is the record the audit pages start an
 * incident review from (the authorization chain of a destructive effect begins at the change that asked for it).
 *
 *   resource.specChanged        a new generation (created: generation 1, or the first generation Regent saw)
 *   resource.deletionRequested  deletionTimestamp set (the object waits for its finalizers)
 *   resource.deleted            the object is gone
 *   resource.statusChanged      a status Regent wrote (the whole status after the write, and what changed)
 *   resource.admitted           the admission webhook's record of a request (the authenticated user), matched to
 *                               the next specChanged by the spec's digest
 *
 * Every event names its resource in `metadata.subject`, like the machines' events, so histories are found by name
 * after the resource is gone. `metadata.machine` is `resource` and no machine is registered under that id: the
 * pages show these streams as plain timelines.
 */
import type { NewEvent, RecordedEvent, Source } from '../events/envelope.js';

export const RESOURCE_STREAM_PREFIX = 'resource-';
export const RESOURCE_RECORD = 'resource';

export const resourceStream = (uid: string): string => `${RESOURCE_STREAM_PREFIX}${uid}`;
export const isResourceStream = (stream: string): boolean => stream.startsWith(RESOURCE_STREAM_PREFIX);

/** How a change reached Regent. */
export type ChangeChannel = 'regent-cli' | 'api' | 'kubernetes' | 'examples' | 'unknown';

export const CHANNEL_TEXT: Record<ChangeChannel, string> = {
  'regent-cli': 'regent CLI',
  api: 'REST API',
  kubernetes: 'Kubernetes',
  examples: 'first-start examples',
  unknown: 'unknown channel',
};

/** Who asked for a change, as far as Regent can know. */
export interface ChangeAuthor {
  /** The person or principal; null when Regent cannot know it (then `unknownReason` says why). */
  name: string | null;
  channel: ChangeChannel;
  /**
   * True only when someone authenticated the name: the REST API's token subject, the Kubernetes API server's
   * userInfo (through the admission webhook). A name the CLI states (the invoking user, `--as`) is not verified.
   */
  verified: boolean;
  /** Kubernetes: the field manager of the write (managedFields), e.g. `kubectl-client-side-apply`. */
  manager?: string;
  /** The request that carried the change (the REST API's request id, which its `api-server-<uid>` event also names). */
  requestId?: string;
  /** Why the name is unknown, in a sentence for the page. */
  unknownReason?: string;
}

/** One changed member between two recorded specs (or statuses): `spec.image`, `status.conditions[2].status`. */
export interface FieldChange {
  path: string;
  /** Absent: the member was added. */
  from?: unknown;
  /** Absent: the member was removed. */
  to?: unknown;
}

export interface ResourceRef {
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

export interface SpecChanged extends ResourceRef {
  type: 'resource.specChanged';
  generation: number;
  /** The generation recorded before this one; null when this is the first record of the resource. */
  previousGeneration: number | null;
  /** Generations that were written but never seen (two quick writes: the informer delivered the later one). */
  missedGenerations?: number;
  /** The whole spec after the change, secrets as `sha256:` digests. */
  spec: Record<string, unknown>;
  /** What changed from the spec recorded before (for the first record: every member, without `from`). */
  changes: FieldChange[];
  labels?: Record<string, string>;
  author: ChangeAuthor;
}

export interface DeletionRequested extends ResourceRef {
  type: 'resource.deletionRequested';
  generation: number;
  finalizers: string[];
  author: ChangeAuthor;
}

export interface Deleted extends ResourceRef {
  type: 'resource.deleted';
  author: ChangeAuthor;
}

export interface StatusChanged extends ResourceRef {
  type: 'resource.statusChanged';
  /** The object's generation when the status was written. */
  generation: number;
  /** The whole status after the write (secrets as digests). */
  status: Record<string, unknown>;
  changes: FieldChange[];
}

export interface Admitted extends ResourceRef {
  type: 'resource.admitted';
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  /** sha256 of the canonical spec the request carried (`specDigest`). */
  specDigest: string;
  user: { username: string; groups?: string[] };
  requestUid: string;
}

export type ResourceRecord = SpecChanged | DeletionRequested | Deleted | StatusChanged | Admitted;

/** The record an event carries, or undefined for an event of another stream or shape. */
export const resourceRecordOf = (event: RecordedEvent): ResourceRecord | undefined => {
  if (!isResourceStream(event.stream)) return undefined;
  const data = event.data as Partial<ResourceRecord>;
  if (typeof data.type !== 'string' || !data.type.startsWith('resource.') || typeof data.uid !== 'string' || typeof data.kind !== 'string') return undefined;
  return data as ResourceRecord;
};

const VALUE_CHARS = 60;
const shortValue = (value: unknown): string => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
};

/** `spec.image.name: a → b; +spec.volumes[1]: {…}; -spec.userData` — at most three, then how many more. */
export const describeFieldChanges = (changes: readonly FieldChange[] | undefined): string => {
  const list = changes ?? [];
  const one = (c: FieldChange) => (!('from' in c) ? `+${c.path}: ${shortValue(c.to)}` : !('to' in c) ? `-${c.path}` : `${c.path}: ${shortValue(c.from)} → ${shortValue(c.to)}`);
  const shown = list.slice(0, 3).map(one).join('; ');
  return list.length > 3 ? `${shown}; +${list.length - 3} more` : shown || 'no member changed';
};

/** "alice via regent CLI", "kubectl-client-side-apply via Kubernetes (user unknown: …)", "unknown author". */
export const describeAuthor = (author: ChangeAuthor | undefined): string => {
  if (!author) return 'unknown author (recorded before Regent recorded authors)';
  const via = CHANNEL_TEXT[author.channel] ?? author.channel;
  if (author.name) return `${author.name} via ${via}${author.verified ? '' : ' (as stated, not authenticated)'}`;
  const manager = author.manager ? `${author.manager} ` : '';
  return `${manager}via ${via} (user unknown${author.unknownReason ? `: ${author.unknownReason}` : ''})`;
};

/** The event that carries a record: no machine decided it, so machine `resource`, no effects, its resource as subject. */
export const recordEvent = (
  record: ResourceRecord,
  meta: { id: string; source: Source; actor: string; correlationId: string; from: string | null; to: string; recordedAt: string },
): NewEvent => ({
  id: meta.id,
  type: record.type,
  data: record as unknown as NewEvent['data'],
  metadata: {
    machine: RESOURCE_RECORD,
    machineVersion: 1,
    schemaVersion: 1,
    source: meta.source,
    actor: meta.actor,
    correlationId: meta.correlationId,
    causationId: null,
    from: meta.from,
    to: meta.to,
    effects: [],
    recordedAt: meta.recordedAt,
    subject: { kind: record.kind, namespace: record.namespace, name: record.name },
  },
});
