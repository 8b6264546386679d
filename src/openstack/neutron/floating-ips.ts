/** Neutron floating IPs (no name: found by port or by tag). */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { FloatingIp } from '../decoders/network.js';
import { floatingIpCodec } from '../decoders/network.js';
import type { NeutronResource } from './resource.js';
import { createOne, deleteOne, getOne, listOf, updateOne } from './resource.js';

export const FLOATING_IP: NeutronResource<FloatingIp> = { kind: 'floating IP', path: '/floatingips', collection: 'floatingips', single: 'floatingip', codec: floatingIpCodec };

// Networking API v2.0: List Floating IPs — GET /v2.0/floatingips
export const listFloatingIps = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<FloatingIp[]> => listOf(http, FLOATING_IP, filters, page);
// Networking API v2.0: Show Floating IP Details — GET /v2.0/floatingips/{floatingip_id}
export const getFloatingIp = (http: HttpSession, id: string): Promise<FloatingIp> => getOne(http, FLOATING_IP, id);
// Networking API v2.0: Create Floating IP — POST /v2.0/floatingips
export const createFloatingIp = (http: HttpSession, body: { floating_network_id: string; port_id?: string; fixed_ip_address?: string; description?: string; [k: string]: unknown }): Promise<FloatingIp> => createOne(http, FLOATING_IP, body);
// Networking API v2.0: Update Floating IP — PUT /v2.0/floatingips/{floatingip_id} (associate: port_id; disassociate: null)
export const associateFloatingIp = (http: HttpSession, id: string, portId: string | null): Promise<FloatingIp> => updateOne(http, FLOATING_IP, id, { port_id: portId });
// Networking API v2.0: Delete Floating IP — DELETE /v2.0/floatingips/{floatingip_id}
export const deleteFloatingIp = (http: HttpSession, id: string): Promise<void> => deleteOne(http, FLOATING_IP, id);
