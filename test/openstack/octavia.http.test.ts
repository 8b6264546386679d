import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { ConsistencyError, Conflict, NotFound } from '../../src/openstack/errors.js';
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
});
