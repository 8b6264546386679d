/**
 * What every Keystone administration call shares: reading a Keystone list whole (or refusing it), an exact-name
 * find, and keeping the secrets a call carries out of every error.
 *
 * Keystone lists are not paged: the answer is the whole collection unless the deployment sets `list_limit`,
 * in which case Keystone cuts it and adds `"truncated": true`. A truncated list read as whole would make a
 * find report "absent" for a project that exists (and the caller create a second one), so it is an
 * UnreadableResponse, as is a `links.next` (Zed never sends one; following it blindly is how a list loops).
 *
 * Secrets: the HTTP layer redacts fault texts against the token source's secrets and its own `secrets` hook.
 * A password sent in `createUser` or a secret received from `createApplicationCredential` is neither, and
 * Keystone's schema errors quote the offending value verbatim (`On instance['password']: …`). So each call that
 * carries a secret registers it on the session (`rememberSecret`, read by the session's `secrets` hook that
 * `os.identityAdmin` installs) and wraps itself in `withSecrets`, which re-redacts the error it throws: that
 * also covers a caller who bound the functions to a session built elsewhere.
 */
import type { RequestContext } from '../../errors.js';
import { OpenStackError, UnreadableResponse, errorForStatus, redact } from '../../errors.js';
import type { HttpSession, Query } from '../../http.js';
import { contextOf } from '../../http.js';
import { atMostOne } from '../../names.js';
import { isRecord, unwrapList } from '../../decoders/field.js';

export const enc = encodeURIComponent;

/** GET a Keystone collection and return its raw items with the answer's context. */
export const keystoneList = async (http: HttpSession, path: string, key: string, query: Query = {}): Promise<{ items: unknown[]; context: RequestContext }> => {
  const response = await http.get(path, query);
  const context = contextOf(http, response);
  const items = unwrapList(response.data, key, context);
  const body = response.data as Record<string, unknown>;
  if (body.truncated === true) {
    throw new UnreadableResponse(`Keystone truncated the '${key}' list (list_limit)`, ['truncated'], context);
  }
  const links = body.links;
  if (isRecord(links) && typeof links.next === 'string' && links.next !== '') {
    throw new UnreadableResponse(`Keystone paged the '${key}' list`, ['links.next'], context);
  }
  return { items, context };
};

/**
 * List with Keystone's `name` filter, then keep only exact (code-unit) matches: the filter compares with the
 * database's collation, which on MySQL/MariaDB folds case and ignores trailing spaces (measured on Zed:
 * `name=ABC` finds `abc`). Two exact matches are a ConsistencyError.
 */
export const findExact = async <T extends { id: string; name: string }>(
  http: HttpSession, path: string, key: string, query: Query & { name: string }, kind: string,
  decode: (raw: unknown, context: RequestContext) => T, keep: (item: T) => boolean = () => true,
): Promise<T | undefined> => {
  const { items, context } = await keystoneList(http, path, key, query);
  const decoded = items.map((raw) => decode(raw, context)).filter(keep);
  return atMostOne(decoded, query.name, kind, { service: http.service, method: 'GET', path: context.path ?? path });
};

const MAX_REMEMBERED = 64;
const remembered = new WeakMap<HttpSession, string[]>();

/** Register a secret this session sent or received, for the session's redaction (bounded, oldest dropped). */
export const rememberSecret = (http: HttpSession, secret: string): void => {
  const list = remembered.get(http) ?? [];
  if (!list.includes(secret)) list.push(secret);
  if (list.length > MAX_REMEMBERED) list.shift();
  remembered.set(http, list);
};

/** The secrets registered on a session: the `secrets` hook of the session behind `os.identityAdmin`. */
export const rememberedSecrets = (http: HttpSession): readonly string[] => remembered.get(http) ?? [];

/** A status error whose fault text quoted a secret, rebuilt with the text redacted (same class, same context). */
const scrub = (error: unknown, secrets: readonly string[]): unknown => {
  if (!(error instanceof OpenStackError) || error.status === undefined || error.fault === undefined) return error;
  const fault = redact(error.fault, secrets);
  if (fault === error.fault && !secrets.some((s) => s.length >= 4 && error.message.includes(s))) return error;
  return errorForStatus(error.status, {
    ...(error.service !== undefined ? { service: error.service } : {}),
    ...(error.method !== undefined ? { method: error.method } : {}),
    ...(error.path !== undefined ? { path: error.path } : {}),
    ...(error.requestId !== undefined ? { requestId: error.requestId } : {}),
    fault,
  });
};

/** Run a call that carries `secrets`, registered on the session and redacted from whatever it throws. */
export const withSecrets = async <T>(http: HttpSession, secrets: readonly string[], call: () => Promise<T>): Promise<T> => {
  for (const secret of secrets) rememberSecret(http, secret);
  try {
    return await call();
  } catch (error) {
    throw scrub(error, secrets);
  }
};
