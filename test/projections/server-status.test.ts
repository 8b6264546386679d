import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { renderServerStatus, SERVER_CONDITION_TYPES, type ServerStatus } from '../../projections/server-status.js';
import { serverRebuildDefinition, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';
import type { ServerRebuildStimulus } from '../../machines/server-rebuild/stimuli.js';
import { accepted, image, observed, reconcile, STREAM } from '../machines/server-rebuild-facts.js';

const contextAfter = (...stimuli: ServerRebuildStimulus[]): ServerRebuildContext => {
  let s: AnyMachineSnapshot = initialSnapshot(serverRebuildDefinition, STREAM);
  for (const stimulus of stimuli) s = step(serverRebuildDefinition, s, stimulus).snapshot;
  return s.context as ServerRebuildContext;
};
const render = (context: ServerRebuildContext, previous?: ServerStatus, at = '2026-11-29T10:00:00Z', generation = 3) =>
  renderServerStatus({ context, generation, at, previous });
const condition = (status: ServerStatus, type: string) => status.conditions.find((c) => c.type === type);

describe('projection: server status', () => {
  it('renders the conditions in the single-source order, each stamped with observedGeneration', () => {
    const status = render(contextAfter(observed()));
    expect(status.conditions.map((c) => c.type)).to.deep.equal([...SERVER_CONDITION_TYPES]);
    expect(status.conditions.every((c) => c.observedGeneration === 3)).to.equal(true);
    expect(status.observedGeneration).to.equal(3);
  });

  it('reports provisioning while any rebuild intent is pending, armed but not yet accepted included', () => {
    const armed = render(contextAfter(observed(), reconcile('B')));
    expect(armed.provisioningStatus).to.equal('provisioning');
    expect(armed.rebuild).to.deep.equal({ targetImageID: 'B', state: 'Initiated' });
    expect(condition(armed, 'Available')).to.include({ status: 'False', reason: 'Provisioning' });
    const accepting = render(contextAfter(observed(), reconcile('B'), reconcile('B'), accepted('B')));
    expect(accepting.provisioningStatus).to.equal('provisioning');
    expect(accepting.phase).to.equal('Building');
    expect(condition(accepting, 'Healthy')).to.include({ status: 'False', reason: 'Provisioning' });
  });

  it('reports provisioned once the marker is cleared', () => {
    const settled = render(contextAfter(observed(), reconcile('B'), reconcile('B'), accepted('B'), reconcile('B', { imageRef: image('B') })));
    expect(settled.provisioningStatus).to.equal('provisioned');
    expect(settled.rebuild).to.equal(undefined);
    expect(condition(settled, 'Available')).to.include({ status: 'True', reason: 'Provisioned' });
  });

  it('reports error with Available=Errored only once the park was read back (parked)', () => {
    const stamped = contextAfter(observed(), reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), status: 'ERROR' }));
    expect(render(stamped).provisioningStatus).to.equal('provisioning');
    const parked = contextAfter(observed(), reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), status: 'ERROR' }), reconcile('B', { imageRef: image('B'), status: 'ERROR' }));
    const status = render(parked);
    expect(status.provisioningStatus).to.equal('error');
    expect(condition(status, 'Available')).to.include({ status: 'False', reason: 'Errored' });
    expect(condition(status, 'Available')?.message).to.match(/Choose another image or replace the server/);
    expect(status.rebuild).to.deep.equal({ targetImageID: 'B', state: 'Failed' });
  });

  it('keeps lastTransitionTime of a condition whose status did not change, and moves it when it did', () => {
    const first = render(contextAfter(observed()), undefined, '2026-11-29T10:00:00Z');
    const again = render(contextAfter(observed(), reconcile('B')), first, '2026-11-29T11:00:00Z');
    expect(condition(again, 'Healthy')?.lastTransitionTime).to.equal('2026-11-29T10:00:00Z');
    expect(condition(again, 'Available')?.lastTransitionTime).to.equal('2026-11-29T11:00:00Z');
  });

  it('renders provisionedAt and macAddress from the monitor latches', () => {
    const status = render(contextAfter(observed({ launchedAt: { kind: 'launched', at: '2026-11-02T00:00:00Z' }, macAddress: 'fa:16:3e:12:34:56' })));
    expect(status.provisionedAt).to.equal('2026-11-02T00:00:00Z');
    expect(status.macAddress).to.equal('fa:16:3e:12:34:56');
    expect(status.phase).to.equal('Running');
  });

  it('renders Unknown/NotObserved before the monitor has seen the server', () => {
    const status = render(contextAfter());
    expect(condition(status, 'Healthy')).to.include({ status: 'Unknown', reason: 'NotObserved' });
    expect(status.phase).to.equal('Pending');
  });
});
