/**
 * A controller work queue with controller-runtime's semantics:
 * - a key is queued at most once; adding a key that is being processed marks it dirty, and it is
 *   queued again when its processing ends (never processed twice at once);
 * - `addAfter` schedules a key (the earliest schedule wins);
 * - `addRateLimited` schedules a key after a per-key exponential backoff (reset by `forget`);
 * - `get` waits for the next key; `done` ends its processing.
 */
export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 250, maxMs: 60_000 };

export class WorkQueue<K extends string = string> {
  private readonly ready: K[] = [];
  private readonly queued = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly dirty = new Set<K>();
  private readonly timers = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<K, number>();
  private readonly waiters: Array<(key: K | undefined) => void> = [];
  private shuttingDown = false;

  constructor(private readonly backoff: BackoffPolicy = DEFAULT_BACKOFF) {}

  add(key: K): void {
    if (this.shuttingDown) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    const waiter = this.waiters.shift();
    if (waiter) {
      this.queued.delete(key);
      this.processing.add(key);
      waiter(key);
    } else {
      this.ready.push(key);
    }
  }

  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = Date.now() + delayMs;
    const existing = this.timers.get(key);
    if (existing && existing.at <= at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Schedules after the key's next backoff step; returns the delay used. */
  addRateLimited(key: K): number {
    const failures = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, failures);
    const delay = Math.min(this.backoff.maxMs, this.backoff.baseMs * 2 ** (failures - 1));
    this.addAfter(key, delay);
    return delay;
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  failuresOf(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process, or undefined once the queue is shut down. */
  get(): Promise<K | undefined> {
    const key = this.ready.shift();
    if (key !== undefined) {
      this.queued.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
  }

  get length(): number {
    return this.ready.length;
  }

  /** True once shutDown was called: a shut-down queue never hands out a key again. */
  get isShutDown(): boolean {
    return this.shuttingDown;
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
