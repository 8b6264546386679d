// What Octavia's controllers share: scoping (a 403, not a 404, for another project's object, as
// Octavia's policy check answers), the immutability rule, the PENDING_* → ACTIVE settle, list paging
// and filters, and the views.
import { SimError, ok } from '../http.js';
import type { SimResponse } from '../http.js';
import { isoSeconds } from '../ids.js';
import { isFullPage, page, parseLimit, withMarker } from '../paging.js';
import type { Ctx } from '../router.js';
import type { Sim } from '../state.js';
import { deletePort } from '../neutron/ports.js';
import type { HealthMonitor, LbCommon, Listener, LoadBalancer, Member, Pool } from './model.js';

export const oerr = (status: number, msg: string): SimError => new SimError(status, msg);
export const validation = (detail: string): SimError => oerr(400, `Validation failure: ${detail}`);

export function authorize(ctx: Ctx, projectId: string): void {
  if (!ctx.auth.isAdmin && ctx.auth.projectId !== projectId) throw oerr(403, 'Policy does not allow this request to be performed.');
}

export function requireLbRole(ctx: Ctx): void {
  if (ctx.auth.isAdmin) return;
  if (!ctx.auth.roles.some((r) => r === 'member' || r === 'load-balancer_member')) throw oerr(403, 'Policy does not allow this request to be performed.');
}

export function findLb(ctx: Ctx, id: string): LoadBalancer {
  const lb = ctx.sim.octavia.lbs.get(id);
  if (!lb) throw oerr(404, `Load Balancer ${id} not found.`);
  authorize(ctx, lb.projectId);
  return lb;
}

/** Octavia's MUTABLE_STATUSES: only an ACTIVE load balancer accepts a change (ERROR as well for delete). */
export function checkMutable(lb: LoadBalancer, forDelete = false): void {
  const okStates = forDelete ? ['ACTIVE', 'ERROR'] : ['ACTIVE'];
  if (!okStates.includes(lb.provisioningStatus)) throw oerr(409, `Load Balancer ${lb.id} is immutable and cannot be updated.`);
}

/** The load balancer's own update or delete (Octavia's _test_lb_status): a busy LB is LBPendingStateError, not "immutable". */
export function checkLbPending(lb: LoadBalancer, forDelete = false): void {
  const okStates = forDelete ? ['ACTIVE', 'ERROR'] : ['ACTIVE'];
  if (!okStates.includes(lb.provisioningStatus)) throw oerr(409, `Invalid state ${lb.provisioningStatus} of loadbalancer resource ${lb.id}`);
}

function failsProvisioning(sim: Sim, lb: LoadBalancer): boolean {
  const re = sim.config.octavia.failProvisioning;
  if (!re) return false;
  try {
    return new RegExp(re).test(lb.name);
  } catch {
    return false;
  }
}

const online = (sim: Sim): string => sim.config.octavia.operatingStatus;

function childrenOf(sim: Sim, lbId: string): { listeners: Listener[]; pools: Pool[]; members: Member[]; hms: HealthMonitor[] } {
  const o = sim.octavia;
  const listeners = [...o.listeners.values()].filter((l) => l.lbId === lbId);
  const pools = [...o.pools.values()].filter((p) => p.lbId === lbId);
  const poolIds = new Set(pools.map((p) => p.id));
  return {
    listeners, pools,
    members: [...o.members.values()].filter((m) => poolIds.has(m.poolId)),
    hms: [...o.healthmonitors.values()].filter((h) => poolIds.has(h.poolId)),
  };
}

export function removeHm(sim: Sim, h: HealthMonitor): void {
  sim.octavia.healthmonitors.delete(h.id);
  const p = sim.octavia.pools.get(h.poolId);
  if (p && p.healthmonitorId === h.id) p.healthmonitorId = null;
}

export function removePool(sim: Sim, p: Pool): void {
  const o = sim.octavia;
  for (const m of [...o.members.values()]) if (m.poolId === p.id) o.members.delete(m.id);
  for (const h of [...o.healthmonitors.values()]) if (h.poolId === p.id) o.healthmonitors.delete(h.id);
  for (const l of o.listeners.values()) if (l.defaultPoolId === p.id) l.defaultPoolId = null;
  o.pools.delete(p.id);
}

export function removeListener(sim: Sim, l: Listener): void {
  for (const p of sim.octavia.pools.values()) p.listenerIds = p.listenerIds.filter((x) => x !== l.id);
  sim.octavia.listeners.delete(l.id);
}

/**
 * A child change: the LB goes PENDING_UPDATE at once, then (after delays.lbUpdate) everything pending on it
 * settles — PENDING_CREATE/UPDATE → ACTIVE, PENDING_DELETE → gone — or, with the failProvisioning knob, the
 * changed child goes to ERROR and the LB back to ACTIVE (Octavia reverts the flow). Children marked `unseen`
 * (left by a fully populated create) are skipped: only a change that marks them (mutate's marks) clears that.
 */
export function beginLbUpdate(sim: Sim, lb: LoadBalancer): void {
  checkMutable(lb);
  lb.provisioningStatus = 'PENDING_UPDATE';
  lb.updated = sim.now();
  const gen = ++lb.gen;
  sim.after(sim.delays.lbUpdate, () => {
    if (lb.gen !== gen || !sim.octavia.lbs.has(lb.id)) return;
    settleChildren(sim, lb, failsProvisioning(sim, lb));
    lb.provisioningStatus = 'ACTIVE';
    lb.updated = sim.now();
  });
}

function settleChildren(sim: Sim, lb: LoadBalancer, failed: boolean): void {
  const { listeners, pools, members, hms } = childrenOf(sim, lb.id);
  const now = sim.now();
  for (const h of hms) settle(h, () => removeHm(sim, h));
  for (const m of members) settle(m, () => sim.octavia.members.delete(m.id));
  for (const p of pools) settle(p, () => removePool(sim, p));
  for (const l of listeners) settle(l, () => removeListener(sim, l));
  function settle(c: LbCommon, remove: () => void): void {
    if (c.provisioningStatus === 'PENDING_DELETE') {
      if (failed) c.provisioningStatus = 'ERROR';
      else remove();
      return;
    }
    if (c.unseen) return;
    if (c.provisioningStatus === 'PENDING_CREATE' || c.provisioningStatus === 'PENDING_UPDATE') {
      c.provisioningStatus = failed ? 'ERROR' : 'ACTIVE';
      c.updated = now;
      // Members keep NO_MONITOR (no health manager); the rest report the configured status once ACTIVE.
      if (!failed && c.operatingStatus === 'OFFLINE') c.operatingStatus = online(sim);
    }
  }
}

export function scheduleLbCreate(sim: Sim, lb: LoadBalancer): void {
  const gen = lb.gen;
  sim.after(sim.delays.lbCreate, () => {
    if (lb.gen !== gen || !sim.octavia.lbs.has(lb.id)) return;
    const failed = failsProvisioning(sim, lb);
    lb.provisioningStatus = failed ? 'ERROR' : 'ACTIVE';
    lb.operatingStatus = failed ? 'ERROR' : online(sim);
    lb.updated = sim.now();
  });
}

export function scheduleLbDelete(sim: Sim, lb: LoadBalancer): void {
  lb.provisioningStatus = 'PENDING_DELETE';
  lb.updated = sim.now();
  const { listeners, pools, members, hms } = childrenOf(sim, lb.id);
  for (const c of [...listeners, ...pools, ...members, ...hms]) c.provisioningStatus = 'PENDING_DELETE';
  const gen = ++lb.gen;
  sim.after(sim.delays.lbDelete, () => {
    if (lb.gen !== gen) return;
    const o = sim.octavia;
    for (const h of hms) o.healthmonitors.delete(h.id);
    for (const m of members) o.members.delete(m.id);
    for (const p of pools) o.pools.delete(p.id);
    for (const l of listeners) o.listeners.delete(l.id);
    deletePort(sim, lb.vipPortId);
    o.lbs.delete(lb.id);
  });
}

export function common(c: LbCommon): Record<string, unknown> {
  return {
    id: c.id, name: c.name, description: c.description, provisioning_status: c.provisioningStatus, operating_status: c.operatingStatus,
    admin_state_up: c.adminStateUp, project_id: c.projectId, tenant_id: c.projectId, created_at: isoSeconds(c.created),
    updated_at: c.updated === null ? null : isoSeconds(c.updated), tags: [...c.tags],
  };
}

const RESERVED = new Set(['fields', 'limit', 'marker', 'page_reverse', 'sort', 'sort_key', 'sort_dir', 'tags', 'tags-any', 'not-tags', 'not-tags-any']);

/** Octavia lists: exact attribute filters (name included), tag filters, `fields`, limit/marker paging. */
export function listOf<T extends LbCommon>(ctx: Ctx, collection: string, path: string, items: Iterable<T>, view: (t: T) => Record<string, unknown>): SimResponse {
  const q = ctx.req.query;
  const keys = [...new Set(q.keys())].filter((k) => !RESERVED.has(k));
  const tagList = (k: string) => q.getAll(k).flatMap((v) => v.split(',')).filter(Boolean);
  const [all, any, not, notAny] = [tagList('tags'), tagList('tags-any'), tagList('not-tags'), tagList('not-tags-any')];
  const rows: Array<{ id: string; v: Record<string, unknown> }> = [];
  for (const it of items) {
    if (!ctx.auth.isAdmin && it.projectId !== ctx.auth.projectId) continue;
    const v = view(it);
    if (keys.some((k) => k in v && !q.getAll(k).includes(String(v[k])))) continue;
    if (all.length && !all.every((t) => it.tags.includes(t))) continue;
    if (any.length && !any.some((t) => it.tags.includes(t))) continue;
    if (not.length && not.every((t) => it.tags.includes(t))) continue;
    if (notAny.length && notAny.some((t) => it.tags.includes(t))) continue;
    rows.push({ id: it.id, v });
  }
  const limit = parseLimit(ctx.q('limit'), 1000, `Supplied pagination limit '${ctx.q('limit') ?? ''}' is not valid.`) ?? 1000;
  const pg = page(rows, (r) => r.id, limit, ctx.q('marker'), (m) => oerr(400, `Supplied pagination marker '${m}' is not valid.`));
  const fields = q.getAll('fields');
  const project = (v: Record<string, unknown>) => (fields.length ? Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, v[f]])) : v);
  const links: unknown[] = [];
  const last = pg.items[pg.items.length - 1];
  const first = pg.items[0];
  if (ctx.q('marker') !== undefined && first) links.push({ href: ctx.sim.url(`/load-balancer/v2/${path}?${withMarker(q, first.id, limit)}`), rel: 'previous' });
  if (isFullPage(pg.items, limit) && last) links.push({ href: ctx.sim.url(`/load-balancer/v2/${path}?${withMarker(q, last.id, limit)}`), rel: 'next' });
  return ok({ [collection]: pg.items.map((r) => project(r.v)), [`${collection}_links`]: links });
}

export function oneOf(ctx: Ctx, key: string, v: Record<string, unknown>, status = 200): SimResponse {
  const fields = ctx.req.query.getAll('fields');
  return ok({ [key]: fields.length ? Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, v[f]])) : v }, status);
}

export function lbView(sim: Sim, lb: LoadBalancer): Record<string, unknown> {
  const o = sim.octavia;
  return {
    ...common(lb), vip_address: lb.vipAddress, vip_port_id: lb.vipPortId, vip_subnet_id: lb.vipSubnetId, vip_network_id: lb.vipNetworkId,
    vip_qos_policy_id: null, provider: lb.provider, flavor_id: lb.flavorId, availability_zone: lb.az,
    listeners: [...o.listeners.values()].filter((l) => l.lbId === lb.id).map((l) => ({ id: l.id })),
    pools: [...o.pools.values()].filter((p) => p.lbId === lb.id).map((p) => ({ id: p.id })),
    additional_vips: [],
  };
}

export function listenerView(l: Listener): Record<string, unknown> {
  return {
    ...common(l), protocol: l.protocol, protocol_port: l.protocolPort, connection_limit: l.connectionLimit,
    default_tls_container_ref: l.defaultTlsContainerRef, sni_container_refs: [], default_pool_id: l.defaultPoolId, l7policies: [],
    insert_headers: { ...l.insertHeaders }, loadbalancers: [{ id: l.lbId }], timeout_client_data: l.timeoutClientData,
    timeout_member_connect: l.timeoutMemberConnect, timeout_member_data: l.timeoutMemberData, timeout_tcp_inspect: l.timeoutTcpInspect,
    client_ca_tls_container_ref: null, client_authentication: 'NONE', client_crl_container_ref: null, allowed_cidrs: l.allowedCidrs,
    tls_ciphers: null, tls_versions: null, alpn_protocols: null, hsts_max_age: null, hsts_include_subdomains: false, hsts_preload: false,
  };
}

export function poolView(sim: Sim, p: Pool): Record<string, unknown> {
  return {
    ...common(p), protocol: p.protocol, lb_algorithm: p.lbAlgorithm, session_persistence: p.sessionPersistence,
    loadbalancers: [{ id: p.lbId }], listeners: p.listenerIds.map((id) => ({ id })),
    members: [...sim.octavia.members.values()].filter((m) => m.poolId === p.id).map((m) => ({ id: m.id })),
    healthmonitor_id: p.healthmonitorId, tls_enabled: p.tlsEnabled, tls_ciphers: null, tls_versions: null, alpn_protocols: null,
    ca_tls_container_ref: null, crl_container_ref: null, tls_container_ref: null,
  };
}

export function memberView(m: Member): Record<string, unknown> {
  return {
    ...common(m), address: m.address, protocol_port: m.protocolPort, weight: m.weight, backup: m.backup, subnet_id: m.subnetId,
    monitor_address: m.monitorAddress, monitor_port: m.monitorPort, vnic_type: 'normal',
  };
}

export function hmView(h: HealthMonitor): Record<string, unknown> {
  return {
    ...common(h), type: h.type, delay: h.delay, timeout: h.timeout, max_retries: h.maxRetries, max_retries_down: h.maxRetriesDown,
    http_method: h.httpMethod, url_path: h.urlPath, expected_codes: h.expectedCodes, http_version: h.httpVersion,
    domain_name: h.domainName, pools: [{ id: h.poolId }],
  };
}
