/** Neutron routers: the gateway that makes an external network (and so floating IPs) reachable from a subnet. */
import * as t from 'io-ts';
import type { HttpSession, Query } from '../http.js';
import { contextOf } from '../http.js';
import type { PageOptions } from '../paging.js';
import { decodeOrThrow } from '../decoders/field.js';
import type { Router } from '../decoders/network.js';
import { routerCodec } from '../decoders/network.js';
import type { NeutronResource } from './resource.js';
import { createOne, deleteOne, findOne, getOne, listOf, updateOne } from './resource.js';

export const ROUTER: NeutronResource<Router> = { kind: 'router', path: '/routers', collection: 'routers', single: 'router', codec: routerCodec };

// Networking API v2.0: List Routers — GET /v2.0/routers
export const listRouters = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<Router[]> => listOf(http, ROUTER, filters, page);
// Networking API v2.0: Show Router Details — GET /v2.0/routers/{router_id}
export const getRouter = (http: HttpSession, id: string): Promise<Router> => getOne(http, ROUTER, id);
// Networking API v2.0: List Routers — GET /v2.0/routers?name=…, post-filtered to the exact name
export const findRouterByName = (http: HttpSession, name: string, filters: Query = {}): Promise<Router> => findOne(http, ROUTER, name, filters);
// Networking API v2.0: Create Router — POST /v2.0/routers
export const createRouter = (http: HttpSession, body: { name: string; external_gateway_info?: { network_id: string; enable_snat?: boolean }; admin_state_up?: boolean; [k: string]: unknown }): Promise<Router> => createOne(http, ROUTER, body);
// Networking API v2.0: Update Router — PUT /v2.0/routers/{router_id}
export const updateRouter = (http: HttpSession, id: string, body: Readonly<Record<string, unknown>>): Promise<Router> => updateOne(http, ROUTER, id, body);
// Networking API v2.0: Delete Router — DELETE /v2.0/routers/{router_id}
export const deleteRouter = (http: HttpSession, id: string): Promise<void> => deleteOne(http, ROUTER, id);

const interfaceCodec = t.intersection([t.type({ id: t.string }), t.partial({ subnet_id: t.string, port_id: t.string, subnet_ids: t.array(t.string) })]);

// Networking API v2.0: Add Interface To Router — PUT /v2.0/routers/{router_id}/add_router_interface
export const addRouterInterface = async (http: HttpSession, routerId: string, target: { subnet_id: string } | { port_id: string }): Promise<{ portId?: string }> => {
  const response = await http.put(`/routers/${encodeURIComponent(routerId)}/add_router_interface`, target);
  const body = decodeOrThrow(interfaceCodec, response.data, 'router interface', contextOf(http, response));
  return body.port_id !== undefined ? { portId: body.port_id } : {};
};

// Networking API v2.0: Remove Interface From Router — PUT /v2.0/routers/{router_id}/remove_router_interface
export const removeRouterInterface = async (http: HttpSession, routerId: string, target: { subnet_id: string } | { port_id: string }): Promise<void> => {
  await http.put(`/routers/${encodeURIComponent(routerId)}/remove_router_interface`, target);
};
