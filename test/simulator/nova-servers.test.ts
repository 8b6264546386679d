import { expect } from 'chai';
import type { AxiosResponse } from 'axios';
import { SEED } from '../../src/simulator/index.js';
import { bootServer, getServer, harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Nova servers', () => {
  let hs: Harness;
  beforeEach(async () => { hs = await harness(); });
  afterEach(async () => { await hs.sim.close(); });

  it('a server walks BUILD (scheduling … spawning) to ACTIVE on the clock; launched_at is set at the first ACTIVE and kept', async () => {
    const id = await bootServer(hs, 'demo', 'web-1');
    const seen: Array<[string, string | null]> = [];
    for (let i = 0; i < 5; i++) {
      const s = (await getServer(hs, 'demo', id)).data.server;
      seen.push([s.status, s['OS-EXT-STS:task_state']]);
      if (s.status === 'BUILD') expect(s['OS-SRV-USG:launched_at']).to.equal(null);
      hs.advance(75);
    }
    expect(seen).to.deep.equal([['BUILD', 'scheduling'], ['BUILD', 'block_device_mapping'], ['BUILD', 'networking'], ['BUILD', 'spawning'], ['ACTIVE', null]]);
    const active = (await getServer(hs, 'demo', id)).data.server;
    expect(active['OS-EXT-STS:vm_state']).to.equal('active');
    expect(active['OS-EXT-STS:power_state']).to.equal(1);
    expect(active.image).to.deep.include({ id: SEED.images.cirros });
    expect(active.key_name).to.equal(null);
    expect(active).to.not.have.property('user_data');
    const addr = active.addresses['demo-net'][0];
    expect(addr['OS-EXT-IPS-MAC:mac_addr']).to.match(/^fa:16:3e(:[0-9a-f]{2}){3}$/);
    expect(addr['OS-EXT-IPS:type']).to.equal('fixed');
    const launched = active['OS-SRV-USG:launched_at'];
    expect(launched).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    await http.post(`${hs.nova}/servers/${id}/action`, { 'os-stop': null }, { headers: await hs.h('demo') });
    hs.advance(300);
    const stopped = (await getServer(hs, 'demo', id)).data.server;
    expect(stopped.status).to.equal('SHUTOFF');
    expect(stopped['OS-SRV-USG:launched_at']).to.equal(launched);
  });

  it('echoes the compute microversion in both headers, refuses one above 2.96 with 406, and renders per version', async () => {
    const id = await bootServer(hs, 'demo', 'mv');
    const legacy = await http.get(`${hs.nova}/servers/${id}`, { headers: { ...(await hs.h('demo')), 'X-OpenStack-Nova-API-Version': '2.46' } });
    expect(legacy.headers['x-openstack-nova-api-version']).to.equal('2.46');
    expect(legacy.headers['openstack-api-version']).to.equal('compute 2.46');
    expect(legacy.data.server.flavor).to.have.keys('id', 'links');
    const modern = await getServer(hs, 'demo', id, 'compute 2.96');
    expect(modern.data.server.flavor).to.include({ original_name: 'm1.tiny', vcpus: 1, ram: 512 });
    expect(modern.data.server).to.have.property('pinned_availability_zone');
    const dflt = await http.get(`${hs.nova}/servers/${id}`, { headers: await hs.h('demo') });
    expect(dflt.headers['x-openstack-nova-api-version']).to.equal('2.1');
    expect(dflt.data.server).to.not.have.property('locked');
    const latest = await getServer(hs, 'demo', id, 'compute latest');
    expect(latest.headers['openstack-api-version']).to.equal('compute 2.96');
    const tooNew = await getServer(hs, 'demo', id, 'compute 2.97');
    expect(tooNew.status).to.equal(406);
    expect(tooNew.data.computeFault.code).to.equal(406);
  });

  it('validates creates the way Nova does (400 badRequest, 403 quota, networks required from 2.37)', async () => {
    const h = await hs.h('demo', 'compute 2.96');
    const post = (server: Record<string, unknown>) => http.post(`${hs.nova}/servers`, { server }, { headers: h });
    const base = { name: 'x', imageRef: SEED.images.cirros, flavorRef: '1', networks: 'auto' };
    expect((await post({ ...base, flavorRef: 'nope' })).data.badRequest.message).to.equal('Invalid flavorRef provided.');
    expect((await post({ ...base, imageRef: 'nope' })).status).to.equal(400);
    expect((await post({ ...base, key_name: 'nope' })).data.badRequest.message).to.equal('Invalid key_name provided.');
    const { networks: _n, ...noNetworks } = base;
    expect((await post(noNetworks)).status).to.equal(400);
    const pre237 = await http.post(`${hs.nova}/servers`, { server: noNetworks }, { headers: await hs.h('demo') });
    expect(pre237.status).to.equal(202);
    const admin = await hs.h('admin');
    await http.put(`${hs.nova}/os-quota-sets/${hs.sim.credentials.demo.projectId}`, { quota_set: { instances: 1 } }, { headers: admin });
    const over = await post(base);
    expect(over.status).to.equal(403);
    expect(over.data.forbidden.message).to.equal('Quota exceeded for instances: Requested 1, but already used 1 of 1 instances');
  });

  it('filters name as an unanchored, case-insensitive regex (web finds web-2, web.1 finds webx1), like Nova on MySQL', async () => {
    hs.sim.control.createServers({ project: 'demo', name: 'web-2' });
    hs.sim.control.createServers({ project: 'demo', name: 'webx1' });
    hs.sim.control.createServers({ project: 'demo', name: 'xWEB' });
    hs.sim.control.createServers({ project: 'demo', name: 'db' });
    const names = async (q: string) => ((await http.get(`${hs.nova}/servers?${q}`, { headers: await hs.h('demo') })).data.servers as Array<{ name: string }>).map((s) => s.name).sort();
    expect(await names('name=web')).to.deep.equal(['web-2', 'webx1', 'xWEB']);
    expect(await names('name=web.1')).to.deep.equal(['webx1']);
    expect(await names(`name=${encodeURIComponent('^web-2$')}`)).to.deep.equal(['web-2']);
  });

  it('filters by status, image, flavor and changes-since', async () => {
    const [a] = hs.sim.control.createServers({ project: 'demo', name: 'a' });
    const [b] = hs.sim.control.createServers({ project: 'demo', name: 'b', flavor: '2', image: SEED.images.ubuntu });
    hs.sim.control.forceServer(b as string, { status: 'ERROR' });
    const ids = async (q: string) => ((await http.get(`${hs.nova}/servers/detail?${q}`, { headers: await hs.h('demo') })).data.servers as Array<{ id: string }>).map((s) => s.id);
    expect(await ids('status=ERROR')).to.deep.equal([b]);
    expect(await ids('status=ACTIVE')).to.deep.equal([a]);
    expect(await ids(`image=${SEED.images.ubuntu}`)).to.deep.equal([b]);
    expect(await ids('flavor=2')).to.deep.equal([b]);
    const later = new Date(hs.sim.clock.now() + 1000).toISOString();
    hs.advance(2000);
    await http.post(`${hs.nova}/servers/${a}/metadata`, { metadata: { touched: 'yes' } }, { headers: await hs.h('demo') });
    expect(await ids(`changes-since=${encodeURIComponent(later)}`)).to.deep.equal([a]);
    expect((await http.get(`${hs.nova}/servers?changes-since=yesterday`, { headers: await hs.h('demo') })).status).to.equal(400);
  });

  it('pages /servers/detail with limit and marker, newest first, with a servers_links next link', async () => {
    hs.sim.control.createServers({ project: 'demo', count: 5, namePrefix: 'p-' });
    const h = await hs.h('demo');
    const first = await http.get(`${hs.nova}/servers/detail?limit=2`, { headers: h });
    expect(first.data.servers.map((s: { name: string }) => s.name)).to.deep.equal(['p-5', 'p-4']);
    const next = first.data.servers_links[0];
    expect(next.rel).to.equal('next');
    const nextUrl = new URL(next.href);
    expect(nextUrl.pathname).to.equal('/compute/v2.1/servers/detail');
    expect(nextUrl.searchParams.get('marker')).to.equal(first.data.servers[1].id);
    const all: string[] = [];
    let url: string | undefined = `${hs.nova}/servers/detail?limit=2`;
    while (url) {
      const r: AxiosResponse = await http.get(url, { headers: h });
      all.push(...r.data.servers.map((s: { name: string }) => s.name));
      url = r.data.servers_links?.[0]?.href;
    }
    expect(all).to.deep.equal(['p-5', 'p-4', 'p-3', 'p-2', 'p-1']);
    const bad = await http.get(`${hs.nova}/servers/detail?marker=nope`, { headers: h });
    expect(bad.status).to.equal(400);
    expect(bad.data.badRequest.message).to.equal('marker [nope] not found');
  });

  it('scopes by project: another project gets 404 and an absent list entry; admin sees it by id and with all_tenants', async () => {
    const id = await bootServer(hs, 'demo', 'mine');
    const other = await getServer(hs, 'other', id);
    expect(other.status).to.equal(404);
    expect(other.data.itemNotFound.message).to.equal(`Instance ${id} could not be found.`);
    expect((await http.get(`${hs.nova}/servers`, { headers: await hs.h('other') })).data.servers).to.deep.equal([]);
    expect((await http.delete(`${hs.nova}/servers/${id}`, { headers: await hs.h('other') })).status).to.equal(404);
    expect((await http.post(`${hs.nova}/servers/${id}/action`, { 'os-stop': null }, { headers: await hs.h('other') })).status).to.equal(404);
    expect((await getServer(hs, 'admin', id)).status).to.equal(200);
    expect((await http.get(`${hs.nova}/servers`, { headers: await hs.h('admin') })).data.servers).to.deep.equal([]);
    const all = await http.get(`${hs.nova}/servers?all_tenants=1`, { headers: await hs.h('admin') });
    expect(all.data.servers.map((s: { id: string }) => s.id)).to.deep.equal([id]);
    expect((await http.get(`${hs.nova}/servers?all_tenants=1`, { headers: await hs.h('demo') })).status).to.equal(403);
  });

  it('deletes: task_state deleting, then 404; Nova-created ports go with it', async () => {
    const id = await bootServer(hs, 'demo', 'gone');
    hs.advance(300);
    const h = await hs.h('demo');
    const ports = async () => (await http.get(`${hs.sim.url}/network/v2.0/ports?device_id=${id}`, { headers: h })).data.ports;
    expect(await ports()).to.have.length(1);
    expect((await http.delete(`${hs.nova}/servers/${id}`, { headers: h })).status).to.equal(204);
    expect((await getServer(hs, 'demo', id)).data.server['OS-EXT-STS:task_state']).to.equal('deleting');
    hs.advance(300);
    expect((await getServer(hs, 'demo', id)).status).to.equal(404);
    expect(await ports()).to.have.length(0);
  });

  it('boots from volume: image is "" and the root volume is in-use, attached as the root device', async () => {
    const r = await http.post(`${hs.nova}/servers`, { server: {
      name: 'bfv', flavorRef: '2', networks: 'auto',
      block_device_mapping_v2: [{ boot_index: 0, uuid: SEED.images.cirros, source_type: 'image', destination_type: 'volume', volume_size: 10, delete_on_termination: true }],
    } }, { headers: await hs.h('demo', 'compute 2.96') });
    expect(r.status).to.equal(202);
    hs.advance(300);
    const s = (await getServer(hs, 'demo', r.data.server.id)).data.server;
    expect(s.status).to.equal('ACTIVE');
    expect(s.image).to.equal('');
    const volId = s['os-extended-volumes:volumes_attached'][0].id;
    const v = await http.get(`${hs.volume('demo')}/volumes/${volId}`, { headers: await hs.h('demo') });
    expect(v.data.volume.status).to.equal('in-use');
    expect(v.data.volume.bootable).to.equal('true');
    expect(v.data.volume.attachments[0]).to.include({ server_id: s.id, device: '/dev/sda' });
  });

  it('a flavor no host can hold ends in ERROR with "No valid host was found." and no launched_at', async () => {
    const r = await http.post(`${hs.nova}/servers`, { server: { name: 'big', imageRef: SEED.images.cirros, flavorRef: 'huge', networks: 'auto' } }, { headers: await hs.h('demo', 'compute 2.96') });
    hs.advance(300);
    const s = (await getServer(hs, 'demo', r.data.server.id)).data.server;
    expect(s.status).to.equal('ERROR');
    expect(s.fault).to.include({ code: 500, message: 'No valid host was found. ' });
    expect(s['OS-SRV-USG:launched_at']).to.equal(null);
  });

  it('schedules a baremetal flavor by custom resource class and traits onto the matching Ironic node', async () => {
    const r = await http.post(`${hs.nova}/servers`, { server: { name: 'metal', imageRef: SEED.images.cirros, flavorRef: SEED.baremetalFlavor, networks: 'auto' } }, { headers: await hs.h('demo', 'compute 2.96') });
    const id = r.data.server.id as string;
    const admin = await hs.h('admin');
    const node = async () => (await http.get(`${hs.sim.url}/baremetal/v1/nodes?instance_uuid=${id}&detail=true`, { headers: admin })).data.nodes;
    expect(await node()).to.deep.equal([]);
    hs.advance(75);
    const queued = await node();
    expect(queued).to.have.length(1);
    expect(queued[0]).to.include({ uuid: SEED.ironicNodes.gold, provision_state: 'available', instance_uuid: id });
    hs.advance(150);
    expect((await node())[0].provision_state).to.equal('deploying');
    hs.advance(40);
    expect((await node())[0]).to.include({ provision_state: 'wait call-back', target_provision_state: 'active' });
    expect((await getServer(hs, 'admin', id)).data.server.status).to.equal('BUILD');
    hs.advance(60);
    expect((await node())[0]).to.include({ provision_state: 'active', power_state: 'power on' });
    expect((await getServer(hs, 'admin', id)).data.server['OS-EXT-SRV-ATTR:hypervisor_hostname']).to.equal(SEED.ironicNodes.gold);
    const del = await http.delete(`${hs.nova}/servers/${id}`, { headers: admin });
    expect(del.status).to.equal(204);
    hs.advance(300);
    expect(await node()).to.deep.equal([]);
    const n = (await http.get(`${hs.sim.url}/baremetal/v1/nodes/${SEED.ironicNodes.gold}`, { headers: admin })).data;
    expect(n).to.include({ instance_uuid: null });
  });

  it('honours an admin\'s requested destination (2.74 host / hypervisor_hostname) and refuses it to members', async () => {
    const body = { name: 'pinned', imageRef: SEED.images.cirros, flavorRef: SEED.baremetalFlavor, networks: 'auto', hypervisor_hostname: SEED.ironicNodes.sgx };
    const denied = await http.post(`${hs.nova}/servers`, { server: body }, { headers: await hs.h('demo', 'compute 2.74') });
    expect(denied.status).to.equal(403);
    const unknown = await http.post(`${hs.nova}/servers`, { server: { ...body, hypervisor_hostname: 'nope' } }, { headers: await hs.h('admin', 'compute 2.74') });
    expect(unknown.status).to.equal(400);
    // bm-1 carries the forbidden SGX trait: pinned there, the flavor cannot be placed.
    const pinned = await http.post(`${hs.nova}/servers`, { server: body }, { headers: await hs.h('admin', 'compute 2.74') });
    expect(pinned.status).to.equal(202);
    hs.advance(300);
    expect((await getServer(hs, 'admin', pinned.data.server.id)).data.server.fault.message).to.equal('No valid host was found. ');
    const ok = await http.post(`${hs.nova}/servers`, { server: { ...body, name: 'pinned-ok', hypervisor_hostname: SEED.ironicNodes.gold } }, { headers: await hs.h('admin', 'compute 2.74') });
    hs.advance(300);
    const s = (await getServer(hs, 'admin', ok.data.server.id)).data.server;
    expect(s).to.include({ status: 'ACTIVE', 'OS-EXT-SRV-ATTR:hypervisor_hostname': SEED.ironicNodes.gold });
  });
});
