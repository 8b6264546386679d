/**
 * The load-balancer provider (src/provider/load-balancers.ts) under machines/load-balancer.ts, through the
 * real engine and a memory store, against the simulator's Octavia and Neutron over HTTP: what a
 * LoadBalancer controller pass will do, minus the controller (issue 13). Each pass is: observeTopology,
 * one `reconcile` stimulus at the simulator's clock, the engine running whatever the machine decided
 * through `loadBalancerHandlers`. The simulator's Octavia goes PENDING_* → ACTIVE on its manual clock,
 * advanced between passes as `settle(sim)` does. Titles carry the machine's rule labels (LB1…LB14).
 *
 * Most tests start from a topology built by hand through the client (plain creates, one per settle), so
 * they hold whatever LB3/LB4 decide for a missing load balancer or listener; the from-nothing test runs
 * the machine as committed (see its comment).
 */
import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { CallRecord } from '../../src/simulator/calls.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { EffectHandler } from '../../src/engine/engine.js';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import type { Stimulus } from '../../machines/definition.js';
import {
  LB_EFFECTS, loadBalancerName, loadBalancerStream, listenerName, monitorName, poolName, type LoadBalancerStimulus,
} from '../../machines/load-balancer.js';
import { loadBalancerAvailable, loadBalancerListenerStates, loadBalancerObserved } from '../../projections/load-balancer-status.js';
import { floatingIPSubject, monitorTypeFor, poolProtocolFor, type DesiredListener, type DesiredTopology } from '../../machines/load-balancer-topology.js';
import { loadBalancerHandlers, observeTopology } from '../../src/provider/load-balancers.js';
import { NotFound } from '../../src/openstack/errors.js';
import { createFixtures, settle, type Fixtures } from '../openstack/support/fixtures.js';
import { captureLogs, connectAs, fault, simApi, start, type LogCapture } from '../openstack/support/sim.js';

describe('load-balancer provider under the load-balancer machine (simulator over HTTP)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let demo: OpenStackSession;
  let fx: Fixtures;
  let publicNetworkId: string;
  let counter = 0;

  before(async () => {
    sim = await start();
    demo = await connectAs(sim, 'demo');
    fx = await createFixtures(await connectAs(sim, 'admin'), demo);
    publicNetworkId = (await demo.neutron.listNetworks({ name: 'public' }))[0]!.id;
  });
  after(async () => sim.close());
  afterEach(async () => {
    await simApi(sim, 'DELETE', '/faults');
  });

  // ─── the topology ─────────────────────────────────────────────────────────────────────────────────

  const https = (over: Partial<DesiredListener> = {}): DesiredListener => ({
    name: 'https',
    protocol: 'TCP',
    port: 443,
    allowedCIDRs: ['203.0.113.0/24'],
    proxyProtocolV2: true,
    idleTimeouts: { clientDataSeconds: 60, memberDataSeconds: 120 },
    pool: { members: [{ address: '192.0.2.11', port: 8443 }, { address: '192.0.2.12', port: 8443 }], healthMonitor: { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } },
    ...over,
  });
  const dns = (over: Partial<DesiredListener> = {}): DesiredListener => ({
    name: 'dns',
    protocol: 'UDP',
    port: 53,
    allowedCIDRs: [],
    proxyProtocolV2: false,
    pool: { members: [{ address: '192.0.2.11', port: 53 }, { address: '192.0.2.12', port: 53 }], healthMonitor: { delaySeconds: 10, timeoutSeconds: 5, maxRetries: 2, maxRetriesDown: 2 } },
    ...over,
  });
  /** The two-listener topology of issue 13: TCP 443 (PROXYV2, TCP monitor) + UDP 53 (UDP-CONNECT monitor), a floating IP. */
  const twoListener = (lb: string, over: Partial<DesiredTopology> = {}): DesiredTopology => ({
    name: loadBalancerName(lb),
    vipSubnetId: fx.subnetId,
    floatingIP: { wanted: true, networkId: publicNetworkId },
    listeners: [https(), dns()],
    ...over,
  });

  // ─── calls ────────────────────────────────────────────────────────────────────────────────────────

  const mark = () => sim.calls().at(-1)?.seq ?? 0;
  const since = (seq: number): CallRecord[] => sim.calls().filter((c) => c.seq > seq);
  const isOctavia = (c: CallRecord) => c.path.includes('/lbaas/');
  const isNeutron = (c: CallRecord) => c.path.includes('/floatingips') || c.path.includes('/v2.0/');
  const openstack = (calls: CallRecord[]) => calls.filter((c) => isOctavia(c) || isNeutron(c));
  const mutations = (calls: CallRecord[]) => openstack(calls).filter((c) => c.method !== 'GET');
  const summary = (calls: CallRecord[]) => calls.map((c) => `${c.method} ${c.path.replace(/^.*?\/(lbaas|v2\.0)\//, '/')}${c.query ? `?${c.query}` : ''} ${c.status}`);
  const clock = async (): Promise<string> => ((await simApi(sim, 'GET', '/clock')) as { iso: string }).iso;

  // ─── the rig: one LoadBalancer's stream, driven pass by pass ──────────────────────────────────────

  const newEngine = (store: MemoryEventStore, options: { logs?: LogCapture; handlers?: Record<string, EffectHandler> } = {}) =>
    new Engine({ store, registry: createProductRegistry(), handlers: { ...loadBalancerHandlers(demo), ...(options.handlers ?? {}) }, ...(options.logs ? { logger: options.logs.logger } : {}) });

  const rig = (desired: DesiredTopology, options: { logs?: LogCapture; store?: MemoryEventStore; handlers?: Record<string, EffectHandler> } = {}) => {
    const uid = `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
    const store = options.store ?? new MemoryEventStore();
    let engine = newEngine(store, options);
    const stream = loadBalancerStream(uid);
    let spec = desired;
    let deleting = false;
    let generation = 1;
    let passes = 0;
    const outcomes: string[] = [];
    const pass = async () => {
      passes += 1;
      const observed = await observeTopology(demo, spec);
      const stimulus: LoadBalancerStimulus = { type: 'reconcile', source: 'reconciler', generation, deletionRequested: deleting, at: await clock(), desired: spec, observed };
      const decisions = await engine.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor: 'test/load-balancer' });
      for (const d of decisions) if (d.outcome) outcomes.push(d.outcome);
      return decisions.at(-1)!.snapshot;
    };
    /** Passes until `done` (settling the simulator between them), at most `max`. */
    const until = async (done: (value: string) => boolean, max = 30) => {
      let snapshot = await pass();
      for (let i = 1; i < max && !done(JSON.stringify(snapshot.value)); i++) {
        await settle(sim, 1_000);
        snapshot = await pass();
      }
      return snapshot;
    };
    return {
      uid, store, stream, pass, until, outcomes,
      name: desired.name,
      change: (next: DesiredTopology) => {
        spec = next;
        generation += 1;
      },
      spec: () => spec,
      delete: () => void (deleting = true),
      passes: () => passes,
      /** A fresh engine on the same store (a restarted process). */
      restart: (handlers: Record<string, EffectHandler> = {}) => void (engine = newEngine(store, { ...options, handlers })),
      events: async () => (await store.readStream(stream)).map((e) => e.type),
    };
  };
  const provisioned = (value: string) => value === '"provisioned"';

  /** The Octavia load balancer of that exact name (one), with its children. */
  const octaviaOf = async (name: string) => {
    const lbs = (await demo.octavia.listLoadBalancers({ name })).filter((lb) => lb.name === name);
    expect(lbs, `one load balancer named ${name}`).to.have.length(1);
    const lb = lbs[0]!;
    const listeners = (await demo.octavia.listListeners()).filter((l) => l.loadBalancerIds.kind === 'value' && l.loadBalancerIds.value.includes(lb.id));
    const pools = (await demo.octavia.listPools()).filter((p) => p.loadBalancerIds.kind === 'value' && p.loadBalancerIds.value.includes(lb.id));
    const monitors = (await demo.octavia.listHealthMonitors()).filter((h) => h.poolIds.kind === 'value' && h.poolIds.value.some((id) => pools.some((p) => p.id === id)));
    return { lb, listeners, pools, monitors };
  };
  const byName = <T extends { name: string | null }>(items: readonly T[], name: string): T => {
    const found = items.filter((x) => x.name === name);
    expect(found, name).to.have.length(1);
    return found[0]!;
  };
  const value = <T>(field: { kind: string; value?: T }): T | undefined => (field.kind === 'value' ? field.value : undefined);

  /**
   * The desired topology built by hand through the client, one plain create per settle (as an operator or
   * an earlier Regent would have left it): the load balancer, then per listener the listener, its pool on
   * it, the members, the monitor; then the floating IP when wanted.
   */
  const build = async (desired: DesiredTopology): Promise<void> => {
    const lbName = desired.name;
    const lb = await demo.octavia.createLoadBalancer({ name: lbName, vipSubnetId: desired.vipSubnetId });
    await settle(sim, 1_000);
    for (const l of desired.listeners) {
      const listener = await demo.octavia.createListener({
        name: `${lbName}-${l.name}-listener`, loadbalancerId: lb.id, protocol: l.protocol, protocolPort: l.port,
        ...(l.allowedCIDRs.length > 0 ? { allowedCidrs: l.allowedCIDRs } : {}),
        ...(l.idleTimeouts?.clientDataSeconds !== undefined ? { timeoutClientData: l.idleTimeouts.clientDataSeconds * 1000 } : {}),
        ...(l.idleTimeouts?.memberDataSeconds !== undefined ? { timeoutMemberData: l.idleTimeouts.memberDataSeconds * 1000 } : {}),
      });
      await settle(sim, 1_000);
      const pool = await demo.octavia.createPool({ name: `${lbName}-${l.name}-pool`, protocol: poolProtocolFor(l), lbAlgorithm: 'ROUND_ROBIN', listenerId: listener.id });
      await settle(sim, 1_000);
      if (l.pool.members.length > 0) {
        await demo.octavia.replaceMembers(pool.id, l.pool.members.map((m) => ({ address: m.address, protocolPort: m.port })));
        await settle(sim, 1_000);
      }
      const m = l.pool.healthMonitor;
      if (m) {
        await demo.octavia.createHealthMonitor({
          name: `${lbName}-${l.name}-monitor`, poolId: pool.id, type: monitorTypeFor(l), delay: m.delaySeconds, timeout: m.timeoutSeconds, maxRetries: m.maxRetries, maxRetriesDown: m.maxRetriesDown ?? 3,
        });
        await settle(sim, 1_000);
      }
    }
    if (desired.floatingIP.wanted) {
      const vipPortId = value((await demo.octavia.getLoadBalancer(lb.id)).vipPortId) as string;
      await demo.neutron.createFloatingIp({ floating_network_id: desired.floatingIP.networkId, port_id: vipPortId });
    }
  };

  /** A built topology the machine has read as provisioned (one pass, nothing sent). */
  const converged = async (desired: DesiredTopology, options: Parameters<typeof rig>[1] = {}) => {
    await build(desired);
    const r = rig(desired, options);
    const seq = mark();
    const snapshot = await r.pass();
    expect(JSON.stringify(snapshot.value), `${desired.name} adopted as built: ${r.outcomes.join(', ')}`).to.equal('"provisioned"');
    expect(mutations(since(seq)), 'nothing sent for a converged topology').to.deep.equal([]);
    return r;
  };

  // ─── LB3: from nothing ────────────────────────────────────────────────────────────────────────────

  it('LB3/LB9/LB10 the two-listener topology (TCP 443 PROXYV2 + TCP monitor, UDP 53 + UDP-CONNECT monitor, a floating IP) from nothing to Provisioned: passes and calls counted', async () => {
    const lbLabel = `two-${process.pid}`;
    const desired = twoListener(lbLabel);
    const r = rig(desired);
    const seq = mark();
    const snapshot = await r.until(provisioned, 40);
    const calls = openstack(since(seq));
    const muts = mutations(calls);
    const lbCreate = muts.find((c) => c.method === 'POST' && c.path.endsWith('/lbaas/loadbalancers'));
    // 1 s of simulator clock between passes: every change Octavia took has settled by the next pass
    console.log(`      LB two-listener: ${r.passes()} passes, ${calls.length} calls (${muts.length} mutations)`);
    console.log(`        ${summary(muts).join('\n        ')}`);
    // the load balancer alone: a nested create never settles on Zed (§16)
    expect((lbCreate?.body as { loadbalancer?: Record<string, unknown> } | undefined)?.loadbalancer).to.not.have.property('listeners');
    expect(JSON.stringify(snapshot.value), r.outcomes.join(', ')).to.equal('"provisioned"');
    expect(loadBalancerAvailable(snapshot)).to.deep.include({ status: 'True', reason: 'Provisioned' });
    // one object per pass (LB3/LB4, LB6, LB7, LB9), never a nested create, nothing refused
    expect(summary(muts).map((x) => x.replace(/[0-9a-f-]{36}/g, 'ID'))).to.deep.equal([
      'POST /loadbalancers 201',
      'POST /listeners 201', 'POST /pools 201', 'PUT /pools/ID/members 202', 'POST /healthmonitors 201',
      'POST /listeners 201', 'POST /pools 201', 'PUT /pools/ID/members 202', 'POST /healthmonitors 201',
      'POST /floatingips 201',
    ]);
    expect(lbCreate?.body).to.deep.equal({ loadbalancer: { name: desired.name, vip_subnet_id: fx.subnetId } });
    expect(muts.filter((c) => c.status === 409 || c.status >= 500), 'no refused or failed mutation').to.deep.equal([]);
    // LB10: PROXYV2 under 2.22, UDP-CONNECT on the UDP pool, no idle timeouts on the UDP listener
    const { lb, listeners, pools, monitors } = await octaviaOf(desired.name);
    expect(value(byName(pools, poolName(lbLabel, 'https')).protocol)).to.equal('PROXYV2');
    expect(value(byName(pools, poolName(lbLabel, 'dns')).protocol)).to.equal('UDP');
    expect(value(byName(monitors, monitorName(lbLabel, 'https')).type)).to.equal('TCP');
    expect(value(byName(monitors, monitorName(lbLabel, 'dns')).type)).to.equal('UDP-CONNECT');
    const httpsListener = byName(listeners, listenerName(lbLabel, 'https'));
    expect([value(httpsListener.timeoutClientData), value(httpsListener.timeoutMemberData), value(httpsListener.allowedCidrs)]).to.deep.equal([60_000, 120_000, ['203.0.113.0/24']]);
    const proxyPosts = muts.filter((c) => c.method === 'POST' && JSON.stringify(c.body ?? {}).includes('PROXYV2'));
    expect(proxyPosts.length).to.be.greaterThan(0);
    for (const c of proxyPosts) expect(c.versions?.['OpenStack-API-Version']).to.equal('load-balancer 2.22');
    for (const c of muts.filter((x) => x.method === 'POST' && JSON.stringify(x.body ?? {}).includes('"protocol":"UDP"'))) expect(JSON.stringify(c.body)).to.not.match(/timeout_(client|member)_data/);
    // LB9: the floating IP on the VIP port, in status
    const fips = await demo.neutron.listFloatingIps({ port_id: value(lb.vipPortId) as string });
    expect(fips).to.have.length(1);
    expect(loadBalancerObserved(snapshot)).to.deep.include({ loadBalancerID: lb.id, floatingIP: fips[0]!.floating_ip_address });
    expect(loadBalancerListenerStates(snapshot).map((l) => [l.name, l.state])).to.deep.equal([['https', 'Provisioned'], ['dns', 'Provisioned']]);
    for (const x of [lb, ...listeners, ...pools, ...monitors]) expect(value(x.provisioningStatus), x.name ?? x.id).to.equal('ACTIVE');
  });

  it('LB3/LB12 a crash between Octavia\'s 201 and the recorded result adopts rather than duplicates: a fresh engine on the same store finds exactly one load balancer of that name', async () => {
    const desired = twoListener(`crash-${process.pid}`, { floatingIP: { wanted: false } });
    const real = loadBalancerHandlers(demo)[LB_EFFECTS.createLoadBalancer]!;
    const crashing: EffectHandler = async (effect, context) => {
      await real(effect, context);
      throw new Error('SIGKILL: the process died before the result was recorded');
    };
    const r = rig(desired, { handlers: { [LB_EFFECTS.createLoadBalancer]: crashing } });
    const seq = mark();
    let crashed: unknown;
    try {
      await r.pass();
    } catch (error) {
      crashed = error;
    }
    expect(String(crashed)).to.include('SIGKILL');
    expect(await r.events(), 'the decision was recorded, its answer never was').to.deep.equal(['loadBalancer.loadBalancerCreateSubmitted']);
    r.restart();
    await r.pass();
    await settle(sim, 1_000);
    for (let i = 0; i < 6; i++) {
      await r.pass();
      await settle(sim, 1_000);
    }
    const lbCreates = since(seq).filter((c) => c.method === 'POST' && c.path.endsWith('/lbaas/loadbalancers'));
    expect(lbCreates, 'one load-balancer create').to.have.length(1);
    const named = (await demo.octavia.listLoadBalancers({ name: desired.name })).filter((lb) => lb.name === desired.name);
    expect(named, 'exactly one load balancer of that name').to.have.length(1);
    expect(r.outcomes).to.not.include('loadBalancerCreateSubmitted');
  });

  // ─── LB5–LB7: in place ────────────────────────────────────────────────────────────────────────────

  /** Apply a spec change: one mutation pass, then passes until provisioned; what was sent. */
  const converge = async (r: ReturnType<typeof rig>, next: DesiredTopology) => {
    r.change(next);
    const seq = mark();
    const before = r.outcomes.length;
    const snapshot = await r.until(provisioned, 10);
    expect(JSON.stringify(snapshot.value), r.outcomes.slice(before).join(', ')).to.equal('"provisioned"');
    return { muts: mutations(since(seq)), outcomes: r.outcomes.slice(before) };
  };

  it('LB5 allowed CIDRs change in place: one listener update, then Provisioned', async () => {
    const desired = twoListener(`cidr-${process.pid}`);
    const r = await converged(desired);
    const { muts, outcomes } = await converge(r, twoListener(`cidr-${process.pid}`, { listeners: [https({ allowedCIDRs: ['198.51.100.0/24', '203.0.113.0/24'] }), dns({ allowedCIDRs: ['10.0.0.0/8'] })] }));
    expect(summary(muts).map((s) => s.replace(/[0-9a-f-]{36}/g, 'ID'))).to.deep.equal(['PUT /listeners/ID 200', 'PUT /listeners/ID 200']);
    expect(outcomes.filter((o) => o === 'listenerUpdateSubmitted')).to.have.length(2);
    const { listeners } = await octaviaOf(desired.name);
    expect(value(byName(listeners, `${desired.name}-https-listener`).allowedCidrs)).to.have.members(['198.51.100.0/24', '203.0.113.0/24']);
    expect(value(byName(listeners, `${desired.name}-dns-listener`).allowedCidrs)).to.deep.equal(['10.0.0.0/8']);
  });

  it('LB5 TCP idle timeouts change in place (seconds in the spec, milliseconds in Octavia), in the same one update', async () => {
    const desired = twoListener(`idle-${process.pid}`);
    const r = await converged(desired);
    const { muts } = await converge(r, twoListener(`idle-${process.pid}`, { listeners: [https({ idleTimeouts: { clientDataSeconds: 300, memberDataSeconds: 600 } }), dns()] }));
    expect(muts).to.have.length(1);
    expect(muts[0]!.body).to.deep.equal({ listener: { timeout_client_data: 300_000, timeout_member_data: 600_000 } });
    const { listeners } = await octaviaOf(desired.name);
    const l = byName(listeners, `${desired.name}-https-listener`);
    expect([value(l.timeoutClientData), value(l.timeoutMemberData)]).to.deep.equal([300_000, 600_000]);
  });

  it('LB6 members added and removed by address and port: one batch update of the whole set', async () => {
    const desired = twoListener(`members-${process.pid}`);
    const r = await converged(desired);
    const next = https({ pool: { ...https().pool, members: [{ address: '192.0.2.12', port: 8443 }, { address: '192.0.2.13', port: 8443 }] } });
    const { muts } = await converge(r, twoListener(`members-${process.pid}`, { listeners: [next, dns()] }));
    expect(summary(muts).map((s) => s.replace(/[0-9a-f-]{36}/g, 'ID'))).to.deep.equal(['PUT /pools/ID/members 202']);
    expect(muts[0]!.body).to.deep.equal({ members: [{ address: '192.0.2.12', protocol_port: 8443 }, { address: '192.0.2.13', protocol_port: 8443 }] });
    const { pools } = await octaviaOf(desired.name);
    const members = await demo.octavia.listMembers(byName(pools, `${desired.name}-https-pool`).id);
    expect(members.map((m) => `${value(m.address)}:${value(m.protocolPort)}`).sort()).to.deep.equal(['192.0.2.12:8443', '192.0.2.13:8443']);
  });

  it('LB7 health-monitor thresholds change in place (delay, timeout, retries, retries down)', async () => {
    const desired = twoListener(`hm-${process.pid}`);
    const r = await converged(desired);
    const next = dns({ pool: { ...dns().pool, healthMonitor: { delaySeconds: 20, timeoutSeconds: 10, maxRetries: 5, maxRetriesDown: 4 } } });
    const { muts } = await converge(r, twoListener(`hm-${process.pid}`, { listeners: [https(), next] }));
    expect(summary(muts).map((s) => s.replace(/[0-9a-f-]{36}/g, 'ID'))).to.deep.equal(['PUT /healthmonitors/ID 200']);
    const { monitors } = await octaviaOf(desired.name);
    const m = byName(monitors, `${desired.name}-dns-monitor`);
    expect([value(m.delay), value(m.timeout), value(m.maxRetries), value(m.maxRetriesDown), value(m.type)]).to.deep.equal([20, 10, 5, 4, 'UDP-CONNECT']);
  });

  it('LB6 a zero-member pool: built empty it is Provisioned as is; emptied, one batch update with no members', async () => {
    const empty = (l: DesiredListener) => ({ ...l, pool: { ...l.pool, members: [] } });
    const desired = twoListener(`zero-${process.pid}`, { listeners: [empty(https()), dns()] });
    const r = await converged(desired);
    const { muts } = await converge(r, twoListener(`zero-${process.pid}`, { listeners: [empty(https()), empty(dns())] }));
    expect(muts.map((c) => [c.method, c.body])).to.deep.equal([['PUT', { members: [] }]]);
    const { pools } = await octaviaOf(desired.name);
    for (const p of pools) expect(await demo.octavia.listMembers(p.id), p.name ?? '').to.deep.equal([]);
  });

  it('LB4/LB10 a UDP listener with a monitor: the missing pool is created on the listener as UDP, its monitor as UDP-CONNECT; no idle timeouts, no PROXY', async () => {
    const desired: DesiredTopology = { ...twoListener(`udp-${process.pid}`), floatingIP: { wanted: false }, listeners: [dns()] };
    const lb = await demo.octavia.createLoadBalancer({ name: desired.name, vipSubnetId: fx.subnetId });
    await settle(sim, 1_000);
    await demo.octavia.createListener({ name: `${desired.name}-dns-listener`, loadbalancerId: lb.id, protocol: 'UDP', protocolPort: 53 });
    await settle(sim, 1_000);
    const r = rig(desired);
    const seq = mark();
    const snapshot = await r.until(provisioned, 12);
    expect(JSON.stringify(snapshot.value), r.outcomes.join(', ')).to.equal('"provisioned"');
    const muts = mutations(since(seq));
    console.log(`      UDP listener + monitor: ${r.passes()} passes, ${openstack(since(seq)).length} calls (${muts.length} mutations: ${summary(muts).map((s) => s.replace(/[0-9a-f-]{36}/g, 'ID')).join(', ')})`);
    const poolPost = muts.find((c) => c.method === 'POST' && c.path.endsWith('/lbaas/pools'))!;
    expect((poolPost.body as { pool: Record<string, unknown> }).pool).to.include({ protocol: 'UDP', name: `${desired.name}-dns-pool` });
    expect(poolPost.versions?.['OpenStack-API-Version'], 'no 2.22 pin for a UDP pool').to.equal(undefined);
    const { listeners, pools, monitors } = await octaviaOf(desired.name);
    expect(value(pools[0]!.protocol)).to.equal('UDP');
    expect(value(byName(monitors, `${desired.name}-dns-monitor`).type)).to.equal('UDP-CONNECT');
    expect(value(byName(listeners, `${desired.name}-dns-listener`).defaultPoolId)).to.equal(pools[0]!.id);
    for (const c of muts) expect(JSON.stringify(c.body ?? {})).to.not.match(/timeout_client_data|timeout_member_data|PROXY/);
    const members = await demo.octavia.listMembers(pools[0]!.id);
    expect(members.map((m) => `${value(m.address)}:${value(m.protocolPort)}`).sort()).to.deep.equal(['192.0.2.11:53', '192.0.2.12:53']);
  });

  // ─── LB8: prune ───────────────────────────────────────────────────────────────────────────────────

  it('LB8 orphan pruning after a listener is removed: armed first (nothing deleted), then one delete per pass, listener before pool; the pool takes its monitor', async () => {
    const desired = twoListener(`prune-${process.pid}`);
    const r = await converged(desired);
    r.change(twoListener(`prune-${process.pid}`, { listeners: [https()] }));
    const seq = mark();
    const before = r.outcomes.length;
    const armed = await r.pass();
    expect(JSON.stringify(armed.value)).to.equal('"pruning"');
    expect(mutations(since(seq)), 'write-ahead: the arming pass deletes nothing').to.deep.equal([]);
    expect((armed.context as { armed: Array<{ subject: string }> }).armed.map((a) => a.subject)).to.include(`${desired.name}-dns-listener`);
    const snapshot = await r.until(provisioned, 12);
    expect(JSON.stringify(snapshot.value), r.outcomes.slice(before).join(', ')).to.equal('"provisioned"');
    const outcomes = r.outcomes.slice(before);
    expect(outcomes[0]).to.equal('pruneArmed');
    expect(outcomes.indexOf('listenerPruneSubmitted')).to.be.greaterThan(0);
    expect(outcomes.indexOf('poolPruneSubmitted')).to.be.greaterThan(outcomes.indexOf('listenerPruneSubmitted'));
    const deletes = summary(mutations(since(seq))).map((s) => s.replace(/[0-9a-f-]{36}/g, 'ID'));
    expect(deletes).to.deep.equal(['DELETE /listeners/ID 204', 'DELETE /pools/ID 204']);
    const { listeners, pools, monitors } = await octaviaOf(desired.name);
    expect([...listeners, ...pools, ...monitors].map((x) => x.name).sort()).to.deep.equal([`${desired.name}-https-listener`, `${desired.name}-https-monitor`, `${desired.name}-https-pool`]);
    console.log(`      prune one listener: ${r.passes() - 1} passes, ${deletes.length} deletes`);
  });

  // ─── LB1, LB12: PENDING_* and 409 ────────────────────────────────────────────────────────────────

  it('LB12 a 409 storm while PENDING_UPDATE: every 409 is a conflict (a yield), never an error; the update lands once Octavia takes it', async () => {
    const desired = twoListener(`storm-${process.pid}`);
    const logs = captureLogs();
    const r = await converged(desired, { logs });
    await fault(sim, { method: 'PUT', path: '/lbaas/listeners/', status: 409, count: 4, body: { faultstring: 'Load Balancer secret-host-7 is immutable and cannot be updated.' } });
    r.change(twoListener(`storm-${process.pid}`, { listeners: [https({ allowedCIDRs: ['198.51.100.0/24'] }), dns()] }));
    const before = r.outcomes.length;
    const seq = mark();
    for (let i = 0; i < 4; i++) {
      const snapshot = await r.pass();
      expect(JSON.stringify(snapshot.value), r.outcomes.slice(before).join(', ')).to.equal('"provisioning"');
      expect(loadBalancerAvailable(snapshot)).to.deep.include({ status: 'False', reason: 'Provisioning' });
    }
    expect(r.outcomes.slice(before).filter((o) => o === 'conflict')).to.have.length(4);
    expect(r.outcomes).to.not.include('rejected');
    const snapshot = await r.until(provisioned, 6);
    expect(JSON.stringify(snapshot.value)).to.equal('"provisioned"');
    expect(since(seq).filter((c) => c.method === 'PUT' && c.path.includes('/listeners/')).map((c) => c.status)).to.deep.equal([409, 409, 409, 409, 200]);
    const events = JSON.stringify(await r.store.readStream(r.stream));
    expect(events, "Octavia's text stays out of events").to.not.include('secret-host-7');
    expect(logs.text(), 'it is in the operator log').to.include('secret-host-7');
  });

  it('LB1 a load balancer stuck in PENDING_UPDATE: every pass yields, nothing is sent, nothing errors; ACTIVE again converges', async () => {
    const desired = twoListener(`stuck-${process.pid}`);
    const r = await converged(desired);
    const { lb } = await octaviaOf(desired.name);
    await simApi(sim, 'POST', `/loadbalancers/${lb.id}/state`, { provisioning_status: 'PENDING_UPDATE' });
    r.change(twoListener(`stuck-${process.pid}`, { listeners: [https({ allowedCIDRs: [] }), dns()] }));
    const seq = mark();
    const before = r.outcomes.length;
    for (let i = 0; i < 5; i++) {
      const snapshot = await r.pass();
      expect(JSON.stringify(snapshot.value)).to.equal('"provisioning"');
      expect(loadBalancerAvailable(snapshot)).to.deep.equal({ status: 'False', reason: 'Provisioning', message: 'waiting for Octavia to finish applying a change' });
      await settle(sim, 60_000);
    }
    expect(r.outcomes.slice(before)).to.deep.equal(Array(5).fill('pendingYield'));
    expect(mutations(since(seq))).to.deep.equal([]);
    await simApi(sim, 'POST', `/loadbalancers/${lb.id}/state`, { provisioning_status: 'ACTIVE' });
    expect(JSON.stringify((await r.until(provisioned, 6)).value)).to.equal('"provisioned"');
  });

  it('LB1 an unknown provisioning status is a consistency error: parked, nothing sent, the status word not echoed', async () => {
    const desired = twoListener(`unknown-${process.pid}`);
    const r = await converged(desired);
    const { lb } = await octaviaOf(desired.name);
    await simApi(sim, 'POST', `/loadbalancers/${lb.id}/state`, { provisioning_status: 'DEGRADED_SOMEHOW' });
    const observed = await observeTopology(demo, desired);
    expect(observed.loadBalancer).to.deep.include({ kind: 'present', provisioningStatus: 'DEGRADED_SOMEHOW' });
    const seq = mark();
    const snapshot = await r.pass();
    expect(JSON.stringify(snapshot.value)).to.equal('"inconsistent"');
    const available = loadBalancerAvailable(snapshot);
    expect(available).to.deep.include({ status: 'False', reason: 'ConsistencyError' });
    expect(available.message).to.include('does not recognize').and.not.include('DEGRADED_SOMEHOW');
    expect(mutations(since(seq))).to.deep.equal([]);
    await simApi(sim, 'POST', `/loadbalancers/${lb.id}/state`, { provisioning_status: 'ACTIVE' });
    expect(JSON.stringify((await r.pass()).value), 'a clean pass leaves inconsistent').to.equal('"provisioned"');
  });

  // ─── LB15: the endpoint ───────────────────────────────────────────────────────────────────────────

  /** Floating-IP lookups in `calls`, and those among them sent with an empty port_id. */
  const fipLookups = (calls: CallRecord[]) => calls.filter((c) => c.method === 'GET' && c.path.endsWith('/floatingips'));
  const emptyPortLookups = (calls: CallRecord[]) => fipLookups(calls).filter((c) => new URLSearchParams(c.query).get('port_id')?.trim() === '');

  /**
   * A converged topology that the cloud then shows with an unusable endpoint (`spoil`), over two passes:
   * parked with `message`, nothing sent, nothing published, no floating-IP lookup with an empty port id;
   * then `mend` (the cloud consistent again) and the next pass is Provisioned again, with nothing sent.
   */
  const parksThenRecovers = async (label: string, spoil: (lb: { id: string; vipAddress: string; vipPortId: string }, fipId: string) => Promise<unknown>, message: (lb: { name: string; vipPortId: string }, fipId: string) => string, mend: (lb: { id: string; vipAddress: string; vipPortId: string }, fipId: string) => Promise<unknown>, lookups: 'none' | 'one') => {
    const desired = twoListener(`${label}-${process.pid}`);
    const r = await converged(desired);
    const good = loadBalancerObserved(await r.pass());
    const { lb } = await octaviaOf(desired.name);
    const facts = { id: lb.id, vipAddress: value(lb.vipAddress) as string, vipPortId: value(lb.vipPortId) as string };
    expect(good).to.deep.include({ vipAddress: facts.vipAddress });
    expect(good.floatingIP).to.match(/^172\.24\.4\./);
    const fipId = (await demo.neutron.listFloatingIps({ port_id: facts.vipPortId }))[0]!.id;
    await spoil(facts, fipId);
    const seq = mark();
    for (let i = 0; i < 2; i++) {
      const snapshot = await r.pass();
      expect(JSON.stringify(snapshot.value), r.outcomes.join(', ')).to.equal('"inconsistent"');
      expect(loadBalancerAvailable(snapshot)).to.deep.equal({ status: 'False', reason: 'ConsistencyError', message: message({ name: desired.name, vipPortId: facts.vipPortId }, fipId) });
      expect(loadBalancerObserved(snapshot), 'nothing published as the endpoint, not even the last good one').to.deep.include({ vipAddress: null, floatingIP: null });
      await settle(sim, 60_000);
    }
    const calls = since(seq);
    expect(mutations(calls), 'nothing sent').to.deep.equal([]);
    expect(emptyPortLookups(calls), 'never a floating-IP lookup with an empty port_id').to.deep.equal([]);
    expect(fipLookups(calls).length, 'floating-IP lookups: one per pass, or none without a usable VIP port id').to.equal(lookups === 'none' ? 0 : 2);
    await mend(facts, fipId);
    const back = mark();
    const recovered = await r.pass();
    expect(JSON.stringify(recovered.value), 'recovered with no human action on Regent').to.equal('"provisioned"');
    expect(loadBalancerObserved(recovered)).to.deep.include({ vipAddress: good.vipAddress, floatingIP: good.floatingIP });
    expect(mutations(since(back))).to.deep.equal([]);
    return r;
  };
  const forceLb = (id: string, body: Record<string, unknown>) => simApi(sim, 'POST', `/loadbalancers/${id}/state`, body);
  const restoreVip = (lb: { id: string; vipAddress: string; vipPortId: string }) => forceLb(lb.id, { vip_address: lb.vipAddress, vip_port_id: lb.vipPortId });

  it("LB15 an ACTIVE load balancer with VIP address '': a consistency error naming it, nothing sent or published; recovers once Octavia reports the address", async () => {
    await parksThenRecovers('vip-empty', (lb) => forceLb(lb.id, { vip_address: '' }), (lb) => `Octavia reports load balancer ${lb.name} ACTIVE with VIP address ''`, restoreVip, 'one');
  });

  it('LB15 an ACTIVE load balancer whose VIP address is not an IP address (v4 or v6): a consistency error naming it; recovers', async () => {
    await parksThenRecovers('vip-junk', (lb) => forceLb(lb.id, { vip_address: '10.0.0.300' }), (lb) => `Octavia reports load balancer ${lb.name} ACTIVE with VIP address '10.0.0.300' (not an IP address)`, restoreVip, 'one');
    await parksThenRecovers('vip-junk6', (lb) => forceLb(lb.id, { vip_address: '2001:db8::5::1' }), (lb) => `Octavia reports load balancer ${lb.name} ACTIVE with VIP address '2001:db8::5::1' (not an IP address)`, restoreVip, 'one');
  });

  it("LB15 an ACTIVE load balancer with VIP port id '': a consistency error naming it, and no floating-IP lookup is sent at all; recovers", async () => {
    const desired = twoListener(`port-observe-${process.pid}`, { floatingIP: { wanted: false } });
    await build(desired);
    const { lb } = await octaviaOf(desired.name);
    await forceLb(lb.id, { vip_port_id: '' });
    const seq = mark();
    const observed = await observeTopology(demo, desired);
    expect(observed.loadBalancer).to.deep.include({ kind: 'present', vipPortId: '' });
    expect(observed).to.not.have.property('floatingIP');
    expect(fipLookups(since(seq))).to.deep.equal([]);
    await parksThenRecovers('port-empty', (x) => forceLb(x.id, { vip_port_id: '' }), (x) => `Octavia reports load balancer ${x.name} ACTIVE with VIP port id ''`, restoreVip, 'none');
  });

  it('LB15 two floating IPs on the VIP port: a consistency error naming both, neither published nor released (wanted or not); one released by hand and it recovers', async () => {
    let second = '';
    const r = await parksThenRecovers(
      'fip-two',
      async (lb) => {
        // a second fixed IP on the VIP port carries a second floating IP (Neutron allows one per fixed IP)
        const port = await demo.neutron.getPort(lb.vipPortId);
        const updated = await demo.neutron.updatePort(lb.vipPortId, { fixed_ips: [...(port.fixed_ips ?? []), { subnet_id: fx.subnetId }] });
        const extra = (updated.fixed_ips ?? []).find((f) => f.ip_address !== lb.vipAddress)!.ip_address;
        second = (await demo.neutron.createFloatingIp({ floating_network_id: publicNetworkId, port_id: lb.vipPortId, fixed_ip_address: extra })).id;
      },
      (lb) => {
        const fips = [...sim.control.sim.neutron.floatingIps.values()].filter((f) => f.portId === lb.vipPortId).sort((a, b) => (a.id < b.id ? -1 : 1));
        return `Neutron reports 2 floating IPs on VIP port ${lb.vipPortId} of load balancer ${lb.name}: ${fips.map((f) => `${f.id} ('${f.floatingIpAddress}')`).join(', ')}`;
      },
      async () => demo.neutron.deleteFloatingIp(second),
      'one',
    );
    expect(r.outcomes).to.include('floatingIPUnusable');
  });

  it("LB15 one floating IP whose address is '' or not an IP address: a consistency error naming it, nothing published; recovers once Neutron reports an address", async () => {
    for (const address of ['', 'fip.example']) {
      let original = '';
      await parksThenRecovers(
        `fip-${address === '' ? 'empty' : 'junk'}`,
        async (_lb, fipId) => {
          original = (sim.control.sim.neutron.floatingIps.get(fipId)!).floatingIpAddress;
          await simApi(sim, 'POST', `/floatingips/${fipId}/state`, { floating_ip_address: address });
        },
        (lb, fipId) => `Neutron reports floating IP ${fipId} on VIP port ${lb.vipPortId} of load balancer ${lb.name} with address '${address}'${address === '' ? '' : ' (not an IP address)'}`,
        async (_lb, fipId) => void (await simApi(sim, 'POST', `/floatingips/${fipId}/state`, { floating_ip_address: original })),
        'one',
      );
    }
  });

  it('LB15/LB14 delete: two floating IPs on the VIP port park it, nothing released or deleted; without a usable VIP port id no lookup is sent and the cascade goes', async () => {
    const desired = twoListener(`del-two-${process.pid}`);
    const r = await converged(desired);
    const { lb } = await octaviaOf(desired.name);
    const vipPortId = value(lb.vipPortId) as string;
    const port = await demo.neutron.getPort(vipPortId);
    const updated = await demo.neutron.updatePort(vipPortId, { fixed_ips: [...(port.fixed_ips ?? []), { subnet_id: fx.subnetId }] });
    const extra = (updated.fixed_ips ?? []).find((f) => f.ip_address !== value(lb.vipAddress))!.ip_address;
    const second = await demo.neutron.createFloatingIp({ floating_network_id: publicNetworkId, port_id: vipPortId, fixed_ip_address: extra });
    r.delete();
    const seq = mark();
    for (let i = 0; i < 3; i++) {
      const snapshot = await r.pass();
      expect(JSON.stringify(snapshot.value)).to.equal('"inconsistent"');
      expect(loadBalancerAvailable(snapshot).message).to.match(/^Neutron reports 2 floating IPs on VIP port /);
      await settle(sim, 60_000);
    }
    expect(mutations(since(seq))).to.deep.equal([]);
    expect(await demo.neutron.listFloatingIps({ port_id: vipPortId })).to.have.length(2);
    await demo.neutron.deleteFloatingIp(second.id);
    await forceLb(lb.id, { vip_port_id: '' });
    const after = mark();
    const snapshot = await r.until((v) => v === '"deleted"', 10);
    expect(JSON.stringify(snapshot.value), r.outcomes.join(', ')).to.equal('"deleted"');
    expect(fipLookups(since(after)), 'no lookup without a usable VIP port id').to.deep.equal([]);
    expect(mutations(since(after)).map((c) => `${c.method} ${c.path.replace(/^.*?\/lbaas\//, '/').replace(/[0-9a-f-]{36}/g, 'ID')}`)).to.deep.equal(['DELETE /loadbalancers/ID']);
  });

  it('a pool deleted between the pool list and its member read (404, seen on real Octavia during a cascade delete) is observed absent, not a failed pass', async () => {
    const desired = twoListener(`vanish-${process.pid}`);
    await converged(desired);
    // the race cannot be staged in the simulator (its reads are atomic): the member read answers as Octavia did
    const racing = { ...demo, octavia: Object.assign(Object.create(demo.octavia) as typeof demo.octavia, { listMembers: async () => { throw new NotFound('load-balancer: not found (HTTP 404) on GET …/members'); } }) };
    const observed = await observeTopology(racing as typeof demo, desired);
    expect(observed.loadBalancer).to.deep.include({ kind: 'present' });
    expect(Object.values(observed.pools ?? {}).every((p) => p.kind === 'absent')).to.equal(true);
  });

  // ─── LB2: names ───────────────────────────────────────────────────────────────────────────────────

  it('LB2 duplicate exact names: two load balancers named lb-{lb} are a consistency error, nothing created or deleted', async () => {
    const desired = twoListener(`dup-${process.pid}`);
    const r = await converged(desired);
    const { lb } = await octaviaOf(desired.name);
    const dup = (await simApi(sim, 'POST', '/duplicate', { kind: 'loadbalancer', id: lb.id })) as { id: string };
    const observed = await observeTopology(demo, desired);
    expect(observed).to.deep.equal({ loadBalancer: { kind: 'duplicate', ids: [lb.id, dup.id].sort() } });
    const seq = mark();
    const snapshot = await r.pass();
    expect(JSON.stringify(snapshot.value)).to.equal('"inconsistent"');
    expect(loadBalancerAvailable(snapshot)).to.deep.include({ status: 'False', reason: 'ConsistencyError', message: `more than one Octavia load balancer is named exactly ${desired.name}` });
    expect(mutations(since(seq))).to.deep.equal([]);
    // a child's name twice (here a second listener of the https listener's exact name) parks too
    const other = twoListener(`dupchild-${process.pid}`, { floatingIP: { wanted: false }, listeners: [https()] });
    const r2 = await converged(other);
    const { lb: lb2 } = await octaviaOf(other.name);
    await demo.octavia.createListener({ name: `${other.name}-https-listener`, loadbalancerId: lb2.id, protocol: 'TCP', protocolPort: 8443 });
    await settle(sim, 1_000);
    const seq2 = mark();
    const parked = await r2.pass();
    expect(JSON.stringify(parked.value)).to.equal('"inconsistent"');
    expect(loadBalancerAvailable(parked).message).to.include(`${other.name}-https-listener`);
    expect(mutations(since(seq2))).to.deep.equal([]);
  });

  // ─── LB14: delete ─────────────────────────────────────────────────────────────────────────────────

  it('LB14 delete with a floating IP: armed, the floating IP released first, then one cascade delete, then absent', async () => {
    const desired = twoListener(`delete-${process.pid}`);
    const r = await converged(desired);
    const { lb } = await octaviaOf(desired.name);
    const vipPortId = value(lb.vipPortId) as string;
    expect(await demo.neutron.listFloatingIps({ port_id: vipPortId })).to.have.length(1);
    r.delete();
    const seq = mark();
    const before = r.outcomes.length;
    const armed = await r.pass();
    expect(JSON.stringify(armed.value)).to.equal('{"deleting":"armed"}');
    expect(mutations(since(seq)), 'write-ahead: the arming pass deletes nothing').to.deep.equal([]);
    const snapshot = await r.until((v) => v === '"deleted"', 10);
    expect(JSON.stringify(snapshot.value), r.outcomes.slice(before).join(', ')).to.equal('"deleted"');
    const deletes = mutations(since(seq)).map((c) => `${c.method} ${c.path.replace(/^.*?\/(lbaas|v2\.0)\//, '/').replace(/[0-9a-f-]{36}/g, 'ID')}${c.query ? `?${c.query}` : ''} ${c.status}`);
    expect(deletes).to.deep.equal(['DELETE /floatingips/ID 204', 'DELETE /loadbalancers/ID?cascade=true 204']);
    expect(r.outcomes.slice(before)).to.include.members(['deleteArmed', 'floatingIPReleaseSubmitted', 'deleteSubmitted', 'deleted']);
    expect((await demo.octavia.listLoadBalancers({ name: desired.name })).filter((x) => x.name === desired.name)).to.deep.equal([]);
    expect(await demo.neutron.listFloatingIps({ port_id: vipPortId })).to.deep.equal([]);
    expect(await observeTopology(demo, desired)).to.deep.equal({ loadBalancer: { kind: 'absent' } });
  });

  // ─── handler answers ──────────────────────────────────────────────────────────────────────────────

  it('handlers: a refusal is rejected with the status and Regent\'s reason only, no answer is outcomeUnknown, a 404 on a delete is accepted; every result echoes effect and subject', async () => {
    const logs = captureLogs();
    const h = loadBalancerHandlers(demo);
    const context = { logger: logs.logger } as never;
    const subject = `lb-handlers-${process.pid}`;
    const create = { type: LB_EFFECTS.createLoadBalancer, subject, name: subject, vipSubnetId: 'no-such-subnet', listeners: [] };
    expect(await h[LB_EFFECTS.createLoadBalancer]!(create, context)).to.deep.equal({ type: 'rejected', effect: LB_EFFECTS.createLoadBalancer, subject, status: 400, reason: 'badRequest' });
    expect(logs.text(), "Octavia's text is logged").to.include('no-such-subnet');
    await fault(sim, { method: 'POST', path: '/lbaas/loadbalancers', timeout: true });
    const unknown = await h[LB_EFFECTS.createLoadBalancer]!({ ...create, vipSubnetId: fx.subnetId }, context);
    expect(unknown).to.deep.equal({ type: 'outcomeUnknown', effect: LB_EFFECTS.createLoadBalancer, subject, reason: 'no answer within the client timeout' });
    await fault(sim, { method: 'POST', path: '/floatingips', status: 503 });
    const fipSubject = floatingIPSubject(subject);
    expect(await h[LB_EFFECTS.createFloatingIP]!({ type: LB_EFFECTS.createFloatingIP, subject: fipSubject, floatingNetworkId: publicNetworkId, portId: 'p', description: subject }, context))
      .to.deep.equal({ type: 'outcomeUnknown', effect: LB_EFFECTS.createFloatingIP, subject: fipSubject, reason: 'Neutron answered HTTP 503' });
    for (const [effect, params] of [
      [LB_EFFECTS.deleteListener, { listenerId: '00000000-0000-4000-8000-00000000dead' }],
      [LB_EFFECTS.deletePool, { poolId: '00000000-0000-4000-8000-00000000dead' }],
      [LB_EFFECTS.deleteHealthMonitor, { healthMonitorId: '00000000-0000-4000-8000-00000000dead' }],
      [LB_EFFECTS.deleteLoadBalancer, { loadBalancerId: '00000000-0000-4000-8000-00000000dead', cascade: true }],
      [LB_EFFECTS.deleteFloatingIP, { floatingIPId: '00000000-0000-4000-8000-00000000dead', portId: null }],
    ] as const) {
      expect(await h[effect]!({ type: effect, subject: 'gone', name: 'gone', ...params }, context), effect).to.deep.equal({ type: 'accepted', effect, subject: 'gone' });
    }
    expect(await h[LB_EFFECTS.updateListener]!({ type: LB_EFFECTS.updateListener, subject: 'gone', listenerId: '00000000-0000-4000-8000-00000000dead', name: 'gone', allowedCidrs: null }, context))
      .to.deep.equal({ type: 'rejected', effect: LB_EFFECTS.updateListener, subject: 'gone', status: 404, reason: 'notFound' });
    expect(Object.keys(loadBalancerHandlers(demo)).sort()).to.deep.equal(Object.values(LB_EFFECTS).sort());
  });
  // ─── a workload cluster's API load balancer (issue 29): provider, tags, hour-long idle timeouts ─────

  /** The cluster's API topology: one TCP listener, allowed CIDRs given out of order, an hour of idle timeout, a TCP monitor. */
  const apiTopology = (lb: string, over: Partial<DesiredTopology> = {}): DesiredTopology => ({
    name: loadBalancerName(lb),
    vipSubnetId: fx.subnetId,
    floatingIP: { wanted: false },
    listeners: [{
      name: 'kube-apiserver', protocol: 'TCP', port: 6443, allowedCIDRs: ['203.0.113.0/24', '192.0.2.0/24', '198.51.100.0/24'], proxyProtocolV2: false,
      idleTimeouts: { clientDataSeconds: 3600, memberDataSeconds: 3600 },
      pool: { members: [{ address: '192.0.2.21', port: 6443 }], healthMonitor: { delaySeconds: 10, timeoutSeconds: 5, maxRetries: 3 } },
    }],
    ...over,
  });

  it('a provider and tags: the load balancer is created with both, its listener and pool with the tags, the monitor untagged; the observation carries the provider; converged passes send nothing (allowed CIDRs compared as a set)', async () => {
    const lbLabel = `api-${process.pid}`;
    const tags = ['captf.io:cluster=demo', 'captf.io:namespace=team-a'];
    const desired = apiTopology(lbLabel, { tags, provider: 'amphora' });
    const r = rig(desired);
    const seq = mark();
    const snapshot = await r.until(provisioned, 30);
    expect(JSON.stringify(snapshot.value), r.outcomes.join(', ')).to.equal('"provisioned"');
    const posts = mutations(since(seq)).filter((c) => c.method === 'POST');
    const bodyOf = (suffix: string) => posts.find((c) => c.path.endsWith(suffix))?.body as Record<string, Record<string, unknown>>;
    expect(bodyOf('/lbaas/loadbalancers')).to.deep.equal({ loadbalancer: { name: desired.name, vip_subnet_id: fx.subnetId, provider: 'amphora', tags } });
    expect(bodyOf('/lbaas/listeners').listener).to.deep.include({ tags, timeout_client_data: 3_600_000, timeout_member_data: 3_600_000, allowed_cidrs: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24'] });
    expect(bodyOf('/lbaas/pools').pool).to.deep.include({ tags, protocol: 'TCP' });
    expect(bodyOf('/lbaas/healthmonitors').healthmonitor).to.not.have.property('tags');
    const { lb, listeners, pools, monitors } = await octaviaOf(desired.name);
    expect(value(lb.tags)).to.deep.equal(tags);
    expect(value(byName(listeners, listenerName(lbLabel, 'kube-apiserver')).timeoutClientData)).to.equal(3_600_000);
    expect(value(byName(monitors, monitorName(lbLabel, 'kube-apiserver')).type)).to.equal('TCP');
    expect(pools).to.have.length(1);
    const observed = await observeTopology(demo, desired);
    expect(observed.loadBalancer).to.deep.include({ kind: 'present', id: lb.id, provider: 'amphora' });
    // Octavia answers the CIDRs in its own order (sorted, as real Octavia does): no update loop
    const again = mark();
    await r.pass();
    await r.pass();
    expect(mutations(since(again))).to.deep.equal([]);
  });

  it('provider null is the cloud\'s default: no provider is sent (nor tags when the topology has none); Octavia reports the one it chose', async () => {
    const lbLabel = `api-default-${process.pid}`;
    const desired = apiTopology(lbLabel, { provider: null, listeners: [] });
    const r = rig(desired);
    const seq = mark();
    await r.until(provisioned, 10);
    const create = mutations(since(seq)).find((c) => c.method === 'POST' && c.path.endsWith('/lbaas/loadbalancers'));
    expect(create?.body).to.deep.equal({ loadbalancer: { name: desired.name, vip_subnet_id: fx.subnetId } });
    expect((await observeTopology(demo, desired)).loadBalancer).to.deep.include({ kind: 'present', provider: 'amphora' });
  });
});
