/**
 * Octavia calls of the client layer against real Octavia (amphora provider, no-op compute/amphora drivers,
 * the real Neutron network driver), decoded by Regent's decoders: load balancers (VIP = a real Neutron
 * port), listeners, pools (PROXYV2 at 2.22), members (single and batch), health monitors; "immutable while
 * busy" 409s (held with fault control); exact names and duplicates; a provisioning failure through fault control; cascade delete.
 */
import { expect } from 'chai';
import { ConsistencyError, Conflict, NotFound } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { LoadBalancerObservation } from '../../src/openstack/decoders/octavia.js';
import { expectDecoded } from './support/decoded.js';
import { exactNameRegex } from './support/faults.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';
import { waitFor, waitGone } from './support/wait.js';

/** Seconds the sandbox's amphora `update` is held, so that a child create leaves the LB PENDING_UPDATE long enough to read it. */
const LB_UPDATE_HOLD_S = 3;

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);
const provisioning = (lb: { provisioningStatus: LoadBalancerObservation['provisioningStatus'] }): string =>
  lb.provisioningStatus.kind === 'value' ? lb.provisioningStatus.value : `(${lb.provisioningStatus.kind})`;

describe('octavia client against real Octavia', function () {
  let run: RealRun;
  let fx: Fixtures;
  let octavia: OpenStackSession['octavia'];

  before(async () => {
    run = await realRun();
    fx = await run.fixtures();
    octavia = run.tenant.octavia;
  });

  const loadBalancer = async (suffix: string): Promise<LoadBalancerObservation> => {
    const name = run.name(suffix);
    const lb = await octavia.createLoadBalancer({ name, vipSubnetId: fx.subnetId });
    run.cleanup.add(`load balancer ${name}`, async () => {
      await waitFor(`${name} not pending`, () => octavia.getLoadBalancer(lb.id), (x) => !provisioning(x).startsWith('PENDING'), { timeoutMs: 120_000 });
      await octavia.deleteLoadBalancer(lb.id, { cascade: true });
      await waitGone(`load balancer ${name}`, () => octavia.getLoadBalancer(lb.id), { timeoutMs: 120_000 });
    }, 'load-balancers');
    return lb;
  };
  const settled = (id: string) => waitFor(`load balancer ${id} settled`, () => octavia.getLoadBalancer(id), (lb) => !provisioning(lb).startsWith('PENDING'), { timeoutMs: 120_000, intervalMs: 300 });

  it('create: PENDING_CREATE → ACTIVE, OFFLINE without a health manager; the VIP is a real Neutron port on the subnet; exact find', async () => {
    const lb = await loadBalancer('lb');
    expect(provisioning(lb)).to.equal('PENDING_CREATE');
    const active = await settled(lb.id);
    expect(provisioning(active)).to.equal('ACTIVE');
    expectDecoded(active, 'ACTIVE load balancer');
    expect(active.operatingStatus.kind).to.equal('value');
    expect(active.vipSubnetId).to.deep.equal({ kind: 'value', value: fx.subnetId });
    const portId = active.vipPortId.kind === 'value' ? active.vipPortId.value : null;
    const port = await run.tenant.neutron.getPort(portId as string);
    expect(port.fixed_ips?.[0]?.subnet_id).to.equal(fx.subnetId);
    expect(active.vipAddress).to.deep.equal({ kind: 'value', value: port.fixed_ips?.[0]?.ip_address });
    expect((await octavia.findLoadBalancerByName(run.name('lb'))).id).to.equal(lb.id);
    expect(await octavia.lookupLoadBalancerByName(run.name('lb-none'))).to.equal(undefined);
  });

  it('the full topology converges; a change while PENDING_UPDATE is a 409 "immutable"; updates, batch members and child deletes settle', async () => {
    const lb = await loadBalancer('lb-topo');
    await settled(lb.id);
    const base = run.name('lb-topo');
    // The sandbox's worker finishes a listener create in about 0.25 s, so the read and the refused change below
    // race it unless the amphora update is held (issue 10, item 6); without fault control they are not asserted.
    run.faults?.set('octavia', { delay: { update: LB_UPDATE_HOLD_S } });
    const listener = await octavia.createListener({ name: `${base}-https-listener`, loadbalancerId: lb.id, protocol: 'TCP', protocolPort: 443, allowedCidrs: ['203.0.113.0/24'], timeoutClientData: 300000, timeoutMemberData: 300000 });
    if (run.faults) {
      expect(provisioning(await octavia.getLoadBalancer(lb.id))).to.equal('PENDING_UPDATE');
      const busy = await rejectionOf(octavia.createPool({ name: `${base}-https-pool`, protocol: 'PROXYV2', lbAlgorithm: 'ROUND_ROBIN', listenerId: listener.id }));
      expect(busy).to.be.instanceOf(Conflict);
      expect((busy as Conflict).fault).to.match(/^Load Balancer [0-9a-f-]{36} is immutable and cannot be updated\.$/);
      run.faults.reset(); // the held update still finishes; later changes run at full speed
    } else {
      console.log('      (no fault control: the PENDING_UPDATE read and its 409 are not asserted, they would race the worker)');
    }
    await settled(lb.id);

    const pool = await octavia.createPool({ name: `${base}-https-pool`, protocol: 'PROXYV2', lbAlgorithm: 'ROUND_ROBIN', listenerId: listener.id });
    expect(pool.protocol).to.deep.equal({ kind: 'value', value: 'PROXYV2' });
    await settled(lb.id);
    const member = await octavia.createMember(pool.id, { address: '192.0.2.10', protocolPort: 8443, subnetId: fx.subnetId });
    await settled(lb.id);
    const monitor = await octavia.createHealthMonitor({ name: `${base}-https-monitor`, poolId: pool.id, type: 'TCP', delay: 5, timeout: 3, maxRetries: 3 });
    await settled(lb.id);

    const gotListener = await octavia.findListenerByName(`${base}-https-listener`);
    expectDecoded(gotListener, 'listener');
    expect(gotListener.allowedCidrs).to.deep.equal({ kind: 'value', value: ['203.0.113.0/24'] });
    expect(gotListener.defaultPoolId).to.deep.equal({ kind: 'value', value: pool.id });
    expect(gotListener.timeoutClientData).to.deep.equal({ kind: 'value', value: 300000 });
    const gotPool = await octavia.findPoolByName(`${base}-https-pool`);
    expectDecoded(gotPool, 'pool');
    expect(gotPool.healthMonitorId).to.deep.equal({ kind: 'value', value: monitor.id });
    const members = await octavia.listMembers(pool.id);
    expect(members.map((m) => m.id)).to.deep.equal([member.id]);
    expectDecoded(members[0] as object, 'member');
    expect(members[0]?.operatingStatus).to.deep.equal({ kind: 'value', value: 'NO_MONITOR' });
    expectDecoded(await octavia.findHealthMonitorByName(`${base}-https-monitor`), 'health monitor');

    await octavia.updateListener(listener.id, { allowedCidrs: ['198.51.100.0/24', '203.0.113.0/24'] });
    await settled(lb.id);
    expect((await octavia.getListener(listener.id)).allowedCidrs.kind).to.equal('value');
    await octavia.updateHealthMonitor(monitor.id, { delay: 10 });
    await settled(lb.id);
    expect((await octavia.getHealthMonitor(monitor.id)).delay).to.deep.equal({ kind: 'value', value: 10 });
    await octavia.updateMember(pool.id, member.id, { weight: 5 });
    await settled(lb.id);
    expect((await octavia.getMember(pool.id, member.id)).weight).to.deep.equal({ kind: 'value', value: 5 });
    await octavia.updatePool(pool.id, { lb_algorithm: 'LEAST_CONNECTIONS' });
    await settled(lb.id);
    expect((await octavia.getPool(pool.id)).lbAlgorithm).to.deep.equal({ kind: 'value', value: 'LEAST_CONNECTIONS' });
    await octavia.replaceMembers(pool.id, [{ address: '192.0.2.11', protocolPort: 8443, subnetId: fx.subnetId }, { address: '192.0.2.12', protocolPort: 8443, subnetId: fx.subnetId }]);
    await settled(lb.id);
    expect((await octavia.listMembers(pool.id)).map((m) => m.address.kind === 'value' ? m.address.value : '').sort()).to.deep.equal(['192.0.2.11', '192.0.2.12']);

    await octavia.deleteHealthMonitor(monitor.id);
    await settled(lb.id);
    await octavia.deletePool(pool.id);
    await settled(lb.id);
    await octavia.deleteListener(listener.id);
    const after = await settled(lb.id);
    expect(provisioning(after)).to.equal('ACTIVE');
    expect(after.listenerIds).to.deep.equal({ kind: 'value', value: [] });
    expect(await rejectionOf(octavia.getListener(listener.id))).to.be.instanceOf(NotFound);
  });

  it('`name=` is exact; two load balancers with one name are a ConsistencyError', async () => {
    await loadBalancer('lb-twin');
    await loadBalancer('lb-twin');
    await loadBalancer('lb-twin-extra');
    expect((await octavia.listLoadBalancers({ name: run.name('lb-twin') })).every((lb) => lb.name === run.name('lb-twin'))).to.equal(true);
    expect(await rejectionOf(octavia.findLoadBalancerByName(run.name('lb-twin')))).to.be.instanceOf(ConsistencyError);
  });

  it('a provisioning failure through fault control ends in ERROR (the provider treats it as a consistency error)', async function () {
    if (!run.faults) this.skip();
    run.faults?.set('octavia', { fail: { post_vip_plug: exactNameRegex(run.name('lb-fail')) } });
    const lb = await loadBalancer('lb-fail');
    const end = await settled(lb.id);
    expect(provisioning(end)).to.equal('ERROR');
  });

  it('cascade delete: PENDING_DELETE, then 404', async () => {
    const lb = await loadBalancer('lb-delete');
    await settled(lb.id);
    await octavia.createListener({ name: run.name('lb-delete-l'), loadbalancerId: lb.id, protocol: 'TCP', protocolPort: 80 });
    await settled(lb.id);
    await octavia.deleteLoadBalancer(lb.id, { cascade: true });
    const seen: string[] = [];
    await waitGone('load balancer', async () => {
      const x = await octavia.getLoadBalancer(lb.id);
      seen.push(provisioning(x));
      return x;
    }, { timeoutMs: 60_000 });
    expect(seen.every((s) => s === 'PENDING_DELETE' || s === 'DELETED'), seen.join(',')).to.equal(true);
  });
});
