/**
 * Application credentials: the per-Identity credential Regent stores (id + secret) and authenticates with.
 *
 * Who may call what (Keystone Zed default policy, measured on the sandbox):
 * - create: the owner only (`identity:create_application_credential` is `user_id:%(user_id)s`). An admin
 *   creating one for another user gets 403, and so does a token that was itself issued from an application
 *   credential. The credential is scoped to the project of the creating token, so call `create` on a session
 *   authenticated AS the user and scoped to the project the credential is for (`connectAsUser`).
 * - list / show: the owner or an admin. An admin listing the credentials of a user that does not exist gets
 *   200 and an empty list, not 404.
 * - delete: the owner or an admin. Keystone looks the credential up by its id and checks the policy against
 *   the credential's owner, IGNORING the user id in the path: an admin's `DELETE /users/B/application_credentials/
 *   <A's credential>` answers 204 and deletes A's credential. `deleteApplicationCredential` therefore reads the
 *   credential first and refuses (NotFound, no request sent) when it belongs to another user than `userId`.
 *
 * After a delete, token issue with the credential's id answers 404 `Could not find Application Credential`
 * (mapped to Unauthorized by keystone/auth.ts); tokens issued from it before the delete stop validating, but
 * services that cache validations (keystonemiddleware, 5 min by default) and Keystone's own cache may accept
 * them for a while.
 *
 * The secret is in the create answer only; it is registered for redaction on the session that received it.
 */
import * as t from 'io-ts';
import { NotFound } from '../../errors.js';
import type { HttpSession } from '../../http.js';
import { contextOf } from '../../http.js';
import { decodeOrThrow, unwrap } from '../../decoders/field.js';
import type { ApplicationCredential, IssuedApplicationCredential } from './decoders.js';
import { decodeApplicationCredential, decodeIssuedApplicationCredential } from './decoders.js';
import { enc, findExact, keystoneList, rememberSecret } from './common.js';

const collection = (userId: string): string => `/users/${enc(userId)}/application_credentials`;

export interface CreateApplicationCredentialRequest {
  /** The user the session is authenticated as (Keystone refuses anyone else). */
  userId: string;
  name: string;
  description?: string;
  /** Role names, each held by the creating token; default: every role of the token. */
  roles?: readonly string[];
  /** ISO 8601 (`2030-01-01T00:00:00`); Keystone refuses one in the past (400). Default: never expires. */
  expiresAt?: string;
  /** Only `false` may be asked for: an unrestricted credential can create further credentials and trusts. */
  unrestricted?: false;
}

// Identity API v3: Create application credential — POST /v3/users/{user_id}/application_credentials
export const createApplicationCredential = async (http: HttpSession, req: CreateApplicationCredentialRequest): Promise<IssuedApplicationCredential> => {
  const body: Record<string, unknown> = { name: req.name };
  if (req.description !== undefined) body.description = req.description;
  if (req.roles !== undefined) body.roles = req.roles.map((name) => ({ name }));
  if (req.expiresAt !== undefined) body.expires_at = req.expiresAt;
  if (req.unrestricted !== undefined) body.unrestricted = req.unrestricted;
  const response = await http.post(collection(req.userId), { application_credential: body });
  const context = contextOf(http, response);
  const issued = decodeIssuedApplicationCredential(unwrap(response.data, 'application_credential', context), context);
  rememberSecret(http, issued.secret);
  return issued;
};

// Identity API v3: List application credentials — GET /v3/users/{user_id}/application_credentials
export const listApplicationCredentials = async (http: HttpSession, userId: string): Promise<ApplicationCredential[]> => {
  const { items, context } = await keystoneList(http, collection(userId), 'application_credentials');
  return items.map((raw) => decodeApplicationCredential(raw, context));
};

export interface ApplicationCredentialRef {
  userId: string;
  name: string;
}

// Identity API v3: List application credentials (name filter, post-filtered to the exact name) — GET /v3/users/{user_id}/application_credentials?name={name}
export const findApplicationCredential = (http: HttpSession, ref: ApplicationCredentialRef): Promise<ApplicationCredential | undefined> =>
  findExact(http, collection(ref.userId), 'application_credentials', { name: ref.name }, 'application credential', decodeApplicationCredential);

const ownerCodec = t.type({ user_id: t.string });

// Identity API v3: Show application credential details, then Delete application credential — DELETE /v3/users/{user_id}/application_credentials/{application_credential_id}
export const deleteApplicationCredential = async (http: HttpSession, ref: { userId: string; id: string }): Promise<void> => {
  const path = `${collection(ref.userId)}/${enc(ref.id)}`;
  const response = await http.get(path);
  const context = contextOf(http, response);
  const owner = decodeOrThrow(ownerCodec, unwrap(response.data, 'application_credential', context), 'application credential', context).user_id;
  if (owner !== ref.userId) {
    // Zed would delete it anyway (the path's user is not checked): refuse rather than remove another user's credential.
    throw new NotFound(`application credential ${ref.id} does not belong to user ${ref.userId}`, { service: http.service, method: 'DELETE', path: context.path ?? path });
  }
  await http.delete(path);
};
