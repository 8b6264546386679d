// POST/GET/HEAD/DELETE /v3/auth/tokens: password, application_credential and token methods; project,
// domain and system scope; expiry on the sim clock. resolveToken() is what every other service uses.
import type { AuthContext } from '../auth.js';
import { SimError, noContent, ok } from '../http.js';
import { isoMicrosZ, tokenId, uuid } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj } from '../validate.js';
import type { Json } from '../validate.js';
import { catalog } from './catalog.js';
import { domainEnabled, effectiveRolesOn, sameName } from './model.js';
import type { KeystoneState, Project, Token, User } from './model.js';

const unauthorized = (message = 'The request you have made requires authentication.'): SimError => new SimError(401, message);

/**
 * The caller behind an X-Auth-Token, or null when unknown, expired, or its user/project/app cred is gone or
 * its user's or project's domain is disabled. Real Keystone invalidates the same tokens, but services cache a
 * validation (keystonemiddleware, 5 min by default) and Keystone caches its own, so there a token can keep
 * working for a while after such a change; here it stops at once (docs/simulator-differences.md).
 */
export function resolveToken(sim: Sim, id: string): AuthContext | null {
  const ks = sim.keystone;
  const t = ks.tokens.get(id);
  if (!t) return null;
  if (sim.clock.now() >= t.expiresAt) return null;
  const user = ks.users.get(t.userId);
  if (!user || !user.enabled || !domainEnabled(ks, user.domainId)) return null;
  let projectName: string | null = null;
  if (t.projectId) {
    const p = ks.projects.get(t.projectId);
    if (!p || !p.enabled || !domainEnabled(ks, p.domainId)) return null;
    projectName = p.name;
  }
  if (t.appCredId && !ks.appCreds.has(t.appCredId)) return null;
  const roles = t.roleIds.map((r) => ks.roles.get(r)?.name).filter((n): n is string => n !== undefined);
  return {
    tokenId: t.id, userId: user.id, userName: user.name, userDomainId: user.domainId, projectId: t.projectId,
    projectName, domainScopeId: t.domainId, roles, isAdmin: roles.includes('admin'), appCredId: t.appCredId,
  };
}

function findDomainId(ks: KeystoneState, ref: unknown): string | undefined {
  if (!isObj(ref)) return undefined;
  if (typeof ref.id === 'string') return ks.domains.has(ref.id) ? ref.id : undefined;
  if (typeof ref.name === 'string') return [...ks.domains.values()].find((d) => sameName(d.name, ref.name as string))?.id;
  return undefined;
}

function findUser(ks: KeystoneState, ref: unknown): User | undefined {
  if (!isObj(ref)) return undefined;
  if (typeof ref.id === 'string') return ks.users.get(ref.id);
  if (typeof ref.name === 'string') {
    const domainId = findDomainId(ks, ref.domain);
    if (!domainId) return undefined;
    return [...ks.users.values()].find((u) => sameName(u.name, ref.name as string) && u.domainId === domainId);
  }
  return undefined;
}

function findProject(ks: KeystoneState, ref: unknown): Project | undefined {
  if (!isObj(ref)) return undefined;
  if (typeof ref.id === 'string') return ks.projects.get(ref.id);
  if (typeof ref.name === 'string') {
    const domainId = findDomainId(ks, ref.domain);
    if (!domainId) return undefined;
    return [...ks.projects.values()].find((p) => sameName(p.name, ref.name as string) && p.domainId === domainId);
  }
  return undefined;
}

interface Identified { user: User; methods: string[]; appCredId: string | null; appCredProject: string | null; appCredRoles: string[] | null }

function identify(sim: Sim, identity: Json): Identified {
  const ks = sim.keystone;
  const methods = Array.isArray(identity.methods) ? identity.methods.filter((m): m is string => typeof m === 'string') : [];
  if (methods.includes('password')) {
    const pw = isObj(identity.password) ? identity.password : {};
    const user = findUser(ks, pw.user);
    const given = isObj(pw.user) ? pw.user.password : undefined;
    if (!user || !user.enabled || !domainEnabled(ks, user.domainId) || typeof given !== 'string' || given !== user.password) throw unauthorized();
    return { user, methods: ['password'], appCredId: null, appCredProject: null, appCredRoles: null };
  }
  if (methods.includes('application_credential')) {
    const ac = isObj(identity.application_credential) ? identity.application_credential : {};
    let cred = typeof ac.id === 'string' ? ks.appCreds.get(ac.id) : undefined;
    // Zed looks a credential named by id up before checking anything else: an unknown (or deleted) id is a
    // 404, not a 401. By name + user it is a 401 like every other refusal.
    if (!cred && typeof ac.id === 'string') throw new SimError(404, `Could not find Application Credential: ${ac.id}.`);
    if (!cred && typeof ac.name === 'string') {
      const owner = findUser(ks, ac.user);
      cred = owner ? [...ks.appCreds.values()].find((c) => c.userId === owner.id && sameName(c.name, ac.name as string)) : undefined;
    }
    if (!cred || ac.secret !== cred.secret) throw unauthorized();
    if (cred.expiresAt !== null && sim.clock.now() >= cred.expiresAt) throw unauthorized();
    const user = ks.users.get(cred.userId);
    if (!user || !user.enabled || !domainEnabled(ks, user.domainId)) throw unauthorized();
    return { user, methods: ['application_credential'], appCredId: cred.id, appCredProject: cred.projectId, appCredRoles: cred.roleIds };
  }
  if (methods.includes('token')) {
    const tok = isObj(identity.token) && typeof identity.token.id === 'string' ? identity.token.id : '';
    const auth = resolveToken(sim, tok);
    const t = ks.tokens.get(tok);
    if (!auth || !t) throw unauthorized();
    if (t.appCredId) throw new SimError(403, 'Application credential tokens cannot be rescoped.');
    const user = ks.users.get(auth.userId) as User;
    return { user, methods: [...new Set([...t.methods, 'token'])], appCredId: null, appCredProject: null, appCredRoles: null };
  }
  throw unauthorized('Attempted to authenticate with an unsupported method.');
}

function issue(sim: Sim, body: unknown): Token {
  const ks = sim.keystone;
  if (!isObj(body) || !isObj(body.auth) || !isObj(body.auth.identity)) throw new SimError(400, 'Expecting to find auth in request body.');
  const who = identify(sim, body.auth.identity);
  const scope = body.auth.scope;
  let projectId: string | null = null;
  let domainId: string | null = null;
  let roleIds: string[] = [];
  if (who.appCredId) {
    // Zed refuses any explicit scope with an application credential, even its own project's.
    if (isObj(scope)) throw unauthorized('Error authenticating with application credential: Application credentials cannot request a scope.');
    projectId = who.appCredProject;
    const held = new Set(effectiveRolesOn(ks, who.user.id, { projectId: projectId ?? '' }));
    roleIds = (who.appCredRoles ?? []).filter((r) => held.has(r));
    if (roleIds.length === 0) throw unauthorized(`User ${who.user.id} has no access to project ${projectId ?? ''}`);
  } else if (isObj(scope) && scope.project !== undefined) {
    const p = findProject(ks, scope.project);
    if (!p || !p.enabled || !domainEnabled(ks, p.domainId)) throw unauthorized('Could not find project.');
    roleIds = effectiveRolesOn(ks, who.user.id, { projectId: p.id });
    if (roleIds.length === 0) throw unauthorized(`User ${who.user.id} has no access to project ${p.id}`);
    projectId = p.id;
  } else if (isObj(scope) && scope.domain !== undefined) {
    const d = findDomainId(ks, scope.domain);
    if (!d) throw unauthorized('Could not find domain.');
    roleIds = effectiveRolesOn(ks, who.user.id, { domainId: d });
    if (roleIds.length === 0) throw unauthorized(`User ${who.user.id} has no access to domain ${d}`);
    domainId = d;
  } else if (isObj(scope) && scope.system !== undefined) {
    const adminRole = [...ks.roles.values()].find((r) => r.name === 'admin');
    const isAdminSomewhere = adminRole && [...ks.grants].some((g) => g.startsWith(`${who.user.id}|`) && g.endsWith(`|${adminRole.id}`));
    if (!adminRole || !isAdminSomewhere) throw unauthorized(`User ${who.user.id} has no access to the system`);
    roleIds = [adminRole.id];
  } else if (who.user.defaultProjectId) {
    const p = ks.projects.get(who.user.defaultProjectId);
    const r = p ? effectiveRolesOn(ks, who.user.id, { projectId: p.id }) : [];
    if (p && p.enabled && r.length > 0) {
      projectId = p.id;
      roleIds = r;
    }
  }
  const now = sim.clock.now();
  const token: Token = {
    id: tokenId(), userId: who.user.id, methods: who.methods, projectId, domainId, roleIds, issuedAt: now,
    expiresAt: now + sim.config.keystone.tokenTtlMs, appCredId: who.appCredId, auditId: uuid().replace(/-/g, '').slice(0, 22),
  };
  // Expired tokens are dropped lazily here so a long demo does not accumulate them.
  if (ks.tokens.size > 50_000) for (const [k, t] of ks.tokens) if (t.expiresAt <= now) ks.tokens.delete(k);
  ks.tokens.set(token.id, token);
  return token;
}

export function tokenBody(sim: Sim, t: Token, withCatalog: boolean): unknown {
  const ks = sim.keystone;
  const user = ks.users.get(t.userId);
  const dom = (id: string | undefined) => ({ id: id ?? '', name: (id && ks.domains.get(id)?.name) ?? '' });
  const out: Record<string, unknown> = {
    methods: t.methods,
    user: { domain: dom(user?.domainId), id: t.userId, name: user?.name ?? '', password_expires_at: null },
    audit_ids: [t.auditId],
    expires_at: isoMicrosZ(t.expiresAt),
    issued_at: isoMicrosZ(t.issuedAt),
  };
  const scoped = t.projectId !== null || t.domainId !== null || t.roleIds.length > 0;
  if (t.projectId) {
    const p = ks.projects.get(t.projectId);
    out.project = { domain: dom(p?.domainId), id: t.projectId, name: p?.name ?? '' };
    out.is_domain = false;
  } else if (t.domainId) {
    out.domain = dom(t.domainId);
  } else if (scoped) {
    out.system = { all: true };
  }
  if (scoped) {
    out.roles = t.roleIds.map((r) => ({ id: r, name: ks.roles.get(r)?.name ?? '' }));
    if (withCatalog) out.catalog = catalog(sim.baseUrl, t.projectId);
  }
  if (t.appCredId) {
    const c = ks.appCreds.get(t.appCredId);
    out.application_credential = { id: t.appCredId, name: c?.name ?? '', restricted: !(c?.unrestricted ?? false) };
  }
  return { token: out };
}

function subject(ctx: Ctx): Token {
  const id = ctx.req.headers['x-subject-token'];
  const t = typeof id === 'string' ? ctx.sim.keystone.tokens.get(id) : undefined;
  if (!t || !resolveToken(ctx.sim, t.id)) throw new SimError(404, `Could not find token: ${typeof id === 'string' ? id : ''}.`);
  if (!ctx.auth.isAdmin && t.userId !== ctx.auth.userId) throw new SimError(403, 'You are not authorized to perform the requested action: identity:validate_token.');
  return t;
}

export function registerTokens(r: Registrar): void {
  r.post('/auth/tokens', (ctx) => {
    const t = issue(ctx.sim, ctx.req.body);
    return ok(tokenBody(ctx.sim, t, ctx.q('nocatalog') === undefined), 201, { 'X-Subject-Token': t.id });
  }, { auth: false });
  r.get('/auth/tokens', (ctx) => {
    const t = subject(ctx);
    return ok(tokenBody(ctx.sim, t, ctx.q('nocatalog') === undefined), 200, { 'X-Subject-Token': t.id });
  });
  r.head('/auth/tokens', (ctx) => {
    const t = subject(ctx);
    return noContent(200, { 'X-Subject-Token': t.id });
  });
  r.del('/auth/tokens', (ctx) => {
    const t = subject(ctx);
    ctx.sim.keystone.tokens.delete(t.id);
    return noContent();
  });
  r.get('/auth/catalog', (ctx) => ok({ catalog: catalog(ctx.sim.baseUrl, ctx.auth.projectId), links: { self: ctx.sim.url('/identity/v3/auth/catalog') } }));
}
