/**
 * `regent store copy`: every stream with its events, ids, metadata and global order, from one store to another
 * of any adapter (issue 15).
 *
 * The source is read in global position order and each run of consecutive events of one stream is appended to
 * the target with the expected revision it must have (`no_stream` for revision 0), so the target's order is the
 * source's and a revision can never be written twice. That makes the copy resumable after a kill: appends are
 * atomic, the target holds a prefix of each stream, and a new run skips every event at or below the target
 * stream's head (it reads the source again, writes nothing twice). A target stream that is ahead of or different
 * from the source stops the copy with CopyConflict: it is not a copy of this store.
 *
 * `verifyCopy` compares both sides event by event (id, type, revision, data, metadata) and the global order.
 */
import type { NewEvent, RecordedEvent } from '../events/envelope.js';
import { WrongExpectedVersion } from './errors.js';
import type { EventStore } from './port.js';

export class CopyConflict extends Error {
  override readonly name = 'CopyConflict';
}

export interface CopyProgress {
  /** Source events looked at so far (copied or already there). */
  done: number;
  /** Every event of the source when the copy began. */
  total: number;
  copied: number;
}

export interface CopyReport {
  streams: number;
  /** Source events when the copy began. */
  events: number;
  /** Written by this run. */
  copied: number;
  /** Already in the target (an earlier, interrupted run). */
  skipped: number;
  /** Streams whose head differs between the two sides after the copy (empty when the copy is whole). */
  headMismatches: Array<{ stream: string; source: number; target: number | undefined }>;
}

const toNew = (e: RecordedEvent): NewEvent => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata });

/** Runs of consecutive events of one stream, in order. */
const runsOf = (events: readonly RecordedEvent[]): RecordedEvent[][] => {
  const runs: RecordedEvent[][] = [];
  for (const event of events) {
    const last = runs.at(-1);
    if (last && last[0]!.stream === event.stream) last.push(event);
    else runs.push([event]);
  }
  return runs;
};

export const copyStore = async (
  from: EventStore,
  to: EventStore,
  options: { batchSize?: number; onProgress?: (progress: CopyProgress) => void } = {},
): Promise<CopyReport> => {
  const batchSize = options.batchSize ?? 500;
  const sourceStreams = await from.listStreams();
  const total = sourceStreams.reduce((sum, s) => sum + s.head + 1, 0);
  const heads = new Map((await to.listStreams()).map((s) => [s.stream, s.head]));
  let after = 0;
  let done = 0;
  let copied = 0;
  let skipped = 0;
  for (;;) {
    const page = await from.readAll({ after, maxCount: batchSize });
    if (page.length === 0) break;
    for (const run of runsOf(page)) {
      const stream = run[0]!.stream;
      const head = heads.get(stream) ?? -1;
      const missing = run.filter((e) => e.revision > head);
      skipped += run.length - missing.length;
      if (missing.length > 0) {
        const first = missing[0]!.revision;
        if (first !== head + 1) throw new CopyConflict(`stream ${stream}: the target's head is revision ${head}, the next source event is revision ${first}`);
        try {
          await to.append(stream, missing.map(toNew), { expectedRevision: first === 0 ? 'no_stream' : first - 1 });
        } catch (error) {
          if (error instanceof WrongExpectedVersion) throw new CopyConflict(`stream ${stream} changed in the target while copying (${error.message}): is something else writing to it?`);
          throw error;
        }
        heads.set(stream, missing.at(-1)!.revision);
        copied += missing.length;
      }
    }
    done += page.length;
    after = page.at(-1)!.position;
    options.onProgress?.({ done, total, copied });
  }
  const headMismatches = [];
  for (const s of sourceStreams) {
    const target = await to.streamHead(s.stream);
    if (target !== s.head) headMismatches.push({ stream: s.stream, source: s.head, target });
  }
  return { streams: sourceStreams.length, events: total, copied, skipped, headMismatches };
};

/** Checks, before copying, that every stream the target already holds is a prefix of the source's. */
export const checkResumable = async (from: EventStore, to: EventStore): Promise<void> => {
  for (const t of await to.listStreams()) {
    const sourceHead = await from.streamHead(t.stream);
    if (sourceHead === undefined) continue; // the target's own stream: copied around, never touched
    if (t.head > sourceHead) throw new CopyConflict(`stream ${t.stream}: the target is at revision ${t.head}, ahead of the source (${sourceHead})`);
    const [targetLast] = await to.readStream(t.stream, { direction: 'backwards', maxCount: 1 });
    const [sourceSame] = await from.readStream(t.stream, { fromRevision: t.head, maxCount: 1 });
    if (targetLast && sourceSame && targetLast.id !== sourceSame.id) {
      throw new CopyConflict(`stream ${t.stream}: revision ${t.head} is event ${targetLast.id} in the target but ${sourceSame.id} in the source: the target is not a copy of this store`);
    }
  }
};

export interface VerifyReport {
  streams: number;
  events: number;
  /** The first differences found (at most `limit`). */
  differences: string[];
}

const same = (a: RecordedEvent, b: RecordedEvent): string | null => {
  if (a.id !== b.id) return `id ${a.id} ≠ ${b.id}`;
  if (a.type !== b.type) return `type ${a.type} ≠ ${b.type}`;
  if (JSON.stringify(a.data) !== JSON.stringify(b.data)) return 'data differs';
  if (JSON.stringify(a.metadata) !== JSON.stringify(b.metadata)) return 'metadata differs';
  return null;
};

/** Both sides event by event, then the global order of the source's events in the target. */
export const verifyCopy = async (from: EventStore, to: EventStore, options: { limit?: number } = {}): Promise<VerifyReport> => {
  const limit = options.limit ?? 20;
  const differences: string[] = [];
  const note = (d: string) => void (differences.length < limit && differences.push(d));
  const streams = await from.listStreams();
  let events = 0;
  for (const s of streams) {
    const [a, b] = await Promise.all([from.readStream(s.stream), to.readStream(s.stream)]);
    events += a.length;
    if (a.length !== b.length) note(`${s.stream}: ${a.length} events in the source, ${b.length} in the target`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = same(a[i]!, b[i]!);
      if (d) note(`${s.stream}@${a[i]!.revision}: ${d}`);
    }
  }
  // the global order: the source's events appear in the target in the same order
  const sourceIds = new Set<string>();
  const order: string[] = [];
  for (let after = 0; ; ) {
    const page = await from.readAll({ after, maxCount: 1000 });
    if (page.length === 0) break;
    for (const e of page) {
      sourceIds.add(e.id);
      order.push(e.id);
    }
    after = page.at(-1)!.position;
  }
  let i = 0;
  for (let after = 0; ; ) {
    const page = await to.readAll({ after, maxCount: 1000 });
    if (page.length === 0) break;
    for (const e of page) {
      if (!sourceIds.has(e.id)) continue;
      if (order[i] !== e.id) {
        note(`global order: the target's event ${e.id} comes where the source has ${order[i]}`);
        return { streams: streams.length, events, differences };
      }
      i++;
    }
    after = page.at(-1)!.position;
  }
  return { streams: streams.length, events, differences };
};
