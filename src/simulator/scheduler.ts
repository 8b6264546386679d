// A discrete-event queue on the sim clock. Transitions (BUILD → ACTIVE, PENDING_UPDATE → ACTIVE ...) are
// pushed with a due time and run lazily by settle(), which every request (and every programmatic read)
// calls first. A task that schedules a follow-up does so from its own due time, not from "now", so one
// big clock advance plays a whole chain (rebuilding → rebuild_spawning → settled) in order instead of
// moving one step per read.
import type { SimClock } from './clock.js';

interface Task { at: number; seq: number; run: () => void }

export class Scheduler {
  private heap: Task[] = [];
  private seq = 0;
  private running: number | null = null;

  constructor(private readonly clock: SimClock) {}

  /** Sim time as seen by the code running now: a task's due time while it runs, else the clock. */
  now(): number {
    return this.running ?? this.clock.now();
  }

  after(ms: number, run: () => void): void {
    this.push({ at: this.now() + Math.max(0, ms), seq: this.seq++, run });
  }

  pending(): number {
    return this.heap.length;
  }

  clear(): void {
    this.heap = [];
  }

  settle(): void {
    const limit = this.clock.now();
    for (;;) {
      const top = this.heap[0];
      if (!top || top.at > limit) return;
      this.pop();
      this.running = top.at;
      try {
        top.run();
      } finally {
        this.running = null;
      }
    }
  }

  private less(a: Task, b: Task): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private push(t: Task): void {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = h[p] as Task;
      if (!this.less(t, parent)) break;
      h[i] = parent;
      i = p;
    }
    h[i] = t;
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (!last || h.length === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      let best: Task = last;
      const lt = h[l];
      const rt = h[r];
      if (lt && this.less(lt, best)) { m = l; best = lt; }
      if (rt && this.less(rt, best)) { m = r; best = rt; }
      if (m === i) break;
      h[i] = best;
      i = m;
    }
    h[i] = last;
  }
}
