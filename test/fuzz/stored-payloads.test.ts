/**
 * Fuzzes stored event payloads of every product machine (issue 31, bad input). Real streams are produced by the
 * engine from each machine's audit alphabet (serverRebuild: its model test's alphabet); then one stored event is
 * corrupted (payload fields removed, retyped or added, an unknown stimulus type, an unknown or malformed
 * schemaVersion, mangled metadata; in SQLite, a truncated JSON row) and the store is read through the engine's loader,
 * `regent migrate verify` (verifyStoredEvents), replay (replayAt, verifyStream) and a new decision.
 * Properties: nothing but QuarantinedEvent is thrown; the corrupted stream is quarantined at the corrupted revision
 * and verify reports it; the other streams load as before; nothing is appended to a quarantined stream.
 * FUZZ_RUNS / FUZZ_SEED override the run count and seed (docs/fuzzing.md).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/engine.js';
import { InvalidStimulus, QuarantinedEvent } from '../../src/engine/errors.js';
import { StreamLoader } from '../../src/engine/load.js';
import { replayAt, verifyStream } from '../../src/engine/replay.js';
import { verifyStoredEvents } from '../../src/engine/verify-stored.js';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { SqliteEventStore } from '../../src/store/sqlite/store.js';
import type { EventStore } from '../../src/store/port.js';
import { upcasters } from '../../migrations/index.js';
import { createProductRegistry, productMachines } from '../../machines/index.js';
import type { MachineDefinition, Stimulus } from '../../machines/definition.js';
import { alphabet as serverRebuildAlphabet } from '../machines/server-rebuild-facts.js';
import { applyMutation, fuzzParameters, fuzzTimeout, fuzzSeed, hostileValue, mutationOf } from './support.js';

const registry = createProductRegistry();
const alphabetOf = (definition: MachineDefinition): readonly Stimulus[] => (definition.id === 'serverRebuild' ? serverRebuildAlphabet() : (definition.audit?.alphabet() ?? []));

interface Corpus {
  /** Every recorded stream, by name, with its events. */
  readonly streams: ReadonlyMap<string, readonly RecordedEvent[]>;
  /** Each stream's folded state as the uncorrupted history gives it (value and context, as JSON). */
  readonly states: ReadonlyMap<string, string>;
}

const stateText = (snapshot: { value: unknown; context: unknown }): string => JSON.stringify({ value: snapshot.value, context: snapshot.context });

/** Real streams: the engine decides random sequences of each machine's alphabet (only changes are stored). */
const recordCorpus = async (): Promise<Corpus> => {
  const store = new MemoryEventStore();
  const engine = new Engine({ store, registry, now: () => new Date('2026-12-05T00:00:00Z') });
  for (const definition of productMachines) {
    const alphabet = alphabetOf(definition);
    for (const index of [0, 1]) {
      const stream = `${definition.streamPrefix}fuzz${index}-a-b`;
      for (const stimulus of fc.sample(fc.constantFrom(...alphabet), { numRuns: 30, seed: fuzzSeed() + index })) {
        await engine.decide(stream, { stimulus, actor: 'fuzz' }).catch((error: unknown) => {
          if (!(error instanceof InvalidStimulus)) throw error;
        });
      }
    }
  }
  const streams = new Map<string, RecordedEvent[]>();
  for (const event of await store.readAll()) streams.set(event.stream, [...(streams.get(event.stream) ?? []), event]);
  const loader = new StreamLoader(store, registry, upcasters);
  const states = new Map<string, string>();
  for (const stream of streams.keys()) states.set(stream, stateText((await loader.load(stream)).snapshot));
  return { streams, states };
};

/** Copies streams into a store, event by event (ids, types, payloads as recorded). */
const copyInto = async (store: EventStore, streams: readonly (readonly RecordedEvent[])[]): Promise<void> => {
  for (const events of streams) {
    for (const { id, type, data, metadata, stream } of events) await store.append(stream, [{ id, type, data, metadata }], { expectedRevision: 'any' });
  }
};

/** One corruption of a stored event; `quarantines`: the engine must refuse the event (not merely may). */
type Corruption = { readonly part: 'data' | 'metadata'; readonly value: unknown; readonly what: string; readonly quarantines?: boolean };

/** The corruptions of one stored event: its payload or metadata mutated, replaced, or given odd versions. */
const corruptionOf = (event: RecordedEvent, knownTypes: ReadonlySet<string>): fc.Arbitrary<Corruption> => {
  const metadata = event.metadata as unknown as Record<string, unknown>;
  const withMetadata = (what: string, changes: Record<string, unknown>): Corruption => ({ part: 'metadata', value: { ...metadata, ...changes }, what, quarantines: true });
  return fc.oneof(
    mutationOf(event.data).map((m): Corruption => ({ part: 'data', value: applyMutation(event.data, m), what: `data ${m.op} ${m.path.join('.')}` })),
    hostileValue().map((v): Corruption => ({ part: 'data', value: v, what: 'data replaced' })),
    fc.string({ maxLength: 20 }).map((type): Corruption => ({ part: 'data', value: { ...event.data, type }, what: `unknown stimulus type ${JSON.stringify(type)}`, quarantines: !knownTypes.has(type) })),
    fc.constantFrom<unknown>(0, 2, 99, -1, 1.5, '1', null, true, [], {}, 2 ** 53).map((v) => withMetadata(`schemaVersion ${JSON.stringify(v)}`, { schemaVersion: v })),
    fc.constantFrom<unknown>('nope', 'toy', null, 7, '').map((v) => withMetadata(`machine ${JSON.stringify(v)}`, { machine: v })),
    fc.constantFrom('machine', 'schemaVersion', 'recordedAt', 'source', 'to', 'effects').map((key): Corruption => {
      const { [key]: _dropped, ...rest } = metadata;
      return { part: 'metadata', value: rest, what: `metadata.${key} removed`, quarantines: key === 'machine' || key === 'schemaVersion' };
    }),
    fc.constantFrom<unknown>(null, 'metadata', 42, [], [metadata]).map((v): Corruption => ({ part: 'metadata', value: v, what: `metadata ${JSON.stringify(v)?.slice(0, 40)}`, quarantines: true })),
    mutationOf(metadata).map((m): Corruption => ({ part: 'metadata', value: applyMutation(metadata, m), what: `metadata ${m.op} ${m.path.join('.')}` })),
  );
};

/** Loads a stream; answers 'ok' with its state or the quarantine. Anything else thrown fails the property. */
const loadOutcome = async (store: EventStore, stream: string): Promise<{ ok: true; state: string } | { ok: false; quarantine: QuarantinedEvent }> => {
  try {
    return { ok: true, state: stateText((await new StreamLoader(store, registry, upcasters).load(stream)).snapshot) };
  } catch (error) {
    if (error instanceof QuarantinedEvent) return { ok: false, quarantine: error };
    throw error;
  }
};

/** The checks every corrupted store must pass, whatever the corruption. */
const checkStore = async (store: EventStore, corpus: Corpus, target: string, revision: number, healthy: readonly string[], mustQuarantine: boolean): Promise<void> => {
  const loaded = await loadOutcome(store, target);
  if (mustQuarantine) expect(loaded.ok, 'the corrupted stream is quarantined').to.equal(false);
  if (!loaded.ok) {
    expect([loaded.quarantine.stream, loaded.quarantine.revision], loaded.quarantine.message).to.deep.equal([target, revision]);
    expect(loaded.quarantine.problem, 'the quarantine says why').to.be.a('string').and.not.equal('');
  }
  for (const stream of healthy) {
    const other = await loadOutcome(store, stream);
    expect(other.ok && other.state, `healthy stream ${stream}`).to.equal(corpus.states.get(stream));
  }
  const { failures } = await verifyStoredEvents(store, registry);
  expect(failures.filter((f) => f.stream !== target && healthy.includes(f.stream)), 'verify reports no healthy stream').to.deep.equal([]);
  if (!loaded.ok) expect(failures.some((f) => f.stream === target && f.revision === revision), `verify reports ${target}@${revision}: ${JSON.stringify(failures)}`).to.equal(true);
  const replayed = await replayAt(store, registry, target).then(
    () => 'ok',
    (error: unknown) => (error instanceof QuarantinedEvent ? 'quarantined' : Promise.reject(error)),
  );
  expect(replayed, 'replay agrees with load').to.equal(loaded.ok ? 'ok' : 'quarantined');
  const verified = await verifyStream(store, registry, target);
  if (!loaded.ok) expect(verified.quarantined?.revision, 'verifyStream reports the quarantine').to.equal(revision);
};

/** A new decision on a quarantined stream throws QuarantinedEvent and appends nothing. */
const checkNothingAppended = async (store: EventStore, target: string, definition: MachineDefinition): Promise<void> => {
  // The stream's head as the store lists it: reading a stream with an unparseable row would fail.
  const head = async () => (await store.listStreams()).find((info) => info.stream === target);
  const before = await head();
  const engine = new Engine({ store, registry });
  for (const stimulus of alphabetOf(definition).slice(0, 5)) {
    const error = await engine.decide(target, { stimulus, actor: 'fuzz' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, 'a decision on a quarantined stream').to.be.instanceOf(QuarantinedEvent);
  }
  expect(await head(), 'nothing appended to a quarantined stream').to.deep.equal(before);
};

describe('fuzz: stored event payloads of every machine', function () {
  this.timeout(fuzzTimeout());
  let corpus: Corpus;
  let names: string[];
  before(async function () {
    this.timeout(60_000);
    corpus = await recordCorpus();
    names = [...corpus.streams.keys()];
  });

  it('the corpus holds real streams of every machine', () => {
    const machines = new Set(names.map((stream) => registry.forStream(stream).id));
    expect([...machines].sort()).to.deep.equal(productMachines.map((d) => d.id).sort());
  });

  /** A target event (stream and revision), two healthy streams of other machines, and a corruption of the target. */
  const cases = () =>
    fc
      .tuple(fc.constantFrom(...names), fc.nat(), fc.shuffledSubarray(names, { minLength: 2, maxLength: 2 }))
      .chain(([target, index, others]) => {
        const events = corpus.streams.get(target)!;
        const event = events[index % events.length]!;
        const healthy = others.filter((s) => s !== target);
        const knownTypes = new Set(alphabetOf(registry.forStream(target)).map((stimulus) => stimulus.type));
        return corruptionOf(event, knownTypes).map((corruption) => ({ target, event, healthy, corruption }));
      });

  it('a corrupted payload or metadata (memory store): quarantined at its revision, reported, the rest unharmed', async () => {
    await fc.assert(
      fc.asyncProperty(cases(), async ({ target, event, healthy, corruption }) => {
        const store = new MemoryEventStore();
        const events = corpus.streams.get(target)!.map((e) => (e.revision === event.revision ? ({ ...e, [corruption.part]: corruption.value } as RecordedEvent) : e));
        await copyInto(store, [events, ...healthy.map((s) => corpus.streams.get(s)!)]);
        await checkStore(store, corpus, target, event.revision, healthy, corruption.quarantines === true);
        const loaded = await loadOutcome(store, target);
        if (!loaded.ok) await checkNothingAppended(store, target, registry.forStream(target));
        await store.close();
      }),
      fuzzParameters(150),
    );
  });

  it('a truncated JSON row (sqlite): quarantined at its revision, reported, the rest unharmed, nothing appended', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-fuzz-stored-'));
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(cases(), fc.constantFrom('data', 'metadata'), fc.integer({ min: 0, max: 400 }), async ({ target, event, healthy }, column, keep) => {
          const path = join(dir, `events-${run++}.db`);
          const store = new SqliteEventStore(path);
          await copyInto(store, [corpus.streams.get(target)!, ...healthy.map((s) => corpus.streams.get(s)!)]);
          const db = new Database(path);
          db.prepare(`UPDATE events SET ${column} = substr(${column}, 1, min(?, length(${column}) - 1)) WHERE stream = ? AND revision = ?`).run(keep, target, event.revision);
          db.close();
          await checkStore(store, corpus, target, event.revision, healthy, true);
          await checkNothingAppended(store, target, registry.forStream(target));
          await store.close();
          rmSync(path, { force: true });
        }),
        fuzzParameters(40),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
