/**
 * The status runner's queue of resources to render (issue 31: projection lag). A status is a function of the streams
 * as they stand when it is rendered, not of the event that asked for it, so a resource whose events arrive while it
 * waits or renders is rendered once more afterwards, not once per event: a burst of N events on one resource costs at
 * most two renders. Renders of one resource never overlap (a slower, older render cannot patch over a newer one);
 * renders of different resources run up to `concurrency` at a time, in the order they were first asked for.
 *
 * The checkpoint may only move past an event once the render it asked for has finished: `safePosition` is the
 * position just before the oldest event whose render is still waiting or running.
 */

interface Entry<R> {
  ref: R;
  /** Asked for again since its last render started. */
  dirty: boolean;
  running: boolean;
  /** The first event position that asked for the next render (undefined: asked for by no event). */
  waitingSince: number | undefined;
  /** The first event position the running render answers. */
  runningSince: number | undefined;
  /** Callers of `render` waiting for the next render to finish. */
  waiting: Array<() => void>;
}

export class RenderQueue<R> {
  private readonly entries = new Map<string, Entry<R>>();
  private readonly ready: string[] = [];
  private running = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly keyOf: (ref: R) => string,
    private readonly renderNow: (ref: R) => Promise<void>,
    private readonly concurrency = 4,
  ) {}

  /**
   * Asks for a render of `ref` (because of the event at `position`, if given); resolves once a render that started
   * after this call has finished.
   */
  render(ref: R, position?: number): Promise<void> {
    const key = this.keyOf(ref);
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { ref, dirty: false, running: false, waitingSince: undefined, runningSince: undefined, waiting: [] };
      this.entries.set(key, entry);
    }
    entry.ref = ref;
    if (position !== undefined && entry.waitingSince === undefined) entry.waitingSince = position;
    const done = new Promise<void>((resolve) => entry.waiting.push(resolve));
    if (!entry.dirty) {
      entry.dirty = true;
      if (!entry.running) this.ready.push(key);
    }
    this.pump();
    return done;
  }

  /** The position the checkpoint may hold, given that every event up to `delivered` has been handed to the queue. */
  safePosition(delivered: number): number {
    let oldest = Number.POSITIVE_INFINITY;
    for (const entry of this.entries.values()) {
      if (entry.waitingSince !== undefined) oldest = Math.min(oldest, entry.waitingSince);
      if (entry.runningSince !== undefined) oldest = Math.min(oldest, entry.runningSince);
    }
    return oldest === Number.POSITIVE_INFINITY ? delivered : Math.min(delivered, oldest - 1);
  }

  /** Resolves when nothing is waiting or running. */
  idle(): Promise<void> {
    if (this.running === 0 && this.ready.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Resources waiting or rendering. */
  get pending(): number {
    return this.ready.length + this.running;
  }

  private pump(): void {
    while (this.running < this.concurrency && this.ready.length > 0) {
      const key = this.ready.shift() as string;
      const entry = this.entries.get(key);
      if (entry) this.start(key, entry);
    }
    if (this.running === 0 && this.ready.length === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private start(key: string, entry: Entry<R>): void {
    this.running++;
    entry.running = true;
    entry.dirty = false;
    entry.runningSince = entry.waitingSince;
    entry.waitingSince = undefined;
    const waiting = entry.waiting.splice(0);
    const finish = (): void => {
      this.running--;
      entry.running = false;
      entry.runningSince = undefined;
      for (const resolve of waiting) resolve();
      if (entry.dirty) this.ready.push(key);
      else this.entries.delete(key);
      this.pump();
    };
    // renderNow reports its own failures (the runner logs them); a rejection must not stop the queue
    this.renderNow(entry.ref).then(finish, finish);
  }
}
