/**
 * Volume provider (issue 12): the Cinder side of machines/volume-lifecycle.ts. A Volume's Cinder volume is
 * named exactly `volume-<uid>` in its Identity's project (V1) and re-found by that name on every pass:
 * Cinder's `name=` filter can be fuzzy, so the answer is post-filtered to the exact name, and two exact
 * matches are reported as `duplicate` for the machine to park on (V3), never resolved here.
 *
 * The effect handlers run only after the deciding event is appended (the engine's rule) and answer with
 * the machine's result stimuli:
 * - a refusal (400/403/404/409/413) is `*Rejected` with the status and Regent's closed reason only: Cinder's
 *   own text (ids, hosts, scheduler messages) goes to the operator log, never into events (V8);
 * - an answer that never came (timeout, reset, 5xx) on a create is `createOutcomeUnknown`: the machine
 *   waits for evidence rather than sending it again (V6); on an extend or a delete it is thrown, so the
 *   next pass observes before anything is decided again.
 * - the create looks the name up first and adopts what it finds (V2), so a retried create that Cinder had
 *   already taken is not duplicated.
 */
import type { EffectHandler } from '../engine/engine.js';
import type { CinderClient } from '../openstack/cinder/index.js';
import type { VolumeObservation } from '../openstack/decoders/volume.js';
import { NotFound, RequestFailed, ServerError, Timeout, type OpenStackError } from '../openstack/errors.js';
import { volumeCloudName, type VolumeLookup } from '../../machines/volume-lifecycle.js';
import { isRefusal } from './effect-results.js';

type Cinder = Pick<CinderClient, 'listVolumes' | 'createVolume' | 'extendVolume' | 'deleteVolume'>;

/** Cinder's status as it answered it (an unknown one verbatim: the machine yields on it, V7). */
const statusOf = (volume: VolumeObservation): string => {
  if (volume.status.kind === 'value') return volume.status.value;
  if (volume.status.kind === 'unreadable') return String(volume.status.raw);
  return 'unknown';
};

/**
 * The exact-name lookup of a Volume's Cinder volume. `serverName` turns a Nova server id of an attachment
 * into what status may say (a Server resource's name); ids themselves never leave the provider.
 */
export const observeVolume = async (cinder: Pick<CinderClient, 'listVolumes'>, uid: string, serverName: (novaServerId: string) => string): Promise<VolumeLookup> => {
  const name = volumeCloudName(uid);
  const matches = (await cinder.listVolumes({ name })).filter((v) => v.name === name);
  if (matches.length === 0) return { kind: 'absent' };
  if (matches.length > 1) return { kind: 'duplicate', ids: matches.map((v) => v.id) };
  const volume = matches[0] as VolumeObservation;
  const attachments = volume.attachments.kind === 'value' ? volume.attachments.value.map((a) => serverName(a.serverId)) : [];
  return { kind: 'present', id: volume.id, status: statusOf(volume), size: volume.size.kind === 'value' ? volume.size.value : 0, attachments };
};

const refused = (error: OpenStackError) => ({ status: error.status ?? 0, reason: error.reason });
const unanswered = (error: unknown): error is OpenStackError => error instanceof Timeout || error instanceof RequestFailed || error instanceof ServerError;

/** `cinder.createVolume {name, size, volumeType, metadata}`: adopt by exact name, else create. */
export const createVolumeHandler = (cinder: Cinder): EffectHandler => async (effect, context) => {
  const name = String(effect.name);
  try {
    const existing = (await cinder.listVolumes({ name })).filter((v) => v.name === name);
    if (existing.length > 0) {
      context.logger.info('cinder volume already exists: adopted', { name, volumeId: existing[0]?.id });
      return { type: 'createAccepted', id: (existing[0] as VolumeObservation).id };
    }
    const created = await cinder.createVolume({
      name,
      size: Number(effect.size),
      volumeType: String(effect.volumeType),
      metadata: (effect.metadata ?? {}) as Record<string, string>,
    });
    context.logger.info('cinder accepted the volume create', { name, volumeId: created.id });
    return { type: 'createAccepted', id: created.id };
  } catch (error) {
    if (isRefusal(error)) {
      context.logger.warn('cinder refused the volume create', { name, status: error.status, fault: error.fault });
      return { type: 'createRejected', ...refused(error) };
    }
    if (unanswered(error)) return { type: 'createOutcomeUnknown', reason: error.reason };
    throw error;
  }
};

/** `cinder.extendVolume {volumeId, size}`. */
export const extendVolumeHandler = (cinder: Cinder): EffectHandler => async (effect, context) => {
  const volumeId = String(effect.volumeId);
  const size = Number(effect.size);
  try {
    await cinder.extendVolume(volumeId, size);
    context.logger.info('cinder accepted the volume extend', { volumeId, size });
    return { type: 'extendAccepted', volumeId, size };
  } catch (error) {
    if (isRefusal(error)) {
      context.logger.warn('cinder refused the volume extend', { volumeId, size, status: error.status, fault: error.fault });
      return { type: 'extendRejected', volumeId, size, ...refused(error) };
    }
    throw error;
  }
};

/** `cinder.deleteVolume {volumeId}`: a volume already gone is the deletion done. */
export const deleteVolumeHandler = (cinder: Cinder): EffectHandler => async (effect, context) => {
  const volumeId = String(effect.volumeId);
  try {
    await cinder.deleteVolume(volumeId);
    context.logger.info('cinder accepted the volume delete', { volumeId });
    return { type: 'deleteAccepted', volumeId };
  } catch (error) {
    if (error instanceof NotFound) return { type: 'deleteAccepted', volumeId };
    if (isRefusal(error)) {
      context.logger.warn('cinder refused the volume delete', { volumeId, status: error.status, fault: error.fault });
      return { type: 'deleteRejected', volumeId, ...refused(error) };
    }
    throw error;
  }
};
