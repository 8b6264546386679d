/**
 * Role assignments of a user on a project: grant (idempotent on Keystone: a second PUT is another 204),
 * check (HEAD), revoke, and the assignment list.
 *
 * `hasProjectRole` answers from a HEAD, which has no body: Keystone's 404 means "no such assignment" and
 * also "no such project, user or role", and the two cannot be told apart from the answer. It returns false
 * for every 404; a caller that must know the project or user exists reads it (getProject / getUser).
 * Keystone caches assignments (oslo.cache): right after a revoke, a token issue may still carry the role.
 */
import { NotFound } from '../../errors.js';
import type { HttpSession, Query } from '../../http.js';
import type { RoleAssignment } from './decoders.js';
import { decodeRoleAssignment } from './decoders.js';
import { enc, keystoneList } from './common.js';

export interface ProjectRoleGrant {
  projectId: string;
  userId: string;
  roleId: string;
}

const grantPath = (g: ProjectRoleGrant): string => `/projects/${enc(g.projectId)}/users/${enc(g.userId)}/roles/${enc(g.roleId)}`;

// Identity API v3: Assign role to user on project — PUT /v3/projects/{project_id}/users/{user_id}/roles/{role_id}
export const grantProjectRole = async (http: HttpSession, grant: ProjectRoleGrant): Promise<void> => {
  await http.put(grantPath(grant));
};

// Identity API v3: Check whether user has role assignment on project — HEAD /v3/projects/{project_id}/users/{user_id}/roles/{role_id}
export const hasProjectRole = async (http: HttpSession, grant: ProjectRoleGrant): Promise<boolean> => {
  try {
    await http.request({ method: 'HEAD', path: grantPath(grant) });
    return true;
  } catch (error) {
    if (error instanceof NotFound) return false;
    throw error;
  }
};

// Identity API v3: Unassign role from user on project — DELETE /v3/projects/{project_id}/users/{user_id}/roles/{role_id}
export const revokeProjectRole = async (http: HttpSession, grant: ProjectRoleGrant): Promise<void> => {
  await http.delete(grantPath(grant));
};

export interface RoleAssignmentFilter {
  projectId?: string;
  userId?: string;
}

// Identity API v3: List role assignments (scope.project.id, user.id, include_names) — GET /v3/role_assignments
export const listRoleAssignments = async (http: HttpSession, filter: RoleAssignmentFilter = {}): Promise<RoleAssignment[]> => {
  const query: Query = {
    ...(filter.projectId !== undefined ? { 'scope.project.id': filter.projectId } : {}),
    ...(filter.userId !== undefined ? { 'user.id': filter.userId } : {}),
    include_names: true,
  };
  const { items, context } = await keystoneList(http, '/role_assignments', 'role_assignments', query);
  return items.map((raw) => decodeRoleAssignment(raw, context));
};
