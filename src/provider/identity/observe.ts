/**
 * The fresh observation an Identity pass decides on (machines/identity-lifecycle.ts): its project and
 * user by exact name in the managed domain, the managed roles the user lacks on the project, the service
 * roles the region credentials' own user lacks there, the project's quota keys that differ from the
 * Region's, and whether Keystone accepts the application credential stored in the identity's Secret (a
 * token issue: a read), and the identity's Nova keypair by exact name as its own user (I7): absent, present
 * with the key pair the Secret holds, or unusable (the Secret has no private key for it, or another one).
 */
import type { SecretStore } from '../../kube/secrets.js';
import type { KeystoneAdminClient } from '../../openstack/keystone/admin/index.js';
import { issueToken } from '../../openstack/keystone/auth.js';
import type { CloudConfig } from '../../openstack/keystone/clouds-config.js';
import type { HttpSession } from '../../openstack/http.js';
import { NotFound, Unauthorized } from '../../openstack/errors.js';
import type { OpenStackSession } from '../../openstack/session.js';
import type { IdentityObservation, KeypairState, QuotaDriftEntry } from '../../../machines/identity-lifecycle.js';
import { samePublicKey, sshFingerprint, storedKeyPair } from './keypair.js';
import { SECRET_KEYS } from './names.js';

export interface IdentityTarget {
  domainId: string;
  projectName: string;
  userName: string;
  roles: readonly string[];
  /** The region credentials' own user and the roles it must hold on the project (I3s). */
  service?: { userId: string; roles: readonly string[] };
  /** Where the identity's Secret lives. */
  secret: { namespace: string; name: string };
  /** The identity's Nova keypair name (I7); absent: not observed. */
  keypairName?: string;
}

/** The identity's keypair as its user sees it in Nova, against the key pair in its Secret. */
export const observeKeypair = async (nova: Pick<OpenStackSession, 'nova'>['nova'], name: string, data: Readonly<Record<string, string>> | undefined): Promise<KeypairState> => {
  let keypair;
  try {
    keypair = await nova.getKeypair(name);
  } catch (error) {
    if (error instanceof NotFound) return { kind: 'absent', name };
    throw error;
  }
  const stored = storedKeyPair(data);
  if (!stored) return { kind: 'unusable', name, why: 'privateKeyMissing' };
  if (keypair.public_key !== undefined && !samePublicKey(keypair.public_key, stored.publicKey)) return { kind: 'unusable', name, why: 'publicKeyMismatch' };
  return { kind: 'present', name, fingerprint: sshFingerprint(stored.publicKey) };
};

/** The identity's application credential as a cloud config on the Region's endpoint (undefined when none is stored). */
export const identityCloudConfig = (region: CloudConfig, data: Readonly<Record<string, string>> | undefined): CloudConfig | undefined => {
  const id = data?.[SECRET_KEYS.credentialId];
  const secret = data?.[SECRET_KEYS.credentialSecret];
  if (!id || !secret) return undefined;
  return {
    authUrl: region.authUrl,
    auth: { type: 'application-credential', credential: { id }, secret },
    scope: { kind: 'unscoped' },
    ...(region.regionName !== undefined ? { regionName: region.regionName } : {}),
    interface: region.interface,
    ...(region.cacertPath !== undefined ? { cacertPath: region.cacertPath } : {}),
    verify: region.verify,
  };
};

export const observeIdentity = async (
  deps: {
    admin: KeystoneAdminClient;
    identityHttp: HttpSession;
    secrets: SecretStore;
    regionCloud: CloudConfig;
    /** The project's quota keys that differ from what the Region applies (read with the region credentials). */
    quotaDrift?: (projectId: string) => Promise<QuotaDriftEntry[]>;
    /**
     * Nova as the identity's own user on its project (its password from the Secret); undefined when it cannot
     * log in yet. Absent: the keypair is not observed.
     */
    userNova?: (login: { projectId: string; userId: string; password: string }) => Promise<Pick<OpenStackSession, 'nova'> | undefined>;
  },
  target: IdentityTarget,
): Promise<IdentityObservation> => {
  const { admin } = deps;
  const project = await admin.findProject({ domainId: target.domainId, name: target.projectName });
  const user = await admin.findUser({ domainId: target.domainId, name: target.userName });
  // a role Keystone does not have is "missing": the grant step reports it as refused
  const lacking = async (projectId: string, userId: string, roles: readonly string[]) => {
    const missing: string[] = [];
    for (const name of roles) {
      const role = await admin.findRoleByName(name);
      if (!role || !(await admin.hasProjectRole({ projectId, userId, roleId: role.id }))) missing.push(name);
    }
    return missing;
  };
  const missingRoles = project && user ? await lacking(project.id, user.id, target.roles) : [];
  const missingServiceRoles = project && target.service ? await lacking(project.id, target.service.userId, target.service.roles) : [];
  const quotaDrift = project && deps.quotaDrift ? await deps.quotaDrift(project.id) : [];
  const stored = await deps.secrets.get(target.secret.namespace, target.secret.name);
  const cloud = identityCloudConfig(deps.regionCloud, stored?.data);
  let credential: IdentityObservation['credential'] = { kind: 'absent' };
  if (cloud && cloud.auth.type === 'application-credential' && 'id' in cloud.auth.credential) {
    const id = cloud.auth.credential.id;
    try {
      await issueToken(deps.identityHttp, cloud.auth, cloud.scope);
      credential = { kind: 'valid', id };
    } catch (error) {
      // revoked, expired or deleted: Keystone refuses it (401; 404 for a deleted one, mapped to Unauthorized)
      if (!(error instanceof Unauthorized)) throw error;
      credential = { kind: 'refused', id };
    }
  }
  // the keypair, once the user can log in to its project (roles granted): before that it is not observed
  let keypair: KeypairState | undefined;
  const password = stored?.data[SECRET_KEYS.password];
  if (project && user && missingRoles.length === 0 && password && deps.userNova && target.keypairName) {
    const asUser = await deps.userNova({ projectId: project.id, userId: user.id, password });
    if (asUser) keypair = await observeKeypair(asUser.nova, target.keypairName, stored?.data);
  }
  return {
    project: project ? { kind: 'present', id: project.id } : { kind: 'absent' },
    user: user ? { kind: 'present', id: user.id } : { kind: 'absent' },
    missingRoles,
    credential,
    ...(missingServiceRoles.length > 0 ? { missingServiceRoles } : {}),
    ...(quotaDrift.length > 0 ? { quotaDrift } : {}),
    ...(keypair !== undefined ? { keypair } : {}),
  };
};
