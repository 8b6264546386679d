import { expect } from 'chai';
import { MemoryEventStore } from '../../src/store/memory.js';
import { Engine } from '../../src/engine/engine.js';
import { replayAt, verifyStream } from '../../src/engine/replay.js';
import { MachineRegistry } from '../../machines/registry.js';
import { buildToyMachine, toyDefinition } from '../fixtures/toy-machine.js';

const STREAM = 'toy-replay';

/** A history: armed, submitted, (monitor) observed nothing, confirmedPresent by reconcile. */
const recordHistory = async () => {
  const store = new MemoryEventStore();
  const registry = new MachineRegistry([toyDefinition()]);
  let tick = Date.parse('2026-11-29T10:00:00Z');
  const engine = new Engine({ store, registry, now: () => new Date((tick += 60_000)), handlers: { 'toy.create': async () => undefined } });
  await engine.dispatch(STREAM, { stimulus: { type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false }, actor: 'r' }); // rev 0 10:01
  await engine.dispatch(STREAM, { stimulus: { type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false }, actor: 'r' }); // rev 1 10:02
  await engine.dispatch(STREAM, { stimulus: { type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false }, actor: 'r' }); // rev 2 10:03 resubmitted
  await engine.dispatch(STREAM, { stimulus: { type: 'observed', source: 'monitor', exists: true }, actor: 'm' }); // rev 3 10:04
  return { store, registry };
};

describe('replay', () => {
  it('rebuilds the state as of a revision', async () => {
    const { store, registry } = await recordHistory();
    const at1 = await replayAt(store, registry, STREAM, { revision: 1 });
    expect(at1.snapshot.value).to.equal('submitting');
    expect(at1.snapshot.context).to.deep.equal({ target: 'lamp', attempts: 1 });
    expect(at1.last?.revision).to.equal(1);
    const atEnd = await replayAt(store, registry, STREAM);
    expect(atEnd.snapshot.value).to.equal('present');
    expect(atEnd.applied).to.equal(4);
  });

  it('rebuilds the state as of a time (events recorded at or before it)', async () => {
    const { store, registry } = await recordHistory();
    const state = await replayAt(store, registry, STREAM, { time: new Date('2026-11-29T10:02:30Z') });
    expect(state.last?.revision).to.equal(1);
    const before = await replayAt(store, registry, STREAM, { time: new Date('2026-11-29T09:00:00Z') });
    expect(before.last).to.equal(undefined);
    expect(before.snapshot.value).to.equal('idle');
  });

  it('separates what the control plane last observed from what it last decided', async () => {
    const { store, registry } = await recordHistory();
    const state = await replayAt(store, registry, STREAM);
    expect(state.lastObservation?.revision).to.equal(3);
    expect(state.lastDecision?.revision).to.equal(2);
  });

  it('verify finds no divergence when the machine is unchanged', async () => {
    const { store, registry } = await recordHistory();
    const report = await verifyStream(store, registry, STREAM);
    expect(report.checked).to.equal(4);
    expect(report.divergence).to.equal(undefined);
  });

  it('verify names the first divergent event when a machine changes a decision (effects)', async () => {
    const { store, registry } = await recordHistory();
    // candidate: a reconcile while submitting no longer re-submits
    const candidate = toyDefinition(2, buildToyMachine({ submitAfterArm: false }));
    const report = await verifyStream(store, registry, STREAM, { definition: candidate });
    expect(report.divergence?.revision).to.equal(2);
    expect(report.divergence?.type).to.equal('toy.resubmitted');
    expect(report.divergence?.reason).to.equal('ignored');
    expect(report.divergence?.expected.effects).to.deep.equal([{ type: 'toy.create', name: 'lamp', attempt: 2 }]);
    expect(report.divergence?.actual.effects).to.deep.equal([]);
  });

  it('verify names the first divergent event when a machine changes a state', async () => {
    const { store, registry } = await recordHistory();
    // candidate: an observed presence while submitting now counts as a failure
    const candidate = toyDefinition(2, buildToyMachine({ observedPresentTarget: 'failed' }));
    const report = await verifyStream(store, registry, STREAM, { definition: candidate });
    expect(report.divergence?.revision).to.equal(3);
    expect(report.divergence?.expected.to).to.equal('present');
    expect(report.divergence?.actual.to).to.equal('failed');
    expect(report.divergence?.reason).to.equal('state');
  });
});
