import { expect } from 'chai';
import { SEED } from '../../src/simulator/index.js';
import { bootServer, getServer, harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Nova server actions', () => {
  let hs: Harness;
  let id: string;
  beforeEach(async () => {
    hs = await harness();
    id = await bootServer(hs, 'demo', 'box');
    hs.advance(300);
  });
  afterEach(async () => { await hs.sim.close(); });

  const act = async (body: unknown, user: 'demo' | 'admin' | 'other' = 'demo', mv = 'compute 2.96') =>
    http.post(`${hs.nova}/servers/${id}/action`, body, { headers: await hs.h(user, mv) });
  const server = async () => (await getServer(hs, 'demo', id)).data.server;

  it('os-stop powers off (status stays ACTIVE while powering-off) and os-start brings it back', async () => {
    expect((await act({ 'os-stop': null })).status).to.equal(202);
    expect(await server()).to.deep.include({ status: 'ACTIVE', 'OS-EXT-STS:task_state': 'powering-off' });
    hs.advance(300);
    expect(await server()).to.deep.include({ status: 'SHUTOFF', 'OS-EXT-STS:power_state': 4, 'OS-EXT-STS:vm_state': 'stopped' });
    const again = await act({ 'os-stop': null });
    expect(again.status).to.equal(409);
    expect(again.data.conflictingRequest.message).to.equal(`Cannot 'stop' instance ${id} while it is in vm_state stopped`);
    expect((await act({ 'os-start': null })).status).to.equal(202);
    expect((await server())['OS-EXT-STS:task_state']).to.equal('powering-on');
    hs.advance(300);
    expect((await server()).status).to.equal('ACTIVE');
  });

  it('reboot SOFT shows REBOOT and HARD shows HARD_REBOOT; a bad type is a 400', async () => {
    await act({ reboot: { type: 'SOFT' } });
    expect((await server()).status).to.equal('REBOOT');
    hs.advance(300);
    await act({ reboot: { type: 'HARD' } });
    expect((await server()).status).to.equal('HARD_REBOOT');
    hs.advance(300);
    expect((await server()).status).to.equal('ACTIVE');
    expect((await act({ reboot: { type: 'GENTLE' } })).status).to.equal(400);
  });

  it('createImage returns image_id (2.45+) and the snapshot image becomes active in Glance', async () => {
    const r = await act({ createImage: { name: 'snap-1', metadata: { purpose: 'test' } } });
    expect(r.status).to.equal(202);
    const imageId = r.data.image_id as string;
    expect((await server())['OS-EXT-STS:task_state']).to.equal('image_snapshot');
    const img = async () => (await http.get(`${hs.sim.url}/image/v2/images/${imageId}`, { headers: await hs.h('demo') })).data;
    expect((await img()).status).to.equal('queued');
    hs.advance(300);
    expect(await img()).to.include({ status: 'active', image_type: 'snapshot', instance_uuid: id, purpose: 'test', visibility: 'private' });
    expect((await server())['OS-EXT-STS:task_state']).to.equal(null);
    const legacy = await act({ createImage: { name: 'snap-2' } }, 'demo', 'compute 2.44');
    expect(legacy.status).to.equal(202);
    expect(legacy.headers.location).to.match(/\/images\/[0-9a-f-]{36}$/);
  });

  it('returns console output and remote console URLs (2.6+; older microversions 404)', async () => {
    const out = await act({ 'os-getConsoleOutput': { length: 2 } });
    expect(out.status).to.equal(200);
    expect(out.data.output.split('\n')).to.have.length(2);
    const rc = await http.post(`${hs.nova}/servers/${id}/remote-consoles`, { remote_console: { protocol: 'vnc', type: 'novnc' } }, { headers: await hs.h('demo', 'compute 2.8') });
    expect(rc.status).to.equal(200);
    expect(rc.data.remote_console).to.include({ protocol: 'vnc', type: 'novnc' });
    expect(rc.data.remote_console.url).to.match(/^http:\/\/127\.0\.0\.1:\d+\/vnc\/vnc_auto\.html\?path=/);
    expect((await http.post(`${hs.nova}/servers/${id}/remote-consoles`, { remote_console: { protocol: 'vnc', type: 'novnc' } }, { headers: await hs.h('demo', 'compute 2.5') })).status).to.equal(404);
    expect((await http.post(`${hs.nova}/servers/${id}/remote-consoles`, { remote_console: { protocol: 'vnc', type: 'bogus' } }, { headers: await hs.h('demo', 'compute 2.8') })).status).to.equal(400);
  });

  it('os-resetState is admin-only and clears task_state, cancelling the transition in flight', async () => {
    await act({ rebuild: { imageRef: SEED.images.ubuntu } });
    const denied = await act({ 'os-resetState': { state: 'error' } });
    expect(denied.status).to.equal(403);
    expect(denied.data.forbidden.code).to.equal(403);
    expect((await act({ 'os-resetState': { state: 'error' } }, 'admin')).status).to.equal(202);
    expect(await server()).to.deep.include({ status: 'ERROR', 'OS-EXT-STS:task_state': null });
    hs.advance(5000);
    expect((await server()).status).to.equal('ERROR');
    await act({ 'os-resetState': { state: 'active' } }, 'admin');
    expect((await server()).status).to.equal('ACTIVE');
  });

  it('a lock makes the server refuse changes from its owner with 409', async () => {
    await act({ lock: { locked_reason: 'maintenance' } });
    const r = await act({ 'os-stop': null });
    expect(r.status).to.equal(409);
    expect(r.data.conflictingRequest.message).to.equal(`Instance ${id} is locked`);
    expect((await server()).locked_reason).to.equal('maintenance');
    await act({ unlock: null });
    expect((await act({ 'os-stop': null })).status).to.equal(202);
  });

  it('an unknown action is a 400', async () => {
    const r = await act({ levitate: {} });
    expect(r.status).to.equal(400);
    expect(r.data.badRequest.message).to.equal('There is no such action: levitate');
  });

  it('metadata and tags (2.26) round-trip; metadata cannot change while the server builds', async () => {
    const h = await hs.h('demo', 'compute 2.96');
    expect((await http.put(`${hs.nova}/servers/${id}/metadata/role`, { meta: { role: 'web' } }, { headers: h })).data).to.deep.equal({ meta: { role: 'web' } });
    expect((await http.get(`${hs.nova}/servers/${id}/metadata`, { headers: h })).data.metadata).to.deep.equal({ role: 'web' });
    expect((await http.put(`${hs.nova}/servers/${id}/tags/blue`, undefined, { headers: h })).status).to.equal(201);
    expect((await http.get(`${hs.nova}/servers?tags=blue`, { headers: h })).data.servers).to.have.length(1);
    const building = await bootServer(hs, 'demo', 'new');
    const r = await http.post(`${hs.nova}/servers/${building}/metadata`, { metadata: { a: 'b' } }, { headers: h });
    expect(r.status).to.equal(409);
    expect(r.data.conflictingRequest.message).to.contain('vm_state building');
  });

  const actions = async (mv = 'compute 2.96', query = '') =>
    http.get(`${hs.nova}/servers/${id}/os-instance-actions${query}`, { headers: await hs.h('demo', mv) });

  it('os-instance-actions: every accepted rebuild is recorded under its 202\'s request id; a refused one (409 task in progress, 400 bad image) records nothing, as Nova checks before _record_action_start', async () => {
    const create = (await actions()).data.instanceActions as Array<Record<string, unknown>>;
    expect(create.map((a) => a.action)).to.deep.equal(['create']);
    const first = await act({ rebuild: { imageRef: SEED.images.debian } });
    expect(first.status).to.equal(202);
    const refused = await act({ rebuild: { imageRef: SEED.images.debian } });
    expect(refused.status).to.equal(409);
    const badImage = await act({ rebuild: { imageRef: '00000000-0000-0000-0000-000000000000' } });
    expect(badImage.status).to.equal(409); // the task-state check comes first on Nova too
    hs.advance(1_000);
    expect((await act({ rebuild: { imageRef: '00000000-0000-0000-0000-000000000000' } })).status).to.equal(400);
    const second = await act({ rebuild: { imageRef: SEED.images.cirros } });
    expect(second.status).to.equal(202);
    const listed = (await actions()).data.instanceActions as Array<Record<string, unknown>>;
    expect(listed.map((a) => [a.action, a.request_id])).to.deep.equal([
      ['rebuild', second.headers['x-openstack-request-id']], ['rebuild', first.headers['x-openstack-request-id']], ['create', create[0]?.request_id],
    ]);
    expect(listed[0]).to.include({ instance_uuid: id, message: null });
    expect(listed[0]?.start_time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
    expect(listed[0]?.updated_at, '2.58+').to.be.a('string');
    expect((await actions('compute 2.57')).data.instanceActions[0]).to.not.have.property('updated_at');
  });

  it('os-instance-actions pages from 2.58: limit and marker (a request id), a top-level `links` next on a full page; an unknown marker is a 400', async () => {
    await act({ 'os-stop': null });
    hs.advance(300);
    await act({ 'os-start': null });
    hs.advance(300);
    const all = ((await actions()).data.instanceActions as Array<{ action: string; request_id: string }>);
    expect(all.map((a) => a.action)).to.deep.equal(['start', 'stop', 'create']);
    const p1 = await actions('compute 2.96', '?limit=2');
    expect(p1.data.instanceActions.map((a: { action: string }) => a.action)).to.deep.equal(['start', 'stop']);
    expect(p1.data).to.not.have.property('instanceActions_links');
    const next = new URL(p1.data.links[0].href as string);
    expect(p1.data.links[0].rel).to.equal('next');
    expect(next.pathname).to.equal(`/compute/v2.1/servers/${id}/os-instance-actions`);
    expect(next.searchParams.get('marker')).to.equal(all[1]?.request_id);
    const p2 = await actions('compute 2.96', `?limit=2&marker=${all[1]?.request_id}`);
    expect(p2.data.instanceActions.map((a: { action: string }) => a.action)).to.deep.equal(['create']);
    expect(p2.data).to.not.have.property('links');
    expect((await actions('compute 2.57', '?limit=1')).data.instanceActions, 'no paging below 2.58').to.have.length(3);
    const unknown = await actions('compute 2.96', '?marker=req-nope');
    expect(unknown.status).to.equal(400);
    expect(unknown.data.badRequest.message, 'worded as Zed words it').to.equal('Marker None could not be found.');
  });

  it('boot rules: a server can stay BUILD forever (never launched) or fail into ERROR without ever launching', async () => {
    hs.sim.control.configure({ nova: { bootRules: [{ match: '-stuck$', outcome: 'never' }, { match: '-fail$', outcome: 'error' }] } });
    const stuck = await bootServer(hs, 'demo', 'a-stuck');
    const failed = await bootServer(hs, 'demo', 'a-fail');
    hs.advance(60_000);
    const s = (await getServer(hs, 'demo', stuck)).data.server;
    expect(s).to.deep.include({ status: 'BUILD', 'OS-SRV-USG:launched_at': null, 'OS-EXT-STS:task_state': 'spawning' });
    const f = (await getServer(hs, 'demo', failed)).data.server;
    expect(f).to.deep.include({ status: 'ERROR', 'OS-SRV-USG:launched_at': null });
    expect(f.fault.message).to.contain("nova spawn failure requested for 'a-fail'");
  });
});

describe('simulator: Nova flavors, keypairs, server groups and admin APIs', () => {
  let hs: Harness;
  before(async () => { hs = await harness(); });
  after(async () => { await hs.sim.close(); });

  it('lists flavors with extra specs (2.61+), including resources:CUSTOM_* and trait:* specs', async () => {
    const r = await http.get(`${hs.nova}/flavors/detail`, { headers: await hs.h('demo', 'compute 2.75') });
    const names = r.data.flavors.map((f: { name: string }) => f.name);
    expect(names).to.include.members(['m1.tiny', 'm1.small', 'bm.gold']);
    expect(names).to.not.include('m1.private');
    const bm = r.data.flavors.find((f: { name: string }) => f.name === 'bm.gold');
    expect(bm.extra_specs).to.include({ 'resources:CUSTOM_BAREMETAL_GOLD': '1', 'trait:CUSTOM_RAID1': 'required' });
    expect(bm.swap).to.equal(0);
    const specs = await http.get(`${hs.nova}/flavors/${SEED.baremetalFlavor}/os-extra_specs`, { headers: await hs.h('demo') });
    expect(specs.data.extra_specs['trait:HW_CPU_X86_SGX']).to.equal('forbidden');
    const old = await http.get(`${hs.nova}/flavors/1`, { headers: await hs.h('demo') });
    expect(old.data.flavor.swap).to.equal('');
    expect((await http.post(`${hs.nova}/flavors/1/os-extra_specs`, { extra_specs: { a: 'b' } }, { headers: await hs.h('demo') })).status).to.equal(403);
    const created = await http.post(`${hs.nova}/flavors`, { flavor: { name: 'gpu.small', ram: 1024, vcpus: 2, disk: 10 } }, { headers: await hs.h('admin') });
    expect(created.status).to.equal(200);
    expect((await http.post(`${hs.nova}/flavors`, { flavor: { name: 'gpu.small', ram: 1024, vcpus: 2, disk: 10 } }, { headers: await hs.h('admin') })).status).to.equal(409);
  });

  it('creates, shows and deletes keypairs per user; a duplicate name is a 409', async () => {
    const h = await hs.h('demo', 'compute 2.10');
    const pk = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test';
    const c = await http.post(`${hs.nova}/os-keypairs`, { keypair: { name: 'k1', public_key: pk } }, { headers: h });
    expect(c.status).to.equal(201);
    expect(c.data.keypair.fingerprint).to.match(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    expect((await http.post(`${hs.nova}/os-keypairs`, { keypair: { name: 'k1', public_key: pk } }, { headers: h })).status).to.equal(409);
    const gen = await http.post(`${hs.nova}/os-keypairs`, { keypair: { name: 'k2' } }, { headers: h });
    expect(gen.data.keypair.private_key).to.contain('PRIVATE KEY');
    const names = (await http.get(`${hs.nova}/os-keypairs`, { headers: h })).data.keypairs.map((k: { keypair: { name: string } }) => k.keypair.name);
    expect(names).to.include.members(['demo-key', 'k1', 'k2']);
    expect((await http.get(`${hs.nova}/os-keypairs/k1`, { headers: await hs.h('other') })).status).to.equal(404);
    expect((await http.delete(`${hs.nova}/os-keypairs/k1`, { headers: h })).status).to.equal(204);
  });

  it('server groups use policies before 2.64 and policy + rules from 2.64; create honours the group hint', async () => {
    const g = await http.post(`${hs.nova}/os-server-groups`, { server_group: { name: 'spread', policy: 'anti-affinity', rules: { max_server_per_host: 1 } } }, { headers: await hs.h('demo', 'compute 2.64') });
    expect(g.data.server_group).to.include({ policy: 'anti-affinity' });
    const old = await http.get(`${hs.nova}/os-server-groups/${g.data.server_group.id}`, { headers: await hs.h('demo') });
    expect(old.data.server_group.policies).to.deep.equal(['anti-affinity']);
    const r = await http.post(`${hs.nova}/servers`, { server: { name: 'member', imageRef: SEED.images.cirros, flavorRef: '1', networks: 'auto' }, 'os:scheduler_hints': { group: g.data.server_group.id } }, { headers: await hs.h('demo', 'compute 2.96') });
    const shown = await http.get(`${hs.nova}/os-server-groups/${g.data.server_group.id}`, { headers: await hs.h('demo') });
    expect(shown.data.server_group.members).to.deep.equal([r.data.server.id]);
  });

  it('os-services, os-hypervisors and os-aggregates answer admins and refuse members with 403', async () => {
    const admin = await hs.h('admin', 'compute 2.96');
    const svcs = (await http.get(`${hs.nova}/os-services?binary=nova-compute`, { headers: admin })).data.services;
    expect(svcs.map((s: { host: string }) => s.host)).to.include('sandbox');
    expect(svcs[0].id).to.match(/^[0-9a-f-]{36}$/);
    const hyp = await http.get(`${hs.nova}/os-hypervisors/detail`, { headers: admin });
    expect(hyp.data.hypervisors.map((h: { hypervisor_hostname: string }) => h.hypervisor_hostname)).to.include('sandbox');
    expect(hyp.data.hypervisors[0]).to.not.have.property('vcpus');
    const old = await http.get(`${hs.nova}/os-hypervisors/detail`, { headers: await hs.h('admin', 'compute 2.87') });
    expect(old.data.hypervisors[0]).to.have.property('vcpus');
    const agg = await http.post(`${hs.nova}/os-aggregates`, { aggregate: { name: 'fast', availability_zone: 'nova' } }, { headers: admin });
    const add = await http.post(`${hs.nova}/os-aggregates/${agg.data.aggregate.id}/action`, { add_host: { host: 'sandbox' } }, { headers: admin });
    expect(add.data.aggregate.hosts).to.deep.equal(['sandbox']);
    expect((await http.post(`${hs.nova}/os-aggregates/${agg.data.aggregate.id}/action`, { add_host: { host: 'sandbox' } }, { headers: admin })).status).to.equal(409);
    expect((await http.get(`${hs.nova}/os-services`, { headers: await hs.h('demo') })).status).to.equal(403);
    expect((await http.get(`${hs.nova}/os-hypervisors`, { headers: await hs.h('demo') })).status).to.equal(403);
  });
});
