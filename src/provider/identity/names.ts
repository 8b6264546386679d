/**
 * Deterministic names of an Identity's Keystone parts: the linkage contract (openstack-provider.md:
 * "identity-scoped resources use fixed generated names"). Re-finding them by exact name is how a
 * retried create adopts what exists instead of duplicating it.
 */

/** The project and the user, in the Region's managed domain. */
export const identityProjectName = (identityUid: string): string => `regent-${identityUid}`;
export const identityUserName = (identityUid: string): string => `regent-${identityUid}`;

/** The n-th application credential of the identity (a rotation takes the next number: names are unique per user). */
export const identityCredentialName = (identityUid: string, sequence: number): string => `regent-${identityUid}-${sequence}`;

/** The Secret holding the identity's user password and application credential, next to the Identity. */
export const identitySecretName = (identityUid: string): string => `regent-identity-${identityUid}`;

/** The managed roles an identity's user holds on its project (Region configuration may override them). */
export const DEFAULT_IDENTITY_ROLES: readonly string[] = ['manager', 'member', 'load-balancer_member'];
/**
 * The roles the region credentials' own user gets on every identity project unless the Region names its
 * `serviceRoles`: enough to bind region credentials to that project (a pinned create still needs Nova's policy
 * to let that role request a destination; under Nova's defaults that is `admin`).
 */
export const DEFAULT_SERVICE_ROLES: readonly string[] = ['manager'];

/** Keys of the identity Secret. */
export const SECRET_KEYS = {
  password: 'password',
  credentialId: 'application_credential_id',
  credentialSecret: 'application_credential_secret',
  /** The identity's SSH key pair (its Nova keypair `regent-<uid>`): openssh-key-v1 private key, OpenSSH public key line. */
  sshPrivateKey: 'ssh_private_key',
  sshPublicKey: 'ssh_public_key',
} as const;
