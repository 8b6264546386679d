/**
 * Keystone domains: the managed domain a Region's scaffolding lives in. Domain names are unique across the
 * cloud, compared case-insensitively by Keystone's database (`Foo` conflicts with `foo`: 409).
 *
 * Deleting: Keystone refuses to delete an enabled domain (403 `Cannot delete a domain that is enabled, please
 * disable it first.`), so `deleteDomain` disables it first, then deletes; the delete removes every project and
 * user in it, with their role assignments and application credentials. If the delete fails after the disable,
 * the domain stays disabled (its users cannot authenticate), which is the direction the caller was going.
 */
import type { HttpSession } from '../../http.js';
import { contextOf } from '../../http.js';
import { unwrap } from '../../decoders/field.js';
import type { Domain } from './decoders.js';
import { decodeDomain } from './decoders.js';
import { enc, findExact } from './common.js';

// Identity API v3: List domains (name filter, post-filtered to the exact name) — GET /v3/domains?name={name}
export const findDomainByName = (http: HttpSession, name: string): Promise<Domain | undefined> =>
  findExact(http, '/domains', 'domains', { name }, 'domain', decodeDomain);

// Identity API v3: Show domain details — GET /v3/domains/{domain_id}
export const getDomain = async (http: HttpSession, id: string): Promise<Domain> => {
  const response = await http.get(`/domains/${enc(id)}`);
  const context = contextOf(http, response);
  return decodeDomain(unwrap(response.data, 'domain', context), context);
};

export interface CreateDomainRequest {
  name: string;
  description?: string;
}

// Identity API v3: Create domain — POST /v3/domains
export const createDomain = async (http: HttpSession, req: CreateDomainRequest): Promise<Domain> => {
  const domain: Record<string, unknown> = { name: req.name };
  if (req.description !== undefined) domain.description = req.description;
  const response = await http.post('/domains', { domain });
  const context = contextOf(http, response);
  return decodeDomain(unwrap(response.data, 'domain', context), context);
};

export interface UpdateDomainRequest {
  enabled?: boolean;
  description?: string;
}

// Identity API v3: Update domain — PATCH /v3/domains/{domain_id}
export const updateDomain = async (http: HttpSession, id: string, req: UpdateDomainRequest): Promise<Domain> => {
  const domain: Record<string, unknown> = {};
  if (req.enabled !== undefined) domain.enabled = req.enabled;
  if (req.description !== undefined) domain.description = req.description;
  const response = await http.patch(`/domains/${enc(id)}`, { domain });
  const context = contextOf(http, response);
  return decodeDomain(unwrap(response.data, 'domain', context), context);
};

// Identity API v3: Update domain (enabled false), then Delete domain — DELETE /v3/domains/{domain_id}
export const deleteDomain = async (http: HttpSession, id: string): Promise<void> => {
  await updateDomain(http, id, { enabled: false });
  await http.delete(`/domains/${enc(id)}`);
};
