/**
 * The handler of the `nova.rebuild` effect: the single destructive call. It runs only after the
 * deciding event is appended (the engine guarantees it) and maps Nova's answer to a result stimulus:
 *   2xx            → rebuild.accepted
 *   409            → rebuild.conflict (pre-acceptance: a task holds the server)
 *   400/403/404    → rebuild.rejected (pre-acceptance: the request itself was refused)
 *   anything else  → rebuild.outcomeUnknown: a timeout, a reset connection, a 5xx, a request Regent
 *                    abandoned while stopping. The POST may have reached Nova and been accepted (a
 *                    request held in front of Nova past the client's timeout was, twice: two root-disk
 *                    wipes for one target), so this is never a refusal; the machine waits for evidence
 *                    before it submits again (machines/server-rebuild.ts, U1–U4).
 * The reason is recorded in the event, so `regent chain` explains a decision whose answer never came.
 */
import type { EffectHandler } from '../../engine/engine.js';
import { BadRequest, Cancelled, Conflict, Forbidden, NotFound, OpenStackError, RequestFailed, Timeout } from '../../openstack/errors.js';
import type { NovaClient } from '../../openstack/nova/index.js';
import { describeError } from '../../log/logger.js';

export type RebuildCall = Pick<NovaClient, 'rebuildServer'>;

const param = (effect: Record<string, unknown>, key: string): string => {
  const value = effect[key];
  if (typeof value !== 'string' || value === '') throw new Error(`nova.rebuild effect without ${key}`);
  return value;
};

/** A short, user-safe account of why Nova's answer is not known (no fault text, no ids). */
export const unknownOutcomeReason = (error: unknown): string => {
  if (error instanceof Cancelled) return `Regent abandoned the request (${error.why})`;
  if (error instanceof Timeout) return error.status !== undefined ? `Nova answered HTTP ${error.status} (a gateway timeout)` : 'no answer within the client timeout';
  if (error instanceof RequestFailed) return `the connection failed${error.code ? ` (${error.code})` : ''}`;
  if (error instanceof OpenStackError) return `Nova answered ${error.status !== undefined ? `HTTP ${error.status}` : error.reason}`;
  return 'the request failed before an answer arrived';
};

export const novaRebuildHandler = (nova: RebuildCall): EffectHandler => async (effect, context) => {
  const serverId = param(effect, 'serverId');
  const imageId = param(effect, 'imageId');
  try {
    // Only the image: no key_name, no user_data, so Nova keeps the create-time keypair and user data.
    const accepted = await nova.rebuildServer(serverId, imageId);
    context.logger.info('nova accepted the rebuild', { serverId, imageId, requestId: accepted.requestId, correlationId: context.correlationId });
    return { type: 'rebuild.accepted', imageId, requestId: accepted.requestId ?? null };
  } catch (error) {
    if (error instanceof Conflict) {
      context.logger.info('nova refused the rebuild with 409; yielding', { serverId, imageId, ...describeError(error) });
      return { type: 'rebuild.conflict', imageId, message: 'a task holds the server (409)' };
    }
    if (error instanceof BadRequest || error instanceof Forbidden || error instanceof NotFound) {
      context.logger.warn('nova rejected the rebuild', { serverId, imageId, ...describeError(error) });
      return { type: 'rebuild.rejected', imageId, status: error.status ?? 0, reason: error.reason };
    }
    const reason = unknownOutcomeReason(error);
    context.logger.warn('the outcome of the rebuild is unknown; nothing is submitted again without evidence', { serverId, imageId, reason, ...describeError(error) });
    return { type: 'rebuild.outcomeUnknown', imageId, reason };
  }
};
