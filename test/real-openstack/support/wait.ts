/** Polling against a real cloud: real time, bounded, and a timeout message that says what was last seen. */
import { NotFound } from '../../../src/openstack/errors.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/** Calls `read` until `done(value)` holds; throws with the last value seen when the time is up. */
export const waitFor = async <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, options: WaitOptions = {}): Promise<T> => {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const interval = options.intervalMs ?? 500;
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (done(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${describe(last)}`);
    await sleep(interval);
  }
};

/** Resolves once `read` answers NotFound. */
export const waitGone = async (what: string, read: () => Promise<unknown>, options: WaitOptions = {}): Promise<void> => {
  await waitFor(
    `${what} to be gone`,
    async () => {
      try {
        return await read();
      } catch (error) {
        if (error instanceof NotFound) return 'gone';
        throw error;
      }
    },
    (value) => value === 'gone',
    options,
  );
};

const describe = (value: unknown): string => {
  try {
    const text = JSON.stringify(value);
    return text.length > 600 ? `${text.slice(0, 600)}…` : text;
  } catch {
    return String(value);
  }
};
