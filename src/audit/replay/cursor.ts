/**
 * A replay cursor: the state of a stream "as of event N", for stepping forwards and backwards through
 * a history (terminal `--step`, the web page's ←/→). It folds with the same pure functions as
 * `replayAt` and keeps a folded snapshot every `every` revisions, so going back or jumping costs at
 * most `every` folds after the first pass, and a 100,000-event stream is read page by page, never
 * loaded whole.
 *
 * With a shelf (../history/shelf.ts) the checkpoints outlive the process: a new cursor over a stream
 * another one folded starts from the kept frame nearest below its target (the event at that revision
 * read back and compared by id first), so even its first `at` costs at most one interval.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { RecordedEvent } from '../../events/envelope.js';
import type { EventStore } from '../../store/port.js';
import type { MachineDefinition } from '../../../machines/definition.js';
import { upcasters as shippedUpcasters } from '../../../migrations/index.js';
import type { Upcaster } from '../../../migrations/upcaster.js';
import { advance, initialSnapshot } from '../../engine/fold.js';
import { storedStimulus } from '../../engine/load.js';
import { streamEvents } from '../../engine/pages.js';
import { checkpointKey, eventAt, parseFrames, persistSnapshot, restoreSnapshot, serializeFrames, type FrameCheckpoint } from '../history/checkpoint.js';
import type { CheckpointShelf } from '../history/shelf.js';

export interface ReplayFrame {
  stream: string;
  definition: MachineDefinition;
  /** Revision of the last event applied; -1 before the first event. */
  revision: number;
  event: RecordedEvent | undefined;
  snapshot: AnyMachineSnapshot;
  /** What the control plane knew of the cloud then: the last monitor observation applied. */
  lastObservation: RecordedEvent | undefined;
  /** What it had decided: the last reconciler, operator or api event applied. */
  lastDecision: RecordedEvent | undefined;
}

const DECIDERS = new Set(['reconciler', 'operator', 'api']);

export class ReplayCursor {
  private readonly checkpoints = new Map<number, ReplayFrame>();
  private last: ReplayFrame;
  /** Frames on the shelf by revision (loaded on the first `at`), and the newest revision the shelf holds. */
  private kept: Map<number, FrameCheckpoint> | undefined;
  private keptUpTo = -1;

  constructor(
    private readonly store: EventStore,
    readonly stream: string,
    readonly definition: MachineDefinition,
    private readonly upcasters: readonly Upcaster[] = shippedUpcasters,
    private readonly every = 1000,
    private readonly shelf?: CheckpointShelf,
  ) {
    this.last = { stream, definition, revision: -1, event: undefined, snapshot: initialSnapshot(definition, stream), lastObservation: undefined, lastDecision: undefined };
    this.checkpoints.set(-1, this.last);
  }

  /** Current head revision of the stream (-1 when empty). */
  async head(): Promise<number> {
    return (await this.store.streamHead(this.stream)) ?? -1;
  }

  /** The frame after applying every event up to and including `revision` (clamped to the head). */
  async at(revision: number): Promise<ReplayFrame> {
    const target = Math.min(Math.max(revision, -1), await this.head());
    let start = this.last.revision <= target ? this.last : this.nearestCheckpoint(target);
    const kept = await this.nearestKept(target);
    if (kept && kept.revision > start.revision) start = (await this.restore(kept)) ?? start;
    if (start.revision === target) return (this.last = start);
    for await (const event of streamEvents(this.store, this.stream, start.revision + 1, Math.min(1000, target - start.revision))) {
      start = this.apply(start, event);
      if (start.revision >= target) break;
    }
    await this.keepNew();
    return (this.last = start);
  }

  /** The kept frame nearest at or below `target` (the shelf is read once per cursor). */
  private async nearestKept(target: number): Promise<FrameCheckpoint | undefined> {
    if (!this.shelf) return undefined;
    if (!this.kept) {
      const text = await this.shelf.read(checkpointKey('frames', this.stream, this.definition)).catch(() => undefined);
      this.kept = new Map((text === undefined ? [] : parseFrames(text)).map((f) => [f.revision, f]));
      this.keptUpTo = Math.max(-1, ...this.kept.keys());
    }
    let best: FrameCheckpoint | undefined;
    for (const frame of this.kept.values()) if (frame.revision <= target && (!best || frame.revision > best.revision)) best = frame;
    return best;
  }

  /**
   * A kept frame as a live one: the events it names read back (at most three single-event reads). A
   * frame whose event is not the store's event at that revision means the shelf is not this store's:
   * every kept frame is dropped and the stream folded from what is in memory.
   */
  private async restore(kept: FrameCheckpoint): Promise<ReplayFrame | undefined> {
    const event = await eventAt(this.store, this.stream, kept.revision);
    if (event?.id !== kept.eventId) {
      this.kept = new Map();
      this.keptUpTo = -1;
      return undefined;
    }
    const read = async (at: number | null) => (at === null ? undefined : at === kept.revision ? event : eventAt(this.store, this.stream, at));
    const frame: ReplayFrame = {
      stream: this.stream,
      definition: this.definition,
      revision: kept.revision,
      event,
      snapshot: restoreSnapshot(this.definition, this.stream, kept.snapshot),
      lastObservation: await read(kept.lastObservation),
      lastDecision: await read(kept.lastDecision),
    };
    this.checkpoints.set(frame.revision, frame);
    return frame;
  }

  /** Puts the checkpoints folded since the shelf was last written on it; a failed write costs a fold later. */
  private async keepNew(): Promise<void> {
    if (!this.shelf || !this.kept) return;
    let added = false;
    for (const [revision, frame] of this.checkpoints) {
      if (revision <= this.keptUpTo || !frame.event) continue;
      this.kept.set(revision, {
        revision,
        eventId: frame.event.id,
        snapshot: persistSnapshot(this.definition, frame.snapshot),
        lastObservation: frame.lastObservation?.revision ?? null,
        lastDecision: frame.lastDecision?.revision ?? null,
      });
      added = true;
    }
    if (!added) return;
    const frames = [...this.kept.values()].sort((a, b) => a.revision - b.revision);
    await this.shelf.write(checkpointKey('frames', this.stream, this.definition), serializeFrames(frames)).then(
      () => (this.keptUpTo = frames.at(-1)?.revision ?? -1),
      () => undefined,
    );
  }

  private nearestCheckpoint(target: number): ReplayFrame {
    let best = this.checkpoints.get(-1) as ReplayFrame;
    for (const [revision, frame] of this.checkpoints) if (revision <= target && revision > best.revision) best = frame;
    return best;
  }

  private apply(frame: ReplayFrame, event: RecordedEvent): ReplayFrame {
    const source = event.metadata.source;
    const next: ReplayFrame = {
      ...frame,
      revision: event.revision,
      event,
      snapshot: advance(this.definition, frame.snapshot, storedStimulus(this.definition, this.upcasters, event)),
      lastObservation: source === 'monitor' ? event : frame.lastObservation,
      lastDecision: DECIDERS.has(source) ? event : frame.lastDecision,
    };
    if ((event.revision + 1) % this.every === 0) this.checkpoints.set(event.revision, next);
    return next;
  }
}

/** The frame as plain data (CLI JSON, the web page's state panel). */
export const frameView = (frame: ReplayFrame) => ({
  stream: frame.stream,
  machine: `${frame.definition.id} v${frame.definition.version}`,
  at: frame.event ? { revision: frame.event.revision, recordedAt: frame.event.metadata.recordedAt, type: frame.event.type } : null,
  state: frame.snapshot.value,
  context: frame.snapshot.context,
  lastObservation: frame.lastObservation ? { revision: frame.lastObservation.revision, recordedAt: frame.lastObservation.metadata.recordedAt, stimulus: frame.lastObservation.data } : null,
  lastDecision: frame.lastDecision
    ? { revision: frame.lastDecision.revision, recordedAt: frame.lastDecision.metadata.recordedAt, type: frame.lastDecision.type, effects: frame.lastDecision.metadata.effects }
    : null,
});
