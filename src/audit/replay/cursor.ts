/**
 * A replay cursor: the state of a stream "as of event N", for stepping forwards and backwards through
 * a history (terminal `--step`, the web page's ←/→). It folds with the same pure functions as
 * `replayAt` and keeps a folded snapshot every `every` revisions, so going back or jumping costs at
 * most `every` folds after the first pass, and a 100,000-event stream is read page by page, never
 * loaded whole.
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

  constructor(
    private readonly store: EventStore,
    readonly stream: string,
    readonly definition: MachineDefinition,
    private readonly upcasters: readonly Upcaster[] = shippedUpcasters,
    private readonly every = 1000,
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
    if (start.revision === target) return (this.last = start);
    for await (const event of streamEvents(this.store, this.stream, start.revision + 1, Math.min(1000, target - start.revision))) {
      start = this.apply(start, event);
      if (start.revision >= target) break;
    }
    return (this.last = start);
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
