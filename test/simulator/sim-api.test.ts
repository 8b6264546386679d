import { expect } from 'chai';
import { SEED } from '../../src/simulator/index.js';
import { bootServer, getServer, harness, http, passwordToken } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: /_sim control API', () => {
  let hs: Harness;
  beforeEach(async () => { hs = await harness(); });
  afterEach(async () => { await hs.sim.close(); });
  const sim = (p: string) => `${hs.sim.url}/_sim${p}`;

  it('fails the next N matching calls with a status and an OpenStack-shaped body, then lets calls through', async () => {
    const f = await http.post(sim('/faults'), { method: 'GET', path: '/compute/v2\\.1/servers', status: 503, count: 2 });
    expect(f.status).to.equal(201);
    expect(f.data.fault).to.include({ remaining: 2, status: 503 });
    const h = await hs.h('demo');
    const first = await http.get(`${hs.nova}/servers`, { headers: h });
    expect(first.status).to.equal(503);
    expect(first.data.serviceUnavailable.code).to.equal(503);
    expect(first.headers['x-openstack-request-id']).to.match(/^req-/);
    expect((await http.get(`${hs.nova}/servers`, { headers: h })).status).to.equal(503);
    expect((await http.get(`${hs.nova}/servers`, { headers: h })).status).to.equal(200);
    expect((await http.get(sim('/faults'))).data.faults).to.deep.equal([]);
    await http.post(sim('/faults'), { path: '/network/', status: 500, count: null, body: { custom: true } });
    const neutron = await http.get(`${hs.sim.url}/network/v2.0/networks`, { headers: h });
    expect(neutron.data).to.deep.equal({ custom: true });
    expect((await http.get(`${hs.sim.url}/network/v2.0/networks`, { headers: h })).status).to.equal(500);
    expect((await http.delete(sim('/faults'))).status).to.equal(204);
    expect((await http.get(`${hs.sim.url}/network/v2.0/networks`, { headers: h })).status).to.equal(200);
  });

  it('matches on the body, so one rebuild can fail while other actions pass; the failure is in the call log', async () => {
    const id = await bootServer(hs, 'demo', 'vm');
    hs.advance(300);
    await http.post(sim('/faults'), { method: 'POST', path: '/action$', bodyIncludes: '"rebuild"', status: 409, body: { conflictingRequest: { code: 409, message: 'injected' } } });
    const h = await hs.h('demo');
    const r = await http.post(`${hs.nova}/servers/${id}/action`, { rebuild: { imageRef: SEED.images.ubuntu } }, { headers: h });
    expect(r.status).to.equal(409);
    expect(r.data.conflictingRequest.message).to.equal('injected');
    expect((await getServer(hs, 'demo', id)).data.server.image.id).to.equal(SEED.images.cirros);
    const calls = (await http.get(sim(`/calls?method=POST&action=rebuild`))).data.calls;
    expect(calls).to.have.length(1);
    expect(calls[0]).to.include({ status: 409, fault: 'status#1' });
  });

  it('a timeout fault hangs the call until the client gives up; latency delays it', async () => {
    await http.post(sim('/faults'), { method: 'GET', path: '/image/v2/images$', timeout: true });
    const h = await hs.h('demo');
    const err = await http.get(`${hs.sim.url}/image/v2/images`, { headers: h, timeout: 200 }).then(() => null, (e: { code?: string }) => e);
    expect(err?.code).to.equal('ECONNABORTED');
    expect(hs.sim.calls({ pathIncludes: '/image/v2/images' })[0]).to.include({ status: 0 });
    await http.post(sim('/latency'), { ms: 150, path: '/image/v2/images$', count: 1 });
    const t0 = Date.now();
    expect((await http.get(`${hs.sim.url}/image/v2/images`, { headers: h })).status).to.equal(200);
    expect(Date.now() - t0).to.be.at.least(140);
  });

  it('duplicates exact names (two servers named X) and forces server, volume and LB states', async () => {
    const id = await bootServer(hs, 'demo', 'twin');
    hs.advance(300);
    const dup = await http.post(sim('/duplicate'), { kind: 'server', id });
    expect(dup.status).to.equal(201);
    const named = (await http.get(`${hs.nova}/servers?name=${encodeURIComponent('^twin$')}`, { headers: await hs.h('demo') })).data.servers;
    expect(named.map((s: { id: string }) => s.id).sort()).to.deep.equal([id, dup.data.id].sort());
    const forced = await http.post(sim(`/servers/${id}/state`), { status: 'ERROR', fault: 'disk on fire' });
    expect(forced.data.server).to.include({ vm_state: 'error' });
    const s = (await getServer(hs, 'demo', id)).data.server;
    expect(s.status).to.equal('ERROR');
    expect(s.fault.message).to.equal('disk on fire');
    await http.post(sim(`/servers/${id}/state`), { status: 'ACTIVE' });
    expect((await getServer(hs, 'demo', id)).data.server.status).to.equal('ACTIVE');
    const bulk = await http.post(sim('/servers'), { project: 'other', count: 3, namePrefix: 'bulk-', state: 'BUILD' });
    expect(bulk.data.ids).to.have.length(3);
    expect((await getServer(hs, 'other', bulk.data.ids[0])).data.server.status).to.equal('BUILD');
    const vol = await http.post(`${hs.volume('demo')}/volumes`, { volume: { size: 1, name: 'v' } }, { headers: await hs.h('demo') });
    await http.post(sim(`/volumes/${vol.data.volume.id}/state`), { status: 'error' });
    hs.advance(1000);
    expect((await http.get(`${hs.volume('demo')}/volumes/${vol.data.volume.id}`, { headers: await hs.h('demo') })).data.volume.status).to.equal('error');
    expect((await http.post(sim('/duplicate'), { kind: 'volume', id: vol.data.volume.id })).status).to.equal(201);
    const vols = (await http.get(`${hs.volume('demo')}/volumes?name=v`, { headers: await hs.h('demo') })).data.volumes;
    expect(vols).to.have.length(2);
  });

  it('advances the manual clock over HTTP, reports config, rejects unknown config keys, and resets to the seed', async () => {
    const id = await bootServer(hs, 'demo', 'tmp');
    const before = (await http.get(sim('/clock'))).data.now as number;
    const adv = await http.post(sim('/clock/advance'), { ms: 300 });
    expect(adv.data.now).to.equal(before + 300);
    expect((await getServer(hs, 'demo', id)).data.server.status).to.equal('ACTIVE');
    expect((await http.post(sim('/config'), { nova: { hideTaskStat: true } })).status).to.equal(400);
    const cfg = await http.post(sim('/config'), { delays: { serverBuild: 1000 } });
    expect(cfg.data.delays.serverBuild).to.equal(1000);
    expect((await http.post(sim('/reset'))).status).to.equal(200);
    expect((await http.get(sim('/config'))).data.delays.serverBuild).to.equal(300);
    expect((await http.get(sim('/calls'))).data.calls).to.deep.equal([]);
    const t = await hs.h('demo');
    const r = await http.get(`${hs.nova}/servers/${id}`, { headers: t });
    expect(r.status, 'tokens issued before a reset are gone with it').to.equal(401);
    const again = await passwordToken(hs.sim, 'demo');
    expect(again.status, 'seed credentials work after a reset').to.equal(201);
    expect(again.data.token.project.id, 'seed ids are stable across resets').to.equal(hs.sim.credentials.demo.projectId);
    expect((await http.get(sim('/nowhere'))).status).to.equal(404);
  });

  it('exposes clouds.yaml for sim-admin, sim-demo and sim-other pointing at the auth URL', () => {
    const y = hs.sim.cloudsYaml();
    for (const c of ['sim-admin', 'sim-demo', 'sim-other']) expect(y).to.contain(`${c}:`);
    expect(y).to.contain(`auth_url: ${hs.sim.authUrl}`);
    expect(y).to.contain('region_name: RegionOne');
    expect(y).to.contain('interface: public');
  });
});

describe('simulator: real clock', () => {
  it('resolves transitions lazily as real time passes, and refuses to be advanced', async () => {
    const hs = await harness({ clock: 'real', delays: { serverBuild: 300 } });
    try {
      const t0 = Date.now();
      const id = await bootServer(hs, 'demo', 'rt');
      const early = (await getServer(hs, 'demo', id)).data.server.status;
      // Only meaningful when the machine answered quickly; a loaded CI box may already be past BUILD.
      if (Date.now() - t0 < 250) expect(early).to.equal('BUILD');
      // a fixed wait on purpose: the property is that real time passing (past the 300 ms build) is what resolves it
      await new Promise((r) => setTimeout(r, 400));
      expect((await getServer(hs, 'demo', id)).data.server.status).to.equal('ACTIVE');
      expect((await http.post(`${hs.sim.url}/_sim/clock/advance`, { ms: 10 })).status).to.equal(409);
    } finally {
      await hs.sim.close();
    }
  });
});
