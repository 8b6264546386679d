/**
 * The stimuli the server-rebuild machine accepts, as stored in its stream. Every one carries its
 * source; the codec pins each type to the only source allowed to send it, so a monitor can never
 * even express "arm" or "clear".
 */
import * as t from 'io-ts';
import { ServerFacts } from './observation.js';

/** A reconciler pass: the desired image from the spec and Nova's server read fresh on this pass. */
export const ReconcilePass = t.intersection([
  t.type({ type: t.literal('reconcile'), source: t.literal('reconciler'), desiredImage: t.string, server: ServerFacts }),
  t.partial({ generation: t.number }),
]);

/** A monitor poll's observation of one server. */
export const MonitorObservation = t.type({ type: t.literal('observed'), source: t.literal('monitor'), server: ServerFacts, observedAt: t.string });

/** Nova answered 2xx to the rebuild submitted for `imageId`. */
export const RebuildAccepted = t.type({ type: t.literal('rebuild.accepted'), source: t.literal('effect'), imageId: t.string, requestId: t.union([t.string, t.null]) });

/** Nova answered 409 (a task holds the server): pre-acceptance, nothing happened. */
export const RebuildConflict = t.type({ type: t.literal('rebuild.conflict'), source: t.literal('effect'), imageId: t.string, message: t.string });

/** Nova refused the rebuild outright (400/403/404): pre-acceptance, and retrying as-is will not help. */
export const RebuildRejected = t.type({ type: t.literal('rebuild.rejected'), source: t.literal('effect'), imageId: t.string, status: t.number, reason: t.string });

export const ServerRebuildStimulus = t.union([ReconcilePass, MonitorObservation, RebuildAccepted, RebuildConflict, RebuildRejected]);
export type ServerRebuildStimulus = t.TypeOf<typeof ServerRebuildStimulus>;
export type ReconcilePass = t.TypeOf<typeof ReconcilePass>;
export type MonitorObservation = t.TypeOf<typeof MonitorObservation>;
