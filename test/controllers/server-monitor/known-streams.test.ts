/**
 * The monitor's steady-poll shortcut (issue 31, src/controllers/server-monitor/known-streams.ts): a poll reads no
 * stream when nothing moved, yet decides exactly as the engine would — a stream another writer moved is read again
 * before its observation, a stream with a decision after the noted position is stale, and the same facts are not
 * stepped twice on one revision only because the rebuild machine never decides from `observedAt` (held here over every
 * snapshot reachable in two steps of the model alphabet).
 */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../../src/openstack/session.js';
import type { NovaClient } from '../../../src/openstack/nova/index.js';
import { cloudFromYaml } from '../../../src/openstack/keystone/clouds-config.js';
import { MemoryEventStore } from '../../../src/store/memory.js';
import { Engine } from '../../../src/engine/engine.js';
import { initialSnapshot, step } from '../../../src/engine/fold.js';
import { MachineRegistry } from '../../../machines/registry.js';
import { serverRebuildDefinition, serverRebuildStream } from '../../../machines/server-rebuild.js';
import type { ServerRebuildStimulus } from '../../../machines/server-rebuild/stimuli.js';
import { ServerMonitor } from '../../../src/controllers/server-monitor/monitor.js';
import { isCurrent, isStale, wouldStoreNothing } from '../../../src/controllers/server-monitor/known-streams.js';
import { silentLogger } from '../../../src/log/logger.js';
import { alphabet, observed, STREAM } from '../../machines/server-rebuild-facts.js';

describe('server monitor: the steady-poll shortcut (issue 31)', function () {
  this.timeout(60_000);

  describe('rules', () => {
    it('a known snapshot is current only at the head it was folded to (no stream: no head)', () => {
      const snapshot = initialSnapshot(serverRebuildDefinition, STREAM);
      expect(isCurrent({ revision: 3, snapshot }, { head: 3, lastPosition: 9 })).to.equal(true);
      expect(isCurrent({ revision: 2, snapshot }, { head: 3, lastPosition: 9 })).to.equal(false);
      expect(isCurrent({ revision: undefined, snapshot }, undefined)).to.equal(true);
      expect(isCurrent({ revision: undefined, snapshot }, { head: 0, lastPosition: 1 })).to.equal(false);
      expect(isCurrent(undefined, undefined)).to.equal(false);
    });

    it('stale: the stream recorded a decision after the position noted before the list (no stream: never stale)', () => {
      expect(isStale({ head: 0, lastPosition: 11 }, 10)).to.equal(true);
      expect(isStale({ head: 0, lastPosition: 10 }, 10)).to.equal(false);
      expect(isStale(undefined, 10)).to.equal(false);
    });

    it('would store nothing: only a valid observation that changes neither state nor context and declares no effect', () => {
      const first = initialSnapshot(serverRebuildDefinition, STREAM);
      const seen = step(serverRebuildDefinition, first, observed()).snapshot;
      expect(wouldStoreNothing(serverRebuildDefinition, first, observed()), 'a first observation is recorded').to.equal(false);
      expect(wouldStoreNothing(serverRebuildDefinition, seen, observed()), 'the same facts again').to.equal(true);
      expect(wouldStoreNothing(serverRebuildDefinition, seen, observed({ status: 'ERROR' })), 'the server errored').to.equal(false);
      const invalid = { ...observed(), observedAt: 7 } as unknown as ServerRebuildStimulus;
      expect(wouldStoreNothing(serverRebuildDefinition, seen, invalid), 'the engine would refuse it: it goes to the engine').to.equal(false);
    });

    it('the rebuild machine never decides from observedAt: every observation steps alike at two times, from every snapshot two steps deep', () => {
      const letters = alphabet();
      const observations = letters.filter((s): s is Extract<ServerRebuildStimulus, { type: 'observed' }> => s.type === 'observed');
      // every distinct snapshot (state and context) reachable in two steps of the alphabet
      const distinct = new Map<string, AnyMachineSnapshot>();
      const keyOf = (s: AnyMachineSnapshot) => JSON.stringify([s.value, s.context]);
      let frontier: AnyMachineSnapshot[] = [initialSnapshot(serverRebuildDefinition, STREAM)];
      distinct.set(keyOf(frontier[0] as AnyMachineSnapshot), frontier[0] as AnyMachineSnapshot);
      for (let depth = 0; depth < 2; depth++) {
        const next: AnyMachineSnapshot[] = [];
        for (const from of frontier) {
          for (const letter of letters) {
            const to = step(serverRebuildDefinition, from, letter).snapshot;
            if (distinct.has(keyOf(to))) continue;
            distinct.set(keyOf(to), to);
            next.push(to);
          }
        }
        frontier = next;
      }
      const sample = [...distinct.values()];
      expect(sample.length).to.be.greaterThan(10);
      for (const snapshot of sample) {
        for (const o of observations) {
          const early = step(serverRebuildDefinition, snapshot, { ...o, observedAt: '2026-01-01T00:00:00Z' });
          const late = step(serverRebuildDefinition, snapshot, { ...o, observedAt: '2027-06-30T23:59:59Z' });
          expect(JSON.stringify([late.changed, late.effects, late.outcome, late.snapshot.value, late.snapshot.context]))
            .to.equal(JSON.stringify([early.changed, early.effects, early.outcome, early.snapshot.value, early.snapshot.context]));
        }
      }
    });
  });

  describe('over the Nova simulator', () => {
    let sim: RunningSimulator;
    let os: OpenStackSession;
    let store: MemoryEventStore;
    let engine: Engine;
    let reads: string[];
    let serverId: string;

    beforeEach(async () => {
      sim = await startSimulator({});
      os = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-demo'));
      store = new MemoryEventStore();
      reads = [];
      const readStream = store.readStream.bind(store);
      store.readStream = ((stream: string, options?: Parameters<typeof readStream>[1]) => {
        reads.push(stream);
        return readStream(stream, options);
      }) as typeof store.readStream;
      engine = new Engine({ store, registry: new MachineRegistry([serverRebuildDefinition]) });
      [serverId] = sim.control.createServers({ project: 'demo', count: 1, namePrefix: 'web-' }) as [string];
    });
    afterEach(async () => sim.close());

    const monitorOver = (nova: Pick<NovaClient, 'listServers'> = os.nova) => new ServerMonitor({ engine, nova, logger: silentLogger(), isManaged: () => true });

    it('a steady poll reads no stream and records nothing; a changed server is still recorded', async () => {
      const monitor = monitorOver();
      expect((await monitor.pollOnce()).changed).to.equal(1);
      reads.length = 0;
      const steady = await monitor.pollOnce();
      expect(steady).to.include({ listed: 1, observed: 1, changed: 0, stale: 0, errors: 0 });
      expect(reads, 'no stream read in a steady poll').to.deep.equal([]);
      sim.control.forceServer(serverId, { status: 'ERROR' });
      const errored = await monitor.pollOnce();
      expect(errored.changed).to.equal(1);
      expect((await store.readStream(serverRebuildStream(serverId))).map((e) => e.type)).to.have.length(2);
    });

    it('a stream another writer moved is read again: the same facts are decided on its new state, not the one the monitor knew', async () => {
      const monitor = monitorOver();
      await monitor.pollOnce();
      await monitor.pollOnce();
      // another replica's monitor recorded the server ERROR; Nova reads ACTIVE again, as this monitor last saw it
      const other = new Engine({ store, registry: new MachineRegistry([serverRebuildDefinition]) });
      const decision = await other.decide(serverRebuildStream(serverId), { stimulus: observed({ id: serverId, status: 'ERROR' }), actor: 'monitor/other' });
      expect(decision.changed).to.equal(true);
      reads.length = 0;
      const after = await monitor.pollOnce();
      expect(reads, 'the moved stream is read').to.include(serverRebuildStream(serverId));
      expect(after.changed, 'ACTIVE again after the other writer\'s ERROR is recorded').to.equal(1);
      const last = (await store.readStream(serverRebuildStream(serverId))).at(-1);
      expect(last?.metadata.actor).to.equal('monitor/nova');
      expect(JSON.stringify(last?.data)).to.include('"status":"ACTIVE"');
    });

    it('a decision recorded while the list was in flight makes the observation stale: not decided, counted', async () => {
      const monitor = monitorOver();
      await monitor.pollOnce();
      const other = new Engine({ store, registry: new MachineRegistry([serverRebuildDefinition]) });
      const racing: Pick<NovaClient, 'listServers'> = {
        listServers: async (...args) => {
          const list = await os.nova.listServers(...args);
          await other.decide(serverRebuildStream(serverId), { stimulus: observed({ id: serverId, status: 'ERROR' }), actor: 'monitor/other' });
          return list;
        },
      };
      const before = (await store.readStream(serverRebuildStream(serverId))).length;
      const result = await monitorOver(racing).pollOnce();
      expect(result).to.include({ stale: 1, changed: 0 });
      expect((await store.readStream(serverRebuildStream(serverId))).length, 'only the other writer\'s event').to.equal(before + 1);
      // the next poll (its list read after that decision) observes it again
      expect((await monitor.pollOnce()).changed).to.equal(1);
    });
  });
});
