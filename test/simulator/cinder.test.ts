import { expect } from 'chai';
import { SEED } from '../../src/simulator/index.js';
import { bootServer, harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Cinder v3 and Nova volume attachments', () => {
  let hs: Harness;
  beforeEach(async () => { hs = await harness(); });
  afterEach(async () => { await hs.sim.close(); });

  const createVolume = async (name: string, extra: Record<string, unknown> = {}) => {
    const r = await http.post(`${hs.volume('demo')}/volumes`, { volume: { name, size: 1, ...extra } }, { headers: await hs.h('demo', 'volume 3.70') });
    expect(r.status, JSON.stringify(r.data)).to.equal(202);
    return r.data.volume.id as string;
  };
  const getVolume = async (id: string, user: 'demo' | 'other' | 'admin' = 'demo') =>
    http.get(`${hs.volume(user)}/volumes/${id}`, { headers: await hs.h(user, 'volume 3.70') });

  it('creates a volume (creating → available on the clock, volume_type default), echoes the volume microversion, deletes it (deleting → 404)', async () => {
    const id = await createVolume('data-1');
    const v = await getVolume(id);
    expect(v.headers['openstack-api-version']).to.equal('volume 3.70');
    expect(v.data.volume).to.include({ status: 'creating', size: 1, name: 'data-1', volume_type: 'standard', bootable: 'false', volume_type_id: SEED.volumeTypes.standard });
    hs.advance(300);
    expect((await getVolume(id)).data.volume.status).to.equal('available');
    expect((await http.delete(`${hs.volume('demo')}/volumes/${id}`, { headers: await hs.h('demo') })).status).to.equal(202);
    expect((await getVolume(id)).data.volume.status).to.equal('deleting');
    hs.advance(300);
    const gone = await getVolume(id);
    expect(gone.status).to.equal(404);
    expect(gone.data.itemNotFound.message).to.equal(`Volume ${id} could not be found.`);
  });

  it('filters ?name= exactly by default, by substring with name~ (3.34+) or when configured fuzzy', async () => {
    await createVolume('volume-abc');
    await createVolume('volume-abcd');
    const names = async (q: string, mv = 'volume 3.70') => ((await http.get(`${hs.volume('demo')}/volumes/detail?${q}`, { headers: await hs.h('demo', mv) })).data.volumes as Array<{ name: string }>).map((v) => v.name).sort();
    expect(await names('name=volume-abc')).to.deep.equal(['volume-abc']);
    expect(await names('name~=volume-ab')).to.deep.equal(['volume-abc', 'volume-abcd']);
    await createVolume('other');
    expect(await names('name~=volume-ab', 'volume 3.33'), 'name~ is not a filter before 3.34').to.deep.equal(['other', 'volume-abc', 'volume-abcd']);
    await http.post(`${hs.sim.url}/_sim/config`, { cinder: { fuzzyNameFilter: true } });
    expect(await names('name=volume-abc')).to.deep.equal(['volume-abc', 'volume-abcd']);
  });

  it('pages /volumes/detail with limit and marker and a volumes_links next link', async () => {
    for (const n of ['v1', 'v2', 'v3']) await createVolume(n);
    const h = await hs.h('demo');
    const first = await http.get(`${hs.volume('demo')}/volumes/detail?limit=2`, { headers: h });
    expect(first.data.volumes.map((v: { name: string }) => v.name)).to.deep.equal(['v3', 'v2']);
    const next = first.data.volumes_links[0].href as string;
    const second = await http.get(next, { headers: h });
    expect(second.data.volumes.map((v: { name: string }) => v.name)).to.deep.equal(['v1']);
    expect(second.data).to.not.have.property('volumes_links');
    const full = await http.get(`${hs.volume('demo')}/volumes?limit=3`, { headers: h });
    expect(full.data.volumes_links, 'a full page links on, like Cinder').to.have.length(1);
    const empty = await http.get(full.data.volumes_links[0].href, { headers: h });
    expect(empty.data).to.deep.equal({ volumes: [] });
  });

  it('scopes volumes by project and refuses a URL whose project id is not the token\'s', async () => {
    const id = await createVolume('mine');
    expect((await getVolume(id, 'other')).status).to.equal(404);
    const wrongUrl = await http.get(`${hs.volume('other')}/volumes/${id}`, { headers: await hs.h('demo') });
    expect(wrongUrl.status).to.equal(400);
    expect(wrongUrl.data.badRequest.message).to.equal('Malformed request url');
    const all = await http.get(`${hs.volume('admin')}/volumes?all_tenants=1`, { headers: await hs.h('admin') });
    expect(all.data.volumes.map((v: { id: string }) => v.id)).to.include(id);
  });

  it('attaches through Nova: reserved → attaching → in-use, one attachment row (attached, rw, instance = server); detaches back to available', async () => {
    const server = await bootServer(hs, 'demo', 'vm');
    const vol = await createVolume('volume-data');
    hs.advance(300);
    const att = await http.post(`${hs.nova}/servers/${server}/os-volume_attachments`, { volumeAttachment: { volumeId: vol } }, { headers: await hs.h('demo', 'compute 2.89') });
    expect(att.status).to.equal(200);
    expect(att.data.volumeAttachment).to.include({ volumeId: vol, serverId: server, device: '/dev/sdb' });
    expect(att.data.volumeAttachment, 'the POST answer is built from the request, as Nova does').to.have.keys('id', 'volumeId', 'serverId', 'device', 'tag', 'delete_on_termination');
    expect((await getVolume(vol)).data.volume.status).to.equal('reserved');
    hs.advance(150);
    expect((await getVolume(vol)).data.volume.status).to.equal('attaching');
    hs.advance(150);
    const v = (await getVolume(vol)).data.volume;
    expect(v.status).to.equal('in-use');
    expect(v.attachments).to.have.length(1);
    const shown = await http.get(`${hs.nova}/servers/${server}/os-volume_attachments/${vol}`, { headers: await hs.h('demo', 'compute 2.89') });
    expect(shown.data.volumeAttachment).to.have.keys('volumeId', 'serverId', 'device', 'tag', 'delete_on_termination', 'attachment_id', 'bdm_uuid');
    expect(v.attachments[0]).to.include({ server_id: server, device: '/dev/sdb', attachment_id: shown.data.volumeAttachment.attachment_id });
    const rows = await http.get(`${hs.volume('demo')}/attachments/detail?volume_id=${vol}`, { headers: await hs.h('demo', 'volume 3.27') });
    expect(rows.data.attachments).to.have.length(1);
    expect(rows.data.attachments[0]).to.include({ status: 'attached', instance: server, attach_mode: 'rw', volume_id: vol });
    expect(rows.data.attachments[0].connection_info.driver_volume_type).to.equal('iscsi');
    expect((await http.get(`${hs.volume('demo')}/attachments?volume_id=${vol}`, { headers: await hs.h('demo', 'volume 3.26') })).status).to.equal(404);
    const list = await http.get(`${hs.nova}/servers/${server}/os-volume_attachments`, { headers: await hs.h('demo', 'compute 2.1') });
    expect(list.data.volumeAttachments[0]).to.include({ id: vol, volumeId: vol });
    const srv = await http.get(`${hs.nova}/servers/${server}`, { headers: await hs.h('demo') });
    expect(srv.data.server['os-extended-volumes:volumes_attached']).to.deep.equal([{ id: vol }]);

    const twice = await http.post(`${hs.nova}/servers/${server}/os-volume_attachments`, { volumeAttachment: { volumeId: vol } }, { headers: await hs.h('demo') });
    expect(twice.status).to.equal(400);
    expect((await http.delete(`${hs.volume('demo')}/volumes/${vol}`, { headers: await hs.h('demo') })).status).to.equal(400);

    expect((await http.delete(`${hs.nova}/servers/${server}/os-volume_attachments/${vol}`, { headers: await hs.h('demo') })).status).to.equal(202);
    expect((await getVolume(vol)).data.volume.status).to.equal('detaching');
    hs.advance(300);
    const after = (await getVolume(vol)).data.volume;
    expect(after).to.deep.include({ status: 'available', attachments: [] });
    expect((await http.get(`${hs.volume('demo')}/attachments/detail?volume_id=${vol}`, { headers: await hs.h('demo', 'volume 3.27') })).data.attachments).to.deep.equal([]);
    expect((await http.delete(`${hs.nova}/servers/${server}/os-volume_attachments/${vol}`, { headers: await hs.h('demo') })).status).to.equal(404);
  });

  it('refuses to attach while the server is mid-task (409) and to a missing volume (404)', async () => {
    const server = await bootServer(hs, 'demo', 'vm');
    const vol = await createVolume('v');
    hs.advance(300);
    await http.post(`${hs.nova}/servers/${server}/action`, { rebuild: { imageRef: SEED.images.ubuntu } }, { headers: await hs.h('demo') });
    const busy = await http.post(`${hs.nova}/servers/${server}/os-volume_attachments`, { volumeAttachment: { volumeId: vol } }, { headers: await hs.h('demo') });
    expect(busy.status).to.equal(409);
    expect(busy.data.conflictingRequest.message).to.contain("Cannot 'attach_volume'");
    hs.advance(900);
    const missing = await http.post(`${hs.nova}/servers/${server}/os-volume_attachments`, { volumeAttachment: { volumeId: 'nope' } }, { headers: await hs.h('demo') });
    expect(missing.status).to.equal(404);
  });

  it("?name= compares as real Cinder on MySQL (docs/simulator-differences.md §14): case, accents and trailing spaces fold; a prefix or a leading space does not match", async () => {
    await createVolume('regent-café');
    const names = async (q: string) => ((await http.get(`${hs.volume('demo')}/volumes/detail?${q}`, { headers: await hs.h('demo', 'volume 3.70') })).data.volumes as Array<{ name: string }>).map((v) => v.name);
    for (const variant of ['REGENT-CAFÉ', 'regent-cafe', 'regent-cafÉ', 'regent-café%20%20']) expect(await names(`name=${encodeURIComponent(decodeURIComponent(variant))}`), variant).to.deep.equal(['regent-café']);
    expect(await names('name=regent-caf')).to.deep.equal([]);
    expect(await names(`name=${encodeURIComponent(' regent-café')}`)).to.deep.equal([]);
    expect(await names('name~=CAFE')).to.deep.equal(['regent-café']);
  });

  it('os-reset_status refuses a status Cinder does not know with its 400 and list (§14)', async () => {
    const id = await createVolume('plain');
    hs.advance(300);
    const r = await http.post(`${hs.volume('admin')}/volumes/${id}/action`, { 'os-reset_status': { status: 'sleepy' } }, { headers: await hs.h('admin') });
    expect(r.status).to.equal(400);
    expect(JSON.stringify(r.data)).to.include("Volume status: sleepy is invalid, valid statuses are: ('creating', 'available'");
    expect((await getVolume(id)).data.volume.status).to.equal('available');
  });

  it('os-reset_status is admin-only; a failCreate rule ends creation in error', async () => {
    const id = await createVolume('plain');
    hs.advance(300);
    const act = (user: 'demo' | 'admin') => async () => http.post(`${hs.volume(user)}/volumes/${id}/action`, { 'os-reset_status': { status: 'error' } }, { headers: await hs.h(user) });
    expect((await act('demo')()).status).to.equal(403);
    expect((await act('admin')()).status).to.equal(202);
    expect((await getVolume(id)).data.volume.status).to.equal('error');
    hs.sim.control.configure({ cinder: { failCreate: '-vfail$' } });
    const bad = await createVolume('x-vfail');
    hs.advance(300);
    expect((await getVolume(bad)).data.volume.status).to.equal('error');
  });

  it('lists volume types (extra specs for admins only) and the default type at 3.62', async () => {
    const demo = await http.get(`${hs.volume('demo')}/types`, { headers: await hs.h('demo') });
    expect(demo.data.volume_types.map((t: { name: string }) => t.name).sort()).to.deep.equal(['ssd', 'standard']);
    expect(demo.data.volume_types[0]).to.not.have.property('extra_specs');
    const admin = await http.get(`${hs.volume('admin')}/types`, { headers: await hs.h('admin') });
    expect(admin.data.volume_types[0]).to.have.property('extra_specs');
    const dflt = await http.get(`${hs.volume('demo')}/types/default`, { headers: await hs.h('demo', 'volume 3.62') });
    expect(dflt.data.volume_type.name).to.equal('standard');
    const typed = await createVolume('fast', { volume_type: 'ssd' });
    expect((await getVolume(typed)).data.volume.volume_type).to.equal('ssd');
    const badType = await http.post(`${hs.volume('demo')}/volumes`, { volume: { size: 1, volume_type: 'gold' } }, { headers: await hs.h('demo') });
    expect(badType.status).to.equal(404);
  });
});
