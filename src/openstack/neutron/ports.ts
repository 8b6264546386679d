/** Neutron ports (the VIP port of a load balancer, server ports and their MACs). */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { Port } from '../decoders/network.js';
import { portCodec } from '../decoders/network.js';
import type { NeutronResource } from './resource.js';
import { createOne, deleteOne, findOne, getOne, listOf, updateOne } from './resource.js';

export const PORT: NeutronResource<Port> = { kind: 'port', path: '/ports', collection: 'ports', single: 'port', codec: portCodec };

// Networking API v2.0: List Ports — GET /v2.0/ports
export const listPorts = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<Port[]> => listOf(http, PORT, filters, page);
// Networking API v2.0: Show Port Details — GET /v2.0/ports/{port_id}
export const getPort = (http: HttpSession, id: string): Promise<Port> => getOne(http, PORT, id);
// Networking API v2.0: List Ports — GET /v2.0/ports?name=…, post-filtered to the exact name
export const findPortByName = (http: HttpSession, name: string, filters: Query = {}): Promise<Port> => findOne(http, PORT, name, filters);
// Networking API v2.0: Create Port — POST /v2.0/ports
export const createPort = (http: HttpSession, body: { network_id: string; name?: string; fixed_ips?: ReadonlyArray<{ subnet_id?: string; ip_address?: string }>; security_groups?: readonly string[]; [k: string]: unknown }): Promise<Port> => createOne(http, PORT, body);
// Networking API v2.0: Update Port — PUT /v2.0/ports/{port_id}
export const updatePort = (http: HttpSession, id: string, body: Readonly<Record<string, unknown>>): Promise<Port> => updateOne(http, PORT, id, body);
// Networking API v2.0: Delete Port — DELETE /v2.0/ports/{port_id}
export const deletePort = (http: HttpSession, id: string): Promise<void> => deleteOne(http, PORT, id);
