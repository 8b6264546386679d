/**
 * The Identity controller's pass (issue 11, "Identity scoping"): resolve the Region's clients, observe
 * the identity's Keystone parts by exact name in the managed domain (or stand on the region's own
 * project when the Region has none), list what still depends on it, and let the machine decide one
 * step (machines/identity-lifecycle.ts). A finalizer holds the Identity until the machine has seen
 * everything it created gone.
 */
import { contextOf, type Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import { isDeleting } from '../../kube/object.js';
import type { Logger } from '../../log/logger.js';
import { validateIdentity, type Identity, type Region } from '../../resources/index.js';
import { OpenStackError, RequestFailed, ServerError, Timeout, Unauthorized } from '../../openstack/errors.js';
import { identityLifecycleDefinition, identityLifecycleStream, type IdentityObservation } from '../../../machines/identity-lifecycle.js';
import { RegionUnusable } from '../../provider/regions/credentials.js';
import type { RegionConnections } from '../../provider/regions/connections.js';
import { DEFAULT_IDENTITY_ROLES, DEFAULT_SERVICE_ROLES, identityProjectName, identitySecretName, identityUserName } from '../../provider/identity/names.js';
import { desiredQuotas, quotaDrift, readQuotas } from '../../provider/identity/quotas.js';
import { observeIdentity } from '../../provider/identity/observe.js';
import { identityKeypairName } from '../../provider/identity/keypair.js';
import { connectAsUser as connectAsUserDefault, type OpenStackSession } from '../../openstack/session.js';
import type { CloudConfig } from '../../openstack/keystone/clouds-config.js';
import type { UserLogin } from '../../openstack/keystone/admin/index.js';
import { done, park, yieldFor, type Disposition } from '../disposition.js';
import { identityDependents } from './dependents.js';

export const IDENTITY_FINALIZER = 'regent.dev/identity';
/** A realized identity is looked at again this often: a credential Keystone revoked is rotated without a spec change. */
export const IDENTITY_RECHECK_MS = 5 * 60_000;

export interface IdentityControllerDeps {
  engine: Engine;
  source: ResourceSource;
  connections: RegionConnections;
  logger: Logger;
  now?: () => Date;
  /**
   * Connects as the identity's own user (its keypair is observed as that user, I7); default: connectAsUser
   * with this logger (the control plane may pass its cancel scope too).
   */
  connectAsUser?: (cloud: CloudConfig, login: UserLogin) => Promise<OpenStackSession>;
}

const actor = 'reconciler/identity';

export const reconcileIdentity = async (deps: IdentityControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = (await deps.source.get('Identity', namespace, name)) as Identity | undefined;
  if (!object) return done('gone');
  const uid = object.metadata.uid;
  const stream = identityLifecycleStream(uid);
  const generation = object.metadata.generation ?? 1;
  const deleting = isDeleting(object);
  const validation = validateIdentity(object);
  if (!validation.ok && !deleting) {
    await deps.engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems: validation.errors.map((e) => `${e.path}: ${e.message}`) }, actor });
    return done('spec refused');
  }
  if (!deleting && !(object.metadata.finalizers ?? []).includes(IDENTITY_FINALIZER)) await deps.source.addFinalizer('Identity', namespace, name, IDENTITY_FINALIZER);

  const regionName = object.spec.regionRef.name;
  const regionUnavailable = async (reason: string, message: string): Promise<Disposition> => {
    const decision = await deps.engine.decide(stream, { stimulus: { type: 'regionUnavailable', source: 'reconciler', generation, reason, message }, actor });
    const context = contextOf(identityLifecycleDefinition, decision.snapshot);
    // Deleting an identity that never got anything of its own needs no Region: release it.
    if (deleting && context.projectId === null && context.userId === null && context.credential === null) {
      await deps.source.removeFinalizer('Identity', namespace, name, IDENTITY_FINALIZER);
      return done('never realized; released');
    }
    return yieldFor(15_000, `region ${regionName} unavailable: ${reason}`);
  };
  let connection;
  try {
    connection = await deps.connections.region(namespace, regionName);
  } catch (error) {
    if (error instanceof RegionUnusable) return regionUnavailable(error.problem === 'Unreachable' || error.problem === 'DomainMissing' ? 'RegionErrored' : 'CredentialsInvalid', `Region ${regionName}: ${error.message}`);
    if (error instanceof Unauthorized) return regionUnavailable('CredentialsInvalid', `Region ${regionName}: Keystone refused the region credentials`);
    if (error instanceof Timeout || error instanceof RequestFailed || error instanceof ServerError) return regionUnavailable('RegionErrored', `Region ${regionName}: Keystone did not answer (${error.reason})`);
    throw error;
  }
  if (!connection) return regionUnavailable('RegionNotFound', `the Region ${regionName} does not exist`);
  const region: Region = connection.region;
  const domainId = region.spec.openstack.domainID;
  const secret = { namespace: deps.connections.secretNamespaceFor(namespace), name: identitySecretName(uid) };
  // the Region may override the managed roles (spec.openstack.managedRoles)
  const roles = region.spec.openstack.managedRoles ?? DEFAULT_IDENTITY_ROLES;
  // the region credentials' own user gets its service roles on the project (spec.openstack.serviceRoles)
  const serviceUserId = connection.session.initialToken.user.id;
  const service = { userId: serviceUserId, roles: [...(region.spec.openstack.serviceRoles ?? DEFAULT_SERVICE_ROLES)] };
  // and the project gets the Region's quotas (Regent's defaults, overridden key by key: spec.openstack.quotas)
  const quotas = desiredQuotas(region.spec.openstack.quotas);
  const session = connection.session;
  const asUser = deps.connectAsUser ?? ((cloud: CloudConfig, login: UserLogin) => connectAsUserDefault(cloud, login, { logger: deps.logger }));
  const userNova = async (login: { projectId: string; userId: string; password: string }) => {
    try {
      return await asUser(connection.cloud, login);
    } catch (error) {
      // the user cannot log in (yet): the keypair is not observed on this pass
      if (error instanceof Unauthorized) return undefined;
      throw error;
    }
  };
  const drift = async (projectId: string) => quotaDrift(quotas, await readQuotas(session, projectId, quotas)).map((d) => ({ service: d.service, key: d.key, want: d.want, ...(d.have !== undefined ? { have: d.have } : {}) }));
  let observed: IdentityObservation;
  try {
    observed = domainId
      ? await observeIdentity(
          { admin: connection.session.identityAdmin, identityHttp: connection.session.http('identity'), secrets: deps.source.secrets, regionCloud: connection.cloud, quotaDrift: drift, userNova },
          { domainId, projectName: identityProjectName(uid), userName: identityUserName(uid), roles, service, secret, keypairName: identityKeypairName(uid) },
        )
      : {
          // an unmanaged region: the identity stands on the region credentials' own project
          project: connection.session.projectId ? { kind: 'present', id: connection.session.projectId } : { kind: 'absent' },
          user: { kind: 'absent' },
          missingRoles: [],
          credential: { kind: 'absent' },
        };
  } catch (error) {
    if (error instanceof OpenStackError && error.status === 403) return regionUnavailable('CredentialsInvalid', `Region ${regionName}: the region credentials may not manage the domain ${domainId} (HTTP 403)`);
    throw error;
  }
  const dependents = deleting ? await identityDependents(deps.source, namespace, name) : [];
  const decisions = await deps.engine.dispatch(stream, {
    stimulus: {
      type: 'reconcile',
      source: 'reconciler',
      generation,
      deletionRequested: deleting,
      mode: domainId ? 'managed' : 'unmanaged',
      observed,
      dependents,
      at: (deps.now ?? (() => new Date()))().toISOString(),
      ...(domainId
        ? { desired: { domainId, projectName: identityProjectName(uid), userName: identityUserName(uid), roles: [...roles], region: `${namespace}/${regionName}`, secret: `${secret.namespace}/${secret.name}` }, service }
        : {}),
    },
    actor,
  });
  const last = decisions[decisions.length - 1];
  const state = last?.snapshot.value;
  const context = last ? contextOf(identityLifecycleDefinition, last.snapshot) : undefined;
  if (state === 'deleted') {
    if ((object.metadata.finalizers ?? []).includes(IDENTITY_FINALIZER)) await deps.source.removeFinalizer('Identity', namespace, name, IDENTITY_FINALIZER);
    return done('deleted; finalizer removed');
  }
  if (state === 'failed') return park('IdentityRefused', context?.refusal?.message ?? 'Keystone refused a step');
  if (state === 'realized') return yieldFor(IDENTITY_RECHECK_MS, 'realized');
  const outcome = last?.outcome;
  if (outcome === 'waitingForDependents') return yieldFor(5_000, `waiting for ${context?.dependents.join(', ')}`);
  if (outcome === 'deleteArmed') return yieldFor(500, 'deletion armed; the next pass reads it back');
  return yieldFor(1_000, `${outcome ?? 'step'}: the next pass observes the result`);
};
