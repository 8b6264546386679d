/**
 * Octavia pools and members. A PROXYV2 pool is created with `OpenStack-API-Version: load-balancer 2.22` (the
 * version that introduced it); pool protocol cannot be updated in place.
 */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { MemberObservation, PoolObservation } from '../decoders/octavia.js';
import { decodeMember, decodePool } from '../decoders/octavia.js';
import { loadBalancerHeaders } from '../microversions.js';
import type { OctaviaResource } from './resource.js';
import { createOne, deleteOne, findOne, getOne, listOf, lookupOne, updateOne } from './resource.js';

export const POOL: OctaviaResource<PoolObservation> = { kind: 'pool', path: '/lbaas/pools', collection: 'pools', single: 'pool', decode: decodePool };
const memberResource = (poolId: string): OctaviaResource<MemberObservation> => ({
  kind: 'member', path: `/lbaas/pools/${encodeURIComponent(poolId)}/members`, collection: 'members', single: 'member', decode: decodeMember,
});

export type PoolProtocol = 'HTTP' | 'HTTPS' | 'PROXY' | 'PROXYV2' | 'TCP' | 'UDP' | 'SCTP';

export interface CreatePoolRequest {
  name: string;
  protocol: PoolProtocol;
  lbAlgorithm: 'ROUND_ROBIN' | 'LEAST_CONNECTIONS' | 'SOURCE_IP' | 'SOURCE_IP_PORT';
  /** One of listenerId / loadbalancerId. */
  listenerId?: string;
  loadbalancerId?: string;
  description?: string;
  tags?: readonly string[];
  sessionPersistence?: { type: 'SOURCE_IP' | 'HTTP_COOKIE' | 'APP_COOKIE'; cookie_name?: string } | null;
}

/** The header a pool create needs: 2.22 for PROXYV2, nothing otherwise. */
export const poolCreateHeaders = (protocol: PoolProtocol, version: string): Record<string, string> | undefined =>
  protocol === 'PROXYV2' ? loadBalancerHeaders(version) : undefined;

// Load Balancer API v2: List Pools — GET /v2/lbaas/pools
export const listPools = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<PoolObservation[]> => listOf(http, POOL, filters, page);
// Load Balancer API v2: Show Pool details — GET /v2/lbaas/pools/{pool_id}
export const getPool = (http: HttpSession, id: string): Promise<PoolObservation> => getOne(http, POOL, id);
// Load Balancer API v2: List Pools — GET /v2/lbaas/pools?name=…, post-filtered to the exact name
export const findPoolByName = (http: HttpSession, name: string, filters: Query = {}): Promise<PoolObservation> => findOne(http, POOL, name, filters);
// Load Balancer API v2: List Pools — GET /v2/lbaas/pools?name=… ; undefined when none
export const lookupPoolByName = (http: HttpSession, name: string, filters: Query = {}): Promise<PoolObservation | undefined> => lookupOne(http, POOL, name, filters);

// Load Balancer API v2: Create Pool — POST /v2/lbaas/pools
export const createPool = (http: HttpSession, req: CreatePoolRequest): Promise<PoolObservation> => {
  const body: Record<string, unknown> = { name: req.name, protocol: req.protocol, lb_algorithm: req.lbAlgorithm };
  if (req.listenerId !== undefined) body.listener_id = req.listenerId;
  if (req.loadbalancerId !== undefined) body.loadbalancer_id = req.loadbalancerId;
  if (req.description !== undefined) body.description = req.description;
  if (req.tags !== undefined) body.tags = req.tags;
  if (req.sessionPersistence !== undefined) body.session_persistence = req.sessionPersistence;
  return createOne(http, POOL, body, poolCreateHeaders(req.protocol, http.microversions.loadBalancerProxyV2));
};

// Load Balancer API v2: Update a Pool — PUT /v2/lbaas/pools/{pool_id}
export const updatePool = (http: HttpSession, id: string, body: { name?: string; lb_algorithm?: string; description?: string; tags?: readonly string[] }): Promise<PoolObservation> =>
  updateOne(http, POOL, id, body);
// Load Balancer API v2: Remove a Pool — DELETE /v2/lbaas/pools/{pool_id}
export const deletePool = (http: HttpSession, id: string): Promise<void> => deleteOne(http, POOL, id);

export interface MemberRequest {
  address: string;
  protocolPort: number;
  name?: string;
  subnetId?: string;
  weight?: number;
  monitorAddress?: string;
  monitorPort?: number;
  tags?: readonly string[];
}

const memberBody = (m: MemberRequest): Record<string, unknown> => {
  const body: Record<string, unknown> = { address: m.address, protocol_port: m.protocolPort };
  if (m.name !== undefined) body.name = m.name;
  if (m.subnetId !== undefined) body.subnet_id = m.subnetId;
  if (m.weight !== undefined) body.weight = m.weight;
  if (m.monitorAddress !== undefined) body.monitor_address = m.monitorAddress;
  if (m.monitorPort !== undefined) body.monitor_port = m.monitorPort;
  if (m.tags !== undefined) body.tags = m.tags;
  return body;
};

// Load Balancer API v2: List Members — GET /v2/lbaas/pools/{pool_id}/members
export const listMembers = (http: HttpSession, poolId: string, filters: Query = {}): Promise<MemberObservation[]> => listOf(http, memberResource(poolId), filters);
// Load Balancer API v2: Show Member details — GET /v2/lbaas/pools/{pool_id}/members/{member_id}
export const getMember = (http: HttpSession, poolId: string, memberId: string): Promise<MemberObservation> => getOne(http, memberResource(poolId), memberId);
// Load Balancer API v2: Create Member — POST /v2/lbaas/pools/{pool_id}/members
export const createMember = (http: HttpSession, poolId: string, req: MemberRequest): Promise<MemberObservation> => createOne(http, memberResource(poolId), memberBody(req));
// Load Balancer API v2: Update a Member — PUT /v2/lbaas/pools/{pool_id}/members/{member_id}
export const updateMember = (http: HttpSession, poolId: string, memberId: string, body: { name?: string; weight?: number; tags?: readonly string[] }): Promise<MemberObservation> =>
  updateOne(http, memberResource(poolId), memberId, body);
// Load Balancer API v2: Remove a Member — DELETE /v2/lbaas/pools/{pool_id}/members/{member_id}
export const deleteMember = (http: HttpSession, poolId: string, memberId: string): Promise<void> => deleteOne(http, memberResource(poolId), memberId);

// Load Balancer API v2: Batch Update Members — PUT /v2/lbaas/pools/{pool_id}/members (the list becomes the pool's members)
export const replaceMembers = async (http: HttpSession, poolId: string, members: readonly MemberRequest[]): Promise<void> => {
  await http.put(`/lbaas/pools/${encodeURIComponent(poolId)}/members`, { members: members.map(memberBody) });
};
