import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { ConsistencyError, NotFound } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { Fixtures } from './support/fixtures.js';
import { createFixtures, settle, uniqueName } from './support/fixtures.js';
import { connectAs, rejectionOf, simApi, start } from './support/sim.js';

describe('cinder and volume attachments over HTTP (simulator)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let admin: OpenStackSession;
  let demo: OpenStackSession;
  let fx: Fixtures;

  before(async () => {
    sim = await start();
    admin = await connectAs(sim, 'admin');
    demo = await connectAs(sim, 'demo');
    fx = await createFixtures(admin, demo);
  });
  after(async () => {
    await sim.close();
  });
  afterEach(async () => {
    await simApi(sim, 'POST', '/config', { cinder: { fuzzyNameFilter: false } });
  });

  it('creates a volume (creating → available), finds it by exact name, and deletes it', async () => {
    const name = uniqueName('volume');
    const created = await demo.cinder.createVolume({ name, size: 1, metadata: { 'regent.io/volume': 'v1' } });
    expect(created.status.kind).to.equal('value');
    await settle(sim);
    const found = await demo.cinder.findVolumeByName(name);
    expect(found.id).to.equal(created.id);
    expect(found.status).to.deep.equal({ kind: 'value', value: 'available' });
    expect(found.metadata).to.deep.equal({ kind: 'value', value: { 'regent.io/volume': 'v1' } });
    await demo.cinder.deleteVolume(created.id);
    await settle(sim);
    expect(await rejectionOf(demo.cinder.getVolume(created.id))).to.be.instanceOf(NotFound);
    expect(await demo.cinder.lookupVolumeByName(name)).to.equal(undefined);
  });

  it('extends an available volume (extending → available at the new size); a shrink or an extend while extending is a 400', async () => {
    const created = await demo.cinder.createVolume({ name: uniqueName('grow'), size: 1 });
    await settle(sim);
    await demo.cinder.extendVolume(created.id, 2);
    expect((await demo.cinder.getVolume(created.id)).status).to.deep.equal({ kind: 'value', value: 'extending' });
    expect(await rejectionOf(demo.cinder.extendVolume(created.id, 3))).to.deep.include({ status: 400 });
    await settle(sim);
    const grown = await demo.cinder.getVolume(created.id);
    expect([grown.status, grown.size]).to.deep.equal([{ kind: 'value', value: 'available' }, { kind: 'value', value: 2 }]);
    expect(await rejectionOf(demo.cinder.extendVolume(created.id, 1))).to.deep.include({ status: 400 });
  });

  it('a fuzzy (substring) name filter is post-filtered to the exact name; duplicates are a ConsistencyError', async () => {
    await simApi(sim, 'POST', '/config', { cinder: { fuzzyNameFilter: true } });
    const name = uniqueName('vol');
    const exact = await demo.cinder.createVolume({ name, size: 1 });
    await demo.cinder.createVolume({ name: `${name}-backup`, size: 1 });
    expect((await demo.cinder.listVolumes({ name })).length).to.equal(2);
    expect((await demo.cinder.findVolumeByName(name)).id).to.equal(exact.id);
    await demo.cinder.createVolume({ name, size: 1 });
    expect(await rejectionOf(demo.cinder.findVolumeByName(name))).to.be.instanceOf(ConsistencyError);
  });

  it('pages through volumes/detail following volumes_links', async () => {
    const prefix = uniqueName('vpage');
    for (let i = 0; i < 5; i++) await demo.cinder.createVolume({ name: `${prefix}-${i}`, size: 1 });
    const before = sim.calls({ method: 'GET', pathIncludes: '/volumes/detail' }).length;
    const all = await demo.cinder.listVolumes({}, { pageSize: 2 });
    expect(all.filter((v) => v.name?.startsWith(prefix)).length).to.equal(5);
    expect(sim.calls({ method: 'GET', pathIncludes: '/volumes/detail' }).length - before).to.be.greaterThan(2);
  });

  it('lists volume types', async () => {
    const types = await demo.cinder.listVolumeTypes();
    expect(types.length).to.be.greaterThan(0);
    expect(types[0]?.id).to.be.a('string');
  });

  it('attach through Nova shows a Cinder attachment row and an in-use volume; detach clears both', async () => {
    const { id: serverId } = await demo.nova.createServer({ name: uniqueName('attach'), flavorRef: fx.flavorId, imageRef: fx.imageId, networks: [{ uuid: fx.networkId }] });
    const volume = await demo.cinder.createVolume({ name: uniqueName('data'), size: 1 });
    await settle(sim);
    const attachment = await demo.nova.attachVolume(serverId, volume.id);
    expect(attachment).to.include({ serverId, volumeId: volume.id });
    await settle(sim);
    const inUse = await demo.cinder.getVolume(volume.id);
    expect(inUse.status).to.deep.equal({ kind: 'value', value: 'in-use' });
    expect(inUse.attachments.kind === 'value' && inUse.attachments.value[0]?.serverId).to.equal(serverId);
    const rows = await demo.cinder.listAttachments({ volumeId: volume.id });
    expect(rows).to.have.length(1);
    expect(rows[0]?.status).to.deep.equal({ kind: 'value', value: 'attached' });
    expect(rows[0]?.instance).to.deep.equal({ kind: 'value', value: serverId });
    const novaRows = await demo.nova.listVolumeAttachments(serverId);
    expect(novaRows.map((r) => r.volumeId)).to.include(volume.id);
    expect(novaRows.find((r) => r.volumeId === volume.id)?.attachmentId).to.equal(rows[0]?.id);
    expect(sim.calls({ method: 'GET', pathIncludes: '/attachments/detail' }).at(-1)?.query).to.contain(`volume_id=${volume.id}`);

    await demo.nova.detachVolume(serverId, volume.id);
    await settle(sim);
    const available = await demo.cinder.getVolume(volume.id);
    expect(available.status).to.deep.equal({ kind: 'value', value: 'available' });
    expect(available.attachments).to.deep.equal({ kind: 'value', value: [] });
    expect(await demo.cinder.listAttachments({ volumeId: volume.id })).to.have.length(0);
  });
});
