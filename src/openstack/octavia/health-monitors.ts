/** Octavia health monitors (UDP pools use UDP-CONNECT). */
import type { HttpSession, Query } from '../http.js';
import type { PageOptions } from '../paging.js';
import type { HealthMonitorObservation } from '../decoders/octavia.js';
import { decodeHealthMonitor } from '../decoders/octavia.js';
import type { OctaviaResource } from './resource.js';
import { createOne, deleteOne, findOne, getOne, listOf, lookupOne, updateOne } from './resource.js';

export const HEALTH_MONITOR: OctaviaResource<HealthMonitorObservation> = {
  kind: 'health monitor', path: '/lbaas/healthmonitors', collection: 'healthmonitors', single: 'healthmonitor', decode: decodeHealthMonitor,
};

export interface CreateHealthMonitorRequest {
  name: string;
  poolId: string;
  type: 'HTTP' | 'HTTPS' | 'PING' | 'SCTP' | 'TCP' | 'TLS-HELLO' | 'UDP-CONNECT';
  delay: number;
  timeout: number;
  maxRetries: number;
  maxRetriesDown?: number;
  urlPath?: string;
  expectedCodes?: string;
  httpMethod?: string;
  tags?: readonly string[];
}

// Load Balancer API v2: List Health Monitors — GET /v2/lbaas/healthmonitors
export const listHealthMonitors = (http: HttpSession, filters: Query = {}, page: PageOptions = {}): Promise<HealthMonitorObservation[]> => listOf(http, HEALTH_MONITOR, filters, page);
// Load Balancer API v2: Show Health Monitor details — GET /v2/lbaas/healthmonitors/{healthmonitor_id}
export const getHealthMonitor = (http: HttpSession, id: string): Promise<HealthMonitorObservation> => getOne(http, HEALTH_MONITOR, id);
// Load Balancer API v2: List Health Monitors — GET /v2/lbaas/healthmonitors?name=…, post-filtered to the exact name
export const findHealthMonitorByName = (http: HttpSession, name: string, filters: Query = {}): Promise<HealthMonitorObservation> => findOne(http, HEALTH_MONITOR, name, filters);
// Load Balancer API v2: List Health Monitors — GET /v2/lbaas/healthmonitors?name=… ; undefined when none
export const lookupHealthMonitorByName = (http: HttpSession, name: string, filters: Query = {}): Promise<HealthMonitorObservation | undefined> => lookupOne(http, HEALTH_MONITOR, name, filters);

// Load Balancer API v2: Create Health Monitor — POST /v2/lbaas/healthmonitors
export const createHealthMonitor = (http: HttpSession, req: CreateHealthMonitorRequest): Promise<HealthMonitorObservation> => {
  const body: Record<string, unknown> = { name: req.name, pool_id: req.poolId, type: req.type, delay: req.delay, timeout: req.timeout, max_retries: req.maxRetries };
  if (req.maxRetriesDown !== undefined) body.max_retries_down = req.maxRetriesDown;
  if (req.urlPath !== undefined) body.url_path = req.urlPath;
  if (req.expectedCodes !== undefined) body.expected_codes = req.expectedCodes;
  if (req.httpMethod !== undefined) body.http_method = req.httpMethod;
  if (req.tags !== undefined) body.tags = req.tags;
  return createOne(http, HEALTH_MONITOR, body);
};

// Load Balancer API v2: Update a Health Monitor — PUT /v2/lbaas/healthmonitors/{healthmonitor_id}
export const updateHealthMonitor = (http: HttpSession, id: string, body: { delay?: number; timeout?: number; max_retries?: number; max_retries_down?: number; name?: string }): Promise<HealthMonitorObservation> =>
  updateOne(http, HEALTH_MONITOR, id, body);
// Load Balancer API v2: Remove a Health Monitor — DELETE /v2/lbaas/healthmonitors/{healthmonitor_id}
export const deleteHealthMonitor = (http: HttpSession, id: string): Promise<void> => deleteOne(http, HEALTH_MONITOR, id);
