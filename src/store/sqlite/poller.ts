/**
 * Cross-process wake-up. Another process's commit fires nothing in this one, so while at least one
 * subscription is open we check `PRAGMA data_version` every interval — a counter read from shared
 * memory, no table scan — and fire the change signal when it moved. In-process appends fire the
 * signal directly and never wait for the poll.
 */
import type { ChangeSignal } from '../internal/change-signal.js';

export const DEFAULT_POLL_INTERVAL_MS = 25;

export class DataVersionPoller {
  private timer: ReturnType<typeof setInterval> | undefined;
  private lastVersion = 0;

  constructor(
    private readonly readVersion: () => number,
    private readonly changes: ChangeSignal,
    private readonly intervalMs: number,
  ) {}

  /** Runs the poll while `active` subscriptions exist; call on every change of their count. */
  update(active: number): void {
    if (active > 0 && !this.timer) {
      this.lastVersion = this.readVersion();
      this.timer = setInterval(() => this.poll(), this.intervalMs);
    } else if (active === 0 && this.timer) {
      this.stop();
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private poll(): void {
    let version: number;
    try {
      version = this.readVersion();
    } catch (_error) {
      // A failing read (e.g. the file vanished) is reported by the subscriptions' own reads: wake them.
      this.changes.fire();
      return;
    }
    if (version !== this.lastVersion) {
      this.lastVersion = version;
      this.changes.fire();
    }
  }
}
