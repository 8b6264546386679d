import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import util from 'node:util';
import { BadRequest, ConsistencyError, Conflict, Forbidden, NotFound, UnreadableResponse } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { Fixtures } from './support/fixtures.js';
import { createFixtures, settle, uniqueName } from './support/fixtures.js';
import { captureLogs, connectAs, fault, rejectionOf, simApi, start } from './support/sim.js';

describe('nova over HTTP (simulator)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let admin: OpenStackSession;
  let demo: OpenStackSession;
  let other: OpenStackSession;
  let fx: Fixtures;

  before(async () => {
    sim = await start();
    admin = await connectAs(sim, 'admin');
    demo = await connectAs(sim, 'demo');
    other = await connectAs(sim, 'other');
    fx = await createFixtures(admin, demo);
  });
  after(async () => {
    await sim.close();
  });
  afterEach(async () => {
    await simApi(sim, 'DELETE', '/faults');
    await simApi(sim, 'POST', '/config', { nova: { hideTaskState: false } });
  });

  const boot = async (os: OpenStackSession, name: string, networkId = fx.networkId): Promise<string> => {
    const { id } = await os.nova.createServer({ name, flavorRef: fx.flavorId, imageRef: fx.imageId, networks: [{ uuid: networkId }] });
    return id;
  };

  it('creates a server that goes BUILD → ACTIVE and reads back its decision fields', async () => {
    const name = uniqueName('web');
    const id = await boot(demo, name);
    const building = await demo.nova.getServer(id);
    expect(building.status).to.deep.equal({ kind: 'value', value: 'BUILD' });
    await settle(sim);
    const s = await demo.nova.getServer(id);
    expect(s.name).to.equal(name);
    expect(s.status).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    expect(s.taskState).to.deep.equal({ kind: 'value', value: null });
    expect(s.launchedAt.kind).to.equal('value');
    expect(s.imageRef).to.deep.equal({ kind: 'value', value: { source: 'image', id: fx.imageId } });
    expect(s.macAddresses.kind).to.equal('value');
    expect(s.observedAt).to.be.a('string');
  });

  it('sends the pinned compute microversion on every call', async () => {
    const compute = demo.http('compute');
    const response = await compute.get('/servers/detail', { limit: 1 });
    expect(response.headers['openstack-api-version']).to.equal('compute 2.90');
  });

  it('project scoping: a demo token cannot see a server of project other', async () => {
    const id = await boot(other, uniqueName('secret'), (await other.neutron.createNetwork({ name: uniqueName('other-net') })).id);
    expect(await rejectionOf(demo.nova.getServer(id))).to.be.instanceOf(NotFound);
    expect((await demo.nova.listServers()).map((s) => s.id)).to.not.include(id);
    expect((await other.nova.getServer(id)).id).to.equal(id);
  });

  it('pages through a multi-page server list following servers_links', async () => {
    const prefix = uniqueName('page');
    for (let i = 0; i < 5; i++) await boot(demo, `${prefix}-${i}`);
    const before = sim.calls({ method: 'GET', pathIncludes: '/servers/detail' }).length;
    const servers = await demo.nova.listServers({ name: `^${prefix}-` }, { pageSize: 2 });
    expect(servers.map((s) => s.name).sort()).to.deep.equal([0, 1, 2, 3, 4].map((i) => `${prefix}-${i}`));
    const pages = sim.calls({ method: 'GET', pathIncludes: '/servers/detail' }).slice(before);
    expect(pages.length).to.be.within(3, 4);
    expect(pages[1]?.query).to.contain('marker=');
  });

  it('find by name is exact although Nova\'s filter is a regex: web.1 does not find webx1 or web.10', async () => {
    const base = uniqueName('exact');
    const target = await boot(demo, `${base}.1`);
    await boot(demo, `${base}x1`);
    await boot(demo, `${base}.10`);
    const fuzzy = await demo.nova.listServers({ name: `${base}.1` });
    expect(fuzzy.length).to.equal(3);
    const found = await demo.nova.findServerByName(`${base}.1`);
    expect(found.id).to.equal(target);
    const sent = sim.calls({ method: 'GET', pathIncludes: '/servers/detail' }).at(-1);
    expect(decodeURIComponent(sent?.query ?? '')).to.contain(`name=^${base}\\.1$`);
  });

  it('duplicate exact names are a ConsistencyError; none is NotFound', async () => {
    const name = uniqueName('dup');
    const a = await boot(demo, name);
    const b = await boot(demo, name);
    const error = await rejectionOf(demo.nova.findServerByName(name));
    expect(error).to.be.instanceOf(ConsistencyError);
    expect([...(error as ConsistencyError).ids].sort()).to.deep.equal([a, b].sort());
    expect(await rejectionOf(demo.nova.findServerByName(uniqueName('nobody')))).to.be.instanceOf(NotFound);
    expect(await demo.nova.lookupServerByName(uniqueName('nobody'))).to.equal(undefined);
  });

  it('rebuild sends only imageRef, flips the image with task_state, and a second rebuild is a Conflict', async () => {
    const id = await boot(demo, uniqueName('rebuild'));
    await settle(sim);
    await demo.nova.rebuildServer(id, fx.image2Id);
    const calls = sim.calls({ method: 'POST', action: 'rebuild' }).filter((c) => c.path.includes(id));
    expect(calls).to.have.length(1);
    expect(calls[0]?.body).to.deep.equal({ rebuild: { imageRef: fx.image2Id } });
    const s = await demo.nova.getServer(id);
    expect(s.imageRef).to.deep.equal({ kind: 'value', value: { source: 'image', id: fx.image2Id } });
    expect(s.taskState.kind === 'value' && s.taskState.value !== null).to.equal(true);
    expect(s.status).to.deep.equal({ kind: 'value', value: 'REBUILD' });
    const error = await rejectionOf(demo.nova.rebuildServer(id, fx.image2Id));
    expect(error).to.be.instanceOf(Conflict);
    expect((error as Conflict).fault).to.match(/task_state/);
    await settle(sim);
    const done = await demo.nova.getServer(id);
    expect(done.status).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    expect(done.taskState).to.deep.equal({ kind: 'value', value: null });
  });

  it('listInstanceActions: create, then the rebuild under its 202\'s request id, newest first; a refused (409) rebuild adds none', async () => {
    const id = await boot(demo, uniqueName('actions'));
    await settle(sim);
    const accepted = await demo.nova.rebuildServer(id, fx.image2Id);
    expect(await rejectionOf(demo.nova.rebuildServer(id, fx.imageId))).to.be.instanceOf(Conflict);
    const actions = await demo.nova.listInstanceActions(id);
    expect(actions.map((a) => a.action)).to.deep.equal(['rebuild', 'create']);
    expect(actions[0]?.requestId).to.equal(accepted.requestId);
    expect(actions[1]?.requestId).to.match(/^req-[0-9a-f-]{36}$/);
    for (const a of actions) {
      expect(a.startTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}$/);
      expect(a.message).to.equal(null);
      expect(a.fields).to.deep.equal({ startTime: { kind: 'value', value: a.startTime }, message: { kind: 'value', value: null } });
    }
    const call = sim.calls({ method: 'GET', pathIncludes: `/servers/${id}/os-instance-actions` }).at(-1);
    expect(call?.versions?.['OpenStack-API-Version']).to.equal('compute 2.90');
    expect(await rejectionOf(demo.nova.listInstanceActions('00000000-0000-0000-0000-000000000000'))).to.be.instanceOf(NotFound);
  });

  it('listInstanceActions follows Nova\'s top-level `links` page by page (2.58+) and returns what one page returns', async () => {
    const id = await boot(demo, uniqueName('action-pages'));
    await settle(sim);
    await demo.nova.stopServer(id);
    await settle(sim);
    await demo.nova.startServer(id);
    await settle(sim);
    const whole = await demo.nova.listInstanceActions(id);
    expect(whole.map((a) => a.action)).to.deep.equal(['start', 'stop', 'create']);
    const before = sim.calls({ method: 'GET', pathIncludes: `/servers/${id}/os-instance-actions` }).length;
    expect(await demo.nova.listInstanceActions(id, { pageSize: 1 })).to.deep.equal(whole);
    const pages = sim.calls({ method: 'GET', pathIncludes: `/servers/${id}/os-instance-actions` }).slice(before);
    // three full pages, then the empty page a full last page leads to
    expect(pages.map((c) => new URLSearchParams(c.query).get('marker'))).to.deep.equal([null, whole[0]?.requestId, whole[1]?.requestId, whole[2]?.requestId]);
  });

  it('listInstanceActions: an action without action or request_id makes the answer UnreadableResponse; an odd start_time is unreadable, not guessed; a paging loop is refused', async () => {
    const path = '/servers/s-1/os-instance-actions';
    await fault(sim, { method: 'GET', path, status: 200, body: { instanceActions: [{ action: 'rebuild', request_id: 'req-1' }, { action: 'create' }] } });
    const noId = await rejectionOf(demo.nova.listInstanceActions('s-1'));
    expect(noId).to.be.instanceOf(UnreadableResponse);
    expect((noId as UnreadableResponse).problems).to.deep.equal(['request_id: expected NonEmptyString, got undefined']);
    await fault(sim, { method: 'GET', path, status: 200, body: { instanceActions: [{ request_id: 'req-1', start_time: '2024-05-01T10:00:00.000000' }] } });
    expect(await rejectionOf(demo.nova.listInstanceActions('s-1'))).to.be.instanceOf(UnreadableResponse);
    await fault(sim, { method: 'GET', path, status: 200, body: { actions: [] } });
    expect(await rejectionOf(demo.nova.listInstanceActions('s-1'))).to.be.instanceOf(UnreadableResponse);

    await fault(sim, { method: 'GET', path, status: 200, body: { instanceActions: [{ action: 'rebuild', request_id: 'req-1', start_time: 'soon' }] } });
    const [odd] = await demo.nova.listInstanceActions('s-1');
    expect(odd).to.deep.equal({
      action: 'rebuild', requestId: 'req-1', startTime: null, message: null,
      fields: { startTime: { kind: 'unreadable', raw: 'soon' }, message: { kind: 'absent' } },
    });

    const loop = { instanceActions: [{ action: 'stop', request_id: 'req-a' }], links: [{ rel: 'next', href: `${sim.url}/compute/v2.1${path}?limit=1&marker=req-a` }] };
    await fault(sim, { method: 'GET', path, status: 200, body: loop, count: 3 });
    const looping = await rejectionOf(demo.nova.listInstanceActions('s-1', { pageSize: 1 }));
    expect(looping).to.be.instanceOf(UnreadableResponse);
    expect((looping as UnreadableResponse).problems).to.deep.equal(['next link repeats a marker']);
  });

  it('answers that do not decode: an odd field is unreadable, a body without servers or ids is UnreadableResponse, a paging loop is refused', async () => {
    const odd = { id: 'x', name: 'odd', status: 'HALF_BUILT', image: null, 'OS-SRV-USG:launched_at': 'soon' };
    await fault(sim, { method: 'GET', path: '/servers/x$', status: 200, body: { server: odd } });
    const s = await demo.nova.getServer('x');
    expect(s.status).to.deep.equal({ kind: 'unreadable', raw: 'HALF_BUILT' });
    expect(s.imageRef).to.deep.equal({ kind: 'unreadable', raw: null });
    expect(s.launchedAt).to.deep.equal({ kind: 'unreadable', raw: 'soon' });
    expect(s.taskState).to.deep.equal({ kind: 'absent' });

    await fault(sim, { method: 'GET', path: '/servers/detail', status: 200, body: { server: [] } });
    expect(await rejectionOf(demo.nova.listServers())).to.be.instanceOf(UnreadableResponse);
    await fault(sim, { method: 'GET', path: '/servers/detail', status: 200, body: { servers: [{ name: 'no-id' }] } });
    const noId = await rejectionOf(demo.nova.listServers());
    expect(noId).to.be.instanceOf(UnreadableResponse);
    expect((noId as UnreadableResponse).problems).to.deep.equal(['id: expected string, got undefined']);

    const loop = { servers: [{ id: 'a', name: 'a' }], servers_links: [{ rel: 'next', href: `${sim.url}/compute/v2.1/servers/detail?limit=1&marker=a` }] };
    await fault(sim, { method: 'GET', path: '/servers/detail', status: 200, body: loop, count: 3 });
    const looping = await rejectionOf(demo.nova.listServers({}, { pageSize: 1 }));
    expect(looping).to.be.instanceOf(UnreadableResponse);
    expect((looping as UnreadableResponse).problems).to.deep.equal(['next link repeats a marker']);
  });

  it('a task_state hidden by policy decodes as absent', async () => {
    const id = await boot(demo, uniqueName('hidden'));
    await simApi(sim, 'POST', '/config', { nova: { hideTaskState: true } });
    expect((await demo.nova.getServer(id)).taskState).to.deep.equal({ kind: 'absent' });
  });

  it('stop, start, soft and hard reboot, console output and a remote console', async () => {
    const id = await boot(demo, uniqueName('power'));
    await settle(sim);
    await demo.nova.stopServer(id);
    await settle(sim);
    expect((await demo.nova.getServer(id)).status).to.deep.equal({ kind: 'value', value: 'SHUTOFF' });
    await demo.nova.startServer(id);
    await settle(sim);
    await demo.nova.rebootServer(id, 'SOFT');
    expect((await demo.nova.getServer(id)).status).to.deep.equal({ kind: 'value', value: 'REBOOT' });
    await settle(sim);
    await demo.nova.rebootServer(id, 'HARD');
    expect((await demo.nova.getServer(id)).status).to.deep.equal({ kind: 'value', value: 'HARD_REBOOT' });
    await settle(sim);
    expect(await demo.nova.getConsoleOutput(id, 10)).to.be.a('string');
    const console = await demo.nova.createRemoteConsole(id, 'vnc', 'novnc');
    expect(console.url).to.be.a('string');
  });

  it('createImage answers the snapshot image id', async () => {
    const id = await boot(demo, uniqueName('snap'));
    await settle(sim);
    const { imageId } = await demo.nova.createServerImage(id, uniqueName('snapshot'));
    expect(imageId).to.be.a('string');
  });

  it('deletes a server; reading it afterwards is NotFound', async () => {
    const id = await boot(demo, uniqueName('gone'));
    await settle(sim);
    await demo.nova.deleteServer(id);
    await settle(sim);
    expect(await rejectionOf(demo.nova.getServer(id))).to.be.instanceOf(NotFound);
  });

  it('errors Nova itself produces are typed, carry its fault and request id, and leak no secret', async () => {
    const logs = captureLogs();
    const os = await connectAs(sim, 'demo', { logger: logs.logger });
    const token = await os.keystone.token();
    const missing = await rejectionOf(os.nova.getServer('00000000-0000-0000-0000-000000000000'));
    expect(missing).to.be.instanceOf(NotFound);
    expect((missing as NotFound).fault).to.match(/could not be found/);
    expect((missing as NotFound).requestId).to.match(/^req-/);
    const forbidden = await rejectionOf(os.nova.createFlavor({ name: uniqueName('nope'), vcpus: 1, ram: 1, disk: 1 }));
    expect(forbidden).to.be.instanceOf(Forbidden);
    const bad = await rejectionOf(os.nova.createServer({ name: uniqueName('bad'), flavorRef: 'no-such-flavor', imageRef: fx.imageId, networks: [{ uuid: fx.networkId }] }));
    expect(bad).to.be.instanceOf(BadRequest);
    for (const e of [missing, forbidden, bad] as Error[]) {
      for (const text of [e.message, e.stack ?? '', JSON.stringify(e), util.inspect(e, { depth: 10 })]) {
        expect(text).to.not.contain(token);
        expect(text).to.not.contain(sim.credentials.demo.password);
      }
    }
    expect(logs.text()).to.not.contain(token);
    expect(logs.text()).to.not.contain(sim.credentials.demo.password);
  });

  it('flavors with extra specs, keypairs, server groups', async () => {
    const flavor = await admin.nova.getFlavor(fx.flavorId);
    await admin.nova.setFlavorExtraSpecs(flavor.id, { 'resources:CUSTOM_BAREMETAL': '1', 'trait:CUSTOM_GOLD': 'required' });
    expect(await admin.nova.getFlavorExtraSpecs(flavor.id)).to.include({ 'trait:CUSTOM_GOLD': 'required' });
    expect((await demo.nova.findFlavorByName(flavor.name)).id).to.equal(flavor.id);

    const keyName = uniqueName('key');
    const key = await demo.nova.importKeypair(keyName, 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGm0rCMgsCxb2Ea0kS9hVZpt3AGmgNp2J0cKpYpYzjbf regent@test');
    expect(key.name).to.equal(keyName);
    expect((await demo.nova.listKeypairs()).map((k) => k.name)).to.include(keyName);
    await demo.nova.deleteKeypair(keyName);

    const groupName = uniqueName('group');
    const group = await demo.nova.createServerGroup(groupName, 'anti-affinity');
    expect((await demo.nova.findServerGroupByName(groupName)).id).to.equal(group.id);
    await demo.nova.deleteServerGroup(group.id);
  });

  it('admin views: os-services, os-hypervisors, os-aggregates', async () => {
    const services = await admin.nova.listComputeServices({ binary: 'nova-compute' });
    expect(services.length).to.be.greaterThan(0);
    const hypervisors = await admin.nova.listHypervisors();
    expect(hypervisors.length).to.be.greaterThan(0);
    const aggName = uniqueName('agg');
    const agg = await admin.nova.createAggregate(aggName, 'az-test');
    const host = services[0]?.host ?? '';
    await admin.nova.addAggregateHost(agg.id, host);
    expect((await admin.nova.findAggregateByName(aggName)).hosts).to.include(host);
    await admin.nova.removeAggregateHost(agg.id, host);
    await admin.nova.deleteAggregate(agg.id);
  });
});
