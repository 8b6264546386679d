/**
 * The volume's names and Cinder's vocabulary as the volume-lifecycle machine reads it (machines/volume-lifecycle.ts):
 * its stream and cloud name (V1), the effects, the fixed Errored message (V8), the create bound (V6), and which
 * Cinder statuses are settled (V7), extendable (V10), deletable (V12) or an attachment's transition.
 */
export const VOLUME_STREAM_PREFIX = 'volume-lifecycle-';
export const volumeLifecycleStream = (volumeUid: string): string => `${VOLUME_STREAM_PREFIX}${volumeUid}`;
/** V1: the Cinder name of a Volume. */
export const volumeCloudName = (volumeUid: string): string => `volume-${volumeUid}`;

/** V8: the only user-visible text of an errored volume. */
export const VOLUME_ERRORED_MESSAGE = 'provider volume entered an error state';
/** V6: creates decided for one generation before the machine stops and parks. */
export const MAX_CREATE_ATTEMPTS = 3;

export const VOLUME_EFFECTS = { create: 'cinder.createVolume', delete: 'cinder.deleteVolume', extend: 'cinder.extendVolume' } as const;

/** V7: statuses of a settled volume (converged). */
export const SETTLED_STATUSES: readonly string[] = ['available', 'in-use'];
/** V10: statuses Cinder extends in (in-use: microversion 3.42 and a driver that supports it). */
export const EXTENDABLE_STATUSES: readonly string[] = ['available', 'in-use'];
/** V12: statuses Cinder deletes without force (anything else is refused with 400). */
export const DELETABLE_STATUSES: readonly string[] = ['available', 'error', 'error_restoring', 'error_extending', 'error_managing'];

export const isErrorStatus = (status: string): boolean => status.startsWith('error');
export const isSettledStatus = (status: string): boolean => SETTLED_STATUSES.includes(status);
/** V7: statuses of a volume being attached or detached: Cinder's attachment transitions, not provisioning. */
export const ATTACHMENT_TRANSITION_STATUSES: readonly string[] = ['reserved', 'attaching', 'detaching'];
