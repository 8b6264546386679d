/**
 * The server API's audit streams (`api-server-<resource uid>`, src/api/audit.ts) as the audit tools read them.
 *
 * No machine owns these streams, so nothing here folds. Every event's data names the Server it was about: its
 * resource uid (the stream's key), namespace, API id (the resource's name, a UUIDv5 of network and name) and the
 * name the API was given (`serverName`, the v2 body's `metadata.name`). That is all the rest of Regent knows of
 * a Server created through the API besides a UUID, so the pages, `regent streams --resource` and the short stream
 * names read it from here: the user holds `api-1` and the id the API returned, never the uid.
 *
 * Events recorded before `metadata.subject` was written on API events name their Server only in their data;
 * `recordedSubject` reads either, so an older store's API history is still found by name.
 */
import type { RecordedEvent } from '../../events/envelope.js';
import type { Subject } from '../../engine/engine.js';
import type { EventStore } from '../../store/port.js';
import { AUDIT_STREAM_PREFIX } from '../../api/audit.js';

/** A Server as the API's audit events name it. */
export interface ApiServer {
  stream: string;
  uid: string;
  namespace: string;
  /** The id the API returned (`metadata.id`): the Server resource's name. */
  id: string;
  /** The name the API was given (`metadata.name` in the v2 body; `spec.name` of the resource). */
  serverName: string;
}

export const isApiServerStream = (stream: string): boolean => stream.startsWith(AUDIT_STREAM_PREFIX);

const text = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The Server an API event's data names; undefined for another stream or data of another shape. */
export const apiServerOf = (event: RecordedEvent | undefined): ApiServer | undefined => {
  if (!event || !isApiServerStream(event.stream)) return undefined;
  const server = (event.data as { server?: Record<string, unknown> }).server;
  if (!server || !text(server.uid) || !text(server.namespace) || !text(server.name) || !text(server.serverName)) return undefined;
  return { stream: event.stream, uid: server.uid, namespace: server.namespace, id: server.name, serverName: server.serverName };
};

/** The resource an event belongs to: the subject it recorded, else (an API event recorded before subjects) the Server its data names. */
export const recordedSubject = (event: RecordedEvent | undefined): Subject | undefined => {
  if (event?.metadata.subject) return event.metadata.subject;
  const server = apiServerOf(event);
  return server ? { kind: 'Server', namespace: server.namespace, name: server.id } : undefined;
};

/**
 * Every Server the API recorded, read from the first event of each `api-server-` stream. A stream's Server
 * never changes (the uid is its key; API ids and names are immutable), so each stream is read once per
 * instance and only new streams afterwards. One entry per Server ever created through the API: a few hundred
 * bytes each, kept for the life of the audit server or command that made the instance.
 */
export class ApiServers {
  private readonly byStream = new Map<string, ApiServer | null>();

  constructor(private readonly store: Pick<EventStore, 'listStreams' | 'readStream'>) {}

  async list(): Promise<ApiServer[]> {
    const streams = await this.store.listStreams({ streamPrefixes: [AUDIT_STREAM_PREFIX] });
    await Promise.all(
      streams
        .filter((s) => !this.byStream.has(s.stream))
        .map(async (s) => {
          const [first] = await this.store.readStream(s.stream, { maxCount: 1 });
          this.byStream.set(s.stream, apiServerOf(first) ?? null);
        }),
    );
    return streams.map((s) => this.byStream.get(s.stream)).filter((s): s is ApiServer => s !== null && s !== undefined);
  }

  /** `namespace/id` → the name the API was given, for every Server the API recorded. */
  async displayNames(): Promise<DisplayNames> {
    return new Map((await this.list()).map((s) => [`${s.namespace}/${s.id}`, s.serverName]));
  }
}

/** `namespace/name` of a Server resource → the name the API was given it. */
export type DisplayNames = ReadonlyMap<string, string>;

/** The name a subject is shown by when it is not its resource name (a Server created through the API); else undefined. */
export const displayNameOf = (names: DisplayNames, subject: { kind: string; namespace: string; name: string } | undefined): string | undefined => {
  if (!subject || subject.kind !== 'Server') return undefined;
  const name = names.get(`${subject.namespace}/${subject.name}`);
  return name !== undefined && name !== subject.name ? name : undefined;
};
