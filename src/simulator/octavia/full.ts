// Octavia's fully populated load-balancer create (POST /v2/lbaas/loadbalancers with `listeners`, each with a
// `default_pool` that nests `members` and a `healthmonitor`, and/or top-level `pools` a listener names), as Zed
// does it (measured on the sandbox, docs/simulator-differences.md §16):
//  - the request is checked field by field first (400, nothing created); then the VIP port is created, then the
//    graph is checked in Octavia's order (pool names, pools with their monitor and members, then the listeners);
//    a refusal there answers 400/409 and leaves the VIP port behind in Neutron (Octavia creates it first and its
//    rollback does not delete it);
//  - every child is created PENDING_CREATE with the LB and the answer is Octavia's full representation:
//    listeners and pools as full objects (no `loadbalancers`, pools without `healthmonitor_id` and with
//    `healthmonitor: null` although the monitor exists), members inline;
//  - the LB goes ACTIVE on its own; the children stay PENDING_CREATE (`unseen`): Zed's worker reads the LB
//    before the API commits the children and provisions it as an empty load balancer.
import type { Ctx } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, optArray, reqInt } from '../validate.js';
import type { Json } from '../validate.js';
import {
  LISTENER_POOL, LISTENER_PROTOCOLS, duplicateMemberError, enumField, listenerChecks, newHealthMonitor, newListener, newMember, newPool, parsePoolSpec,
} from './children.js';
import type { PoolSpec } from './children.js';
import { lbView, listenerView, memberView, oerr, poolView, validation } from './common.js';
import type { HealthMonitor, LbCommon, Listener, LoadBalancer, Member, Pool } from './model.js';

interface ListenerSpec { b: Json; protocol: string; port: number; pool: PoolSpec | undefined }

export interface FullCreateSpec { listeners: ListenerSpec[]; pools: PoolSpec[] }

/** The nested parts of a load-balancer create, checked field by field; undefined when there are none. */
export function parseFullCreate(ctx: Ctx, b: Json): FullCreateSpec | undefined {
  const rawListeners = optArray(b, 'listeners') ?? [];
  const rawPools = optArray(b, 'pools') ?? [];
  if (rawListeners.length === 0 && rawPools.length === 0) return undefined;
  const listeners = rawListeners.map((x) => {
    const lb = isObj(x) ? x : {};
    const protocol = enumField(ctx, 'protocol', lb.protocol, LISTENER_PROTOCOLS);
    const port = reqInt(lb, 'protocol_port', 1, 65535);
    return { b: lb, protocol, port, pool: isObj(lb.default_pool) ? parsePoolSpec(ctx, lb.default_pool) : undefined };
  });
  return { listeners, pools: rawPools.map((x) => parsePoolSpec(ctx, isObj(x) ? x : {})) };
}

/** Zed's text for the pool it prints in a nested UDP health-monitor refusal (a Python object repr). */
const poolRepr = (p: Pool): string => `<octavia.common.data_models.Pool object at 0x7f${p.id.replace(/-/g, '').slice(0, 10)}>`;

interface Graph { listeners: Listener[]; pools: Pool[]; members: Member[]; hms: HealthMonitor[] }

/** Octavia's _graph_create for `lb` (not yet stored): builds every child or throws, storing nothing. */
export function buildGraph(ctx: Ctx, lb: LoadBalancer, spec: FullCreateSpec): Graph {
  // Listeners' full default pools join the top-level ones; a name-only default pool is a reference.
  const pools: PoolSpec[] = [...spec.pools];
  const required = new Set<string>();
  for (const l of spec.listeners) {
    if (!l.pool) continue;
    if (!l.pool.name) throw validation('Pools must be named when creating a fully populated loadbalancer.');
    if (l.pool.full) pools.push(l.pool);
    else required.add(l.pool.name);
  }
  const names = pools.map((p) => p.name);
  if (new Set(names).size !== names.length) throw validation('Pool names must be unique when creating a fully populated loadbalancer.');
  for (const name of required) if (!names.includes(name)) throw validation(`Pool '${name}' was referenced but no full definition was found.`);

  const graph: Graph = { listeners: [], pools: [], members: [], hms: [] };
  const byName = new Map<string, Pool>();
  for (const ps of pools) {
    for (const [attr, value] of [['protocol', ps.protocol], ['lb_algorithm', ps.algorithm]] as const) {
      if (value === undefined) throw validation(`Pool definition for '${ps.name ?? ''}' missing required attribute: ${attr}`);
    }
    const pool = newPool(ctx, lb, ps.b, ps.protocol as string, ps.algorithm as string, []);
    if (ps.healthmonitor) {
      const hm = newHealthMonitor(ctx, pool, ps.healthmonitor, poolRepr(pool));
      pool.healthmonitorId = hm.id;
      graph.hms.push(hm);
    }
    const mine: Member[] = [];
    for (const mb of ps.members) {
      const m = newMember(ctx, pool, mb);
      if (mine.some((x) => x.address === m.address && x.protocolPort === m.protocolPort)) throw duplicateMemberError(m.address, m.protocolPort);
      mine.push(m);
    }
    graph.members.push(...mine);
    graph.pools.push(pool);
    if (ps.name !== undefined) byName.set(ps.name, pool);
  }
  for (const ls of spec.listeners) {
    const pool = ls.pool?.name !== undefined ? byName.get(ls.pool.name) : undefined;
    if (ls.pool && !pool) throw oerr(400, `Missing details for Pool object: ${ls.pool.name ?? ''}`);
    if (pool && !(LISTENER_POOL[ls.protocol] ?? []).includes(pool.protocol)) {
      throw validation(`The pool protocol '${pool.protocol}' is invalid while the listener protocol is '${ls.protocol}'.`);
    }
    listenerChecks(ls.protocol, ls.port, ls.b, graph.listeners);
    const listener = newListener(ctx, lb, ls.b, ls.protocol, ls.port, pool?.id ?? null);
    if (pool) pool.listenerIds.push(listener.id);
    graph.listeners.push(listener);
  }
  return graph;
}

/** Stores the graph under its LB: every child PENDING_CREATE and unseen by the worker. */
export function storeGraph(sim: Sim, g: Graph): void {
  const o = sim.octavia;
  const keep = <T extends LbCommon>(map: Map<string, T>, items: T[]): void => {
    for (const x of items) {
      x.unseen = true;
      map.set(x.id, x);
    }
  };
  keep(o.pools, g.pools);
  keep(o.healthmonitors, g.hms);
  keep(o.members, g.members);
  keep(o.listeners, g.listeners);
}

const without = (v: Record<string, unknown>, ...keys: string[]): Record<string, unknown> => {
  const out = { ...v };
  for (const k of keys) delete out[k];
  return out;
};

/** Octavia's LoadBalancerFullResponse as Zed renders it. */
export function fullLbView(sim: Sim, lb: LoadBalancer): Record<string, unknown> {
  const o = sim.octavia;
  const pools = [...o.pools.values()].filter((p) => p.lbId === lb.id);
  return {
    ...lbView(sim, lb),
    listeners: [...o.listeners.values()].filter((l) => l.lbId === lb.id).map((l) => without(listenerView(l), 'loadbalancers')),
    pools: pools.map((p) => ({
      ...without(poolView(sim, p), 'loadbalancers', 'healthmonitor_id'),
      members: [...o.members.values()].filter((m) => m.poolId === p.id).map(memberView),
      // Zed answers null here although the monitor was created (GET the pool for healthmonitor_id).
      healthmonitor: null,
    })),
  };
}
