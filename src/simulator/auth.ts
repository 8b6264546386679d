// Who is calling, as resolved from X-Auth-Token, and the scoping rules every service applies with it.
import { SimError } from './http.js';

export interface AuthContext {
  tokenId: string;
  userId: string;
  userName: string;
  userDomainId: string;
  projectId: string | null;
  projectName: string | null;
  domainScopeId: string | null;
  /** Role names. */
  roles: string[];
  isAdmin: boolean;
  appCredId: string | null;
}

export const ANONYMOUS: AuthContext = {
  tokenId: '', userId: '', userName: '', userDomainId: '', projectId: null, projectName: null,
  domainScopeId: null, roles: [], isAdmin: false, appCredId: null,
};

/** A project-owned resource is visible to its project and to admins; everyone else gets a 404. */
export const canSee = (auth: AuthContext, projectId: string): boolean => auth.isAdmin || auth.projectId === projectId;

/** The project a create lands in: the token's project. Domain- or un-scoped tokens cannot own resources. */
export function ownProject(auth: AuthContext): string {
  if (!auth.projectId) throw new SimError(403, 'A project-scoped token is required for this request.');
  return auth.projectId;
}

/** Writes need more than the reader role. */
export function requireWriter(auth: AuthContext, policy: string): void {
  if (auth.isAdmin) return;
  if (auth.roles.some((r) => r !== 'reader')) return;
  throw new SimError(403, `Policy doesn't allow ${policy} to be performed.`);
}

export function requireAdmin(auth: AuthContext, policy: string): void {
  if (!auth.isAdmin) throw new SimError(403, `Policy doesn't allow ${policy} to be performed.`);
}
