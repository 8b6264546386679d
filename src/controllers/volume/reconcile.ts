/**
 * The Volume controller's pass (issue 12; openstack-provider.md, "Cinder Volume create/delete is a
 * project-scoped lifecycle slice"): find the Volume's Identity through its Network, look its Cinder
 * volume up by the exact name `volume-<uid>` in that identity's project, ask the Region which
 * VolumeClasses it exports, and let machines/volume-lifecycle.ts decide one step. A finalizer holds the
 * Volume until the machine has seen its Cinder volume gone (or proved none could exist).
 *
 * What the pass hands the machine, and why:
 * - `identity`: realized (with its project) when the Identity's clients can be built; `unrealized` when
 *   the Identity does not exist or never got a project (V11: proof that no volume exists). An Identity
 *   that had a project but cannot be used right now is neither: the pass waits without deciding.
 * - `exportedClasses`: the Region's VolumeClass ids (V4). Invalid Region settings export nothing (fail
 *   closed), so the Volume says its class is not exported; the Region's own status names the field.
 * - `observed`: the fresh exact-name lookup; attachments are named by the Server resources that own the
 *   Nova servers, never by id.
 */
import { contextOf, type Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import { isDeleting } from '../../kube/object.js';
import type { Logger } from '../../log/logger.js';
import { describeError } from '../../log/logger.js';
import { validateVolume, type Identity, type Network, type Volume } from '../../resources/index.js';
import type { CinderClient } from '../../openstack/cinder/index.js';
import { ATTACHMENT_TRANSITION_STATUSES, volumeLifecycleDefinition, volumeLifecycleStream, type VolumeContext, type VolumeStimulus } from '../../../machines/volume-lifecycle.js';
import { identityLifecycleDefinition, identityLifecycleStream } from '../../../machines/identity-lifecycle.js';
import type { Stimulus } from '../../../machines/definition.js';
import { observeVolume } from '../../provider/volumes.js';
import { VolumeClassConfigInvalid, type VolumeClass, type VolumeClassInventory } from '../../provider/inventory/volume-classes.js';
import { done, park, yieldFor, type Disposition } from '../disposition.js';
import { recordDecisionEvents } from '../kube-events.js';

export const VOLUME_FINALIZER = 'regent.dev/volume';
/** Requeue intervals (docs/volume.md). */
export const VOLUME_REQUEUE_MS = {
  /** creating, pending, extending, or an attach/detach in progress: Cinder is working. */
  progress: 2_000,
  /** the write-ahead delete was armed: the next pass reads it back and submits. */
  armed: 500,
  /** waiting for the identity, for a detach, or for a status Cinder deletes in. */
  waiting: 5_000,
  /** an unanswered create: the V6 window has to pass before anything is sent again. */
  outcomeUnknown: 15_000,
  /** available: re-read so size, status and attachments stay current. */
  settled: 60_000,
  /** two volumes named exactly volume-<uid>: looked at again in case an operator removed one. */
  inconsistent: 60_000,
} as const;

/** The Cinder client of the Volume's identity project, or why there is none. */
export type VolumeScope =
  | { kind: 'realized'; projectId: string; cinder: Pick<CinderClient, 'listVolumes'> }
  /** The Identity cannot be used now (its Region unreachable, a credential being rotated). */
  | { kind: 'notReady'; why: string };

export interface VolumeControllerDeps {
  engine: Engine;
  source: ResourceSource;
  /** The Volume's scope through its Network's Identity (src/controllers/scopes.ts). */
  scope: (volume: Volume, identity: Identity) => Promise<VolumeScope>;
  classes: Pick<VolumeClassInventory, 'classes'>;
  /** The Server resource name of a Nova server id, for status and waits ("attached to web-1"). */
  serverName: (novaServerId: string) => string;
  logger: Logger;
  now?: () => Date;
}

const actor = 'reconciler/volume';

/** The VolumeClass's capacity bounds (whole GiB, either optional) against spec.size; undefined when within them. */
export const capacityProblem = (volumeClass: VolumeClass | undefined, size: number): string | undefined => {
  if (!volumeClass) return undefined;
  if (volumeClass.minCapacityGiB !== undefined && size < volumeClass.minCapacityGiB) return `spec.size: ${size} GiB is below the minimum of the VolumeClass ${volumeClass.name} (${volumeClass.minCapacityGiB} GiB)`;
  if (volumeClass.maxCapacityGiB !== undefined && size > volumeClass.maxCapacityGiB) return `spec.size: ${size} GiB is above the maximum of the VolumeClass ${volumeClass.name} (${volumeClass.maxCapacityGiB} GiB)`;
  return undefined;
};

/** V11: the Identity is gone, or it never had a project, so no volume of it can exist. */
const identityNeverRealized = async (engine: Engine, identity: Identity | undefined): Promise<boolean> => {
  if (!identity) return true;
  const loaded = await engine.load(identityLifecycleDefinition, identityLifecycleStream(identity.metadata.uid));
  return loaded.revision === undefined || loaded.context.projectId === null;
};

export const reconcileVolume = async (deps: VolumeControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = (await deps.source.get('Volume', namespace, name)) as Volume | undefined;
  if (!object) return done('gone');
  const uid = object.metadata.uid;
  const stream = volumeLifecycleStream(uid);
  const generation = object.metadata.generation ?? 1;
  const deleting = isDeleting(object);
  const validation = validateVolume(object);
  if (!validation.ok && !deleting) {
    await deps.engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems: validation.errors.map((e) => `${e.path}: ${e.message}`) }, actor });
    return done('spec refused');
  }
  const hasFinalizer = (object.metadata.finalizers ?? []).includes(VOLUME_FINALIZER);
  if (!deleting && !hasFinalizer) await deps.source.addFinalizer('Volume', namespace, name, VOLUME_FINALIZER);

  const network = (await deps.source.get('Network', namespace, object.spec.networkID)) as Network | undefined;
  const identityName = network?.spec.identityRef?.name;
  const identity = identityName ? ((await deps.source.get('Identity', namespace, identityName)) as Identity | undefined) : undefined;
  const recorded = await deps.engine.load(volumeLifecycleDefinition, stream);
  const context = recorded.context;
  if (!network && !(deleting && context.volumeId === null && context.create === null)) {
    // without the Network there is no telling which project the volume is in
    return yieldFor(VOLUME_REQUEUE_MS.waiting, `waiting for Network ${object.spec.networkID}`);
  }

  let scope: VolumeScope | { kind: 'unrealized' };
  if (!network || (await identityNeverRealized(deps.engine, identity))) scope = { kind: 'unrealized' };
  else scope = await deps.scope(object, identity as Identity);
  if (scope.kind === 'notReady') return yieldFor(VOLUME_REQUEUE_MS.waiting, `waiting: ${scope.why}`);

  let exportedClasses: string[] = [];
  if (!deleting && identity) {
    try {
      const classes = (await deps.classes.classes(namespace, identity.spec.regionRef.name))?.classes ?? [];
      exportedClasses = classes.map((c) => c.id);
      // the class's operator-authored capacity bounds: a size outside them is refused before any Cinder call
      const outside = capacityProblem(classes.find((c) => c.id === object.spec.volumeClassID), object.spec.size);
      if (outside) {
        await deps.engine.decide(stream, { stimulus: { type: 'specRejected', source: 'reconciler', generation, problems: [outside] }, actor });
        return done(`spec refused: ${outside}`);
      }
    } catch (error) {
      // invalid Region settings export nothing (fail closed); anything else is the Region being unusable now
      if (!(error instanceof VolumeClassConfigInvalid)) return yieldFor(VOLUME_REQUEUE_MS.waiting, `waiting for Region ${identity.spec.regionRef.name}: ${error instanceof Error ? error.message : String(error)}`);
      deps.logger.warn('the Region exports no VolumeClasses: its block-storage settings are invalid', { volume: `${namespace}/${name}`, ...describeError(error) });
    }
  }

  const observed = scope.kind === 'realized' ? await observeVolume(scope.cinder, uid, deps.serverName) : undefined;
  const stimulus: VolumeStimulus = {
    type: 'reconcile',
    source: 'reconciler',
    generation,
    deletionRequested: deleting,
    at: (deps.now ?? (() => new Date()))().toISOString(),
    identity: scope.kind === 'realized' ? { kind: 'realized', projectId: scope.projectId } : { kind: 'unrealized' },
    desired: {
      size: object.spec.size,
      volumeClassID: object.spec.volumeClassID,
      linkage: {
        identityID: identity?.metadata.uid ?? '',
        organizationID: identity?.spec.organizationID ?? '',
        projectID: identity?.spec.projectID ?? '',
        regionID: identity?.spec.regionRef.name ?? '',
        networkID: network?.metadata.uid ?? '',
      },
      ...(object.spec.tags ? { tags: object.spec.tags } : {}),
    },
    exportedClasses,
    ...(observed ? { observed } : {}),
  };
  const decisions = await deps.engine.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor });
  await recordDecisionEvents(deps.source, object, decisions, deps.logger);
  const last = decisions[decisions.length - 1];
  return dispositionOf(last?.snapshot.value, last?.outcome, last ? contextOf(volumeLifecycleDefinition, last.snapshot) : undefined, {
    release: async () => {
      if ((object.metadata.finalizers ?? []).includes(VOLUME_FINALIZER)) await deps.source.removeFinalizer('Volume', namespace, name, VOLUME_FINALIZER);
    },
  });
};

/** The pass's disposition from where the machine stands (the requeue table of docs/volume.md). */
const dispositionOf = async (value: unknown, outcome: string | undefined, context: VolumeContext | undefined, io: { release: () => Promise<void> }): Promise<Disposition> => {
  const state = typeof value === 'string' ? value : `deleting.${String((value as { deleting?: string } | undefined)?.deleting ?? '?')}`;
  switch (state) {
    case 'deleted':
      await io.release();
      return done('deleted; finalizer removed');
    case 'available':
      // an attach or detach in progress: look again soon, so InUse (and a deletion waiting for it) follows
      if (ATTACHMENT_TRANSITION_STATUSES.includes(context?.observed?.status ?? '')) return yieldFor(VOLUME_REQUEUE_MS.progress, `available; Cinder says ${context?.observed?.status}`);
      return yieldFor(VOLUME_REQUEUE_MS.settled, 'available');
    case 'errored':
      return park('Errored', 'the Cinder volume entered an error state');
    case 'failed':
      return park('CreateFailed', context?.failure?.kind === 'rejected' ? `Cinder refused the create (HTTP ${context.failure.status})` : 'the create never landed');
    case 'inconsistent':
      return yieldFor(VOLUME_REQUEUE_MS.inconsistent, 'two Cinder volumes carry this volume\'s name');
    case 'deleting.armed':
      return yieldFor(VOLUME_REQUEUE_MS.armed, 'deletion armed; the next pass reads it back');
    case 'deleting.submitted':
      return yieldFor(VOLUME_REQUEUE_MS.progress, 'delete accepted; waiting for Cinder to confirm absence');
    case 'deleting.waiting':
      return yieldFor(VOLUME_REQUEUE_MS.waiting, context?.waiting?.reason === 'Attached' ? `waiting for ${context.waiting.servers.join(', ')} to detach the volume` : 'waiting before deleting');
    default:
      if (context?.invalidSpec) return done(`not created: ${context.invalidSpec.message}`);
      if (outcome === 'createOutcomeUnknown' || context?.waiting?.reason === 'CreateMayStillLand') return yieldFor(VOLUME_REQUEUE_MS.outcomeUnknown, 'an unanswered create may still land');
      if (context?.waiting?.reason === 'IdentityNotRealized') return yieldFor(VOLUME_REQUEUE_MS.waiting, 'waiting for the identity to be realized');
      return yieldFor(VOLUME_REQUEUE_MS.progress, `${outcome ?? state}: Cinder is working`);
  }
};
