import { expect } from 'chai';
import { MemoryEventStore } from '../../src/store/memory.js';
import { WrongExpectedVersion } from '../../src/store/errors.js';
import type { EventStore } from '../../src/store/port.js';
import { Engine, type EffectHandler } from '../../src/engine/engine.js';
import { ConcurrencyExhausted, EffectChainTooLong, InvalidStimulus, NoEffectHandler, QuarantinedEvent } from '../../src/engine/errors.js';
import { MachineRegistry } from '../../machines/registry.js';
import { toyDefinition, type ToyStimulus } from '../fixtures/toy-machine.js';
import type { Effect } from '../../src/events/envelope.js';
import { newEventId } from '../../src/events/ids.js';
import * as t from 'io-ts';
import type { Upcaster } from '../../migrations/upcaster.js';
import { assign, setup } from 'xstate';
import { declaredAction, type MachineDefinition } from '../../machines/definition.js';

const STREAM = 'toy-1';
const reconcile = (exists: boolean, desired = 'lamp'): { stimulus: ToyStimulus; actor: string } => ({
  stimulus: { type: 'reconcile', source: 'reconciler', desired, exists },
  actor: 'reconciler/toy',
});
const observed = (exists: boolean): { stimulus: ToyStimulus; actor: string } => ({
  stimulus: { type: 'observed', source: 'monitor', exists },
  actor: 'monitor/toy',
});

const fixedClock = () => new Date('2026-11-29T10:00:00.000Z');

const engineOn = (store: EventStore, handlers: Record<string, EffectHandler> = {}, extra: Partial<ConstructorParameters<typeof Engine>[0]> = {}) =>
  new Engine({ store, registry: new MachineRegistry([toyDefinition()]), handlers, now: fixedClock, ...extra });

/** A store that lets another writer (`interfere`) append just before the first append made through it. */
const racingStore = (store: EventStore, interfere: () => Promise<unknown>): EventStore => {
  let interfered = false;
  return Object.create(store, {
    append: {
      value: async (...args: Parameters<EventStore['append']>) => {
        if (!interfered) {
          interfered = true;
          await interfere();
        }
        return store.append(...args);
      },
    },
  }) as EventStore;
};

describe('engine: decide', () => {
  it('a stimulus that changes neither state nor context is not stored', async () => {
    const store = new MemoryEventStore();
    const decision = await engineOn(store).decide(STREAM, reconcile(true));
    expect(decision.changed).to.equal(false);
    expect(decision.event).to.equal(undefined);
    expect(await store.readStream(STREAM)).to.deep.equal([]);
  });

  it('a changing stimulus appends exactly one event carrying the full envelope', async () => {
    const store = new MemoryEventStore();
    const decision = await engineOn(store).decide(STREAM, { ...reconcile(false), correlationId: 'corr-1' });
    const events = await store.readStream(STREAM);
    expect(events).to.have.length(1);
    const [event] = events;
    expect(event?.id).to.equal(decision.event?.id);
    expect(event?.type).to.equal('toy.armed');
    expect(event?.revision).to.equal(0);
    expect(event?.data).to.deep.equal({ type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false });
    expect(event?.metadata).to.deep.equal({
      machine: 'toy',
      machineVersion: 1,
      schemaVersion: 1,
      source: 'reconciler',
      actor: 'reconciler/toy',
      correlationId: 'corr-1',
      causationId: null,
      from: null,
      to: 'armed',
      effects: [],
      recordedAt: '2026-11-29T10:00:00.000Z',
    });
  });

  it('an event id is a time-ordered uuid v7', async () => {
    const store = new MemoryEventStore();
    const decision = await engineOn(store).decide(STREAM, reconcile(false));
    expect(decision.event?.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('the next decision records from → to and names the event after the outcome', async () => {
    const store = new MemoryEventStore();
    const engine = engineOn(store, { 'toy.create': async () => undefined });
    await engine.decide(STREAM, reconcile(false));
    const second = await engine.decide(STREAM, reconcile(false));
    expect(second.event?.type).to.equal('toy.submitted');
    expect(second.event?.metadata.from).to.equal('armed');
    expect(second.event?.metadata.to).to.equal('submitting');
    expect(second.event?.metadata.effects).to.deep.equal([{ type: 'toy.create', name: 'lamp', attempt: 1 }]);
  });

  it('an event without a named outcome is named after its stimulus type', async () => {
    const store = new MemoryEventStore();
    const engine = engineOn(store, { 'toy.create': async () => ({ type: 'created' }) });
    await engine.dispatch(STREAM, reconcile(false));
    await engine.dispatch(STREAM, reconcile(false));
    const decision = await engine.decide(STREAM, observed(false));
    expect(decision.event?.type).to.equal('toy.observed');
    expect(decision.event?.metadata.to).to.equal('idle');
  });

  it('a stimulus that does not decode is rejected and nothing is stored', async () => {
    const store = new MemoryEventStore();
    const bad = { stimulus: { type: 'reconcile', source: 'monitor', desired: 'x', exists: false } as unknown as ToyStimulus, actor: 'x' };
    let error: unknown;
    try {
      await engineOn(store).decide(STREAM, bad);
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(InvalidStimulus);
    expect(await store.readStream(STREAM)).to.deep.equal([]);
  });

  it('on WrongExpectedVersion the engine reloads and re-decides on the state the other writer left', async () => {
    const store = new MemoryEventStore();
    const other = engineOn(store);
    const racing = racingStore(store, () => other.decide(STREAM, reconcile(false, 'from-other')));
    const engine = engineOn(racing);
    const decision = await engine.decide(STREAM, reconcile(false, 'mine'));
    const events = await store.readStream(STREAM);
    expect(events.map((e) => e.type)).to.deep.equal(['toy.armed', 'toy.submitted']);
    expect(events[0]?.data).to.include({ desired: 'from-other' });
    // re-decided on "armed": the loser's stimulus became the submit decision over the winner's state
    expect(decision.event?.metadata.from).to.equal('armed');
    expect(decision.effects).to.deep.equal([{ type: 'toy.create', name: 'from-other', attempt: 1 }]);
  });

  it('readAfterPosition: a stimulus read before the stream\'s last event is stale and not decided; one read after it is', async () => {
    const store = new MemoryEventStore();
    const engine = engineOn(store);
    await engine.decide(STREAM, reconcile(false));
    const before = await engine.lastPosition();
    await engine.decide(STREAM, reconcile(false)); // a decision recorded after the read began
    const stale = await engine.decide(STREAM, { ...observed(true), readAfterPosition: before });
    expect({ stale: stale.stale, changed: stale.changed, effects: stale.effects }).to.deep.equal({ stale: true, changed: false, effects: [] });
    expect((await store.readStream(STREAM)).map((e) => e.type)).to.deep.equal(['toy.armed', 'toy.submitted']);
    // a read begun after the stream's last event (another stream's event is the newest) decides as usual
    await engine.decide('toy-other', reconcile(false));
    const fresh = await engine.decide(STREAM, { ...observed(true), readAfterPosition: await engine.lastPosition() });
    expect(fresh.stale).to.equal(undefined);
    expect(fresh.changed).to.equal(true);
  });

  it('readAfterPosition is checked again after a lost append race: the winner\'s event makes the stimulus stale', async () => {
    const store = new MemoryEventStore();
    const other = engineOn(store);
    await other.decide(STREAM, reconcile(false));
    await other.decide(STREAM, reconcile(false)); // submitting: an observation of presence would change it
    const readAt = await store.lastPosition();
    const racing = racingStore(store, () => other.decide(STREAM, reconcile(false)));
    const decision = await engineOn(racing).decide(STREAM, { ...observed(true), readAfterPosition: readAt });
    expect(decision.stale).to.equal(true);
    expect((await store.readStream(STREAM)).map((e) => e.metadata.source)).to.deep.equal(['reconciler', 'reconciler', 'reconciler']);
  });

  it('re-deciding is bounded: a stream that always moves raises ConcurrencyExhausted', async () => {
    const store = new MemoryEventStore();
    const always: EventStore = Object.create(store, {
      append: { value: async (stream: string) => { throw new WrongExpectedVersion(stream, 0, 7); } },
    });
    let error: unknown;
    try {
      await engineOn(always, {}, { maxAttempts: 3 }).decide(STREAM, reconcile(false));
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(ConcurrencyExhausted);
    expect((error as ConcurrencyExhausted).attempts).to.equal(3);
  });

  it('a stored event that cannot be decoded quarantines the stream and names the revision', async () => {
    const store = new MemoryEventStore();
    await engineOn(store).decide(STREAM, reconcile(false));
    await store.append(STREAM, [{
      id: newEventId(),
      type: 'toy.garbage',
      data: { type: 'reconcile', source: 'reconciler', desired: 42 },
      metadata: { machine: 'toy', machineVersion: 1, schemaVersion: 1, source: 'reconciler', actor: 'x', correlationId: 'c', causationId: null, from: 'armed', to: 'armed', effects: [], recordedAt: fixedClock().toISOString() },
    }], { expectedRevision: 0 });
    let error: unknown;
    try {
      await engineOn(store).decide(STREAM, reconcile(false));
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(QuarantinedEvent);
    expect((error as QuarantinedEvent).revision).to.equal(1);
    expect((error as QuarantinedEvent).problem).to.match(/desired/);
  });

  it('stored payloads of an older schema are upcast on read before folding', async () => {
    const store = new MemoryEventStore();
    // schema v1 stored the desired name under `want`; v2 calls it `desired`
    await store.append(STREAM, [{
      id: newEventId(),
      type: 'toy.armed',
      data: { type: 'reconcile', source: 'reconciler', want: 'old-lamp', exists: false },
      metadata: { machine: 'toy', machineVersion: 1, schemaVersion: 1, source: 'reconciler', actor: 'x', correlationId: 'c', causationId: null, from: null, to: 'armed', effects: [], recordedAt: fixedClock().toISOString() },
    }], { expectedRevision: 'no_stream' });
    const upcaster: Upcaster = { machine: 'toy', fromSchemaVersion: 1, description: 'want → desired', up: ({ want, ...rest }) => (want === undefined ? rest : { ...rest, desired: want }) };
    const engine = new Engine({ store, registry: new MachineRegistry([{ ...toyDefinition(), schemaVersion: 2 }]), upcasters: [upcaster], now: fixedClock, handlers: { 'toy.create': async () => undefined } });
    const loaded = await engine.load(STREAM);
    expect(loaded.snapshot.value).to.equal('armed');
    expect(loaded.snapshot.context).to.include({ target: 'old-lamp' });
    const decision = await engine.decide(STREAM, reconcile(false));
    expect(decision.event?.metadata.schemaVersion).to.equal(2);
  });
});

describe('engine: effects', () => {
  it('an effect runs only after the event that declared it is durably appended', async () => {
    const store = new MemoryEventStore();
    const seenAtEffect: string[][] = [];
    const engine = engineOn(store, {
      'toy.create': async (effect, context) => {
        const stored = await store.readStream(STREAM);
        seenAtEffect.push(stored.map((e) => e.id));
        expect(stored[stored.length - 1]?.metadata.effects).to.deep.equal([effect]);
        expect(stored[stored.length - 1]?.id).to.equal(context.decidedBy.id);
        return { type: 'created' };
      },
    });
    await engine.dispatch(STREAM, reconcile(false));
    await engine.dispatch(STREAM, reconcile(false));
    expect(seenAtEffect).to.have.length(1);
  });

  it("an effect's result comes back as a stimulus with source effect and causationId = the deciding event's id", async () => {
    const store = new MemoryEventStore();
    const engine = engineOn(store, { 'toy.create': async () => ({ type: 'created' }) });
    await engine.dispatch(STREAM, reconcile(false));
    const decisions = await engine.dispatch(STREAM, { ...reconcile(false), correlationId: 'corr-9' });
    expect(decisions.map((d) => d.event?.type)).to.deep.equal(['toy.submitted', 'toy.created']);
    const [submitted, created] = await store.readStream(STREAM, { fromRevision: 1 });
    expect(created?.metadata.source).to.equal('effect');
    expect(created?.metadata.causationId).to.equal(submitted?.id);
    expect(created?.metadata.correlationId).to.equal('corr-9');
    expect(created?.metadata.actor).to.equal('effect:toy.create');
    expect(created?.data).to.deep.equal({ type: 'created', source: 'effect' });
  });

  it('a decided effect with no handler leaves the decision durable and raises NoEffectHandler', async () => {
    const store = new MemoryEventStore();
    const engine = engineOn(store);
    await engine.dispatch(STREAM, reconcile(false));
    let error: unknown;
    try {
      await engine.dispatch(STREAM, reconcile(false));
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(NoEffectHandler);
    const events = await store.readStream(STREAM);
    expect(events.map((e) => e.type)).to.deep.equal(['toy.armed', 'toy.submitted']);
  });

  it('a failing effect is not retried by the engine; the decision stays visible as pending', async () => {
    const store = new MemoryEventStore();
    let calls = 0;
    const engine = engineOn(store, { 'toy.create': async () => { calls++; throw new Error('timeout'); } });
    await engine.dispatch(STREAM, reconcile(false));
    let failed = false;
    await engine.dispatch(STREAM, reconcile(false)).catch(() => { failed = true; });
    expect(failed).to.equal(true);
    expect(calls).to.equal(1);
    const last = (await store.readStream(STREAM, { direction: 'backwards', maxCount: 1 }))[0];
    expect(last?.metadata.effects.map((e: Effect) => e.type)).to.deep.equal(['toy.create']);
  });

  it('a restarted engine never executes a pending effect found in the stream without a fresh decision', async () => {
    const store = new MemoryEventStore();
    const first = engineOn(store);
    await first.decide(STREAM, reconcile(false));
    await first.decide(STREAM, reconcile(false)); // decided toy.create, never executed (the "crash")
    let calls = 0;
    const restarted = engineOn(store, { 'toy.create': async () => { calls++; return { type: 'created' }; } });
    const loaded = await restarted.load(STREAM);
    expect(loaded.snapshot.value).to.equal('submitting');
    expect(loaded.last?.metadata.effects).to.have.length(1);
    // an observation that decides nothing runs nothing
    await restarted.dispatch(STREAM, observed(false));
    expect(calls).to.equal(0);
    // only a fresh reconciler decision executes the effect again, once
    const decisions = await restarted.dispatch(STREAM, reconcile(false));
    expect(calls).to.equal(1);
    expect(decisions[0]?.event?.type).to.equal('toy.resubmitted');
  });

  it('an effect chain that never settles is cut off', async () => {
    // a machine whose every effect result declares the effect again
    const Ping = t.type({ type: t.keyof({ ping: null, pong: null }), source: t.keyof({ reconciler: null, effect: null }) });
    const machine = setup({
      types: {} as { context: { n: number }; events: t.TypeOf<typeof Ping> },
      actions: { 'loop.again': declaredAction<{ n: number }>() },
    }).createMachine({
      context: { n: 0 },
      on: { '*': { actions: [assign({ n: ({ context }) => context.n + 1 }), { type: 'loop.again', params: ({ context }) => ({ n: context.n }) }] } },
    });
    const def: MachineDefinition = { id: 'loop', version: 1, schemaVersion: 1, streamPrefix: 'loop-', machine, stimulus: Ping, effects: ['loop.again'], description: 'loops' };
    const store = new MemoryEventStore();
    const engine = new Engine({ store, registry: new MachineRegistry([def]), maxEffectChain: 3, handlers: { 'loop.again': async () => ({ type: 'pong' }) } });
    let error: unknown;
    try {
      await engine.dispatch('loop-1', { stimulus: { type: 'ping', source: 'reconciler' }, actor: 'test' });
    } catch (e) {
      error = e;
    }
    expect(error).to.be.instanceOf(EffectChainTooLong);
    expect(await store.readStream('loop-1')).to.have.length(4);
  });

  it('the stimulus codec is the one of the machine owning the stream', async () => {
    const registry = new MachineRegistry([toyDefinition()]);
    expect(registry.forStream('toy-abc').id).to.equal('toy');
    expect(() => registry.forStream('other-abc')).to.throw(/no machine owns stream other-abc/);
  });
});
