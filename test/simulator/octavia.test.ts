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

  it('/_sim can make a load balancer report a VIP address or VIP port id no Octavia should, and a floating IP an address no Neutron should; the old values restore them', async () => {
    const lb = await createLb('lb-odd-vip');
    hs.advance(300);
    const h = await hs.h('demo');
    const show = async () => (await http.get(o(`/lbaas/loadbalancers/${lb.id}`), { headers: h })).data.loadbalancer;
    const forced = await http.post(`${hs.sim.url}/_sim/loadbalancers/${lb.id}/state`, { vip_address: '', vip_port_id: '' });
    expect(forced.data.loadbalancer).to.include({ vip_address: '', vip_port_id: '' });
    expect(await show()).to.include({ vip_address: '', vip_port_id: '', provisioning_status: 'ACTIVE' });
    const listed = (await http.get(o('/lbaas/loadbalancers?name=lb-odd-vip'), { headers: h })).data.loadbalancers;
    expect(listed[0]).to.include({ vip_address: '', vip_port_id: '' });
    expect((await http.get(`${hs.sim.url}/network/v2.0/ports/${lb.vip_port_id}`, { headers: h })).status, 'the VIP port stays').to.equal(200);
    expect((await http.post(`${hs.sim.url}/_sim/loadbalancers/${lb.id}/state`, { vip_address: 7 })).status).to.equal(400);
    hs.sim.control.forceLoadBalancer(lb.id, { vip_address: lb.vip_address, vip_port_id: lb.vip_port_id });
    expect(await show()).to.include({ vip_address: lb.vip_address, vip_port_id: lb.vip_port_id });
    const pub = await networkId(hs, 'demo', 'public');
    const fip = (await http.post(`${hs.sim.url}/network/v2.0/floatingips`, { floatingip: { floating_network_id: pub, port_id: lb.vip_port_id } }, { headers: h })).data.floatingip;
    await http.post(`${hs.sim.url}/_sim/floatingips/${fip.id}/state`, { floating_ip_address: 'not-an-address' });
    const onPort = (await http.get(`${hs.sim.url}/network/v2.0/floatingips?port_id=${lb.vip_port_id}`, { headers: h })).data.floatingips;
    expect(onPort.map((f: { id: string; floating_ip_address: string }) => [f.id, f.floating_ip_address])).to.deep.equal([[fip.id, 'not-an-address']]);
    expect((await http.post(`${hs.sim.url}/_sim/floatingips/nope/state`, { floating_ip_address: '' })).status).to.equal(404);
  });

  // §16: Octavia's single-call creates as Zed does them (measured on the sandbox, test/real-openstack/octavia.openstack.ts).
  interface HmBody { name?: string; type: string; delay?: number; timeout: number; max_retries: number; max_retries_down?: number }
  interface PoolBody { name?: string; protocol?: string; lb_algorithm?: string; members: Array<{ address: string; protocol_port: number; subnet_id?: string; name?: string }>; healthmonitor: HmBody }
  interface ListenerBody { name: string; protocol: string; protocol_port: number; allowed_cidrs?: string[]; timeout_client_data?: number; default_pool: PoolBody }
  interface FullLb { name: string; vip_subnet_id: string; listeners: [ListenerBody, ListenerBody]; pools?: [PoolBody] }
  type Row = Record<string, unknown>;
  const fullBody = (name: string, over: (lb: FullLb) => void = () => undefined) => {
    const lb: FullLb = {
      name, vip_subnet_id: subnetId, listeners: [
        {
          name: `${name}-https`, protocol: 'TCP', protocol_port: 443, allowed_cidrs: ['203.0.113.0/24'], timeout_client_data: 300000,
          default_pool: {
            name: `${name}-https-pool`, protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN',
            members: [{ address: '10.20.0.10', protocol_port: 8443, subnet_id: subnetId, name: 'm1' }, { address: '10.20.0.11', protocol_port: 8443, subnet_id: subnetId }],
            healthmonitor: { name: `${name}-https-hm`, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 },
          },
        },
        {
          name: `${name}-dns`, protocol: 'UDP', protocol_port: 53,
          default_pool: {
            name: `${name}-dns-pool`, protocol: 'UDP', lb_algorithm: 'ROUND_ROBIN',
            members: [{ address: '10.20.0.20', protocol_port: 53, subnet_id: subnetId }, { address: '10.20.0.21', protocol_port: 53, subnet_id: subnetId }],
            healthmonitor: { name: `${name}-dns-hm`, type: 'UDP-CONNECT', delay: 5, timeout: 3, max_retries: 3, max_retries_down: 2 },
          },
        },
      ],
    };
    over(lb);
    return { loadbalancer: lb };
  };
  const octaviaPorts = async () => (await http.get(`${hs.sim.url}/network/v2.0/ports?device_owner=Octavia`, { headers: await hs.h('demo') })).data.ports.length as number;
  const tree = async (id: string) => {
    const st = (await http.get(o(`/lbaas/loadbalancers/${id}/status`), { headers: await hs.h('demo') })).data.statuses.loadbalancer;
    const out: Record<string, string> = {};
    for (const l of st.listeners) {
      out[l.name] = l.provisioning_status;
      for (const p of l.pools) {
        out[p.name] = p.provisioning_status;
        out[p.health_monitor.name] = p.health_monitor.provisioning_status;
        for (const m of p.members) out[`${p.name}/${m.address}`] = m.provisioning_status;
      }
    }
    return out;
  };

  it('a fully populated create answers every child PENDING_CREATE in the full representation; the LB goes ACTIVE alone', async () => {
    const h = await hs.h('demo', 'load-balancer 2.22');
    const r = await http.post(o('/lbaas/loadbalancers'), fullBody('full'), { headers: h });
    expect(r.status, JSON.stringify(r.data)).to.equal(201);
    const lb = r.data.loadbalancer;
    expect(lb.provisioning_status).to.equal('PENDING_CREATE');
    expect(lb.listeners.map((l: Row) => [l.name, l.protocol, l.protocol_port, l.provisioning_status, l.operating_status])).to.deep.equal([
      ['full-https', 'TCP', 443, 'PENDING_CREATE', 'OFFLINE'], ['full-dns', 'UDP', 53, 'PENDING_CREATE', 'OFFLINE'],
    ]);
    expect(lb.listeners[0]).to.not.have.property('loadbalancers');
    expect(lb.listeners[0]).to.include({ timeout_client_data: 300000, timeout_member_data: 50000 });
    expect(lb.listeners[0].allowed_cidrs).to.deep.equal(['203.0.113.0/24']);
    expect(lb.pools.map((p: Row) => [p.name, p.protocol, p.provisioning_status, p.healthmonitor])).to.deep.equal([
      ['full-https-pool', 'PROXYV2', 'PENDING_CREATE', null], ['full-dns-pool', 'UDP', 'PENDING_CREATE', null],
    ]);
    expect(lb.pools[0]).to.not.have.any.keys('loadbalancers', 'healthmonitor_id');
    expect(lb.pools[0].listeners).to.deep.equal([{ id: lb.listeners[0].id }]);
    expect(lb.listeners.map((l: Row) => l.default_pool_id)).to.deep.equal(lb.pools.map((p: Row) => p.id));
    expect(lb.pools[0].members.map((m: Row) => [m.address, m.protocol_port, m.name, m.provisioning_status, m.operating_status])).to.deep.equal([
      ['10.20.0.10', 8443, 'm1', 'PENDING_CREATE', 'OFFLINE'], ['10.20.0.11', 8443, '', 'PENDING_CREATE', 'OFFLINE'],
    ]);
    const pool = (await http.get(o(`/lbaas/pools/${lb.pools[1].id}`), { headers: h })).data.pool;
    const hm = (await http.get(o(`/lbaas/healthmonitors/${pool.healthmonitor_id}`), { headers: h })).data.healthmonitor;
    expect(hm).to.include({ name: 'full-dns-hm', type: 'UDP-CONNECT', max_retries_down: 2, provisioning_status: 'PENDING_CREATE' });
    expect((await http.get(o(`/lbaas/loadbalancers/${lb.id}`), { headers: h })).data.loadbalancer.listeners).to.deep.equal(lb.listeners.map((l: Row) => ({ id: l.id })));

    hs.advance(300);
    expect(await lbState(lb.id)).to.equal('ACTIVE');
    hs.advance(60_000);
    const stuck = await tree(lb.id);
    expect(Object.keys(stuck)).to.have.length(10);
    expect(new Set(Object.values(stuck))).to.deep.equal(new Set(['PENDING_CREATE']));

    // A member change needs its pool ACTIVE; a listener update marks that listener; a pool update the pool and
    // every listener; a monitor update the monitor: what the sandbox showed, change by change.
    const refused = await http.put(o(`/lbaas/pools/${lb.pools[0].id}/members/${lb.pools[0].members[0].id}`), { member: { weight: 5 } }, { headers: h });
    expect([refused.status, refused.data.faultstring]).to.deep.equal([409, `Pool ${lb.pools[0].id} is immutable and cannot be updated.`]);
    expect((await http.put(o(`/lbaas/listeners/${lb.listeners[0].id}`), { listener: { name: 'full-https' } }, { headers: h })).status).to.equal(200);
    const own = await http.put(o(`/lbaas/loadbalancers/${lb.id}`), { loadbalancer: { description: 'x' } }, { headers: h });
    expect([own.status, own.data.faultstring]).to.deep.equal([409, `Invalid state PENDING_UPDATE of loadbalancer resource ${lb.id}`]);
    hs.advance(300);
    expect(await tree(lb.id)).to.include({ 'full-https': 'ACTIVE', 'full-dns': 'PENDING_CREATE', 'full-https-pool': 'PENDING_CREATE' });
    expect((await http.put(o(`/lbaas/pools/${lb.pools[1].id}`), { pool: { name: 'full-dns-pool' } }, { headers: h })).status).to.equal(200);
    hs.advance(300);
    expect(await tree(lb.id)).to.include({ 'full-dns': 'ACTIVE', 'full-dns-pool': 'ACTIVE', 'full-dns-hm': 'PENDING_CREATE', 'full-dns-pool/10.20.0.20': 'PENDING_CREATE', 'full-https-pool': 'PENDING_CREATE' });
    expect((await http.put(o(`/lbaas/healthmonitors/${hm.id}`), { healthmonitor: { delay: 6 } }, { headers: h })).status).to.equal(200);
    hs.advance(300);
    expect(await tree(lb.id)).to.include({ 'full-dns-hm': 'ACTIVE', 'full-dns-pool/10.20.0.20': 'PENDING_CREATE', 'full-dns-pool/10.20.0.21': 'PENDING_CREATE' });

    expect((await http.delete(o(`/lbaas/loadbalancers/${lb.id}?cascade=true`), { headers: h })).status).to.equal(204);
    hs.advance(300);
    expect((await http.get(o(`/lbaas/pools/${lb.pools[0].id}`), { headers: h })).status).to.equal(404);
  });

  it('a fully populated create: a field error refuses it before the VIP port; a graph error after it, leaving the port behind', async () => {
    const h = await hs.h('demo', 'load-balancer 2.22');
    const post = (name: string, over: Parameters<typeof fullBody>[1], headers = h) => http.post(o('/lbaas/loadbalancers'), fullBody(name, over), { headers });
    const ports = await octaviaPorts();
    const early = [
      await post('f1', (lb) => { lb.listeners[0].protocol = 'FOO'; }),
      await post('f2', (lb) => { delete lb.listeners[1].default_pool.healthmonitor.delay; }),
      await post('f3', () => undefined, await hs.h('demo')), // PROXYV2 needs load-balancer 2.22 here (see README)
    ];
    expect(early.map((r) => r.status)).to.deep.equal([400, 400, 400]);
    expect(await octaviaPorts()).to.equal(ports);
    const cases: Array<[string, NonNullable<Parameters<typeof fullBody>[1]>, number, string]> = [
      ['unnamed', (lb) => { delete lb.listeners[0].default_pool.name; }, 400, 'Validation failure: Pools must be named when creating a fully populated loadbalancer.'],
      ['udp-tcp', (lb) => { lb.listeners[1].default_pool.protocol = 'TCP'; lb.listeners[1].default_pool.healthmonitor.type = 'TCP'; }, 400, "Validation failure: The pool protocol 'TCP' is invalid while the listener protocol is 'UDP'."],
      ['tcp-udpconnect', (lb) => { lb.listeners[0].default_pool.healthmonitor.type = 'UDP-CONNECT'; }, 400, 'Validation failure: The UDP-CONNECT type is only supported for pools of type UDP/SCTP.'],
      ['dup-listener', (lb) => { Object.assign(lb.listeners[1], { protocol: 'TCP', protocol_port: 443 }); Object.assign(lb.listeners[1].default_pool, { protocol: 'TCP' }); lb.listeners[1].default_pool.healthmonitor.type = 'TCP'; }, 409, 'Another Listener on this Load Balancer is already using protocol TCP and protocol_port 443'],
      ['dup-pool', (lb) => { lb.listeners[1].default_pool.name = lb.listeners[0].default_pool.name; }, 400, 'Validation failure: Pool names must be unique when creating a fully populated loadbalancer.'],
      ['udp-delay', (lb) => { Object.assign(lb.listeners[1].default_pool.healthmonitor, { delay: 1, timeout: 1 }); }, 400, 'Validation failure: The request delay value 1 should be larger than 3 for UDP-CONNECT health monitor type.'],
      ['dup-member', (lb) => { Object.assign(lb.listeners[0].default_pool.members[1] ?? {}, { address: '10.20.0.10' }); }, 409, 'Another member on this pool is already using ip 10.20.0.10 on protocol_port 8443'],
      ['no-protocol', (lb) => { delete lb.listeners[0].default_pool.protocol; }, 400, "Validation failure: Pool definition for 'no-protocol-https-pool' missing required attribute: protocol"],
    ];
    for (const [name, over, status, fault] of cases) {
      const r = await post(name, over);
      expect([name, r.status, r.data.faultstring]).to.deep.equal([name, status, fault]);
    }
    const ping = await post('udp-ping', (lb) => { lb.listeners[1].default_pool.healthmonitor.type = 'PING'; });
    expect(ping.status).to.equal(400);
    expect(ping.data.faultstring).to.match(/^Validation failure: The associated pool protocol is <octavia\.common\.data_models\.Pool object at 0x[0-9a-f]+>, so only a UDP-CONNECT\/SCTP\/TCP\/HTTP health monitor is supported\.$/);
    expect(await octaviaPorts()).to.equal(ports + cases.length + 1);
    expect((await http.get(o('/lbaas/loadbalancers'), { headers: h })).data.loadbalancers).to.deep.equal([]);
    expect((await http.get(o('/lbaas/pools'), { headers: h })).data.pools).to.deep.equal([]);
    // A listener's default pool may name a top-level pool instead.
    const byRef = await post('ref', (lb) => {
      lb.pools = [lb.listeners[0].default_pool];
      lb.listeners[0].default_pool = { name: lb.pools[0].name } as PoolBody;
    });
    expect(byRef.status, JSON.stringify(byRef.data)).to.equal(201);
    expect(byRef.data.loadbalancer.listeners[0].default_pool_id).to.equal(byRef.data.loadbalancer.pools[0].id);
    const missing = await post('ref-missing', (lb) => { lb.listeners[0].default_pool = { name: 'nowhere' } as PoolBody; });
    expect(missing.data.faultstring).to.equal("Validation failure: Pool 'nowhere' was referenced but no full definition was found.");
  });

  it('a listener with a nested default pool: 400 on a field, 409 while the LB is busy, else 500 and nothing created (Zed)', async () => {
    const lb = await createLb('lb-nested');
    hs.advance(300);
    const h = await hs.h('demo', 'load-balancer 2.22');
    const nested = fullBody('nested').loadbalancer.listeners[0];
    const post = (body: object) => http.post(o('/lbaas/listeners'), { listener: { ...body, loadbalancer_id: lb.id } }, { headers: h });
    expect((await post({ ...nested, default_pool: { ...nested.default_pool, lb_algorithm: 'FASTEST' } })).status).to.equal(400);
    expect((await post({ name: 'plain', protocol: 'TCP', protocol_port: 80 })).status).to.equal(201);
    const busy = await post(nested);
    expect([busy.status, busy.data.faultstring]).to.deep.equal([409, `Load Balancer ${lb.id} is immutable and cannot be updated.`]);
    hs.advance(300);
    const failed = await post(nested);
    expect(failed.status).to.equal(500);
    expect(failed.data).to.deep.equal({ faultcode: 'Server', faultstring: "'dict' object has no attribute '_sa_instance_state'", debuginfo: null });
    expect(await lbState(lb.id)).to.equal('ACTIVE');
    expect((await http.get(o('/lbaas/listeners?name=nested-https'), { headers: h })).data.listeners).to.deep.equal([]);
    expect((await http.get(o('/lbaas/pools'), { headers: h })).data.pools).to.deep.equal([]);
  });

  it('a pool with nested members or a health monitor is a 500 and creates nothing (Zed, probed in the real Octavia file); a plain pool is created', async () => {
    const lb = await createLb('lb-pool-nested');
    hs.advance(300);
    const h = await hs.h('demo', 'load-balancer 2.22');
    const listener = await http.post(o('/lbaas/listeners'), { listener: { name: 'l', protocol: 'TCP', protocol_port: 80, loadbalancer_id: lb.id } }, { headers: h });
    expect(listener.status).to.equal(201);
    hs.advance(300);
    const pool = (extra: object) => http.post(o('/lbaas/pools'), { pool: { name: 'p', protocol: 'TCP', lb_algorithm: 'ROUND_ROBIN', listener_id: listener.data.listener.id, ...extra } }, { headers: h });
    const withMembers = await pool({ members: [{ address: '10.0.0.10', protocol_port: 80 }] });
    expect([withMembers.status, withMembers.data.faultstring]).to.deep.equal([500, "'dict' object has no attribute '_sa_instance_state'"]);
    expect((await pool({ healthmonitor: { type: 'TCP', delay: 5, timeout: 3, max_retries: 3 } })).status).to.equal(500);
    expect((await http.get(o('/lbaas/pools'), { headers: h })).data.pools).to.deep.equal([]);
    expect((await pool({})).status).to.equal(201);
  });

  it('single creates follow Zed too: a member waits for its pool (409 on the pool), a UDP pool refuses a PING monitor, members of a monitored pool start OFFLINE', async () => {
    const lb = await createLb('lb-single');
    hs.advance(300);
    const h = await hs.h('demo');
    const listener = await http.post(o('/lbaas/listeners'), { listener: { loadbalancer_id: lb.id, protocol: 'UDP', protocol_port: 53 } }, { headers: h });
    hs.advance(300);
    const pool = (await http.post(o('/lbaas/pools'), { pool: { listener_id: listener.data.listener.id, protocol: 'UDP', lb_algorithm: 'ROUND_ROBIN' } }, { headers: h })).data.pool;
    const early = await http.post(o(`/lbaas/pools/${pool.id}/members`), { member: { address: '10.20.0.30', protocol_port: 53 } }, { headers: h });
    expect([early.status, early.data.faultstring]).to.deep.equal([409, `Pool ${pool.id} is immutable and cannot be updated.`]);
    hs.advance(300);
    const ping = await http.post(o('/lbaas/healthmonitors'), { healthmonitor: { pool_id: pool.id, type: 'PING', delay: 5, timeout: 3, max_retries: 3 } }, { headers: h });
    expect([ping.status, ping.data.faultstring]).to.deep.equal([400, 'Validation failure: The associated pool protocol is UDP, so only a UDP-CONNECT/SCTP/TCP/HTTP health monitor is supported.']);
    expect((await http.post(o('/lbaas/healthmonitors'), { healthmonitor: { pool_id: pool.id, type: 'UDP-CONNECT', delay: 5, timeout: 3, max_retries: 3 } }, { headers: h })).status).to.equal(201);
    hs.advance(300);
    const m = await http.post(o(`/lbaas/pools/${pool.id}/members`), { member: { address: '10.20.0.30', protocol_port: 53 } }, { headers: h });
    expect(m.data.member).to.include({ operating_status: 'OFFLINE', provisioning_status: 'PENDING_CREATE' });
    const dup = await http.post(o('/lbaas/listeners'), { listener: { loadbalancer_id: lb.id, protocol: 'UDP', protocol_port: 53 } }, { headers: h });
    expect(dup.status).to.equal(409);
  });
});
