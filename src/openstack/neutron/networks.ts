/** Neutron networks and subnets. */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { Network, Subnet } from '../decoders/network.js';
import { networkCodec, subnetCodec } from '../decoders/network.js';
import type { NeutronResource } from './resource.js';
import { createOne, deleteOne, findOne, getOne, listOf, lookupOne, updateOne } from './resource.js';

export const NETWORK: NeutronResource<Network> = { kind: 'network', path: '/networks', collection: 'networks', single: 'network', codec: networkCodec };
export const SUBNET: NeutronResource<Subnet> = { kind: 'subnet', path: '/subnets', collection: 'subnets', single: 'subnet', codec: subnetCodec };

// Networking API v2.0: List Networks — GET /v2.0/networks
export const listNetworks = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<Network[]> => listOf(http, NETWORK, filters, page);
// Networking API v2.0: Show Network Details — GET /v2.0/networks/{network_id}
export const getNetwork = (http: HttpSession, id: string): Promise<Network> => getOne(http, NETWORK, id);
// Networking API v2.0: List Networks — GET /v2.0/networks?name=…, post-filtered to the exact name
export const findNetworkByName = (http: HttpSession, name: string, filters: Query = {}): Promise<Network> => findOne(http, NETWORK, name, filters);
// Networking API v2.0: List Networks — GET /v2.0/networks?name=… ; undefined when none
export const lookupNetworkByName = (http: HttpSession, name: string, filters: Query = {}): Promise<Network | undefined> => lookupOne(http, NETWORK, name, filters);
// Networking API v2.0: Create Network — POST /v2.0/networks
export const createNetwork = (http: HttpSession, body: { name: string; admin_state_up?: boolean; shared?: boolean; mtu?: number; description?: string; [k: string]: unknown }): Promise<Network> => createOne(http, NETWORK, body);
// Networking API v2.0: Update Network — PUT /v2.0/networks/{network_id}
export const updateNetwork = (http: HttpSession, id: string, body: Readonly<Record<string, unknown>>): Promise<Network> => updateOne(http, NETWORK, id, body);
// Networking API v2.0: Delete Network — DELETE /v2.0/networks/{network_id}
export const deleteNetwork = (http: HttpSession, id: string): Promise<void> => deleteOne(http, NETWORK, id);

// Networking API v2.0: List Subnets — GET /v2.0/subnets
export const listSubnets = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<Subnet[]> => listOf(http, SUBNET, filters, page);
// Networking API v2.0: Show Subnet Details — GET /v2.0/subnets/{subnet_id}
export const getSubnet = (http: HttpSession, id: string): Promise<Subnet> => getOne(http, SUBNET, id);
// Networking API v2.0: List Subnets — GET /v2.0/subnets?name=…, post-filtered to the exact name
export const findSubnetByName = (http: HttpSession, name: string, filters: Query = {}): Promise<Subnet> => findOne(http, SUBNET, name, filters);
// Networking API v2.0: Create Subnet — POST /v2.0/subnets
export const createSubnet = (http: HttpSession, body: { name: string; network_id: string; cidr: string; ip_version: 4 | 6; gateway_ip?: string | null; enable_dhcp?: boolean; [k: string]: unknown }): Promise<Subnet> => createOne(http, SUBNET, body);
// Networking API v2.0: Update Subnet — PUT /v2.0/subnets/{subnet_id}
export const updateSubnet = (http: HttpSession, id: string, body: Readonly<Record<string, unknown>>): Promise<Subnet> => updateOne(http, SUBNET, id, body);
// Networking API v2.0: Delete Subnet — DELETE /v2.0/subnets/{subnet_id}
export const deleteSubnet = (http: HttpSession, id: string): Promise<void> => deleteOne(http, SUBNET, id);
