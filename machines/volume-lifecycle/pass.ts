/**
 * What one pass of the volume-lifecycle machine reads from its stimulus (machines/volume-lifecycle.ts), and the
 * params of the three Cinder effects it declares.
 */
import { UNKNOWN_OUTCOME_WINDOW_MS } from '../server-rebuild.js';
import { atLeastAfter } from '../time.js';
import { volumeMetadata, type VolumeLinkage } from '../volume-metadata.js';
import { DELETABLE_STATUSES, VOLUME_EFFECTS, isErrorStatus } from './cinder.js';
import type { VolumeContext } from './context.js';
import type { Present, Reconcile, VolumeLookup, VolumeStimulus } from './stimuli.js';

export const pass = (event: VolumeStimulus): Reconcile => event as Reconcile;
export const lookup = (event: VolumeStimulus): VolumeLookup | undefined => pass(event).observed;
export const presentIn = (event: VolumeStimulus): Present | null => {
  const o = lookup(event);
  return o?.kind === 'present' ? o : null;
};
export const realized = (event: VolumeStimulus): boolean => pass(event).identity.kind === 'realized';
export const projectOf = (event: VolumeStimulus): string | null => {
  const identity = pass(event).identity;
  return identity.kind === 'realized' ? identity.projectId : null;
};
/** Something in this stream says a volume may exist: an id, or a create decided and not settled. */
export const recorded = (context: VolumeContext): boolean => context.volumeId !== null || context.create !== null;
/** V6: a decided create with no accepting answer whose window has not passed on this pass's clock. */
export const createMayStillLand = (context: VolumeContext, event: VolumeStimulus): boolean =>
  context.create !== null && context.create.answer !== 'accepted' && !atLeastAfter(context.create.decidedAt, pass(event).at, UNKNOWN_OUTCOME_WINDOW_MS);
export const observedAbsent = (event: VolumeStimulus): boolean => lookup(event)?.kind === 'absent';
export const attached = (event: VolumeStimulus): boolean => (presentIn(event)?.attachments.length ?? 0) > 0;
export const sameVolume = (context: VolumeContext, event: VolumeStimulus): boolean => presentIn(event)?.id === context.volumeId;
export const deletable = (event: VolumeStimulus): boolean => DELETABLE_STATUSES.includes(presentIn(event)?.status ?? '');
export const errorNotDeletable = (event: VolumeStimulus): boolean => {
  const p = presentIn(event);
  return p !== null && isErrorStatus(p.status) && !DELETABLE_STATUSES.includes(p.status);
};

export const createEffect = {
  type: VOLUME_EFFECTS.create,
  params: ({ context, event }: { context: VolumeContext; event: VolumeStimulus }) => {
    const desired = pass(event).desired;
    const linkage: VolumeLinkage = desired.linkage;
    return {
      name: context.name,
      size: desired.size,
      volumeType: desired.volumeClassID,
      projectId: projectOf(event),
      metadata: volumeMetadata({ volumeUid: context.volumeUid, linkage, tags: desired.tags }),
    };
  },
};
export const extendEffect = {
  type: VOLUME_EFFECTS.extend,
  params: ({ context, event }: { context: VolumeContext; event: VolumeStimulus }) => ({
    volumeId: presentIn(event)?.id ?? context.volumeId ?? '',
    name: context.name,
    size: pass(event).desired.size,
    projectId: projectOf(event),
  }),
};
export const deleteEffect = {
  type: VOLUME_EFFECTS.delete,
  params: ({ context, event }: { context: VolumeContext; event: VolumeStimulus }) => ({
    volumeId: presentIn(event)?.id ?? context.volumeId ?? '',
    name: context.name,
    projectId: projectOf(event),
  }),
};
