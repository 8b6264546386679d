// Listeners, pools, members and health monitors. Every create/update/delete first checks the parent LB
// is ACTIVE (else 409 "... is immutable and cannot be updated.") and then puts it in PENDING_UPDATE.
import { noContent } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, member, optArray, optBool, optInt, optNullableStr, optStr, optStrList, optStrMap, reqInt, reqStr } from '../validate.js';
import type { Json } from '../validate.js';
import { parseIp } from '../neutron/ip.js';
import {
  authorize, beginLbUpdate, checkChildMutable, checkMutable, hmView, listOf, listenerView, memberView, oerr, oneOf, poolView,
  requireLbRole, validation,
} from './common.js';
import type { HealthMonitor, LbCommon, LoadBalancer, Listener, Member, Pool } from './model.js';

const LISTENER_PROTOCOLS: Array<[string, string]> = [['HTTP', '2.0'], ['HTTPS', '2.0'], ['TCP', '2.0'], ['TERMINATED_HTTPS', '2.0'], ['UDP', '2.0'], ['SCTP', '2.0'], ['PROMETHEUS', '2.0']];
// PROXYV2 needs load-balancer 2.22 (see README: real Octavia does not negotiate versions).
const POOL_PROTOCOLS: Array<[string, string]> = [['HTTP', '2.0'], ['HTTPS', '2.0'], ['PROXY', '2.0'], ['TCP', '2.0'], ['UDP', '2.0'], ['PROXYV2', '2.22'], ['SCTP', '2.0']];
const LISTENER_POOL: Record<string, string[]> = {
  HTTP: ['HTTP', 'PROXY', 'PROXYV2'], HTTPS: ['HTTPS', 'PROXY', 'PROXYV2', 'TCP'], TCP: ['HTTP', 'HTTPS', 'PROXY', 'PROXYV2', 'TCP'],
  TERMINATED_HTTPS: ['HTTP', 'PROXY', 'PROXYV2'], UDP: ['UDP'], SCTP: ['SCTP'], PROMETHEUS: [],
};
const ALGORITHMS = ['ROUND_ROBIN', 'LEAST_CONNECTIONS', 'SOURCE_IP'];
const HM_TYPES = ['HTTP', 'HTTPS', 'PING', 'TCP', 'TLS-HELLO', 'UDP-CONNECT', 'SCTP'];

function enumField(ctx: Ctx, field: string, value: unknown, allowed: Array<[string, string]>): string {
  const ok = allowed.filter(([, v]) => atLeast(ctx.mv, v)).map(([n]) => n);
  if (typeof value !== 'string' || !ok.includes(value)) {
    throw oerr(400, `Invalid input for field/attribute ${field}. Value: '${String(value)}'. Value should be one of: ${ok.join(', ')}`);
  }
  return value;
}

function base(ctx: Ctx, b: Json, projectId: string): LbCommon {
  return {
    id: uuid(), name: optStr(b, 'name', 255) ?? '', description: optStr(b, 'description', 255) ?? '', projectId, provisioningStatus: 'PENDING_CREATE',
    operatingStatus: 'OFFLINE', adminStateUp: optBool(b, 'admin_state_up') ?? true, tags: optStrList(b, 'tags') ?? [], created: ctx.sim.now(), updated: null,
  };
}

function lbOf(ctx: Ctx, id: string): LoadBalancer {
  const lb = ctx.sim.octavia.lbs.get(id);
  if (!lb) throw oerr(404, `Load Balancer ${id} not found.`);
  return lb;
}

function find<T extends LbCommon>(ctx: Ctx, map: Map<string, T>, kind: string, id: string): T {
  const x = map.get(id);
  if (!x) throw oerr(404, `${kind} ${id} not found.`);
  authorize(ctx, x.projectId);
  return x;
}

function mutate(ctx: Ctx, lb: LoadBalancer, kind: string, child: LbCommon | null, op: 'update' | 'delete'): void {
  requireLbRole(ctx);
  checkMutable(lb);
  if (child) {
    checkChildMutable(kind, child);
    child.provisioningStatus = op === 'delete' ? 'PENDING_DELETE' : 'PENDING_UPDATE';
    child.updated = ctx.sim.now();
  }
  beginLbUpdate(ctx.sim, lb);
}

function timeouts(b: Json): Partial<Listener> {
  const t = (k: string) => optInt(b, k, 0, 31536000);
  const out: Partial<Listener> = {};
  const map: Array<[string, keyof Listener]> = [['timeout_client_data', 'timeoutClientData'], ['timeout_member_connect', 'timeoutMemberConnect'], ['timeout_member_data', 'timeoutMemberData'], ['timeout_tcp_inspect', 'timeoutTcpInspect']];
  for (const [k, f] of map) { const v = t(k); if (v !== undefined) (out as Record<string, unknown>)[f] = v; }
  return out;
}

function udpChecks(protocol: string, b: Json): void {
  if (protocol !== 'UDP' && protocol !== 'SCTP') return;
  const bad = ['insert_headers', 'default_tls_container_ref', 'sni_container_refs', 'client_ca_tls_container_ref'].filter((k) => b[k] !== undefined && b[k] !== null);
  if (bad.length) throw validation(`${protocol} protocol listener does not support TLS or header insertion: ${bad.join(', ')}.`);
}

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
    udpChecks(protocol, b);
    if (protocol === 'TERMINATED_HTTPS' && !optStr(b, 'default_tls_container_ref')) throw validation('An SNI or default certificate container reference must be provided for TERMINATED_HTTPS listeners.');
    const udp = (p: string) => p === 'UDP' || p === 'SCTP';
    if ([...o(ctx).listeners.values()].some((l) => l.lbId === lb.id && l.protocolPort === port && udp(l.protocol) === udp(protocol))) {
      throw oerr(409, `Another Listener on this Load Balancer is already using protocol ${protocol} and protocol_port ${port}`);
    }
    const defaultPoolId = optStr(b, 'default_pool_id') ?? null;
    if (defaultPoolId) find(ctx, o(ctx).pools, 'Pool', defaultPoolId);
    mutate(ctx, lb, 'Listener', null, 'update');
    const l: Listener = {
      ...base(ctx, b, lb.projectId), lbId: lb.id, protocol, protocolPort: port, defaultPoolId, connectionLimit: optInt(b, 'connection_limit', -1) ?? -1,
      allowedCidrs: optStrList(b, 'allowed_cidrs') ?? null, timeoutClientData: 50000, timeoutMemberConnect: 5000,
      timeoutMemberData: 50000, timeoutTcpInspect: 0, insertHeaders: optStrMap(b, 'insert_headers') ?? {}, defaultTlsContainerRef: optStr(b, 'default_tls_container_ref') ?? null,
      ...timeouts(b),
    };
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
      mutate(ctx, lb, 'Listener', l, 'update');
      for (const p of o(ctx).pools.values()) p.listenerIds = p.listenerIds.filter((x) => x !== l.id);
      if (pid) o(ctx).pools.get(pid)?.listenerIds.push(l.id);
      l.defaultPoolId = pid;
    } else {
      mutate(ctx, lb, 'Listener', l, 'update');
    }
    l.name = optStr(b, 'name', 255) ?? l.name;
    l.description = optStr(b, 'description', 255) ?? l.description;
    l.adminStateUp = optBool(b, 'admin_state_up') ?? l.adminStateUp;
    l.connectionLimit = optInt(b, 'connection_limit', -1) ?? l.connectionLimit;
    if ('allowed_cidrs' in b) l.allowedCidrs = optStrList(b, 'allowed_cidrs') ?? null;
    l.insertHeaders = optStrMap(b, 'insert_headers') ?? l.insertHeaders;
    l.tags = optStrList(b, 'tags') ?? l.tags;
    Object.assign(l, timeouts(b));
    return oneOf(ctx, 'listener', listenerView(l));
  });
  r.del('/lbaas/listeners/:id', (ctx) => {
    const l = find(ctx, o(ctx).listeners, 'Listener', ctx.p('id'));
    mutate(ctx, lbOf(ctx, l.lbId), 'Listener', l, 'delete');
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
    const algo = reqStr(b, 'lb_algorithm');
    if (!ALGORITHMS.includes(algo)) throw oerr(400, `Invalid input for field/attribute lb_algorithm. Value: '${algo}'. Value should be one of: ${ALGORITHMS.join(', ')}`);
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
    const sp = b.session_persistence;
    mutate(ctx, lb, 'Pool', null, 'update');
    const p: Pool = {
      ...base(ctx, b, lb.projectId), lbId: lb.id, listenerIds: listener ? [listener.id] : [], protocol, lbAlgorithm: algo,
      sessionPersistence: isObj(sp) ? sp : null, healthmonitorId: null, tlsEnabled: optBool(b, 'tls_enabled') ?? false,
    };
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
    mutate(ctx, lbOf(ctx, p.lbId), 'Pool', p, 'update');
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
    mutate(ctx, lbOf(ctx, p.lbId), 'Pool', p, 'delete');
    for (const m of o(ctx).members.values()) if (m.poolId === p.id) m.provisioningStatus = 'PENDING_DELETE';
    for (const h of o(ctx).healthmonitors.values()) if (h.poolId === p.id) h.provisioningStatus = 'PENDING_DELETE';
    return noContent();
  });
}

function newMember(ctx: Ctx, p: Pool, b: Json): Member {
  const address = reqStr(b, 'address');
  if (!parseIp(address)) throw oerr(400, `Invalid input for field/attribute address. Value: '${address}'. Value should be IPv4 or IPv6 format`);
  const port = reqInt(b, 'protocol_port', 1, 65535);
  const subnetId = optStr(b, 'subnet_id') ?? null;
  if (subnetId && !ctx.sim.neutron.subnets.has(subnetId)) throw validation(`Subnet ${subnetId} not found.`);
  return {
    ...base(ctx, b, p.projectId), operatingStatus: 'NO_MONITOR', poolId: p.id, address, protocolPort: port, subnetId,
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
    if (duplicateMember(ctx.sim, p.id, m.address, m.protocolPort)) throw oerr(409, `Another member on this pool is already using ip ${m.address} on protocol_port ${m.protocolPort}`);
    mutate(ctx, lbOf(ctx, p.lbId), 'Member', null, 'update');
    o(ctx).members.set(m.id, m);
    return oneOf(ctx, 'member', memberView(m), 201);
  });
  r.put('/lbaas/pools/:pool/members', (ctx) => {
    const p = pool(ctx);
    const raw = optArray(isObj(ctx.req.body) ? ctx.req.body : {}, 'members') ?? [];
    const wanted = raw.map((x) => newMember(ctx, p, isObj(x) ? x : {}));
    mutate(ctx, lbOf(ctx, p.lbId), 'Pool', null, 'update');
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
    mutate(ctx, lbOf(ctx, p.lbId), 'Member', m, 'update');
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
    mutate(ctx, lbOf(ctx, p.lbId), 'Member', m, 'delete');
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
    const type = reqStr(b, 'type');
    if (!HM_TYPES.includes(type)) throw oerr(400, `Invalid input for field/attribute type. Value: '${type}'. Value should be one of: ${HM_TYPES.join(', ')}`);
    if (p.protocol === 'UDP' && !['UDP-CONNECT', 'HTTP', 'TCP', 'PING'].includes(type)) throw validation(`The associated pool protocol is UDP, so only a UDP-CONNECT, HTTP, TCP or PING type health monitor is supported.`);
    if (p.healthmonitorId) throw oerr(409, 'This pool already has a health monitor');
    const http = type === 'HTTP' || type === 'HTTPS';
    const h: HealthMonitor = {
      ...base(ctx, b, p.projectId), poolId: p.id, type, delay: reqInt(b, 'delay', 0), timeout: reqInt(b, 'timeout', 0),
      maxRetries: reqInt(b, 'max_retries', 1, 10), maxRetriesDown: optInt(b, 'max_retries_down', 1, 10) ?? 3,
      httpMethod: http ? optStr(b, 'http_method') ?? 'GET' : null, urlPath: http ? optStr(b, 'url_path') ?? '/' : null,
      expectedCodes: http ? optStr(b, 'expected_codes') ?? '200' : null, httpVersion: http ? (typeof b.http_version === 'number' ? b.http_version : 1.0) : null,
      domainName: optStr(b, 'domain_name') ?? null,
    };
    mutate(ctx, lbOf(ctx, p.lbId), 'Health Monitor', null, 'update');
    o(ctx).healthmonitors.set(h.id, h);
    p.healthmonitorId = h.id;
    return oneOf(ctx, 'healthmonitor', hmView(h), 201);
  });
  r.put('/lbaas/healthmonitors/:id', (ctx) => {
    const h = find(ctx, o(ctx).healthmonitors, 'Health Monitor', ctx.p('id'));
    const b = member(ctx.req.body, 'healthmonitor');
    const p = o(ctx).pools.get(h.poolId);
    if (!p) throw oerr(404, `Pool ${h.poolId} not found.`);
    mutate(ctx, lbOf(ctx, p.lbId), 'Health Monitor', h, 'update');
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
    mutate(ctx, lbOf(ctx, p.lbId), 'Health Monitor', h, 'delete');
    return noContent();
  });
}

export function registerChildren(r: Registrar): void {
  registerListeners(r);
  registerPools(r);
  registerMembers(r);
  registerHealthMonitors(r);
}
