/**
 * Octavia calls of the client layer against real Octavia (amphora provider, no-op compute/amphora drivers,
 * the real Neutron network driver), decoded by Regent's decoders: load balancers (VIP = a real Neutron
 * port), listeners, pools (PROXYV2 at 2.22), members (single and batch), health monitors; "immutable while
 * busy" 409s (held with fault control); exact names and duplicates; a provisioning failure through fault control; cascade delete;
 * the single-call "fully populated" creates (docs/simulator-differences.md §16): a load balancer with two listeners,
 * their pools, members and monitors in one POST (its children stay PENDING_CREATE on Zed, and which later change
 * marks which of them ACTIVE), a refused one (its VIP port is left behind), and a listener with a nested pool (500).
 */
import { expect } from 'chai';
import { BadRequest, ConsistencyError, Conflict, NotFound, ServerError } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { CreatedLoadBalancerObservation, LoadBalancerObservation } from '../../src/openstack/decoders/octavia.js';
import type { CreateLoadBalancerRequest, FullListenerRequest } from '../../src/openstack/octavia/load-balancers.js';
import { expectDecoded } from './support/decoded.js';
import { exactNameRegex } from './support/faults.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';
import { waitFor, waitGone } from './support/wait.js';

/** Seconds the sandbox's amphora `update` is held, so that a child create leaves the LB PENDING_UPDATE long enough to read it. */
const LB_UPDATE_HOLD_S = 3;

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);
const provisioning = (lb: { provisioningStatus: LoadBalancerObservation['provisioningStatus'] }): string =>
  lb.provisioningStatus.kind === 'value' ? lb.provisioningStatus.value : `(${lb.provisioningStatus.kind})`;
const valueOf = <T>(f: { kind: string; value?: T }): T | undefined => (f.kind === 'value' ? f.value : undefined);
/** How long a fully populated create's children are watched after the LB is ACTIVE, to tell "stuck" from "slow". */
const CHILDREN_WATCH_MS = 5_000;

describe('octavia client against real Octavia', function () {
  let run: RealRun;
  let fx: Fixtures;
  let octavia: OpenStackSession['octavia'];

  before(async () => {
    run = await realRun();
    fx = await run.fixtures();
    octavia = run.tenant.octavia;
  });

  /**
   * Each test's load balancers are deleted when the test ends, not at the suite's final cleanup: Octavia makes a
   * Neutron security group per load balancer in the demo project, and keeping this file's dozen alive until the
   * end used up the project's quota of 10 before the differential check's load balancer (it went to ERROR).
   * The suite-end entry stays as the safety net (a load balancer already gone counts as deleted there).
   */
  const endOfTest: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(endOfTest.splice(0).map((remove) => remove().catch((error: unknown) => (error instanceof NotFound ? undefined : console.log(`      left for the final cleanup: ${String(error)}`)))));
  });
  const loadBalancer = async (suffix: string, extra: Partial<CreateLoadBalancerRequest> = {}): Promise<CreatedLoadBalancerObservation> => {
    const name = run.name(suffix);
    const lb = await octavia.createLoadBalancer({ name, vipSubnetId: fx.subnetId, ...extra });
    const remove = async () => {
      await waitFor(`${name} not pending`, () => octavia.getLoadBalancer(lb.id), (x) => !provisioning(x).startsWith('PENDING'), { timeoutMs: 120_000 });
      await octavia.deleteLoadBalancer(lb.id, { cascade: true });
      await waitGone(`load balancer ${name}`, () => octavia.getLoadBalancer(lb.id), { timeoutMs: 120_000 });
    };
    run.cleanup.add(`load balancer ${name}`, remove, 'load-balancers');
    endOfTest.push(remove);
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
  /** TCP 443 → PROXYV2 pool with a TCP monitor, UDP 53 → UDP pool with a UDP-CONNECT monitor, two members each. */
  const fullListeners = (base: string): FullListenerRequest[] => [
    {
      name: `${base}-https`, protocol: 'TCP', protocolPort: 443, allowedCidrs: ['203.0.113.0/24'], timeoutClientData: 300000, timeoutMemberData: 300000,
      defaultPool: {
        name: `${base}-https-pool`, protocol: 'PROXYV2', lbAlgorithm: 'ROUND_ROBIN',
        members: [{ address: '192.0.2.10', protocolPort: 8443, subnetId: fx.subnetId, name: `${base}-https-m1` }, { address: '192.0.2.11', protocolPort: 8443, subnetId: fx.subnetId }],
        healthmonitor: { name: `${base}-https-monitor`, type: 'TCP', delay: 5, timeout: 3, maxRetries: 3 },
      },
    },
    {
      name: `${base}-dns`, protocol: 'UDP', protocolPort: 53,
      defaultPool: {
        name: `${base}-dns-pool`, protocol: 'UDP', lbAlgorithm: 'ROUND_ROBIN',
        members: [{ address: '192.0.2.20', protocolPort: 53, subnetId: fx.subnetId }, { address: '192.0.2.21', protocolPort: 53, subnetId: fx.subnetId }],
        healthmonitor: { name: `${base}-dns-monitor`, type: 'UDP-CONNECT', delay: 5, timeout: 3, maxRetries: 3, maxRetriesDown: 2 },
      },
    },
  ];

  it('fully populated create: two listeners, their pools, monitors and members in one POST; the answer holds every child PENDING_CREATE', async () => {
    const base = run.name('lb-full');
    const t0 = Date.now();
    const lb = await loadBalancer('lb-full', { listeners: fullListeners(base) });
    const postMs = Date.now() - t0;
    expect(provisioning(lb)).to.equal('PENDING_CREATE');
    // Listeners and pools come back as full objects (LoadBalancerFullResponse), not id references.
    expect(lb.listeners.map((l) => [l.name, valueOf(l.protocol), valueOf(l.protocolPort), provisioning(l), valueOf(l.operatingStatus)]))
      .to.have.deep.members([[`${base}-https`, 'TCP', 443, 'PENDING_CREATE', 'OFFLINE'], [`${base}-dns`, 'UDP', 53, 'PENDING_CREATE', 'OFFLINE']]);
    for (const l of lb.listeners) expectDecoded(l, `listener ${l.name ?? ''} in the create answer`, ['loadBalancerIds']);
    expect(lb.listenerIds).to.deep.equal({ kind: 'value', value: lb.listeners.map((l) => l.id) });
    const https = lb.listeners.find((l) => l.name === `${base}-https`);
    expect(https?.allowedCidrs).to.deep.equal({ kind: 'value', value: ['203.0.113.0/24'] });
    expect(https?.timeoutClientData).to.deep.equal({ kind: 'value', value: 300000 });
    expect(lb.pools.map((p) => [p.name, valueOf(p.protocol), provisioning(p), p.members.length])).to.have.deep.members([
      [`${base}-https-pool`, 'PROXYV2', 'PENDING_CREATE', 2], [`${base}-dns-pool`, 'UDP', 'PENDING_CREATE', 2],
    ]);
    for (const l of lb.listeners) {
      const pool = lb.pools.find((p) => p.id === valueOf(l.defaultPoolId));
      expect(pool?.name, `default pool of ${l.name ?? ''}`).to.equal(`${l.name ?? ''}-pool`);
      expect(pool?.listenerIds).to.deep.equal({ kind: 'value', value: [l.id] });
    }
    for (const p of lb.pools) {
      // Zed's full pool: no healthmonitor_id, no loadbalancers, and `healthmonitor: null` although the monitor exists.
      expectDecoded(p, `pool ${p.name ?? ''} in the create answer`, ['healthMonitorId', 'loadBalancerIds']);
      expect(p.healthMonitor, `inline healthmonitor of ${p.name ?? ''}`).to.deep.equal({ kind: 'value', value: null });
      for (const m of p.members) {
        expectDecoded(m, `member ${m.id} in the create answer`);
        expect([provisioning(m), valueOf(m.subnetId)]).to.deep.equal(['PENDING_CREATE', fx.subnetId]);
        // Octavia means OFFLINE for a member of a pool with a monitor; Zed answers NO_MONITOR for the members of the
        // graph's first pool on most runs (OFFLINE on some), OFFLINE for the second's.
        expect(['OFFLINE', 'NO_MONITOR']).to.include(valueOf(m.operatingStatus));
      }
    }
    const https443 = lb.pools.find((p) => p.name === `${base}-https-pool`);
    expect(https443?.members.map((m) => [valueOf(m.address), valueOf(m.protocolPort), m.name])).to.have.deep.members([['192.0.2.10', 8443, `${base}-https-m1`], ['192.0.2.11', 8443, '']]);

    const active = await settled(lb.id);
    const activeMs = Date.now() - t0;
    expect(provisioning(active)).to.equal('ACTIVE');
    const monitors = await Promise.all(lb.pools.map(async (p) => octavia.getHealthMonitor(valueOf((await octavia.getPool(p.id)).healthMonitorId) as string)));
    expect(monitors.map((h) => [h.name, valueOf(h.type), valueOf(h.maxRetriesDown)])).to.have.deep.members([[`${base}-https-monitor`, 'TCP', 3], [`${base}-dns-monitor`, 'UDP-CONNECT', 2]]);
    const children = async (): Promise<string[]> => {
      const listeners = await Promise.all(lb.listeners.map((l) => octavia.getListener(l.id)));
      const pools = await Promise.all(lb.pools.map((p) => octavia.getPool(p.id)));
      const members = (await Promise.all(lb.pools.map((p) => octavia.listMembers(p.id)))).flat();
      const hms = await Promise.all(monitors.map((h) => octavia.getHealthMonitor(h.id)));
      return [...listeners, ...pools, ...members, ...hms].map(provisioning);
    };
    const atActive = await children();
    console.log(`      fully populated create: POST ${postMs} ms, LB ACTIVE after ${activeMs} ms; its 10 children then: ${[...new Set(atActive)].join(', ')}`);
    // Zed: the worker reads the LB before the API commits the children and provisions an empty load balancer, so
    // the children stay PENDING_CREATE (measured on every run). If the API's commit ever wins the race (a slow
    // worker), they are all ACTIVE with the LB instead: either way all ten alike, never a mixture.
    expect(new Set(atActive).size, atActive.join(',')).to.equal(1);
    expect(['ACTIVE', 'PENDING_CREATE']).to.include(atActive[0]);
    if (atActive[0] === 'ACTIVE') {
      console.log('      (the worker saw the children this time: the unseen-children checks below are not asserted; see §16)');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, CHILDREN_WATCH_MS));
    expect(await children(), `children ${CHILDREN_WATCH_MS} ms after the LB went ACTIVE`).to.deep.equal(atActive);
    expect(provisioning(await octavia.getLoadBalancer(lb.id))).to.equal('ACTIVE');

    // Which change marks which child ACTIVE (the simulator models the same, test/simulator/octavia.test.ts):
    const dns = lb.listeners.find((l) => l.name === `${base}-dns`);
    const dnsPool = lb.pools.find((p) => p.name === `${base}-dns-pool`);
    const dnsMonitor = monitors.find((h) => h.name === `${base}-dns-monitor`);
    // a member change needs its pool ACTIVE: 409 on the pool, not the LB;
    const refused = await rejectionOf(octavia.updateMember(https443?.id as string, https443?.members[0]?.id as string, { weight: 5 }));
    expect(refused).to.be.instanceOf(Conflict);
    expect((refused as Conflict).fault).to.equal(`Pool ${https443?.id ?? ''} is immutable and cannot be updated.`);
    // a listener update marks that listener only;
    await octavia.updateListener(https?.id as string, { name: `${base}-https` });
    await settled(lb.id);
    expect([provisioning(await octavia.getListener(https?.id as string)), provisioning(await octavia.getListener(dns?.id as string))]).to.deep.equal(['ACTIVE', 'PENDING_CREATE']);
    // a pool update marks the pool and every listener of the LB, not the pool's monitor or members;
    await octavia.updatePool(dnsPool?.id as string, { name: `${base}-dns-pool` });
    await settled(lb.id);
    expect(provisioning(await octavia.getPool(dnsPool?.id as string))).to.equal('ACTIVE');
    expect(provisioning(await octavia.getListener(dns?.id as string))).to.equal('ACTIVE');
    expect(provisioning(await octavia.getPool(https443?.id as string))).to.equal('PENDING_CREATE');
    expect((await octavia.listMembers(dnsPool?.id as string)).map(provisioning)).to.deep.equal(['PENDING_CREATE', 'PENDING_CREATE']);
    // a monitor update (its pool now ACTIVE) marks the monitor.
    await octavia.updateHealthMonitor(dnsMonitor?.id as string, { delay: 6 });
    await settled(lb.id);
    expect(provisioning(await octavia.getHealthMonitor(dnsMonitor?.id as string))).to.equal('ACTIVE');
    expect((await octavia.listMembers(dnsPool?.id as string)).map(provisioning)).to.deep.equal(['PENDING_CREATE', 'PENDING_CREATE']);
  });

  it('a fully populated create refused in its graph is a 400 and leaves its VIP port in Neutron (no load balancer)', async () => {
    const base = run.name('lb-full-bad');
    const octaviaPorts = async (): Promise<string[]> => (await run.tenant.neutron.listPorts({ network_id: fx.networkId, device_owner: 'Octavia' })).map((p) => p.id);
    const before = new Set(await octaviaPorts());
    const listeners = fullListeners(base);
    const dns = listeners[1];
    if (dns?.defaultPool?.healthmonitor) dns.defaultPool.healthmonitor.type = 'PING';
    const refused = await rejectionOf(octavia.createLoadBalancer({ name: base, vipSubnetId: fx.subnetId, listeners }));
    const leaked = (await octaviaPorts()).filter((id) => !before.has(id));
    for (const id of leaked) run.cleanup.add(`VIP port ${id} left by a refused create`, () => run.tenant.neutron.deletePort(id));
    expect(refused).to.be.instanceOf(BadRequest);
    // Zed prints the pool object where the protocol belongs ("… protocol is <octavia.common.data_models.Pool object
    // at 0x7f…>, so …"; the single create says "UDP"); the client's fault cleanup drops it as a tag.
    expect((refused as BadRequest).fault).to.equal('Validation failure: The associated pool protocol is , so only a UDP-CONNECT/SCTP/TCP/HTTP health monitor is supported.');
    expect(await octavia.lookupLoadBalancerByName(base)).to.equal(undefined);
    expect(leaked, 'VIP ports left behind').to.have.length(1);
    const port = await run.tenant.neutron.getPort(leaked[0] as string);
    expect(port.name).to.match(/^octavia-lb-[0-9a-f-]{36}$/);
    expect(await rejectionOf(octavia.getLoadBalancer(port.name.replace(/^octavia-lb-/, '')))).to.be.instanceOf(NotFound);
    await run.tenant.neutron.deletePort(port.id);
  });

  it('a listener created with a nested default pool: 409 while the LB is busy, else 500 and nothing created (Zed)', async () => {
    const lb = await loadBalancer('lb-full-listener');
    await settled(lb.id);
    const base = run.name('lb-full-listener');
    const [https] = fullListeners(base);
    const request = { ...(https as FullListenerRequest), loadbalancerId: lb.id };
    if (run.faults) {
      run.faults.set('octavia', { delay: { update: LB_UPDATE_HOLD_S } });
      await octavia.createListener({ name: `${base}-plain`, loadbalancerId: lb.id, protocol: 'TCP', protocolPort: 80 });
      const busy = await rejectionOf(octavia.createListener(request));
      run.faults.reset();
      expect(busy).to.be.instanceOf(Conflict);
      expect((busy as Conflict).fault).to.equal(`Load Balancer ${lb.id} is immutable and cannot be updated.`);
      await settled(lb.id);
    }
    const failed = await rejectionOf(octavia.createListener(request));
    expect(failed).to.be.instanceOf(ServerError);
    expect((failed as ServerError).fault).to.equal("'dict' object has no attribute '_sa_instance_state'");
    expect(provisioning(await octavia.getLoadBalancer(lb.id))).to.equal('ACTIVE');
    expect(await octavia.lookupListenerByName(`${base}-https`)).to.equal(undefined);
    expect(await octavia.lookupPoolByName(`${base}-https-pool`)).to.equal(undefined);
  });

  it('a pool created with listener_id and nested members + healthmonitor: 500, nothing created (Zed); pool, batch members, monitor one call each: all ACTIVE', async () => {
    // The LoadBalancer machine's create path (issue 13, machines/load-balancer.ts LB3/LB4) rests on this answer.
    const lb = await loadBalancer('lb-pool');
    await settled(lb.id);
    const base = run.name('lb-pool');
    const listeners = [
      await octavia.createListener({ name: `${base}-https-listener`, loadbalancerId: lb.id, protocol: 'TCP', protocolPort: 443 }),
      await settled(lb.id).then(() => octavia.createListener({ name: `${base}-dns-listener`, loadbalancerId: lb.id, protocol: 'UDP', protocolPort: 53 })),
    ];
    await settled(lb.id);
    const pools = fullListeners(base).map((l) => l.defaultPool as NonNullable<FullListenerRequest['defaultPool']>);
    const http = run.tenant.http('load-balancer');
    // A "fully populated pool": Zed's PoolPOST type takes `members` and `healthmonitor`, the controller hands the
    // dicts to the database layer (as for a listener's nested default_pool): 500, no pool, the listener unchanged.
    for (const [i, pool] of pools.entries()) {
      const { healthmonitor: hm, members = [] } = pool;
      const body = {
        name: pool.name, protocol: pool.protocol, lb_algorithm: 'ROUND_ROBIN', listener_id: listeners[i]?.id,
        members: members.map((m) => ({ address: m.address, protocol_port: m.protocolPort, subnet_id: m.subnetId })),
        healthmonitor: { name: hm?.name, type: hm?.type, delay: hm?.delay, timeout: hm?.timeout, max_retries: hm?.maxRetries },
      };
      const failed = await rejectionOf(http.post('/lbaas/pools', { pool: body }, { 'OpenStack-API-Version': 'load-balancer 2.22' }));
      expect(failed, pool.name).to.be.instanceOf(ServerError);
      expect((failed as ServerError).fault).to.equal("'dict' object has no attribute '_sa_instance_state'");
    }
    await settled(lb.id);
    expect(provisioning(await octavia.getLoadBalancer(lb.id))).to.equal('ACTIVE');
    for (const [i, pool] of pools.entries()) {
      expect(await octavia.lookupPoolByName(pool.name)).to.equal(undefined);
      expect(await octavia.lookupHealthMonitorByName(pool.healthmonitor?.name as string)).to.equal(undefined);
      expect((await octavia.getListener(listeners[i]?.id as string)).defaultPoolId).to.deep.equal({ kind: 'value', value: null });
    }
    // One call at a time, on the same listeners: each change leaves what it made ACTIVE once the LB is.
    for (const [i, spec] of pools.entries()) {
      const listener = listeners[i] as (typeof listeners)[number];
      const pool = await octavia.createPool({ name: spec.name, protocol: spec.protocol, lbAlgorithm: 'ROUND_ROBIN', listenerId: listener.id });
      await settled(lb.id);
      expect(provisioning(await octavia.getPool(pool.id)), `${spec.name} after its create`).to.equal('ACTIVE');
      const l = await octavia.getListener(listener.id);
      expect([provisioning(l), valueOf(l.defaultPoolId)], 'listener_id made it the default pool').to.deep.equal(['ACTIVE', pool.id]);
      await octavia.replaceMembers(pool.id, spec.members ?? []);
      await settled(lb.id);
      const members = await octavia.listMembers(pool.id);
      expect(members.map((m) => [valueOf(m.address), provisioning(m)]), `${spec.name} members after the batch`).to.have.deep.members((spec.members ?? []).map((m) => [m.address, 'ACTIVE']));
      const monitor = await octavia.createHealthMonitor({ ...(spec.healthmonitor as NonNullable<typeof spec.healthmonitor>), poolId: pool.id });
      await settled(lb.id);
      expect(provisioning(await octavia.getHealthMonitor(monitor.id)), `${spec.name} monitor`).to.equal('ACTIVE');
      const after = await octavia.getPool(pool.id);
      expect([provisioning(after), valueOf(after.healthMonitorId)]).to.deep.equal(['ACTIVE', monitor.id]);
      expect((await octavia.listMembers(pool.id)).map(provisioning)).to.deep.equal(['ACTIVE', 'ACTIVE']);
    }
    expect(provisioning(await octavia.getLoadBalancer(lb.id))).to.equal('ACTIVE');
  });
});
