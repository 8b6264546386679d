/**
 * Replay after the run (issue 31): `replayAt` (read pages → upcast → decode → fold) over every machine stream the run
 * left in the control plane's sqlite store, beside a raw XState `transition()` loop over the same stored stimuli
 * already in memory. The ratio is raw time over replay time (goal ≥ 0.7). Correct means each replay applied every
 * event of its stream and ended in the state the raw loop ended in.
 */
import { transition, type AnyMachineSnapshot } from 'xstate';
import type { EventStore } from '../../src/store/port.js';
import type { MachineRegistry } from '../../machines/registry.js';
import type { MachineDefinition, Stimulus } from '../../machines/definition.js';
import { replayAt } from '../../src/engine/replay.js';
import { initialSnapshot } from '../../src/engine/fold.js';
import { now } from './measure.js';

export interface ReplayResult {
  streams: number;
  events: number;
  replayMs: number;
  rawMs: number;
  replayPerSecond: number;
  rawPerSecond: number;
  ratio: number;
  problems: string[];
}

interface LoadedStream {
  stream: string;
  definition: MachineDefinition;
  stimuli: Stimulus[];
}

const definitionOf = (registry: MachineRegistry, stream: string): MachineDefinition | undefined => {
  try {
    return registry.forStream(stream);
  } catch {
    return undefined;
  }
};

const rawFold = (s: LoadedStream): AnyMachineSnapshot => {
  let snapshot = initialSnapshot(s.definition, s.stream);
  for (const stimulus of s.stimuli) snapshot = transition(s.definition.machine, snapshot, stimulus)[0] as AnyMachineSnapshot;
  return snapshot;
};

export const benchReplay = async (store: EventStore, registry: MachineRegistry, runs = 3): Promise<ReplayResult> => {
  const problems: string[] = [];
  const streams: LoadedStream[] = [];
  for (const { stream } of await store.listStreams()) {
    const definition = definitionOf(registry, stream);
    if (!definition) continue;
    streams.push({ stream, definition, stimuli: (await store.readStream(stream)).map((e) => e.data as Stimulus) });
  }
  const events = streams.reduce((n, s) => n + s.stimuli.length, 0);
  const finals = new Map<string, string>();
  let rawMs = Number.POSITIVE_INFINITY;
  let replayMs = Number.POSITIVE_INFINITY;
  // alternated, best of `runs` each, so that load from other processes hits both alike
  for (let run = 0; run < runs; run++) {
    let start = now();
    for (const s of streams) finals.set(s.stream, JSON.stringify(rawFold(s).value));
    rawMs = Math.min(rawMs, now() - start);
    start = now();
    for (const s of streams) {
      const state = await replayAt(store, registry, s.stream);
      if (run > 0) continue;
      if (state.applied !== s.stimuli.length) problems.push(`replay: ${s.stream} applied ${state.applied} of ${s.stimuli.length} events`);
      if (JSON.stringify(state.snapshot.value) !== finals.get(s.stream)) problems.push(`replay: ${s.stream} ended in ${JSON.stringify(state.snapshot.value)}, the raw loop in ${finals.get(s.stream)}`);
    }
    replayMs = Math.min(replayMs, now() - start);
  }
  return { streams: streams.length, events, replayMs, rawMs, replayPerSecond: (events / replayMs) * 1000, rawPerSecond: (events / rawMs) * 1000, ratio: rawMs / replayMs, problems };
};
