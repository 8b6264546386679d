/**
 * The Region controller's pass (issue 11, "The Region is the cloud"): build the Region's clients from
 * its spec and credentials Secret (src/provider/regions/connections.ts), see that Keystone accepts them
 * and that the managed domain exists, and record the verdict (machines/region-connection.ts). No
 * effect: connecting is a read. The pass comes back every minute, so a Secret changed in place or
 * credentials revoked by the cloud show in status without a spec change.
 */
import type { Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import type { Logger } from '../../log/logger.js';
import { isDeleting } from '../../kube/object.js';
import { describeError } from '../../log/logger.js';
import { validateRegion, type Region } from '../../resources/index.js';
import { NotFound, OpenStackError, RequestFailed, ServerError, Timeout, Unauthorized } from '../../openstack/errors.js';
import { regionConnectionStream } from '../../../machines/region-connection.js';
import { RegionUnusable } from '../../provider/regions/credentials.js';
import type { RegionConnections } from '../../provider/regions/connections.js';
import { done, yieldFor, type Disposition } from '../disposition.js';

export const REGION_FINALIZER = 'regent.dev/region';

/** How often a connected Region is checked again (a Secret changed in place, credentials revoked). */
export const REVERIFY_MS = 60_000;
/** How soon an unusable Region is tried again. */
export const RETRY_UNUSABLE_MS = 15_000;

export interface RegionControllerDeps {
  engine: Engine;
  source: ResourceSource;
  connections: RegionConnections;
  logger: Logger;
}

const actor = 'reconciler/region';

export const reconcileRegion = async (deps: RegionControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = (await deps.source.get('Region', namespace, name)) as Region | undefined;
  if (!object) return done('gone');
  const stream = regionConnectionStream(object.metadata.uid);
  const generation = object.metadata.generation ?? 1;
  // C3: a Region goes only once no Identity names it (its finalizer holds it meanwhile)
  if (isDeleting(object)) {
    const dependents = (await deps.source.list('Identity', namespace)).items
      .filter((i) => (i.spec as { regionRef?: { name?: string } }).regionRef?.name === name)
      .map((i) => `Identity/${i.metadata.name}`);
    await deps.engine.decide(stream, { stimulus: { type: 'deleting', source: 'reconciler', generation, dependents }, actor });
    if (dependents.length > 0) return yieldFor(5_000, `deletion waits for ${dependents.join(', ')}`);
    if ((object.metadata.finalizers ?? []).includes(REGION_FINALIZER)) await deps.source.removeFinalizer('Region', namespace, name, REGION_FINALIZER);
    deps.connections.forget(object.metadata.uid);
    return done('no Identity names it; finalizer removed');
  }
  if (!(object.metadata.finalizers ?? []).includes(REGION_FINALIZER)) await deps.source.addFinalizer('Region', namespace, name, REGION_FINALIZER);
  const validation = validateRegion(object);
  if (!validation.ok) {
    await deps.engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems: validation.errors.map((e) => `${e.path}: ${e.message}`) }, actor });
    return done('spec refused');
  }
  const unusable = async (problem: string, message: string, secretVersion: string | null) => {
    await deps.engine.decide(stream, { stimulus: { type: 'unusable', source: 'reconciler', generation, secretVersion, problem, message }, actor });
    return yieldFor(RETRY_UNUSABLE_MS, `region unusable: ${problem}`);
  };
  let connection;
  try {
    connection = await deps.connections.region(namespace, name);
  } catch (error) {
    if (error instanceof RegionUnusable) return unusable(error.problem, error.message, null);
    if (error instanceof Unauthorized) return unusable('CredentialsInvalid', `Keystone ${object.spec.openstack.endpoint} refused the region credentials (HTTP 401)`, null);
    if (error instanceof Timeout || error instanceof RequestFailed || error instanceof ServerError) {
      deps.logger.warn('region unreachable', { region: `${namespace}/${name}`, ...describeError(error) });
      return unusable('Unreachable', `Keystone ${object.spec.openstack.endpoint} did not answer (${error.reason})`, null);
    }
    if (error instanceof OpenStackError) {
      return error.status === 403
        ? unusable('CredentialsInvalid', `Keystone ${object.spec.openstack.endpoint} refused the region credentials (HTTP 403)`, null)
        : unusable('Unreachable', `connecting to ${object.spec.openstack.endpoint} failed: ${error.reason}${error.status !== undefined ? ` (HTTP ${error.status})` : ''}`, null);
    }
    throw error;
  }
  if (!connection) return done('gone');
  const { session, secretVersion } = connection;
  const domainId = object.spec.openstack.domainID;
  if (domainId !== undefined) {
    try {
      await session.identityAdmin.getDomain(domainId);
    } catch (error) {
      if (error instanceof NotFound) return unusable('DomainMissing', `the managed domain ${domainId} does not exist in Keystone ${object.spec.openstack.endpoint}`, secretVersion);
      if (error instanceof OpenStackError && error.status === 403) return unusable('CredentialsInvalid', `the region credentials may not read the managed domain ${domainId} (HTTP 403): they need admin powers on it`, secretVersion);
      throw error;
    }
  }
  await deps.engine.decide(stream, {
    stimulus: {
      type: 'connected',
      source: 'reconciler',
      generation,
      secretVersion,
      projectId: session.initialToken.project?.id ?? null,
      userId: session.initialToken.user.id,
      ...(domainId !== undefined ? { domainId } : {}),
    },
    actor,
  });
  return yieldFor(REVERIFY_MS, 'connected; checked again in a minute');
};
