// Keystone v3 resources: domains, projects, users, roles, grants and role assignments. Policy follows
// the "admin is admin everywhere" default; other users may read themselves and projects they belong to.
// Names compare as Keystone's database compares them (sameName: case folded, trailing spaces ignored), in
// the `name` filters and in the unique checks; the 409/400 texts are Zed's (measured on the sandbox).
import type { AuthContext } from '../auth.js';
import { SimError, conflict, noContent, notFound, ok } from '../http.js';
import { hexId } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { member, optBool, optStr, optStrList, reqStr } from '../validate.js';
import { serviceList, REGION } from './catalog.js';
import { grantKey, rolesOn, sameName } from './model.js';
import type { Domain, KeystoneState, Project, Role, User } from './model.js';

export function denyUnlessAdmin(auth: AuthContext, action: string): void {
  if (!auth.isAdmin) throw new SimError(403, `You are not authorized to perform the requested action: identity:${action}.`);
}

const link = (sim: Sim, kind: string, id: string) => ({ self: sim.url(`/identity/v3/${kind}/${id}`) });

export const domainView = (sim: Sim, d: Domain) => ({ id: d.id, name: d.name, description: d.description, enabled: d.enabled, tags: [], options: {}, links: link(sim, 'domains', d.id) });
export const projectView = (sim: Sim, p: Project) => ({
  id: p.id, name: p.name, domain_id: p.domainId, description: p.description, enabled: p.enabled,
  parent_id: p.parentId ?? p.domainId, is_domain: false, tags: p.tags, options: {}, links: link(sim, 'projects', p.id),
});
export const userView = (sim: Sim, u: User) => ({
  id: u.id, name: u.name, domain_id: u.domainId, enabled: u.enabled, password_expires_at: null, options: {},
  description: u.description, ...(u.defaultProjectId ? { default_project_id: u.defaultProjectId } : {}),
  ...(u.email ? { email: u.email } : {}), links: link(sim, 'users', u.id),
});
const roleView = (sim: Sim, r: Role) => ({ id: r.id, name: r.name, domain_id: null, description: null, options: {}, links: link(sim, 'roles', r.id) });

const listLinks = (ctx: Ctx, kind: string) => ({ self: ctx.sim.url(`/identity/v3/${kind}`), previous: null, next: null });

const duplicateProject = (name: string, id: string): string =>
  `Conflict occurred attempting to store project - it is not permitted to have two projects with either the same name or same id in the same domain: name is ${name}, project id ${id}.`;

/** Keystone's name schema: 1..max characters with at least one non-space (`[\S]+`). */
function keystoneName(b: Record<string, unknown>, max: number): string {
  const name = reqStr(b, 'name', max);
  if (name === '') throw new SimError(400, "Invalid input for field 'name': '' is too short");
  if (!/\S/.test(name)) throw new SimError(400, `Invalid input for field 'name': '${name}' does not match '[\\S]+'`);
  return name;
}

/** Project tags as Keystone's schema checks them: at most 80, unique, each 1..255 characters without ',' or '/'. */
function projectTags(b: Record<string, unknown>): string[] | undefined {
  const tags = optStrList(b, 'tags');
  if (tags === undefined) return undefined;
  const shown = `[${tags.map((x) => `'${x}'`).join(', ')}]`;
  if (tags.length > 80) throw new SimError(400, `Invalid input for field 'tags': ${shown} is too long`);
  if (new Set(tags).size !== tags.length) throw new SimError(400, `Invalid input for field 'tags': ${shown} has non-unique elements`);
  tags.forEach((tag, i) => {
    if (tag.length < 1) throw new SimError(400, `Invalid input for field 'tags/${i}': '' is too short`);
    if (tag.length > 255) throw new SimError(400, `Invalid input for field 'tags/${i}': '${tag}' is too long`);
    if (/[,/]/.test(tag)) throw new SimError(400, `Invalid input for field 'tags/${i}': '${tag}' does not match '^[^,/]*$'`);
  });
  return tags;
}

function getDomain(ks: KeystoneState, id: string): Domain {
  const d = ks.domains.get(id);
  if (!d) throw notFound(`Could not find domain: ${id}.`);
  return d;
}
function getProject(ks: KeystoneState, id: string): Project {
  const p = ks.projects.get(id);
  if (!p) throw notFound(`Could not find project: ${id}.`);
  return p;
}
function getUser(ks: KeystoneState, id: string): User {
  const u = ks.users.get(id);
  if (!u) throw notFound(`Could not find user: ${id}.`);
  return u;
}
function getRole(ks: KeystoneState, id: string): Role {
  const r = ks.roles.get(id);
  if (!r) throw notFound(`Could not find role: ${id}.`);
  return r;
}

export function userProjects(ks: KeystoneState, userId: string): Project[] {
  return [...ks.projects.values()].filter((p) => rolesOn(ks, userId, { projectId: p.id }).length > 0);
}

function revokeWhere(ks: KeystoneState, pred: (t: { userId: string; projectId: string | null }) => boolean): void {
  for (const [id, t] of ks.tokens) if (pred(t)) ks.tokens.delete(id);
}

function registerDomains(r: Registrar): void {
  r.get('/domains', (ctx) => {
    const ks = ctx.sim.keystone;
    // Zed: identity:list_domains is admin only (a member gets 403, with or without a name filter); a
    // member reads its own domain by id (GET /domains/{id}) or through /auth/domains.
    denyUnlessAdmin(ctx.auth, 'list_domains');
    const name = ctx.q('name');
    const all = [...ks.domains.values()].filter((d) => name === undefined || sameName(d.name, name));
    return ok({ domains: all.map((d) => domainView(ctx.sim, d)), links: listLinks(ctx, 'domains') });
  });
  r.get('/domains/:id', (ctx) => {
    const d = getDomain(ctx.sim.keystone, ctx.p('id'));
    if (!ctx.auth.isAdmin && d.id !== ctx.auth.userDomainId && d.id !== ctx.auth.domainScopeId) denyUnlessAdmin(ctx.auth, 'get_domain');
    return ok({ domain: domainView(ctx.sim, d) });
  });
  r.post('/domains', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'create_domain');
    const b = member(ctx.req.body, 'domain');
    const ks = ctx.sim.keystone;
    const name = keystoneName(b, 64);
    if ([...ks.domains.values()].some((d) => sameName(d.name, name))) {
      throw conflict(`Conflict occurred attempting to store project - it is not permitted to have two projects acting as domains with the same name: ${name}.`);
    }
    const d: Domain = { id: optStr(b, 'id') ?? hexId(), name, description: optStr(b, 'description') ?? '', enabled: optBool(b, 'enabled') ?? true };
    ks.domains.set(d.id, d);
    return ok({ domain: domainView(ctx.sim, d) }, 201);
  });
  r.patch('/domains/:id', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'update_domain');
    const d = getDomain(ctx.sim.keystone, ctx.p('id'));
    const b = member(ctx.req.body, 'domain');
    d.name = optStr(b, 'name') ?? d.name;
    d.description = optStr(b, 'description') ?? d.description;
    d.enabled = optBool(b, 'enabled') ?? d.enabled;
    return ok({ domain: domainView(ctx.sim, d) });
  });
  r.del('/domains/:id', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'delete_domain');
    const ks = ctx.sim.keystone;
    const d = getDomain(ks, ctx.p('id'));
    if (d.enabled) throw new SimError(403, 'Cannot delete a domain that is enabled, please disable it first.');
    for (const p of [...ks.projects.values()]) if (p.domainId === d.id) deleteProject(ks, p.id);
    for (const u of [...ks.users.values()]) if (u.domainId === d.id) deleteUser(ks, u.id);
    ks.domains.delete(d.id);
    return noContent();
  });
}

function deleteProject(ks: KeystoneState, id: string): void {
  ks.projects.delete(id);
  for (const g of [...ks.grants]) if (g.includes(`|p:${id}|`)) ks.grants.delete(g);
  for (const [cid, c] of ks.appCreds) if (c.projectId === id) ks.appCreds.delete(cid);
  revokeWhere(ks, (t) => t.projectId === id);
}

function deleteUser(ks: KeystoneState, id: string): void {
  ks.users.delete(id);
  for (const g of [...ks.grants]) if (g.startsWith(`${id}|`)) ks.grants.delete(g);
  for (const [cid, c] of ks.appCreds) if (c.userId === id) ks.appCreds.delete(cid);
  revokeWhere(ks, (t) => t.userId === id);
}

function registerProjects(r: Registrar): void {
  r.get('/projects', (ctx) => {
    const ks = ctx.sim.keystone;
    const f = { name: ctx.q('name'), domain: ctx.q('domain_id'), parent: ctx.q('parent_id'), enabled: ctx.q('enabled') };
    // Keystone's identity:list_projects needs admin (or a domain reader); members use /auth/projects.
    denyUnlessAdmin(ctx.auth, 'list_projects');
    const base = [...ks.projects.values()];
    const out = base.filter((p) => (f.name === undefined || sameName(p.name, f.name)) && (f.domain === undefined || p.domainId === f.domain) &&
      (f.parent === undefined || (p.parentId ?? p.domainId) === f.parent) && (f.enabled === undefined || String(p.enabled) === f.enabled.toLowerCase()));
    return ok({ projects: out.map((p) => projectView(ctx.sim, p)), links: listLinks(ctx, 'projects') });
  });
  r.get('/projects/:id', (ctx) => {
    const ks = ctx.sim.keystone;
    const p = getProject(ks, ctx.p('id'));
    if (!ctx.auth.isAdmin && rolesOn(ks, ctx.auth.userId, { projectId: p.id }).length === 0) denyUnlessAdmin(ctx.auth, 'get_project');
    return ok({ project: projectView(ctx.sim, p) });
  });
  r.post('/projects', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'create_project');
    const ks = ctx.sim.keystone;
    const b = member(ctx.req.body, 'project');
    const name = keystoneName(b, 64);
    const domainId = optStr(b, 'domain_id') ?? ctx.auth.userDomainId;
    const domain = ks.domains.get(domainId);
    // A project's domain is its parent: Keystone answers an unknown one with 400, not 404.
    if (!domain) throw new SimError(400, `Could not find domain: ${domainId}.`);
    if (!domain.enabled) throw new SimError(400, `cannot create a project in a branch containing a disabled project: ${domainId}`);
    const tags = projectTags(b);
    const clash = [...ks.projects.values()].find((p) => sameName(p.name, name) && p.domainId === domainId);
    if (clash) throw conflict(duplicateProject(name, clash.id));
    const parent = optStr(b, 'parent_id');
    if (parent !== undefined && parent !== domainId) getProject(ks, parent);
    const p: Project = {
      id: hexId(), name, domainId, description: optStr(b, 'description') ?? '', enabled: optBool(b, 'enabled') ?? true,
      parentId: parent && parent !== domainId ? parent : null, tags: tags ?? [],
    };
    ks.projects.set(p.id, p);
    return ok({ project: projectView(ctx.sim, p) }, 201);
  });
  r.patch('/projects/:id', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'update_project');
    const ks = ctx.sim.keystone;
    const p = getProject(ks, ctx.p('id'));
    const b = member(ctx.req.body, 'project');
    const name = optStr(b, 'name');
    const clash = name === undefined ? undefined : [...ks.projects.values()].find((x) => x.id !== p.id && sameName(x.name, name) && x.domainId === p.domainId);
    if (name !== undefined && clash) throw conflict(duplicateProject(name, clash.id));
    p.name = name ?? p.name;
    p.description = optStr(b, 'description') ?? p.description;
    p.enabled = optBool(b, 'enabled') ?? p.enabled;
    p.tags = projectTags(b) ?? p.tags;
    if (!p.enabled) revokeWhere(ks, (t) => t.projectId === p.id);
    return ok({ project: projectView(ctx.sim, p) });
  });
  r.del('/projects/:id', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'delete_project');
    deleteProject(ctx.sim.keystone, getProject(ctx.sim.keystone, ctx.p('id')).id);
    return noContent();
  });
  r.get('/auth/projects', (ctx) => ok({ projects: userProjects(ctx.sim.keystone, ctx.auth.userId).map((p) => projectView(ctx.sim, p)), links: listLinks(ctx, 'auth/projects') }));
  r.get('/auth/domains', (ctx) => {
    const ks = ctx.sim.keystone;
    const ds = [...ks.domains.values()].filter((d) => rolesOn(ks, ctx.auth.userId, { domainId: d.id }).length > 0);
    return ok({ domains: ds.map((d) => domainView(ctx.sim, d)), links: listLinks(ctx, 'auth/domains') });
  });
}

function registerUsers(r: Registrar): void {
  r.get('/users', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'list_users');
    const name = ctx.q('name');
    const domain = ctx.q('domain_id');
    const out = [...ctx.sim.keystone.users.values()].filter((u) => (name === undefined || sameName(u.name, name)) && (domain === undefined || u.domainId === domain));
    return ok({ users: out.map((u) => userView(ctx.sim, u)), links: listLinks(ctx, 'users') });
  });
  r.get('/users/:id', (ctx) => {
    const u = getUser(ctx.sim.keystone, ctx.p('id'));
    if (u.id !== ctx.auth.userId) denyUnlessAdmin(ctx.auth, 'get_user');
    return ok({ user: userView(ctx.sim, u) });
  });
  r.post('/users', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'create_user');
    const ks = ctx.sim.keystone;
    const b = member(ctx.req.body, 'user');
    const name = keystoneName(b, 255);
    const domainId = optStr(b, 'domain_id') ?? ctx.auth.userDomainId;
    getDomain(ks, domainId);
    if ([...ks.users.values()].some((u) => sameName(u.name, name) && u.domainId === domainId)) {
      throw conflict(`Conflict occurred attempting to store user - Duplicate entry found with name ${name} at domain ID ${domainId}.`);
    }
    const u: User = {
      id: hexId(), name, domainId, password: optStr(b, 'password') ?? '', enabled: optBool(b, 'enabled') ?? true,
      defaultProjectId: optStr(b, 'default_project_id') ?? null, description: optStr(b, 'description') ?? '', email: optStr(b, 'email') ?? null,
    };
    ks.users.set(u.id, u);
    return ok({ user: userView(ctx.sim, u) }, 201);
  });
  r.patch('/users/:id', (ctx) => {
    const ks = ctx.sim.keystone;
    const u = getUser(ks, ctx.p('id'));
    denyUnlessAdmin(ctx.auth, 'update_user');
    const b = member(ctx.req.body, 'user');
    u.name = optStr(b, 'name') ?? u.name;
    const pw = optStr(b, 'password');
    if (pw !== undefined) u.password = pw;
    u.enabled = optBool(b, 'enabled') ?? u.enabled;
    u.description = optStr(b, 'description') ?? u.description;
    u.defaultProjectId = optStr(b, 'default_project_id') ?? u.defaultProjectId;
    if (!u.enabled || pw !== undefined) revokeWhere(ks, (t) => t.userId === u.id);
    return ok({ user: userView(ctx.sim, u) });
  });
  r.del('/users/:id', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'delete_user');
    deleteUser(ctx.sim.keystone, getUser(ctx.sim.keystone, ctx.p('id')).id);
    return noContent();
  });
  r.get('/users/:id/projects', (ctx) => {
    const ks = ctx.sim.keystone;
    const u = getUser(ks, ctx.p('id'));
    if (u.id !== ctx.auth.userId) denyUnlessAdmin(ctx.auth, 'list_user_projects');
    return ok({ projects: userProjects(ks, u.id).map((p) => projectView(ctx.sim, p)), links: listLinks(ctx, `users/${u.id}/projects`) });
  });
}

function registerRoles(r: Registrar): void {
  r.get('/roles', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'list_roles');
    const name = ctx.q('name');
    const out = [...ctx.sim.keystone.roles.values()].filter((x) => name === undefined || sameName(x.name, name));
    return ok({ roles: out.map((x) => roleView(ctx.sim, x)), links: listLinks(ctx, 'roles') });
  });
  r.get('/roles/:id', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'get_role');
    return ok({ role: roleView(ctx.sim, getRole(ctx.sim.keystone, ctx.p('id'))) });
  });
  r.post('/roles', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'create_role');
    const ks = ctx.sim.keystone;
    const name = keystoneName(member(ctx.req.body, 'role'), 255);
    if ([...ks.roles.values()].some((x) => sameName(x.name, name))) throw conflict(`Conflict occurred attempting to store role - Duplicate entry found with name ${name}.`);
    const role = { id: hexId(), name };
    ks.roles.set(role.id, role);
    return ok({ role: roleView(ctx.sim, role) }, 201);
  });
  // Zed: 204, and every assignment of the role goes with it (tokens issued with it stop validating).
  r.del('/roles/:id', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'delete_role');
    const ks = ctx.sim.keystone;
    const role = getRole(ks, ctx.p('id'));
    ks.roles.delete(role.id);
    for (const g of [...ks.grants]) if (g.endsWith(`|${role.id}`)) ks.grants.delete(g);
    for (const [id, t] of ks.tokens) if (t.roleIds.includes(role.id)) ks.tokens.delete(id);
    return noContent();
  });
  for (const kind of ['projects', 'domains'] as const) {
    const target = (ctx: Ctx) => {
      const ks = ctx.sim.keystone;
      const id = ctx.p('target');
      if (kind === 'projects') getProject(ks, id); else getDomain(ks, id);
      getUser(ks, ctx.p('user'));
      return kind === 'projects' ? { projectId: id } : { domainId: id };
    };
    r.get(`/${kind}/:target/users/:user/roles`, (ctx) => {
      const t = target(ctx);
      if (ctx.p('user') !== ctx.auth.userId) denyUnlessAdmin(ctx.auth, 'list_grants');
      const ks = ctx.sim.keystone;
      return ok({ roles: rolesOn(ks, ctx.p('user'), t).map((id) => roleView(ctx.sim, getRole(ks, id))), links: listLinks(ctx, 'roles') });
    });
    r.put(`/${kind}/:target/users/:user/roles/:role`, (ctx) => {
      denyUnlessAdmin(ctx.auth, 'create_grant');
      const t = target(ctx);
      ctx.sim.keystone.grants.add(grantKey(ctx.p('user'), t, getRole(ctx.sim.keystone, ctx.p('role')).id));
      return noContent();
    });
    r.get(`/${kind}/:target/users/:user/roles/:role`, (ctx) => {
      const t = target(ctx);
      if (!ctx.sim.keystone.grants.has(grantKey(ctx.p('user'), t, ctx.p('role')))) throw notFound(`Could not find role assignment.`);
      return noContent();
    });
    r.del(`/${kind}/:target/users/:user/roles/:role`, (ctx) => {
      denyUnlessAdmin(ctx.auth, 'revoke_grant');
      const t = target(ctx);
      const ks = ctx.sim.keystone;
      if (!ks.grants.delete(grantKey(ctx.p('user'), t, ctx.p('role')))) throw notFound('Could not find role assignment.');
      revokeWhere(ks, (tk) => tk.userId === ctx.p('user'));
      return noContent();
    });
  }
  r.get('/role_assignments', (ctx) => {
    const ks = ctx.sim.keystone;
    const userF = ctx.q('user.id');
    if (userF !== ctx.auth.userId) denyUnlessAdmin(ctx.auth, 'list_role_assignments');
    const projF = ctx.q('scope.project.id');
    const domF = ctx.q('scope.domain.id');
    const roleF = ctx.q('role.id');
    const names = ctx.q('include_names') !== undefined;
    const out: unknown[] = [];
    for (const g of ks.grants) {
      const [userId = '', scope = '', roleId = ''] = g.split('|');
      const isProject = scope.startsWith('p:');
      const sid = scope.slice(2);
      if ((userF && userId !== userF) || (roleF && roleId !== roleF) || (projF && (!isProject || sid !== projF)) || (domF && (isProject || sid !== domF))) continue;
      const withName = (o: Record<string, unknown>, n: string | undefined, domainId?: string) => (names
        ? { ...o, name: n, ...(domainId !== undefined ? { domain: { id: domainId, name: ks.domains.get(domainId)?.name } } : {}) }
        : o);
      const u = ks.users.get(userId);
      const p = isProject ? ks.projects.get(sid) : undefined;
      out.push({
        role: withName({ id: roleId }, ks.roles.get(roleId)?.name),
        user: withName({ id: userId }, u?.name, u?.domainId),
        scope: isProject ? { project: withName({ id: sid }, p?.name, p?.domainId) } : { domain: withName({ id: sid }, ks.domains.get(sid)?.name) },
        links: { assignment: ctx.sim.url(`/identity/v3/${isProject ? 'projects' : 'domains'}/${sid}/users/${userId}/roles/${roleId}`) },
      });
    }
    return ok({ role_assignments: out, links: listLinks(ctx, 'role_assignments') });
  });
}

function registerCatalogAdmin(r: Registrar): void {
  r.get('/services', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'list_services');
    return ok({ services: serviceList(ctx.sim.baseUrl).services, links: listLinks(ctx, 'services') });
  });
  r.get('/endpoints', (ctx) => {
    denyUnlessAdmin(ctx.auth, 'list_endpoints');
    return ok({ endpoints: serviceList(ctx.sim.baseUrl).endpoints, links: listLinks(ctx, 'endpoints') });
  });
  r.get('/regions', (ctx) => ok({ regions: [{ id: REGION, description: '', parent_region_id: null, links: { self: ctx.sim.url(`/identity/v3/regions/${REGION}`) } }], links: listLinks(ctx, 'regions') }));
}

export function registerResources(r: Registrar): void {
  registerDomains(r);
  registerProjects(r);
  registerUsers(r);
  registerRoles(r);
  registerCatalogAdmin(r);
}
