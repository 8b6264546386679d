// Keystone's records. Passwords and application-credential secrets are stored in clear: this is a
// test double on loopback, and tests need to read them back.

export interface Domain { id: string; name: string; description: string; enabled: boolean }
export interface Project {
  id: string; name: string; domainId: string; description: string; enabled: boolean; parentId: string | null; tags: string[];
}
export interface User {
  id: string; name: string; domainId: string; password: string; enabled: boolean;
  defaultProjectId: string | null; description: string; email: string | null;
}
export interface Role { id: string; name: string }
export interface AppCred {
  id: string; name: string; userId: string; projectId: string; secret: string; roleIds: string[];
  description: string | null; expiresAt: number | null;
  /** null when the create did not say (Keystone then prints `"unrestricted": null`). */
  unrestricted: boolean | null;
}
export interface Token {
  id: string; userId: string; methods: string[]; projectId: string | null; domainId: string | null;
  roleIds: string[]; issuedAt: number; expiresAt: number; appCredId: string | null; auditId: string;
}

export interface KeystoneState {
  domains: Map<string, Domain>;
  projects: Map<string, Project>;
  users: Map<string, User>;
  roles: Map<string, Role>;
  /** `${userId}|p:${projectId}|${roleId}` or `${userId}|d:${domainId}|${roleId}`. */
  grants: Set<string>;
  appCreds: Map<string, AppCred>;
  tokens: Map<string, Token>;
}

export const createKeystoneState = (): KeystoneState => ({
  domains: new Map(), projects: new Map(), users: new Map(), roles: new Map(), grants: new Set(),
  appCreds: new Map(), tokens: new Map(),
});

export const grantKey = (userId: string, target: { projectId?: string; domainId?: string }, roleId: string): string =>
  `${userId}|${target.projectId !== undefined ? `p:${target.projectId}` : `d:${target.domainId ?? ''}`}|${roleId}`;

/**
 * Name equality as Keystone's MySQL/MariaDB collation compares names (measured on Zed): case folded and
 * trailing spaces ignored. It is what the `name` filters match and what the unique constraints refuse
 * (`Foo` conflicts with an existing `foo`).
 */
export const sameName = (a: string, b: string): boolean => a.replace(/ +$/, '').toLowerCase() === b.replace(/ +$/, '').toLowerCase();

/** Whether a domain exists and is enabled (users and projects of a disabled domain cannot authenticate). */
export const domainEnabled = (ks: KeystoneState, domainId: string): boolean => ks.domains.get(domainId)?.enabled === true;

/** Role ids a user holds on a project or domain. */
export function rolesOn(ks: KeystoneState, userId: string, target: { projectId?: string; domainId?: string }): string[] {
  const out: string[] = [];
  for (const r of ks.roles.values()) if (ks.grants.has(grantKey(userId, target, r.id))) out.push(r.id);
  return out;
}

/**
 * The role implications `keystone-manage bootstrap` creates on Zed: admin implies member, member implies
 * reader. Tokens carry the implied roles too (measured: a user granted only admin gets a token with admin,
 * member and reader, and so does an application credential created from it); assignment lists do not.
 */
const IMPLIED: Readonly<Record<string, readonly string[]>> = { admin: ['member'], member: ['reader'] };

/** Role ids a token scoped to the target carries: the assigned ones and every role they imply. */
export function effectiveRolesOn(ks: KeystoneState, userId: string, target: { projectId?: string; domainId?: string }): string[] {
  const out = rolesOn(ks, userId, target);
  const byName = new Map([...ks.roles.values()].map((r) => [r.name, r.id]));
  for (let i = 0; i < out.length; i++) {
    const name = ks.roles.get(out[i] as string)?.name ?? '';
    for (const implied of IMPLIED[name] ?? []) {
      const id = byName.get(implied);
      if (id !== undefined && !out.includes(id)) out.push(id);
    }
  }
  return out;
}
