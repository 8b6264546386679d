// Application credentials: per user, scoped to the project of the token that created them. The secret is
// returned once, at creation; later reads omit it.
import { SimError, conflict, noContent, notFound, ok } from '../http.js';
import { hexId, isoMicrosZ, parseIso, secret as newSecret } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj, member, optArray, optBool, optNullableStr, optStr, reqStr } from '../validate.js';
import type { AppCred } from './model.js';
import { denyUnlessAdmin } from './resources.js';

function view(ctx: Ctx, c: AppCred, withSecret: boolean): Record<string, unknown> {
  const ks = ctx.sim.keystone;
  return {
    id: c.id, name: c.name, description: c.description, user_id: c.userId, project_id: c.projectId,
    expires_at: c.expiresAt === null ? null : isoMicrosZ(c.expiresAt), unrestricted: c.unrestricted,
    roles: c.roleIds.map((r) => ({ id: r, name: ks.roles.get(r)?.name ?? '', domain_id: null })), access_rules: [],
    links: { self: ctx.sim.url(`/identity/v3/users/${c.userId}/application_credentials/${c.id}`) },
    ...(withSecret ? { secret: c.secret } : {}),
  };
}

function owner(ctx: Ctx, write: boolean): string {
  const userId = ctx.p('user');
  if (!ctx.sim.keystone.users.has(userId)) throw notFound(`Could not find user: ${userId}.`);
  if (userId !== ctx.auth.userId) {
    if (write) throw new SimError(403, 'You are not authorized to perform the requested action: identity:create_application_credential.');
    denyUnlessAdmin(ctx.auth, 'list_application_credentials');
  }
  return userId;
}

function find(ctx: Ctx, userId: string): AppCred {
  const c = ctx.sim.keystone.appCreds.get(ctx.p('id'));
  if (!c || c.userId !== userId) throw notFound(`Could not find Application Credential: ${ctx.p('id')}.`);
  return c;
}

export function registerAppCreds(r: Registrar): void {
  r.get('/users/:user/application_credentials', (ctx) => {
    const userId = owner(ctx, false);
    const name = ctx.q('name');
    const out = [...ctx.sim.keystone.appCreds.values()].filter((c) => c.userId === userId && (name === undefined || c.name === name));
    return ok({ application_credentials: out.map((c) => view(ctx, c, false)), links: { self: ctx.sim.url(`/identity/v3/users/${userId}/application_credentials`), previous: null, next: null } });
  });
  r.get('/users/:user/application_credentials/:id', (ctx) => ok({ application_credential: view(ctx, find(ctx, owner(ctx, false)), false) }));
  r.del('/users/:user/application_credentials/:id', (ctx) => {
    const userId = ctx.p('user');
    if (userId !== ctx.auth.userId) denyUnlessAdmin(ctx.auth, 'delete_application_credential');
    const c = find(ctx, userId);
    const ks = ctx.sim.keystone;
    ks.appCreds.delete(c.id);
    for (const [id, t] of ks.tokens) if (t.appCredId === c.id) ks.tokens.delete(id);
    return noContent();
  });
  r.post('/users/:user/application_credentials', (ctx) => {
    const userId = owner(ctx, true);
    const ks = ctx.sim.keystone;
    if (ctx.auth.appCredId) {
      const creator = ks.appCreds.get(ctx.auth.appCredId);
      if (!creator?.unrestricted) throw new SimError(403, "Using method 'application_credential' is not allowed for managing additional application credentials.");
    }
    if (!ctx.auth.projectId) throw new SimError(400, 'Application credentials require a project-scoped token.');
    const b = member(ctx.req.body, 'application_credential');
    const name = reqStr(b, 'name', 255);
    if ([...ks.appCreds.values()].some((c) => c.userId === userId && c.name === name)) {
      throw conflict('Conflict occurred attempting to store application_credential - Duplicate entry.');
    }
    const tokenRoles = ks.tokens.get(ctx.auth.tokenId)?.roleIds ?? [];
    let roleIds = tokenRoles;
    const requested = optArray(b, 'roles');
    if (requested && requested.length > 0) {
      roleIds = requested.map((x) => {
        const ref = isObj(x) ? x : {};
        const role = typeof ref.id === 'string' ? ks.roles.get(ref.id) : [...ks.roles.values()].find((rr) => rr.name === ref.name);
        if (!role || !tokenRoles.includes(role.id)) throw notFound(`Could not find role assignment with role: ${String(ref.id ?? ref.name)}.`);
        return role.id;
      });
    }
    const exp = optNullableStr(b, 'expires_at');
    const expiresAt = exp ? parseIso(exp) : null;
    if (expiresAt !== null && Number.isNaN(expiresAt)) throw new SimError(400, `Invalid expires_at: ${exp ?? ''}`);
    const c: AppCred = {
      id: hexId(), name, userId, projectId: ctx.auth.projectId, secret: optStr(b, 'secret') ?? newSecret(), roleIds,
      description: optNullableStr(b, 'description') ?? null, expiresAt, unrestricted: optBool(b, 'unrestricted') ?? false,
    };
    ks.appCreds.set(c.id, c);
    return ok({ application_credential: view(ctx, c, true) }, 201);
  });
}
