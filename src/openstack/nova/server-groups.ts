/** Nova server groups (2.64+ view: one `policy` and optional `rules`). Names are not unique: find goes through exactlyOne. */
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { listAllPages } from '../paging.js';
import { exactlyOne } from '../names.js';
import { decodeOrThrow, unwrap } from '../decoders/field.js';
import type { ServerGroup } from '../decoders/compute.js';
import { serverGroupCodec } from '../decoders/compute.js';

const enc = encodeURIComponent;

export type ServerGroupPolicy = 'affinity' | 'anti-affinity' | 'soft-affinity' | 'soft-anti-affinity';

// Compute API: List Server Groups — GET /os-server-groups
export const listServerGroups = async (http: HttpSession, options: { allProjects?: boolean } = {}): Promise<ServerGroup[]> => {
  const items = await listAllPages(http, { path: '/os-server-groups', query: { all_projects: options.allProjects }, collection: 'server_groups', next: 'links' });
  return items.map((item) => decodeOrThrow(serverGroupCodec, item.raw, 'server group', contextOf(http, item.response)));
};

// Compute API: Show Server Group Details — GET /os-server-groups/{server_group_id}
export const getServerGroup = async (http: HttpSession, id: string): Promise<ServerGroup> => {
  const response = await http.get(`/os-server-groups/${enc(id)}`);
  const context = contextOf(http, response);
  return decodeOrThrow(serverGroupCodec, unwrap(response.data, 'server_group', context), 'server group', context);
};

// Compute API: List Server Groups — GET /os-server-groups, post-filtered to the exact name
export const findServerGroupByName = async (http: HttpSession, name: string): Promise<ServerGroup> =>
  exactlyOne(await listServerGroups(http), name, 'server group', { service: http.service, method: 'GET', path: '/os-server-groups' });

// Compute API: Create Server Group — POST /os-server-groups
export const createServerGroup = async (http: HttpSession, name: string, policy: ServerGroupPolicy, rules?: { max_server_per_host?: number }): Promise<ServerGroup> => {
  const response = await http.post('/os-server-groups', { server_group: { name, policy, ...(rules !== undefined ? { rules } : {}) } });
  const context = contextOf(http, response);
  return decodeOrThrow(serverGroupCodec, unwrap(response.data, 'server_group', context), 'server group', context);
};

// Compute API: Delete Server Group — DELETE /os-server-groups/{server_group_id}
export const deleteServerGroup = async (http: HttpSession, id: string): Promise<void> => {
  await http.delete(`/os-server-groups/${enc(id)}`);
};
