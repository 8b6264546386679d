/**
 * What the monitor knows of each rebuild stream it observes: the folded snapshot at a revision, so that a steady poll
 * can tell, without reading the stream, that an observation would change nothing (issue 31: a steady cycle over
 * 10,000 servers was 5× the raw list, spent loading each stream twice and deciding each observation in the engine).
 *
 * A known snapshot is used only while its revision is the stream's head as one `listStreams` query reports it after
 * the list was read; otherwise the stream is loaded afresh. An observation is skipped here only when the machine,
 * stepped from that snapshot with that stimulus, changes nothing and declares no effect — exactly the case in which
 * the engine would store nothing, and the same facts seen again at the same revision are not stepped again. Anything
 * else goes to `engine.decide`, which reloads and re-decides as before.
 */
import type { AnyMachineSnapshot } from 'xstate';
import { step } from '../../engine/fold.js';
import type { MachineDefinition, Stimulus } from '../../../machines/definition.js';

export interface KnownStream {
  /** Head revision the snapshot is folded to (undefined: the stream did not exist). */
  revision: number | undefined;
  snapshot: AnyMachineSnapshot;
  /**
   * The server facts (as JSON) last found to change nothing on this snapshot. The rebuild machine decides from the
   * snapshot and the facts only, never from the observation's `observedAt` (test/controllers/server-monitor/
   * known-streams.test.ts holds it to that), so the same facts on the same revision need no second step.
   */
  quietFacts?: string;
}

/** A stream's head as the store reports it (absent: no stream yet). */
export interface StreamHead {
  head: number;
  lastPosition: number;
}

/** True when `known` is the stream as it stands at `head`. */
export const isCurrent = (known: KnownStream | undefined, head: StreamHead | undefined): known is KnownStream =>
  known !== undefined && known.revision === head?.head;

/**
 * True when the engine would store nothing for `stimulus` on `snapshot`: a valid stimulus (as the engine's codec checks
 * it) that changes neither state nor context and declares no effect.
 */
export const wouldStoreNothing = (definition: MachineDefinition, snapshot: AnyMachineSnapshot, stimulus: Stimulus): boolean => {
  if (!definition.stimulus.is(stimulus)) return false;
  const result = step(definition, snapshot, stimulus);
  return !result.changed && result.effects.length === 0;
};

/** True when the stream recorded a decision after `readAfterPosition`: the engine would not decide the observation. */
export const isStale = (head: StreamHead | undefined, readAfterPosition: number): boolean => head !== undefined && head.lastPosition > readAfterPosition;

/** The monitor's memory of streams, kept to the servers of the last poll. */
export class KnownStreams {
  private readonly streams = new Map<string, KnownStream>();

  get(stream: string): KnownStream | undefined {
    return this.streams.get(stream);
  }

  set(stream: string, known: KnownStream): void {
    this.streams.set(stream, known);
  }

  forget(stream: string): void {
    this.streams.delete(stream);
  }

  /** Forgets every stream not in `seen` (servers gone or no longer managed). */
  keepOnly(seen: ReadonlySet<string>): void {
    for (const stream of this.streams.keys()) if (!seen.has(stream)) this.streams.delete(stream);
  }

  get size(): number {
    return this.streams.size;
  }
}
