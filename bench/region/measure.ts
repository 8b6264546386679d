/**
 * Small measuring helpers of the region benchmark: a monotonic stopwatch, waiting for a condition, percentiles and
 * min/median/max summaries, and heap measurements after a forced collection.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A monotonic clock in milliseconds (differences of two readings are durations). */
export const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Runs `work` and answers its result with the milliseconds it took. */
export const timed = async <T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> => {
  const start = now();
  const value = await work();
  return { value, ms: now() - start };
};

/** Polls `probe` until it answers something truthy; undefined after `timeoutMs` (the caller reports what did not settle). */
export const waitFor = async <T>(probe: () => Promise<T | undefined | false>, timeoutMs: number, everyMs = 250): Promise<T | undefined> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, everyMs));
  }
};

/** The `p`-th percentile (0–100) of `values` by nearest rank; NaN for none. */
export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
};

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export const spreadOf = (values: readonly number[]): Spread => ({ min: percentile(values, 0), median: percentile(values, 50), max: percentile(values, 100) });

export const median = (values: readonly number[]): number => percentile(values, 50);

let collect: (() => void) | undefined;
/** Forces a full collection (via --expose-gc set at run time) and answers the heap in use, in bytes. */
export const heapAfterGc = (): number => {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
  collect();
  return process.memoryUsage().heapUsed;
};
