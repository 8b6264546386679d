/** The Nova finalizer's ledger and cleanup (machines/nova-finalizer.ts; issue 27), rule by rule and over its graph. */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { novaFinalizerDefinition as def, novaFinalizerStream, type NovaFinalizerContext, type NovaFinalizerStimulus, type OwnedObject } from '../../machines/nova-finalizer.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = novaFinalizerStream('00000000-0000-4000-8000-000000000001');
const db = (name: string, block: 'api' | 'cell' = 'api'): OwnedObject => ({ kind: 'database', name, block });
const user = (name: string, block: 'api' | 'cell' = 'api'): OwnedObject => ({ kind: 'user', name, block });
const claimed = (...objects: OwnedObject[]): NovaFinalizerStimulus => ({ type: 'claimed', source: 'reconciler', objects });
const deletionSeen: NovaFinalizerStimulus = { type: 'deletionSeen', source: 'reconciler', generation: 1 };
const answered = (...live: string[]): NovaFinalizerStimulus => ({ type: 'cleanupAnswered', source: 'effect', live, message: live.length ? 'deleted' : 'nothing left' });
const after = (...stimuli: NovaFinalizerStimulus[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));
const context = (s: AnyMachineSnapshot) => s.context as NovaFinalizerContext;

describe('novaFinalizer machine', () => {
  it('NF1 claims are recorded once each, in order; a claim of what is already owned stores nothing', () => {
    const s = after(claimed(db('nova_api'), user('nova_api')), claimed(db('nova', 'cell'), db('nova_api')));
    expect(context(s).owned).to.deep.equal([db('nova_api'), user('nova_api'), db('nova', 'cell')]);
    const again = step(def, s, claimed(db('nova_api')));
    expect(again.changed).to.equal(false);
  });

  it('NF1 a Nova being deleted claims nothing more', () => {
    const s = after(claimed(db('nova_api')), deletionSeen);
    const late = step(def, s, claimed(db('late')));
    expect(late.changed).to.equal(false);
    expect(context(late.snapshot).owned).to.deep.equal([db('nova_api')]);
  });

  it('NF2 a deletion arms the cleanup (no effect), and the arm read back decides it with every claimed object', () => {
    const s = after(claimed(db('nova_api'), user('nova_api')));
    const armed = step(def, s, deletionSeen);
    expect(armed.snapshot.value).to.equal('cleanupArmed');
    expect(armed.effects, 'the arm declares nothing: write-ahead').to.deep.equal([]);
    const decided = step(def, armed.snapshot, deletionSeen);
    expect(decided.changed).to.equal(true);
    expect(decided.snapshot.value).to.equal('finalizing');
    expect(decided.effects).to.deep.equal([{ type: 'nova.deprovisionDatabases', owned: [db('nova_api'), user('nova_api')] }]);
    expect(decided.outcome).to.equal('cleanupDecided');
  });

  it('NF3 something live before the Deletes holds the finalizer one more pass; nothing live releases', () => {
    const held = after(claimed(db('nova_api')), deletionSeen, deletionSeen, answered('nova-api'));
    expect(held.value).to.equal('finalizing');
    expect(context(held).live).to.deep.equal(['nova-api']);
    const released = step(def, held, answered());
    expect(released.snapshot.value).to.equal('released');
    expect(released.outcome).to.equal('databaseFinalized');
  });

  it('NF4 a pass while held decides the cleanup again (an answer lost in a crash is asked for, never assumed)', () => {
    const s = after(claimed(db('nova_api')), deletionSeen, deletionSeen);
    const again = step(def, s, deletionSeen);
    expect(again.changed).to.equal(true);
    expect(again.effects.map((e) => e.type)).to.deep.equal(['nova.deprovisionDatabases']);
  });

  it('only the reconciler decides and only an effect answers: an answer without a decision, or a decision from elsewhere, is refused', () => {
    expect(step(def, after(), answered()).changed, 'no answer before a decision').to.equal(false);
    expect(step(def, after(), answered()).snapshot.value).to.equal('serving');
    expect(def.stimulus.is({ type: 'deletionSeen', source: 'monitor', generation: 1 })).to.equal(false);
    expect(def.stimulus.is({ type: 'cleanupAnswered', source: 'reconciler', live: [], message: '' })).to.equal(false);
  });

  it('over its reachable graph: released only after an answer with nothing live; every cleanup carries exactly the claims; NF5 released is final', () => {
    const edges = adjacencyMapToArray(getAdjacencyMap(def.machine, { input: { stream: STREAM }, events: (def.audit?.alphabet() ?? []) as never, serializeState: (x) => (def.audit?.stateKey ?? JSON.stringify)(x as AnyMachineSnapshot) }));
    expect(edges.length).to.be.greaterThan(5);
    let releases = 0;
    for (const { state, event } of edges) {
      const before = state as AnyMachineSnapshot;
      const next = step(def, before, event as NovaFinalizerStimulus);
      if (next.snapshot.value === 'released' && before.value !== 'released') {
        releases += 1;
        expect((event as NovaFinalizerStimulus).type).to.equal('cleanupAnswered');
        expect((event as Extract<NovaFinalizerStimulus, { type: 'cleanupAnswered' }>).live).to.deep.equal([]);
      }
      for (const { type, ...params } of next.effects) {
        // NF7: the sweep only after the named cleanup released (never before it)
        if (type === 'nova.sweepRemoteChildren') expect(context(before).databasesFinalized, 'a sweep only after the named cleanup released').to.equal(true);
        else expect({ type, params }).to.deep.equal({ type: 'nova.deprovisionDatabases', params: { owned: context(before).owned } });
      }
      if (['released', 'swept', 'abandoned'].includes(String(before.value))) expect(next.changed, 'nothing after released, swept or abandoned').to.equal(false);
    }
    expect(releases).to.be.greaterThan(0);
  });

  describe('a Nova on a target cluster (NF6-NF9)', () => {
    const remoteSeen: NovaFinalizerStimulus = { type: 'deletionSeen', source: 'reconciler', generation: 1, remote: true };
    const T0 = '2026-01-01T00:00:00.000Z';
    const unresolvedAt = (at: string): NovaFinalizerStimulus => ({ type: 'targetUnresolved', source: 'reconciler', cluster: 'edge', at });
    const swept = (...deleted: string[]): NovaFinalizerStimulus => ({ type: 'remoteChildrenSwept', source: 'effect', deleted });

    it('NF6 the named cleanup comes first: its release is databasesReleased, not the end, and nothing is swept with it', () => {
      const s = after(claimed(db('nova_api')), remoteSeen, remoteSeen);
      expect(s.value).to.equal('finalizing');
      const released = step(def, s, answered());
      expect(released.snapshot.value).to.equal('databasesReleased');
      expect(released.outcome).to.equal('databaseFinalized');
      expect(released.effects).to.deep.equal([]);
    });

    it('NF6 while the named cleanup still found something live, no sweep is armed or decided', () => {
      const held = after(remoteSeen, remoteSeen, answered('nova-api'));
      expect(held.value).to.equal('finalizing');
      const again = step(def, held, remoteSeen);
      expect(again.effects.map((e) => e.type)).to.deep.equal(['nova.deprovisionDatabases']);
    });

    it('NF7 the sweep is write-ahead: a deletionSeen arms it (no effect), the next decides nova.sweepRemoteChildren, a pass while sweeping decides it again, the answer ends it (swept, final)', () => {
      const released = after(remoteSeen, remoteSeen, answered());
      const armed = step(def, released, remoteSeen);
      expect(armed.snapshot.value).to.equal('sweepArmed');
      expect(armed.effects).to.deep.equal([]);
      const decided = step(def, armed.snapshot, remoteSeen);
      expect(decided.snapshot.value).to.equal('sweeping');
      expect(decided.effects).to.deep.equal([{ type: 'nova.sweepRemoteChildren' }]);
      expect(decided.outcome).to.equal('sweepDecided');
      expect(step(def, decided.snapshot, remoteSeen).effects.map((e) => e.type)).to.deep.equal(['nova.sweepRemoteChildren']);
      const done = step(def, decided.snapshot, swept('Deployment nova-api'));
      expect(done.snapshot.value).to.equal('swept');
      expect(context(done.snapshot).swept).to.deep.equal(['Deployment nova-api']);
      expect(step(def, done.snapshot, remoteSeen).changed, 'final').to.equal(false);
    });

    it('NF8 the first unresolved pass records its time; a pass within the window changes nothing; one at since + 5 min abandons (final, nothing deleted)', () => {
      const first = step(def, after(remoteSeen, remoteSeen), unresolvedAt(T0));
      expect(first.changed).to.equal(true);
      expect(context(first.snapshot).unresolvedSince).to.equal(T0);
      const within = step(def, first.snapshot, unresolvedAt('2026-01-01T00:04:59.999Z'));
      expect(within.changed, 'held within the window').to.equal(false);
      const elapsed = step(def, first.snapshot, unresolvedAt('2026-01-01T00:05:00.000Z'));
      expect(elapsed.snapshot.value).to.equal('abandoned');
      expect(elapsed.outcome).to.equal('remoteChildrenAbandoned');
      expect(elapsed.effects).to.deep.equal([]);
      expect(context(elapsed.snapshot).unresolvedCluster).to.equal('edge');
    });

    it('NF9 a target that resolves again before the window ends continues the cleanup, and a later outage starts a new window', () => {
      const first = after(remoteSeen, remoteSeen, unresolvedAt(T0));
      const back = step(def, first, remoteSeen);
      expect(back.effects.map((e) => e.type)).to.deep.equal(['nova.deprovisionDatabases']);
      expect(context(back.snapshot).unresolvedSince).to.equal(null);
      const later = step(def, back.snapshot, unresolvedAt('2026-01-01T00:05:00.000Z'));
      expect(later.snapshot.value, 'a new window, not the old one').to.equal('finalizing');
      expect(context(later.snapshot).unresolvedSince).to.equal('2026-01-01T00:05:00.000Z');
    });

    it('only an effect ends a sweep and only the reconciler reports an unresolved target', () => {
      expect(def.stimulus.is({ type: 'remoteChildrenSwept', source: 'reconciler', deleted: [] })).to.equal(false);
      expect(def.stimulus.is({ type: 'targetUnresolved', source: 'effect', cluster: 'edge', at: T0 })).to.equal(false);
      expect(step(def, after(remoteSeen, remoteSeen, answered()), swept()).changed, 'no answer before a sweep was decided').to.equal(false);
    });
  });
});
