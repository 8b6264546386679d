/**
 * The catch-up-then-live loop every adapter uses. Catch-up and live are the same loop: read a page
 * after the cursor, deliver it, and sleep only when a page came back short and nothing fired the
 * change signal since the read began. Reading by position (never pushing events from the writer) is
 * what makes "no gap, no duplicate" hold across the catch-up/live boundary and across processes.
 */
import type { RecordedEvent } from '../../events/envelope.js';
import type { EventHandler, StreamFilter, SubscribeOptions, Subscription } from '../port.js';
import type { ChangeSignal } from './change-signal.js';

export interface ReadPage {
  /** Matching events with position > cursor, in position order, at most `limit`. */
  events: RecordedEvent[];
  /**
   * Every matching event with position <= scannedTo is in `events` (or was at or before the cursor).
   * Lets a filtered subscription skip non-matching events for good instead of rescanning them each poll.
   */
  scannedTo: number;
}

export interface CatchUpSource {
  readPage(cursor: number, filter: StreamFilter | undefined, limit: number): ReadPage | Promise<ReadPage>;
  readonly changes: ChangeSignal;
}

const PAGE_SIZE = 256;

export class CatchUpSubscription implements Subscription {
  readonly done: Promise<void>;
  private delivered = 0;
  private stopped = false;
  /** Set by every wake; cleared before each read, so a wake during a read or a handler is not lost. */
  private dirty = false;
  private sleeper: (() => void) | undefined;

  constructor(
    private readonly source: CatchUpSource,
    private readonly options: SubscribeOptions,
    private readonly handler: EventHandler,
    private readonly pageSize = PAGE_SIZE,
  ) {
    this.done = this.run();
    // A rejected `done` nobody awaits must not crash the process: the rejection stays observable
    // through `done`, which callers are told to watch (src/store/README.md, Caveats).
    this.done.catch(() => undefined);
  }

  get position(): number {
    return this.delivered;
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.wake();
    // close() reports "stopped", not "succeeded": a handler failure is reported on `done`.
    await this.done.catch(() => undefined);
  }

  private wake(): void {
    this.dirty = true;
    const sleeper = this.sleeper;
    this.sleeper = undefined;
    sleeper?.();
  }

  private async run(): Promise<void> {
    // Yield once so the constructor returns before the first handler call, whatever the adapter.
    await Promise.resolve();
    const unlisten = this.source.changes.listen(() => this.wake());
    let cursor = this.options.after ?? 0;
    try {
      while (!this.stopped) {
        this.dirty = false;
        const page = await this.source.readPage(cursor, this.options.filter, this.pageSize);
        for (const event of page.events) {
          if (this.stopped) return;
          await this.handler(event);
          this.delivered = event.position;
          cursor = event.position;
        }
        cursor = Math.max(cursor, page.scannedTo);
        const caughtUp = page.events.length < this.pageSize;
        if (caughtUp && !this.dirty && !this.stopped) {
          await new Promise<void>((resolve) => {
            this.sleeper = resolve;
          });
        }
      }
    } finally {
      unlisten();
      this.sleeper = undefined;
    }
  }
}

/** The open subscriptions of one store, so that closing the store stops them first. */
export class SubscriptionSet {
  private readonly open = new Set<CatchUpSubscription>();

  constructor(private readonly onCountChange: (count: number) => void = () => undefined) {}

  add(subscription: CatchUpSubscription): void {
    this.open.add(subscription);
    this.onCountChange(this.open.size);
    const forget = (): void => {
      this.open.delete(subscription);
      this.onCountChange(this.open.size);
    };
    subscription.done.then(forget, forget);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.open].map((subscription) => subscription.close()));
  }
}
