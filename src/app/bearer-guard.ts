/**
 * The guard of an exposed audit listener (issue 18, "No open door"): every request carries a bearer JWT
 * that verifies against the configured JWKS (src/api/auth.ts, the server API's own check) and whose
 * `regent.dev/acl` claim grants `read` on `region:audit` globally — the event history of every resource of
 * the region is behind it. A request without one is answered 401 (`WWW-Authenticate: Bearer`), one whose
 * token does not grant the audit 403; either way the body names only what is missing, never a stream,
 * resource or page. Tokens are never logged.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { allowed, type Authenticator } from '../api/auth.js';
import type { Guard } from './http-server.js';

/** The ACL endpoint a token must grant (`read`, globally) to see the audit pages. */
export const AUDIT_ENDPOINT = 'region:audit';

const refuse = (res: ServerResponse, status: 401 | 403, error: string, description: string): true => {
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    ...(status === 401 ? { 'www-authenticate': `Bearer realm="regent-audit", error="${error}"` } : {}),
  });
  res.end(`${JSON.stringify({ error, error_description: description })}\n`);
  return true;
};

export const bearerGuard = (authenticator: Authenticator): Guard => async (req: IncomingMessage, res: ServerResponse) => {
  let principal;
  try {
    principal = await authenticator.authenticate(req.headers.authorization);
  } catch (error) {
    return refuse(res, 401, 'invalid_token', error instanceof Error ? error.message : 'a bearer token is required');
  }
  if (!allowed(principal, AUDIT_ENDPOINT, 'read', '', '')) return refuse(res, 403, 'insufficient_scope', `the token does not grant read on ${AUDIT_ENDPOINT}`);
  return false;
};
