import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { ConsistencyError, Conflict, NotFound, ServerError } from '../../src/openstack/errors.js';
import type { FullListenerRequest } from '../../src/openstack/octavia/load-balancers.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { Fixtures } from './support/fixtures.js';
import { createFixtures, settle, uniqueName } from './support/fixtures.js';
import { connectAs, rejectionOf, start } from './support/sim.js';

describe('octavia over HTTP (simulator)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let demo: OpenStackSession;
  let fx: Fixtures;

  before(async () => {
    sim = await start();
    const admin = await connectAs(sim, 'admin');
    demo = await connectAs(sim, 'demo');
    fx = await createFixtures(admin, demo);
  });
  after(async () => {
    await sim.close();
  });

  it('a load balancer goes PENDING_CREATE → ACTIVE with a VIP port, is found by exact name, and cascade-deletes', async () => {
    const name = uniqueName('lb');
    const lb = await demo.octavia.createLoadBalancer({ name, vipSubnetId: fx.subnetId });
    expect(lb.provisioningStatus).to.deep.equal({ kind: 'value', value: 'PENDING_CREATE' });
    await settle(sim);
    const active = await demo.octavia.findLoadBalancerByName(name);
    expect(active.id).to.equal(lb.id);
    expect(active.provisioningStatus).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    expect(active.operatingStatus.kind).to.equal('value');
    expect(active.vipPortId.kind === 'value' && typeof active.vipPortId.value).to.equal('string');

    await demo.octavia.deleteLoadBalancer(lb.id, { cascade: true });
    expect(sim.calls({ method: 'DELETE', pathIncludes: `/loadbalancers/${lb.id}` }).at(-1)?.query).to.contain('cascade=true');
    const deleting = await demo.octavia.getLoadBalancer(lb.id);
    expect(deleting.provisioningStatus).to.deep.equal({ kind: 'value', value: 'PENDING_DELETE' });
    await settle(sim);
    expect(await rejectionOf(demo.octavia.getLoadBalancer(lb.id))).to.be.instanceOf(NotFound);
  });

  it('a child change makes the LB immutable (409 Conflict) until it is ACTIVE again; the full topology converges', async () => {
    const name = uniqueName('lb');
    const lb = await demo.octavia.createLoadBalancer({ name, vipSubnetId: fx.subnetId });
    await settle(sim);
    const listener = await demo.octavia.createListener({ name: `${name}-http-listener`, loadbalancerId: lb.id, protocol: 'TCP', protocolPort: 80, allowedCidrs: ['203.0.113.0/24'] });
    expect((await demo.octavia.getLoadBalancer(lb.id)).provisioningStatus).to.deep.equal({ kind: 'value', value: 'PENDING_UPDATE' });
    const busy = await rejectionOf(demo.octavia.createPool({ name: `${name}-http-pool`, protocol: 'PROXYV2', lbAlgorithm: 'ROUND_ROBIN', listenerId: listener.id }));
    expect(busy).to.be.instanceOf(Conflict);
    expect((busy as Conflict).fault).to.match(/immutable/);
    await settle(sim);

    const pool = await demo.octavia.createPool({ name: `${name}-http-pool`, protocol: 'PROXYV2', lbAlgorithm: 'ROUND_ROBIN', listenerId: listener.id });
    expect(pool.protocol).to.deep.equal({ kind: 'value', value: 'PROXYV2' });
    await settle(sim);
    const member = await demo.octavia.createMember(pool.id, { address: '192.0.2.10', protocolPort: 8080, subnetId: fx.subnetId });
    await settle(sim);
    const monitor = await demo.octavia.createHealthMonitor({ name: `${name}-http-monitor`, poolId: pool.id, type: 'TCP', delay: 5, timeout: 3, maxRetries: 3 });
    await settle(sim);

    expect((await demo.octavia.findListenerByName(`${name}-http-listener`)).allowedCidrs).to.deep.equal({ kind: 'value', value: ['203.0.113.0/24'] });
    expect((await demo.octavia.findPoolByName(`${name}-http-pool`)).healthMonitorId).to.deep.equal({ kind: 'value', value: monitor.id });
    const members = await demo.octavia.listMembers(pool.id);
    expect(members.map((m) => m.id)).to.deep.equal([member.id]);
    expect(members[0]?.provisioningStatus).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    const updated = await demo.octavia.updateHealthMonitor(monitor.id, { delay: 10 });
    expect(updated.id).to.equal(monitor.id);
    await settle(sim);
    expect((await demo.octavia.getHealthMonitor(monitor.id)).delay).to.deep.equal({ kind: 'value', value: 10 });
  });

  it('two load balancers with the same name are a ConsistencyError', async () => {
    const name = uniqueName('twin-lb');
    await demo.octavia.createLoadBalancer({ name, vipSubnetId: fx.subnetId });
    await demo.octavia.createLoadBalancer({ name, vipSubnetId: fx.subnetId });
    expect(await rejectionOf(demo.octavia.findLoadBalancerByName(name))).to.be.instanceOf(ConsistencyError);
    expect(await demo.octavia.lookupLoadBalancerByName(uniqueName('none'))).to.equal(undefined);
  });
  /** TCP 443 → PROXYV2 pool (TCP monitor), UDP 53 → UDP pool (UDP-CONNECT monitor), two members each. */
  const fullListeners = (name: string): FullListenerRequest[] => [
    {
      name: `${name}-https`, protocol: 'TCP', protocolPort: 443, allowedCidrs: ['203.0.113.0/24'], timeoutClientData: 300000, timeoutMemberData: 300000,
      defaultPool: {
        name: `${name}-https-pool`, protocol: 'PROXYV2', lbAlgorithm: 'ROUND_ROBIN',
        members: [{ address: '192.0.2.10', protocolPort: 8443, subnetId: fx.subnetId, name: 'm1' }, { address: '192.0.2.11', protocolPort: 8443 }],
        healthmonitor: { name: `${name}-https-hm`, type: 'TCP', delay: 5, timeout: 3, maxRetries: 3 },
      },
    },
    {
      name: `${name}-dns`, protocol: 'UDP', protocolPort: 53,
      defaultPool: {
        name: `${name}-dns-pool`, protocol: 'UDP', lbAlgorithm: 'ROUND_ROBIN',
        members: [{ address: '192.0.2.20', protocolPort: 53 }, { address: '192.0.2.21', protocolPort: 53 }],
        healthmonitor: { name: `${name}-dns-hm`, type: 'UDP-CONNECT', delay: 5, timeout: 3, maxRetries: 3, maxRetriesDown: 2 },
      },
    },
  ];

  it('a fully populated create sends Octavia\'s nested body (2.22 for the PROXYV2 pool) and decodes every child from the answer', async () => {
    const name = uniqueName('full-lb');
    const lb = await demo.octavia.createLoadBalancer({ name, vipSubnetId: fx.subnetId, listeners: fullListeners(name) });
    // The simulator refuses PROXYV2 below load-balancer 2.22: the create passing shows the pin was sent.
    const sent = sim.calls({ method: 'POST', pathIncludes: '/lbaas/loadbalancers' }).at(-1)?.body as { loadbalancer: { listeners: unknown[] } };
    expect(sent.loadbalancer.listeners[0]).to.deep.equal({
      name: `${name}-https`, protocol: 'TCP', protocol_port: 443, allowed_cidrs: ['203.0.113.0/24'], timeout_client_data: 300000, timeout_member_data: 300000,
      default_pool: {
        name: `${name}-https-pool`, protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN',
        members: [{ address: '192.0.2.10', protocol_port: 8443, subnet_id: fx.subnetId, name: 'm1' }, { address: '192.0.2.11', protocol_port: 8443 }],
        healthmonitor: { name: `${name}-https-hm`, type: 'TCP', delay: 5, timeout: 3, max_retries: 3 },
      },
    });
    expect(lb.provisioningStatus).to.deep.equal({ kind: 'value', value: 'PENDING_CREATE' });
    expect(lb.listenerIds).to.deep.equal({ kind: 'value', value: lb.listeners.map((l) => l.id) });
    expect(lb.listeners.map((l) => [l.name, l.protocol, l.protocolPort, l.provisioningStatus])).to.deep.equal([
      [`${name}-https`, { kind: 'value', value: 'TCP' }, { kind: 'value', value: 443 }, { kind: 'value', value: 'PENDING_CREATE' }],
      [`${name}-dns`, { kind: 'value', value: 'UDP' }, { kind: 'value', value: 53 }, { kind: 'value', value: 'PENDING_CREATE' }],
    ]);
    expect(lb.listeners[0]?.loadBalancerIds).to.deep.equal({ kind: 'absent' });
    expect(lb.pools.map((p) => [p.name, p.protocol, p.provisioningStatus, p.healthMonitor, p.healthMonitorId, p.members.length])).to.deep.equal([
      [`${name}-https-pool`, { kind: 'value', value: 'PROXYV2' }, { kind: 'value', value: 'PENDING_CREATE' }, { kind: 'value', value: null }, { kind: 'absent' }, 2],
      [`${name}-dns-pool`, { kind: 'value', value: 'UDP' }, { kind: 'value', value: 'PENDING_CREATE' }, { kind: 'value', value: null }, { kind: 'absent' }, 2],
    ]);
    expect(lb.listeners.map((l) => l.defaultPoolId)).to.deep.equal(lb.pools.map((p) => ({ kind: 'value', value: p.id })));
    expect(lb.pools[0]?.members.map((m) => [m.address, m.protocolPort, m.provisioningStatus])).to.deep.equal([
      [{ kind: 'value', value: '192.0.2.10' }, { kind: 'value', value: 8443 }, { kind: 'value', value: 'PENDING_CREATE' }],
      [{ kind: 'value', value: '192.0.2.11' }, { kind: 'value', value: 8443 }, { kind: 'value', value: 'PENDING_CREATE' }],
    ]);

    await settle(sim);
    // As on Zed: the LB is ACTIVE, its children are left PENDING_CREATE (docs/simulator-differences.md §16).
    expect((await demo.octavia.getLoadBalancer(lb.id)).provisioningStatus).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    expect((await demo.octavia.getListener(lb.listeners[0]?.id as string)).provisioningStatus).to.deep.equal({ kind: 'value', value: 'PENDING_CREATE' });
    const pool = await demo.octavia.getPool(lb.pools[1]?.id as string);
    expect(pool.healthMonitorId.kind).to.equal('value');
    expect((await demo.octavia.getHealthMonitor(pool.healthMonitorId.kind === 'value' ? pool.healthMonitorId.value ?? '' : '')).type).to.deep.equal({ kind: 'value', value: 'UDP-CONNECT' });
    const plain = await demo.octavia.createLoadBalancer({ name: uniqueName('plain-lb'), vipSubnetId: fx.subnetId });
    expect([plain.listeners, plain.pools]).to.deep.equal([[], []]);
  });

  it('a listener with a nested default pool sends it snake_case; Zed (and the simulator) answer 500, a ServerError, nothing created', async () => {
    const name = uniqueName('nested-listener-lb');
    const lb = await demo.octavia.createLoadBalancer({ name, vipSubnetId: fx.subnetId });
    await settle(sim);
    const [https] = fullListeners(name);
    const failed = await rejectionOf(demo.octavia.createListener({ ...(https as FullListenerRequest), loadbalancerId: lb.id }));
    expect(failed).to.be.instanceOf(ServerError);
    expect((failed as ServerError).fault).to.equal("'dict' object has no attribute '_sa_instance_state'");
    const sent = sim.calls({ method: 'POST', pathIncludes: '/lbaas/listeners' }).at(-1)?.body as { listener: Record<string, unknown> };
    expect(sent.listener).to.include({ loadbalancer_id: lb.id, protocol: 'TCP', protocol_port: 443 });
    expect(sent.listener.default_pool).to.include({ name: `${name}-https-pool`, protocol: 'PROXYV2', lb_algorithm: 'ROUND_ROBIN' });
    expect((await demo.octavia.getLoadBalancer(lb.id)).provisioningStatus).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    expect(await demo.octavia.lookupListenerByName(`${name}-https`)).to.equal(undefined);
  });
});
