/**
 * What this process runs while it leads (issue 25: the leadership lifecycle, out of the composition root): the
 * status runner, every kind's controller and background work. Leadership comes and goes any number of times (a
 * missed renew deadline after a long pause, then a won election); transitions run one at a time, in order, so a
 * start never overlaps a stop.
 *
 * A clean stop (still holding the lease) lets passes in flight finish for a grace period, then cancels their
 * OpenStack requests; a lost lease cancels at once — the fence already refuses their appends and effects, and
 * nothing may wait on an answer it can no longer act on.
 */
import type { Controller } from '../controllers/controller.js';
import type { KindRuntime } from '../controllers/kind.js';
import type { CancelScope } from '../openstack/cancel.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import type { StatusRunner } from '../status/runner.js';
import type { Metrics } from '../observability/metrics.js';

export interface LeadershipParts {
  status: StatusRunner;
  controllers: readonly Controller[];
  runtimes: readonly KindRuntime[];
  cancel: CancelScope;
  metrics: Metrics;
  logger: Logger;
  /** Everything known is looked at again once leadership starts (every object enqueued and rendered). */
  catchUp: () => Promise<void>;
  stopGraceMs: number;
  /** The term this process leads under, for the log. */
  term?: () => unknown;
}

export class Leadership {
  private leadingNow = false;
  private transitions: Promise<void> = Promise.resolve();

  constructor(private readonly parts: LeadershipParts) {}

  get leading(): boolean {
    return this.leadingNow;
  }

  /** Resolves once every transition asked for so far has run. */
  settled(): Promise<void> {
    return this.transitions;
  }

  start(): Promise<void> {
    return this.inOrder(async () => {
      if (this.leadingNow) return;
      const { status, controllers, runtimes, cancel, metrics, logger } = this.parts;
      this.leadingNow = true;
      metrics.leader.set(1);
      cancel.renew();
      await status.start();
      for (const controller of controllers) controller.start();
      for (const runtime of runtimes) runtime.startLeading?.();
      await this.parts.catchUp();
      logger.info('leading: controllers, monitor and status runner started', { term: this.parts.term?.() });
    });
  }

  stop(why: 'lost' | 'stopping'): Promise<void> {
    return this.inOrder(async () => {
      if (!this.leadingNow) return;
      const { status, controllers, runtimes, cancel, metrics, logger } = this.parts;
      this.leadingNow = false;
      metrics.leader.set(0);
      const cut = () => cancel.cancel(why === 'lost' ? 'leadership lost' : 'Regent is stopping');
      if (why === 'lost') cut();
      const graceMs = why === 'lost' ? 0 : this.parts.stopGraceMs;
      await Promise.all([...controllers.map((c) => c.stop({ graceMs, onGraceOver: cut })), ...runtimes.map((r) => r.stopLeading?.())]);
      await status.stop();
      logger.info('controllers, monitor and status runner stopped', { why });
    });
  }

  private inOrder(step: () => Promise<void>): Promise<void> {
    this.transitions = this.transitions.then(step).catch((error: unknown) => {
      this.parts.logger.error('leadership transition failed', describeError(error));
    });
    return this.transitions;
  }
}
