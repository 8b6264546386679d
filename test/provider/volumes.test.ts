/**
 * The volume provider (src/provider/volumes.ts) under the volume lifecycle machine, through the real
 * engine, against the simulator's Cinder over HTTP: what a Volume controller pass will do, minus the
 * controller (issue 12). Counts passes and Cinder calls for create → available.
 */
import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { volumeCloudName, volumeLifecycleStream, VOLUME_ERRORED_MESSAGE, type VolumeStimulus } from '../../machines/volume-lifecycle.js';
import { volumeAvailable } from '../../projections/volume-status.js';
import { createVolumeHandler, deleteVolumeHandler, extendVolumeHandler, observeVolume } from '../../src/provider/volumes.js';
import type { Stimulus } from '../../machines/definition.js';
import { createFixtures, settle, type Fixtures } from '../openstack/support/fixtures.js';
import { connectAs, simApi, start } from '../openstack/support/sim.js';

describe('volume provider under the volume lifecycle (simulator over HTTP)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let demo: OpenStackSession;
  let admin: OpenStackSession;
  let typeId: string;
  let fx: Fixtures;
  let counter = 0;

  before(async () => {
    sim = await start();
    demo = await connectAs(sim, 'demo');
    admin = await connectAs(sim, 'admin');
    fx = await createFixtures(admin, demo);
    typeId = (await demo.cinder.listVolumeTypes())[0]!.id;
  });
  after(async () => sim.close());
  afterEach(async () => {
    await simApi(sim, 'POST', '/config', { cinder: { fuzzyNameFilter: false } });
  });

  const rig = () => {
    const uid = `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
    const store = new MemoryEventStore();
    const engine = new Engine({
      store,
      registry: createProductRegistry(),
      handlers: { 'cinder.createVolume': createVolumeHandler(demo.cinder), 'cinder.extendVolume': extendVolumeHandler(demo.cinder), 'cinder.deleteVolume': deleteVolumeHandler(demo.cinder) },
    });
    const stream = volumeLifecycleStream(uid);
    let size = 1;
    let deleting = false;
    let passes = 0;
    const pass = async (names: Record<string, string> = {}) => {
      passes += 1;
      const observed = await observeVolume(demo.cinder, uid, (id) => names[id] ?? 'another server');
      const stimulus: VolumeStimulus = {
        type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested: deleting, at: new Date().toISOString(),
        identity: { kind: 'realized', projectId: demo.projectId ?? 'p' },
        desired: { size, volumeClassID: typeId, linkage: { identityID: 'i', organizationID: 'o', projectID: 'p', regionID: 'r', networkID: 'n' }, tags: { team: 'web' } },
        exportedClasses: [typeId], observed,
      };
      const decisions = await engine.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor: 'test/volume' });
      return decisions.at(-1)!.snapshot;
    };
    return {
      uid, store, stream, pass,
      grow: (to: number) => void (size = to),
      delete: () => void (deleting = true),
      passes: () => passes,
      name: volumeCloudName(uid),
    };
  };

  it('create → available: the first pass creates volume-<uid> with its metadata, later passes yield until Cinder says available', async () => {
    const r = rig();
    const callsBefore = sim.calls().length;
    let snapshot = await r.pass();
    expect(String(snapshot.value)).to.equal('creating');
    expect(volumeAvailable(snapshot)).to.deep.include({ status: 'False' });
    snapshot = await r.pass();
    expect(volumeAvailable(snapshot).status).to.equal('False');
    await settle(sim);
    snapshot = await r.pass();
    expect(String(snapshot.value)).to.equal('available');
    expect(volumeAvailable(snapshot)).to.deep.include({ status: 'True' });
    const volume = await demo.cinder.findVolumeByName(r.name);
    expect(volume.metadata.kind === 'value' && volume.metadata.value['regent.dev:volume-id']).to.equal(r.uid);
    const cinderCalls = sim.calls().slice(callsBefore).filter((c) => c.path.includes('/volumev3') || c.path.includes('/volumes') || c.path.includes('/block-storage'));
    console.log(`      create → available: ${r.passes()} passes, ${cinderCalls.length} Cinder calls (${cinderCalls.filter((c) => c.method === 'POST').length} POST)`);
    expect(cinderCalls.filter((c) => c.method === 'POST')).to.have.length(1);
  });

  it('a create handler retried after Cinder took the first one adopts it by exact name: no second POST', async () => {
    const r = rig();
    const created = await demo.cinder.createVolume({ name: r.name, size: 1 });
    const before = sim.calls({ method: 'POST' }).length;
    const answer = await createVolumeHandler(demo.cinder)({ type: 'cinder.createVolume', name: r.name, size: 1, volumeType: typeId, metadata: {} }, { logger: silent } as never);
    expect(answer).to.deep.equal({ type: 'createAccepted', id: created.id });
    expect(sim.calls({ method: 'POST' }).length).to.equal(before);
  });

  it('a fuzzy name filter is post-filtered; two exact matches are a duplicate the machine parks on (nothing created or deleted)', async () => {
    await simApi(sim, 'POST', '/config', { cinder: { fuzzyNameFilter: true } });
    const r = rig();
    await demo.cinder.createVolume({ name: `${r.name}-other`, size: 1 });
    expect(await observeVolume(demo.cinder, r.uid, String)).to.deep.equal({ kind: 'absent' });
    await demo.cinder.createVolume({ name: r.name, size: 1 });
    await demo.cinder.createVolume({ name: r.name, size: 1 });
    const before = sim.calls({ method: 'POST' }).length;
    const snapshot = await r.pass();
    expect(String(snapshot.value)).to.equal('inconsistent');
    expect(sim.calls({ method: 'POST' }).length).to.equal(before);
  });

  it('a refused create is answered with the status and reason only (Cinder\'s own text goes to the log, never into the result event)', async () => {
    const r = rig();
    await simApi(sim, 'POST', '/config', { cinder: { fuzzyNameFilter: false } });
    const answer = await createVolumeHandler(demo.cinder)({ type: 'cinder.createVolume', name: r.name, size: 1, volumeType: 'no-such-type', metadata: {} }, { logger: silent } as never);
    expect(answer).to.have.property('type', 'createRejected');
    expect(Object.keys(answer as object).sort()).to.deep.equal(['reason', 'status', 'type']);
  });

  it('growth: a larger size is one Cinder extend, yielded until available at the new size', async () => {
    const r = rig();
    await r.pass();
    await settle(sim);
    expect(String((await r.pass()).value)).to.equal('available');
    r.grow(3);
    expect(String((await r.pass()).value)).to.equal('extending');
    await settle(sim);
    const snapshot = await r.pass();
    expect(String(snapshot.value)).to.equal('available');
    expect((await demo.cinder.findVolumeByName(r.name)).size).to.deep.equal({ kind: 'value', value: 3 });
  });

  it('delete: armed, then submitted, then confirmed by absence; an attached volume waits naming its server', async () => {
    const r = rig();
    await r.pass();
    await settle(sim);
    await r.pass();
    const volume = await demo.cinder.findVolumeByName(r.name);
    const server = await demo.nova.createServer({ name: `vm-${r.uid}`, flavorRef: fx.flavorId, imageRef: fx.imageId, networks: [{ uuid: fx.networkId }] });
    await settle(sim);
    await demo.nova.attachVolume(server.id, volume.id, {});
    await settle(sim);
    r.delete();
    const deletesBefore = sim.calls({ method: 'DELETE' }).length;
    const waiting = await r.pass({ [server.id]: 'web-1' });
    expect(JSON.stringify(waiting.value)).to.include('waiting');
    expect(JSON.stringify(waiting.context)).to.include('web-1');
    expect(sim.calls({ method: 'DELETE' }).length, 'no delete while attached').to.equal(deletesBefore);
    await demo.nova.detachVolume(server.id, volume.id);
    await settle(sim);
    for (let i = 0; i < 6 && String(JSON.stringify((await r.pass()).value)) !== '"deleted"'; i++) await settle(sim);
    expect(await observeVolume(demo.cinder, r.uid, String)).to.deep.equal({ kind: 'absent' });
    const events = JSON.stringify(await r.store.readStream(r.stream));
    expect(events).to.include('deleteSubmitted');
  });

  it('a create that stays creating: every pass yields (pending), nothing is sent again, Available stays False', async () => {
    const r = rig();
    await r.pass();
    const posts = () => sim.calls({ method: 'POST' }).filter((c) => c.path.endsWith('/volumes')).length;
    const before = posts();
    for (let i = 0; i < 4; i++) {
      const snapshot = await r.pass();
      expect(String(snapshot.value)).to.be.oneOf(['creating', 'pending']);
      expect(volumeAvailable(snapshot)).to.deep.include({ status: 'False', reason: 'Provisioning' });
    }
    expect(posts() - before, 'no second create').to.equal(0);
    await settle(sim);
    expect(String((await r.pass()).value)).to.equal('available');
  });

  it("an error_extending status is the terminal Errored outcome with the user-safe message only", async () => {
    const r = rig();
    await r.pass();
    await settle(sim);
    await r.pass();
    const volume = await demo.cinder.findVolumeByName(r.name);
    await admin.cinder.resetVolumeStatus(volume.id, { status: 'error_extending' });
    const snapshot = await r.pass();
    expect(String(snapshot.value)).to.equal('errored');
    expect(volumeAvailable(snapshot)).to.deep.equal({ status: 'False', reason: 'Errored', message: VOLUME_ERRORED_MESSAGE });
  });

  it('delete while Cinder says deleting: no second delete is sent while it lasts; absence then confirms it', async () => {
    const r = rig();
    await r.pass();
    await settle(sim);
    await r.pass();
    const volume = await demo.cinder.findVolumeByName(r.name);
    r.delete();
    await r.pass(); // armed
    await r.pass(); // submitted: Cinder accepted the delete and says deleting until its delay passes
    const deletes = () => sim.calls({ method: 'DELETE' }).filter((c) => c.path.includes(`/volumes/${volume.id}`)).length;
    expect(deletes()).to.equal(1);
    const during = await r.pass();
    expect(JSON.stringify(during.value)).to.include('submitted');
    expect(deletes(), 'a volume Cinder is deleting is not deleted again').to.equal(1);
    await settle(sim);
    expect(String((await r.pass()).value)).to.equal('deleted');
  });
});

const silent = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => silent };
