/**
 * Watches for the fake API server's generic store (./fake-objects.ts) and its core/v1 Secrets: `GET <collection>?watch=true`
 * streamed as the API server streams it, one JSON line per event (`{"type":"ADDED"|"MODIFIED"|"DELETED","object":…}`).
 *
 * OFF until a test calls `enable()`: by default a watch is not served (it 404s and lands in `unexpected`), so a test of
 * an adapter that must never watch still proves it. Every change is recorded either way.
 *
 * Semantics, the API server's where a watcher can tell:
 * - the store calls `record(type, collection, object)` on every write: ADDED, MODIFIED, or DELETED carrying a
 *   resourceVersion newer than the object's last (the API server's delete is a write too);
 * - a watch from `resourceVersion` N replays the recorded events of its collection (and namespace, when the path names
 *   one) newer than N, then streams live ones. `compact()` drops the history: a resume from a version older than the
 *   newest one recorded then gets `{"type":"ERROR","object":<Status 410 Expired>}` and the stream ends, so the watcher
 *   relists. A watch without a version (or "0") starts from now (the fake sends no synthetic ADDED of what exists);
 * - BOOKMARKs are never sent; `endAll()` ends every open stream, as a server-side timeout does;
 * - a collection is watchable once registered (`register(prefix/plural)`) and while `served(groupVersion)` says so,
 *   so an uninstalled group's watch falls through to the store's 404;
 * - a `labelSelector` on the watch streams only the events of objects it matches (their labels as the event carries
 *   them: the fake sends no DELETED for an object that stops matching).
 * Versions are numbers compared within a collection (the generic store and the Secrets count separately).
 */
import type { ServerResponse } from 'node:http';
import { matchesSelector, parseLabelSelector } from '../../../src/kube/secrets.js';

type Json = Record<string, unknown>;
export type FakeWatchType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Recorded {
  readonly type: FakeWatchType;
  readonly collection: string;
  readonly namespace: string | undefined;
  readonly version: number;
  readonly object: Json;
}

interface Stream {
  readonly collection: string;
  readonly namespace: string | undefined;
  readonly res: ServerResponse;
  readonly selector: ReturnType<typeof parseLabelSelector>;
}

/** A collection path: `/api/v1[/namespaces/<ns>]/<plural>` or `/apis/<group>/<version>[/namespaces/<ns>]/<plural>`. */
const COLLECTION = /^(\/api\/v1|\/apis\/([^/]+\/[^/]+))(?:\/namespaces\/([^/]+))?\/([a-z]+)$/;
/** The history kept per fake: enough for any test, bounded so a long test does not grow it forever. */
const HISTORY_LIMIT = 5000;

const meta = (o: Json): Json => (o.metadata ?? {}) as Json;
const expired = (version: string): Json => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${version}`, reason: 'Expired', code: 410 });

export class FakeObjectWatch {
  private readonly collections = new Set<string>();
  private readonly history: Recorded[] = [];
  private readonly streams = new Set<Stream>();
  /** Per collection: a resume from below this version after a compaction is 410 Gone. */
  private readonly compactedBelow = new Map<string, number>();
  private readonly newest = new Map<string, number>();
  private enabled = false;

  constructor(private readonly served: (groupVersion: string) => boolean = () => true) {}

  /** Serve `?watch=true` from now on (off by default, see the header). */
  enable(): void {
    this.enabled = true;
  }

  /** Makes `<prefix>/<plural>` (e.g. `/apis/batch/v1/jobs`) watchable. */
  register(collection: string): void {
    this.collections.add(collection);
  }

  /** Called by the store on every write; delivered at once to the open streams that cover it. */
  record(type: FakeWatchType, collection: string, object: Json): void {
    const namespace = meta(object).namespace as string | undefined;
    const version = Number(meta(object).resourceVersion);
    const event: Recorded = { type, collection, namespace, version, object: structuredClone(object) };
    this.history.push(event);
    if (this.history.length > HISTORY_LIMIT) this.history.shift();
    this.newest.set(collection, Math.max(version, this.newest.get(collection) ?? 0));
    for (const stream of this.streams) if (this.covers(stream, event)) this.write(stream.res, { type, object: event.object });
  }

  /** Forgets the history: a watch resuming from a version older than the newest recorded gets 410 Gone. */
  compact(): void {
    this.history.length = 0;
    for (const [collection, version] of this.newest) this.compactedBelow.set(collection, version);
  }

  /** Ends every open stream (the client sees the server close it, and resumes). */
  endAll(): void {
    for (const stream of this.streams) stream.res.end();
    this.streams.clear();
  }

  /** How many streams are open (a test waits for its watcher to be connected). */
  get open(): number {
    return this.streams.size;
  }

  /** Serves a watch when enabled and the path is a registered, served collection; false otherwise. */
  serve(request: { method: string; path: string; query: Record<string, string> }, res: ServerResponse): boolean {
    if (!this.enabled || request.method !== 'GET' || (request.query.watch !== 'true' && request.query.watch !== '1')) return false;
    const m = COLLECTION.exec(request.path);
    if (!m) return false;
    const [, prefix, groupVersion, namespace, plural] = m;
    const collection = `${prefix!}/${plural!}`;
    if (!this.collections.has(collection) || (groupVersion !== undefined && !this.served(groupVersion))) return false;
    const stream: Stream = { collection, namespace, res, selector: parseLabelSelector(request.query.labelSelector) };
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    // the API server answers a watch's headers at once; the client's watch() resolves (and can be aborted) only then
    res.flushHeaders();
    const from = request.query.resourceVersion;
    if (from !== undefined && from !== '' && from !== '0') {
      const version = Number(from);
      if (version < (this.compactedBelow.get(collection) ?? 0)) {
        this.write(res, { type: 'ERROR', object: expired(from) });
        res.end();
        return true;
      }
      for (const event of this.history) if (event.version > version && this.covers(stream, event)) this.write(res, { type: event.type, object: event.object });
    }
    this.streams.add(stream);
    res.on('close', () => this.streams.delete(stream));
    return true;
  }

  private covers(stream: Stream, event: Recorded): boolean {
    const labels = ((event.object.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {});
    return stream.collection === event.collection && (stream.namespace === undefined || stream.namespace === event.namespace) && matchesSelector(labels, stream.selector);
  }

  private write(res: ServerResponse, payload: Json): void {
    if (!res.writableEnded) res.write(`${JSON.stringify(payload)}\n`);
  }
}
