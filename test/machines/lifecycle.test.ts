/** The generic create/delete lifecycle, case by case (labels L1–L4 as in machines/lifecycle.ts). */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { serverLifecycleDefinition } from '../../machines/server-lifecycle.js';
import type { LifecycleContext, LifecycleStimulus, Observed } from '../../machines/lifecycle.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const def = serverLifecycleDefinition;
const STREAM = 'server-lifecycle-u1';
const desired = { name: 'web-1', imageId: 'img-a', flavorId: 'f1', networkId: 'n1' };
const absent: Observed = { kind: 'absent' };
const present = (id = 'nova-1'): Observed => ({ kind: 'present', id });
const pass = (observed: Observed, deletionRequested = false, generation = 1): LifecycleStimulus => ({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, observed, desired });
const after = (...stimuli: LifecycleStimulus[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));
const decide = (from: AnyMachineSnapshot, stimulus: LifecycleStimulus) => {
  const r = step(def, from, stimulus);
  return { value: r.snapshot.value, outcome: r.outcome, effects: r.effects, context: r.snapshot.context as LifecycleContext };
};

describe('lifecycle machine (server)', () => {
  it('L2 nothing observed: decide one create with the resolved request', () => {
    const r = decide(after(), pass(absent));
    expect(r.value).to.equal('creating');
    expect(r.effects).to.deep.equal([{ type: 'nova.createServer', desired }]);
  });

  it('L1 an exact-name match is adopted, never duplicated', () => {
    const r = decide(after(), pass(present('nova-9')));
    expect(r.value).to.equal('present');
    expect(r.effects).to.deep.equal([]);
    expect(r.context.resourceId).to.equal('nova-9');
  });

  it('L1 a create that landed but whose result was lost is adopted by the next observation', () => {
    const r = decide(after(pass(absent)), pass(present('nova-2')));
    expect(r.value).to.equal('present');
    expect(r.effects).to.deep.equal([]);
  });

  it('L2 a fresh observation of absence after a decided create re-decides it, at most three times', () => {
    let s = after(pass(absent));
    const outcomes: Array<string | undefined> = [];
    for (let i = 0; i < 3; i++) {
      const r = step(def, s, pass(absent));
      outcomes.push(r.outcome);
      s = r.snapshot;
    }
    expect(outcomes).to.deep.equal(['createResubmitted', 'createResubmitted', 'createExhausted']);
    expect(s.value).to.equal('failed');
  });

  it('a rejected create fails (park) until a newer generation retries', () => {
    const failed = after(pass(absent), { type: 'createRejected', source: 'effect', status: 403, reason: 'forbidden' });
    expect(failed.value).to.equal('failed');
    expect(decide(failed, pass(absent, false, 1)).outcome).to.equal('createFailed');
    const retry = decide(failed, pass(absent, false, 2));
    expect(retry.value).to.equal('creating');
    expect(retry.effects.map((e) => e.type)).to.deep.equal(['nova.createServer']);
  });

  it('L3 delete is decided only under a deletion request, write-ahead: armed first, submitted by a later pass for the observed id', () => {
    const running = after(pass(absent), { type: 'created', source: 'effect', id: 'nova-1' });
    expect(decide(running, pass(present())).effects).to.deep.equal([]);
    const armed = decide(running, pass(present('nova-1'), true));
    expect(armed.value).to.equal('deleteArmed');
    expect(armed.effects).to.deep.equal([]);
    const submitted = decide(step(def, running, pass(present('nova-1'), true)).snapshot, pass(present('nova-1'), true));
    expect(submitted.value).to.equal('deleting');
    expect(submitted.effects).to.deep.equal([{ type: 'nova.deleteServer', id: 'nova-1' }]);
  });

  it('L4 absence while deleting is success; a missing resource under deletion is already deleted', () => {
    const deleting = after(pass(present()), pass(present(), true), pass(present(), true));
    expect(decide(deleting, pass(present(), true)).outcome).to.equal('deleteInProgress');
    expect(decide(deleting, pass(absent, true)).value).to.equal('deleted');
    expect(decide(after(), pass(absent, true)).value).to.equal('deleted');
  });

  it('a resource that vanished out of band is recreated on a later pass', () => {
    const r = decide(after(pass(present())), pass(absent));
    expect(r.value).to.equal('absent');
    expect(r.outcome).to.equal('vanished');
  });

  it('over every reachable state: deletes only under a deletion request or a never-booted ERROR (L5), creates only on observed absence without one', () => {
    const alphabet: LifecycleStimulus[] = [];
    const observations: Observed[] = [absent, present('a'), present('b'), { kind: 'present', id: 'a', status: 'ERROR', launched: false }, { kind: 'present', id: 'a', status: 'ERROR', launched: true }];
    for (const observed of observations) for (const del of [false, true]) for (const gen of [1, 2]) alphabet.push(pass(observed, del, gen));
    alphabet.push({ type: 'created', source: 'effect', id: 'a' }, { type: 'createRejected', source: 'effect', status: 400, reason: 'bad' }, { type: 'deleteAccepted', source: 'effect' });
    const edges = adjacencyMapToArray(getAdjacencyMap(def.machine, { input: { stream: STREAM }, events: alphabet as never, serializeState: (s) => JSON.stringify([s.value, s.context]) }));
    let checked = 0;
    for (const { state, event } of edges) {
      const r = step(def, state as AnyMachineSnapshot, event as LifecycleStimulus);
      const e = event as LifecycleStimulus;
      for (const effect of r.effects) {
        checked++;
        expect(e.type).to.equal('reconcile');
        if (e.type !== 'reconcile') continue;
        if (effect.type === 'nova.deleteServer') {
          const neverBootedError = e.observed.kind === 'present' && e.observed.status === 'ERROR' && e.observed.launched === false;
          expect(e.deletionRequested || neverBootedError, JSON.stringify(e.observed)).to.equal(true);
        }
        if (effect.type === 'nova.createServer') {
          expect(e.deletionRequested).to.equal(false);
          expect(e.observed.kind).to.equal('absent');
        }
      }
    }
    expect(checked).to.be.greaterThan(0);
  });
});

describe('lifecycle machine: a spec that does not decode', () => {
  it('records which fields are wrong and does nothing else; the next valid pass clears the record', () => {
    const r = decide(after(), { type: 'specRejected', source: 'reconciler', generation: 4, problems: ['spec.flavor: expected FlavorReference'] });
    expect(r.value).to.equal('absent');
    expect(r.effects).to.deep.equal([]);
    expect(r.context.specProblems).to.deep.equal({ generation: 4, problems: ['spec.flavor: expected FlavorReference'] });
    const next = decide(after({ type: 'specRejected', source: 'reconciler', generation: 4, problems: ['x'] }), pass(absent, false, 5));
    expect(next.context.specProblems).to.equal(null);
    expect(next.value).to.equal('creating');
  });
});

describe('lifecycle machine: the bounded delete-and-retry of a never-booted ERROR (L5)', () => {
  const errored = (launched: boolean): Observed => ({ kind: 'present', id: 'nova-1', status: 'ERROR', launched });

  it('a server in ERROR that never booted is deleted, then created again from the current spec', () => {
    const s0 = after(pass(absent), { type: 'created', source: 'effect', id: 'nova-1' });
    const arm = decide(s0, pass(errored(false)));
    expect(arm.value).to.equal('recreateArmed');
    expect(arm.effects).to.deep.equal([]);
    const s1 = step(def, s0, pass(errored(false))).snapshot;
    const del = decide(s1, pass(errored(false)));
    expect(del.value).to.equal('recreating');
    expect(del.effects).to.deep.equal([{ type: 'nova.deleteServer', id: 'nova-1' }]);
    const s2 = step(def, s1, pass(errored(false))).snapshot;
    expect(decide(s2, pass(errored(false))).outcome).to.equal('recreateDeleteInProgress');
    const again = decide(s2, pass(absent));
    expect(again.value).to.equal('creating');
    expect(again.effects.map((e) => e.type)).to.deep.equal(['nova.createServer']);
    expect(again.context.createAttempts).to.equal(2);
  });

  it('a server that has booted is never destroyed and recreated, whatever its status', () => {
    const s1 = after(pass(absent), { type: 'created', source: 'effect', id: 'nova-1' });
    const r = decide(s1, pass(errored(true)));
    expect(r.value).to.equal('present');
    expect(r.effects).to.deep.equal([]);
    expect(decide(s1, pass({ kind: 'present', id: 'nova-1', status: 'ERROR' })).effects).to.deep.equal([]);
  });

  it('the retries share the create bound: after three creates an errored never-booted server is left as it is', () => {
    let s = after(pass(absent), { type: 'created', source: 'effect', id: 'nova-1' }); // create #1
    for (let retry = 2; retry <= 3; retry++) {
      s = step(def, s, pass(errored(false))).snapshot; // arm the recreate
      s = step(def, s, pass(errored(false))).snapshot; // delete the errored one
      const r = step(def, s, pass(absent)); // create #retry
      expect(r.effects.map((e) => e.type)).to.deep.equal(['nova.createServer']);
      s = step(def, r.snapshot, { type: 'created', source: 'effect', id: 'nova-1' }).snapshot;
    }
    expect((s.context as LifecycleContext).createAttempts).to.equal(3);
    const last = decide(s, pass(errored(false)));
    expect(last.value).to.equal('present');
    expect(last.effects).to.deep.equal([]);
  });

  it('an armed recreate is cancelled when the read-back pass sees the server booted: a booted server is never destroyed', () => {
    const s0 = after(pass(absent), { type: 'created', source: 'effect', id: 'nova-1' }, pass(errored(false)));
    expect(s0.value).to.equal('recreateArmed');
    const r = decide(s0, pass({ kind: 'present', id: 'nova-1', status: 'ACTIVE', launched: true }));
    expect(r.value).to.equal('present');
    expect(r.outcome).to.equal('recreateCancelled');
    expect(r.effects).to.deep.equal([]);
  });
});
