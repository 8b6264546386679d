/**
 * The LoadBalancer machine (machines/load-balancer.ts, rules LB1–LB14) and its provider
 * (src/provider/load-balancers.ts) through the real Engine against the sandbox's real Octavia (amphora
 * provider, no-op compute and amphora drivers, real Neutron VIP ports) — issue 13. The rig of
 * test/provider/load-balancers.test.ts with the simulator replaced by the real cloud: there is no
 * controller yet, so a test plays the LoadBalancer reconciler. Each pass is observeTopology, one `reconcile`
 * stimulus at the wall clock, and the engine running whatever the machine decided through
 * `loadBalancerHandlers`; a pass starts every PASS_INTERVAL_MS.
 *
 * Calls are counted from a session of our own whose logger keeps every `openstack request` line
 * (support/logs.ts), filtered to the `load-balancer` (Octavia) and `network` (Neutron) services; Keystone
 * is not counted. Setup, checks and cleanup go through the run's tenant session, which is not counted.
 *
 * One load balancer is carried through tests 1–4, 6 and 7 (each later test is pending when the one before left
 * it unusable): from nothing to Provisioned, an in-place change, orphan pruning, the immutable-while-pending
 * 409, a second floating IP on its VIP port (LB15), and the delete with its floating IP. Test 5 makes two load balancers of its own under the sandbox's
 * fault control (a slow create and a failed one, side by side).
 *
 * Floating IPs: the sandbox has no external network (its README: the cloud starts empty apart from Octavia's
 * lb-mgmt-net), so `before` makes one as the admin (`router:external`, 198.51.100.0/24), and a router of the
 * tenant between it and a network + subnet of this file's own (192.0.2.0/24, the VIP's): Neutron refuses a
 * floating IP whose port's subnet has no router to the external network (glance-neutron.openstack.ts). The
 * run's fixture subnet is not used, so this file's router interface never meets another file's.
 *
 * Names: the machine names the load balancer `lb-{lb}` with `{lb}` under the run prefix, so its Octavia
 * names (and the floating IP's description, the load balancer's name) start with `lb-<prefix>` and the
 * suite's prefix sweep never sees them. This file removes its own: the floating IPs on its external
 * network, every `lb-<prefix>…` load balancer (cascade, waited until gone), and any VIP port Octavia left
 * on its network (§16: a refused create leaves one); and, before it starts, the same for the `lb-<prefix>`
 * load balancers of killed runs.
 *
 * Measured (three runs, one with the other core busy): nothing → Provisioned in 13–16 passes, 83–103 Octavia and
 * Neutron calls (10 mutations, the simulator's exactly), 13–16 s; the simulator's 10 passes and 66 calls differ
 * only by the passes that find Octavia still PENDING_* (docs/simulator-differences.md §17). The file takes about a
 * minute.
 */
import { expect } from 'chai';
import type { Context } from 'mocha';
import { randomUUID } from 'node:crypto';
import type { AnyMachineSnapshot } from 'xstate';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { BadRequest, Conflict, Forbidden, NotFound } from '../../src/openstack/errors.js';
import { createProductRegistry } from '../../machines/index.js';
import type { Stimulus } from '../../machines/definition.js';
import {
  LB_EFFECTS, loadBalancerName, loadBalancerStream, listenerName, monitorName, poolName, type LoadBalancerStimulus,
} from '../../machines/load-balancer.js';
import { loadBalancerAvailable, loadBalancerListenerStates, loadBalancerObserved } from '../../projections/load-balancer-status.js';
import type { DesiredListener, DesiredTopology, TopologyObservation } from '../../machines/load-balancer-topology.js';
import { loadBalancerHandlers, observeTopology } from '../../src/provider/load-balancers.js';
import { exactNameRegex } from './support/faults.js';
import { captureLogs, type LogCapture, type RequestLine } from './support/logs.js';
import { realRun, type RealRun } from './support/run.js';
import { sweepPrefix } from './support/sweep.js';
import { alive } from './support/volumes.js';
import { sleep, waitFor, waitGone } from './support/wait.js';

/** A pass starts this long after the previous one started (the reconciler's requeue while converging). */
const PASS_INTERVAL_MS = 1_000;
/** Seconds the sandbox holds an amphora `update` (child changes) in the immutable-while-pending test. */
const UPDATE_HOLD_S = 4;
/** Seconds the sandbox holds `post_vip_plug` (a load-balancer create) in the slow-create test. */
const SLOW_CREATE_S = 4;

const valueOf = <T>(f: { kind: string; value?: T }): T | undefined => (f.kind === 'value' ? f.value : undefined);
const status = (x: { provisioningStatus: { kind: string; value?: string } }): string => valueOf(x.provisioningStatus) ?? `(${x.provisioningStatus.kind})`;
const stateOf = (snapshot: Pick<AnyMachineSnapshot, 'value'>): string => JSON.stringify(snapshot.value);
const ids = (s: string): string => s.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID');

interface PassRecord {
  n: number;
  state: string;
  outcomes: string[];
  calls: RequestLine[];
  ms: number;
}

describe('load-balancer machine and provider against real Octavia (issue 13)', function () {
  let run: RealRun;
  let logs: LogCapture;
  /** The tenant, through a session whose requests are counted. */
  let demo: OpenStackSession;
  /** This file's VIP network and subnet, and the external network its floating IPs come from. */
  let net: { networkId: string; subnetId: string };
  let externalNetworkId: string | undefined;
  /** The load balancer tests 1–4, 6 and 7 carry along (undefined once one of them left it unusable). */
  let shared: ReturnType<typeof rig> | undefined;

  const openstack = (lines: readonly RequestLine[]) => lines.filter((l) => l.service === 'load-balancer' || l.service === 'network');
  const mutations = (lines: readonly RequestLine[]) => openstack(lines).filter((l) => l.method !== 'GET');
  const summary = (lines: readonly RequestLine[]) => lines.map((c) => ids(`${c.method} ${c.path.replace(/^.*?\/(lbaas|v2\.0)\//, '/')} ${c.status ?? '-'}`));
  const lbPrefix = (): string => loadBalancerName(run.prefix);

  // ─── the topology of issue 13 ─────────────────────────────────────────────────────────────────────

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
    // UDP-CONNECT: Octavia refuses a delay below 3
    pool: { members: [{ address: '192.0.2.11', port: 53 }, { address: '192.0.2.12', port: 53 }], healthMonitor: { delaySeconds: 10, timeoutSeconds: 5, maxRetries: 2, maxRetriesDown: 2 } },
    ...over,
  });
  const twoListener = (label: string, over: Partial<DesiredTopology> = {}): DesiredTopology => ({
    name: loadBalancerName(label),
    vipSubnetId: net.subnetId,
    floatingIP: externalNetworkId !== undefined ? { wanted: true, networkId: externalNetworkId } : { wanted: false },
    listeners: [https(), dns()],
    ...over,
  });

  // ─── the rig: one LoadBalancer's stream, driven pass by pass against the real cloud ────────────────

  /** `counted`: the session the rig observes and acts through, and its request log (default: `demo`); rigs that run side by side need one each. */
  const rig = (desired: DesiredTopology, counted: { session: OpenStackSession; logs: LogCapture } = { session: demo, logs }) => {
    const { session, logs: log } = counted;
    const uid = randomUUID();
    const store = new MemoryEventStore();
    const engine = new Engine({ store, registry: createProductRegistry(), handlers: loadBalancerHandlers(session), logger: run.logger });
    const stream = loadBalancerStream(uid);
    let spec = desired;
    let deleting = false;
    let generation = 1;
    let lastStart = 0;
    const passes: PassRecord[] = [];
    let snapshot: AnyMachineSnapshot | undefined;
    /** One pass; `observed` replaces the fresh observation (a stale one, test 4). */
    const pass = async (observed?: TopologyObservation): Promise<AnyMachineSnapshot> => {
      const wait = lastStart + PASS_INTERVAL_MS - Date.now();
      if (wait > 0) await sleep(wait);
      lastStart = Date.now();
      const since = log.requests().length;
      const seen = observed ?? (await observeTopology(session, spec));
      const stimulus: LoadBalancerStimulus = { type: 'reconcile', source: 'reconciler', generation, deletionRequested: deleting, at: new Date().toISOString(), desired: spec, observed: seen };
      const decisions = await engine.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor: 'test/load-balancer.openstack' });
      snapshot = decisions.at(-1)?.snapshot as AnyMachineSnapshot;
      passes.push({ n: passes.length + 1, state: stateOf(snapshot), outcomes: decisions.flatMap((d) => (d.outcome ? [d.outcome] : [])), calls: openstack(log.requests().slice(since)), ms: Date.now() - lastStart });
      return snapshot;
    };
    /** Passes until `done(state)`, at most `max`; the passes it made. */
    const until = async (done: (state: string) => boolean, max: number): Promise<PassRecord[]> => {
      const from = passes.length;
      for (let i = 0; i < max; i++) {
        const s = await pass();
        if (done(stateOf(s))) return passes.slice(from);
      }
      throw new Error(`not there after ${max} passes: ${describePasses(passes.slice(from))}`);
    };
    return {
      uid, store, stream, pass, until, passes,
      name: desired.name,
      snapshot: () => snapshot as AnyMachineSnapshot,
      spec: () => spec,
      change: (next: DesiredTopology) => {
        spec = next;
        generation += 1;
      },
      delete: () => void (deleting = true),
      events: async () => (await store.readStream(stream)).map((e) => e.type),
    };
  };
  const describePasses = (ps: readonly PassRecord[]): string =>
    ps.map((p) => `#${p.n} ${p.state} [${p.outcomes.join(', ')}]${mutations(p.calls).length ? ` ${summary(mutations(p.calls)).join(', ')}` : ''}`).join('; ');
  const outcomesOf = (ps: readonly PassRecord[]): string[] => ps.flatMap((p) => p.outcomes);
  const callsOf = (ps: readonly PassRecord[]): RequestLine[] => ps.flatMap((p) => p.calls);
  const isProvisioned = (s: string): boolean => s === '"provisioned"';
  /** LB12: no pass sends more than one mutation (a refused one counts). */
  const expectOneMutationPerPass = (ps: readonly PassRecord[]): void => {
    for (const p of ps) expect(mutations(p.calls).length, `pass ${p.n}: ${summary(mutations(p.calls)).join(', ')}`).to.be.at.most(1);
  };
  /** Every 409 Octavia or Neutron gave was answered as `conflict` (a yield), and nothing was rejected or errored. */
  const expectConflictsYield = (ps: readonly PassRecord[]): number => {
    const conflicts = mutations(callsOf(ps)).filter((c) => c.status === 409).length;
    const outcomes = outcomesOf(ps);
    expect(outcomes.filter((o) => o === 'conflict').length, describePasses(ps)).to.equal(conflicts);
    expect(outcomes.filter((o) => o === 'rejected' || o === 'outcomeUnknown' || o === 'notFound'), describePasses(ps)).to.deep.equal([]);
    return conflicts;
  };

  // ─── the real topology, read through the uncounted session ─────────────────────────────────────────

  const octaviaOf = async (name: string) => {
    const o = run.tenant.octavia;
    const lbs = (await o.listLoadBalancers({ name })).filter((lb) => lb.name === name);
    expect(lbs, `one load balancer named ${name}`).to.have.length(1);
    const lb = lbs[0] as (typeof lbs)[number];
    const listeners = (await o.listListeners({ loadbalancer_id: lb.id })).filter((l) => (valueOf(lb.listenerIds) ?? []).includes(l.id));
    const pools = (await o.listPools({ loadbalancer_id: lb.id })).filter((p) => (valueOf(lb.poolIds) ?? []).includes(p.id));
    const monitors = (await o.listHealthMonitors()).filter((h) => (valueOf(h.poolIds) ?? []).some((id) => pools.some((p) => p.id === id)));
    const members = Object.fromEntries(await Promise.all(pools.map(async (p) => [p.name ?? p.id, await o.listMembers(p.id)] as const)));
    return { lb, listeners, pools, monitors, members };
  };
  const byName = <T extends { name: string | null }>(items: readonly T[], name: string): T => {
    const found = items.filter((x) => x.name === name);
    expect(found.map((x) => x.name), name).to.deep.equal([name]);
    return found[0] as T;
  };
  const addresses = (ms: ReadonlyArray<{ address: { kind: string; value?: string }; protocolPort: { kind: string; value?: number } }>): string[] =>
    ms.map((m) => `${valueOf(m.address) ?? '?'}:${valueOf(m.protocolPort) ?? '?'}`).sort();
  const octaviaPorts = async (): Promise<Array<{ id: string; name: string }>> =>
    (await run.tenant.neutron.listPorts({ network_id: net.networkId, device_owner: 'Octavia' })).map((p) => ({ id: p.id, name: p.name }));

  // ─── cleanup ──────────────────────────────────────────────────────────────────────────────────────

  /** Every load balancer whose name starts with `prefix`, cascade-deleted and gone (floating IPs on a VIP port released first). */
  const removeLoadBalancers = async (prefix: string): Promise<string[]> => {
    const o = run.tenant.octavia;
    const neutron = run.tenant.neutron;
    const lbs = (await o.listLoadBalancers()).filter((lb) => (lb.name ?? '').startsWith(prefix));
    for (const f of (await neutron.listFloatingIps()).filter((x) => (x.description ?? '').startsWith(prefix))) await neutron.deleteFloatingIp(f.id).catch((e: unknown) => (e instanceof NotFound ? undefined : Promise.reject(e)));
    await Promise.all(lbs.map(async (lb) => {
      const now = await waitFor(`${lb.name ?? lb.id} out of PENDING_*`, () => o.getLoadBalancer(lb.id).catch((e: unknown) => (e instanceof NotFound ? null : Promise.reject(e))),
        (x) => x === null || !status(x).startsWith('PENDING_') || status(x) === 'PENDING_DELETE', { timeoutMs: 120_000 });
      if (now === null) return;
      if (status(now) !== 'PENDING_DELETE') await o.deleteLoadBalancer(lb.id, { cascade: true }).catch((e: unknown) => (e instanceof NotFound ? undefined : Promise.reject(e)));
      await waitGone(`load balancer ${lb.name ?? lb.id}`, () => o.getLoadBalancer(lb.id), { timeoutMs: 120_000 });
    }));
    return lbs.map((lb) => lb.name ?? lb.id);
  };
  /** This file's: its load balancers, every floating IP on its external network, VIP ports Octavia left on its network. */
  const removeOurs = async (): Promise<void> => {
    if (externalNetworkId !== undefined) {
      for (const f of await run.tenant.neutron.listFloatingIps({ floating_network_id: externalNetworkId })) {
        await run.tenant.neutron.deleteFloatingIp(f.id).catch((e: unknown) => (e instanceof NotFound ? undefined : Promise.reject(e)));
      }
    }
    await removeLoadBalancers(lbPrefix());
    if (net !== undefined) for (const p of await octaviaPorts()) await run.tenant.neutron.deletePort(p.id).catch((e: unknown) => (e instanceof NotFound ? undefined : Promise.reject(e)));
  };

  /** `lb-regent-ci-<pid>-<hex>…`: the load balancers this file names; groups: the run prefix, its pid. */
  const OURS = /^lb-(regent-ci-(\d+)-[0-9a-f]{4})-/;

  before(async function () {
    this.timeout(300_000);
    run = await realRun();
    logs = captureLogs();
    demo = await connect(run.target.tenantCloud, { logger: logs.logger });
    if (!run.target.keep) {
      // what killed runs left under lb-<prefix> (the suite's sweep matches names starting with a prefix only)
      const stale = new Set<string>();
      for (const lb of await run.tenant.octavia.listLoadBalancers()) {
        const m = OURS.exec(lb.name ?? '');
        if (m && m[1] !== run.prefix && !alive(Number(m[2]))) stale.add(m[1] as string);
      }
      for (const prefix of stale) {
        const removed = await removeLoadBalancers(loadBalancerName(prefix));
        const swept = await sweepPrefix(prefix, run.tenant, run.admin);
        console.log(`      swept killed run ${prefix}: ${removed.length} load balancers, ${swept.found.length} more resources${swept.failed.length ? `; could not delete: ${swept.failed.join('; ')}` : ''}`);
      }
    }
    const neutron = run.tenant.neutron;
    const network = await neutron.createNetwork({ name: run.name('lb-net') });
    run.cleanup.add(`network ${run.name('lb-net')}`, () => neutron.deleteNetwork(network.id));
    const subnet = await neutron.createSubnet({ name: run.name('lb-subnet'), network_id: network.id, cidr: '192.0.2.0/24', ip_version: 4, enable_dhcp: false });
    run.cleanup.add(`subnet ${run.name('lb-subnet')}`, () => neutron.deleteSubnet(subnet.id));
    net = { networkId: network.id, subnetId: subnet.id };
    const admin = run.admin;
    if (admin) {
      const external = await admin.neutron.createNetwork({ name: run.name('lb-ext'), 'router:external': true });
      run.cleanup.add(`network ${run.name('lb-ext')}`, () => admin.neutron.deleteNetwork(external.id));
      await admin.neutron.createSubnet({ name: run.name('lb-ext-subnet'), network_id: external.id, cidr: '198.51.100.0/24', ip_version: 4, enable_dhcp: false });
      const router = await neutron.createRouter({ name: run.name('lb-router'), external_gateway_info: { network_id: external.id } });
      run.cleanup.add(`router ${run.name('lb-router')}`, () => neutron.deleteRouter(router.id));
      await neutron.addRouterInterface(router.id, { subnet_id: subnet.id });
      run.cleanup.add(`router interface ${run.name('lb-router')}`, () => neutron.removeRouterInterface(router.id, { subnet_id: subnet.id }));
      externalNetworkId = external.id;
    }
    // newest first: this entry runs before the router, the subnets and the networks go
    run.cleanup.add(`load balancers ${lbPrefix()}…, their floating IPs and VIP ports`, removeOurs);
  });
  after(async function () {
    this.timeout(300_000);
    if (run === undefined || run.target.keep) return;
    await removeOurs();
  });

  const needShared = (ctx: Context): ReturnType<typeof rig> => {
    if (!shared) ctx.skip();
    return shared as ReturnType<typeof rig>;
  };
  const needFaults = (ctx: Context): NonNullable<RealRun['faults']> => {
    if (!run.faults) ctx.skip();
    return run.faults as NonNullable<RealRun['faults']>;
  };

  // ─── 1. from nothing ──────────────────────────────────────────────────────────────────────────────

  it('1. LB3/LB4/LB6/LB7/LB9/LB10 the two-listener topology (TCP 443 PROXY v2 + TCP monitor, UDP 53 + UDP-CONNECT monitor, 2 members each) with a floating IP, from nothing to Provisioned: passes, calls, wall time', async function () {
    this.timeout(180_000);
    if (externalNetworkId === undefined) this.skip(); // the floating IP needs the admin cloud's external network
    const label = `${run.prefix}-two`;
    const desired = twoListener(label);
    const r = rig(desired);
    const t0 = Date.now();
    const ps = await r.until(isProvisioned, 90);
    const wallS = (Date.now() - t0) / 1000;
    const calls = callsOf(ps);
    const muts = mutations(calls);
    const yields = outcomesOf(ps).filter((o) => o === 'pendingYield').length;
    console.log(`      LB two-listener on real Octavia: ${ps.length} passes, ${calls.length} calls (${muts.length} mutations), ${wallS.toFixed(1)} s wall`);
    console.log(`        ${yields} passes yielded on PENDING_*; ${calls.filter((c) => c.service === 'load-balancer').length} Octavia, ${calls.filter((c) => c.service === 'network').length} Neutron calls`);
    console.log(`        ${ps.map((p) => `#${p.n} ${p.outcomes[0] ?? '-'} ${p.ms} ms`).join(', ')}`);
    const snapshot = r.snapshot();
    expect(stateOf(snapshot), describePasses(ps)).to.equal('"provisioned"');
    expect(loadBalancerAvailable(snapshot)).to.deep.include({ status: 'True', reason: 'Provisioned' });
    expectOneMutationPerPass(ps);
    expectConflictsYield(ps);
    // one object per pass (LB3/LB4, LB6, LB7, LB9), the load balancer alone, never a nested create
    expect(summary(muts.filter((c) => c.status !== 409))).to.deep.equal([
      'POST /loadbalancers 201',
      'POST /listeners 201', 'POST /pools 201', 'PUT /pools/ID/members 202', 'POST /healthmonitors 201',
      'POST /listeners 201', 'POST /pools 201', 'PUT /pools/ID/members 202', 'POST /healthmonitors 201',
      'POST /floatingips 201',
    ]);

    const { lb, listeners, pools, monitors, members } = await octaviaOf(desired.name);
    for (const x of [lb, ...listeners, ...pools, ...monitors, ...Object.values(members).flat()]) expect(status(x), `${x.name ?? x.id}`).to.equal('ACTIVE');
    expect([...listeners, ...pools, ...monitors].map((x) => x.name).sort()).to.deep.equal(
      [listenerName(label, 'dns'), listenerName(label, 'https'), monitorName(label, 'dns'), monitorName(label, 'https'), poolName(label, 'dns'), poolName(label, 'https')].sort(),
    );
    const httpsListener = byName(listeners, listenerName(label, 'https'));
    const dnsListener = byName(listeners, listenerName(label, 'dns'));
    const httpsPool = byName(pools, poolName(label, 'https'));
    const dnsPool = byName(pools, poolName(label, 'dns'));
    expect([valueOf(httpsListener.protocol), valueOf(httpsListener.protocolPort), valueOf(dnsListener.protocol), valueOf(dnsListener.protocolPort)]).to.deep.equal(['TCP', 443, 'UDP', 53]);
    expect([valueOf(httpsListener.timeoutClientData), valueOf(httpsListener.timeoutMemberData), valueOf(httpsListener.allowedCidrs)]).to.deep.equal([60_000, 120_000, ['203.0.113.0/24']]);
    expect([valueOf(httpsListener.defaultPoolId), valueOf(dnsListener.defaultPoolId)]).to.deep.equal([httpsPool.id, dnsPool.id]);
    expect([valueOf(httpsPool.protocol), valueOf(dnsPool.protocol)], 'LB10: PROXYV2 with proxyProtocolV2, UDP for UDP').to.deep.equal(['PROXYV2', 'UDP']);
    const httpsMonitor = byName(monitors, monitorName(label, 'https'));
    const dnsMonitor = byName(monitors, monitorName(label, 'dns'));
    expect([valueOf(httpsMonitor.type), valueOf(httpsMonitor.delay), valueOf(httpsMonitor.timeout), valueOf(httpsMonitor.maxRetries)]).to.deep.equal(['TCP', 5, 3, 3]);
    expect([valueOf(dnsMonitor.type), valueOf(dnsMonitor.delay), valueOf(dnsMonitor.timeout), valueOf(dnsMonitor.maxRetries), valueOf(dnsMonitor.maxRetriesDown)]).to.deep.equal(['UDP-CONNECT', 10, 5, 2, 2]);
    expect([valueOf(httpsPool.healthMonitorId), valueOf(dnsPool.healthMonitorId)]).to.deep.equal([httpsMonitor.id, dnsMonitor.id]);
    expect(addresses(members[poolName(label, 'https')] ?? [])).to.deep.equal(['192.0.2.11:8443', '192.0.2.12:8443']);
    expect(addresses(members[poolName(label, 'dns')] ?? [])).to.deep.equal(['192.0.2.11:53', '192.0.2.12:53']);
    // LB9: the floating IP from the external network on the Octavia-owned VIP port, in status
    const vipPortId = valueOf(lb.vipPortId) as string;
    const port = await run.tenant.neutron.getPort(vipPortId);
    expect([port.device_owner, port.fixed_ips?.[0]?.subnet_id]).to.deep.equal(['Octavia', net.subnetId]);
    const fips = await run.tenant.neutron.listFloatingIps({ port_id: vipPortId });
    expect(fips.map((f) => [f.floating_network_id, f.fixed_ip_address, f.description])).to.deep.equal([[externalNetworkId, valueOf(lb.vipAddress), desired.name]]);
    expect(loadBalancerObserved(snapshot)).to.deep.include({ loadBalancerID: lb.id, vipAddress: valueOf(lb.vipAddress), floatingIP: fips[0]?.floating_ip_address });
    expect(loadBalancerListenerStates(snapshot).map((l) => [l.name, l.state])).to.deep.equal([['https', 'Provisioned'], ['dns', 'Provisioned']]);
    // a converged pass sends nothing
    const still = await r.until(isProvisioned, 1);
    expect(mutations(callsOf(still))).to.deep.equal([]);
    shared = r;
  });

  // ─── 2. in place ──────────────────────────────────────────────────────────────────────────────────

  it('2. LB5/LB6/LB7/LB12 an in-place change (allowed CIDRs, a member added and one removed, monitor thresholds): one mutation per pass, a 409 a yield, then Provisioned', async function () {
    this.timeout(120_000);
    const r = needShared(this);
    shared = undefined;
    const label = `${run.prefix}-two`;
    const next = twoListener(label, {
      listeners: [
        https({ allowedCIDRs: ['198.51.100.0/24', '203.0.113.0/24'], pool: { ...https().pool, members: [{ address: '192.0.2.12', port: 8443 }, { address: '192.0.2.13', port: 8443 }] } }),
        dns({ pool: { ...dns().pool, healthMonitor: { delaySeconds: 20, timeoutSeconds: 10, maxRetries: 5, maxRetriesDown: 4 } } }),
      ],
    });
    r.change(next);
    const ps = await r.until(isProvisioned, 40);
    const muts = mutations(callsOf(ps));
    console.log(`      in-place change: ${ps.length} passes, ${callsOf(ps).length} calls: ${summary(muts).join(', ')}`);
    expectOneMutationPerPass(ps);
    const conflicts = expectConflictsYield(ps);
    if (conflicts > 0) console.log(`        ${conflicts} × 409 answered as a yield`);
    expect(summary(muts.filter((c) => c.status !== 409))).to.deep.equal(['PUT /listeners/ID 200', 'PUT /pools/ID/members 202', 'PUT /healthmonitors/ID 200']);
    expect(outcomesOf(ps)).to.include.members(['listenerUpdateSubmitted', 'membersUpdateSubmitted', 'monitorUpdateSubmitted']);
    const { lb, listeners, pools, monitors, members } = await octaviaOf(r.name);
    for (const x of [lb, ...listeners, ...pools, ...monitors]) expect(status(x), `${x.name ?? x.id}`).to.equal('ACTIVE');
    expect(valueOf(byName(listeners, listenerName(label, 'https')).allowedCidrs)).to.have.members(['198.51.100.0/24', '203.0.113.0/24']);
    expect(addresses(members[poolName(label, 'https')] ?? [])).to.deep.equal(['192.0.2.12:8443', '192.0.2.13:8443']);
    const m = byName(monitors, monitorName(label, 'dns'));
    expect([valueOf(m.delay), valueOf(m.timeout), valueOf(m.maxRetries), valueOf(m.maxRetriesDown), valueOf(m.type)]).to.deep.equal([20, 10, 5, 4, 'UDP-CONNECT']);
    expect(pools.map((p) => p.id).sort(), 'nothing recreated').to.deep.equal([valueOf(byName(listeners, listenerName(label, 'https')).defaultPoolId), valueOf(byName(listeners, listenerName(label, 'dns')).defaultPoolId)].sort());
    shared = r;
  });

  // ─── 3. prune ─────────────────────────────────────────────────────────────────────────────────────

  it('3. LB8 orphan pruning after a listener is removed from the desired topology: an arming pass with no DELETE, then one delete per pass, listener before pool', async function () {
    this.timeout(120_000);
    const r = needShared(this);
    shared = undefined;
    const label = `${run.prefix}-two`;
    const { listeners: before, pools: poolsBefore, monitors: monitorsBefore } = await octaviaOf(r.name);
    const current = r.spec();
    r.change({ ...current, listeners: current.listeners.filter((l) => l.name !== 'dns') });
    const armed = await r.pass();
    const arming = r.passes.at(-1) as PassRecord;
    expect(stateOf(armed)).to.equal('"pruning"');
    expect(arming.outcomes).to.deep.equal(['pruneArmed']);
    expect(mutations(arming.calls), 'write-ahead: the arming pass deletes nothing').to.deep.equal([]);
    expect((armed.context as { armed: Array<{ subject: string }> }).armed.map((a) => a.subject)).to.include(listenerName(label, 'dns'));
    const ps = await r.until(isProvisioned, 30);
    const deletes = mutations(callsOf(ps));
    console.log(`      prune the dns listener: 1 arming pass + ${ps.length} passes: ${summary(deletes).join(', ')}`);
    expectOneMutationPerPass(ps);
    expectConflictsYield(ps);
    expect(summary(deletes.filter((c) => c.status !== 409))).to.deep.equal(['DELETE /listeners/ID 204', 'DELETE /pools/ID 204']);
    expect(deletes.filter((c) => c.status !== 409).map((c) => c.path.replace(/^.*\//, ''))).to.deep.equal([
      byName(before, listenerName(label, 'dns')).id, byName(poolsBefore, poolName(label, 'dns')).id,
    ]);
    const outcomes = outcomesOf(ps);
    expect(outcomes.indexOf('poolPruneSubmitted')).to.be.greaterThan(outcomes.indexOf('listenerPruneSubmitted'));
    const { lb, listeners, pools, monitors } = await octaviaOf(r.name);
    expect([...listeners, ...pools, ...monitors].map((x) => x.name).sort()).to.deep.equal([listenerName(label, 'https'), monitorName(label, 'https'), poolName(label, 'https')]);
    expect(status(lb)).to.equal('ACTIVE');
    // the pool's delete took its monitor along (Octavia's pool delete)
    const dnsMonitorId = byName(monitorsBefore, monitorName(label, 'dns')).id;
    expect(await run.tenant.octavia.getHealthMonitor(dnsMonitorId).then(() => 'still there', (e: unknown) => (e instanceof NotFound ? 'gone' : String(e)))).to.equal('gone');
    shared = r;
  });

  // ─── 4. immutable while pending ───────────────────────────────────────────────────────────────────

  it('4. LB1/LB12 immutable while PENDING_UPDATE: a mutation decided on a stale observation, and a handler called directly, get a real 409, recorded as a conflict (a yield), never an error', async function () {
    this.timeout(120_000);
    const r = needShared(this);
    const faults = needFaults(this);
    shared = undefined;
    const stale = await observeTopology(run.tenant, r.spec());
    expect(stale.loadBalancer).to.deep.include({ kind: 'present', provisioningStatus: 'ACTIVE' });
    faults.set('octavia', { delay: { update: UPDATE_HOLD_S } });
    const current = r.spec();
    r.change({ ...current, listeners: current.listeners.map((l) => (l.name === 'https' ? { ...l, allowedCIDRs: ['203.0.113.0/24'] } : l)) });
    // the update Octavia takes: the load balancer is PENDING_UPDATE for the held amphora update
    await r.pass();
    const first = r.passes.at(-1) as PassRecord;
    expect(summary(mutations(first.calls))).to.deep.equal(['PUT /listeners/ID 200']);
    expect(first.outcomes).to.deep.equal(['listenerUpdateSubmitted', 'accepted']);
    const lbId = (stale.loadBalancer as { id: string }).id;
    expect(status(await run.tenant.octavia.getLoadBalancer(lbId))).to.equal('PENDING_UPDATE');
    // a pass deciding on the observation from before: it sends the update again, Octavia answers 409
    const snapshot = await r.pass(stale);
    const second = r.passes.at(-1) as PassRecord;
    expect(summary(mutations(second.calls))).to.deep.equal(['PUT /listeners/ID 409']);
    expect(second.outcomes).to.deep.equal(['listenerUpdateSubmitted', 'conflict']);
    expect(stateOf(snapshot)).to.equal('"provisioning"');
    expect(loadBalancerAvailable(snapshot)).to.deep.equal({ status: 'False', reason: 'Provisioning', message: 'Octavia was busy with another change; trying again' });
    // the provider's answer to Octavia's 409, handler called directly while the load balancer is PENDING_UPDATE
    const { pools } = await octaviaOf(r.name);
    const poolId = byName(pools, poolName(`${run.prefix}-two`, 'https')).id;
    const subject = poolName(`${run.prefix}-two`, 'https');
    const direct = await loadBalancerHandlers(demo)[LB_EFFECTS.setPoolMembers]?.(
      { type: LB_EFFECTS.setPoolMembers, subject, poolId, name: subject, members: [{ address: '192.0.2.99', protocolPort: 8443 }] }, { logger: run.logger } as never);
    expect(direct).to.deep.equal({ type: 'conflict', effect: LB_EFFECTS.setPoolMembers, subject });
    expect(summary(mutations(logs.requests().slice(-1)))).to.deep.equal(['PUT /pools/ID/members 409']);
    // a fresh pass sees PENDING_UPDATE: a yield, nothing sent
    await r.pass();
    const third = r.passes.at(-1) as PassRecord;
    if (third.outcomes[0] === 'pendingYield') expect(mutations(third.calls)).to.deep.equal([]);
    faults.reset();
    const ps = await r.until(isProvisioned, 30);
    const all = r.passes.slice(r.passes.indexOf(first));
    console.log(`      immutable while pending: ${describePasses(all)}`);
    expect(outcomesOf(all).filter((o) => o === 'rejected' || o === 'outcomeUnknown')).to.deep.equal([]);
    expect(outcomesOf(all), 'the held update was seen pending').to.include('pendingYield');
    expect(mutations(callsOf(ps)).filter((c) => c.status !== 409), 'nothing more to send: the first update landed').to.deep.equal([]);
    const events = JSON.stringify(await r.store.readStream(r.stream));
    expect(events, "Octavia's fault text stays out of events").to.not.include('immutable');
    const { listeners, members } = await octaviaOf(r.name);
    expect(valueOf(byName(listeners, listenerName(`${run.prefix}-two`, 'https')).allowedCidrs)).to.deep.equal(['203.0.113.0/24']);
    expect(addresses(members[subject] ?? []), 'the refused member set never landed').to.deep.equal(['192.0.2.12:8443', '192.0.2.13:8443']);
    shared = r;
  });

  // ─── 5. slow and failed creates ───────────────────────────────────────────────────────────────────

  it('5. LB1/LB14 the sandbox\'s slow create (yields while PENDING_CREATE) and failed create (ERROR: Errored, parked; its deletion still works), side by side', async function () {
    this.timeout(180_000);
    const faults = needFaults(this);
    const slowLabel = `${run.prefix}-lbslow`;
    const failLabel = `${run.prefix}-lbfail`;
    const topology = (label: string): DesiredTopology => ({ name: loadBalancerName(label), vipSubnetId: net.subnetId, floatingIP: { wanted: false }, listeners: [] });
    faults.set('octavia', { delay: { post_vip_plug: SLOW_CREATE_S }, fail: { post_vip_plug: exactNameRegex(loadBalancerName(failLabel)) } });
    const portsBefore = new Set((await octaviaPorts()).map((p) => p.id));
    const counted = async () => {
      const own = captureLogs();
      return { session: await connect(run.target.tenantCloud, { logger: own.logger }), logs: own };
    };
    const slow = rig(topology(slowLabel), await counted());
    const fail = rig(topology(failLabel), await counted());
    const t0 = Date.now();
    const [slowPasses, failPasses] = await Promise.all([
      slow.until(isProvisioned, 60),
      fail.until((s) => s === '"inconsistent"', 60),
    ]);
    console.log(`      slow create: ${slowPasses.length} passes (${outcomesOf(slowPasses).filter((o) => o === 'pendingYield').length} yields on PENDING_CREATE); failed create: ERROR after ${failPasses.length} passes, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // slow: one create, then yields while PENDING_CREATE, then Provisioned; nothing else sent
    expect(summary(mutations(callsOf(slowPasses)))).to.deep.equal(['POST /loadbalancers 201']);
    expect(outcomesOf(slowPasses).slice(0, 2)).to.deep.equal(['loadBalancerCreateSubmitted', 'accepted']);
    const yielded = slowPasses.slice(1, -1);
    expect(yielded.length, 'passes while PENDING_CREATE').to.be.at.least(2);
    for (const p of yielded) expect(p.outcomes, describePasses(slowPasses)).to.deep.equal(['pendingYield']);
    expect(outcomesOf(slowPasses).at(-1)).to.equal('converged');
    expect(loadBalancerAvailable(slow.snapshot())).to.deep.include({ status: 'True', reason: 'Provisioned' });
    // failed: the same create, yields, then ERROR: a consistency error the status calls Errored, nothing sent after the create
    expect(summary(mutations(callsOf(failPasses)))).to.deep.equal(['POST /loadbalancers 201']);
    expect(outcomesOf(failPasses).at(-1)).to.equal('provisioningStatusUnusable');
    expect(outcomesOf(failPasses).filter((o) => o === 'rejected' || o === 'outcomeUnknown')).to.deep.equal([]);
    expect(loadBalancerAvailable(fail.snapshot())).to.deep.equal({ status: 'False', reason: 'Errored', message: 'Octavia reports the load balancer in provisioning status ERROR' });
    expect(loadBalancerObserved(fail.snapshot()).provisioningStatus).to.equal('ERROR');
    const parked = await fail.until((s) => s === '"inconsistent"', 1);
    expect(mutations(callsOf(parked)), 'parked: a pass on ERROR sends nothing').to.deep.equal([]);
    // the deletion of the ERROR load balancer: armed, one cascade delete, gone
    const failedId = loadBalancerObserved(fail.snapshot()).loadBalancerID as string;
    const vip = valueOf((await run.tenant.octavia.getLoadBalancer(failedId)).vipPortId) ?? null;
    fail.delete();
    slow.delete();
    const [failDeleted, slowDeleted] = await Promise.all([fail.until((s) => s === '"deleted"', 40), slow.until((s) => s === '"deleted"', 40)]);
    for (const [what, ps] of [['failed', failDeleted], ['slow', slowDeleted]] as const) {
      expect(outcomesOf(ps)[0], what).to.equal('deleteArmed');
      expect(mutations((ps[0] as PassRecord).calls), `${what}: write-ahead`).to.deep.equal([]);
      expect(summary(mutations(callsOf(ps)).filter((c) => c.status !== 409)), what).to.deep.equal(['DELETE /loadbalancers/ID 204']);
      expect(outcomesOf(ps).at(-1), what).to.equal('deleted');
    }
    expect(await run.tenant.octavia.getLoadBalancer(failedId).then(() => 'still there', (e: unknown) => (e instanceof NotFound ? 'gone' : String(e)))).to.equal('gone');
    const leaked = (await octaviaPorts()).filter((p) => !portsBefore.has(p.id));
    console.log(`        the failed load balancer's VIP port ${vip ?? '(none)'}; Octavia ports left after both deletes: ${leaked.map((p) => p.name).join(', ') || 'none'}`);
    for (const p of leaked) await run.tenant.neutron.deletePort(p.id);
    expect(leaked, 'VIP ports left behind by the two deletes').to.deep.equal([]);
  });

  // ─── 6. two floating IPs on the VIP port ──────────────────────────────────────────────────────────

  it('6. LB15 two floating IPs on the VIP port (a second fixed IP carries the second): a consistency error naming both, nothing sent, neither published; the second released by hand and the next pass is Provisioned', async function () {
    this.timeout(120_000);
    const r = needShared(this);
    const neutron = run.tenant.neutron;
    const { lb } = await octaviaOf(r.name);
    const vipPortId = valueOf(lb.vipPortId) as string;
    const vipAddress = valueOf(lb.vipAddress) as string;
    const first = await neutron.listFloatingIps({ port_id: vipPortId });
    expect(first).to.have.length(1);
    const published = loadBalancerObserved(r.snapshot());
    expect(published).to.deep.include({ vipAddress, floatingIP: first[0]?.floating_ip_address });
    // Neutron takes one floating IP per fixed IP: the tenant (the network's owner) adds a fixed IP to Octavia's VIP port
    const port = await neutron.getPort(vipPortId);
    const before = port.fixed_ips ?? [];
    const restorePort = () => neutron.updatePort(vipPortId, { fixed_ips: before.map((f) => ({ subnet_id: f.subnet_id, ip_address: f.ip_address })) });
    let second: { id: string };
    try {
      const updated = await neutron.updatePort(vipPortId, { fixed_ips: [...before, { subnet_id: net.subnetId }] });
      const extra = (updated.fixed_ips ?? []).find((f) => f.ip_address !== vipAddress)?.ip_address as string;
      second = await neutron.createFloatingIp({ floating_network_id: externalNetworkId as string, port_id: vipPortId, fixed_ip_address: extra, description: `${r.name} second` });
    } catch (error) {
      if (!(error instanceof Forbidden || error instanceof BadRequest || error instanceof Conflict)) throw error;
      // a cloud whose policy refuses the staging (not the rule under test): the load balancer is left as it was, for test 7
      console.log(`      two floating IPs could not be staged: ${String(error)}`);
      await restorePort();
      this.skip();
    }
    shared = undefined;
    try {
      const both = (await neutron.listFloatingIps({ port_id: vipPortId })).sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(both.map((f) => f.id).sort()).to.deep.equal([first[0]?.id, second.id].sort());
      const ps = await r.until((s) => s === '"inconsistent"', 1);
      await r.pass();
      const parked = r.passes.slice(-2);
      console.log(`      two floating IPs: ${describePasses(parked)}`);
      expect(outcomesOf(parked)).to.deep.equal(['floatingIPUnusable', 'floatingIPUnusable']);
      expect(mutations(callsOf([...ps, ...parked])), 'nothing sent').to.deep.equal([]);
      expect(loadBalancerAvailable(r.snapshot())).to.deep.equal({
        status: 'False', reason: 'ConsistencyError',
        message: `Neutron reports 2 floating IPs on VIP port ${vipPortId} of load balancer ${r.name}: ${both.map((f) => `${f.id} ('${f.floating_ip_address}')`).join(', ')}`,
      });
      expect(loadBalancerObserved(r.snapshot())).to.deep.include({ vipAddress: null, floatingIP: null });
      // what real Neutron answers a lookup with an empty port_id (the provider never sends one: measured, not relied on)
      console.log(`        GET floatingips?port_id= answers ${(await neutron.listFloatingIps({ port_id: '' })).length} floating IPs`);
    } finally {
      await neutron.deleteFloatingIp(second.id).catch((e: unknown) => (e instanceof NotFound ? undefined : Promise.reject(e)));
      await restorePort();
    }
    const back = await r.until(isProvisioned, 5);
    expect(mutations(callsOf(back)), 'recovered with nothing sent').to.deep.equal([]);
    expect(loadBalancerObserved(r.snapshot())).to.deep.include(published);
    shared = r;
  });

  // ─── 7. delete with the floating IP ───────────────────────────────────────────────────────────────

  it('7. LB14 delete with the floating IP: armed (no DELETE), the floating IP released first, then one cascade delete, yields until absent', async function () {
    this.timeout(120_000);
    const r = needShared(this);
    shared = undefined;
    const { lb } = await octaviaOf(r.name);
    const vipPortId = valueOf(lb.vipPortId) as string;
    const fips = await run.tenant.neutron.listFloatingIps({ port_id: vipPortId });
    expect(fips).to.have.length(1);
    const fipId = (fips[0] as (typeof fips)[number]).id;
    r.delete();
    const armed = await r.pass();
    const arming = r.passes.at(-1) as PassRecord;
    expect(stateOf(armed)).to.equal('{"deleting":"armed"}');
    expect(mutations(arming.calls), 'write-ahead: the arming pass deletes nothing').to.deep.equal([]);
    const t0 = Date.now();
    const ps = await r.until((s) => s === '"deleted"', 60);
    console.log(`      delete: 1 arming pass + ${ps.length} passes, ${((Date.now() - t0) / 1000).toFixed(1)} s: ${describePasses(ps)}`);
    expectOneMutationPerPass(ps);
    expectConflictsYield(ps);
    // the request log carries no query: that the delete cascaded shows in a load balancer with a listener, a pool and a monitor going at once
    expect(summary(mutations(callsOf(ps)).filter((c) => c.status !== 409))).to.deep.equal(['DELETE /floatingips/ID 204', 'DELETE /loadbalancers/ID 204']);
    const outcomes = outcomesOf(ps);
    expect(outcomes).to.include.members(['floatingIPReleaseSubmitted', 'deleteSubmitted', 'deleted']);
    expect(outcomes.indexOf('deleteSubmitted')).to.be.greaterThan(outcomes.indexOf('floatingIPReleaseSubmitted'));
    expect(loadBalancerAvailable(r.snapshot())).to.deep.include({ status: 'False', reason: 'Deleting', message: 'the load balancer is deleted' });
    const gone = async (read: () => Promise<unknown>): Promise<string> => read().then(() => 'still there', (e: unknown) => (e instanceof NotFound ? 'gone' : String(e)));
    expect(await gone(() => run.tenant.octavia.getLoadBalancer(lb.id)), 'the load balancer').to.equal('gone');
    expect(await gone(() => run.tenant.neutron.getFloatingIp(fipId)), 'the floating IP (released, not left unassociated)').to.equal('gone');
    expect(await gone(() => run.tenant.neutron.getPort(vipPortId)), 'the VIP port (the cascade took it)').to.equal('gone');
    expect(await observeTopology(run.tenant, r.spec())).to.deep.equal({ loadBalancer: { kind: 'absent' } });
  });
});
