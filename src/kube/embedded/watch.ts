/**
 * Watching the change log. A watcher reads the changes after its version in one read snapshot
 * (together with the compaction mark and the head), delivers them one at a time, and then sleeps
 * until an in-process write wakes it or the poll interval passes (a write by another process). A
 * version below the compaction mark rejects `done` with Gone: the caller relists.
 *
 * After a batch that exhausted the log, the watcher's version moves to the head even when no change
 * was of its kind, so a quiet kind does not fall behind the compaction mark while others churn.
 */
import type Database from 'better-sqlite3';
import type { KindName, ObjectOf } from '../../resources/index.js';
import { BadRequest, Gone } from '../errors.js';
import type { WatchHandle, WatchHandler } from '../port.js';
import type { ChangeRow, Statements } from './statements.js';

const BATCH = 256;

export interface WatchContext {
  readonly db: Database.Database;
  readonly statements: Statements;
  readonly pollIntervalMs: number;
  /** Registers a wake-up for in-process writes; returns the unregister function. */
  readonly onWrite: (wake: () => void) => () => void;
}

interface Snapshot {
  rows: ChangeRow[];
  compacted: number;
  head: number;
}

export const watchChanges = <K extends KindName>(context: WatchContext, kind: K, namespace: string | undefined, from: string, handler: WatchHandler<K>): WatchHandle => {
  let version = from;
  let closed = false;
  let wake: (() => void) | undefined;
  const read = context.db.transaction((after: number): Snapshot => {
    const { statements } = context;
    const compacted = Number(statements.getMeta.get('compacted_through')?.value ?? 0);
    const head = Number(statements.getMeta.get('resource_version')?.value ?? 0);
    const rows = namespace === undefined ? statements.changesAll.all(kind, after, BATCH) : statements.changesNamespace.all(kind, namespace, after, BATCH);
    return { rows, compacted, head };
  });
  const sleep = (): Promise<void> =>
    new Promise((resolve) => {
      let unregister = (): void => undefined;
      const timer = setTimeout(() => done(), context.pollIntervalMs);
      const done = (): void => {
        clearTimeout(timer);
        unregister();
        wake = undefined;
        resolve();
      };
      unregister = context.onWrite(done);
      wake = done;
    });

  const loop = async (): Promise<void> => {
    if (!/^\d+$/.test(from)) throw new BadRequest(`invalid resourceVersion "${from}"`);
    let after = Number(from);
    while (!closed) {
      const snapshot = read(after);
      if (after < snapshot.compacted) throw new Gone(String(after));
      for (const row of snapshot.rows) {
        if (closed) return;
        await handler({ type: row.type, object: JSON.parse(row.body) as ObjectOf<K> });
        after = row.resource_version;
        version = String(after);
      }
      if (snapshot.rows.length < BATCH && !closed) {
        if (snapshot.head > after) {
          after = snapshot.head;
          version = String(after);
        }
        await sleep();
      }
    }
  };

  const done = loop();
  done.catch(() => undefined); // observed through `done`; never an unhandled rejection
  return {
    done,
    get resourceVersion() {
      return version;
    },
    async close() {
      closed = true;
      wake?.();
      await done.catch(() => undefined);
    },
  };
};
