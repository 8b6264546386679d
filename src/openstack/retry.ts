/**
 * Retry policy for reads. Only idempotent calls (GET, HEAD) are retried, and only on answers that say "try again"
 * (5xx, 408/504, client timeout, connection error). A mutating call is never retried: a POST that timed out may
 * well have been accepted (a rebuild destroys the root disk), so replaying it is the caller's decision, made from
 * a fresh read, never the transport's.
 */

export interface RetryPolicy {
  /** Extra attempts after the first one (0 = no retry). */
  retries: number;
  /** Delay before the first retry; doubles each time. */
  baseDelayMs: number;
  /** Upper bound of any single delay. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 200, maxDelayMs: 5_000 };

/**
 * Exponential backoff with "full jitter": a uniform delay in [cap/2, cap] where cap = min(max, base·2^attempt).
 * Half of the window is kept so that retries of a struggling service never collapse to ~0 ms.
 */
export const backoffDelay = (policy: RetryPolicy, retryIndex: number, random: () => number = Math.random): number => {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(cap / 2 + (cap / 2) * r);
};

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Statuses that a GET may retry. */
export const isRetryableStatus = (status: number): boolean => status === 408 || (status >= 500 && status <= 599 && status !== 501);
