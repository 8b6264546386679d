/** Octavia listeners. Protocol and port are immutable in Octavia; the rest is converged with update. */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { ListenerObservation } from '../decoders/octavia.js';
import { decodeListener } from '../decoders/octavia.js';
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
  allowedCidrs?: readonly string[];
  timeoutClientData?: number;
  timeoutMemberData?: number;
  description?: string;
  tags?: readonly string[];
}

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
// Load Balancer API v2: Create Listener — POST /v2/lbaas/listeners
export const createListener = (http: HttpSession, req: CreateListenerRequest): Promise<ListenerObservation> =>
  createOne(http, LISTENER, { ...mutable(req), loadbalancer_id: req.loadbalancerId, protocol: req.protocol, protocol_port: req.protocolPort });
// Load Balancer API v2: Update a Listener — PUT /v2/lbaas/listeners/{listener_id}
export const updateListener = (http: HttpSession, id: string, req: UpdateListenerRequest): Promise<ListenerObservation> => updateOne(http, LISTENER, id, mutable(req));
// Load Balancer API v2: Remove a Listener — DELETE /v2/lbaas/listeners/{listener_id}
export const deleteListener = (http: HttpSession, id: string): Promise<void> => deleteOne(http, LISTENER, id);
