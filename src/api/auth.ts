/**
 * Authentication and authorization. A caller presents `Authorization: Bearer <JWT>`; the token is
 * verified with jose against the configured JWKS (a file, a URL, or an in-process key set) and, when
 * configured, its issuer and audience. Its `regent.dev/acl` claim (docs/api.md) grants operations on
 * named endpoints (`region:servers:v2`, `region:servers:v2/provider-create-gates`, …) globally, per
 * organization, or per project of an organization. Tokens are never logged or stored.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLocalJWKSet, createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose';
import { unauthorized } from './errors.js';

export const ACL_CLAIM = 'regent.dev/acl';

export const OPERATIONS = ['create', 'read', 'update', 'delete'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The endpoint (permission) names of server-api.md. */
export const ENDPOINTS = {
  serversV2: 'region:servers:v2',
  providerCreateGates: 'region:servers:v2/provider-create-gates',
  networksV2: 'region:networks:v2',
  serversV1: 'region:servers',
  identitiesV1: 'region:identities',
  images: 'region:images',
} as const;

export interface EndpointGrant {
  name: string;
  operations: Operation[];
}

export interface Acl {
  global?: EndpointGrant[];
  organizations?: { id: string; endpoints?: EndpointGrant[]; projects?: { id: string; endpoints: EndpointGrant[] }[] }[];
}

export interface Principal {
  /** The token's `sub`: who is recorded as the actor of every write. */
  readonly subject: string;
  readonly acl: Acl;
}

/** May `principal` perform `operation` on `endpoint` in organization `org`, project `project`? */
export const allowed = (principal: Principal, endpoint: string, operation: Operation, org: string, project: string): boolean => {
  const grants = (list: readonly EndpointGrant[] | undefined) => (list ?? []).some((g) => g.name === endpoint && g.operations.includes(operation));
  if (grants(principal.acl.global)) return true;
  return (principal.acl.organizations ?? []).some(
    (o) => o.id === org && (grants(o.endpoints) || (o.projects ?? []).some((p) => p.id === project && grants(p.endpoints))),
  );
};

/** An organization-wide grant (global or on the organization itself; a project grant is not enough). */
export const allowedInOrganization = (principal: Principal, endpoint: string, operation: Operation, org: string): boolean => {
  const grants = (list: readonly EndpointGrant[] | undefined) => (list ?? []).some((g) => g.name === endpoint && g.operations.includes(operation));
  return grants(principal.acl.global) || (principal.acl.organizations ?? []).some((o) => o.id === org && grants(o.endpoints));
};

const isGrantList = (v: unknown): v is EndpointGrant[] =>
  Array.isArray(v) &&
  v.every((g) => typeof g === 'object' && g !== null && typeof (g as EndpointGrant).name === 'string' && Array.isArray((g as EndpointGrant).operations) && (g as EndpointGrant).operations.every((o) => (OPERATIONS as readonly string[]).includes(o)));

/** The ACL claim, checked for shape; anything else is an invalid token. */
export const parseAcl = (value: unknown): Acl | undefined => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const acl = value as Record<string, unknown>;
  if (acl.global !== undefined && !isGrantList(acl.global)) return undefined;
  if (acl.organizations !== undefined) {
    if (!Array.isArray(acl.organizations)) return undefined;
    for (const o of acl.organizations as unknown[]) {
      if (typeof o !== 'object' || o === null) return undefined;
      const org = o as Record<string, unknown>;
      if (typeof org.id !== 'string') return undefined;
      if (org.endpoints !== undefined && !isGrantList(org.endpoints)) return undefined;
      if (org.projects !== undefined) {
        if (!Array.isArray(org.projects)) return undefined;
        for (const p of org.projects as unknown[]) {
          if (typeof p !== 'object' || p === null || typeof (p as Record<string, unknown>).id !== 'string' || !isGrantList((p as Record<string, unknown>).endpoints)) return undefined;
        }
      }
    }
  }
  return acl as Acl;
};

export interface AuthOptions {
  /** A key set in process (tests), a path to a JWKS file, or an https URL serving one. */
  readonly jwks: JSONWebKeySet | string | URL;
  readonly issuer?: string;
  readonly audience?: string;
}

export interface Authenticator {
  /** The principal of an `Authorization` header value; throws a 401 ApiError otherwise. */
  authenticate(header: string | undefined): Promise<Principal>;
}

export const createAuthenticator = (options: AuthOptions): Authenticator => {
  const keys =
    options.jwks instanceof URL || (typeof options.jwks === 'string' && /^https?:\/\//.test(options.jwks))
      ? createRemoteJWKSet(new URL(options.jwks))
      : createLocalJWKSet(typeof options.jwks === 'string' ? (JSON.parse(readFileSync(options.jwks, 'utf8')) as JSONWebKeySet) : options.jwks);
  return {
    async authenticate(header) {
      const match = header === undefined ? null : /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header.trim());
      if (!match) throw unauthorized('a bearer token is required (Authorization: Bearer <JWT>)');
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(match[1] as string, keys, { ...(options.issuer ? { issuer: options.issuer } : {}), ...(options.audience ? { audience: options.audience } : {}) }));
      } catch (_error) {
        throw unauthorized('the bearer token does not verify (signature, expiry, issuer or audience)');
      }
      if (typeof payload.sub !== 'string' || payload.sub === '') throw unauthorized('the bearer token has no subject (sub)');
      const acl = parseAcl(payload[ACL_CLAIM] ?? {});
      if (!acl) throw unauthorized(`the bearer token's ${ACL_CLAIM} claim is malformed`);
      return { subject: payload.sub, acl };
    },
  };
};

/** A signing key and its public JWKS, for tests and the demo tokens. */
export interface TokenIssuer {
  readonly jwks: JSONWebKeySet;
  sign(claims: { sub: string; acl: Acl; expiresIn?: string; issuer?: string; audience?: string }): Promise<string>;
}

export const createTokenIssuer = async (): Promise<TokenIssuer> => {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'regent-demo', alg: 'ES256', use: 'sig' };
  return {
    jwks: { keys: [jwk] },
    async sign({ sub, acl, expiresIn, issuer, audience }) {
      let jwt = new SignJWT({ [ACL_CLAIM]: acl }).setProtectedHeader({ alg: 'ES256', kid: 'regent-demo' }).setSubject(sub).setIssuedAt().setExpirationTime(expiresIn ?? '12h');
      if (issuer) jwt = jwt.setIssuer(issuer);
      if (audience) jwt = jwt.setAudience(audience);
      return jwt.sign(privateKey);
    },
  };
};

/** Every operation on every endpoint, everywhere: the embedded demo's operator. */
export const fullAccess = (): Acl => ({ global: Object.values(ENDPOINTS).map((name) => ({ name, operations: [...OPERATIONS] })) });

export interface DemoTokens {
  /** The demo bearer token (print it once; it is also in `tokenPath`, mode 0600). */
  readonly token: string;
  readonly jwksPath: string;
  readonly tokenPath: string;
}

/**
 * For the embedded default (`npm start`): a fresh signing key (kept only in memory), its public JWKS
 * written to `<dir>/jwks.json`, and a demo token for `subject` with `acl` (default full access) written
 * to `<dir>/demo-token` (0600). Tokens signed by an earlier run stop verifying once the JWKS is rewritten.
 */
export const writeDemoTokens = async (dir: string, options: { subject?: string; acl?: Acl; expiresIn?: string } = {}): Promise<DemoTokens> => {
  mkdirSync(dir, { recursive: true });
  const issuer = await createTokenIssuer();
  const token = await issuer.sign({ sub: options.subject ?? 'demo-operator', acl: options.acl ?? fullAccess(), expiresIn: options.expiresIn ?? '30d' });
  const jwksPath = join(dir, 'jwks.json');
  const tokenPath = join(dir, 'demo-token');
  writeFileSync(jwksPath, `${JSON.stringify(issuer.jwks, null, 2)}\n`);
  writeFileSync(tokenPath, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenPath, 0o600);
  return { token, jwksPath, tokenPath };
};
