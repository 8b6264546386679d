// Listeners, pools, members and health monitors. Every create/update/delete first checks the parent LB
// is ACTIVE (else 409 "... is immutable and cannot be updated.") and then puts it in PENDING_UPDATE; member and
// health-monitor changes first need their pool ACTIVE (409 "Pool … is immutable …"), as Octavia checks the pool
// before the LB. The child's own status is not checked (Octavia does not): a child a fully populated create left in
// PENDING_CREATE (full.ts) can be changed, and the change's flow marks it (and what the flow marks with it) ACTIVE.
import { noContent } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, member, optArray, optBool, optInt, optNullableStr, optStr, optStrList, optStrMap, reqInt, reqStr } from '../validate.js';
import type { Json } from '../validate.js';
import { parseIp } from '../neutron/ip.js';
import {
  authorize, beginLbUpdate, checkMutable, hmView, listOf, listenerView, memberView, oerr, oneOf, poolView,
  requireLbRole, validation,
} from './common.js';
import type { HealthMonitor, LbCommon, LoadBalancer, Listener, Member, Pool } from './model.js';

export const LISTENER_PROTOCOLS: Array<[string, string]> = [['HTTP', '2.0'], ['HTTPS', '2.0'], ['TCP', '2.0'], ['TERMINATED_HTTPS', '2.0'], ['UDP', '2.0'], ['SCTP', '2.0'], ['PROMETHEUS', '2.0']];
// PROXYV2 needs load-balancer 2.22 (see README: real Octavia does not negotiate versions).
export const POOL_PROTOCOLS: Array<[string, string]> = [['HTTP', '2.0'], ['HTTPS', '2.0'], ['PROXY', '2.0'], ['TCP', '2.0'], ['UDP', '2.0'], ['PROXYV2', '2.22'], ['SCTP', '2.0']];
export const LISTENER_POOL: Record<string, string[]> = {
  HTTP: ['HTTP', 'PROXY', 'PROXYV2'], HTTPS: ['HTTPS', 'PROXY', 'PROXYV2', 'TCP'], TCP: ['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP'],
  TERMINATED_HTTPS: ['HTTP', 'PROXY', 'PROXYV2'], UDP: ['UDP'], SCTP: ['SCTP'], PROMETHEUS: [],
};
export const ALGORITHMS = ['ROUND_ROBIN', 'LEAST_CONNECTIONS', 'SOURCE_IP'];
export const HM_TYPES = ['HTTP', 'HTTPS', 'PING', 'TCP', 'TLS-HELLO', 'UDP-CONNECT', 'SCTP'];

export function enumField(ctx: Ctx, field: string, value: unknown, allowed: Array<[string, string]>): string {
  const ok = allowed.filter(([, v]) => atLeast(ctx.mv, v)).map(([n]) => n);
  if (typeof value !== 'string' || !ok.includes(value)) {
    throw oerr(400, `Invalid input for field/attribute ${field}. Value: '${String(value)}'. Value should be one of: ${ok.join(', ')}`);
  }
  return value;
}

export function base(ctx: Ctx, b: Json, projectId: string): LbCommon {
  return {
    id: uuid(), name: optStr(b, 'name', 255) ?? '', description: optStr(b, 'description', 255) ?? '', projectId, provisioningStatus: 'PENDING_CREATE',
    operatingStatus: 'OFFLINE', adminStateUp: optBool(b, 'admin_state_up') ?? true, tags: optStrList(b, 'tags') ?? [], created: ctx.sim.now(), updated: null,
  };
}

export function lbOf(ctx: Ctx, id: string): LoadBalancer {
  const lb = ctx.sim.octavia.lbs.get(id);
  if (!lb) throw oerr(404, `Load Balancer ${id} not found.`);
  return lb;
}

export function find<T extends LbCommon>(ctx: Ctx, map: Map<string, T>, kind: string, id: string): T {
  const x = map.get(id);
  if (!x) throw oerr(404, `${kind} ${id} not found.`);
  authorize(ctx, x.projectId);
  return x;
}

/**
 * A change on `lb`: LB mutable, the changed child (if any) PENDING_UPDATE/DELETE, the LB PENDING_UPDATE. `marks` are
 * what the change's worker flow marks ACTIVE besides the child (Octavia's MarkLBAndListenersActiveInDB and friends):
 * only they leave a PENDING_CREATE that a fully populated create left behind (full.ts).
 */
function mutate(ctx: Ctx, lb: LoadBalancer, child: LbCommon | null, op: 'update' | 'delete', marks: readonly LbCommon[] = []): void {
  requireLbRole(ctx);
  checkMutable(lb);
  if (child) {
    child.provisioningStatus = op === 'delete' ? 'PENDING_DELETE' : 'PENDING_UPDATE';
    child.updated = ctx.sim.now();
    delete child.unseen;
  }
  for (const c of marks) delete c.unseen;
  beginLbUpdate(ctx.sim, lb);
}

/** Members and health monitors: Octavia refuses the change while their pool is not ACTIVE, before it looks at the LB. */
function checkPoolMutable(p: Pool): void {
  if (p.provisioningStatus !== 'ACTIVE') throw oerr(409, `Pool ${p.id} is immutable and cannot be updated.`);
}

const listenersOf = (sim: Sim, lbId: string): Listener[] => [...sim.octavia.listeners.values()].filter((l) => l.lbId === lbId);

export function timeouts(b: Json): Partial<Listener> {
  const t = (k: string) => optInt(b, k, 0, 31536000);
  const out: Partial<Listener> = {};
  const map: Array<[string, keyof Listener]> = [['timeout_client_data', 'timeoutClientData'], ['timeout_member_connect', 'timeoutMemberConnect'], ['timeout_member_data', 'timeoutMemberData'], ['timeout_tcp_inspect', 'timeoutTcpInspect']];
  for (const [k, f] of map) { const v = t(k); if (v !== undefined) (out as Record<string, unknown>)[f] = v; }
  return out;
}

export function udpChecks(protocol: string, b: Json): void {
  if (protocol !== 'UDP' && protocol !== 'SCTP') return;
  const bad = ['insert_headers', 'default_tls_container_ref', 'sni_container_refs', 'client_ca_tls_container_ref'].filter((k) => b[k] !== undefined && b[k] !== null);
  if (bad.length) throw validation(`${protocol} protocol listener does not support TLS or header insertion: ${bad.join(', ')}.`);
}

/** Octavia's L4 protocol of a listener: two listeners of one L4 protocol cannot share a port. */
const l4 = (protocol: string): string => (protocol === 'UDP' || protocol === 'SCTP' ? protocol : 'TCP');

/** Octavia's _validate_create_listener, as far as the simulator models it; `others` are the LB's listeners so far. */
export function listenerChecks(protocol: string, port: number, b: Json, others: readonly Listener[]): void {
  udpChecks(protocol, b);
  if (protocol === 'TERMINATED_HTTPS' && !optStr(b, 'default_tls_container_ref')) throw validation('An SNI or default certificate container reference must be provided for TERMINATED_HTTPS listeners.');
  const taken = others.find((l) => l.protocolPort === port && l4(l.protocol) === l4(protocol));
  // The text names the protocol of the listener already there (Octavia's DuplicateListenerEntry(protocol=db_l.protocol)).
  if (taken) throw oerr(409, `Another Listener on this Load Balancer is already using protocol ${taken.protocol} and protocol_port ${port}`);
}

/** Octavia keeps a listener's allowed CIDRs in rows keyed by the CIDR and answers them in that order, not as sent (§22). */
const cidrOrder = (cidrs: string[] | undefined): string[] | null => (cidrs === undefined ? null : [...cidrs].sort());

export function newListener(ctx: Ctx, lb: LoadBalancer, b: Json, protocol: string, port: number, defaultPoolId: string | null): Listener {
  return {
    ...base(ctx, b, lb.projectId), lbId: lb.id, protocol, protocolPort: port, defaultPoolId, connectionLimit: optInt(b, 'connection_limit', -1) ?? -1,
    allowedCidrs: cidrOrder(optStrList(b, 'allowed_cidrs')), timeoutClientData: 50000, timeoutMemberConnect: 5000,
    timeoutMemberData: 50000, timeoutTcpInspect: 0, insertHeaders: optStrMap(b, 'insert_headers') ?? {}, defaultTlsContainerRef: optStr(b, 'default_tls_container_ref') ?? null,
    ...timeouts(b),
  };
}

export function newPool(ctx: Ctx, lb: LoadBalancer, b: Json, protocol: string, algo: string, listenerIds: string[]): Pool {
  const sp = b.session_persistence;
  return {
    ...base(ctx, b, lb.projectId), lbId: lb.id, listenerIds, protocol, lbAlgorithm: algo,
    sessionPersistence: isObj(sp) ? sp : null, healthmonitorId: null, tlsEnabled: optBool(b, 'tls_enabled') ?? false,
  };
}

function algorithm(value: string): string {
  if (!ALGORITHMS.includes(value)) throw oerr(400, `Invalid input for field/attribute lb_algorithm. Value: '${value}'. Value should be one of: ${ALGORITHMS.join(', ')}`);
  return value;
}

/** A health-monitor body checked field by field (Octavia's request type): type, delay, timeout, retries. */
export interface HealthMonitorSpec { b: Json; type: string; delay: number; timeout: number; maxRetries: number; maxRetriesDown: number }

export function parseHealthMonitor(b: Json): HealthMonitorSpec {
  const type = reqStr(b, 'type');
  if (!HM_TYPES.includes(type)) throw oerr(400, `Invalid input for field/attribute type. Value: '${type}'. Value should be one of: ${HM_TYPES.join(', ')}`);
  return { b, type, delay: reqInt(b, 'delay', 0), timeout: reqInt(b, 'timeout', 0), maxRetries: reqInt(b, 'max_retries', 1, 10), maxRetriesDown: optInt(b, 'max_retries_down', 1, 10) ?? 3 };
}

/**
 * Octavia's health-monitor checks against its pool, then the monitor. `protocolText` is what the UDP/SCTP refusal
 * names as the pool protocol: the protocol for a single create; a fully populated create passes Zed's text, which
 * prints the pool object instead (`<octavia.common.data_models.Pool object at 0x…>`, measured).
 */
export function newHealthMonitor(ctx: Ctx, p: Pool, spec: HealthMonitorSpec, protocolText: string): HealthMonitor {
  const { b, type } = spec;
  if (p.protocol === 'UDP' || p.protocol === 'SCTP') {
    if (!['UDP-CONNECT', 'SCTP', 'TCP', 'HTTP'].includes(type)) throw validation(`The associated pool protocol is ${protocolText}, so only a UDP-CONNECT/SCTP/TCP/HTTP health monitor is supported.`);
    if (type === 'UDP-CONNECT' && spec.delay < UDP_CONNECT_MIN_DELAY) {
      throw validation(`The request delay value ${spec.delay} should be larger than ${UDP_CONNECT_MIN_DELAY} for UDP-CONNECT health monitor type.`);
    }
  } else if (type === 'UDP-CONNECT' || type === 'SCTP') {
    throw validation(`The ${type} type is only supported for pools of type UDP/SCTP.`);
  }
  const http = type === 'HTTP' || type === 'HTTPS';
  return {
    ...base(ctx, b, p.projectId), poolId: p.id, type, delay: spec.delay, timeout: spec.timeout, maxRetries: spec.maxRetries, maxRetriesDown: spec.maxRetriesDown,
    httpMethod: http ? optStr(b, 'http_method') ?? 'GET' : null, urlPath: http ? optStr(b, 'url_path') ?? '/' : null,
    expectedCodes: http ? optStr(b, 'expected_codes') ?? '200' : null, httpVersion: http ? (typeof b.http_version === 'number' ? b.http_version : 1.0) : null,
    domainName: optStr(b, 'domain_name') ?? null,
  };
}

/** Octavia's api_settings.udp_connect_min_interval_health_monitor (default 3, as on the sandbox). */
const UDP_CONNECT_MIN_DELAY = 3;

/** A nested pool (`default_pool`, or an entry of a load balancer's `pools`) checked field by field, nothing created. */
export interface PoolSpec {
  b: Json;
  name: string | undefined;
  protocol: string | undefined;
  algorithm: string | undefined;
  members: Json[];
  healthmonitor: HealthMonitorSpec | undefined;
  /** More than a name: a definition, not a reference to one (Octavia's `len(default_pool) > 3` with its two defaults). */
  full: boolean;
}

export function parsePoolSpec(ctx: Ctx, b: Json): PoolSpec {
  const members = (optArray(b, 'members') ?? []).map((m) => {
    const mb = isObj(m) ? m : {};
    const address = reqStr(mb, 'address');
    if (!parseIp(address)) throw oerr(400, `Invalid input for field/attribute address. Value: '${address}'. Value should be IPv4 or IPv6 format`);
    reqInt(mb, 'protocol_port', 1, 65535);
    return mb;
  });
  const lbAlgorithm = optStr(b, 'lb_algorithm');
  return {
    b, name: optStr(b, 'name', 255), members,
    protocol: b.protocol === undefined ? undefined : enumField(ctx, 'protocol', b.protocol, POOL_PROTOCOLS),
    algorithm: lbAlgorithm === undefined ? undefined : algorithm(lbAlgorithm),
    healthmonitor: isObj(b.healthmonitor) ? parseHealthMonitor(b.healthmonitor) : undefined,
    full: Object.keys(b).some((k) => k !== 'name'),
  };
}

export const duplicateMemberError = (address: string, port: number) => oerr(409, `Another member on this pool is already using ip ${address} on protocol_port ${port}`);

function registerListeners(r: Registrar): void {
  const o = (ctx: Ctx) => ctx.sim.octavia;
  r.get('/lbaas/listeners', (ctx) => listOf(ctx, 'listeners', 'lbaas/listeners', o(ctx).listeners.values(), listenerView));
  r.get('/lbaas/listeners/:id', (ctx) => oneOf(ctx, 'listener', listenerView(find(ctx, o(ctx).listeners, 'Listener', ctx.p('id')))));
  r.post('/lbaas/listeners', (ctx) => {
    const b = member(ctx.req.body, 'listener');
    const lb = lbOf(ctx, reqStr(b, 'loadbalancer_id'));
    authorize(ctx, lb.projectId);
    const protocol = enumField(ctx, 'protocol', b.protocol, LISTENER_PROTOCOLS);
    const port = reqInt(b, 'protocol_port', 1, 65535);
    // A nested default_pool is parsed like Octavia's request types do (400 on a bad field) ...
    if (isObj(b.default_pool)) parsePoolSpec(ctx, b.default_pool);
    const defaultPoolId = optStr(b, 'default_pool_id') ?? null;
    if (defaultPoolId) find(ctx, o(ctx).pools, 'Pool', defaultPoolId);
    requireLbRole(ctx);
    checkMutable(lb);
    listenerChecks(protocol, port, b, listenersOf(ctx.sim, lb.id));
    // ... but Zed's listener create stores the request's default_pool as is and fails in the database layer: 500,
    // nothing created, the LB left ACTIVE (measured on the sandbox, docs/simulator-differences.md §16).
    if (isObj(b.default_pool)) throw oerr(500, "'dict' object has no attribute '_sa_instance_state'");
    const l = newListener(ctx, lb, b, protocol, port, defaultPoolId);
    mutate(ctx, lb, null, 'update', listenersOf(ctx.sim, lb.id));
    o(ctx).listeners.set(l.id, l);
    if (defaultPoolId) o(ctx).pools.get(defaultPoolId)?.listenerIds.push(l.id);
    return oneOf(ctx, 'listener', listenerView(l), 201);
  });
  r.put('/lbaas/listeners/:id', (ctx) => {
    const l = find(ctx, o(ctx).listeners, 'Listener', ctx.p('id'));
    const b = member(ctx.req.body, 'listener');
    udpChecks(l.protocol, b);
    for (const k of ['protocol', 'protocol_port', 'loadbalancer_id']) if (b[k] !== undefined) throw oerr(400, `Invalid input for field/attribute ${k}. Value: '${String(b[k])}'. Attribute is read-only`);
    const lb = lbOf(ctx, l.lbId);
    if ('default_pool_id' in b) {
      const pid = optNullableStr(b, 'default_pool_id') ?? null;
      if (pid) find(ctx, o(ctx).pools, 'Pool', pid);
      mutate(ctx, lb, l, 'update');
      for (const p of o(ctx).pools.values()) p.listenerIds = p.listenerIds.filter((x) => x !== l.id);
      if (pid) o(ctx).pools.get(pid)?.listenerIds.push(l.id);
      l.defaultPoolId = pid;
    } else {
      mutate(ctx, lb, l, 'update');
    }
    l.name = optStr(b, 'name', 255) ?? l.name;
    l.description = optStr(b, 'description', 255) ?? l.description;
    l.adminStateUp = optBool(b, 'admin_state_up') ?? l.adminStateUp;
    l.connectionLimit = optInt(b, 'connection_limit', -1) ?? l.connectionLimit;
    if ('allowed_cidrs' in b) l.allowedCidrs = cidrOrder(optStrList(b, 'allowed_cidrs'));
    l.insertHeaders = optStrMap(b, 'insert_headers') ?? l.insertHeaders;
    l.tags = optStrList(b, 'tags') ?? l.tags;
    Object.assign(l, timeouts(b));
    return oneOf(ctx, 'listener', listenerView(l));
  });
  r.del('/lbaas/listeners/:id', (ctx) => {
    const l = find(ctx, o(ctx).listeners, 'Listener', ctx.p('id'));
    mutate(ctx, lbOf(ctx, l.lbId), l, 'delete');
    return noContent();
  });
}

function registerPools(r: Registrar): void {
  const o = (ctx: Ctx) => ctx.sim.octavia;
  r.get('/lbaas/pools', (ctx) => listOf(ctx, 'pools', 'lbaas/pools', o(ctx).pools.values(), (p) => poolView(ctx.sim, p)));
  r.get('/lbaas/pools/:id', (ctx) => oneOf(ctx, 'pool', poolView(ctx.sim, find(ctx, o(ctx).pools, 'Pool', ctx.p('id')))));
  r.post('/lbaas/pools', (ctx) => {
    const b = member(ctx.req.body, 'pool');
    const protocol = enumField(ctx, 'protocol', b.protocol, POOL_PROTOCOLS);
    const algo = algorithm(reqStr(b, 'lb_algorithm'));
    const listenerId = optStr(b, 'listener_id');
    const listener = listenerId ? find(ctx, o(ctx).listeners, 'Listener', listenerId) : undefined;
    const lbId = optStr(b, 'loadbalancer_id') ?? listener?.lbId;
    if (!lbId) throw validation('Either listener_id or loadbalancer_id must be specified.');
    const lb = lbOf(ctx, lbId);
    authorize(ctx, lb.projectId);
    if (listener) {
      if (listener.lbId !== lb.id) throw validation('Listener and pool must be on the same load balancer.');
      if (!(LISTENER_POOL[listener.protocol] ?? []).includes(protocol)) throw validation(`The pool protocol '${protocol}' is invalid while the listener protocol is '${listener.protocol}'.`);
      if (listener.defaultPoolId) throw oerr(409, 'This listener already has a default pool');
    }
    // Zed answers a "fully populated" pool (nested members or health monitor) with this 500, creating nothing (§16)
    if ((Array.isArray(b.members) && b.members.length > 0) || isObj(b.healthmonitor)) throw oerr(500, "'dict' object has no attribute '_sa_instance_state'");
    mutate(ctx, lb, null, 'update', listenersOf(ctx.sim, lb.id));
    const p = newPool(ctx, lb, b, protocol, algo, listener ? [listener.id] : []);
    o(ctx).pools.set(p.id, p);
    if (listener) listener.defaultPoolId = p.id;
    return oneOf(ctx, 'pool', poolView(ctx.sim, p), 201);
  });
  r.put('/lbaas/pools/:id', (ctx) => {
    const p = find(ctx, o(ctx).pools, 'Pool', ctx.p('id'));
    const b = member(ctx.req.body, 'pool');
    if (b.protocol !== undefined) throw oerr(400, `Invalid input for field/attribute protocol. Value: '${String(b.protocol)}'. Attribute is read-only`);
    const algo = optStr(b, 'lb_algorithm');
    if (algo !== undefined && !ALGORITHMS.includes(algo)) throw oerr(400, `Invalid input for field/attribute lb_algorithm. Value: '${algo}'. Value should be one of: ${ALGORITHMS.join(', ')}`);
    mutate(ctx, lbOf(ctx, p.lbId), p, 'update', listenersOf(ctx.sim, p.lbId));
    p.name = optStr(b, 'name', 255) ?? p.name;
    p.description = optStr(b, 'description', 255) ?? p.description;
    p.adminStateUp = optBool(b, 'admin_state_up') ?? p.adminStateUp;
    p.lbAlgorithm = algo ?? p.lbAlgorithm;
    if ('session_persistence' in b) p.sessionPersistence = isObj(b.session_persistence) ? b.session_persistence : null;
    p.tags = optStrList(b, 'tags') ?? p.tags;
    return oneOf(ctx, 'pool', poolView(ctx.sim, p));
  });
  r.del('/lbaas/pools/:id', (ctx) => {
    const p = find(ctx, o(ctx).pools, 'Pool', ctx.p('id'));
    mutate(ctx, lbOf(ctx, p.lbId), p, 'delete', listenersOf(ctx.sim, p.lbId));
    for (const m of o(ctx).members.values()) if (m.poolId === p.id) m.provisioningStatus = 'PENDING_DELETE';
    for (const h of o(ctx).healthmonitors.values()) if (h.poolId === p.id) h.provisioningStatus = 'PENDING_DELETE';
    return noContent();
  });
}

export function newMember(ctx: Ctx, p: Pool, b: Json): Member {
  const address = reqStr(b, 'address');
  if (!parseIp(address)) throw oerr(400, `Invalid input for field/attribute address. Value: '${address}'. Value should be IPv4 or IPv6 format`);
  const port = reqInt(b, 'protocol_port', 1, 65535);
  const subnetId = optStr(b, 'subnet_id') ?? null;
  if (subnetId && !ctx.sim.neutron.subnets.has(subnetId)) throw validation(`Subnet ${subnetId} not found.`);
  return {
    // Octavia's create_member: OFFLINE when the pool has a health monitor, NO_MONITOR when not.
    ...base(ctx, b, p.projectId), operatingStatus: p.healthmonitorId ? 'OFFLINE' : 'NO_MONITOR', poolId: p.id, address, protocolPort: port, subnetId,
    weight: optInt(b, 'weight', 0, 256) ?? 1, backup: optBool(b, 'backup') ?? false, monitorAddress: optStr(b, 'monitor_address') ?? null,
    monitorPort: optInt(b, 'monitor_port', 1, 65535) ?? null,
  };
}

function duplicateMember(sim: Sim, poolId: string, address: string, port: number, except?: string): boolean {
  return [...sim.octavia.members.values()].some((m) => m.poolId === poolId && m.id !== except && m.address === address && m.protocolPort === port);
}

function registerMembers(r: Registrar): void {
  const o = (ctx: Ctx) => ctx.sim.octavia;
  const pool = (ctx: Ctx) => find(ctx, o(ctx).pools, 'Pool', ctx.p('pool'));
  const findMember = (ctx: Ctx, p: Pool) => {
    const m = find(ctx, o(ctx).members, 'Member', ctx.p('id'));
    if (m.poolId !== p.id) throw oerr(404, `Member ${m.id} not found.`);
    return m;
  };
  r.get('/lbaas/pools/:pool/members', (ctx) => {
    const p = pool(ctx);
    return listOf(ctx, 'members', `lbaas/pools/${p.id}/members`, [...o(ctx).members.values()].filter((m) => m.poolId === p.id), memberView);
  });
  r.get('/lbaas/pools/:pool/members/:id', (ctx) => oneOf(ctx, 'member', memberView(findMember(ctx, pool(ctx)))));
  r.post('/lbaas/pools/:pool/members', (ctx) => {
    const p = pool(ctx);
    const m = newMember(ctx, p, member(ctx.req.body, 'member'));
    checkPoolMutable(p);
    if (duplicateMember(ctx.sim, p.id, m.address, m.protocolPort)) throw duplicateMemberError(m.address, m.protocolPort);
    mutate(ctx, lbOf(ctx, p.lbId), null, 'update', [p, ...listenersOf(ctx.sim, p.lbId)]);
    o(ctx).members.set(m.id, m);
    return oneOf(ctx, 'member', memberView(m), 201);
  });
  r.put('/lbaas/pools/:pool/members', (ctx) => {
    const p = pool(ctx);
    const raw = optArray(isObj(ctx.req.body) ? ctx.req.body : {}, 'members') ?? [];
    const wanted = raw.map((x) => newMember(ctx, p, isObj(x) ? x : {}));
    checkPoolMutable(p);
    const before = [...o(ctx).members.values()].filter((m) => m.poolId === p.id);
    mutate(ctx, lbOf(ctx, p.lbId), null, 'update', [p, ...before, ...listenersOf(ctx.sim, p.lbId)]);
    const existing = [...o(ctx).members.values()].filter((m) => m.poolId === p.id);
    for (const w of wanted) {
      const cur = existing.find((m) => m.address === w.address && m.protocolPort === w.protocolPort);
      if (cur) Object.assign(cur, { name: w.name, weight: w.weight, backup: w.backup, adminStateUp: w.adminStateUp, provisioningStatus: 'PENDING_UPDATE' });
      else o(ctx).members.set(w.id, w);
    }
    for (const m of existing) if (!wanted.some((w) => w.address === m.address && w.protocolPort === m.protocolPort)) m.provisioningStatus = 'PENDING_DELETE';
    return { status: 202 };
  });
  r.put('/lbaas/pools/:pool/members/:id', (ctx) => {
    const p = pool(ctx);
    const m = findMember(ctx, p);
    const b = member(ctx.req.body, 'member');
    checkPoolMutable(p);
    mutate(ctx, lbOf(ctx, p.lbId), m, 'update', [p, ...listenersOf(ctx.sim, p.lbId)]);
    m.name = optStr(b, 'name', 255) ?? m.name;
    m.weight = optInt(b, 'weight', 0, 256) ?? m.weight;
    m.backup = optBool(b, 'backup') ?? m.backup;
    m.adminStateUp = optBool(b, 'admin_state_up') ?? m.adminStateUp;
    m.tags = optStrList(b, 'tags') ?? m.tags;
    return oneOf(ctx, 'member', memberView(m));
  });
  r.del('/lbaas/pools/:pool/members/:id', (ctx) => {
    const p = pool(ctx);
    const m = findMember(ctx, p);
    checkPoolMutable(p);
    mutate(ctx, lbOf(ctx, p.lbId), m, 'delete', [p, ...listenersOf(ctx.sim, p.lbId)]);
    return noContent();
  });
}

function registerHealthMonitors(r: Registrar): void {
  const o = (ctx: Ctx) => ctx.sim.octavia;
  r.get('/lbaas/healthmonitors', (ctx) => listOf(ctx, 'healthmonitors', 'lbaas/healthmonitors', o(ctx).healthmonitors.values(), hmView));
  r.get('/lbaas/healthmonitors/:id', (ctx) => oneOf(ctx, 'healthmonitor', hmView(find(ctx, o(ctx).healthmonitors, 'Health Monitor', ctx.p('id')))));
  r.post('/lbaas/healthmonitors', (ctx) => {
    const b = member(ctx.req.body, 'healthmonitor');
    const p = find(ctx, o(ctx).pools, 'Pool', reqStr(b, 'pool_id'));
    const h = newHealthMonitor(ctx, p, parseHealthMonitor(b), p.protocol);
    if (p.healthmonitorId) throw oerr(409, 'This pool already has a health monitor');
    checkPoolMutable(p);
    mutate(ctx, lbOf(ctx, p.lbId), null, 'update', [p, ...listenersOf(ctx.sim, p.lbId)]);
    o(ctx).healthmonitors.set(h.id, h);
    p.healthmonitorId = h.id;
    return oneOf(ctx, 'healthmonitor', hmView(h), 201);
  });
  r.put('/lbaas/healthmonitors/:id', (ctx) => {
    const h = find(ctx, o(ctx).healthmonitors, 'Health Monitor', ctx.p('id'));
    const b = member(ctx.req.body, 'healthmonitor');
    const p = o(ctx).pools.get(h.poolId);
    if (!p) throw oerr(404, `Pool ${h.poolId} not found.`);
    checkPoolMutable(p);
    mutate(ctx, lbOf(ctx, p.lbId), h, 'update', [p, ...listenersOf(ctx.sim, p.lbId)]);
    h.name = optStr(b, 'name', 255) ?? h.name;
    h.delay = optInt(b, 'delay', 0) ?? h.delay;
    h.timeout = optInt(b, 'timeout', 0) ?? h.timeout;
    h.maxRetries = optInt(b, 'max_retries', 1, 10) ?? h.maxRetries;
    h.maxRetriesDown = optInt(b, 'max_retries_down', 1, 10) ?? h.maxRetriesDown;
    h.httpMethod = optStr(b, 'http_method') ?? h.httpMethod;
    h.urlPath = optStr(b, 'url_path') ?? h.urlPath;
    h.expectedCodes = optStr(b, 'expected_codes') ?? h.expectedCodes;
    h.adminStateUp = optBool(b, 'admin_state_up') ?? h.adminStateUp;
    h.tags = optStrList(b, 'tags') ?? h.tags;
    return oneOf(ctx, 'healthmonitor', hmView(h));
  });
  r.del('/lbaas/healthmonitors/:id', (ctx) => {
    const h = find(ctx, o(ctx).healthmonitors, 'Health Monitor', ctx.p('id'));
    const p = o(ctx).pools.get(h.poolId);
    if (!p) throw oerr(404, `Pool ${h.poolId} not found.`);
    checkPoolMutable(p);
    mutate(ctx, lbOf(ctx, p.lbId), h, 'delete', [p, ...listenersOf(ctx.sim, p.lbId)]);
    return noContent();
  });
}

export function registerChildren(r: Registrar): void {
  registerListeners(r);
  registerPools(r);
  registerMembers(r);
  registerHealthMonitors(r);
}
