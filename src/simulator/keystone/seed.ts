// Seed identity: domain Default; projects admin, demo, other, service; users admin (admin on every
// project), demo (member on demo), other (member on other). Ids are stable across resets.
import { stableHex } from '../ids.js';
import type { Sim } from '../state.js';
import { grantKey } from './model.js';

export interface SeedCredential {
  username: string; password: string; projectName: string; projectId: string; userId: string;
  userDomainName: string; projectDomainName: string;
}

export type SeedUser = 'admin' | 'demo' | 'other';

export const DEFAULT_DOMAIN_ID = 'default';
export const projectIdOf = (name: string): string => stableHex(`project:${name}`);
export const userIdOf = (name: string): string => stableHex(`user:${name}`);
const roleIdOf = (name: string): string => stableHex(`role:${name}`);
const PASSWORDS: Record<SeedUser, string> = { admin: 'admin-sandbox', demo: 'demo-sandbox', other: 'other-sandbox' };

export function credentials(): Record<SeedUser, SeedCredential> {
  const mk = (u: SeedUser): SeedCredential => ({
    username: u, password: PASSWORDS[u], projectName: u, projectId: projectIdOf(u), userId: userIdOf(u),
    userDomainName: 'Default', projectDomainName: 'Default',
  });
  return { admin: mk('admin'), demo: mk('demo'), other: mk('other') };
}

export function seedIdentity(sim: Sim): void {
  const ks = sim.keystone;
  ks.domains.set(DEFAULT_DOMAIN_ID, { id: DEFAULT_DOMAIN_ID, name: 'Default', description: 'The default domain', enabled: true });
  for (const name of ['admin', 'member', 'reader', 'manager', 'service', 'load-balancer_member', 'load-balancer_admin']) {
    ks.roles.set(roleIdOf(name), { id: roleIdOf(name), name });
  }
  for (const name of ['admin', 'demo', 'other', 'service']) {
    ks.projects.set(projectIdOf(name), {
      id: projectIdOf(name), name, domainId: DEFAULT_DOMAIN_ID, description: `${name} project`, enabled: true, parentId: null, tags: [],
    });
  }
  for (const u of ['admin', 'demo', 'other'] as const) {
    ks.users.set(userIdOf(u), {
      id: userIdOf(u), name: u, domainId: DEFAULT_DOMAIN_ID, password: PASSWORDS[u], enabled: true,
      defaultProjectId: projectIdOf(u), description: '', email: null,
    });
  }
  const grant = (user: string, target: { projectId?: string; domainId?: string }, role: string) =>
    ks.grants.add(grantKey(userIdOf(user), target, roleIdOf(role)));
  for (const p of ['admin', 'demo', 'other', 'service']) {
    grant('admin', { projectId: projectIdOf(p) }, 'admin');
    grant('admin', { projectId: projectIdOf(p) }, 'load-balancer_admin');
  }
  grant('admin', { domainId: DEFAULT_DOMAIN_ID }, 'admin');
  for (const u of ['demo', 'other']) {
    for (const role of ['member', 'reader', 'load-balancer_member']) grant(u, { projectId: projectIdOf(u) }, role);
  }
}
