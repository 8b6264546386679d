/** The SecurityGroup lifecycle (machines/security-group-lifecycle.ts, the shared factory): model-based over its reachable graph. */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import type { LifecycleContext, LifecycleStimulus, Observed } from '../../machines/lifecycle.js';
import { securityGroupLifecycleDefinition as def, securityGroupLifecycleStream } from '../../machines/security-group-lifecycle.js';
import { createProductRegistry } from '../../machines/index.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = securityGroupLifecycleStream('u1');
const desired = { uid: 'u1', rules: [{ direction: 'ingress', protocol: 'tcp', portRangeMin: 22, portRangeMax: 22 }] };
const absent: Observed = { kind: 'absent' };
const present = (id = 'sg-1'): Observed => ({ kind: 'present', id });
const pass = (observed: Observed, deletionRequested = false, generation = 1, seconds = 0): LifecycleStimulus =>
  ({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, observed, desired, at: new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString() }) as LifecycleStimulus;
const after = (...stimuli: LifecycleStimulus[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));

describe('securityGroupLifecycle machine', () => {
  it('is registered with its stream prefix and Neutron effects', () => {
    expect(createProductRegistry().forStream(STREAM)?.id).to.equal('securityGroupLifecycle');
    expect(def.effectNames).to.deep.equal({ createResource: 'neutron.createSecurityGroup', deleteResource: 'neutron.deleteSecurityGroup' });
    expect(def.destructiveEffects).to.deep.equal(['neutron.deleteSecurityGroup']);
  });

  it('absent → one create carrying the rules; an exact-name match is adopted, never duplicated', () => {
    const created = step(def, after(), pass(absent));
    expect(created.snapshot.value).to.equal('creating');
    expect(created.effects).to.deep.equal([{ type: 'neutron.createSecurityGroup', desired }]);
    const adopted = step(def, after(), pass(present('sg-9')));
    expect(adopted.snapshot.value).to.equal('present');
    expect(adopted.effects).to.deep.equal([]);
    expect((adopted.snapshot.context as LifecycleContext).resourceId).to.equal('sg-9');
  });

  it('delete is write-ahead under a deletion request: armed, then submitted for the observed id; absence is success', () => {
    const running = after(pass(absent), { type: 'created', source: 'effect', id: 'sg-1' } as LifecycleStimulus);
    const armed = step(def, running, pass(present(), true));
    expect(armed.snapshot.value).to.equal('deleteArmed');
    expect(armed.effects).to.deep.equal([]);
    const submitted = step(def, armed.snapshot, pass(present(), true));
    expect(submitted.effects).to.deep.equal([{ type: 'neutron.deleteSecurityGroup', id: 'sg-1' }]);
    expect(step(def, submitted.snapshot, pass(absent, true)).snapshot.value).to.equal('deleted');
  });

  it('a delete Neutron refuses (409: a port still uses the group) is sent again later (L8), never while not deleting', () => {
    const deleting = after(pass(present()), pass(present(), true), pass(present(), true), { type: 'deleteRejected', source: 'effect', status: 409, reason: 'conflict', fault: 'in use' } as LifecycleStimulus);
    expect(step(def, deleting, pass(present(), true, 1, 1)).effects).to.deep.equal([]);
    expect(step(def, deleting, pass(present(), true, 1, 16)).effects).to.deep.equal([{ type: 'neutron.deleteSecurityGroup', id: 'sg-1' }]);
  });

  it('over every reachable state: deletes only under a deletion request, creates only on observed absence without one', () => {
    const alphabet: LifecycleStimulus[] = [];
    for (const observed of [absent, present('a'), present('b')]) for (const del of [false, true]) for (const gen of [1, 2]) for (const seconds of [0, 20, 600]) alphabet.push(pass(observed, del, gen, seconds));
    alphabet.push(
      { type: 'created', source: 'effect', id: 'a' } as LifecycleStimulus,
      { type: 'createRejected', source: 'effect', status: 409, reason: 'conflict' } as LifecycleStimulus,
      { type: 'deleteAccepted', source: 'effect' } as LifecycleStimulus,
      { type: 'deleteRejected', source: 'effect', status: 409, reason: 'in use' } as LifecycleStimulus,
      { type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.networkID: required'] } as LifecycleStimulus,
    );
    const edges = adjacencyMapToArray(getAdjacencyMap(def.machine, { input: { stream: STREAM }, events: alphabet as never, serializeState: (s) => (def.audit?.stateKey ?? ((x) => JSON.stringify([x.value, x.context])))(s as AnyMachineSnapshot) }));
    let creates = 0;
    let deletes = 0;
    for (const { state, event } of edges) {
      const e = event as LifecycleStimulus;
      for (const effect of step(def, state as AnyMachineSnapshot, e).effects) {
        expect(e.type).to.equal('reconcile');
        if (e.type !== 'reconcile') continue;
        if (effect.type === 'neutron.deleteSecurityGroup') {
          deletes++;
          expect(e.deletionRequested, JSON.stringify(e.observed)).to.equal(true);
          expect(e.observed.kind).to.equal('present');
        } else {
          creates++;
          expect(effect.type).to.equal('neutron.createSecurityGroup');
          expect(e.deletionRequested).to.equal(false);
          expect(e.observed.kind).to.equal('absent');
        }
      }
    }
    expect(creates).to.be.greaterThan(0);
    expect(deletes).to.be.greaterThan(0);
  });
});
