/**
 * A controller: workers taking keys from a WorkQueue and running one reconcile pass each, then
 * acting on the pass's disposition:
 *   done  → forget the key's backoff;
 *   yield → come back after the pass's interval (a wait, not an error);
 *   park  → forget it until something changes (a spec edit or a wake re-adds it);
 *   fail  → requeue with exponential backoff;  a thrown error counts as fail.
 */
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import type { Disposition } from './disposition.js';
import { WorkQueue } from './work-queue.js';

export interface ControllerObserver {
  passFinished?(controller: string, disposition: Disposition['kind'], seconds: number): void;
}

export interface ControllerOptions {
  name: string;
  reconcile: (key: string) => Promise<Disposition>;
  logger: Logger;
  concurrency?: number;
  queue?: WorkQueue;
  observer?: ControllerObserver;
}

export class Controller {
  readonly queue: WorkQueue;
  private readonly workers: Promise<void>[] = [];
  private started = false;

  constructor(private readonly options: ControllerOptions) {
    this.queue = options.queue ?? new WorkQueue();
  }

  enqueue(key: string): void {
    this.queue.add(key);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    for (let i = 0; i < (this.options.concurrency ?? 2); i++) this.workers.push(this.work());
  }

  /** Stops taking keys and waits for the passes in flight. */
  async stop(): Promise<void> {
    this.queue.shutDown();
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const started = process.hrtime.bigint();
      let disposition: Disposition;
      try {
        disposition = await this.options.reconcile(key);
      } catch (error) {
        disposition = { kind: 'fail', error: error instanceof Error ? error : new Error(String(error)) };
      }
      this.options.observer?.passFinished?.(this.options.name, disposition.kind, Number(process.hrtime.bigint() - started) / 1e9);
      this.apply(key, disposition);
      this.queue.done(key);
    }
  }

  private apply(key: string, disposition: Disposition): void {
    const { logger, name } = this.options;
    switch (disposition.kind) {
      case 'done':
        this.queue.forget(key);
        break;
      case 'yield':
        this.queue.forget(key);
        this.queue.addAfter(key, disposition.afterMs);
        break;
      case 'park':
        this.queue.forget(key);
        logger.warn('parked: user action required', { controller: name, key, reason: disposition.reason });
        break;
      case 'fail': {
        const delay = this.queue.addRateLimited(key);
        logger.warn('reconcile failed; backing off', { controller: name, key, retryInMs: delay, ...describeError(disposition.error) });
        break;
      }
    }
  }
}
