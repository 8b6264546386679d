/**
 * Cinder's readiness as the suite needs it, and Cinder's own account of a failed volume.
 *
 * Cinder's scheduler learns its backends from cinder-volume's capability reports. A cinder-volume whose
 * service row already reads `up` (what the sandbox's setup waits for) may not have reported yet — on a cold
 * start the scheduler gives up waiting for the first report after `scheduler_driver_init_wait_time` — and
 * until a report arrives every create fails in the scheduler (no valid backend → status `error`). The
 * scheduler's pools (admin `GET /scheduler-stats/get_pools`) are what it schedules on: the suite waits for one
 * before it starts.
 */
import type { OpenStackSession } from '../../../src/openstack/session.js';
import { sleep } from './wait.js';

interface PoolsBody { pools?: Array<{ name?: string }> }

/** Resolves with the pool names once Cinder's scheduler knows at least one; throws after `timeoutMs`. */
export const waitForCinderPools = async (admin: OpenStackSession, timeoutMs = 180_000): Promise<{ pools: string[]; waitedMs: number }> => {
  const t0 = Date.now();
  for (;;) {
    const response = await admin.http('block-storage').get('/scheduler-stats/get_pools');
    const pools = ((response.data as PoolsBody).pools ?? []).map((p) => p.name ?? '(unnamed)');
    if (pools.length > 0) return { pools, waitedMs: Date.now() - t0 };
    if (Date.now() - t0 > timeoutMs) throw new Error(`Cinder's scheduler knows no backend pool after ${timeoutMs / 1000} s: cinder-volume has not reported its capabilities`);
    await sleep(1_000);
  }
};

interface MessagesBody { messages?: Array<{ user_message?: string; event_id?: string; created_at?: string }> }

/** Cinder's user messages about one resource (Block Storage 3.3+: why a volume went to `error`), one line each. */
export const cinderMessagesAbout = async (session: OpenStackSession, resourceId: string): Promise<string[]> => {
  try {
    const response = await session.http('block-storage').get('/messages', { resource_uuid: resourceId });
    return ((response.data as MessagesBody).messages ?? []).map((m) => `${m.created_at ?? '?'} ${m.event_id ?? '?'}: ${m.user_message ?? '?'}`);
  } catch (error) {
    return [`(Cinder's messages could not be read: ${(error as Error).message})`];
  }
};
