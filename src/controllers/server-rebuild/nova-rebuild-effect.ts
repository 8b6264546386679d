/**
 * The handler of the `nova.rebuild` effect: the single destructive call. It runs only after the
 * deciding event is appended (the engine guarantees it) and maps Nova's answer to a result stimulus:
 * 2xx → rebuild.accepted, 409 → rebuild.conflict (pre-acceptance), 400/403/404 → rebuild.rejected.
 * Anything else (5xx, timeout, connection lost) leaves the outcome unknown: it is thrown, never
 * retried here, and the next pass re-observes Nova before deciding again.
 */
import type { EffectHandler } from '../../engine/engine.js';
import { BadRequest, Conflict, Forbidden, NotFound } from '../../openstack/errors.js';
import type { NovaClient } from '../../openstack/nova/index.js';
import { describeError } from '../../log/logger.js';

export type RebuildCall = Pick<NovaClient, 'rebuildServer'>;

const param = (effect: Record<string, unknown>, key: string): string => {
  const value = effect[key];
  if (typeof value !== 'string' || value === '') throw new Error(`nova.rebuild effect without ${key}`);
  return value;
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
    throw error;
  }
};
