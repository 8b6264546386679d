/**
 * Keystone roles. Regent grants global roles only (`member`, `reader`, `load-balancer_member`, `manager` …);
 * a domain-specific role that happens to share the name is never returned. Listing roles needs admin
 * (`identity:list_roles`): a member token gets 403.
 */
import type { HttpSession } from '../../http.js';
import type { Role } from './decoders.js';
import { decodeRole } from './decoders.js';
import { findExact } from './common.js';

// Identity API v3: List roles (name filter, global roles, post-filtered to the exact name) — GET /v3/roles?name={name}
export const findRoleByName = (http: HttpSession, name: string): Promise<Role | undefined> =>
  findExact(http, '/roles', 'roles', { name }, 'role', decodeRole, (r) => r.domainId === null);
