/**
 * The store conformance suite: the contract of src/store/port.ts (stated in src/store/README.md) as
 * executable cases. Every adapter runs it; an adapter that shares its data with other processes
 * declares the `shared` capability and also runs the multi-process and crash cases.
 */
import { expect } from 'chai';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { InvalidStoreRequest, StoreUnavailable, WrongExpectedVersion } from '../../src/store/errors.js';
import type { EventStore, ExpectedRevision } from '../../src/store/port.js';
import { killStrayChildren, spawnFixture } from './children.js';
import { deferred, newEvent, newEvents, rejectionOf, settledWithin, sleep, thrownBy, waitFor } from './helpers.js';

export interface SharedCapability {
  /** A URL naming a fresh, empty store that other processes and new instances can open. */
  freshUrl(): string;
  /** Opens the store at `url` in this process (a new, independent connection). */
  open(url: string): Promise<EventStore>;
  /** True while some process holds the store's write lock: proves a writer is mid-transaction. */
  isWriteLocked?(url: string): boolean;
}

export interface Capabilities {
  shared?: SharedCapability;
}

export type StoreFactory = () => Promise<EventStore>;

const expectWrongExpectedVersion = async (
  promise: Promise<unknown>,
  expected: { stream: string; expectedRevision: ExpectedRevision; actualRevision: number | undefined },
): Promise<void> => {
  const error = await rejectionOf(promise);
  expect(error).to.be.instanceOf(WrongExpectedVersion);
  const wrong = error as WrongExpectedVersion;
  expect({ stream: wrong.stream, expectedRevision: wrong.expectedRevision, actualRevision: wrong.actualRevision }).to.deep.equal(expected);
};

const positions = (events: readonly RecordedEvent[]): number[] => events.map((event) => event.position);

const expectStrictlyIncreasing = (values: readonly number[]): void => {
  values.forEach((value, i) => {
    if (i > 0) expect(value, `value #${i}`).to.be.greaterThan(values[i - 1] ?? -Infinity);
  });
};

export function storeConformance(name: string, factory: StoreFactory, capabilities: Capabilities = {}): void {
  describe(`EventStore conformance: ${name}`, function () {
    const opened: EventStore[] = [];
    const open = async (): Promise<EventStore> => {
      const store = await factory();
      opened.push(store);
      return store;
    };
    let store: EventStore;

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      killStrayChildren();
      await Promise.all(opened.splice(0).map((s) => s.close()));
    });

    describe('append and read', () => {
      it('an appended event reads back with its whole envelope, plus stream, revision and position', async () => {
        const event = newEvent({ nested: { list: [1, 2.5, null, true, 'x'], empty: {} } });
        const result = await store.append('server-rebuild-1', [event], { expectedRevision: 'no_stream' });
        const [read] = await store.readStream('server-rebuild-1');
        expect(read).to.deep.equal({ ...event, stream: 'server-rebuild-1', revision: 0, position: result.position });
        expect(await store.readAll()).to.deep.equal([read]);
      });

      it('revisions of a stream start at 0 and grow by one per event, without gaps, across appends', async () => {
        await store.append('s', newEvents(3), { expectedRevision: 'no_stream' });
        await store.append('s', newEvents(1), { expectedRevision: 2 });
        await store.append('s', newEvents(4), { expectedRevision: 'any' });
        expect((await store.readStream('s')).map((e) => e.revision)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
      });

      it('positions are greater than 0 and strictly increase across streams in append order', async () => {
        const order: string[] = [];
        for (const stream of ['b', 'a', 'c', 'a', 'b']) {
          const events = newEvents(2);
          order.push(...events.map((e) => e.id));
          await store.append(stream, events, { expectedRevision: 'any' });
        }
        const all = await store.readAll();
        expect(all.map((e) => e.id)).to.deep.equal(order);
        expect(all[0]?.position).to.be.greaterThan(0);
        expectStrictlyIncreasing(positions(all));
      });

      it('an append reports the new head revision and the position of its last event', async () => {
        await store.append('other', newEvents(2), { expectedRevision: 'any' });
        const result = await store.append('s', newEvents(3), { expectedRevision: 'no_stream' });
        const stored = await store.readStream('s');
        expect(result).to.deep.equal({ nextExpectedRevision: 2, position: stored.at(-1)?.position });
      });

      it('returned events are copies: mutating one does not change what the store holds', async () => {
        await store.append('s', [newEvent({ value: 'original' })], { expectedRevision: 'any' });
        const [first] = await store.readStream('s');
        if (!first) throw new Error('no event');
        first.data.value = 'mutated';
        first.metadata.actor = 'mutated';
        const [again] = await store.readStream('s');
        expect(again?.data.value).to.equal('original');
        expect(again?.metadata.actor).to.not.equal('mutated');
      });

      it('a payload larger than 1 MB round-trips exactly', async () => {
        const big = Array.from({ length: 1_200_000 }, (_, i) => String.fromCharCode(32 + (i % 90))).join('');
        const event = newEvent({ big, list: Array.from({ length: 2000 }, (_, i) => ({ i, s: `${i}é😀` })) });
        await store.append('big', [event], { expectedRevision: 'no_stream' });
        const [read] = await store.readStream('big');
        expect(read?.data).to.deep.equal(event.data);
        expect((read?.data.big as string).length).to.equal(1_200_000);
      });

      it('unicode (emoji, RTL, combining marks, control characters, lone surrogates in payloads) round-trips exactly', async () => {
        const text = '😀👩‍👩‍👧 مرحبا بالعالم \u202Eabc\u202C e\u0301 \u0001\u0007\u001b\t\n\r\u2028\u2029 \uD800 \uDFFF "\\';
        const stream = 'nova-ns.😀-مرحبا';
        const event = newEvent({ text, [text]: 'key' }, { type: 'serverRebuild.ärméd😀' });
        event.metadata.actor = text;
        event.metadata.to = { [text]: text };
        await store.append(stream, [event], { expectedRevision: 'no_stream' });
        const [read] = await store.readStream(stream);
        expect(read).to.deep.equal({ ...event, stream, revision: 0, position: read?.position });
        expect(await store.listStreams()).to.deep.equal([{ stream, head: 0, lastPosition: read?.position }]);
      });

      it('reading a stream that does not exist returns an empty array', async () => {
        await store.append('exists', newEvents(1), { expectedRevision: 'any' });
        expect(await store.readStream('missing')).to.deep.equal([]);
        expect(await store.readStream('missing', { direction: 'backwards' })).to.deep.equal([]);
        expect(await store.readStream('exist')).to.deep.equal([]);
      });

      it('reading forwards from a revision starts at that revision, inclusive', async () => {
        await store.append('s', newEvents(6), { expectedRevision: 'no_stream' });
        expect((await store.readStream('s', { fromRevision: 4 })).map((e) => e.revision)).to.deep.equal([4, 5]);
        expect(await store.readStream('s', { fromRevision: 6 })).to.deep.equal([]);
      });

      it('reading backwards returns newest first, from the head or from a given revision', async () => {
        await store.append('s', newEvents(5), { expectedRevision: 'no_stream' });
        const forwards = await store.readStream('s');
        expect(await store.readStream('s', { direction: 'backwards' })).to.deep.equal([...forwards].reverse());
        expect((await store.readStream('s', { direction: 'backwards', fromRevision: 2 })).map((e) => e.revision)).to.deep.equal([2, 1, 0]);
        expect((await store.readStream('s', { direction: 'backwards', fromRevision: 99 })).map((e) => e.revision)).to.deep.equal([4, 3, 2, 1, 0]);
      });

      it('maxCount caps forwards, backwards and global reads, and 0 returns nothing', async () => {
        await store.append('s', newEvents(5), { expectedRevision: 'no_stream' });
        expect((await store.readStream('s', { maxCount: 2 })).map((e) => e.revision)).to.deep.equal([0, 1]);
        expect((await store.readStream('s', { fromRevision: 3, maxCount: 10 })).map((e) => e.revision)).to.deep.equal([3, 4]);
        expect((await store.readStream('s', { direction: 'backwards', maxCount: 2 })).map((e) => e.revision)).to.deep.equal([4, 3]);
        expect(await store.readStream('s', { maxCount: 0 })).to.deep.equal([]);
        expect((await store.readAll({ maxCount: 3 })).map((e) => e.revision)).to.deep.equal([0, 1, 2]);
      });

      it('readAll after a position returns exactly the later events, in position order', async () => {
        for (const stream of ['a', 'b', 'a', 'c']) await store.append(stream, newEvents(2), { expectedRevision: 'any' });
        const all = await store.readAll();
        const cut = all[3]?.position ?? 0;
        expect(await store.readAll({ after: cut })).to.deep.equal(all.slice(4));
        expect(await store.readAll({ after: all.at(-1)?.position ?? 0 })).to.deep.equal([]);
        expect(await store.readAll({ after: 0 })).to.deep.equal(all);
      });

      it('readAll with prefix filters keeps only streams starting with one of the prefixes, in position order', async () => {
        const streams = ['server-rebuild-1', 'volume-1', 'server-rebuild-2', 'x-server-rebuild-3', 'loadbalancer-1', 'server-other'];
        for (const stream of streams) await store.append(stream, newEvents(2), { expectedRevision: 'any' });
        const all = await store.readAll();
        const only = (...names: string[]): RecordedEvent[] => all.filter((e) => names.includes(e.stream));
        expect(await store.readAll({ filter: { streamPrefixes: ['server-rebuild-'] } })).to.deep.equal(only('server-rebuild-1', 'server-rebuild-2'));
        expect(await store.readAll({ filter: { streamPrefixes: ['volume-', 'loadbalancer-'] } })).to.deep.equal(only('volume-1', 'loadbalancer-1'));
        expect(await store.readAll({ filter: { streamPrefixes: ['server-rebuild-'] }, after: all[2]?.position ?? 0, maxCount: 1 })).to.deep.equal(
          only('server-rebuild-2').slice(0, 1),
        );
        expect(await store.readAll({ filter: { streamPrefixes: [] } })).to.deep.equal([]);
        expect(await store.readAll({ filter: { streamPrefixes: ['%', '_'] } })).to.deep.equal([]);
      });

      it('listStreams gives every stream with its head and last position, in code-point order, optionally filtered', async () => {
        for (const stream of ['b-1', 'a-2', 'a-1', 'b-1', '\uFFFD', '😀']) await store.append(stream, newEvents(1), { expectedRevision: 'any' });
        const all = await store.readAll();
        const last = (stream: string): number | undefined => all.filter((e) => e.stream === stream).at(-1)?.position;
        expect(await store.listStreams()).to.deep.equal([
          { stream: 'a-1', head: 0, lastPosition: last('a-1') },
          { stream: 'a-2', head: 0, lastPosition: last('a-2') },
          { stream: 'b-1', head: 1, lastPosition: last('b-1') },
          // U+FFFD sorts before U+1F600 by code point, although its UTF-16 unit is larger than a surrogate.
          { stream: '\uFFFD', head: 0, lastPosition: last('\uFFFD') },
          { stream: '😀', head: 0, lastPosition: last('😀') },
        ]);
        expect((await store.listStreams({ streamPrefixes: ['a-'] })).map((s) => s.stream)).to.deep.equal(['a-1', 'a-2']);
      });

      it('lastPosition is at least the position of every event appended before it and below every one appended after; exact on a fresh store', async () => {
        const start = await store.lastPosition();
        expect(start).to.be.at.least(0);
        const first = await store.append('lp-a', newEvents(3), { expectedRevision: 'no_stream' });
        const afterFirst = await store.lastPosition();
        expect(afterFirst).to.be.at.least(first.position);
        const second = await store.append('lp-b', [newEvent()], { expectedRevision: 'no_stream' });
        expect(second.position).to.be.greaterThan(afterFirst);
        const afterSecond = await store.lastPosition();
        expect(afterSecond).to.be.at.least(second.position);
        await store.append('lp-a', [], { expectedRevision: 2 }); // an empty append writes nothing
        expect(await store.lastPosition()).to.equal(afterSecond);
        if (start === 0) {
          // a store that was empty holds only these events: its newest is the second append's
          expect(afterFirst).to.equal(first.position);
          expect(afterSecond).to.equal(second.position);
        }
      });

      it('streamHead is the last revision of a stream, or undefined when the stream does not exist', async () => {
        expect(await store.streamHead('s')).to.equal(undefined);
        await store.append('s', newEvents(3), { expectedRevision: 'no_stream' });
        expect(await store.streamHead('s')).to.equal(2);
      });
    });

    describe('optimistic concurrency', () => {
      it("'no_stream' succeeds on a new stream and fails on an existing one with its head as actualRevision", async () => {
        await store.append('s', newEvents(2), { expectedRevision: 'no_stream' });
        await expectWrongExpectedVersion(store.append('s', newEvents(1), { expectedRevision: 'no_stream' }), {
          stream: 's',
          expectedRevision: 'no_stream',
          actualRevision: 1,
        });
      });

      it('an exact revision succeeds at the head and fails behind or ahead of it, carrying the actual head', async () => {
        await store.append('s', newEvents(3), { expectedRevision: 'no_stream' });
        await expectWrongExpectedVersion(store.append('s', newEvents(1), { expectedRevision: 1 }), { stream: 's', expectedRevision: 1, actualRevision: 2 });
        await expectWrongExpectedVersion(store.append('s', newEvents(1), { expectedRevision: 3 }), { stream: 's', expectedRevision: 3, actualRevision: 2 });
        expect(await store.append('s', newEvents(1), { expectedRevision: 2 })).to.include({ nextExpectedRevision: 3 });
      });

      it('an exact revision on a stream that does not exist fails with actualRevision undefined', async () => {
        await expectWrongExpectedVersion(store.append('s', newEvents(1), { expectedRevision: 0 }), {
          stream: 's',
          expectedRevision: 0,
          actualRevision: undefined,
        });
        expect(await store.streamHead('s')).to.equal(undefined);
      });

      it("'any' appends to a new stream and to an existing one without checking", async () => {
        await store.append('s', newEvents(1), { expectedRevision: 'any' });
        await store.append('s', newEvents(1), { expectedRevision: 'any' });
        expect(await store.streamHead('s')).to.equal(1);
      });

      it('a multi-event append whose expectation fails writes none of its events', async () => {
        await store.append('s', newEvents(2), { expectedRevision: 'no_stream' });
        const before = await store.readAll();
        await rejectionOf(store.append('s', newEvents(5), { expectedRevision: 0 }));
        await rejectionOf(store.append('t', newEvents(5), { expectedRevision: 4 }));
        expect(await store.readAll()).to.deep.equal(before);
        expect(await store.listStreams()).to.have.length(1);
      });

      it('of two concurrent appends expecting the same revision, exactly one wins and the loser learns the new head', async () => {
        for (let round = 0; round < 20; round += 1) {
          const expected: ExpectedRevision = round === 0 ? 'no_stream' : round - 1;
          const contenders = [newEvent({ contender: 'left' }), newEvent({ contender: 'right' })];
          const results = await Promise.allSettled(contenders.map((event) => store.append('s', [event], { expectedRevision: expected })));
          const winners = contenders.filter((_, i) => results[i]?.status === 'fulfilled');
          const losers = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
          expect(winners, `round ${round}`).to.have.length(1);
          expect(losers[0]?.reason).to.be.instanceOf(WrongExpectedVersion);
          expect((losers[0]?.reason as WrongExpectedVersion).actualRevision).to.equal(round);
          expect((await store.readStream('s', { fromRevision: round }))[0]?.id).to.equal(winners[0]?.id);
        }
        expect(await store.streamHead('s')).to.equal(19);
      });

      it('a duplicate event id is rejected, across appends and within one append, and nothing of that append is written', async () => {
        const [first] = newEvents(1);
        if (!first) throw new Error('no event');
        await store.append('s', [first], { expectedRevision: 'no_stream' });
        const before = await store.readAll();
        expect(await rejectionOf(store.append('t', [newEvent(), { ...first }], { expectedRevision: 'no_stream' }))).to.be.instanceOf(InvalidStoreRequest);
        const twice = newEvent();
        expect(await rejectionOf(store.append('u', [twice, { ...twice }], { expectedRevision: 'no_stream' }))).to.be.instanceOf(InvalidStoreRequest);
        expect(await store.readAll()).to.deep.equal(before);
        expect(await store.streamHead('t')).to.equal(undefined);
      });

      it('an empty append only checks the expectation: it writes nothing and reports the current head', async () => {
        expect(await store.append('s', [], { expectedRevision: 'no_stream' })).to.deep.equal({ nextExpectedRevision: -1, position: 0 });
        expect(await store.streamHead('s')).to.equal(undefined);
        await expectWrongExpectedVersion(store.append('s', [], { expectedRevision: 0 }), { stream: 's', expectedRevision: 0, actualRevision: undefined });
        const written = await store.append('s', newEvents(2), { expectedRevision: 'no_stream' });
        await store.append('other', newEvents(1), { expectedRevision: 'any' });
        expect(await store.append('s', [], { expectedRevision: 1 })).to.deep.equal(written);
        await expectWrongExpectedVersion(store.append('s', [], { expectedRevision: 'no_stream' }), { stream: 's', expectedRevision: 'no_stream', actualRevision: 1 });
        expect(await store.readAll()).to.have.length(3);
      });

      it('malformed requests are refused with InvalidStoreRequest before anything is written', async () => {
        const bad: Promise<unknown>[] = [
          store.append('', newEvents(1), { expectedRevision: 'any' }),
          store.append('a\u0000b', newEvents(1), { expectedRevision: 'any' }),
          store.append('a\uD800', newEvents(1), { expectedRevision: 'any' }),
          store.append('s', newEvents(1), { expectedRevision: -1 }),
          store.append('s', newEvents(1), { expectedRevision: 1.5 }),
          store.append('s', [newEvent({}, { id: '' })], { expectedRevision: 'any' }),
          store.append('s', [newEvent({}, { type: '' })], { expectedRevision: 'any' }),
          store.append('s', [newEvent({ n: 1n as unknown as number })], { expectedRevision: 'any' }),
          store.readStream('s', { fromRevision: -1 }),
          store.readStream('s', { maxCount: 1.5 }),
          store.readAll({ after: -3 }),
        ];
        for (const [i, request] of bad.entries()) expect(await rejectionOf(request), `request #${i}`).to.be.instanceOf(InvalidStoreRequest);
        expect(thrownBy(() => store.subscribe({ after: -1 }, () => undefined))).to.be.instanceOf(InvalidStoreRequest);
        expect(await store.readAll()).to.deep.equal([]);
      });
    });

    describe('subscribe', () => {
      const collect = (target: EventStore, options: Parameters<EventStore['subscribe']>[0] = {}) => {
        const seen: RecordedEvent[] = [];
        const subscription = target.subscribe(options, (event) => {
          seen.push(event);
        });
        return { seen, subscription };
      };

      it('delivers the history, then live events, with no gap and no duplicate while two writers append concurrently', async () => {
        for (let i = 0; i < 30; i += 1) await store.append(`history-${i % 4}`, newEvents(1), { expectedRevision: 'any' });
        const { seen, subscription } = collect(store);
        const writer = async (prefix: string, count: number): Promise<void> => {
          for (let i = 0; i < count; i += 1) {
            await store.append(`${prefix}${i % 3}`, newEvents(1 + (i % 3)), { expectedRevision: 'any' });
            await new Promise((resolve) => setImmediate(resolve));
          }
        };
        await Promise.all([writer('w1-', 150), writer('w2-', 150)]);
        const all = await store.readAll();
        await waitFor(() => seen.length >= all.length, `${all.length} deliveries`);
        await sleep(30);
        expect(positions(seen)).to.deep.equal(positions(all));
        expect(seen).to.deep.equal(all);
        expect(subscription.position).to.equal(all.at(-1)?.position);
      });

      it('subscribing after a position delivers only later events, then live ones', async () => {
        await store.append('s', newEvents(10), { expectedRevision: 'no_stream' });
        const history = await store.readAll();
        const after = history[4]?.position ?? 0;
        const { seen } = collect(store, { after });
        await waitFor(() => seen.length === 5, 'catch-up');
        await store.append('t', newEvents(2), { expectedRevision: 'no_stream' });
        await waitFor(() => seen.length === 7, 'live events');
        expect(positions(seen)).to.deep.equal(positions(await store.readAll({ after })));
      });

      it('a filtered subscription delivers only matching streams, in catch-up and live', async () => {
        for (const stream of ['a-1', 'b-1', 'ab-1', 'a-2']) await store.append(stream, newEvents(2), { expectedRevision: 'any' });
        const { seen, subscription } = collect(store, { filter: { streamPrefixes: ['a-'] } });
        await waitFor(() => seen.length === 4, 'catch-up of a- streams');
        for (const stream of ['b-2', 'a-3', 'ab-2']) await store.append(stream, newEvents(1), { expectedRevision: 'any' });
        await waitFor(() => seen.length === 5, 'live a- event');
        await sleep(60);
        expect(seen.map((e) => e.stream)).to.deep.equal(['a-1', 'a-1', 'a-2', 'a-2', 'a-3']);
        expect(subscription.position).to.equal(seen.at(-1)?.position);
      });

      it('calls the handler one event at a time: the next call waits for the previous promise', async () => {
        await store.append('s', newEvents(5), { expectedRevision: 'no_stream' });
        let active = 0;
        let maxActive = 0;
        const order: number[] = [];
        store.subscribe({}, async (event) => {
          active += 1;
          maxActive = Math.max(maxActive, active);
          await sleep(3);
          order.push(event.revision);
          active -= 1;
        });
        await store.append('s', newEvents(3), { expectedRevision: 4 });
        await waitFor(() => order.length === 8, 'eight deliveries');
        expect(maxActive).to.equal(1);
        expect(order).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7]);
      });

      it('an event appended while the handler is busy is delivered without waiting for any later append', async () => {
        await store.append('s', newEvents(1), { expectedRevision: 'no_stream' });
        const gate = deferred();
        const seen: number[] = [];
        store.subscribe({}, async (event) => {
          if (event.revision === 0) await gate.promise;
          seen.push(event.revision);
        });
        await sleep(10);
        await store.append('s', newEvents(1), { expectedRevision: 0 });
        gate.resolve();
        await waitFor(() => seen.length === 2, 'the event appended during the handler call', 2_000);
        expect(seen).to.deep.equal([0, 1]);
      });

      it('a throwing handler stops the subscription and rejects done with its error', async () => {
        await store.append('s', newEvents(5), { expectedRevision: 'no_stream' });
        const failure = new Error('projection failed');
        const calls: number[] = [];
        const subscription = store.subscribe({}, (event) => {
          calls.push(event.revision);
          if (event.revision === 2) throw failure;
        });
        expect(await rejectionOf(subscription.done)).to.equal(failure);
        await store.append('s', newEvents(2), { expectedRevision: 4 });
        await sleep(60);
        expect(calls).to.deep.equal([0, 1, 2]);
        expect(subscription.position).to.equal((await store.readStream('s'))[1]?.position);
        await subscription.close();
      });

      it('close() stops delivery and resolves done', async () => {
        const { seen, subscription } = collect(store);
        await store.append('s', newEvents(2), { expectedRevision: 'no_stream' });
        await waitFor(() => seen.length === 2, 'two deliveries');
        await subscription.close();
        await store.append('s', newEvents(2), { expectedRevision: 1 });
        await sleep(60);
        expect(seen).to.have.length(2);
        expect(await settledWithin(subscription.done, 10)).to.equal('settled');
      });

      it('close() waits for the handler call in flight, and no call starts after it', async () => {
        await store.append('s', newEvents(3), { expectedRevision: 'no_stream' });
        const gate = deferred();
        let finished = 0;
        let started = 0;
        const subscription = store.subscribe({}, async () => {
          started += 1;
          await gate.promise;
          finished += 1;
        });
        await waitFor(() => started === 1, 'first handler call');
        const closing = subscription.close();
        expect(await settledWithin(closing, 40)).to.equal('pending');
        gate.resolve();
        await closing;
        expect({ started, finished }).to.deep.equal({ started: 1, finished: 1 });
      });

      it('closing the store ends its subscriptions, and a closed store refuses work with StoreUnavailable', async () => {
        const { subscription } = collect(store);
        await store.close();
        expect(await settledWithin(subscription.done, 100)).to.equal('settled');
        expect(await rejectionOf(store.append('s', newEvents(1), { expectedRevision: 'any' }))).to.be.instanceOf(StoreUnavailable);
        expect(await rejectionOf(store.readAll())).to.be.instanceOf(StoreUnavailable);
        expect(thrownBy(() => store.subscribe({}, () => undefined))).to.be.instanceOf(StoreUnavailable);
      });
    });

    const shared = capabilities.shared;
    if (!shared) return;

    describe('shared between connections and processes', function () {
      this.timeout(90_000);

      it('reopening the store keeps every event, head and position, and positions continue after them', async () => {
        const url = shared.freshUrl();
        const first = await shared.open(url);
        for (const stream of ['a', 'b', 'a']) await first.append(stream, newEvents(3, { blob: 'é😀'.repeat(100) }), { expectedRevision: 'any' });
        const before = { all: await first.readAll(), streams: await first.listStreams() };
        await first.close();
        const second = await shared.open(url);
        opened.push(second);
        expect({ all: await second.readAll(), streams: await second.listStreams() }).to.deep.equal(before);
        const next = await second.append('a', newEvents(1), { expectedRevision: 5 });
        expect(next.position).to.be.greaterThan(before.all.at(-1)?.position ?? Infinity);
      });

      it('two connections appending with the same expected revision: exactly one wins each time', async () => {
        const url = shared.freshUrl();
        const [left, right] = [await shared.open(url), await shared.open(url)];
        opened.push(left, right);
        for (let revision = 0; revision < 25; revision += 1) {
          const expected: ExpectedRevision = revision === 0 ? 'no_stream' : revision - 1;
          const results = await Promise.allSettled([
            left.append('s', newEvents(1), { expectedRevision: expected }),
            right.append('s', newEvents(1), { expectedRevision: expected }),
          ]);
          expect(results.filter((r) => r.status === 'fulfilled'), `revision ${revision}`).to.have.length(1);
        }
        expect(await left.streamHead('s')).to.equal(24);
      });

      it('a subscription on one connection sees appends made through another, in order', async () => {
        const url = shared.freshUrl();
        const [reader, writer] = [await shared.open(url), await shared.open(url)];
        opened.push(reader, writer);
        const seen: RecordedEvent[] = [];
        reader.subscribe({}, (event) => {
          seen.push(event);
        });
        for (let i = 0; i < 40; i += 1) await writer.append(`s-${i % 2}`, newEvents(2), { expectedRevision: 'any' });
        await waitFor(() => seen.length === 80, '80 deliveries from the other connection');
        expect(seen).to.deep.equal(await writer.readAll());
      });

      it('three processes racing on one stream: each revision is won by exactly one of them, and the stream has no gap', async () => {
        const url = shared.freshUrl();
        const revisions = 150;
        const racers = ['r1', 'r2', 'r3'].map((name) => spawnFixture('racer.ts', [url, 'contested', String(revisions), name]));
        await Promise.all(racers.map((racer) => racer.waitForLine((line) => line === 'ready')));
        racers.forEach((racer) => racer.send('go'));
        const reports = await Promise.all(
          racers.map(async (racer) => JSON.parse(await racer.waitForLine((line) => line.startsWith('{'), 25_000)) as {
            wins: { revision: number; id: string }[];
            conflicts: number;
          }),
        );
        const claims = reports.flatMap((report) => report.wins).sort((a, b) => a.revision - b.revision);
        expect(claims.map((claim) => claim.revision)).to.deep.equal(Array.from({ length: revisions }, (_, i) => i));
        const reader = await shared.open(url);
        opened.push(reader);
        const stored = await reader.readStream('contested');
        expect(stored.map((event) => event.id)).to.deep.equal(claims.map((claim) => claim.id));
        // Proof that the processes really raced, rather than taking turns.
        expect(reports.reduce((sum, report) => sum + report.conflicts, 0)).to.be.greaterThan(0);
      });

      it('a subscription delivers every event, once and in order, while this process and another append concurrently', async () => {
        const url = shared.freshUrl();
        const local = await shared.open(url);
        opened.push(local);
        for (let i = 0; i < 20; i += 1) await local.append(`history-${i % 3}`, newEvents(1), { expectedRevision: 'any' });
        const seen: RecordedEvent[] = [];
        local.subscribe({}, (event) => {
          seen.push(event);
        });
        const child = spawnFixture('appender.ts', [url, 'child-', '200']);
        await child.waitForLine((line) => line === 'ready');
        child.send('go');
        for (let i = 0; i < 200; i += 1) {
          await local.append(`local-${i % 3}`, newEvents(1 + (i % 2)), { expectedRevision: 'any' });
          await new Promise((resolve) => setImmediate(resolve));
        }
        await child.waitForLine((line) => line === 'done', 25_000);
        await waitFor(async () => seen.length === (await local.readAll()).length, 'deliveries of both writers');
        // This process is idle now: only the cross-process wake-up can deliver the child's tail.
        child.send('tail');
        await child.waitForLine((line) => line === 'tail done', 25_000);
        const all = await local.readAll();
        expect(all).to.have.length(20 + 200 + 300 + 5);
        await waitFor(() => seen.length >= all.length, `${all.length} deliveries`);
        await sleep(60);
        expect(positions(seen)).to.deep.equal(positions(all));
        expect(seen).to.deep.equal(all);
        expect(new Set(seen.map((e) => e.stream.split('-')[0]))).to.deep.equal(new Set(['history', 'child', 'local']));
      });

      it('a writer SIGKILLed in the middle of a multi-event append leaves none of that batch and all of the committed ones', async () => {
        const url = shared.freshUrl();
        const batchSize = 200;
        const trapBatch = 3;
        const child = spawnFixture('batch-writer.ts', [url, String(batchSize), '16000', String(trapBatch)]);
        await child.waitForLine((line) => line === `inflight ${trapBatch}`, 25_000);
        if (shared.isWriteLocked) expect(shared.isWriteLocked(url), 'the writer holds the write lock when killed').to.equal(true);
        child.process.kill('SIGKILL');
        expect((await child.exited).signal).to.equal('SIGKILL');
        expect(child.lines.filter((line) => line.startsWith('committed'))).to.deep.equal(['committed 0', 'committed 1', 'committed 2']);

        const reopened = await shared.open(url);
        opened.push(reopened);
        expect(await reopened.streamHead(`batch-${trapBatch}`)).to.equal(undefined);
        expect(await reopened.listStreams()).to.deep.equal(
          await Promise.all(
            [0, 1, 2].map(async (k) => ({
              stream: `batch-${k}`,
              head: batchSize - 1,
              lastPosition: (await reopened.readStream(`batch-${k}`)).at(-1)?.position,
            })),
          ),
        );
        const all = await reopened.readAll();
        expect(all).to.have.length(trapBatch * batchSize);
        expect(all.every((event) => event.stream !== `batch-${trapBatch}`)).to.equal(true);
        // The store is still writable after recovery, and positions continue past the committed ones.
        const next = await reopened.append(`batch-${trapBatch}`, newEvents(1), { expectedRevision: 'no_stream' });
        expect(next.position).to.be.greaterThan(all.at(-1)?.position ?? Infinity);
      });

      it('a writer SIGKILLed at an arbitrary moment leaves every batch either complete or absent', async () => {
        const url = shared.freshUrl();
        const batchSize = 100;
        const child = spawnFixture('batch-writer.ts', [url, String(batchSize), '4000', '-1']);
        await child.waitForLine((line) => line === 'committed 2', 25_000);
        await sleep(Math.floor(Math.random() * 40));
        child.process.kill('SIGKILL');
        await child.exited;
        const printed = child.lines.filter((line) => line.startsWith('committed')).length;

        const reopened = await shared.open(url);
        opened.push(reopened);
        // A batch whose COMMIT was on the wire when the client died is still committed by a server (PostgreSQL):
        // it may appear between two reads here. So each read is judged on its own: whatever it shows, every batch in
        // it is whole, and there is at most one more than the writer reported.
        const all = await reopened.readAll();
        const byStream = new Map<string, number>();
        for (const event of all) byStream.set(event.stream, (byStream.get(event.stream) ?? 0) + 1);
        for (const [stream, count] of byStream) expect(count, stream).to.equal(batchSize);
        // Every batch it reported is there; at most one more (committed, killed before printing).
        expect(byStream.size).to.be.within(printed, printed + 1);
        const streams = await reopened.listStreams();
        expect(streams.length).to.be.within(byStream.size, printed + 1);
        for (const info of streams) {
          expect(info.head, info.stream).to.equal(batchSize - 1);
          expect(await reopened.readStream(info.stream), info.stream).to.have.length(batchSize);
        }
      });
    });
  });
}
