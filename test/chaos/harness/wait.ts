/** Polling until a condition holds, with a deadline that names what was awaited. */
export class WaitTimedOut extends Error {
  constructor(readonly what: string) {
    super(`timed out waiting for ${what}`);
  }
}

export const until = async <T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, everyMs = 100): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new WaitTimedOut(what);
    await new Promise((r) => setTimeout(r, everyMs));
  }
};

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
