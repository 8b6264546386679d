/**
 * Octavia listeners. Protocol and port are immutable in Octavia; the rest is converged with update.
 *
 * A listener (here, or nested in a load-balancer create) may carry a fully populated `default_pool` (members and a
 * health monitor inside). The pool body is built here for both. Real Octavia Zed answers a listener create that
 * carries one with 500 (`'dict' object has no attribute '_sa_instance_state'`, nothing created) and accepts it only
 * nested in a load-balancer create; see docs/simulator-differences.md §16.
 */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { ListenerObservation } from '../decoders/octavia.js';
import { decodeListener } from '../decoders/octavia.js';
import type { CreateHealthMonitorRequest } from './health-monitors.js';
import type { CreatePoolRequest, MemberRequest, PoolProtocol } from './pools.js';
import { poolCreateHeaders } from './pools.js';
import type { OctaviaResource } from './resource.js';
import { createOne, deleteOne, findOne, getOne, listOf, lookupOne, updateOne } from './resource.js';

export const LISTENER: OctaviaResource<ListenerObservation> = { kind: 'listener', path: '/lbaas/listeners', collection: 'listeners', single: 'listener', decode: decodeListener };

export type ListenerProtocol = 'HTTP' | 'HTTPS' | 'TCP' | 'UDP' | 'SCTP' | 'TERMINATED_HTTPS' | 'PROMETHEUS';

export interface CreateListenerRequest {
  name: string;
  loadbalancerId: string;
  protocol: ListenerProtocol;
  protocolPort: number;
  defaultPoolId?: string;
  /** A pool created with the listener (Octavia's single-call create); not with defaultPoolId. */
  defaultPool?: FullPoolRequest;
  allowedCidrs?: readonly string[];
  timeoutClientData?: number;
  timeoutMemberData?: number;
  description?: string;
  tags?: readonly string[];
}

/** A health monitor nested in a pool create: a health-monitor create without its pool. */
export type FullHealthMonitorRequest = Omit<CreateHealthMonitorRequest, 'poolId'>;

/**
 * A pool nested in a listener (`default_pool`), with its members and health monitor. Octavia requires the name in a
 * load-balancer create ("Pools must be named when creating a fully populated loadbalancer.") and unique names there.
 */
export interface FullPoolRequest extends Omit<CreatePoolRequest, 'listenerId' | 'loadbalancerId'> {
  members?: readonly MemberRequest[];
  healthmonitor?: FullHealthMonitorRequest;
}

const nestedMemberBody = (m: MemberRequest): Record<string, unknown> => {
  const body: Record<string, unknown> = { address: m.address, protocol_port: m.protocolPort };
  if (m.name !== undefined) body.name = m.name;
  if (m.subnetId !== undefined) body.subnet_id = m.subnetId;
  if (m.weight !== undefined) body.weight = m.weight;
  if (m.monitorAddress !== undefined) body.monitor_address = m.monitorAddress;
  if (m.monitorPort !== undefined) body.monitor_port = m.monitorPort;
  if (m.tags !== undefined) body.tags = m.tags;
  return body;
};

const nestedHealthMonitorBody = (h: FullHealthMonitorRequest): Record<string, unknown> => {
  const body: Record<string, unknown> = { name: h.name, type: h.type, delay: h.delay, timeout: h.timeout, max_retries: h.maxRetries };
  if (h.maxRetriesDown !== undefined) body.max_retries_down = h.maxRetriesDown;
  if (h.urlPath !== undefined) body.url_path = h.urlPath;
  if (h.expectedCodes !== undefined) body.expected_codes = h.expectedCodes;
  if (h.httpMethod !== undefined) body.http_method = h.httpMethod;
  if (h.tags !== undefined) body.tags = h.tags;
  return body;
};

/** Octavia's `default_pool` body (snake_case), members and health monitor inside. */
export const fullPoolBody = (p: FullPoolRequest): Record<string, unknown> => {
  const body: Record<string, unknown> = { name: p.name, protocol: p.protocol, lb_algorithm: p.lbAlgorithm };
  if (p.description !== undefined) body.description = p.description;
  if (p.tags !== undefined) body.tags = p.tags;
  if (p.sessionPersistence !== undefined) body.session_persistence = p.sessionPersistence;
  if (p.members !== undefined) body.members = p.members.map(nestedMemberBody);
  if (p.healthmonitor !== undefined) body.healthmonitor = nestedHealthMonitorBody(p.healthmonitor);
  return body;
};

/** The header a create with nested pools needs: 2.22 when any of them is PROXYV2 (as poolCreateHeaders), else none. */
export const nestedPoolHeaders = (protocols: readonly (PoolProtocol | undefined)[], version: string): Record<string, string> | undefined =>
  protocols.includes('PROXYV2') ? poolCreateHeaders('PROXYV2', version) : undefined;

export interface UpdateListenerRequest {
  name?: string;
  defaultPoolId?: string | null;
  allowedCidrs?: readonly string[] | null;
  timeoutClientData?: number | null;
  timeoutMemberData?: number | null;
  description?: string;
  tags?: readonly string[];
}

const mutable = (req: UpdateListenerRequest | CreateListenerRequest): Record<string, unknown> => {
  const body: Record<string, unknown> = {};
  if (req.name !== undefined) body.name = req.name;
  if (req.defaultPoolId !== undefined) body.default_pool_id = req.defaultPoolId;
  if (req.allowedCidrs !== undefined) body.allowed_cidrs = req.allowedCidrs;
  if (req.timeoutClientData !== undefined) body.timeout_client_data = req.timeoutClientData;
  if (req.timeoutMemberData !== undefined) body.timeout_member_data = req.timeoutMemberData;
  if (req.description !== undefined) body.description = req.description;
  if (req.tags !== undefined) body.tags = req.tags;
  return body;
};

// Load Balancer API v2: List Listeners — GET /v2/lbaas/listeners
export const listListeners = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<ListenerObservation[]> => listOf(http, LISTENER, filters, page);
// Load Balancer API v2: Show Listener details — GET /v2/lbaas/listeners/{listener_id}
export const getListener = (http: HttpSession, id: string): Promise<ListenerObservation> => getOne(http, LISTENER, id);
// Load Balancer API v2: List Listeners — GET /v2/lbaas/listeners?name=…, post-filtered to the exact name
export const findListenerByName = (http: HttpSession, name: string, filters: Query = {}): Promise<ListenerObservation> => findOne(http, LISTENER, name, filters);
// Load Balancer API v2: List Listeners — GET /v2/lbaas/listeners?name=… ; undefined when none
export const lookupListenerByName = (http: HttpSession, name: string, filters: Query = {}): Promise<ListenerObservation | undefined> => lookupOne(http, LISTENER, name, filters);
/** The listener create body: snake_case, a nested `default_pool` when defaultPool is given. */
export const createListenerBody = (req: CreateListenerRequest): Record<string, unknown> => {
  const body: Record<string, unknown> = { ...mutable(req), loadbalancer_id: req.loadbalancerId, protocol: req.protocol, protocol_port: req.protocolPort };
  if (req.defaultPool !== undefined) body.default_pool = fullPoolBody(req.defaultPool);
  return body;
};

// Load Balancer API v2: Create Listener — POST /v2/lbaas/listeners (a nested default_pool pins load-balancer 2.22 when it is PROXYV2)
export const createListener = (http: HttpSession, req: CreateListenerRequest): Promise<ListenerObservation> =>
  createOne(http, LISTENER, createListenerBody(req), nestedPoolHeaders([req.defaultPool?.protocol], http.microversions.loadBalancerProxyV2));
// Load Balancer API v2: Update a Listener — PUT /v2/lbaas/listeners/{listener_id}
export const updateListener = (http: HttpSession, id: string, req: UpdateListenerRequest): Promise<ListenerObservation> => updateOne(http, LISTENER, id, mutable(req));
// Load Balancer API v2: Remove a Listener — DELETE /v2/lbaas/listeners/{listener_id}
export const deleteListener = (http: HttpSession, id: string): Promise<void> => deleteOne(http, LISTENER, id);
