/**
 * Keystone v3 token issue: the request body for each auth method/scope, and the decoded answer (token from the
 * X-Subject-Token header, expiry, catalog, scope). The body holds the password or secret: it goes to axios and
 * nowhere else (never logged, never attached to an error).
 */
import * as t from 'io-ts';
import { NotFound, Unauthorized, UnreadableResponse } from '../errors.js';
import type { HttpSession } from '../http.js';
import { decodeOrThrow, nullable } from '../decoders/field.js';
import type { CatalogEntry } from './catalog.js';
import { catalogEntryCodec } from './catalog.js';
import type { AuthMethod, DomainRef, Scope, UserRef } from './clouds-config.js';

export interface IssuedToken {
  readonly token: string;
  readonly expiresAt: string;
  readonly issuedAt?: string;
  readonly catalog: readonly CatalogEntry[];
  readonly user: { readonly id: string; readonly name?: string };
  readonly project?: { readonly id: string; readonly name?: string; readonly domainId?: string };
  readonly domain?: { readonly id: string; readonly name?: string };
  readonly roles: readonly string[];
  readonly methods: readonly string[];
}

const domainBody = (d: DomainRef): Record<string, string> => ('id' in d ? { id: d.id } : { name: d.name });
const userBody = (u: UserRef): Record<string, unknown> => ('id' in u ? { id: u.id } : { name: u.name, domain: domainBody(u.domain) });

/** The `{"auth": …}` body of POST /v3/auth/tokens. */
export const authRequestBody = (auth: AuthMethod, scope: Scope): Record<string, unknown> => {
  let identity: Record<string, unknown>;
  if (auth.type === 'password') {
    identity = { methods: ['password'], password: { user: { ...userBody(auth.user), password: auth.password } } };
  } else {
    const credential = 'id' in auth.credential
      ? { id: auth.credential.id, secret: auth.secret }
      : { name: auth.credential.name, user: userBody(auth.credential.user), secret: auth.secret };
    identity = { methods: ['application_credential'], application_credential: credential };
  }
  const body: Record<string, unknown> = { identity };
  if (scope.kind === 'project') {
    body.scope = { project: 'id' in scope.project ? { id: scope.project.id } : { name: scope.project.name, domain: domainBody(scope.project.domain) } };
  } else if (scope.kind === 'domain') {
    body.scope = { domain: domainBody(scope.domain) };
  }
  return { auth: body };
};

const named = t.intersection([t.type({ id: t.string }), t.partial({ name: t.string })]);
const tokenBodyCodec = t.type({
  token: t.intersection([
    t.type({ expires_at: t.string, user: named }),
    t.partial({
      issued_at: t.string,
      methods: t.array(t.string),
      catalog: t.array(catalogEntryCodec),
      project: t.intersection([named, t.partial({ domain: named })]),
      domain: named,
      roles: t.array(named),
      application_credential: nullable(t.UnknownRecord),
    }),
  ]),
});

/**
 * Keystone (Zed) answers a token request naming an application credential id that does not exist — never
 * created, or deleted/revoked since — with 404 `Could not find Application Credential: <id>`, not 401 (by name
 * + user, or with a wrong secret, it is 401). Either way the credentials no longer authenticate: the caller
 * must see Unauthorized (issue 11: a revoked credential is detected on the next token issue), not a NotFound
 * it would read as "some resource is gone". The status stays 404 and the fault text is kept.
 */
const refusal = (error: unknown): unknown => {
  if (!(error instanceof NotFound) || error.status === undefined) return error;
  return new Unauthorized('credentials refused (Keystone: not found)', {
    ...(error.service !== undefined ? { service: error.service } : {}),
    ...(error.method !== undefined ? { method: error.method } : {}),
    ...(error.path !== undefined ? { path: error.path } : {}),
    status: error.status,
    ...(error.requestId !== undefined ? { requestId: error.requestId } : {}),
    ...(error.fault !== undefined ? { fault: error.fault } : {}),
  });
};

// Identity API v3: Password authentication with scoped authorization / Authenticating with an Application Credential — POST /v3/auth/tokens
export const issueToken = async (identity: HttpSession, auth: AuthMethod, scope: Scope): Promise<IssuedToken> => {
  const response = await identity.request({
    method: 'POST', path: '/auth/tokens', body: authRequestBody(auth, scope), anonymous: true,
    // Issuing a token creates nothing a retry could duplicate, so a 5xx/timeout here may be retried.
    idempotent: true,
  }).catch((error: unknown) => {
    throw refusal(error);
  });
  const context = { service: 'identity', method: 'POST' as const, path: '/auth/tokens', ...(response.requestId ? { requestId: response.requestId } : {}) };
  const token = response.headers['x-subject-token'];
  if (token === undefined || token === '') throw new UnreadableResponse('token issue answered without X-Subject-Token', ['X-Subject-Token'], context);
  const body = decodeOrThrow(tokenBodyCodec, response.data, 'token', context).token;
  if (Number.isNaN(Date.parse(body.expires_at))) throw new UnreadableResponse('token has an unreadable expires_at', ['token.expires_at'], context);
  return {
    token,
    expiresAt: body.expires_at,
    ...(body.issued_at !== undefined ? { issuedAt: body.issued_at } : {}),
    catalog: body.catalog ?? [],
    user: body.user,
    ...(body.project !== undefined ? { project: { id: body.project.id, ...(body.project.name ? { name: body.project.name } : {}), ...(body.project.domain ? { domainId: body.project.domain.id } : {}) } } : {}),
    ...(body.domain !== undefined ? { domain: body.domain } : {}),
    roles: (body.roles ?? []).map((r) => r.name ?? r.id),
    methods: body.methods ?? [],
  };
};
