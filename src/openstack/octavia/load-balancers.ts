/**
 * Octavia load balancers. Every create/update/delete on an LB or its children moves it to PENDING_* and Octavia
 * answers 409 ("immutable") to the next change until it is ACTIVE again: callers yield on PENDING_*, this layer
 * only reports (a 409 is a Conflict, never retried).
 *
 * A create may carry its listeners, each with a fully populated default pool (Octavia's "fully populated load
 * balancer"); the answer then holds every child with its id and provisioning status. On real Octavia Zed the
 * children stay PENDING_CREATE after the LB is ACTIVE (docs/simulator-differences.md §16): the create is one call,
 * not one pass to ACTIVE.
 */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { CreatedLoadBalancerObservation, LoadBalancerObservation } from '../decoders/octavia.js';
import { decodeCreatedLoadBalancer, decodeLoadBalancer } from '../decoders/octavia.js';
import type { CreateListenerRequest } from './listeners.js';
import { createListenerBody, nestedPoolHeaders } from './listeners.js';
import type { OctaviaResource } from './resource.js';
import { createOne, deleteOne, findOne, getOne, listOf, lookupOne, updateOne } from './resource.js';

export const LOAD_BALANCER: OctaviaResource<LoadBalancerObservation> = {
  kind: 'load balancer', path: '/lbaas/loadbalancers', collection: 'loadbalancers', single: 'loadbalancer', decode: decodeLoadBalancer,
};

export interface CreateLoadBalancerRequest {
  name: string;
  /** One of vipSubnetId / vipNetworkId / vipPortId. */
  vipSubnetId?: string;
  vipNetworkId?: string;
  vipPortId?: string;
  vipAddress?: string;
  description?: string;
  provider?: string;
  flavorId?: string;
  availabilityZone?: string;
  tags?: readonly string[];
  adminStateUp?: boolean;
  /** Listeners created with the load balancer, each with an optional fully populated default pool. */
  listeners?: readonly FullListenerRequest[];
}

/** A listener nested in a load-balancer create: no load balancer id, no existing pool to point at (defaultPool, if any, is created). */
export type FullListenerRequest = Omit<CreateListenerRequest, 'loadbalancerId' | 'defaultPoolId'>;

/** The create answers Octavia's full representation: decoded with its children. */
const CREATED_LOAD_BALANCER: OctaviaResource<CreatedLoadBalancerObservation> = { ...LOAD_BALANCER, decode: decodeCreatedLoadBalancer };

/** A nested listener's body: the listener create body without loadbalancer_id. */
const nestedListenerBody = (l: FullListenerRequest): Record<string, unknown> => {
  const body = createListenerBody({ ...l, loadbalancerId: '' });
  delete body.loadbalancer_id;
  return body;
};

// Load Balancer API v2: List Load Balancers — GET /v2/lbaas/loadbalancers
export const listLoadBalancers = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<LoadBalancerObservation[]> => listOf(http, LOAD_BALANCER, filters, page);

// Load Balancer API v2: Show Load Balancer details — GET /v2/lbaas/loadbalancers/{loadbalancer_id}
export const getLoadBalancer = (http: HttpSession, id: string): Promise<LoadBalancerObservation> => getOne(http, LOAD_BALANCER, id);

// Load Balancer API v2: List Load Balancers — GET /v2/lbaas/loadbalancers?name=…, post-filtered to the exact name
export const findLoadBalancerByName = (http: HttpSession, name: string): Promise<LoadBalancerObservation> => findOne(http, LOAD_BALANCER, name);

// Load Balancer API v2: List Load Balancers — GET /v2/lbaas/loadbalancers?name=… ; undefined when none
export const lookupLoadBalancerByName = (http: HttpSession, name: string): Promise<LoadBalancerObservation | undefined> => lookupOne(http, LOAD_BALANCER, name);

/** The create body (snake_case); nested listeners and their pools when given. */
export const createLoadBalancerBody = (req: CreateLoadBalancerRequest): Record<string, unknown> => {
  const body: Record<string, unknown> = { name: req.name };
  if (req.vipSubnetId !== undefined) body.vip_subnet_id = req.vipSubnetId;
  if (req.vipNetworkId !== undefined) body.vip_network_id = req.vipNetworkId;
  if (req.vipPortId !== undefined) body.vip_port_id = req.vipPortId;
  if (req.vipAddress !== undefined) body.vip_address = req.vipAddress;
  if (req.description !== undefined) body.description = req.description;
  if (req.provider !== undefined) body.provider = req.provider;
  if (req.flavorId !== undefined) body.flavor_id = req.flavorId;
  if (req.availabilityZone !== undefined) body.availability_zone = req.availabilityZone;
  if (req.tags !== undefined) body.tags = req.tags;
  if (req.adminStateUp !== undefined) body.admin_state_up = req.adminStateUp;
  if (req.listeners !== undefined) body.listeners = req.listeners.map(nestedListenerBody);
  return body;
};

// Load Balancer API v2: Create a Load Balancer — POST /v2/lbaas/loadbalancers (nested PROXYV2 pools pin load-balancer 2.22)
export const createLoadBalancer = (http: HttpSession, req: CreateLoadBalancerRequest): Promise<CreatedLoadBalancerObservation> =>
  createOne(http, CREATED_LOAD_BALANCER, createLoadBalancerBody(req), nestedPoolHeaders((req.listeners ?? []).map((l) => l.defaultPool?.protocol), http.microversions.loadBalancerProxyV2));

// Load Balancer API v2: Update a Load Balancer — PUT /v2/lbaas/loadbalancers/{loadbalancer_id}
export const updateLoadBalancer = (http: HttpSession, id: string, body: { name?: string; description?: string; admin_state_up?: boolean; tags?: readonly string[] }): Promise<LoadBalancerObservation> =>
  updateOne(http, LOAD_BALANCER, id, body);

// Load Balancer API v2: Remove a Load Balancer — DELETE /v2/lbaas/loadbalancers/{loadbalancer_id}[?cascade=true]
export const deleteLoadBalancer = (http: HttpSession, id: string, options: { cascade?: boolean } = {}): Promise<void> =>
  deleteOne(http, LOAD_BALANCER, id, options.cascade === true ? { cascade: true } : undefined);
