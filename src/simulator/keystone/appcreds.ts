// Application credentials: per user, scoped to the project of the token that created them. The secret is
// returned once, at creation; later reads omit it. Policy and answers as measured on Keystone Zed:
// - create: the owner only (an admin creating one for another user gets 403), with a project-scoped token
//   that was not itself issued from an application credential (unless that one is unrestricted);
// - list: the owner or an admin; an admin listing an unknown user's credentials gets 200 and [];
// - a token issued from a restricted credential may neither create nor delete one (any user's, also admin);
// - show / delete: looked up by the credential id alone; the policy is checked against the credential's
//   owner, and the user id in the path is NOT checked (an admin's delete through another user's path
//   deletes it);
// - names compare like Keystone's database does (sameName): duplicates in any case are a 409.
import { SimError, conflict, noContent, notFound, ok } from '../http.js';
import { hexId, isoMicros, parseIso, secret as newSecret } from '../ids.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj, member, optArray, optBool, optNullableStr, optStr, reqStr } from '../validate.js';
import type { AppCred } from './model.js';
import { sameName } from './model.js';

const forbidden = (action: string): SimError => new SimError(403, `You are not authorized to perform the requested action: identity:${action}.`);

function view(ctx: Ctx, c: AppCred, withSecret: boolean): Record<string, unknown> {
  const ks = ctx.sim.keystone;
  return {
    id: c.id, name: c.name, description: c.description, user_id: c.userId, project_id: c.projectId, system: null,
    // Keystone prints expires_at without a zone (UTC), microseconds included.
    expires_at: c.expiresAt === null ? null : isoMicros(c.expiresAt), unrestricted: c.unrestricted,
    roles: c.roleIds.map((r) => ({ id: r, name: ks.roles.get(r)?.name ?? '', domain_id: null, description: null, options: {} })),
    links: { self: ctx.sim.url(`/identity/v3/application_credentials/${c.id}`) },
    ...(withSecret ? { secret: c.secret } : {}),
  };
}

/** The credential named by `:id`, whatever user the path names; 403 unless the caller owns it or is admin. */
function byId(ctx: Ctx, action: string): AppCred {
  const id = ctx.p('id');
  const c = ctx.sim.keystone.appCreds.get(id);
  if (!c) throw notFound(`Could not find Application Credential: ${id}.`);
  if (!ctx.auth.isAdmin && c.userId !== ctx.auth.userId) throw forbidden(action);
  return c;
}

/**
 * A token issued from an application credential that is not `unrestricted` may neither create nor delete
 * any application credential (its own, another user's, even with admin): Zed's 403, measured.
 */
function refuseRestrictedCredentialToken(ctx: Ctx): void {
  if (!ctx.auth.appCredId) return;
  if (ctx.sim.keystone.appCreds.get(ctx.auth.appCredId)?.unrestricted === true) return;
  throw new SimError(403, "You are not authorized to perform the requested action: Using method 'application_credential' is not allowed for managing additional application credentials..");
}

export function registerAppCreds(r: Registrar): void {
  r.get('/users/:user/application_credentials', (ctx) => {
    const userId = ctx.p('user');
    if (userId !== ctx.auth.userId && !ctx.auth.isAdmin) throw forbidden('list_application_credentials');
    const name = ctx.q('name');
    const out = [...ctx.sim.keystone.appCreds.values()].filter((c) => c.userId === userId && (name === undefined || sameName(c.name, name)));
    return ok({ application_credentials: out.map((c) => view(ctx, c, false)), links: { self: ctx.sim.url(`/identity/v3/users/${userId}/application_credentials`), previous: null, next: null } });
  });
  r.get('/users/:user/application_credentials/:id', (ctx) => ok({ application_credential: view(ctx, byId(ctx, 'get_application_credential'), false) }));
  r.del('/users/:user/application_credentials/:id', (ctx) => {
    // Zed checks this before looking the credential up (also for an unknown id, and for admins).
    refuseRestrictedCredentialToken(ctx);
    const c = byId(ctx, 'delete_application_credential');
    const ks = ctx.sim.keystone;
    ks.appCreds.delete(c.id);
    for (const [id, t] of ks.tokens) if (t.appCredId === c.id) ks.tokens.delete(id);
    return noContent();
  });
  r.post('/users/:user/application_credentials', (ctx) => {
    const userId = ctx.p('user');
    const ks = ctx.sim.keystone;
    // identity:create_application_credential is `user_id:%(user_id)s`: admins included, nobody else.
    if (userId !== ctx.auth.userId) throw forbidden('create_application_credential');
    if (!ks.users.has(userId)) throw notFound(`Could not find user: ${userId}.`);
    refuseRestrictedCredentialToken(ctx);
    if (!ctx.auth.projectId) throw new SimError(400, 'Application credentials require a project-scoped token.');
    const b = member(ctx.req.body, 'application_credential');
    const name = reqStr(b, 'name', 255);
    if ([...ks.appCreds.values()].some((c) => c.userId === userId && sameName(c.name, name))) {
      throw conflict(`Conflict occurred attempting to store application_credential - Duplicate entry found with name ${name}.`);
    }
    const tokenRoles = ks.tokens.get(ctx.auth.tokenId)?.roleIds ?? [];
    let roleIds = tokenRoles;
    const requested = optArray(b, 'roles');
    if (requested && requested.length > 0) {
      roleIds = requested.map((x) => {
        const ref = isObj(x) ? x : {};
        const role = typeof ref.id === 'string' ? ks.roles.get(ref.id) : [...ks.roles.values()].find((rr) => typeof ref.name === 'string' && sameName(rr.name, ref.name));
        if (!role) throw notFound(`Could not find role: ${String(ref.id ?? ref.name)}.`);
        if (!tokenRoles.includes(role.id)) throw new SimError(400, 'Invalid application credential: Cannot create an application credential with unassigned role');
        return role.id;
      });
    }
    const exp = optNullableStr(b, 'expires_at');
    const expiresAt = exp ? parseIso(exp) : null;
    const suffix = 'The server could not comply with the request since it is either malformed or otherwise incorrect. The client is assumed to be in error.';
    if (expiresAt !== null && Number.isNaN(expiresAt)) throw new SimError(400, `Timestamp not in expected format. ${suffix}`);
    if (expiresAt !== null && expiresAt < ctx.sim.clock.now()) throw new SimError(400, `The 'expires_at' must not be before now. ${suffix}`);
    const c: AppCred = {
      id: hexId(), name, userId, projectId: ctx.auth.projectId, secret: optStr(b, 'secret') ?? newSecret(), roleIds,
      description: optNullableStr(b, 'description') ?? null, expiresAt, unrestricted: optBool(b, 'unrestricted') ?? null,
    };
    ks.appCreds.set(c.id, c);
    return ok({ application_credential: view(ctx, c, true) }, 201);
  });
}
