/**
 * A watch over HTTP with the client's Watch: events are queued as the stream delivers them and
 * handed to the handler one at a time. BOOKMARK events only move the resume version. An ERROR event
 * with code 410 (or an HTTP 410) settles `done` with Gone, so the informer relists.
 */
import { Watch, type KubeConfig } from '@kubernetes/client-node';
import type { KindName, ObjectOf } from '../../resources/index.js';
import { Gone, SourceUnavailable } from '../errors.js';
import type { WatchHandle, WatchHandler } from '../port.js';
import { errorFromStatus, toResourceError } from './errors.js';

/** The server ends a watch after this long; the informer resumes from the last version. */
const WATCH_TIMEOUT_SECONDS = 300;

export const watchPath = <K extends KindName>(kc: KubeConfig, path: string, kind: K, from: string, handler: WatchHandler<K>): WatchHandle => {
  let version = from;
  let closed = false;
  let controller: AbortController | undefined;
  const queue: Array<{ type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: ObjectOf<K> }> = [];
  let draining: Promise<void> = Promise.resolve();
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  done.catch(() => undefined);
  let failure: unknown;
  let finished = false;

  const finish = (error?: unknown): void => {
    if (finished) return;
    finished = true;
    controller?.abort();
    // Deliver what already arrived, then settle (a handler failure wins over everything).
    void draining.then(() => {
      if (failure !== undefined) settle.reject(failure);
      else if (error === undefined || closed) settle.resolve();
      else settle.reject(error);
    });
  };

  const drain = async (): Promise<void> => {
    while (queue.length > 0 && !closed && failure === undefined) {
      const event = queue.shift()!;
      await handler(event);
      version = event.object.metadata.resourceVersion;
    }
  };

  const onEvent = (type: string, object: unknown): void => {
    if (closed || finished) return;
    const obj = object as { metadata?: { resourceVersion?: string }; code?: number };
    if (type === 'BOOKMARK') {
      const bookmark = obj.metadata?.resourceVersion;
      draining = draining.then(() => {
        if (bookmark) version = bookmark;
      });
      return;
    }
    if (type === 'ERROR') {
      finish(obj.code === 410 ? new Gone(version) : errorFromStatus(obj.code ?? 500, obj, { kind, namespace: '', name: '' }));
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
    queue.push({ type, object: object as ObjectOf<K> });
    draining = draining.then(drain).catch((error: unknown) => {
      failure = error;
      finish(error);
    });
  };

  const onDone = (error: unknown): void => {
    if (closed) return finish();
    if (error === null || error === undefined) return finish(); // the server ended the stream: resume
    const code = (error as { statusCode?: number }).statusCode;
    if (code === 410) return finish(new Gone(version));
    if (typeof code === 'number') return finish(toResourceError(error, { kind, namespace: '', name: '' }));
    return finish(new SourceUnavailable(`watch ${path} failed: ${(error as Error).message}`, { cause: error }));
  };

  new Watch(kc)
    .watch(path, { resourceVersion: from, allowWatchBookmarks: true, timeoutSeconds: WATCH_TIMEOUT_SECONDS }, onEvent, onDone)
    .then((c) => {
      controller = c;
      if (closed || finished) c.abort();
    })
    .catch(onDone);

  return {
    done,
    get resourceVersion() {
      return version;
    },
    async close() {
      closed = true;
      controller?.abort();
      finish();
      await done.catch(() => undefined);
    },
  };
};
