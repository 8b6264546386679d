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
import { NotLeader } from '../engine/errors.js';
import { Cancelled } from '../openstack/errors.js';

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
  private current: WorkQueue;
  private workers: Promise<void>[] = [];
  private started = false;

  constructor(private readonly options: ControllerOptions) {
    this.current = options.queue ?? new WorkQueue();
  }

  /** The queue of the current run (a new one after every stop: leadership comes and goes). */
  get queue(): WorkQueue {
    return this.current;
  }

  enqueue(key: string): void {
    this.current.add(key);
  }

  /**
   * Starts the workers. A controller can be started again after `stop` any number of times (a replica
   * that lost its lease and won it back): each run gets a fresh queue, because a stopped queue is shut
   * down for good. Before this, a re-elected leader found its controllers "started" with dead queues and
   * ignored every spec change while it looked healthy.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    if (this.current.isShutDown) this.current = new WorkQueue();
    const queue = this.current;
    for (let i = 0; i < (this.options.concurrency ?? 2); i++) this.workers.push(this.work(queue));
  }

  /**
   * Stops taking keys and waits for the passes in flight. With `graceMs`, passes still running when it
   * ends are cut off by `onGraceOver` (the caller cancels their OpenStack requests), then awaited.
   */
  async stop(options: { graceMs?: number; onGraceOver?: () => void } = {}): Promise<void> {
    this.current.shutDown();
    const workers = this.workers;
    this.workers = [];
    this.started = false;
    const all = Promise.all(workers).then(() => true);
    if (options.graceMs !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), options.graceMs)));
      const finished = await Promise.race([all, grace]);
      clearTimeout(timer);
      if (!finished) options.onGraceOver?.();
    }
    await all;
  }

  private async work(queue: WorkQueue): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      const started = process.hrtime.bigint();
      let disposition: Disposition;
      try {
        disposition = await this.options.reconcile(key);
      } catch (error) {
        disposition = { kind: 'fail', error: error instanceof Error ? error : new Error(String(error)) };
      }
      this.options.observer?.passFinished?.(this.options.name, disposition.kind, Number(process.hrtime.bigint() - started) / 1e9);
      this.apply(queue, key, disposition);
      queue.done(key);
    }
  }

  private apply(queue: WorkQueue, key: string, disposition: Disposition): void {
    const { logger, name } = this.options;
    switch (disposition.kind) {
      case 'done':
        queue.forget(key);
        break;
      case 'yield':
        queue.forget(key);
        queue.addAfter(key, disposition.afterMs);
        break;
      case 'park':
        queue.forget(key);
        logger.warn('parked: user action required', { controller: name, key, reason: disposition.reason });
        break;
      case 'fail': {
        if (disposition.error instanceof NotLeader || (queue.isShutDown && disposition.error instanceof Cancelled)) {
          // Cut off by the end of leadership: nothing was appended or started after it; the next leader re-decides.
          logger.info('pass cut off: leadership ended', { controller: name, key, ...describeError(disposition.error) });
          break;
        }
        const delay = queue.addRateLimited(key);
        logger.warn('reconcile failed; backing off', { controller: name, key, retryInMs: delay, ...describeError(disposition.error) });
        break;
      }
    }
  }
}
