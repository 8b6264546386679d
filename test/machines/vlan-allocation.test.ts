/**
 * The VLAN allocation machine (machines/vlan-allocation.ts; issue 16, "VLAN allocation"): a table test per
 * rule (V1–V7), then model-based checks over every reachable edge of its graph (xstate/graph, the audit
 * alphabet: a range of two ids, three networks) with oracles written from the rules, not from the machine.
 */
import { expect } from 'chai';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { transition, type AnyMachineSnapshot } from 'xstate';
import { buildVlanAllocationMachine, lowestFreeId, vlanAllocationDefinition as def, type VlanAllocationContext, type VlanAllocationStimulus } from '../../machines/vlan-allocation.js';
import { createProductRegistry } from '../../machines/index.js';
import { checkMachine } from '../../src/audit/checks/rules.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = 'vlan-allocation-uid-1-physnet1';
const range = { minID: 100, maxID: 102 };
const allocate = (network: string, over: Partial<Extract<VlanAllocationStimulus, { type: 'allocate' }>> = {}): VlanAllocationStimulus => ({ type: 'allocate', source: 'reconciler', network, physicalNetwork: 'physnet1', range, ...over });
const release = (network: string): VlanAllocationStimulus => ({ type: 'release', source: 'reconciler', network, physicalNetwork: 'physnet1' });
const failed = (network: string): VlanAllocationStimulus => ({ type: 'createFailed', source: 'effect', network, physicalNetwork: 'physnet1', reason: 'Neutron 400: VLAN 100 on physnet1 is in use' });

const after = (...stimuli: VlanAllocationStimulus[]): AnyMachineSnapshot => {
  let s = initialSnapshot(def, STREAM);
  for (const stimulus of stimuli) s = step(def, s, stimulus).snapshot;
  return s;
};
const ids = (s: AnyMachineSnapshot) => Object.fromEntries((s.context as VlanAllocationContext).holdings.map((h) => [h.network, h.id]));

describe('vlan allocation machine: the rules', () => {
  it('V1 a network without an id gets the lowest id of the range no network holds', () => {
    const r = step(def, after(allocate('a')), allocate('b'));
    expect(r.outcome).to.equal('allocated');
    expect(ids(r.snapshot)).to.deep.equal({ a: 100, b: 101 });
  });
  it('V1 a released id below the others is the next one handed out', () => {
    expect(ids(after(allocate('a'), allocate('b'), release('a'), allocate('c')))).to.deep.equal({ c: 100, b: 101 });
  });
  it('V2 the same network asking again keeps its id: nothing changes, nothing is stored', () => {
    const s = after(allocate('a'), allocate('b'));
    const r = step(def, s, allocate('a'));
    expect(r.outcome).to.equal('alreadyAllocated');
    expect(r.changed).to.equal(false);
    expect(ids(r.snapshot)).to.deep.equal({ a: 100, b: 101 });
  });
  it('V2 an id is never moved under its network, even when the range no longer contains it', () => {
    const r = step(def, after(allocate('a')), allocate('a', { range: { minID: 200, maxID: 201 } }));
    expect(r.changed).to.equal(false);
    expect(ids(r.snapshot)).to.deep.equal({ a: 100 });
  });
  it('V3 every id held: the outcome is exhausted, nothing is allocated and nothing stored', () => {
    const r = step(def, after(allocate('a'), allocate('b'), allocate('c')), allocate('d'));
    expect(r.outcome).to.equal('exhausted');
    expect(r.changed).to.equal(false);
    expect(ids(r.snapshot)).to.not.have.property('d');
  });
  it('V3 a narrowed range is exhausted by ids held inside it; ids held outside it stay', () => {
    const s = after(allocate('a'), allocate('b'));
    expect(step(def, s, allocate('c', { range: { minID: 100, maxID: 101 } })).outcome).to.equal('exhausted');
    expect(ids(step(def, s, allocate('c', { range: { minID: 101, maxID: 105 } })).snapshot)).to.deep.equal({ a: 100, b: 101, c: 102 });
  });
  it('V4 a failed Neutron create keeps the id on the network, and records the failure', () => {
    const r = step(def, after(allocate('a')), failed('a'));
    expect(r.outcome).to.equal('keptAfterFailedCreate');
    expect((r.snapshot.context as VlanAllocationContext).holdings).to.deep.equal([{ network: 'a', networkName: null, id: 100, createFailures: 1, lastFailure: 'Neutron 400: VLAN 100 on physnet1 is in use' }]);
    expect(ids(after(allocate('a'), failed('a'), allocate('b')))).to.deep.equal({ a: 100, b: 101 });
  });
  it('V5 a deleted network releases its id', () => {
    const r = step(def, after(allocate('a'), allocate('b')), release('a'));
    expect(r.outcome).to.equal('released');
    expect(ids(r.snapshot)).to.deep.equal({ b: 101 });
  });
  it('V6 releasing a network that holds no id decides nothing', () => {
    const r = step(def, after(allocate('a')), release('zzz'));
    expect(r.changed).to.equal(false);
    expect(r.outcome).to.equal(undefined);
  });
  it('V7 a stimulus for another physical network is refused and changes nothing', () => {
    const s = after(allocate('a'));
    for (const stimulus of [allocate('b', { physicalNetwork: 'physnet2' }), { ...release('a'), physicalNetwork: 'physnet2' }, { ...failed('a'), physicalNetwork: 'physnet2' }]) {
      const r = step(def, s, stimulus);
      expect(r.outcome).to.equal('wrongPhysicalNetwork');
      expect(r.changed).to.equal(false);
    }
  });
  it('only the reconciler allocates and releases: the codec refuses any other source', () => {
    for (const source of ['monitor', 'api', 'operator', 'effect']) {
      expect(def.stimulus.is({ ...allocate('a'), source }), `allocate from ${source}`).to.equal(false);
      expect(def.stimulus.is({ ...release('a'), source }), `release from ${source}`).to.equal(false);
    }
  });
  it('lowestFreeId walks the range in order', () => {
    expect(lowestFreeId([{ id: 1 }, { id: 3 }], { minID: 1, maxID: 3 })).to.equal(2);
    expect(lowestFreeId([{ id: 1 }, { id: 2 }], { minID: 1, maxID: 2 })).to.equal(undefined);
    expect(lowestFreeId([], { minID: 4094, maxID: 4094 })).to.equal(4094);
  });
  it('is registered: the product registry owns vlan-allocation- streams with it', () => {
    expect(createProductRegistry().forStream(STREAM).id).to.equal('vlanAllocation');
  });
  it("passes regent check's static checks", () => {
    expect(checkMachine(def).results.filter((r) => r.status === 'fail')).to.deep.equal([]);
  });
});

describe('vlan allocation machine: model-based, every reachable edge', function () {
  this.timeout(60_000);
  type Edge = { state: AnyMachineSnapshot; event: VlanAllocationStimulus; nextState: AnyMachineSnapshot; outcome: string | undefined };
  let edges: Edge[];
  const holdings = (s: AnyMachineSnapshot) => (s.context as VlanAllocationContext).holdings;
  before(() => {
    const machine = buildVlanAllocationMachine();
    const map = getAdjacencyMap(machine, { events: def.audit?.alphabet() as never, serializeState: (s) => def.audit?.stateKey?.(s as AnyMachineSnapshot) ?? '', serializeEvent: (e) => JSON.stringify(e) });
    edges = (adjacencyMapToArray(map) as unknown as Array<Omit<Edge, 'outcome'>>).map((e) => {
      const actions = (transition(machine, e.state as never, e.event as never) as unknown as [unknown, Array<{ type: string; params?: { name?: string } }>])[1];
      return { ...e, outcome: actions.find((a) => a.type === 'outcome')?.params?.name };
    });
  });

  it('explores empty, partly held and exhausted ledgers, and every outcome', () => {
    const sizes = new Set(edges.map((e) => holdings(e.nextState).length));
    expect([...sizes].sort()).to.deep.equal([0, 1, 2]);
    expect(new Set(edges.map((e) => e.outcome))).to.include.members(['allocated', 'alreadyAllocated', 'exhausted', 'keptAfterFailedCreate', 'released', 'wrongPhysicalNetwork']);
  });
  it('never two networks with one id, and never one network with two ids', () => {
    for (const e of edges) {
      const h = holdings(e.nextState);
      expect(new Set(h.map((x) => x.id)).size, JSON.stringify(h)).to.equal(h.length);
      expect(new Set(h.map((x) => x.network)).size, JSON.stringify(h)).to.equal(h.length);
    }
  });
  it('a new id is inside the range of the stimulus that allocated it, and the lowest free one', () => {
    let checked = 0;
    for (const e of edges) {
      if (e.outcome !== 'allocated' || e.event.type !== 'allocate') continue;
      const before = new Set(holdings(e.state).map((h) => h.id));
      const got = holdings(e.nextState).find((h) => h.network === e.event.network)!.id;
      const { minID, maxID } = e.event.range;
      expect(got).to.be.within(minID, maxID);
      for (let id = minID; id < got; id++) expect(before.has(id), `${id} was free`).to.equal(true);
      checked++;
    }
    expect(checked).to.be.greaterThan(0);
  });
  it('an id held before any transition other than its own release is held by the same network after it', () => {
    for (const e of edges) {
      for (const h of holdings(e.state)) {
        if (e.event.type === 'release' && e.event.network === h.network && e.outcome === 'released') continue;
        expect(holdings(e.nextState).find((x) => x.network === h.network)?.id, `${JSON.stringify(e.event)} moved ${h.network}`).to.equal(h.id);
      }
    }
  });
  it('exhausted exactly when every id of the range is held, and then nothing changes', () => {
    for (const e of edges) {
      if (e.event.type !== 'allocate' || e.outcome === 'wrongPhysicalNetwork' || holdings(e.state).some((h) => h.network === (e.event as { network: string }).network)) continue;
      const { minID, maxID } = e.event.range;
      const free = lowestFreeId(holdings(e.state), e.event.range);
      expect(e.outcome === 'exhausted', `${minID}-${maxID} over ${JSON.stringify(holdings(e.state))}`).to.equal(free === undefined);
      if (e.outcome === 'exhausted') expect(holdings(e.nextState)).to.deep.equal(holdings(e.state));
    }
  });
  it('a create failure never frees an id', () => {
    for (const e of edges) if (e.event.type === 'createFailed') expect(holdings(e.nextState).map((h) => h.id)).to.deep.equal(holdings(e.state).map((h) => h.id));
  });
});
