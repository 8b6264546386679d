import { expect } from 'chai';
import { harness, http, networkId } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Octavia v2', () => {
  let hs: Harness;
  let subnetId: string;
  beforeEach(async () => {
    hs = await harness();
    const r = await http.get(`${hs.sim.url}/network/v2.0/subnets?name=demo-subnet`, { headers: await hs.h('demo') });
    subnetId = r.data.subnets[0].id;
  });
  afterEach(async () => { await hs.sim.close(); });
  const o = (p: string) => `${hs.sim.url}/load-balancer/v2${p}`;
  const createLb = async (name: string, vip: Record<string, unknown> = { vip_subnet_id: subnetId }) => {
    const r = await http.post(o('/lbaas/loadbalancers'), { loadbalancer: { name, ...vip } }, { headers: await hs.h('demo') });
    expect(r.status, JSON.stringify(r.data)).to.equal(201);
    return r.data.loadbalancer;
  };
  const lbState = async (id: string) => (await http.get(o(`/lbaas/loadbalancers/${id}`), { headers: await hs.h('demo') })).data.loadbalancer.provisioning_status;

  it('creates a load balancer with a real VIP port in Neutron: PENDING_CREATE → ACTIVE on the clock', async () => {
    const lb = await createLb('lb-web');
    expect(lb).to.include({ provisioning_status: 'PENDING_CREATE', operating_status: 'OFFLINE', vip_subnet_id: subnetId, provider: 'amphora' });
    const port = await http.get(`${hs.sim.url}/network/v2.0/ports/${lb.vip_port_id}`, { headers: await hs.h('demo') });
    expect(port.status).to.equal(200);
    expect(port.data.port).to.include({ device_owner: 'Octavia', device_id: `lb-${lb.id}`, name: `octavia-lb-${lb.id}` });
    expect(port.data.port.fixed_ips[0].ip_address).to.equal(lb.vip_address);
    hs.advance(300);
    expect(await lbState(lb.id)).to.equal('ACTIVE');
    const byNet = await createLb('lb-net', { vip_network_id: await networkId(hs, 'demo', 'demo-net') });
    expect(byNet.vip_subnet_id).to.equal(subnetId);
    const bad = await http.post(o('/lbaas/loadbalancers'), { loadbalancer: { name: 'x', vip_subnet_id: 'nope' } }, { headers: await hs.h('demo') });
    expect(bad.status).to.equal(400);
    expect(bad.data).to.deep.equal({ faultcode: 'Client', faultstring: 'Validation failure: Subnet nope not found.', debuginfo: null });
  });

  it('every child change puts the LB in PENDING_UPDATE and any further mutation gets 409 immutable until it settles', async () => {
    const lb = await createLb('lb-app');
    hs.advance(300);
    const h = await hs.h('demo', 'load-balancer 2.22');
    const listener = await http.post(o('/lbaas/listeners'), { listener: { name: 'l', loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 443, allowed_cidrs: ['203.0.113.0/24'] } }, { headers: h });
    expect(listener.status).to.equal(201);
    expect(listener.data.listener).to.include({ provisioning_status: 'PENDING_CREATE' });
    expect(await lbState(lb.id)).to.equal('PENDING_UPDATE');
    const busy = await http.post(o('/lbaas/pools'), { pool: { listener_id: listener.data.listener.id, protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN' } }, { headers: h });
    expect(busy.status).to.equal(409);
    expect(busy.data.faultstring).to.equal(`Load Balancer ${lb.id} is immutable and cannot be updated.`);
    expect((await http.put(o(`/lbaas/loadbalancers/${lb.id}`), { loadbalancer: { description: 'x' } }, { headers: h })).status).to.equal(409);
    expect((await http.delete(o(`/lbaas/loadbalancers/${lb.id}?cascade=true`), { headers: h })).status).to.equal(409);
    hs.advance(300);
    expect(await lbState(lb.id)).to.equal('ACTIVE');
    const pool = await http.post(o('/lbaas/pools'), { pool: { listener_id: listener.data.listener.id, protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN' } }, { headers: h });
    expect(pool.status).to.equal(201);
    hs.advance(300);
    const member = await http.post(o(`/lbaas/pools/${pool.data.pool.id}/members`), { member: { address: '10.20.0.50', protocol_port: 8443, subnet_id: subnetId } }, { headers: h });
    expect(member.data.member).to.include({ operating_status: 'NO_MONITOR', provisioning_status: 'PENDING_CREATE' });
    hs.advance(300);
    const hm = await http.post(o('/lbaas/healthmonitors'), { healthmonitor: { pool_id: pool.data.pool.id, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } }, { headers: h });
    expect(hm.status).to.equal(201);
    hs.advance(300);
    const p = (await http.get(o(`/lbaas/pools/${pool.data.pool.id}`), { headers: h })).data.pool;
    expect(p).to.include({ provisioning_status: 'ACTIVE', healthmonitor_id: hm.data.healthmonitor.id, protocol: 'PROXYV2' });
    expect(p.members).to.deep.equal([{ id: member.data.member.id }]);
    const l = (await http.get(o(`/lbaas/listeners/${listener.data.listener.id}`), { headers: h })).data.listener;
    expect(l).to.include({ default_pool_id: pool.data.pool.id, provisioning_status: 'ACTIVE' });
    expect(l.allowed_cidrs).to.deep.equal(['203.0.113.0/24']);
    const tree = await http.get(o(`/lbaas/loadbalancers/${lb.id}/status`), { headers: h });
    expect(tree.data.statuses.loadbalancer.listeners[0].pools[0].members[0].address).to.equal('10.20.0.50');
  });

  it('offers PROXYV2 pools only at load-balancer 2.22 or later (see README)', async () => {
    const lb = await createLb('lb-proxy');
    hs.advance(300);
    const r = await http.post(o('/lbaas/pools'), { pool: { loadbalancer_id: lb.id, protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN' } }, { headers: await hs.h('demo', 'load-balancer 2.21') });
    expect(r.status).to.equal(400);
    expect(r.data.faultstring).to.contain("Invalid input for field/attribute protocol. Value: 'PROXYV2'");
    const ok = await http.post(o('/lbaas/pools'), { pool: { loadbalancer_id: lb.id, protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN' } }, { headers: await hs.h('demo', 'load-balancer 2.22') });
    expect(ok.status).to.equal(201);
    expect(ok.headers['openstack-api-version']).to.equal('load-balancer 2.22');
  });

  it('cascade delete: PENDING_DELETE, then 404, and the VIP port (with its floating IP association) is gone', async () => {
    const lb = await createLb('lb-gone');
    hs.advance(300);
    const h = await hs.h('demo');
    await http.post(o('/lbaas/listeners'), { listener: { loadbalancer_id: lb.id, protocol: 'HTTP', protocol_port: 80 } }, { headers: h });
    hs.advance(300);
    const pub = await networkId(hs, 'demo', 'public');
    const fip = await http.post(`${hs.sim.url}/network/v2.0/floatingips`, { floatingip: { floating_network_id: pub, port_id: lb.vip_port_id } }, { headers: h });
    expect(fip.data.floatingip.fixed_ip_address).to.equal(lb.vip_address);
    const refused = await http.delete(o(`/lbaas/loadbalancers/${lb.id}`), { headers: h });
    expect(refused.status).to.equal(400);
    expect(refused.data.faultstring).to.equal(`Validation failure: Cannot delete Load Balancer ${lb.id} - it has children`);
    expect((await http.delete(o(`/lbaas/loadbalancers/${lb.id}?cascade=true`), { headers: h })).status).to.equal(204);
    expect(await lbState(lb.id)).to.equal('PENDING_DELETE');
    hs.advance(300);
    const gone = await http.get(o(`/lbaas/loadbalancers/${lb.id}`), { headers: h });
    expect(gone.status).to.equal(404);
    expect(gone.data.faultstring).to.equal(`Load Balancer ${lb.id} not found.`);
    expect((await http.get(`${hs.sim.url}/network/v2.0/ports/${lb.vip_port_id}`, { headers: h })).status).to.equal(404);
    expect((await http.get(`${hs.sim.url}/network/v2.0/floatingips/${fip.data.floatingip.id}`, { headers: h })).data.floatingip.port_id).to.equal(null);
  });

  it('filters names exactly, pages with loadbalancers_links, and answers another project with 403 as Octavia\'s policy does', async () => {
    for (const n of ['lb', 'lb-2', 'lb-3']) await createLb(n);
    const h = await hs.h('demo');
    expect((await http.get(o('/lbaas/loadbalancers?name=lb'), { headers: h })).data.loadbalancers).to.have.length(1);
    const p1 = await http.get(o('/lbaas/loadbalancers?limit=2'), { headers: h });
    expect(p1.data.loadbalancers).to.have.length(2);
    const p2 = await http.get(p1.data.loadbalancers_links[0].href, { headers: h });
    expect(p2.data.loadbalancers).to.have.length(1);
    const id = p1.data.loadbalancers[0].id;
    const other = await http.get(o(`/lbaas/loadbalancers/${id}`), { headers: await hs.h('other') });
    expect(other.status).to.equal(403);
    expect((await http.get(o('/lbaas/loadbalancers'), { headers: await hs.h('other') })).data.loadbalancers).to.deep.equal([]);
  });

  it('/_sim can hold an LB in PENDING_UPDATE or force ERROR; failProvisioning makes a create end in ERROR', async () => {
    const lb = await createLb('lb-stuck');
    hs.advance(300);
    await http.post(`${hs.sim.url}/_sim/loadbalancers/${lb.id}/state`, { provisioning_status: 'PENDING_UPDATE' });
    hs.advance(60_000);
    expect(await lbState(lb.id)).to.equal('PENDING_UPDATE');
    hs.sim.control.forceLoadBalancer(lb.id, { provisioning_status: 'ERROR' });
    expect(await lbState(lb.id)).to.equal('ERROR');
    hs.sim.control.configure({ octavia: { failProvisioning: '-lbfail$' } });
    const bad = await createLb('x-lbfail');
    hs.advance(300);
    expect(await lbState(bad.id)).to.equal('ERROR');
  });
});
