/** Whether Regent can see a resource in its cloud (machines/scope-reachability.ts; issue 24, item 2): table and model-based. */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { scopeReachabilityDefinition as def, scopeReachabilityStream, type ScopeReachabilityContext, type ScopeReachabilityStimulus } from '../../machines/scope-reachability.js';
import { createProductRegistry } from '../../machines/index.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = scopeReachabilityStream('00000000-0000-4000-8000-000000000001');
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString();
const reachable = (seconds = 0): ScopeReachabilityStimulus => ({ type: 'reachable', source: 'reconciler', at: at(seconds) });
const unreachable = (seconds = 0, message = 'Keystone refused the credentials', kind: 'Region' | 'Cloud' = 'Region'): ScopeReachabilityStimulus => ({
  type: 'unreachable',
  source: 'reconciler',
  at: at(seconds),
  dependency: { kind, name: kind === 'Region' ? 'default/region-one' : 'compute' },
  problem: kind === 'Region' ? 'RegionUnusable' : 'CloudUnreachable',
  message,
});
const after = (...stimuli: ScopeReachabilityStimulus[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));
const contextOf = (s: AnyMachineSnapshot) => s.context as ScopeReachabilityContext;

describe('scopeReachability machine', () => {
  it('is registered for scope-reachability-<uid> streams and has no effect: it never authorizes anything', () => {
    expect(createProductRegistry().forStream(STREAM)?.id).to.equal('scopeReachability');
    expect(def.effects).to.deep.equal([]);
  });

  it('R1 a pass that could see the resource records reachable, since the pass\'s clock', () => {
    const r = step(def, after(), reachable(5));
    expect(r.snapshot.value).to.equal('reachable');
    expect(contextOf(r.snapshot)).to.deep.equal({ since: at(5), blocked: null });
  });

  it('R2 a pass that could not records unreachable naming the dependency, the problem and why', () => {
    const r = step(def, after(reachable(0)), unreachable(10));
    expect(r.snapshot.value).to.equal('unreachable');
    expect(contextOf(r.snapshot)).to.deep.equal({ since: at(10), blocked: { dependency: { kind: 'Region', name: 'default/region-one' }, problem: 'RegionUnusable', message: 'Keystone refused the credentials' } });
  });

  it('R3 the same verdict again changes nothing and is not stored (no event per pass)', () => {
    expect(step(def, after(reachable(0)), reachable(30)).changed).to.equal(false);
    expect(step(def, after(unreachable(0)), unreachable(30)).changed).to.equal(false);
  });

  it('R3 still unreachable for another reason: the why is recorded, `since` stays when it began', () => {
    const r = step(def, after(reachable(0), unreachable(10)), unreachable(20, 'connection refused', 'Cloud'));
    expect(r.changed).to.equal(true);
    expect(contextOf(r.snapshot).since).to.equal(at(10));
    expect(contextOf(r.snapshot).blocked?.problem).to.equal('CloudUnreachable');
  });

  it('R1 recovery: reachable again starts a new verdict and clears the why', () => {
    const r = step(def, after(unreachable(10)), reachable(40));
    expect(r.snapshot.value).to.equal('reachable');
    expect(contextOf(r.snapshot)).to.deep.equal({ since: at(40), blocked: null });
  });

  it('over the whole reachable graph: unreachable always names why, reachable never does, and `since` moves only when the state does', () => {
    const alphabet = def.audit?.alphabet() ?? [];
    expect(alphabet.length).to.be.greaterThan(2);
    const edges = adjacencyMapToArray(getAdjacencyMap(def.machine, { input: { stream: STREAM }, events: alphabet as never, serializeState: (s) => (def.audit?.stateKey ?? ((x) => JSON.stringify([x.value, x.context])))(s as AnyMachineSnapshot) }));
    expect(edges.length).to.be.greaterThan(4);
    for (const { state, event } of edges) {
      const before = state as AnyMachineSnapshot;
      const next = step(def, before, event as ScopeReachabilityStimulus);
      expect(next.effects, 'no effect, ever').to.deep.equal([]);
      const value = String(next.snapshot.value);
      const blocked = contextOf(next.snapshot).blocked;
      if (value === 'unreachable') expect(blocked, 'unreachable names why').to.not.equal(null);
      else expect(blocked, `${value} names no why`).to.equal(null);
      if (next.changed && String(before.value) === value) expect(contextOf(next.snapshot).since, 'a changed why keeps since').to.equal(contextOf(before).since);
    }
  });
});
