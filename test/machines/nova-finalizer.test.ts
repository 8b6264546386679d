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
      for (const { type, ...params } of next.effects) expect({ type, params }).to.deep.equal({ type: 'nova.deprovisionDatabases', params: { owned: context(before).owned } });
      if (before.value === 'released') expect(next.changed, 'nothing after released').to.equal(false);
    }
    expect(releases).to.be.greaterThan(0);
  });
});
