/**
 * The Keystone steps of an Identity (machines/identity-lifecycle.ts STEP_EFFECT), executed only after
 * the deciding event is durable. Each returns `stepDone` (with the new id) or `stepRefused` (the cloud's
 * user-safe message); an answer that never came is thrown, and the next pass observes by exact name.
 *
 * Secrets: the user's password is generated here and written to the identity's Secret BEFORE the user
 * is created (so a user Regent created always has a password Regent knows); the application
 * credential's secret goes from Keystone's answer straight into that Secret. Events get the credential
 * id, the Secret's name and a digest of the secret — never the secret.
 *
 * The keypair (I7): the ed25519 key pair is generated here and written to the Secret BEFORE the public key
 * is imported into Nova (as the identity's own user, so the keypair belongs to the user that creates the
 * identity's servers). A concurrent import of that name (409) leaves Nova with another key: the next pass
 * observes the mismatch and replaces it. Events get the keypair's name and fingerprint.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EffectHandler } from '../../engine/engine.js';
import type { SecretStore } from '../../kube/secrets.js';
import type { CloudConfig } from '../../openstack/keystone/clouds-config.js';
import type { OpenStackSession } from '../../openstack/session.js';
import type { UserLogin } from '../../openstack/keystone/admin/index.js';
import { Conflict, NotFound, OpenStackError } from '../../openstack/errors.js';
import { isRefusal } from '../effect-results.js';
import type { RegionConnections } from '../regions/connections.js';
import { STEP_EFFECT, type IdentityStep } from '../../../machines/identity-lifecycle.js';
import { identityCredentialName, SECRET_KEYS } from './names.js';
import { applyQuotas, type QuotaService } from './quotas.js';
import { generateSshKeyPair } from './keypair.js';

export interface IdentityHandlerDeps {
  connections: RegionConnections;
  secrets: SecretStore;
  /** Connects as the identity's user (src/openstack/session.ts connectAsUser with the control plane's options). */
  connectAsUser: (cloud: CloudConfig, login: UserLogin) => Promise<OpenStackSession>;
}

const split = (ref: unknown): { namespace: string; name: string } => {
  const text = String(ref ?? '');
  const slash = text.indexOf('/');
  if (slash <= 0) throw new Error(`an identity step without a namespace/name reference (${text || 'none'})`);
  return { namespace: text.slice(0, slash), name: text.slice(slash + 1) };
};

const text = (value: unknown, what: string): string => {
  if (typeof value !== 'string' || value === '') throw new Error(`an identity step without ${what}`);
  return value;
};

/** A digest that names a secret without revealing it (sha256 of the secret, first 16 hex digits). */
export const secretDigest = (secret: string): string => `sha256:${createHash('sha256').update(secret).digest('hex').slice(0, 16)}`;

const refused = (step: IdentityStep, error: OpenStackError) => ({
  type: 'stepRefused',
  step,
  status: error.status ?? 0,
  reason: error.reason,
  message: error.fault ?? error.reason,
});

export const identityHandlers = (deps: IdentityHandlerDeps): Record<string, EffectHandler> => {
  const adminOf = async (effect: Record<string, unknown>) => {
    const { namespace, name } = split(effect.region);
    const connection = await deps.connections.region(namespace, name);
    if (!connection) throw new Error(`the Region ${namespace}/${name} is gone`);
    return connection;
  };
  const secretOf = (effect: Record<string, unknown>) => split(effect.secret);
  const mergeSecret = async (effect: Record<string, unknown>, changes: Record<string, string | undefined>, ownerUid?: string) => {
    const { namespace, name } = secretOf(effect);
    const current = await deps.secrets.get(namespace, name);
    const data: Record<string, string> = { ...current?.data };
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined) delete data[key];
      else data[key] = value;
    }
    if (Object.keys(data).length === 0) await deps.secrets.delete(namespace, name);
    else await deps.secrets.put(namespace, name, data, ownerUid ? { ownerUid } : {});
  };
  const guarded = (step: IdentityStep, run: (effect: Record<string, unknown>) => Promise<Record<string, unknown>>): EffectHandler => async (effect) => {
    try {
      const done = await run(effect);
      if (done.refusal) return { type: 'stepRefused', step, ...(done.refusal as Record<string, unknown>) };
      return { type: 'stepDone', step, ...done };
    } catch (error) {
      if (error instanceof OpenStackError && isRefusal(error) && !(error instanceof Conflict)) return refused(step, error);
      // a 409 on a create is a concurrent create of the same name: the next pass adopts it by exact name
      if (error instanceof Conflict) return undefined;
      throw error;
    }
  };
  const gone = async (call: () => Promise<unknown>) => {
    try {
      await call();
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
    }
  };

  /** A session as the identity's own user, scoped to its project (its password from the Secret). */
  const asIdentityUser = async (effect: Record<string, unknown>) => {
    const { cloud } = await adminOf(effect);
    const { namespace, name } = secretOf(effect);
    const password = (await deps.secrets.get(namespace, name))?.data[SECRET_KEYS.password];
    if (!password) throw new Error(`the identity Secret ${namespace}/${name} holds no password for its user`);
    return deps.connectAsUser(cloud, { userId: text(effect.userId, 'a user'), password, projectId: text(effect.projectId, 'a project') });
  };

  const grantRoles = async (effect: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const { session } = await adminOf(effect);
    const projectId = text(effect.projectId, 'a project');
    const userId = text(effect.userId, 'a user');
    for (const name of (effect.roles as string[] | undefined) ?? []) {
      const role = await session.identityAdmin.findRoleByName(name);
      // Region configuration names a role this Keystone does not have: retrying will not help
      if (!role) return { refusal: { status: 400, reason: 'bad-request', message: `Keystone has no role named ${name}` } };
      await session.identityAdmin.grantProjectRole({ projectId, userId, roleId: role.id });
    }
    return {};
  };

  return {
    [STEP_EFFECT.project]: guarded('project', async (effect) => {
      const { session } = await adminOf(effect);
      const project = await session.identityAdmin.createProject({ domainId: text(effect.domainId, 'a domain'), name: text(effect.name, 'a project name'), description: 'Regent identity project', tags: ['regent'] });
      return { id: project.id };
    }),
    [STEP_EFFECT.user]: guarded('user', async (effect) => {
      const { session } = await adminOf(effect);
      // the password is durable before the user exists: Regent can always authenticate as its own user
      const password = randomBytes(24).toString('base64url');
      await mergeSecret(effect, { [SECRET_KEYS.password]: password });
      const user = await session.identityAdmin.createUser({
        domainId: text(effect.domainId, 'a domain'),
        name: text(effect.name, 'a user name'),
        password,
        ...(typeof effect.projectId === 'string' ? { defaultProjectId: effect.projectId } : {}),
        description: 'Regent identity user',
      });
      return { id: user.id };
    }),
    [STEP_EFFECT.roles]: guarded('roles', (effect) => grantRoles(effect)),
    // I3s: the same grants, to the region credentials' own user
    [STEP_EFFECT.serviceRoles]: guarded('serviceRoles', (effect) => grantRoles(effect)),
    // I6: only the drifted keys, with the region credentials (the quota APIs are admin-only by default)
    [STEP_EFFECT.quotas]: guarded('quotas', async (effect) => {
      const { session } = await adminOf(effect);
      const projectId = text(effect.projectId, 'a project');
      const drift = ((effect.drift as Array<{ service: QuotaService; key: string; want: number }> | undefined) ?? []).map((d) => ({ ...d, have: undefined }));
      await applyQuotas(session, projectId, drift);
      return {};
    }),
    [STEP_EFFECT.credential]: guarded('credential', async (effect) => {
      const { cloud, session } = await adminOf(effect);
      const userId = text(effect.userId, 'a user');
      const projectId = text(effect.projectId, 'a project');
      const { namespace, name } = secretOf(effect);
      const password = (await deps.secrets.get(namespace, name))?.data[SECRET_KEYS.password];
      if (!password) throw new Error(`the identity Secret ${namespace}/${name} holds no password for its user`);
      const asUser = await deps.connectAsUser(cloud, { userId, password, projectId });
      const sequence = typeof effect.sequence === 'number' ? effect.sequence : 1;
      const credentialName = identityCredentialName(name.replace(/^regent-identity-/, ''), sequence);
      // a credential of this name left by an answer that never came: it is ours, replace it
      const stale = await session.identityAdmin.findApplicationCredential({ userId, name: credentialName });
      if (stale) await gone(() => session.identityAdmin.deleteApplicationCredential({ userId, id: stale.id }));
      const issued = await asUser.identityAdmin.createApplicationCredential({ userId, name: credentialName, description: 'Regent identity credential' });
      await mergeSecret(effect, { [SECRET_KEYS.credentialId]: issued.id, [SECRET_KEYS.credentialSecret]: issued.secret });
      // rotation: the refused credential goes once the new one is stored
      if (typeof effect.replaces === 'string' && effect.replaces !== issued.id) {
        const old = effect.replaces;
        await gone(() => session.identityAdmin.deleteApplicationCredential({ userId, id: old }));
      }
      return { id: issued.id, secretRef: `${namespace}/${name}`, digest: secretDigest(issued.secret) };
    }),
    [STEP_EFFECT.keypair]: guarded('keypair', async (effect) => {
      const keypairName = text(effect.name, 'a keypair name');
      const asUser = await asIdentityUser(effect);
      // an unusable keypair of this name (the Secret lost its private key, or holds another): ours, replaced
      if (effect.replace === true) await gone(() => asUser.nova.deleteKeypair(keypairName));
      const pair = generateSshKeyPair(keypairName);
      // the private key is durable before Nova has the public one: a keypair Regent imported always has its private half
      await mergeSecret(effect, { [SECRET_KEYS.sshPrivateKey]: pair.privateKey, [SECRET_KEYS.sshPublicKey]: pair.publicKey });
      await asUser.nova.importKeypair(keypairName, pair.publicKey, 'ssh');
      return { id: keypairName, fingerprint: pair.fingerprint };
    }),
    [STEP_EFFECT.deleteKeypair]: guarded('deleteKeypair', async (effect) => {
      const keypairName = text(effect.name, 'a keypair name');
      const asUser = await asIdentityUser(effect);
      await gone(() => asUser.nova.deleteKeypair(keypairName));
      await mergeSecret(effect, { [SECRET_KEYS.sshPrivateKey]: undefined, [SECRET_KEYS.sshPublicKey]: undefined });
      return {};
    }),
    [STEP_EFFECT.deleteCredential]: guarded('deleteCredential', async (effect) => {
      const { session } = await adminOf(effect);
      if (typeof effect.userId === 'string' && typeof effect.credentialId === 'string') {
        const userId = effect.userId;
        const id = effect.credentialId;
        await gone(() => session.identityAdmin.deleteApplicationCredential({ userId, id }));
      }
      await mergeSecret(effect, { [SECRET_KEYS.credentialId]: undefined, [SECRET_KEYS.credentialSecret]: undefined });
      return {};
    }),
    [STEP_EFFECT.deleteUser]: guarded('deleteUser', async (effect) => {
      const { session } = await adminOf(effect);
      const userId = text(effect.userId, 'a user');
      await gone(() => session.identityAdmin.deleteUser(userId));
      await mergeSecret(effect, { [SECRET_KEYS.password]: undefined });
      return {};
    }),
    [STEP_EFFECT.deleteProject]: guarded('deleteProject', async (effect) => {
      const { session } = await adminOf(effect);
      const projectId = text(effect.projectId, 'a project');
      await gone(() => session.identityAdmin.deleteProject(projectId));
      const { namespace, name } = secretOf(effect);
      await deps.secrets.delete(namespace, name);
      return {};
    }),
  };
};
