/**
 * A WorkloadMachine's status (projections/workload-machine-status.ts): nothing is claimed that was not done — a
 * running server on another image than the one asked for is not ImageReady, nor Available, before the rebuild arms.
 */
import { expect } from 'chai';
import { renderWorkloadMachineResource, type WorkloadMachineStatusInput } from '../../projections/workload-machine-status.js';
import type { WorkloadMachineContext } from '../../machines/workload-machine.js';
import { desiredImageOf } from '../../src/controllers/workload-machine/status.js';

const running = (imageId: string): WorkloadMachineContext => ({
  uid: 'u', name: 'worker-0', portName: 'wm-u', role: 'worker', portId: 'p', address: '10.0.0.5', serverId: 's', serverStatus: 'ACTIVE', imageId,
  membership: [], waiting: null, problem: null, failure: null, invalidSpec: null, lastAnswer: null, create: null, decidedGeneration: 2, deletion: null, released: false,
});
const input = (over: Partial<WorkloadMachineStatusInput>): WorkloadMachineStatusInput => ({
  machine: { state: 'running', context: running('image-a') }, rebuild: undefined, role: 'Worker', desiredImageId: 'image-a', generation: 2, deleting: false, at: '2026-12-04T00:00:00Z', ...over,
});
const condition = (s: ReturnType<typeof renderWorkloadMachineResource>, type: string) => s.conditions.find((c) => c.type === type);

describe('projections: a WorkloadMachine\'s status', () => {
  it('running the image asked for: ImageReady and Available', () => {
    const s = renderWorkloadMachineResource(input({}));
    expect(condition(s, 'ImageReady')?.status).to.equal('True');
    expect(condition(s, 'Available')?.status).to.equal('True');
  });

  it('a new image decided but not armed yet: ImageReady False (Rebuilding) and Available False, never the old image as success', () => {
    const s = renderWorkloadMachineResource(input({ desiredImageId: 'image-b' }));
    expect(condition(s, 'ImageReady')).to.include({ status: 'False', reason: 'Rebuilding' });
    expect(condition(s, 'Available')?.status).to.equal('False');
  });

  it('a rebuild marker standing: Rebuilding; failed: RebuildFailed', () => {
    expect(condition(renderWorkloadMachineResource(input({ rebuild: { marker: { state: 'Initiated', targetImageID: 'image-b' } } })), 'ImageReady')).to.include({ status: 'False', reason: 'Rebuilding' });
    expect(condition(renderWorkloadMachineResource(input({ rebuild: { marker: { state: 'Failed', targetImageID: 'image-b' } } })), 'ImageReady')).to.include({ status: 'False', reason: 'RebuildFailed' });
  });

  it('a generation not decided yet is not Available', () => {
    expect(condition(renderWorkloadMachineResource(input({ generation: 3 })), 'Available')?.status).to.equal('False');
  });
});

describe('the WorkloadMachine status renderer: the image asked for', () => {
  const machine = (image: { id?: string; name?: string }) => ({ spec: { image } }) as unknown as Parameters<typeof desiredImageOf>[0];
  it('by id: the spec\'s id, whatever the stream last recorded', () => {
    expect(desiredImageOf(machine({ id: 'image-b' }), { type: 'reconcile', desired: { imageId: 'image-a' } })).to.equal('image-b');
  });
  it('by name: the id the last pass resolved (its reconcile event), else unknown', () => {
    expect(desiredImageOf(machine({ name: 'ubuntu' }), { type: 'reconcile', desired: { imageId: 'image-c' } })).to.equal('image-c');
    expect(desiredImageOf(machine({ name: 'ubuntu' }), { type: 'accepted' })).to.equal(null);
  });
});
