/**
 * The stimuli the server-rebuild machine accepts, as stored in its stream. Every one carries its
 * source; the codec pins each type to the only source allowed to send it, so a monitor can never
 * even express "arm" or "clear".
 */
import * as t from 'io-ts';
import { ServerFacts } from './observation.js';

/**
 * Nova's instance-action record for the server (`GET /servers/{id}/os-instance-actions`), reduced to
 * what the unknown-outcome rule needs: the request ids of the `rebuild` actions Nova recorded. Nova
 * records the action in the same API call that flips the image ref, after its task-state check, so a
 * refused (409) rebuild leaves no action and an accepted one always does.
 */
export const RebuildActions = t.union([
  t.type({ kind: t.literal('read'), requestIds: t.array(t.string) }),
  /** The record could not be read (policy, an error): no evidence either way. */
  t.type({ kind: t.literal('unreadable'), why: t.string }),
]);
export type RebuildActions = t.TypeOf<typeof RebuildActions>;

/**
 * A reconciler pass: the desired image from the spec and Nova's server read fresh on this pass.
 * Optional (older events lack them): `generation` the spec generation this pass decided from, `at`
 * the pass's clock, `rebuildActions` the instance-action record (read while a marker is Initiated).
 */
export const ReconcilePass = t.intersection([
  t.type({ type: t.literal('reconcile'), source: t.literal('reconciler'), desiredImage: t.string, server: ServerFacts }),
  t.partial({ generation: t.number, at: t.string, rebuildActions: RebuildActions }),
]);

/** A monitor poll's observation of one server. */
export const MonitorObservation = t.type({ type: t.literal('observed'), source: t.literal('monitor'), server: ServerFacts, observedAt: t.string });

/** Nova answered 2xx to the rebuild submitted for `imageId`. */
export const RebuildAccepted = t.type({ type: t.literal('rebuild.accepted'), source: t.literal('effect'), imageId: t.string, requestId: t.union([t.string, t.null]) });

/** Nova answered 409 (a task holds the server): pre-acceptance, nothing happened. */
export const RebuildConflict = t.type({ type: t.literal('rebuild.conflict'), source: t.literal('effect'), imageId: t.string, message: t.string });

/** Nova refused the rebuild outright (400/403/404): pre-acceptance, and retrying as-is will not help. */
export const RebuildRejected = t.type({ type: t.literal('rebuild.rejected'), source: t.literal('effect'), imageId: t.string, status: t.number, reason: t.string });

/**
 * Nova's answer never came (a timeout, a reset connection, a 5xx, a cancelled request): the rebuild
 * may or may not have been accepted. Not a refusal: nothing is submitted again without evidence.
 */
export const RebuildOutcomeUnknown = t.type({ type: t.literal('rebuild.outcomeUnknown'), source: t.literal('effect'), imageId: t.string, reason: t.string });

export const ServerRebuildStimulus = t.union([ReconcilePass, MonitorObservation, RebuildAccepted, RebuildConflict, RebuildRejected, RebuildOutcomeUnknown]);
export type ServerRebuildStimulus = t.TypeOf<typeof ServerRebuildStimulus>;
export type ReconcilePass = t.TypeOf<typeof ReconcilePass>;
export type MonitorObservation = t.TypeOf<typeof MonitorObservation>;
