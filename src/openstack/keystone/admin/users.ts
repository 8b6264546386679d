/**
 * Keystone users of a domain: one per realized Identity (and the Region's service user). Names are unique
 * within a domain, compared case-insensitively. The password goes in the create body only: it is registered
 * for redaction before the call and scrubbed from any error, because Keystone's 400s quote invalid values.
 * Deleting a user removes its role assignments and application credentials; its tokens stop validating.
 */
import type { HttpSession } from '../../http.js';
import { contextOf } from '../../http.js';
import { unwrap } from '../../decoders/field.js';
import type { User } from './decoders.js';
import { decodeUser } from './decoders.js';
import { enc, findExact, withSecrets } from './common.js';

export interface UserNameRef {
  domainId: string;
  name: string;
}

// Identity API v3: List users (domain_id and name filters, post-filtered to the exact name) — GET /v3/users
export const findUser = (http: HttpSession, ref: UserNameRef): Promise<User | undefined> =>
  findExact(http, '/users', 'users', { domain_id: ref.domainId, name: ref.name }, 'user', decodeUser, (u) => u.domainId === ref.domainId);

// Identity API v3: Show user details — GET /v3/users/{user_id}
export const getUser = async (http: HttpSession, id: string): Promise<User> => {
  const response = await http.get(`/users/${enc(id)}`);
  const context = contextOf(http, response);
  return decodeUser(unwrap(response.data, 'user', context), context);
};

export interface CreateUserRequest {
  domainId: string;
  name: string;
  password: string;
  /** Keystone accepts any string here without checking that the project exists. */
  defaultProjectId?: string;
  description?: string;
}

// Identity API v3: Create user — POST /v3/users
export const createUser = (http: HttpSession, req: CreateUserRequest): Promise<User> =>
  withSecrets(http, [req.password], async () => {
    const user: Record<string, unknown> = { name: req.name, domain_id: req.domainId, password: req.password };
    if (req.defaultProjectId !== undefined) user.default_project_id = req.defaultProjectId;
    if (req.description !== undefined) user.description = req.description;
    const response = await http.post('/users', { user });
    const context = contextOf(http, response);
    return decodeUser(unwrap(response.data, 'user', context), context);
  });

// Identity API v3: Delete user — DELETE /v3/users/{user_id}
export const deleteUser = async (http: HttpSession, id: string): Promise<void> => {
  await http.delete(`/users/${enc(id)}`);
};
