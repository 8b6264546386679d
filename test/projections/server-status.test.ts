import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { renderServerStatus, SERVER_CONDITION_TYPES, type ServerStatus } from '../../projections/server-status.js';
import { serverRebuildDefinition, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';
import type { ServerRebuildStimulus } from '../../machines/server-rebuild/stimuli.js';
import { accepted, busy, hidden, image, observed, reconcile, STREAM } from '../machines/server-rebuild-facts.js';

const contextAfter = (...stimuli: ServerRebuildStimulus[]): ServerRebuildContext => {
  let s: AnyMachineSnapshot = initialSnapshot(serverRebuildDefinition, STREAM);
  for (const stimulus of stimuli) s = step(serverRebuildDefinition, s, stimulus).snapshot;
  return s.context as ServerRebuildContext;
};
/** Rendered for generation 3, as decided on by the last pass unless a test says otherwise. */
const render = (context: ServerRebuildContext, previous?: ServerStatus, at = '2026-11-29T10:00:00Z', generation = 3, decidedGeneration: number | null = 3) =>
  renderServerStatus({ context, generation, decidedGeneration, at, previous });
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

  it('reports provisioned once the marker is cleared (and the monitor saw the rebuilt server settle)', () => {
    const settled = render(contextAfter(observed(), reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B') }), reconcile('B', { imageRef: image('B') })));
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
    const first = render(contextAfter(observed({ launchedAt: { kind: 'launched', at: '2026-11-01T00:00:00Z' } })), undefined, '2026-11-29T10:00:00Z');
    const again = render(contextAfter(observed({ launchedAt: { kind: 'launched', at: '2026-11-01T00:00:00Z' } }), reconcile('B')), first, '2026-11-29T11:00:00Z');
    expect(condition(again, 'Healthy')?.lastTransitionTime).to.equal('2026-11-29T10:00:00Z');
    expect(condition(again, 'Available')?.lastTransitionTime).to.equal('2026-11-29T11:00:00Z');
  });

  it('renders provisionedAt and macAddress from the monitor latches', () => {
    const status = render(contextAfter(observed({ launchedAt: { kind: 'launched', at: '2026-11-02T00:00:00Z' }, macAddress: 'fa:16:3e:12:34:56' })));
    expect(status.provisionedAt).to.equal('2026-11-02T00:00:00Z');
    expect(status.macAddress).to.equal('fa:16:3e:12:34:56');
    expect(status.phase).to.equal('Running');
    expect(status.ipAddresses).to.equal(undefined);
    expect(render(contextAfter(observed({ ipAddresses: ['10.0.0.3'] }))).ipAddresses).to.deep.equal(['10.0.0.3']);
  });

  it('a rebuild waiting on a task_state Nova hides says so: Available names OS-EXT-STS:task_state while hidden, not once visible', () => {
    const accepting = [observed(), reconcile('B'), reconcile('B'), accepted('B')] as const;
    const hiddenNow = contextAfter(...accepting, observed({ imageRef: image('B'), taskState: hidden }));
    const available = condition(render(hiddenNow), 'Available');
    expect(available).to.include({ status: 'False', reason: 'Provisioning' });
    expect(available?.message).to.equal(
      "rebuild to image B is pending (Rebuilding): Nova's answer does not include OS-EXT-STS:task_state (hidden by policy?), so Regent cannot see the rebuild settle; it waits until the field is visible",
    );
    expect(render(hiddenNow).provisioningStatus).to.equal('provisioning');
    // visible again: a task running (still pending, no longer about the field), then empty (settled as before)
    const running = condition(render(contextAfter(...accepting, observed({ imageRef: image('B'), taskState: hidden }), observed({ imageRef: image('B'), status: 'REBUILD', taskState: busy() }))), 'Available');
    expect(running?.message).to.equal('rebuild to image B is pending (Rebuilding)');
    const visible = render(contextAfter(...accepting, observed({ imageRef: image('B'), taskState: hidden }), observed({ imageRef: image('B') })));
    expect(condition(visible, 'Available')?.message).to.equal('rebuild to image B is pending (Succeeded)').and.not.include('task_state');
    // never visible-but-hidden before: the message is as it always was
    expect(condition(render(contextAfter(...accepting)), 'Available')?.message).to.equal('rebuild to image B is pending (Rebuilding)');
  });

  it('a Failed marker does not wait on task_state: its message does not name it', () => {
    const stamped = contextAfter(observed(), reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), taskState: hidden }), observed({ imageRef: image('B'), status: 'ERROR', taskState: hidden }));
    expect(stamped.taskStateUnknown).to.equal('hidden');
    expect(condition(render(stamped), 'Available')?.message).to.equal('rebuild to image B is pending (Failed)');
  });

  it('renders Unknown/NotObserved before the monitor has seen the server', () => {
    const status = render(contextAfter());
    expect(condition(status, 'Healthy')).to.include({ status: 'Unknown', reason: 'NotObserved' });
    expect(status.phase).to.equal('Pending');
  });

  describe('observedGeneration is what a pass decided from, and provisioned means settled (issue 10, item 13)', () => {
    const booted = () => contextAfter(observed());
    it('a spec generation no pass has decided on yet reads provisioning, stamped with the generation decided from', () => {
      const status = render(booted(), undefined, undefined, 4, 3);
      expect(status.observedGeneration).to.equal(3);
      expect(status.conditions.every((c) => c.observedGeneration === 3)).to.equal(true);
      expect(status.provisioningStatus).to.equal('provisioning');
      expect(condition(status, 'Available')).to.include({ status: 'False', reason: 'Provisioning' });
      expect(condition(status, 'Available')?.message).to.match(/generation 4 is not reconciled yet \(the last pass decided from generation 3\)/);
    });
    it('the generation comes from the stream: every reconcile pass records the generation it decided from', () => {
      const context = contextAfter(observed(), { ...reconcile('A'), generation: 7 } as ServerRebuildStimulus);
      expect(context.decidedGeneration).to.equal(7);
      const status = renderServerStatus({ context, generation: 7, at: '2026-11-29T10:00:00Z' });
      expect(status).to.include({ observedGeneration: 7, provisioningStatus: 'provisioned' });
    });
    it('a server Nova still reports BUILD (never booted) is provisioning, not provisioned', () => {
      const building = render(contextAfter(observed({ status: 'BUILD', launchedAt: { kind: 'never' }, taskState: { kind: 'active', name: 'spawning' } })));
      expect(building.provisioningStatus).to.equal('provisioning');
      expect(condition(building, 'Available')).to.include({ status: 'False', reason: 'Provisioning', message: 'Nova is building the server' });
    });
    it('before the monitor has seen the server it is not provisioned', () => {
      expect(render(contextAfter()).provisioningStatus).to.equal('provisioning');
    });
    it('a booted server Nova reports in ERROR (no rebuild) is not provisioned: error', () => {
      const errored = render(contextAfter(observed(), observed({ status: 'ERROR' })));
      expect(errored.provisioningStatus).to.equal('error');
      expect(condition(errored, 'Available')).to.include({ status: 'False', reason: 'Errored' });
    });
    it('a request for a superseded image that may still land keeps it provisioning', () => {
      const context = contextAfter(observed(), { ...reconcile('B'), at: '2026-11-29T10:00:00Z' } as ServerRebuildStimulus, { ...reconcile('B'), at: '2026-11-29T10:00:00Z', rebuildActions: { kind: 'read', requestIds: [] } } as ServerRebuildStimulus, { type: 'rebuild.outcomeUnknown', source: 'effect', imageId: 'B', reason: 'no answer within the client timeout' }, { ...reconcile('A'), at: '2026-11-29T10:00:10Z' } as ServerRebuildStimulus, { ...reconcile('A'), at: '2026-11-29T10:00:11Z' } as ServerRebuildStimulus);
      expect(context.marker).to.equal(null);
      const status = render(context);
      expect(status.provisioningStatus).to.equal('provisioning');
      expect(condition(status, 'Available')?.message).to.match(/the rebuild request for image B: Nova's answer never came \(no answer within the client timeout\)/);
    });
  });

  describe('no success over fields Regent does not realize (issue 10, item 14)', () => {
    const unrealized = [{ field: 'spec.securityGroups', why: 'security groups are not implemented yet: the server has only the project default' }];
    it('SpecRealized names each field not acted on, and Available says the server runs but the spec is not fully realized', () => {
      const status = renderServerStatus({ context: contextAfter(observed()), generation: 3, decidedGeneration: 3, unrealized, at: '2026-11-29T10:00:00Z' });
      expect(condition(status, 'SpecRealized')).to.include({ status: 'False', reason: 'FieldsNotImplemented' });
      expect(condition(status, 'SpecRealized')?.message).to.include('spec.securityGroups: security groups are not implemented yet');
      expect(condition(status, 'Available')).to.include({ status: 'False', reason: 'PartiallyRealized' });
      expect(condition(status, 'Available')?.message).to.match(/^the server runs its desired image, but the spec is not fully realized: spec\.securityGroups/);
      expect(status.provisioningStatus).to.not.equal('provisioned');
    });
    it('with every field realized SpecRealized is True', () => {
      expect(condition(render(contextAfter(observed())), 'SpecRealized')).to.include({ status: 'True', reason: 'AllFieldsRealized' });
    });
  });
});
