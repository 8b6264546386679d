/**
 * Nova servers: list (paged), show, find by exact name, create, delete, metadata.
 *
 * Name lookups send `name=^<escaped>$` (Nova's filter is an unanchored MySQL REGEXP, for non-admins too) AND
 * post-filter with exactlyOne: the anchor keeps the answer small, the post-filter makes it exact (REGEXP may fold
 * case, and a simulator or older cloud may treat the filter differently).
 */
import type { HttpSession, Query } from '../http.js';
import { contextOf } from '../http.js';
import type { PageOptions } from '../paging.js';
import { listAllPages } from '../paging.js';
import { atMostOne, exactlyOne, novaExactNameFilter } from '../names.js';
import type { ServerObservation } from '../decoders/server.js';
import { decodeServer } from '../decoders/server.js';
import { decodeOrThrow, unwrap } from '../decoders/field.js';
import * as t from 'io-ts';

const enc = encodeURIComponent;

/** Filters of GET /servers/detail (the subset Regent uses; values are sent as given). */
export interface ServerListFilters {
  /** Raw Nova name filter: an unanchored regex. Prefer findServerByName. */
  name?: string;
  status?: string;
  image?: string;
  flavor?: string;
  host?: string;
  ip?: string;
  'changes-since'?: string;
  tags?: string;
  'tags-any'?: string;
  all_tenants?: boolean;
  project_id?: string;
  deleted?: boolean;
}

// Compute API: List Servers Detailed — GET /servers/detail
export const listServers = async (http: HttpSession, filters: ServerListFilters = {}, page: PageOptions = {}): Promise<ServerObservation[]> => {
  const items = await listAllPages(http, { path: '/servers/detail', query: filters as Query, collection: 'servers', next: 'links' }, page);
  return items.map((item) => decodeServer(item.raw, item.receivedAt, contextOf(http, item.response)));
};

// Compute API: Show Server Details — GET /servers/{server_id}
export const getServer = async (http: HttpSession, serverId: string): Promise<ServerObservation> => {
  const response = await http.get(`/servers/${enc(serverId)}`);
  const context = contextOf(http, response);
  return decodeServer(unwrap(response.data, 'server', context), response.receivedAt, context);
};

// Compute API: List Servers Detailed — GET /servers/detail?name=^<escaped>$ , post-filtered to the exact name
export const findServerByName = async (http: HttpSession, name: string, filters: Omit<ServerListFilters, 'name'> = {}): Promise<ServerObservation> => {
  const servers = await listServers(http, { ...filters, name: novaExactNameFilter(name) });
  return exactlyOne(servers, name, 'server', { service: http.service, method: 'GET', path: '/servers/detail' });
};

// Compute API: List Servers Detailed — GET /servers/detail?name=^<escaped>$ ; undefined when none, ConsistencyError when several
export const lookupServerByName = async (http: HttpSession, name: string, filters: Omit<ServerListFilters, 'name'> = {}): Promise<ServerObservation | undefined> => {
  const servers = await listServers(http, { ...filters, name: novaExactNameFilter(name) });
  return atMostOne(servers, name, 'server', { service: http.service, method: 'GET', path: '/servers/detail' });
};

export type ServerNetworks = 'auto' | 'none' | ReadonlyArray<{ uuid: string; fixedIp?: string; tag?: string } | { port: string; tag?: string }>;

export interface BlockDeviceMapping {
  bootIndex: number | null;
  sourceType: 'image' | 'volume' | 'snapshot' | 'blank';
  destinationType: 'volume' | 'local';
  uuid?: string;
  volumeSize?: number;
  volumeType?: string;
  deleteOnTermination?: boolean;
  tag?: string;
}

export interface CreateServerRequest {
  name: string;
  flavorRef: string;
  /** Omit for boot-from-volume (then blockDeviceMapping carries boot_index 0). */
  imageRef?: string;
  networks: ServerNetworks;
  /** Only when the identity-keypair SSH mode asks for it; never sent on rebuild. */
  keyName?: string;
  /** Plain text; base64-encoded here. */
  userData?: string;
  metadata?: Readonly<Record<string, string>>;
  securityGroups?: readonly string[];
  availabilityZone?: string;
  blockDeviceMapping?: readonly BlockDeviceMapping[];
  schedulerHints?: Readonly<Record<string, unknown>>;
  tags?: readonly string[];
  description?: string;
  configDrive?: boolean;
  /** Microversion ≥ 2.90. */
  hostname?: string;
  /**
   * The requested destination (a pinned create): the compute service host, and optionally its hypervisor
   * node. Microversion ≥ 2.74 (where `host`/`hypervisor_hostname` appeared); Nova's policy
   * compute:servers:create:requested_destination decides who may send them (admin by default).
   */
  host?: string;
  hypervisorHostname?: string;
}

const bdmBody = (b: BlockDeviceMapping): Record<string, unknown> => ({
  boot_index: b.bootIndex,
  source_type: b.sourceType,
  destination_type: b.destinationType,
  ...(b.uuid !== undefined ? { uuid: b.uuid } : {}),
  ...(b.volumeSize !== undefined ? { volume_size: b.volumeSize } : {}),
  ...(b.volumeType !== undefined ? { volume_type: b.volumeType } : {}),
  ...(b.deleteOnTermination !== undefined ? { delete_on_termination: b.deleteOnTermination } : {}),
  ...(b.tag !== undefined ? { tag: b.tag } : {}),
});

/** The `{"server": …}` body of a create (exported for tests). */
export const createServerBody = (req: CreateServerRequest): Record<string, unknown> => {
  const networks = typeof req.networks === 'string'
    ? req.networks
    : req.networks.map((n) => ('port' in n
      ? { port: n.port, ...(n.tag !== undefined ? { tag: n.tag } : {}) }
      : { uuid: n.uuid, ...(n.fixedIp !== undefined ? { fixed_ip: n.fixedIp } : {}), ...(n.tag !== undefined ? { tag: n.tag } : {}) }));
  const server: Record<string, unknown> = { name: req.name, flavorRef: req.flavorRef, networks };
  if (req.imageRef !== undefined) server.imageRef = req.imageRef;
  if (req.keyName !== undefined) server.key_name = req.keyName;
  if (req.userData !== undefined) server.user_data = Buffer.from(req.userData, 'utf8').toString('base64');
  if (req.metadata !== undefined) server.metadata = req.metadata;
  if (req.securityGroups !== undefined) server.security_groups = req.securityGroups.map((name) => ({ name }));
  if (req.availabilityZone !== undefined) server.availability_zone = req.availabilityZone;
  if (req.blockDeviceMapping !== undefined) server.block_device_mapping_v2 = req.blockDeviceMapping.map(bdmBody);
  if (req.tags !== undefined) server.tags = req.tags;
  if (req.description !== undefined) server.description = req.description;
  if (req.configDrive !== undefined) server.config_drive = req.configDrive;
  if (req.hostname !== undefined) server.hostname = req.hostname;
  if (req.host !== undefined) server.host = req.host;
  if (req.hypervisorHostname !== undefined) server.hypervisor_hostname = req.hypervisorHostname;
  const body: Record<string, unknown> = { server };
  if (req.schedulerHints !== undefined) body['OS-SCH-HNT:scheduler_hints'] = req.schedulerHints;
  return body;
};

// Compute API: Create Server — POST /servers
export const createServer = async (http: HttpSession, req: CreateServerRequest): Promise<{ id: string; requestId?: string }> => {
  const response = await http.post('/servers', createServerBody(req));
  // The answer may carry adminPass: only the id leaves this function.
  const server = decodeOrThrow(t.type({ id: t.string }), unwrap(response.data, 'server', contextOf(http, response)), 'created server', contextOf(http, response));
  return { id: server.id, ...(response.requestId !== undefined ? { requestId: response.requestId } : {}) };
};

// Compute API: Delete Server — DELETE /servers/{server_id}
export const deleteServer = async (http: HttpSession, serverId: string): Promise<void> => {
  await http.delete(`/servers/${enc(serverId)}`);
};

// Compute API: Create or Update Metadata Items — POST /servers/{server_id}/metadata
export const mergeServerMetadata = async (http: HttpSession, serverId: string, metadata: Readonly<Record<string, string>>): Promise<Record<string, string>> => {
  const response = await http.post(`/servers/${enc(serverId)}/metadata`, { metadata });
  return decodeOrThrow(t.type({ metadata: t.record(t.string, t.string) }), response.data, 'server metadata', contextOf(http, response)).metadata;
};

// Compute API: Replace Metadata Items — PUT /servers/{server_id}/metadata
export const replaceServerMetadata = async (http: HttpSession, serverId: string, metadata: Readonly<Record<string, string>>): Promise<Record<string, string>> => {
  const response = await http.put(`/servers/${enc(serverId)}/metadata`, { metadata });
  return decodeOrThrow(t.type({ metadata: t.record(t.string, t.string) }), response.data, 'server metadata', contextOf(http, response)).metadata;
};
