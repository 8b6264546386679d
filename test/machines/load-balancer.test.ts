/**
 * The LoadBalancer's Octavia topology (openstack-provider.md, "Octavia Load Balancers"; issue 13): table
 * tests per rule (LB1–LB14, labels as in machines/load-balancer.ts), model-based checks over every
 * reachable edge (xstate/graph) with oracles written from the spec's sentences, and `regent check`'s
 * static checks.
 */
import { expect } from 'chai';
import { isIP } from 'node:net';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { transition, type AnyMachineSnapshot } from 'xstate';
import {
  buildLoadBalancerMachine,
  LB_EFFECTS,
  loadBalancerDefinition as def,
  loadBalancerStream,
  listenerName,
  loadBalancerName,
  monitorName,
  poolName,
  floatingIPSubject,
  type LoadBalancerContext,
  type LoadBalancerStimulus,
} from '../../machines/load-balancer.js';
import { CREATE_WINDOW_MS } from '../../machines/load-balancer/effects.js';
import { isIpAddress } from '../../machines/load-balancer/names.js';
import type { DesiredListener, DesiredTopology, Orphan, TopologyObservation } from '../../machines/load-balancer/observation.js';
import { loadBalancerAvailable, loadBalancerListenerStates, loadBalancerObserved } from '../../projections/load-balancer-status.js';
import { checkMachine } from '../../src/audit/checks/rules.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const UID = 'uid-1';
const STREAM = loadBalancerStream(UID);
const LB = 'lb-web';
const T0 = '2026-03-01T10:00:00Z';
const T_SOON = '2026-03-01T10:00:30Z'; // within the create window (120 s), past L8's first backoff (15 s)
const T_LATER = '2026-03-01T10:05:00Z'; // past the window

type Reconcile = Extract<LoadBalancerStimulus, { type: 'reconcile' }>;
type Obs = TopologyObservation;

// ─── the spec, as the reconciler normalizes it ─────────────────────────────────────────────────────

const http = (over: Partial<DesiredListener> = {}): DesiredListener => ({
  name: 'http',
  protocol: 'TCP',
  port: 80,
  allowedCIDRs: ['10.0.0.0/8'],
  proxyProtocolV2: false,
  idleTimeouts: { clientDataSeconds: 60, memberDataSeconds: 120 },
  pool: { members: [{ address: '10.0.1.11', port: 8080 }, { address: '10.0.1.12', port: 8080 }], healthMonitor: { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } },
  ...over,
});
const dns = (over: Partial<DesiredListener> = {}): DesiredListener => ({
  name: 'dns',
  protocol: 'UDP',
  port: 53,
  allowedCIDRs: [],
  proxyProtocolV2: false,
  pool: { members: [{ address: '10.0.1.21', port: 53 }], healthMonitor: { delaySeconds: 10, timeoutSeconds: 5, maxRetries: 2, maxRetriesDown: 4 } },
  ...over,
});
const desired = (over: Partial<DesiredTopology> = {}): DesiredTopology => ({
  name: LB,
  vipSubnetId: 'subnet-7',
  floatingIP: { wanted: true, networkId: 'public' },
  listeners: [http(), dns()],
  ...over,
});

// ─── what Octavia shows ────────────────────────────────────────────────────────────────────────────

const N = {
  http: { listener: `${LB}-http-listener`, pool: `${LB}-http-pool`, monitor: `${LB}-http-monitor` },
  dns: { listener: `${LB}-dns-listener`, pool: `${LB}-dns-pool`, monitor: `${LB}-dns-monitor` },
};
const lbPresent = (provisioningStatus = 'ACTIVE', over: Record<string, unknown> = {}) => ({ kind: 'present' as const, id: 'lb-1', provisioningStatus, vipAddress: '10.0.0.5', vipPortId: 'port-1', ...over });
const listenerObs = (which: 'http' | 'dns', over: Record<string, unknown> = {}) =>
  which === 'http'
    ? { kind: 'present' as const, id: 'listener-http', provisioningStatus: 'ACTIVE', protocol: 'TCP', port: 80, allowedCidrs: ['10.0.0.0/8'], timeoutClientData: 60_000, timeoutMemberData: 120_000, defaultPoolId: 'pool-http', ...over }
    : { kind: 'present' as const, id: 'listener-dns', provisioningStatus: 'ACTIVE', protocol: 'UDP', port: 53, allowedCidrs: null, timeoutClientData: null, timeoutMemberData: null, defaultPoolId: 'pool-dns', ...over };
const poolObs = (which: 'http' | 'dns', over: Record<string, unknown> = {}) =>
  which === 'http'
    ? { kind: 'present' as const, id: 'pool-http', provisioningStatus: 'ACTIVE', protocol: 'TCP', members: [{ id: 'm-1', address: '10.0.1.11', port: 8080 }, { id: 'm-2', address: '10.0.1.12', port: 8080 }], ...over }
    : { kind: 'present' as const, id: 'pool-dns', provisioningStatus: 'ACTIVE', protocol: 'UDP', members: [{ id: 'm-3', address: '10.0.1.21', port: 53 }], ...over };
const monitorObs = (which: 'http' | 'dns', over: Record<string, unknown> = {}) =>
  which === 'http'
    ? { kind: 'present' as const, id: 'hm-http', provisioningStatus: 'ACTIVE', type: 'TCP', delay: 5, timeout: 3, maxRetries: 3, maxRetriesDown: 3, ...over }
    : { kind: 'present' as const, id: 'hm-dns', provisioningStatus: 'ACTIVE', type: 'UDP-CONNECT', delay: 10, timeout: 5, maxRetries: 2, maxRetriesDown: 4, ...over };
const absent = { kind: 'absent' as const };
const fip = { kind: 'present' as const, id: 'fip-1', address: '203.0.113.7' };

/** The two-listener topology converged, with its floating IP (each test changes what it is about). */
const converged = (over: Partial<Obs> = {}): Obs => ({
  loadBalancer: lbPresent(),
  listeners: { [N.http.listener]: listenerObs('http'), [N.dns.listener]: listenerObs('dns') },
  pools: { [N.http.pool]: poolObs('http'), [N.dns.pool]: poolObs('dns') },
  monitors: { [N.http.monitor]: monitorObs('http'), [N.dns.monitor]: monitorObs('dns') },
  orphans: [],
  floatingIP: fip,
  ...over,
});
/** Everything in one provisioning status. */
const allIn = (status: string): Obs =>
  converged({
    loadBalancer: lbPresent(status),
    listeners: { [N.http.listener]: listenerObs('http', { provisioningStatus: status }), [N.dns.listener]: listenerObs('dns', { provisioningStatus: status }) },
    pools: { [N.http.pool]: poolObs('http', { provisioningStatus: status }), [N.dns.pool]: poolObs('dns', { provisioningStatus: status }) },
    monitors: { [N.http.monitor]: monitorObs('http', { provisioningStatus: status }), [N.dns.monitor]: monitorObs('dns', { provisioningStatus: status }) },
  });
const withListener = (name: string, value: unknown): Partial<Obs> => ({ listeners: { ...converged().listeners, [name]: value } as Obs['listeners'] });
const withPool = (name: string, value: unknown): Partial<Obs> => ({ pools: { ...converged().pools, [name]: value } as Obs['pools'] });
const withMonitor = (name: string, value: unknown): Partial<Obs> => ({ monitors: { ...converged().monitors, [name]: value } as Obs['monitors'] });
const orphan = (kind: Orphan['kind'], label: string, id: string, provisioningStatus = 'ACTIVE'): Orphan => ({ kind, id, name: `${LB}-${label}-${kind}`, provisioningStatus });

const reconcile = (observed: Obs | undefined, extra: Partial<Reconcile> = {}): LoadBalancerStimulus => ({
  type: 'reconcile',
  source: 'reconciler',
  generation: 1,
  deletionRequested: false,
  at: T0,
  desired: desired(),
  ...(observed ? { observed } : {}),
  ...extra,
});
const deleting = (observed: Obs | undefined, extra: Partial<Reconcile> = {}) => reconcile(observed, { deletionRequested: true, ...extra });
const result = (type: 'accepted' | 'conflict' | 'rejected' | 'outcomeUnknown', effect: string, subject: string, extra: Record<string, unknown> = {}): LoadBalancerStimulus =>
  ({ type, source: 'effect', effect, subject, ...(type === 'rejected' ? { status: 400, reason: 'badRequest' } : {}), ...(type === 'outcomeUnknown' ? { reason: 'timeout' } : {}), ...extra }) as LoadBalancerStimulus;

const after = (...stimuli: LoadBalancerStimulus[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));
const decide = (from: AnyMachineSnapshot, stimulus: LoadBalancerStimulus) => {
  const r = step(def, from, stimulus);
  return { value: r.snapshot.value, outcome: r.outcome, effects: r.effects, types: r.effects.map((e) => e.type), context: r.snapshot.context as LoadBalancerContext, snapshot: r.snapshot, changed: r.changed };
};
const ctx = (s: AnyMachineSnapshot) => s.context as LoadBalancerContext;
/** A load balancer that converged (provisioned), from which the in-place tests start. */
const provisioned = () => after(reconcile(converged()));

// ─── a model of Octavia Zed (the pass counts) ──────────────────────────────────────────────────────

type Json = Record<string, unknown>;
/**
 * Octavia Zed as the sandbox measured it (docs/simulator-differences.md §16; the pool-create test in
 * test/real-openstack/octavia.openstack.ts), for the effects a from-nothing run declares: a load-balancer
 * create is PENDING_CREATE for one pass, then ACTIVE with its VIP port; every later change has settled by
 * the next pass (the sandbox's worker takes about 0.25 s; a pass that still finds PENDING_* adds one). What
 * Zed makes of nested creates: a fully populated load-balancer create's children stay PENDING_CREATE for
 * good; a listener with a default pool, or a pool with members or a monitor, is a 500 (the handler's
 * outcomeUnknown), nothing created. Ids are `id:<name>`.
 */
const zed = (spec: DesiredTopology) => {
  let lb: { status: string } | null = null;
  const children = { listeners: new Map<string, Json>(), pools: new Map<string, Json>(), monitors: new Map<string, Json>() };
  let floating: typeof fip | null = null;
  const observe = (): Obs => {
    if (!lb) return { loadBalancer: absent };
    const loadBalancer = lbPresent(lb.status);
    if (lb.status === 'PENDING_CREATE') lb.status = 'ACTIVE'; // seen once
    const of = (m: Map<string, Json>, kind: 'listener' | 'pool' | 'monitor') =>
      Object.fromEntries(spec.listeners.filter((l) => kind !== 'monitor' || l.pool.healthMonitor).map((l) => [`${spec.name}-${l.name}-${kind}`, m.get(`${spec.name}-${l.name}-${kind}`) ?? absent]));
    return {
      loadBalancer,
      listeners: of(children.listeners, 'listener'),
      pools: of(children.pools, 'pool'),
      monitors: of(children.monitors, 'monitor'),
      orphans: [],
      floatingIP: floating ?? absent,
    } as Obs;
  };
  const accepted = (e: Json, ids: Record<string, string> = {}, extra: Json = {}) => result('accepted', e.type as string, e.subject as string, { ids, ...extra });
  const stranded = (name: string) => ({ kind: 'present', id: `id:${name}`, provisioningStatus: 'PENDING_CREATE', protocol: 'TCP', port: 80, allowedCidrs: null, timeoutClientData: null, timeoutMemberData: null, defaultPoolId: null });
  const apply = (e: Json): LoadBalancerStimulus => {
    const name = e.name as string;
    switch (e.type) {
      case LB_EFFECTS.createLoadBalancer:
        lb = { status: 'PENDING_CREATE' };
        for (const l of (e.listeners as Array<{ name: string }>) ?? []) children.listeners.set(l.name, stranded(l.name));
        return accepted(e, { [name]: 'lb-1' });
      case LB_EFFECTS.createListener:
        if (e.defaultPool !== undefined) return result('outcomeUnknown', e.type, name);
        children.listeners.set(name, {
          kind: 'present', id: `id:${name}`, provisioningStatus: 'ACTIVE', protocol: e.protocol, port: e.protocolPort, allowedCidrs: e.allowedCidrs,
          timeoutClientData: e.timeoutClientData ?? null, timeoutMemberData: e.timeoutMemberData ?? null, defaultPoolId: e.defaultPoolId ?? null,
        });
        return accepted(e, { [name]: `id:${name}` });
      case LB_EFFECTS.createPool: {
        if (e.members !== undefined || e.healthMonitor !== undefined) return result('outcomeUnknown', e.type, name);
        children.pools.set(name, { kind: 'present', id: `id:${name}`, provisioningStatus: 'ACTIVE', protocol: e.protocol, members: [] });
        const listener = [...children.listeners.values()].find((l) => l.id === e.listenerId);
        if (listener) listener.defaultPoolId = `id:${name}`;
        return accepted(e, { [name]: `id:${name}` });
      }
      case LB_EFFECTS.setPoolMembers: {
        const pool = [...children.pools.values()].find((x) => x.id === e.poolId) as Json;
        pool.members = (e.members as Array<{ address: string; protocolPort: number }>).map((m) => ({ id: `id:${m.address}:${m.protocolPort}`, address: m.address, port: m.protocolPort }));
        return accepted(e);
      }
      case LB_EFFECTS.createHealthMonitor:
        children.monitors.set(name, { kind: 'present', id: `id:${name}`, provisioningStatus: 'ACTIVE', type: e.monitorType, delay: e.delay, timeout: e.timeout, maxRetries: e.maxRetries, maxRetriesDown: e.maxRetriesDown });
        return accepted(e, { [name]: `id:${name}` });
      case LB_EFFECTS.createFloatingIP:
        floating = fip;
        return accepted(e, { [e.subject as string]: fip.id }, { address: fip.address });
      default:
        throw new Error(`the model of Zed does not take ${String(e.type)}`);
    }
  };
  return { observe, apply };
};

/** Passes (one every 10 s, from T0) against the model of Zed until Provisioned (at most 30): each pass's outcome and effects. */
const toProvisioned = (spec: DesiredTopology) => {
  const octavia = zed(spec);
  const passes: Array<[string | undefined, string[]]> = [];
  const effects: Json[] = [];
  let s = after();
  for (let i = 0; i < 30 && s.value !== 'provisioned'; i++) {
    const r = decide(s, reconcile(octavia.observe(), { desired: spec, at: new Date(Date.parse(T0) + i * 10_000).toISOString() }));
    passes.push([r.outcome, r.types]);
    effects.push(...r.effects);
    s = r.snapshot;
    for (const e of r.effects) s = decide(s, octavia.apply(e)).snapshot;
  }
  return { passes, effects, snapshot: s, octavia };
};

describe('load balancer: names, stream and stimuli (LB2)', () => {
  it('LB2 the deterministic names: lb-{lb}, lb-{lb}-{listener}-listener, -pool, -monitor; one stream per LoadBalancer uid', () => {
    expect(loadBalancerName('web')).to.equal('lb-web');
    expect(listenerName('web', 'http')).to.equal('lb-web-http-listener');
    expect(poolName('web', 'http')).to.equal('lb-web-http-pool');
    expect(monitorName('web', 'http')).to.equal('lb-web-http-monitor');
    expect(floatingIPSubject('lb-web')).to.equal('lb-web:floating-ip');
    expect(loadBalancerStream('6f1c')).to.equal('load-balancer-6f1c');
    expect(def.streamPrefix).to.equal('load-balancer-');
  });

  it('observation is stimulus, never authorization: a reconcile from the monitor does not decode, and no monitor stimulus exists', () => {
    expect(def.stimulus.is(reconcile(converged()))).to.equal(true);
    expect(def.stimulus.is({ ...reconcile(converged()), source: 'monitor' })).to.equal(false);
    expect(def.stimulus.decode({ type: 'observed', source: 'monitor', observed: converged() })._tag).to.equal('Left');
  });

  it('effect results decode only from the effect source; a pass needs its clock', () => {
    expect(def.stimulus.is({ type: 'accepted', source: 'reconciler', effect: LB_EFFECTS.createListener, subject: 'x' })).to.equal(false);
    expect(def.stimulus.is({ type: 'accepted', source: 'effect', effect: LB_EFFECTS.createListener, subject: 'x' })).to.equal(true);
    const { at: _at, ...noClock } = reconcile(converged()) as Reconcile;
    expect(def.stimulus.is(noClock)).to.equal(false);
  });

  it('every effect is declared, and exactly the deletes are destructive', () => {
    expect([...def.effects].sort()).to.deep.equal(Object.values(LB_EFFECTS).sort());
    expect([...(def.destructiveEffects ?? [])].sort()).to.deep.equal(
      ['neutron.deleteFloatingIP', 'octavia.deleteHealthMonitor', 'octavia.deleteListener', 'octavia.deleteLoadBalancer', 'octavia.deletePool'].sort(),
    );
  });
});

describe('load balancer: provisioning status drives the outcome (LB1)', () => {
  for (const status of ['PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE']) {
    it(`LB1 ${status} on the load balancer yields: no effect, Provisioning`, () => {
      const r = decide(provisioned(), reconcile(converged({ loadBalancer: lbPresent(status), floatingIP: absent, pools: withPool(N.http.pool, poolObs('http', { members: [] })).pools })));
      expect([r.value, r.outcome, r.types]).to.deep.equal(['provisioning', 'pendingYield', []]);
      expect(loadBalancerAvailable(r.snapshot)).to.deep.include({ status: 'False', reason: 'Provisioning' });
    });
  }

  it('LB1 a PENDING_* child (its load balancer ACTIVE) yields too: nothing is sent while any status is pending', () => {
    const r = decide(provisioned(), reconcile(converged({ ...withMonitor(N.dns.monitor, monitorObs('dns', { provisioningStatus: 'PENDING_UPDATE' })), floatingIP: absent })));
    expect([r.outcome, r.types]).to.deep.equal(['pendingYield', []]);
    expect(r.context.waiting).to.deep.equal({ reason: 'Pending', subjects: [N.dns.monitor] });
  });

  it('LB1 ACTIVE continues to the next part of the topology', () => {
    const r = decide(provisioned(), reconcile(converged({ floatingIP: absent })));
    expect(r.types).to.deep.equal([LB_EFFECTS.createFloatingIP]);
  });

  it('LB1 ERROR is a consistency error, never a guessed next action: parked, Errored with Regent\'s own message', () => {
    const r = decide(provisioned(), reconcile(converged({ loadBalancer: lbPresent('ERROR'), floatingIP: absent })));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['inconsistent', 'provisioningStatusUnusable', []]);
    expect(loadBalancerAvailable(r.snapshot)).to.deep.equal({ status: 'False', reason: 'Errored', message: 'Octavia reports the load balancer in provisioning status ERROR' });
    const child = decide(provisioned(), reconcile(converged(withPool(N.http.pool, poolObs('http', { provisioningStatus: 'ERROR', members: [] })))));
    expect([child.value, child.types]).to.deep.equal(['inconsistent', []]);
    expect(loadBalancerAvailable(child.snapshot).message).to.equal(`Octavia reports pool ${N.http.pool} in provisioning status ERROR`);
  });

  for (const status of ['SOMETHING_OCTAVIA_ADDS_LATER', 'active', '', 'DELETED', 'ERROR ']) {
    it(`LB1 any other status is a consistency error: '${status}' (not echoed)`, () => {
      const r = decide(provisioned(), reconcile(converged({ listeners: withListener(N.dns.listener, listenerObs('dns', { provisioningStatus: status })).listeners, floatingIP: absent })));
      expect([r.value, r.types]).to.deep.equal(['inconsistent', []]);
      const available = loadBalancerAvailable(r.snapshot);
      expect(available.reason).to.equal('ConsistencyError');
      if (status.length > 0 && status !== 'DELETED') expect(available.message).to.not.include(status);
    });
  }

  it('LB1 health reads provisioning_status, never operating_status: an OFFLINE/ERROR operating status changes nothing', () => {
    const noisy = converged();
    const lb = { ...(noisy.loadBalancer as object), operatingStatus: 'ERROR', operating_status: 'OFFLINE' } as unknown as Obs['loadBalancer'];
    const r = decide(after(), reconcile({ ...noisy, loadBalancer: lb }));
    expect([r.value, r.types]).to.deep.equal(['provisioned', []]);
    expect(loadBalancerAvailable(r.snapshot).status).to.equal('True');
  });

  it('LB1 a park is left by the first clean fresh pass', () => {
    const parked = after(reconcile(converged({ loadBalancer: lbPresent('ERROR') })));
    expect(decide(parked, reconcile(converged())).value).to.equal('provisioned');
  });
});

describe('load balancer: exact names (LB2)', () => {
  it('LB2 two load balancers named exactly lb-{lb}: consistency error, nothing created', () => {
    const r = decide(after(), reconcile({ loadBalancer: { kind: 'duplicate', ids: ['lb-1', 'lb-2'] } }));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['inconsistent', 'duplicateNames', []]);
    expect(loadBalancerAvailable(r.snapshot)).to.deep.equal({ status: 'False', reason: 'ConsistencyError', message: `more than one Octavia load balancer is named exactly ${LB}` });
  });

  it('LB2 two exact matches of a child name park too, whatever else differs', () => {
    const r = decide(provisioned(), reconcile(converged({ listeners: withListener(N.http.listener, { kind: 'duplicate', ids: ['a', 'b'] }).listeners, floatingIP: absent })));
    expect([r.value, r.types]).to.deep.equal(['inconsistent', []]);
    expect(r.context.problem).to.deep.include({ kind: 'duplicate', subject: N.http.listener });
  });

  it('LB2 two orphans of one name are duplicates as well: nothing is pruned', () => {
    const r = decide(provisioned(), reconcile(converged({ orphans: [orphan('pool', 'old', 'p-8'), orphan('pool', 'old', 'p-9')] })));
    expect([r.value, r.types]).to.deep.equal(['inconsistent', []]);
  });

  it('LB2 duplicates during a deletion: nothing is deleted', () => {
    const armed = after(reconcile(converged()), deleting(converged()));
    const r = decide(armed, deleting({ loadBalancer: { kind: 'duplicate', ids: ['lb-1', 'lb-2'] } }));
    expect([r.value, r.types]).to.deep.equal(['inconsistent', []]);
  });
});

describe('load balancer: from nothing (LB3)', () => {
  it('LB3 nothing → the load balancer alone, with its VIP: `listeners` is the empty array (Zed never provisions nested children, §16)', () => {
    const r = decide(after(), reconcile({ loadBalancer: absent }, { desired: desired({ vipAddress: '10.0.0.5' }) }));
    expect([r.value, r.outcome]).to.deep.equal(['provisioning', 'loadBalancerCreateSubmitted']);
    expect(r.effects).to.deep.equal([{ type: 'octavia.createLoadBalancer', subject: LB, name: LB, vipSubnetId: 'subnet-7', vipAddress: '10.0.0.5', listeners: [] }]);
    expect(decide(after(), reconcile({ loadBalancer: absent })).effects).to.deep.equal([{ type: 'octavia.createLoadBalancer', subject: LB, name: LB, vipSubnetId: 'subnet-7', listeners: [] }]);
  });

  it('LB3 nothing → Provisioned against the model of Zed, two listeners (TCP+UDP, members and monitors) and a floating IP: 11 passes, 10 calls', () => {
    const run = toProvisioned(desired());
    expect(run.passes).to.deep.equal([
      ['loadBalancerCreateSubmitted', ['octavia.createLoadBalancer']],
      ['pendingYield', []], // Octavia PENDING_CREATE
      ['listenerCreateSubmitted', ['octavia.createListener']], // http
      ['poolCreateSubmitted', ['octavia.createPool']],
      ['membersUpdateSubmitted', ['octavia.setPoolMembers']],
      ['monitorCreateSubmitted', ['octavia.createHealthMonitor']],
      ['listenerCreateSubmitted', ['octavia.createListener']], // dns
      ['poolCreateSubmitted', ['octavia.createPool']],
      ['membersUpdateSubmitted', ['octavia.setPoolMembers']],
      ['monitorCreateSubmitted', ['octavia.createHealthMonitor']],
      ['floatingIPCreateSubmitted', ['neutron.createFloatingIP']], // Neutron's answer completes it
    ]);
    expect(run.snapshot.value).to.equal('provisioned');
    expect(loadBalancerAvailable(run.snapshot)).to.deep.equal({ status: 'True', reason: 'Provisioned', message: 'the load balancer is active' });
    expect(loadBalancerObserved(run.snapshot)).to.deep.equal({ loadBalancerID: 'lb-1', vipAddress: '10.0.0.5', floatingIP: '203.0.113.7', provisioningStatus: 'ACTIVE' });
    // the pool went in as the listener's default pool (listener_id): no listener update was needed
    const pools = run.effects.filter((e) => e.type === 'octavia.createPool');
    expect(pools.map((e) => [e.name, e.listenerId])).to.deep.equal([[N.http.pool, `id:${N.http.listener}`], [N.dns.pool, `id:${N.dns.listener}`]]);
    expect(run.effects.map((e) => e.type)).to.not.include('octavia.updateListener');
    // the next pass finds it converged, nothing sent
    const next = decide(run.snapshot, reconcile(run.octavia.observe(), { at: T_LATER }));
    expect([next.value, next.types]).to.deep.equal(['provisioned', []]);
    expect(loadBalancerListenerStates(next.snapshot).map((l) => l.state)).to.deep.equal(['Provisioned', 'Provisioned']);
    // without a floating IP: the last pass finds everything ACTIVE (11 passes, 9 calls)
    const plain = toProvisioned(desired({ floatingIP: { wanted: false } }));
    expect([plain.passes.length, plain.passes.flatMap((x) => x[1]).length, plain.passes.at(-1)?.[0], plain.snapshot.value]).to.deep.equal([11, 9, 'converged', 'provisioned']);
    // a pool without members and a listener without a monitor skip those passes
    const bare = toProvisioned(desired({ floatingIP: { wanted: false }, listeners: [http({ pool: { members: [] } })] }));
    expect(bare.passes.map((x) => x[0])).to.deep.equal(['loadBalancerCreateSubmitted', 'pendingYield', 'listenerCreateSubmitted', 'poolCreateSubmitted', 'converged']);
  });

  it('LB3 the model of Zed is what makes the old nested creates fail: stranded children yield for ever, a nested pool is a 500', () => {
    const octavia = zed(desired());
    octavia.apply({ type: 'octavia.createLoadBalancer', subject: LB, name: LB, vipSubnetId: 'subnet-7', listeners: [{ name: N.http.listener }] });
    octavia.observe();
    let s = after(reconcile({ loadBalancer: absent }));
    for (const at of [T_SOON, T_LATER]) {
      const r = decide(s, reconcile(octavia.observe(), { at }));
      expect([r.outcome, r.types]).to.deep.equal(['pendingYield', []]);
      s = r.snapshot;
    }
    expect(octavia.apply({ type: 'octavia.createPool', subject: N.http.pool, name: N.http.pool, members: [{ address: '10.0.1.11', protocolPort: 8080 }] }).type).to.equal('outcomeUnknown');
    expect(octavia.apply({ type: 'octavia.createListener', subject: N.dns.listener, name: N.dns.listener, defaultPool: { name: N.dns.pool } }).type).to.equal('outcomeUnknown');
  });

  it('LB3/LB12 a crash between Octavia\'s 202 and the recorded result adopts by exact name, never creates twice', () => {
    // the create was decided and executed, its answer never recorded; the next pass finds lb-{lb}
    const crashed = after(reconcile({ loadBalancer: absent }));
    expect(ctx(crashed).mutation).to.deep.include({ effect: LB_EFFECTS.createLoadBalancer, answer: 'pending' });
    const r = decide(crashed, reconcile({ ...allIn('PENDING_CREATE'), floatingIP: absent }, { at: T_SOON }));
    expect([r.outcome, r.types]).to.deep.equal(['pendingYield', []]);
    expect(r.context.loadBalancerId).to.equal('lb-1');
    expect(r.context.mutation).to.equal(null);
    expect(decide(r.snapshot, reconcile(converged(), { at: T_LATER })).types).to.deep.equal([]);
  });
});

describe('load balancer: a listener or pool missing (LB4)', () => {
  it('LB4 an existing load balancer missing a listener: the listener alone, no nested pool (Zed answers one with 500)', () => {
    const r = decide(provisioned(), reconcile(converged({ ...withListener(N.dns.listener, absent), ...withPool(N.dns.pool, absent), ...withMonitor(N.dns.monitor, absent) })));
    expect(r.outcome).to.equal('listenerCreateSubmitted');
    expect(r.effects).to.deep.equal([
      {
        type: 'octavia.createListener',
        subject: N.dns.listener,
        loadBalancerId: 'lb-1',
        name: N.dns.listener,
        protocol: 'UDP',
        protocolPort: 53,
        allowedCidrs: null,
      },
    ]);
  });

  it('LB4 a listener missing whose pool exists: the listener is created on that pool, never a second pool of the name', () => {
    const r = decide(provisioned(), reconcile(converged(withListener(N.dns.listener, absent))));
    expect(r.types).to.deep.equal(['octavia.createListener']);
    expect(r.effects[0]).to.deep.include({ defaultPoolId: 'pool-dns' });
    expect(r.effects[0]).to.not.have.property('defaultPool');
  });

  it('LB4 a pool missing under a listener without a default pool: the pool alone with listenerId (it becomes the default pool); members and monitor on later passes', () => {
    const r = decide(provisioned(), reconcile(converged({ ...withListener(N.http.listener, listenerObs('http', { defaultPoolId: null })), ...withPool(N.http.pool, absent), ...withMonitor(N.http.monitor, absent) })));
    expect(r.effects).to.deep.equal([
      {
        type: 'octavia.createPool',
        subject: N.http.pool,
        loadBalancerId: 'lb-1',
        listenerId: 'listener-http',
        name: N.http.pool,
        protocol: 'TCP',
        lbAlgorithm: 'ROUND_ROBIN',
      },
    ]);
    // the pool created (empty, the listener linked): the member set next, then the monitor
    const created = converged({ ...withPool(N.http.pool, poolObs('http', { members: [] })), ...withMonitor(N.http.monitor, absent) });
    const members = decide(r.snapshot, reconcile(created, { at: T_SOON }));
    expect(members.types).to.deep.equal(['octavia.setPoolMembers']);
    expect(decide(members.snapshot, reconcile(converged(withMonitor(N.http.monitor, absent)), { at: T_SOON })).types).to.deep.equal(['octavia.createHealthMonitor']);
  });

  it('LB4 a pool missing under a listener linked elsewhere: created unlinked (linking it is the next pass\'s listener update)', () => {
    const r = decide(provisioned(), reconcile(converged({ ...withListener(N.http.listener, listenerObs('http', { defaultPoolId: 'pool-foreign' })), ...withPool(N.http.pool, absent) })));
    expect(r.effects[0]).to.deep.include({ listenerId: null, loadBalancerId: 'lb-1' });
    expect(r.effects[0]).to.not.have.any.keys('members', 'healthMonitor');
    const linked = decide(r.snapshot, reconcile(converged(withListener(N.http.listener, listenerObs('http', { defaultPoolId: 'pool-foreign' }))), { at: T_SOON }));
    expect(linked.effects).to.deep.equal([{ type: 'octavia.updateListener', subject: N.http.listener, listenerId: 'listener-http', name: N.http.listener, defaultPoolId: 'pool-http' }]);
  });
});

describe('load balancer: converge in place, one mutation per pass (LB5–LB7, LB12)', () => {
  it('LB5 allowed CIDRs differ: one listener update with the spec\'s set', () => {
    const r = decide(provisioned(), reconcile(converged(withListener(N.http.listener, listenerObs('http', { allowedCidrs: ['0.0.0.0/0'] })))));
    expect(r.effects).to.deep.equal([{ type: 'octavia.updateListener', subject: N.http.listener, listenerId: 'listener-http', name: N.http.listener, allowedCidrs: ['10.0.0.0/8'] }]);
  });

  it('LB5 an empty spec list allows everything: sent as null; null and [] observed are the same', () => {
    const open = desired({ listeners: [http({ allowedCIDRs: [] }), dns()] });
    const r = decide(provisioned(), reconcile(converged(), { desired: open }));
    expect(r.effects[0]).to.deep.include({ allowedCidrs: null });
    expect(decide(provisioned(), reconcile(converged(withListener(N.http.listener, listenerObs('http', { allowedCidrs: null }))), { desired: open })).types).to.deep.equal([]);
    expect(decide(provisioned(), reconcile(converged(withListener(N.http.listener, listenerObs('http', { allowedCidrs: ['10.0.0.0/8', '10.0.0.0/8'] }))))).types).to.deep.equal([]);
  });

  it('LB5 TCP idle timeouts: seconds in the spec, milliseconds to Octavia; a timeout the spec leaves out is not managed', () => {
    const r = decide(provisioned(), reconcile(converged(withListener(N.http.listener, listenerObs('http', { timeoutClientData: 50_000 })))));
    expect(r.effects).to.deep.equal([{ type: 'octavia.updateListener', subject: N.http.listener, listenerId: 'listener-http', name: N.http.listener, timeoutClientData: 60_000 }]);
    const unmanaged = desired({ listeners: [http({ idleTimeouts: { clientDataSeconds: 60 } }), dns()] });
    expect(decide(provisioned(), reconcile(converged(withListener(N.http.listener, listenerObs('http', { timeoutMemberData: 50_000 }))), { desired: unmanaged })).types).to.deep.equal([]);
  });

  it('LB5 default-pool linkage: a listener pointing elsewhere is relinked to its deterministic pool', () => {
    const r = decide(provisioned(), reconcile(converged(withListener(N.dns.listener, listenerObs('dns', { defaultPoolId: null })))));
    expect(r.effects).to.deep.equal([{ type: 'octavia.updateListener', subject: N.dns.listener, listenerId: 'listener-dns', name: N.dns.listener, defaultPoolId: 'pool-dns' }]);
  });

  it('LB5 several listener fields differ: ONE update carries them all', () => {
    const r = decide(provisioned(), reconcile(converged(withListener(N.http.listener, listenerObs('http', { allowedCidrs: null, timeoutMemberData: 1, defaultPoolId: 'x' })))));
    expect(r.effects).to.deep.equal([
      { type: 'octavia.updateListener', subject: N.http.listener, listenerId: 'listener-http', name: N.http.listener, allowedCidrs: ['10.0.0.0/8'], timeoutMemberData: 120_000, defaultPoolId: 'pool-http' },
    ]);
  });

  it('LB6 pool members: the whole member set in one batch update; order does not matter', () => {
    const r = decide(provisioned(), reconcile(converged(withPool(N.http.pool, poolObs('http', { members: [{ id: 'm-1', address: '10.0.1.11', port: 8080 }, { id: 'm-9', address: '10.0.1.99', port: 8080 }] })))));
    expect(r.effects).to.deep.equal([
      { type: 'octavia.setPoolMembers', subject: N.http.pool, poolId: 'pool-http', name: N.http.pool, members: [{ address: '10.0.1.11', protocolPort: 8080 }, { address: '10.0.1.12', protocolPort: 8080 }] },
    ]);
    const reversed = poolObs('http', { members: [{ id: 'm-2', address: '10.0.1.12', port: 8080 }, { id: 'm-1', address: '10.0.1.11', port: 8080 }] });
    expect(decide(provisioned(), reconcile(converged(withPool(N.http.pool, reversed)))).types).to.deep.equal([]);
  });

  it('LB6 a port change of one member is a different member; a zero-member pool is converged to the empty set', () => {
    const moved = poolObs('http', { members: [{ id: 'm-1', address: '10.0.1.11', port: 8080 }, { id: 'm-2', address: '10.0.1.12', port: 9090 }] });
    expect(decide(provisioned(), reconcile(converged(withPool(N.http.pool, moved)))).types).to.deep.equal(['octavia.setPoolMembers']);
    const none = desired({ listeners: [http(), dns({ pool: { members: [], healthMonitor: dns().pool.healthMonitor } })] });
    const r = decide(provisioned(), reconcile(converged(), { desired: none }));
    expect(r.effects).to.deep.equal([{ type: 'octavia.setPoolMembers', subject: N.dns.pool, poolId: 'pool-dns', name: N.dns.pool, members: [] }]);
    expect(decide(provisioned(), reconcile(converged(withPool(N.dns.pool, poolObs('dns', { members: [] }))), { desired: none })).value).to.equal('provisioned');
  });

  it('LB7 a health monitor wanted and missing: one create on the pool, its type from the protocol', () => {
    const r = decide(provisioned(), reconcile(converged(withMonitor(N.dns.monitor, absent))));
    expect(r.effects).to.deep.equal([{ type: 'octavia.createHealthMonitor', subject: N.dns.monitor, poolId: 'pool-dns', name: N.dns.monitor, monitorType: 'UDP-CONNECT', delay: 10, timeout: 5, maxRetries: 2, maxRetriesDown: 4 }]);
  });

  it('LB7 thresholds differ: updated in place (max_retries_down left out is Octavia\'s default 3)', () => {
    const r = decide(provisioned(), reconcile(converged(withMonitor(N.http.monitor, monitorObs('http', { maxRetriesDown: 5 })))));
    expect(r.effects).to.deep.equal([{ type: 'octavia.updateHealthMonitor', subject: N.http.monitor, healthMonitorId: 'hm-http', name: N.http.monitor, delay: 5, timeout: 3, maxRetries: 3, maxRetriesDown: 3 }]);
  });

  it('LB7 a health monitor no longer wanted is deleted, write-ahead (armed, then sent)', () => {
    const noMonitor = desired({ listeners: [http({ pool: { members: http().pool.members } }), dns()] });
    const armed = decide(provisioned(), reconcile(converged(), { desired: noMonitor }));
    expect([armed.value, armed.outcome, armed.types]).to.deep.equal(['pruning', 'pruneArmed', []]);
    const sent = decide(armed.snapshot, reconcile(converged(), { desired: noMonitor }));
    expect(sent.effects).to.deep.equal([{ type: 'octavia.deleteHealthMonitor', subject: N.http.monitor, healthMonitorId: 'hm-http', name: N.http.monitor }]);
  });

  it('LB12 ONE mutation per pass, then yield: several differences are converged over several passes, each after Octavia settles', () => {
    const drifted = converged({
      ...withListener(N.http.listener, listenerObs('http', { allowedCidrs: null })),
      ...withPool(N.dns.pool, poolObs('dns', { members: [] })),
      ...withMonitor(N.http.monitor, monitorObs('http', { delay: 30 })),
      floatingIP: absent,
    });
    const first = decide(provisioned(), reconcile(drifted));
    expect(first.types).to.deep.equal(['octavia.updateListener']);
    // Octavia is PENDING_UPDATE now: nothing is sent
    expect(decide(first.snapshot, reconcile({ ...drifted, loadBalancer: lbPresent('PENDING_UPDATE') }, { at: T_SOON })).types).to.deep.equal([]);
    const afterListener = converged({ ...withPool(N.dns.pool, poolObs('dns', { members: [] })), ...withMonitor(N.http.monitor, monitorObs('http', { delay: 30 })), floatingIP: absent });
    const second = decide(first.snapshot, reconcile(afterListener, { at: T_SOON }));
    expect(second.types).to.deep.equal(['octavia.updateHealthMonitor']);
  });

  it('LB12 a 409 is a yield, never an error: recorded, and the next pass decides the same mutation again', () => {
    const drifted = converged(withPool(N.http.pool, poolObs('http', { members: [] })));
    const sent = after(reconcile(converged()), reconcile(drifted));
    const c = decide(sent, result('conflict', LB_EFFECTS.setPoolMembers, N.http.pool));
    expect([c.value, c.outcome]).to.deep.equal(['provisioning', 'conflict']);
    expect(loadBalancerAvailable(c.snapshot)).to.deep.include({ status: 'False', reason: 'Provisioning' });
    expect(decide(c.snapshot, reconcile(drifted, { at: T_SOON })).types).to.deep.equal(['octavia.setPoolMembers']);
    // a 409 storm: each answer a yield, never Errored
    let s = c.snapshot;
    for (let i = 0; i < 5; i++) {
      s = decide(s, reconcile(drifted, { at: T_SOON })).snapshot;
      s = decide(s, result('conflict', LB_EFFECTS.setPoolMembers, N.http.pool)).snapshot;
      expect(loadBalancerAvailable(s).reason).to.equal('Provisioning');
    }
  });

  it('LB12 a refusal (not 409, not 404) parks in failed until a new generation; a 404 lets the next pass decide', () => {
    const drifted = converged(withPool(N.http.pool, poolObs('http', { members: [] })));
    const sent = after(reconcile(converged()), reconcile(drifted));
    const refused = decide(sent, result('rejected', LB_EFFECTS.setPoolMembers, N.http.pool, { status: 400, reason: 'badRequest' }));
    expect(refused.value).to.equal('failed');
    expect(loadBalancerAvailable(refused.snapshot)).to.deep.equal({ status: 'False', reason: 'Errored', message: 'Octavia refused to set the pool members (HTTP 400)' });
    expect(decide(refused.snapshot, reconcile(drifted, { at: T_LATER })).types).to.deep.equal([]);
    expect(decide(refused.snapshot, reconcile(drifted, { generation: 2, at: T_LATER })).types).to.deep.equal(['octavia.setPoolMembers']);
    const gone = decide(sent, result('rejected', LB_EFFECTS.setPoolMembers, N.http.pool, { status: 404, reason: 'notFound' }));
    expect([gone.value, gone.outcome]).to.deep.equal(['provisioning', 'notFound']);
    expect(decide(gone.snapshot, reconcile(drifted)).types).to.deep.equal(['octavia.setPoolMembers']);
  });

  it('LB12 an unanswered update is decided afresh from the next observation (idempotent): not sent when it landed, sent when it did not', () => {
    const drifted = converged(withListener(N.http.listener, listenerObs('http', { allowedCidrs: null })));
    const unknown = after(reconcile(converged()), reconcile(drifted), result('outcomeUnknown', LB_EFFECTS.updateListener, N.http.listener));
    expect(decide(unknown, reconcile(converged(), { at: T_SOON })).types).to.deep.equal([]);
    expect(decide(unknown, reconcile(drifted, { at: T_SOON })).types).to.deep.equal(['octavia.updateListener']);
  });

  it('LB12 an unanswered create is never re-sent blindly: absent within the window waits; past it, it is created again; seen, it is adopted', () => {
    const missing = converged({ ...withListener(N.dns.listener, absent), ...withPool(N.dns.pool, absent), ...withMonitor(N.dns.monitor, absent) });
    const unknown = after(reconcile(converged()), reconcile(missing), result('outcomeUnknown', LB_EFFECTS.createListener, N.dns.listener));
    const wait = decide(unknown, reconcile(missing, { at: T_SOON }));
    expect([wait.outcome, wait.types]).to.deep.equal(['awaitingCreate', []]);
    expect(loadBalancerAvailable(wait.snapshot).message).to.equal('waiting to see whether an unanswered create took effect');
    expect(decide(unknown, reconcile(missing, { at: T_LATER })).types).to.deep.equal(['octavia.createListener']);
    expect(decide(unknown, reconcile(converged(), { at: T_SOON })).types).to.deep.equal([]);
    expect(CREATE_WINDOW_MS).to.equal(120_000);
  });

  it('LB12 an accepted create whose object a later lookup does not show was removed: created again at once', () => {
    const missing = converged(withMonitor(N.dns.monitor, absent));
    const accepted = after(reconcile(converged()), reconcile(missing), result('accepted', LB_EFFECTS.createHealthMonitor, N.dns.monitor, { ids: { [N.dns.monitor]: 'hm-new' } }));
    expect(decide(accepted, reconcile(missing, { at: T_SOON })).types).to.deep.equal(['octavia.createHealthMonitor']);
  });

  it('LB12 a result for another decision than the standing one is not stored', () => {
    const s = after(reconcile(converged()), reconcile(converged(withPool(N.http.pool, poolObs('http', { members: [] })))));
    expect(decide(s, result('conflict', LB_EFFECTS.updateListener, N.http.listener)).changed).to.equal(false);
    expect(decide(s, result('accepted', LB_EFFECTS.setPoolMembers, N.dns.pool)).changed).to.equal(false);
  });
});

describe('load balancer: prune (LB8)', () => {
  it('LB8 an orphaned listener: armed on one pass, deleted on a later one that reads the arm back and sees it again', () => {
    const obs = converged({ orphans: [orphan('listener', 'old', 'listener-9')] });
    const armed = decide(provisioned(), reconcile(obs));
    expect([armed.value, armed.outcome, armed.types]).to.deep.equal(['pruning', 'pruneArmed', []]);
    expect(armed.context.armed).to.deep.equal([{ effect: 'octavia.deleteListener', id: 'listener-9', subject: `${LB}-old-listener` }]);
    const sent = decide(armed.snapshot, reconcile(obs));
    expect([sent.value, sent.outcome]).to.deep.equal(['pruning', 'listenerPruneSubmitted']);
    expect(sent.effects).to.deep.equal([{ type: 'octavia.deleteListener', subject: `${LB}-old-listener`, listenerId: 'listener-9', name: `${LB}-old-listener` }]);
    // Octavia applies it (PENDING_UPDATE): the arm stands; gone: converged
    const pending = decide(sent.snapshot, reconcile({ ...obs, loadBalancer: lbPresent('PENDING_UPDATE') }));
    expect([pending.value, pending.types]).to.deep.equal(['pruning', []]);
    expect(decide(pending.snapshot, reconcile(converged())).value).to.equal('provisioned');
  });

  it('LB8 pools and monitors after the topology converged: the pool first (its delete takes its monitor), one delete per pass', () => {
    const obs = converged({ orphans: [orphan('monitor', 'old', 'hm-9'), orphan('pool', 'old', 'pool-9')] });
    const armed = after(reconcile(converged()), reconcile(obs));
    const first = decide(armed, reconcile(obs));
    expect(first.types).to.deep.equal(['octavia.deletePool']);
    const second = decide(first.snapshot, reconcile(converged({ orphans: [orphan('monitor', 'old', 'hm-9')] })));
    expect(second.types).to.deep.equal(['octavia.deleteHealthMonitor']);
  });

  it('LB8 orphaned listeners go before anything is created: a renamed listener frees its port first', () => {
    const renamed = desired({ listeners: [http({ name: 'www' }), dns()] });
    const obs = converged({
      listeners: { [`${LB}-www-listener`]: absent, [N.dns.listener]: listenerObs('dns') },
      pools: { [`${LB}-www-pool`]: absent, [N.dns.pool]: poolObs('dns') },
      monitors: { [`${LB}-www-monitor`]: absent, [N.dns.monitor]: monitorObs('dns') },
      orphans: [orphan('listener', 'http', 'listener-http'), orphan('pool', 'http', 'pool-http'), orphan('monitor', 'http', 'hm-http')],
    });
    const armed = decide(provisioned(), reconcile(obs, { desired: renamed }));
    expect([armed.outcome, armed.types]).to.deep.equal(['pruneArmed', []]);
    expect(decide(armed.snapshot, reconcile(obs, { desired: renamed })).types).to.deep.equal(['octavia.deleteListener']);
  });

  it('LB8 never an implied name, never a name not of Regent\'s shape', () => {
    const foreign = converged({ orphans: [{ kind: 'listener', id: 'x-1', name: 'someone-elses-listener', provisioningStatus: 'ACTIVE' }, { kind: 'pool', id: 'x-2', name: `${LB}-pool`, provisioningStatus: 'ACTIVE' }, orphan('pool', 'http', 'pool-http')] });
    const r = decide(provisioned(), reconcile(foreign));
    expect([r.value, r.types]).to.deep.equal(['provisioned', []]);
  });

  it('LB8 an arm is not authority over what a later pass does not see: a target gone, or replaced by another id, is not deleted', () => {
    const obs = converged({ orphans: [orphan('listener', 'old', 'listener-9')] });
    const armed = after(reconcile(converged()), reconcile(obs));
    expect(decide(armed, reconcile(converged())).types).to.deep.equal([]);
    const replaced = decide(armed, reconcile(converged({ orphans: [orphan('listener', 'old', 'listener-10')] })));
    expect([replaced.outcome, replaced.types]).to.deep.equal(['pruneArmed', []]);
  });

  it('LB8 a non-destructive step due takes precedence and disarms', () => {
    const obs = converged({ orphans: [orphan('pool', 'old', 'pool-9')] });
    const armed = after(reconcile(converged()), reconcile(obs));
    const r = decide(armed, reconcile({ ...obs, ...withPool(N.http.pool, poolObs('http', { members: [] })) }));
    expect([r.value, r.types]).to.deep.equal(['provisioning', ['octavia.setPoolMembers']]);
    expect(r.context.armed).to.deep.equal([]);
    expect(decide(r.snapshot, reconcile(obs)).types).to.deep.equal([]); // armed again before any delete
  });
});

describe('load balancer: floating IP (LB9)', () => {
  it('LB9 wanted, the load balancer ACTIVE: one create on the VIP port', () => {
    const r = decide(provisioned(), reconcile(converged({ floatingIP: absent })));
    expect(r.effects).to.deep.equal([{ type: 'neutron.createFloatingIP', subject: floatingIPSubject(LB), floatingNetworkId: 'public', portId: 'port-1', fixedIpAddress: '10.0.0.5', description: LB }]);
  });

  it('LB9 not while Octavia is PENDING_*; never on an ACTIVE load balancer without a VIP port id (LB15: a consistency error, not a wait)', () => {
    expect(decide(after(), reconcile({ ...allIn('PENDING_CREATE'), floatingIP: absent })).types).to.deep.equal([]);
    const noPort = decide(after(), reconcile({ ...converged({ loadBalancer: lbPresent('ACTIVE', { vipPortId: null }) }), floatingIP: undefined } as Obs));
    expect([noPort.value, noPort.outcome, noPort.types]).to.deep.equal(['inconsistent', 'vipUnusable', []]);
  });

  it('LB9 a VIP port whose floating IP was not looked up decides nothing (it might be one to release)', () => {
    const r = decide(provisioned(), reconcile({ ...converged(), floatingIP: undefined } as Obs, { desired: desired({ floatingIP: { wanted: false } }) }));
    expect([r.outcome, r.types]).to.deep.equal(['observationIncomplete', []]);
  });

  it('LB9 no longer wanted: released, write-ahead (armed, then the delete on a later pass)', () => {
    const unwanted = desired({ floatingIP: { wanted: false } });
    const armed = decide(provisioned(), reconcile(converged(), { desired: unwanted }));
    expect([armed.outcome, armed.types]).to.deep.equal(['pruneArmed', []]);
    const sent = decide(armed.snapshot, reconcile(converged(), { desired: unwanted }));
    expect(sent.effects).to.deep.equal([{ type: 'neutron.deleteFloatingIP', subject: floatingIPSubject(LB), floatingIPId: 'fip-1', portId: 'port-1' }]);
  });
});

describe('load balancer: the endpoint (LB15)', () => {
  const lbWith = (over: Record<string, unknown>) => lbPresent('ACTIVE', over);
  const two = { kind: 'duplicate' as const, floatingIPs: [{ id: 'fip-1', address: '203.0.113.7' }, { id: 'fip-2', address: '203.0.113.8' }] };
  // [rule, the observation, the outcome, the message naming what was seen]
  const cases: Array<[string, Obs, string, string]> = [
    ['an ACTIVE load balancer with VIP address \'\'', converged({ loadBalancer: lbWith({ vipAddress: '' }) }), 'vipUnusable', `Octavia reports load balancer ${LB} ACTIVE with VIP address ''`],
    ['an ACTIVE load balancer without a VIP address', converged({ loadBalancer: lbWith({ vipAddress: null }) }), 'vipUnusable', `Octavia reports load balancer ${LB} ACTIVE without a VIP address`],
    ...['vip.example', '10.0.0', '10.0.0.256', '010.0.0.5', ' 10.0.0.5', '10.0.0.5/24', '2001:db8::g', '2001:db8::5%eth0', '1:2:3:4:5:6:7:8:9'].map(
      (vip): [string, Obs, string, string] => [`an ACTIVE load balancer whose VIP address ${JSON.stringify(vip)} is not an IP address`, converged({ loadBalancer: lbWith({ vipAddress: vip }) }), 'vipUnusable', `Octavia reports load balancer ${LB} ACTIVE with VIP address '${vip}' (not an IP address)`],
    ),
    ['an ACTIVE load balancer with VIP port id \'\' (no floating-IP lookup was made)', { ...converged({ loadBalancer: lbWith({ vipPortId: '' }) }), floatingIP: undefined } as Obs, 'vipUnusable', `Octavia reports load balancer ${LB} ACTIVE with VIP port id ''`],
    ['an ACTIVE load balancer with a blank VIP port id', { ...converged({ loadBalancer: lbWith({ vipPortId: '  ' }) }), floatingIP: undefined } as Obs, 'vipUnusable', `Octavia reports load balancer ${LB} ACTIVE with VIP port id '  '`],
    ['an ACTIVE load balancer without a VIP port id', { ...converged({ loadBalancer: lbWith({ vipPortId: null }) }), floatingIP: undefined } as Obs, 'vipUnusable', `Octavia reports load balancer ${LB} ACTIVE without a VIP port id`],
    ['both at once are named together', { ...converged({ loadBalancer: lbWith({ vipAddress: '', vipPortId: '' }) }), floatingIP: undefined } as Obs, 'vipUnusable', `Octavia reports load balancer ${LB} ACTIVE with VIP address '' and with VIP port id ''`],
    ['two floating IPs on the VIP port', converged({ floatingIP: two }), 'floatingIPUnusable', `Neutron reports 2 floating IPs on VIP port port-1 of load balancer ${LB}: fip-1 ('203.0.113.7'), fip-2 ('203.0.113.8')`],
    ['one floating IP whose address is empty', converged({ floatingIP: { ...fip, address: '' } }), 'floatingIPUnusable', `Neutron reports floating IP fip-1 on VIP port port-1 of load balancer ${LB} with address ''`],
    ['one floating IP whose address is not an IP address', converged({ floatingIP: { ...fip, address: 'fip.example' } }), 'floatingIPUnusable', `Neutron reports floating IP fip-1 on VIP port port-1 of load balancer ${LB} with address 'fip.example' (not an IP address)`],
  ];
  for (const [rule, observed, outcome, message] of cases) {
    it(`LB15 ${rule}: a consistency error naming it, nothing sent, nothing published (not even the last good pass's), recovered by the first consistent pass`, () => {
      const before = provisioned();
      expect(loadBalancerObserved(before), 'the good pass published its endpoint').to.deep.include({ vipAddress: '10.0.0.5', floatingIP: '203.0.113.7' });
      const r = decide(before, reconcile(observed));
      expect([r.value, r.outcome, r.types]).to.deep.equal(['inconsistent', outcome, []]);
      expect(loadBalancerAvailable(r.snapshot)).to.deep.equal({ status: 'False', reason: 'ConsistencyError', message });
      expect(loadBalancerObserved(r.snapshot)).to.deep.include({ vipAddress: null, floatingIP: null });
      // it stays so while the cloud shows it, and no floating IP is created or released for it, wanted or not
      const again = decide(r.snapshot, reconcile(observed, { at: T_LATER }));
      expect([again.value, again.types]).to.deep.equal(['inconsistent', []]);
      const unwanted = decide(before, reconcile(observed, { desired: desired({ floatingIP: { wanted: false } }) }));
      expect([unwanted.value, unwanted.types]).to.deep.equal(['inconsistent', []]);
      const recovered = decide(again.snapshot, reconcile(converged(), { at: T_LATER }));
      expect([recovered.value, recovered.types]).to.deep.equal(['provisioned', []]);
      expect(loadBalancerAvailable(recovered.snapshot)).to.deep.include({ status: 'True', reason: 'Provisioned' });
      expect(loadBalancerObserved(recovered.snapshot)).to.deep.include({ vipAddress: '10.0.0.5', floatingIP: '203.0.113.7' });
    });
  }

  it('LB15 an IPv6 VIP and floating IP are usable endpoints', () => {
    const r = decide(after(), reconcile(converged({ loadBalancer: lbWith({ vipAddress: '2001:db8::5' }), floatingIP: { ...fip, address: '2001:db8:1::7' } })));
    expect(r.value).to.equal('provisioned');
    expect(loadBalancerObserved(r.snapshot)).to.deep.include({ vipAddress: '2001:db8::5', floatingIP: '2001:db8:1::7' });
  });

  it('LB15 the floating IP is created only on a usable endpoint: on the VIP port id and the VIP\'s address Octavia reported', () => {
    const r = decide(provisioned(), reconcile(converged({ loadBalancer: lbWith({ vipAddress: '10.0.0.9', vipPortId: 'port-9' }), floatingIP: absent })));
    expect(r.effects).to.deep.equal([{ type: 'neutron.createFloatingIP', subject: floatingIPSubject(LB), floatingNetworkId: 'public', portId: 'port-9', fixedIpAddress: '10.0.0.9', description: LB }]);
    const bad = decide(provisioned(), reconcile(converged({ loadBalancer: lbWith({ vipAddress: '' }), floatingIP: absent })));
    expect([bad.outcome, bad.types]).to.deep.equal(['vipUnusable', []]);
  });

  it('LB15 judged once everything is ACTIVE: a PENDING_* pass yields, and publishes no value that is not an IP address', () => {
    const r = decide(provisioned(), reconcile(converged({ loadBalancer: lbPresent('PENDING_UPDATE', { vipAddress: 'vip.example' }), floatingIP: { ...fip, address: '' } })));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['provisioning', 'pendingYield', []]);
    expect(loadBalancerObserved(r.snapshot)).to.deep.include({ vipAddress: null, floatingIP: null });
    const settled = decide(r.snapshot, reconcile(converged({ loadBalancer: lbWith({ vipAddress: 'vip.example' }) })));
    expect([settled.value, settled.outcome]).to.deep.equal(['inconsistent', 'vipUnusable']);
  });

  it('LB15 a requested VIP against one that is no address is LB15\'s, not LB11 drift', () => {
    const r = decide(provisioned(), reconcile(converged({ loadBalancer: lbWith({ vipAddress: '' }) }), { desired: desired({ vipAddress: '10.0.0.5' }) }));
    expect([r.value, r.outcome]).to.deep.equal(['inconsistent', 'vipUnusable']);
  });

  it('LB9/LB15 Neutron\'s answer without an IP address never completes the topology: nothing published, the next observation decides', () => {
    const sent = decide(provisioned(), reconcile(converged({ floatingIP: absent })));
    expect(sent.types).to.deep.equal(['neutron.createFloatingIP']);
    for (const address of ['', 'fip.example', undefined]) {
      const answered = decide(sent.snapshot, result('accepted', LB_EFFECTS.createFloatingIP, floatingIPSubject(LB), { ids: { [floatingIPSubject(LB)]: 'fip-9' }, ...(address !== undefined ? { address } : {}) }));
      expect([answered.value, answered.outcome], String(address)).to.deep.equal(['provisioning', 'accepted']);
      expect(loadBalancerAvailable(answered.snapshot).status).to.equal('False');
      expect(loadBalancerObserved(answered.snapshot).floatingIP).to.equal(null);
      const seen = decide(answered.snapshot, reconcile(converged({ floatingIP: { kind: 'present', id: 'fip-9', address: address ?? '' } })));
      expect([seen.value, seen.outcome, seen.types]).to.deep.equal(['inconsistent', 'floatingIPUnusable', []]);
    }
    const good = decide(sent.snapshot, result('accepted', LB_EFFECTS.createFloatingIP, floatingIPSubject(LB), { ids: { [floatingIPSubject(LB)]: 'fip-9' }, address: '203.0.113.9' }));
    expect([good.value, loadBalancerObserved(good.snapshot).floatingIP]).to.deep.equal(['provisioned', '203.0.113.9']);
  });

  it('LB15/LB14 in a deletion: several floating IPs park it (nothing released); one is released by its id whatever its address; without a usable VIP port id the cascade goes', () => {
    const armed = after(reconcile(converged()), deleting(converged()));
    const parked = decide(armed, deleting(converged({ floatingIP: two })));
    expect([parked.value, parked.outcome, parked.types]).to.deep.equal(['inconsistent', 'floatingIPUnusable', []]);
    expect(loadBalancerAvailable(parked.snapshot).message).to.equal(`Neutron reports 2 floating IPs on VIP port port-1 of load balancer ${LB}: fip-1 ('203.0.113.7'), fip-2 ('203.0.113.8')`);
    expect(decide(provisioned(), deleting(converged({ floatingIP: two }))).types, 'nor armed from a live state').to.deep.equal([]);
    // one removed by hand: the deletion continues by itself
    expect(decide(parked.snapshot, deleting(converged())).value).to.deep.equal({ deleting: 'armed' });
    const odd = decide(armed, deleting(converged({ floatingIP: { ...fip, address: '' } })));
    expect(odd.effects).to.deep.equal([{ type: 'neutron.deleteFloatingIP', subject: floatingIPSubject(LB), floatingIPId: 'fip-1', portId: 'port-1' }]);
    const noPort = decide(armed, deleting({ ...converged({ loadBalancer: lbWith({ vipPortId: '' }) }), floatingIP: undefined } as Obs));
    expect(noPort.types).to.deep.equal(['octavia.deleteLoadBalancer']);
  });

  it('LB15 the duplicate floating-IP observation decodes; a v1 payload (one floating IP) decodes unchanged', () => {
    expect(def.stimulus.decode(reconcile(converged({ floatingIP: two })))._tag).to.equal('Right');
    expect(def.stimulus.decode(reconcile(converged()))._tag).to.equal('Right');
    expect(def.version, 'a changed decision is a new machine version').to.equal(2);
    expect(def.schemaVersion, 'no payload changed shape').to.equal(1);
  });

  it('LB15 an IP address is what node:net\'s isIP takes (zones aside): v4 without leading zeros, v6 in every RFC 4291 text form', () => {
    const samples = [
      '0.0.0.0', '255.255.255.255', '1.2.3.4', '01.2.3.4', '1.2.3.04', '256.1.1.1', '1.2.3', '1.2.3.4.5', '1..2.3', ' 1.2.3.4', '1.2.3.4 ', '', '.', ':', '::', ':::', '1::', '::1',
      '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7::', '::2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9', '1::2::3', '1:::2', '12345::1', '00::1', 'g::1', 'fe80::1%eth0', '::ffff:1.2.3.4', '::1.2.3.4',
      '1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:7:1.2.3.4', '1:2:3:4:5::1.2.3.4', '::1.2.3', '1.2.3.4::', '::ffff:1.2.3.4:5', '2001:DB8::A', '2001:db8:0:0:0:0:2:1', ':1:2:3:4:5:6:7', '1:2:3:4:5:6:7:',
      // '::' stands for at least one group: eight groups around it are too many
      '1:2:3:4::5:6:7:8', '1:2:3:4:5:6::1.2.3.4', '1:2:3:4:5::6:1.2.3.4', '::1:2:3:4:5:6:7:8',
    ];
    const parts = ['', '0', '1', 'ff', 'ffff', '1ffff', '1.2.3.4', '300.1.1.1', ':', '::'];
    for (const a of parts) for (const b of parts) for (const c of parts) samples.push(`${a}:${b}:${c}`, `${a}::${b}:${c}`, `${a}.${b}.${c}.1`);
    let usable = 0;
    for (const sample of samples) {
      const node = isIP(sample) !== 0 && !sample.includes('%');
      expect(isIpAddress(sample), JSON.stringify(sample)).to.equal(node);
      if (node) usable++;
    }
    expect(usable).to.be.greaterThan(20);
  });

  it('LB15 a value named in a message is quoted: control characters, quotes and backslashes escaped, a long one cut', () => {
    const named = (vip: string) => loadBalancerAvailable(decide(provisioned(), reconcile(converged({ loadBalancer: lbWith({ vipAddress: vip }) }))).snapshot).message;
    expect(named("a'b\\c\nd")).to.equal(`Octavia reports load balancer ${LB} ACTIVE with VIP address 'a\\u0027b\\u005cc\\u000ad' (not an IP address)`);
    expect(named('x'.repeat(100))).to.equal(`Octavia reports load balancer ${LB} ACTIVE with VIP address '${'x'.repeat(64)}…' (not an IP address)`);
  });
});

describe('load balancer: protocols (LB10)', () => {
  it('LB10 UDP: no idle timeouts, no PROXY v2, a UDP pool and a UDP-CONNECT monitor', () => {
    const listener = decide(provisioned(), reconcile(converged({ ...withListener(N.dns.listener, absent), ...withPool(N.dns.pool, absent), ...withMonitor(N.dns.monitor, absent) })));
    expect(listener.effects[0]).to.deep.include({ type: 'octavia.createListener', protocol: 'UDP' });
    expect(listener.effects[0]).to.not.have.any.keys('timeoutClientData', 'timeoutMemberData');
    const pool = decide(provisioned(), reconcile(converged({ ...withListener(N.dns.listener, listenerObs('dns', { defaultPoolId: null })), ...withPool(N.dns.pool, absent), ...withMonitor(N.dns.monitor, absent) })));
    expect(pool.effects[0]).to.deep.include({ type: 'octavia.createPool', protocol: 'UDP' });
    const monitor = decide(provisioned(), reconcile(converged(withMonitor(N.dns.monitor, absent))));
    expect(monitor.effects[0]).to.deep.include({ type: 'octavia.createHealthMonitor', monitorType: 'UDP-CONNECT' });
  });

  it('LB10 TCP pools are PROXYV2 only with proxyProtocolV2, else TCP; TCP monitors are TCP', () => {
    const pool = (proxyProtocolV2: boolean) =>
      decide(provisioned(), reconcile(converged({ ...withListener(N.http.listener, listenerObs('http', { defaultPoolId: null })), ...withPool(N.http.pool, absent), ...withMonitor(N.http.monitor, absent) }), { desired: desired({ listeners: [http({ proxyProtocolV2 }), dns()] }) })).effects[0];
    expect(pool(true)).to.deep.include({ type: 'octavia.createPool', protocol: 'PROXYV2' });
    expect(pool(false)).to.deep.include({ type: 'octavia.createPool', protocol: 'TCP' });
    const monitor = decide(provisioned(), reconcile(converged({ ...withPool(N.http.pool, poolObs('http', { protocol: 'PROXYV2' })), ...withMonitor(N.http.monitor, absent) }), { desired: desired({ listeners: [http({ proxyProtocolV2: true }), dns()] }) }));
    expect(monitor.effects[0]).to.deep.include({ type: 'octavia.createHealthMonitor', monitorType: 'TCP' });
  });
});

describe('load balancer: what Octavia cannot change in place (LB11)', () => {
  const cases: Array<[string, Partial<Obs>, string]> = [
    ['listener protocol', withListener(N.http.listener, listenerObs('http', { protocol: 'UDP' })), `listener http is UDP port 80 in Octavia, the spec says TCP port 80: protocol and port cannot change in place`],
    ['listener port', withListener(N.http.listener, listenerObs('http', { port: 8080 })), `listener http is TCP port 8080 in Octavia, the spec says TCP port 80: protocol and port cannot change in place`],
    ['pool protocol (proxyProtocolV2 drift)', withPool(N.http.pool, poolObs('http', { protocol: 'PROXYV2' })), `pool of listener http is PROXYV2 in Octavia, the spec implies TCP: a pool's protocol cannot change in place`],
    ['monitor type', withMonitor(N.dns.monitor, monitorObs('dns', { type: 'PING' })), `health monitor of listener dns is PING in Octavia, the spec implies UDP-CONNECT: a monitor's type cannot change in place`],
  ];
  it('LB11 the requested VIP address differs: consistency error (no requested address: whatever Octavia allocated)', () => {
    const r = decide(provisioned(), reconcile(converged(), { desired: desired({ vipAddress: '10.0.0.99' }) }));
    expect([r.value, r.types]).to.deep.equal(['inconsistent', []]);
    expect(loadBalancerAvailable(r.snapshot).message).to.equal("the load balancer's VIP is 10.0.0.5 in Octavia, the spec asks for 10.0.0.99: a VIP address cannot change in place");
    expect(decide(provisioned(), reconcile(converged(), { desired: desired({ vipAddress: '10.0.0.5' }) })).value).to.equal('provisioned');
  });
  for (const [what, over, message] of cases) {
    it(`LB11 ${what} differs: consistency error, never deleted and recreated by guess`, () => {
      const r = decide(provisioned(), reconcile(converged(over)));
      expect([r.value, r.outcome, r.types]).to.deep.equal(['inconsistent', 'immutableFieldDrift', []]);
      expect(loadBalancerAvailable(r.snapshot)).to.deep.equal({ status: 'False', reason: 'ConsistencyError', message });
    });
  }
});

describe('load balancer: the spec (LB13)', () => {
  const bad: Array<[string, DesiredTopology, string]> = [
    ['UDP with idle timeouts', desired({ listeners: [dns({ idleTimeouts: { clientDataSeconds: 5 } })] }), 'listener dns: UDP listeners do not support idle timeouts'],
    ['UDP with PROXY v2', desired({ listeners: [dns({ proxyProtocolV2: true })] }), 'listener dns: UDP listeners do not support proxyProtocolV2'],
    ['a health-check timeout above its interval', desired({ listeners: [http({ pool: { members: [], healthMonitor: { delaySeconds: 3, timeoutSeconds: 5, maxRetries: 1 } } })] }), 'listener http: the health check timeout must not exceed its interval'],
    ['two listeners of one name', desired({ listeners: [http(), http({ port: 81 })] }), 'listener name http is used twice'],
    ['two listeners on one protocol and port', desired({ listeners: [http(), http({ name: 'other' })] }), 'two listeners use TCP port 80'],
    ['a member listed twice', desired({ listeners: [http({ pool: { members: [{ address: '10.0.1.1', port: 80 }, { address: '10.0.1.1', port: 80 }] } })] }), 'listener http: member 10.0.1.1:80 is listed twice'],
  ];
  for (const [what, spec, message] of bad) {
    it(`LB13 ${what}: InvalidSpec before any call`, () => {
      const r = decide(after(), reconcile({ loadBalancer: absent }, { desired: spec }));
      expect([r.value, r.outcome, r.types]).to.deep.equal(['invalid', 'invalidSpec', []]);
      expect(loadBalancerAvailable(r.snapshot)).to.deep.equal({ status: 'False', reason: 'InvalidSpec', message });
    });
  }

  it('LB13 TCP and UDP may share a port number', () => {
    expect(decide(after(), reconcile({ loadBalancer: absent }, { desired: desired({ listeners: [http({ port: 53 }), dns()] }) })).types).to.deep.equal(['octavia.createLoadBalancer']);
  });

  it('LB13 a spec the reconciler could not normalize is recorded; a valid one continues; a deletion still proceeds', () => {
    const r = decide(provisioned(), { type: 'specRejected', source: 'reconciler', generation: 2, problems: ['spec.listeners[0].port: Invalid value'] });
    expect(r.value).to.equal('invalid');
    expect(loadBalancerAvailable(r.snapshot)).to.deep.equal({ status: 'False', reason: 'InvalidSpec', message: 'the spec is invalid: spec.listeners[0].port: Invalid value' });
    expect(decide(r.snapshot, reconcile(converged())).value).to.equal('provisioned');
    expect(decide(r.snapshot, deleting(converged())).value).to.deep.equal({ deleting: 'armed' });
  });
});

describe('load balancer: delete (LB14)', () => {
  it('LB14 write-ahead: the first deletion pass arms and deletes nothing', () => {
    const r = decide(provisioned(), deleting(converged()));
    expect([r.value, r.outcome, r.types]).to.deep.equal([{ deleting: 'armed' }, 'deleteArmed', []]);
    expect(loadBalancerAvailable(r.snapshot)).to.deep.include({ status: 'False', reason: 'Deleting' });
  });

  it('LB14 release the floating IP first, then cascade-delete the load balancer; yield until a fresh lookup shows it absent', () => {
    const armed = after(reconcile(converged()), deleting(converged()));
    const release = decide(armed, deleting(converged()));
    expect([release.value, release.effects]).to.deep.equal([{ deleting: 'releasingFloatingIP' }, [{ type: 'neutron.deleteFloatingIP', subject: floatingIPSubject(LB), floatingIPId: 'fip-1', portId: 'port-1' }]]);
    const cascade = decide(release.snapshot, deleting(converged({ floatingIP: absent })));
    expect([cascade.value, cascade.effects]).to.deep.equal([{ deleting: 'submitted' }, [{ type: 'octavia.deleteLoadBalancer', subject: LB, loadBalancerId: 'lb-1', name: LB, cascade: true }]]);
    const busy = decide(cascade.snapshot, deleting({ ...allIn('PENDING_DELETE'), floatingIP: absent }));
    expect([busy.value, busy.types]).to.deep.equal([{ deleting: 'submitted' }, []]);
    const gone = decide(busy.snapshot, deleting({ loadBalancer: absent }));
    expect([gone.value, gone.outcome]).to.deep.equal(['deleted', 'deleted']);
    expect(loadBalancerListenerStates(cascade.snapshot).map((l) => l.state)).to.deep.equal(['Deleting', 'Deleting']);
  });

  it('LB14 without a floating IP the cascade is the first delete; missing is success; DELETED is gone', () => {
    const armed = after(reconcile(converged({ floatingIP: absent })), deleting(converged({ floatingIP: absent })));
    expect(decide(armed, deleting(converged({ floatingIP: absent }))).types).to.deep.equal(['octavia.deleteLoadBalancer']);
    expect(decide(provisioned(), deleting({ loadBalancer: absent })).value).to.equal('deleted');
    expect(decide(armed, deleting(converged({ loadBalancer: lbPresent('DELETED') }))).value).to.equal('deleted');
  });

  it('LB14 PENDING_* yields; an ERROR load balancer is deleted; a status Regent does not know parks', () => {
    const armed = after(reconcile(converged()), deleting(converged({ floatingIP: absent })));
    expect(decide(armed, deleting(converged({ loadBalancer: lbPresent('PENDING_UPDATE'), floatingIP: absent }))).types).to.deep.equal([]);
    expect(decide(armed, deleting(converged({ loadBalancer: lbPresent('ERROR'), floatingIP: absent }))).types).to.deep.equal(['octavia.deleteLoadBalancer']);
    const odd = decide(armed, deleting(converged({ loadBalancer: lbPresent('WHAT'), floatingIP: absent })));
    expect([odd.value, odd.types]).to.deep.equal(['inconsistent', []]);
    // children in ERROR (or a status Regent does not know) do not hold the cascade back: it deletes them too
    expect(decide(armed, deleting(converged({ ...withPool(N.http.pool, poolObs('http', { provisioningStatus: 'ERROR' })), floatingIP: absent }))).types).to.deep.equal(['octavia.deleteLoadBalancer']);
  });

  it('LB14 the delete targets the load balancer read back: another id found after the arm is armed first', () => {
    const armed = after(reconcile(converged()), deleting(converged({ floatingIP: absent })));
    const other = converged({ loadBalancer: lbPresent('ACTIVE', { id: 'lb-2' }), floatingIP: absent });
    const r = decide(armed, deleting(other));
    expect([r.value, r.outcome, r.types]).to.deep.equal([{ deleting: 'armed' }, 'deleteArmed', []]);
    expect(decide(r.snapshot, deleting(other)).effects[0]).to.deep.include({ loadBalancerId: 'lb-2' });
  });

  it('LB14 a cascade that did not take is sent again after L8\'s backoff, at once after a 409', () => {
    const obs = converged({ floatingIP: absent });
    const sent = after(reconcile(obs), deleting(obs), deleting(obs));
    expect(decide(sent, deleting(obs, { at: '2026-03-01T10:00:05Z' })).types).to.deep.equal([]);
    expect(decide(sent, deleting(obs, { at: T_SOON })).outcome).to.equal('deleteResubmitted');
    const conflicted = decide(sent, result('conflict', LB_EFFECTS.deleteLoadBalancer, LB)).snapshot;
    expect(decide(conflicted, deleting(obs, { at: T0 })).types).to.deep.equal(['octavia.deleteLoadBalancer']);
  });

  it('LB14 a deletion withdrawn before the cascade: back to converging, nothing deleted', () => {
    const armed = after(reconcile(converged()), deleting(converged()));
    const r = decide(armed, reconcile(converged()));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['provisioning', 'deletionWithdrawn', []]);
    expect(r.context.deletion).to.equal(null);
    // after the cascade was sent: nothing more is deleted; the live passes yield while Octavia deletes
    const obs = converged({ floatingIP: absent });
    const sent = after(reconcile(obs), deleting(obs), deleting(obs));
    const back = decide(sent, reconcile(obs, { at: T_LATER }));
    expect([back.value, back.types]).to.deep.equal(['provisioning', []]);
    expect(decide(back.snapshot, reconcile({ ...allIn('PENDING_DELETE'), floatingIP: absent }, { at: T_LATER })).types).to.deep.equal([]);
  });

  it('LB14/LB12 an absence while the load balancer\'s create may still land is not proof: the deletion waits out the window', () => {
    const creating = after(reconcile({ loadBalancer: absent }));
    const wait = decide(creating, deleting({ loadBalancer: absent }, { at: T_SOON }));
    expect([wait.value, wait.outcome, wait.types]).to.deep.equal([{ deleting: 'armed' }, 'awaitingCreate', []]);
    const landed = decide(wait.snapshot, deleting({ ...allIn('ACTIVE'), floatingIP: absent }, { at: T_SOON }));
    expect([landed.outcome, landed.types]).to.deep.equal(['deleteArmed', []]); // armed for what appeared, deleted on the next pass
    expect(decide(wait.snapshot, deleting({ loadBalancer: absent }, { at: T_LATER })).value).to.equal('deleted');
  });
});

describe('load balancer: status', () => {
  it('Available reasons: Provisioning, Provisioned, Errored, ConsistencyError, Deleting, InvalidSpec; no Octavia text reaches a message', () => {
    const reasons = new Set<string>();
    const states = [
      after(reconcile({ loadBalancer: absent })),
      provisioned(),
      after(reconcile(converged({ loadBalancer: lbPresent('ERROR') }))),
      after(reconcile({ loadBalancer: { kind: 'duplicate', ids: ['a', 'b'] } })),
      after(reconcile(converged()), deleting(converged())),
      after(reconcile({ loadBalancer: absent }, { desired: desired({ listeners: [dns({ proxyProtocolV2: true })] }) })),
      after(reconcile({ loadBalancer: absent }), result('rejected', LB_EFFECTS.createLoadBalancer, LB, { status: 400, reason: 'Invalid input for field/attribute vip_subnet_id. Value: subnet-7 host=octavia-api-3' })),
    ];
    for (const s of states) {
      const a = loadBalancerAvailable(s);
      reasons.add(a.reason);
      expect(a.message).to.not.match(/octavia-api|Invalid input/);
    }
    expect([...reasons].sort()).to.deep.equal(['ConsistencyError', 'Deleting', 'Errored', 'InvalidSpec', 'Provisioned', 'Provisioning']);
  });

  it('per-listener state and Octavia ids, from the last pass', () => {
    const r = decide(provisioned(), reconcile(converged({ ...withMonitor(N.dns.monitor, monitorObs('dns', { provisioningStatus: 'PENDING_UPDATE' })), floatingIP: fip })));
    expect(loadBalancerListenerStates(r.snapshot)).to.deep.equal([
      { name: 'http', state: 'Provisioned', listenerID: 'listener-http', poolID: 'pool-http', healthMonitorID: 'hm-http' },
      { name: 'dns', state: 'Provisioning', listenerID: 'listener-dns', poolID: 'pool-dns', healthMonitorID: 'hm-dns' },
    ]);
    const errored = decide(provisioned(), reconcile(converged(withPool(N.http.pool, poolObs('http', { provisioningStatus: 'ERROR' })))));
    expect(loadBalancerListenerStates(errored.snapshot).map((l) => l.state)).to.deep.equal(['Errored', 'Provisioned']);
  });
});

describe('load balancer: model-based, every reachable edge', function () {
  this.timeout(120_000);
  type Action = { type: string; params?: Record<string, unknown> };
  type Edge = { state: AnyMachineSnapshot; event: LoadBalancerStimulus; nextState: AnyMachineSnapshot; actions: Action[] };
  let edges: Edge[];
  before(() => {
    const machine = buildLoadBalancerMachine();
    const map = getAdjacencyMap(machine, {
      input: { stream: STREAM },
      events: def.audit?.alphabet() as never,
      serializeState: (s) => def.audit?.stateKey?.(s as AnyMachineSnapshot) ?? '',
      serializeEvent: (e) => JSON.stringify(e),
      limit: 1_000_000,
    });
    edges = (adjacencyMapToArray(map) as unknown as Edge[]).map((e) => ({ ...e, actions: (transition(machine, e.state as never, e.event as never) as unknown as [unknown, Action[]])[1] }));
  });
  const EFFECTS: readonly string[] = Object.values(LB_EFFECTS);
  const DESTRUCTIVE = ['neutron.deleteFloatingIP', 'octavia.deleteHealthMonitor', 'octavia.deleteListener', 'octavia.deletePool', 'octavia.deleteLoadBalancer'];
  const CREATES = ['octavia.createLoadBalancer', 'octavia.createListener', 'octavia.createPool', 'octavia.createHealthMonitor', 'neutron.createFloatingIP'];
  const effectsOf = (e: Edge) => e.actions.filter((a) => EFFECTS.includes(a.type));
  const rec = (e: Edge) => e.event as Reconcile;
  /** Every provisioning status the stimulus shows (load balancer, records, orphans). */
  const statuses = (o: Obs | undefined): string[] => {
    if (!o) return [];
    const out: string[] = o.loadBalancer.kind === 'present' ? [o.loadBalancer.provisioningStatus] : [];
    for (const r of [o.listeners, o.pools, o.monitors]) for (const l of Object.values(r ?? {})) if (l.kind === 'present') out.push(l.provisioningStatus);
    for (const x of o.orphans ?? []) out.push(x.provisioningStatus);
    return out;
  };
  const PENDING = ['PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE'];
  const armedState = (s: AnyMachineSnapshot) => JSON.stringify(s.value);

  it('explores every state', () => {
    const values = new Set(edges.map((e) => JSON.stringify(e.nextState.value)));
    for (const v of ['absent', 'provisioning', 'provisioned', 'pruning', 'inconsistent', 'invalid', 'failed', 'deleted']) expect(values, v).to.include(JSON.stringify(v));
    for (const sub of ['armed', 'releasingFloatingIP', 'submitted']) expect(values).to.include(JSON.stringify({ deleting: sub }));
    expect(edges.length).to.be.greaterThan(10_000);
  });

  it('LB12 at most one mutation effect per transition, and every effect carries its subject', () => {
    for (const e of edges) {
      expect(effectsOf(e).length, JSON.stringify(e.event)).to.be.at.most(1);
      for (const a of effectsOf(e)) {
        expect(a.params?.subject, a.type).to.be.a('string').and.not.equal('');
        // the engine records an effect as {...params, type}: a param named `type` would be lost
        expect(a.params ?? {}, a.type).to.not.have.property('type');
      }
    }
  });

  it('effect and monitor sources never declare a create, a delete or any other effect', () => {
    let results = 0;
    for (const e of edges) {
      if (e.event.source === 'reconciler') continue;
      results++;
      expect(e.event.source).to.equal('effect');
      expect(effectsOf(e), JSON.stringify(e.event)).to.deep.equal([]);
    }
    expect(results).to.be.greaterThan(0);
  });

  it('LB1 no effect while any status is PENDING_*', () => {
    let checked = 0;
    for (const e of edges) {
      if (e.event.type !== 'reconcile' || !statuses(rec(e).observed).some((s) => PENDING.includes(s))) continue;
      checked++;
      expect(effectsOf(e), JSON.stringify([e.state.value, rec(e).observed?.loadBalancer])).to.deep.equal([]);
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('LB1 no effect on a status neither ACTIVE nor PENDING_* — but a requested deletion\'s own deletes, of a load balancer ACTIVE or ERROR (whatever its children)', () => {
    let checked = 0;
    let deletions = 0;
    for (const e of edges) {
      if (e.event.type !== 'reconcile') continue;
      const odd = statuses(rec(e).observed).filter((s) => s !== 'ACTIVE' && !PENDING.includes(s));
      if (odd.length === 0) continue;
      checked++;
      const lb = rec(e).observed?.loadBalancer;
      if (rec(e).deletionRequested && armedState(e.state).includes('deleting') && effectsOf(e).length > 0) {
        deletions++;
        for (const a of effectsOf(e)) expect(['octavia.deleteLoadBalancer', 'neutron.deleteFloatingIP']).to.include(a.type);
        expect(lb?.kind === 'present' && ['ACTIVE', 'ERROR'].includes(lb.provisioningStatus)).to.equal(true);
      } else expect(effectsOf(e), JSON.stringify([e.state.value, odd])).to.deep.equal([]);
    }
    expect(checked).to.be.greaterThan(0);
    expect(deletions).to.be.greaterThan(0);
  });

  it('LB8/LB9/LB14 destructive effects only after an arm read back: from an armed state, for a target armed in an earlier event and observed again', () => {
    let destructive = 0;
    for (const e of edges) {
      for (const a of effectsOf(e).filter((x) => DESTRUCTIVE.includes(x.type))) {
        destructive++;
        const before = ctx(e.state);
        const o = rec(e).observed as Obs;
        if (a.type === 'octavia.deleteLoadBalancer' || (a.type === 'neutron.deleteFloatingIP' && rec(e).deletionRequested && armedState(e.state).includes('deleting'))) {
          expect(armedState(e.state)).to.match(/deleting/);
          expect(o.loadBalancer.kind).to.equal('present');
          expect(before.deletion?.loadBalancerId).to.equal(o.loadBalancer.kind === 'present' ? o.loadBalancer.id : undefined);
          if (a.type === 'octavia.deleteLoadBalancer') {
            expect(o.floatingIP?.kind ?? 'absent').to.equal('absent'); // the floating IP was released first
            expect(a.params?.loadBalancerId).to.equal(before.deletion?.loadBalancerId);
          }
          continue;
        }
        expect(e.state.value, JSON.stringify(a)).to.equal('pruning');
        const id = a.params?.listenerId ?? a.params?.poolId ?? a.params?.healthMonitorId ?? a.params?.floatingIPId;
        expect(before.armed.some((t) => t.effect === a.type && t.id === id), JSON.stringify([a, before.armed])).to.equal(true);
        expect(rec(e).deletionRequested).to.equal(false);
      }
    }
    expect(destructive).to.be.greaterThan(0);
  });

  it('LB8 a prune never names what the spec implies', () => {
    for (const e of edges) {
      for (const a of effectsOf(e).filter((x) => ['octavia.deleteListener', 'octavia.deletePool', 'octavia.deleteHealthMonitor'].includes(x.type))) {
        const d = rec(e).desired;
        const implied = d.listeners.flatMap((l) => [`${d.name}-${l.name}-listener`, `${d.name}-${l.name}-pool`, ...(l.pool.healthMonitor ? [`${d.name}-${l.name}-monitor`] : [])]);
        expect(implied).to.not.include(a.params?.name);
      }
    }
  });

  it('LB3/LB4/LB7/LB9/LB12 a create only for a subject the fresh observation shows absent, outside a deletion, never within the window of an unanswered create of it', () => {
    let creates = 0;
    for (const e of edges) {
      for (const a of effectsOf(e).filter((x) => CREATES.includes(x.type))) {
        creates++;
        const r = rec(e);
        const o = r.observed as Obs;
        expect(r.deletionRequested).to.equal(false);
        const subject = String(a.params?.subject);
        const shown =
          a.type === 'octavia.createLoadBalancer'
            ? o.loadBalancer.kind
            : a.type === 'neutron.createFloatingIP'
              ? o.floatingIP?.kind
              : (o.listeners?.[subject] ?? o.pools?.[subject] ?? o.monitors?.[subject])?.kind;
        expect(shown, JSON.stringify([a.type, subject])).to.equal('absent');
        if (a.type !== 'octavia.createLoadBalancer') expect(o.loadBalancer.kind === 'present' && o.loadBalancer.provisioningStatus).to.equal('ACTIVE');
        const m = ctx(e.state).mutation;
        if (m && CREATES.includes(m.effect) && m.subject === subject && m.answer !== 'accepted') expect(Date.parse(r.at) - Date.parse(m.decidedAt)).to.be.at.least(CREATE_WINDOW_MS);
      }
    }
    expect(creates).to.be.greaterThan(0);
  });

  it('LB3/LB4 no create nests a child (Zed, §16): the load balancer without listeners, a listener without a pool, a pool without members or monitor', () => {
    const seen = new Set<string>();
    for (const e of edges) {
      for (const a of effectsOf(e)) {
        if (a.type === 'octavia.createLoadBalancer') expect(a.params?.listeners).to.deep.equal([]);
        else if (a.type === 'octavia.createListener') expect(a.params).to.not.have.property('defaultPool');
        else if (a.type === 'octavia.createPool') expect(a.params).to.not.have.any.keys('members', 'healthMonitor');
        else continue;
        seen.add(a.type);
      }
    }
    expect([...seen].sort()).to.deep.equal(['octavia.createListener', 'octavia.createLoadBalancer', 'octavia.createPool']);
  });

  it('LB10 every create and update Octavia receives obeys the protocol rules', () => {
    let checked = 0;
    for (const e of edges) {
      for (const a of effectsOf(e)) {
        const spec = rec(e).desired.listeners;
        const of = (name: unknown) => spec.find((l) => `${rec(e).desired.name}-${l.name}-listener` === name || `${rec(e).desired.name}-${l.name}-pool` === name || `${rec(e).desired.name}-${l.name}-monitor` === name);
        const name = a.params?.name;
        if (a.type === 'octavia.createListener') {
          checked++;
          if (a.params?.protocol === 'UDP') expect(a.params).to.not.have.any.keys('timeoutClientData', 'timeoutMemberData');
          expect(a.params?.protocol).to.equal(of(name)?.protocol);
        } else if (a.type === 'octavia.createPool') {
          checked++;
          const l = of(name);
          expect(a.params?.protocol).to.equal(l?.protocol === 'UDP' ? 'UDP' : l?.proxyProtocolV2 ? 'PROXYV2' : 'TCP');
        } else if (a.type === 'octavia.createHealthMonitor') {
          checked++;
          expect(a.params?.monitorType).to.equal(of(name)?.protocol === 'UDP' ? 'UDP-CONNECT' : 'TCP');
        } else if (a.type === 'octavia.updateListener' && of(name)?.protocol === 'UDP') {
          checked++;
          expect(a.params).to.not.have.any.keys('timeoutClientData', 'timeoutMemberData');
        }
      }
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('LB2/LB11/LB13 a duplicate, a drift or an invalid spec never leads to an effect', () => {
    let checked = 0;
    for (const e of edges) {
      if (e.event.type !== 'reconcile') continue;
      if (JSON.stringify(e.nextState.value) === '"inconsistent"' || JSON.stringify(e.nextState.value) === '"invalid"' || rec(e).observed?.loadBalancer.kind === 'duplicate') {
        checked++;
        expect(effectsOf(e)).to.deep.equal([]);
      }
    }
    expect(checked).to.be.greaterThan(0);
  });

  /** LB15's oracle, from the spec's sentence and node:net: what the observation shows of the endpoint. */
  const usablePort = (lb: { vipPortId: string | null }) => lb.vipPortId !== null && lb.vipPortId.trim() !== '';
  const endpointUnusable = (o: Obs): boolean => {
    const lb = o.loadBalancer;
    if (lb.kind !== 'present') return false;
    const fipBad = o.floatingIP?.kind === 'duplicate' || (o.floatingIP?.kind === 'present' && isIP(o.floatingIP.address) === 0);
    return lb.vipAddress === null || isIP(lb.vipAddress) === 0 || !usablePort(lb) || fipBad;
  };
  const outcomeOf = (e: Edge) => (e.actions.find((a) => a.type === 'outcome')?.params?.name as string | undefined) ?? null;

  it('LB15 an ACTIVE topology whose endpoint is unusable: no effect, never Provisioned, neither the VIP nor a floating IP published', () => {
    let checked = 0;
    for (const e of edges) {
      if (e.event.type !== 'reconcile' || rec(e).deletionRequested || !rec(e).observed) continue;
      const o = rec(e).observed as Obs;
      const all = statuses(o);
      // a complete observation: the floating IPs looked up whenever the VIP port id allows it
      const complete = o.loadBalancer.kind === 'present' && (!usablePort(o.loadBalancer) || o.floatingIP !== undefined);
      if (!complete || all.length === 0 || all.some((x) => x !== 'ACTIVE') || !endpointUnusable(o)) continue;
      checked++;
      const why = JSON.stringify([e.state.value, o.loadBalancer, o.floatingIP]);
      expect(effectsOf(e), why).to.deep.equal([]);
      expect(e.nextState.value, why).to.not.equal('provisioned');
      expect(loadBalancerAvailable(e.nextState).status, why).to.equal('False');
      expect(loadBalancerObserved(e.nextState), why).to.deep.include({ vipAddress: null, floatingIP: null });
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('LB15 every published address is an IP address; a pass converges, and Neutron\'s answer completes, only on a usable endpoint', () => {
    let converges = 0;
    let completes = 0;
    for (const e of edges) {
      const seen = loadBalancerObserved(e.nextState);
      for (const a of [seen.vipAddress, seen.floatingIP]) if (a !== null) expect(isIP(a), a).to.not.equal(0);
      const outcome = outcomeOf(e);
      if (outcome === 'converged') {
        converges++;
        const o = rec(e).observed as Obs;
        expect(endpointUnusable(o), JSON.stringify(o)).to.equal(false);
        expect(o.loadBalancer.kind === 'present' && usablePort(o.loadBalancer)).to.equal(true);
      }
      if (outcome === 'floatingIPCreated') {
        completes++;
        expect(isIP(String((e.event as { address?: string }).address))).to.not.equal(0);
      }
    }
    expect([converges > 0, completes > 0]).to.deep.equal([true, true]);
  });

  it('LB14 no mutation but the deletion\'s own deletes while a deletion is requested', () => {
    for (const e of edges) if (e.event.type === 'reconcile' && rec(e).deletionRequested) for (const a of effectsOf(e)) expect(['octavia.deleteLoadBalancer', 'neutron.deleteFloatingIP']).to.include(a.type);
  });
});

describe('load balancer: regent check', function () {
  this.timeout(120_000);
  it('checkMachine(loadBalancerDefinition) passes every check, none skipped, and covers the destructive deletes', () => {
    const report = checkMachine(def, { maxStates: 5_000 });
    expect(report.results.map((r) => [r.id, r.status])).to.deep.equal([
      ['destructive-needs-arm', 'pass'],
      ['destructive-by-reconciler', 'pass'],
      ['monitor-never-authorises', 'pass'],
      ['every-state-reachable', 'pass'],
      ['no-rank-retreat', 'pass'],
    ]);
    expect(report.results.find((r) => r.id === 'destructive-needs-arm')?.detail).to.match(/^[1-9]\d* destructive transition/);
    expect(report.truncated).to.equal(false);
  });
});
