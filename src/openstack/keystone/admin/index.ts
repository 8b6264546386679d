/**
 * The Keystone administration client: every function below bound to one identity session
 * (`os.identityAdmin.findProject({domainId, name})`). Region-level admin credentials call the domain, project,
 * user and role functions; `createApplicationCredential` is called on a session of the user itself
 * (`connectAsUser`), because Keystone lets only the owner create one.
 */
import type { HttpSession } from '../../http.js';
import type { BoundClient } from '../../bind.js';
import { bindClient } from '../../bind.js';
import { createDomain, deleteDomain, findDomainByName, getDomain, updateDomain } from './domains.js';
import { createProject, deleteProject, findProject, getProject } from './projects.js';
import { createUser, deleteUser, findUser, getUser } from './users.js';
import { findRoleByName } from './roles.js';
import { grantProjectRole, hasProjectRole, listRoleAssignments, revokeProjectRole } from './role-assignments.js';
import { createApplicationCredential, deleteApplicationCredential, findApplicationCredential, listApplicationCredentials } from './application-credentials.js';

const keystoneAdminFunctions = {
  findDomainByName, getDomain, createDomain, updateDomain, deleteDomain,
  findProject, getProject, createProject, deleteProject,
  findUser, getUser, createUser, deleteUser,
  findRoleByName, grantProjectRole, hasProjectRole, revokeProjectRole, listRoleAssignments,
  createApplicationCredential, listApplicationCredentials, findApplicationCredential, deleteApplicationCredential,
};

export type KeystoneAdminClient = BoundClient<typeof keystoneAdminFunctions>;

export const createKeystoneAdminClient = (http: HttpSession): KeystoneAdminClient => bindClient(http, keystoneAdminFunctions);

export * from './decoders.js';
export * from './domains.js';
export * from './projects.js';
export * from './users.js';
export * from './roles.js';
export * from './role-assignments.js';
export * from './application-credentials.js';
export { userCloudConfig } from './user-session.js';
export type { UserLogin } from './user-session.js';
export { rememberedSecrets } from './common.js';
