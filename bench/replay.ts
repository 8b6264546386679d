/**
 * Replay throughput: `replayAt` over a 10,000-event sqlite stream (read pages → decode → upcast →
 * fold) against a raw loop of XState `transition()` calls over the same stimuli already in memory.
 * Run: node --import tsx bench/replay.ts   (or `npm run bench:store`, which runs both store benches)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { transition, type AnyMachineSnapshot } from 'xstate';
import { SqliteEventStore } from '../src/store/sqlite/store.js';
import { Engine } from '../src/engine/engine.js';
import { replayAt } from '../src/engine/replay.js';
import { initialSnapshot } from '../src/engine/fold.js';
import { MachineRegistry } from '../machines/registry.js';
import type { MachineDefinition, Stimulus } from '../machines/definition.js';
import type { NewEvent } from '../src/events/envelope.js';
import { newEventId } from '../src/events/ids.js';
import { toyDefinition } from '../test/fixtures/toy-machine.js';

export interface ReplayBenchResult {
  events: number;
  replayPerSecond: number;
  rawTransitionPerSecond: number;
  ratio: number;
}

const best = async (runs: number, work: () => Promise<void> | void): Promise<number> => {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await work();
    fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e9);
  }
  return fastest;
};

/** Builds a stream of `count` decisions with the engine itself, so the events are real. */
const recordStream = async (store: SqliteEventStore, definition: MachineDefinition, stream: string, count: number): Promise<Stimulus[]> => {
  const registry = new MachineRegistry([definition]);
  const engine = new Engine({ store, registry, handlers: { 'toy.create': async () => undefined } });
  const stimuli: Stimulus[] = [];
  const reconcile: Stimulus = { type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false };
  // First two through the engine (armed, submitted); the rest in batches for speed, as the engine would write them.
  await engine.decide(stream, { stimulus: reconcile, actor: 'bench' });
  await engine.decide(stream, { stimulus: reconcile, actor: 'bench' });
  stimuli.push(reconcile, reconcile);
  const template = (await store.readStream(stream, { fromRevision: 1 }))[0] as NewEvent;
  let revision = 1;
  while (stimuli.length < count) {
    const batch: NewEvent[] = [];
    for (let i = 0; i < 500 && stimuli.length < count; i++) {
      batch.push({ id: newEventId(), type: 'toy.resubmitted', data: reconcile, metadata: { ...template.metadata, from: 'submitting', to: 'submitting' } });
      stimuli.push(reconcile);
    }
    const result = await store.append(stream, batch, { expectedRevision: revision });
    revision = result.nextExpectedRevision;
  }
  return stimuli;
};

export const benchReplay = async (count = 10_000, runs = 7): Promise<ReplayBenchResult> => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-bench-replay-'));
  try {
    const store = new SqliteEventStore(join(dir, 'bench.db'));
    const definition = toyDefinition();
    const registry = new MachineRegistry([definition]);
    const stream = 'toy-bench';
    const stimuli = await recordStream(store, definition, stream, count);

    const rawLoop = () => {
      let snapshot: AnyMachineSnapshot = initialSnapshot(definition, stream);
      for (const stimulus of stimuli) snapshot = transition(definition.machine, snapshot, stimulus)[0] as AnyMachineSnapshot;
      if (snapshot.value !== 'submitting') throw new Error('raw loop ended in the wrong state');
    };
    const replayRun = async () => {
      const state = await replayAt(store, registry, stream);
      if (state.applied !== count || state.snapshot.value !== 'submitting') throw new Error('replay ended in the wrong state');
    };
    // Alternate the two so that load from other processes hits both alike; keep each one's best run.
    let raw = Number.POSITIVE_INFINITY;
    let replay = Number.POSITIVE_INFINITY;
    for (let i = 0; i < runs; i++) {
      raw = Math.min(raw, await best(1, rawLoop));
      replay = Math.min(replay, await best(1, replayRun));
    }
    await store.close();
    return { events: count, replayPerSecond: count / replay, rawTransitionPerSecond: count / raw, ratio: raw / replay };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await benchReplay();
  console.log(`replay of a ${result.events}-event sqlite stream: ${Math.round(result.replayPerSecond)} events/s`);
  console.log(`raw transition() loop over the same stimuli:  ${Math.round(result.rawTransitionPerSecond)} events/s`);
  console.log(`ratio replay/raw: ${result.ratio.toFixed(2)} (target ≥ 0.70)`);
}
