/**
 * Leader election on a lease, with client-go's rules:
 *
 * - a candidate takes the lease when it is free (no holder) or expired: nobody renewed it for
 *   leaseDuration, measured on the candidate's own clock from when it first saw the current version
 *   (never from the holder's timestamps, so clock skew between machines cannot shorten a lease);
 * - the leader renews every retryPeriod; if no renewal has succeeded for renewDeadline (measured from
 *   the start of the last successful attempt) it stops leading at once and calls onStoppedLeading;
 * - renewDeadline < leaseDuration, so a leader that cannot renew gives up before any standby can
 *   take over: two electors never both believe they lead;
 * - a leader that finds itself past its deadline (resumed from a pause) stops leading before it may lead
 *   again, even when nobody else took the lease and its next renewal succeeds: the fence refused what
 *   ran in between, and only a new start of leading looks at that again.
 *
 * An identity must be unique per process (hostname, pid and a random suffix), or a restarted
 * process would silently inherit its predecessor's lease.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../../log/logger.js';
import { describeError, silentLogger } from '../../log/logger.js';
import { AlreadyExists, Conflict } from '../errors.js';
import { rfc3339Micro } from '../object.js';
import type { LeaseBackend, LeaseRecord, StoredLease } from './lease.js';
import { WakeableSleep } from '../wakeable-sleep.js';

export interface LeaderElectionOptions {
  readonly lease: LeaseBackend;
  readonly identity: string;
  /** Default 15 s. */
  readonly leaseDurationMs?: number;
  /** Default 10 s; must be shorter than leaseDurationMs. */
  readonly renewDeadlineMs?: number;
  /** Default 2 s; must be shorter than renewDeadlineMs. */
  readonly retryPeriodMs?: number;
  /** Called when this process becomes leader; the signal aborts when leadership ends. */
  readonly onStartedLeading: (signal: AbortSignal) => void | Promise<void>;
  /** Called when leadership ends (lost, deadline exceeded, or stopped): stop reconciling now. */
  readonly onStoppedLeading: (reason: string) => void;
  /** Called when the observed holder changes (including to this process). */
  readonly onNewLeader?: (identity: string) => void;
  readonly logger?: Logger;
}

const STOPPED = 'elector stopped';
const LAPSED = 'renew deadline exceeded';

export class LeaderElector {
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly logger: Logger;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly sleeper = new WakeableSleep();
  private leading = false;
  private leaderUntil = 0;
  private deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  private abort: AbortController | undefined;
  private observedVersion: string | undefined;
  private observedAt = 0;
  private observedHolder: string | undefined;
  /** leaseTransitions of the lease as this process last wrote it: the term it leads under. */
  private writtenTransitions = 0;
  private leadingTransitions = 0;
  private lapseScheduled = false;

  constructor(private readonly options: LeaderElectionOptions) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.logger = options.logger ?? silentLogger();
    if (!options.identity) throw new Error('leader election needs a non-empty identity');
    if (!(this.renewDeadlineMs < this.leaseDurationMs)) throw new Error('renewDeadlineMs must be shorter than leaseDurationMs');
    if (!(this.retryPeriodMs < this.renewDeadlineMs)) throw new Error('retryPeriodMs must be shorter than renewDeadlineMs');
  }

  get identity(): string {
    return this.options.identity;
  }

  /** The holder last observed on the lease (this process included). */
  get leader(): string | undefined {
    return this.observedHolder;
  }

  /**
   * True only while this process holds the lease and is within its renew deadline. A leader found past its
   * deadline (a pause: GC, SIGSTOP) is refused here at once, and its leadership ends before anything else runs
   * (a microtask, so before a renewal that resumes with it can extend the deadline): whoever notices the lapse
   * first — this fence, the renew loop or the deadline timer — the lapse is a leadership end, never silently
   * bridged. What the fence refused in between was cut off, and only a new start of leading looks at it again.
   */
  isLeader(): boolean {
    if (!this.leading) return false;
    if (performance.now() < this.leaderUntil) return true;
    this.endLapsed();
    return false;
  }

  /**
   * The term this process leads under (its identity and the lease's transition count), or undefined
   * when it does not lead. Answered from the monotonic clock on every call, so a process resuming from
   * a pause longer than its renew deadline is refused at once, before its deadline timer has even run:
   * this is the fence the engine checks before every append and every effect.
   */
  term(): { holder: string; term: number } | undefined {
    return this.isLeader() ? { holder: this.identity, term: this.leadingTransitions } : undefined;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Stops campaigning. A leader stops leading first, then (unless `release: false`, which behaves
   * like a crash) releases the lease so a standby can take over without waiting for expiry.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.running = false;
    this.sleeper.wake();
    await this.loop;
    const wasLeading = this.leading;
    if (wasLeading) this.stopLeading(STOPPED);
    if (wasLeading && options.release !== false) await this.release();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const attemptStart = performance.now();
      // resumed past the deadline (its timer may run after this attempt): the lapse ends leadership first
      if (this.leading && attemptStart >= this.leaderUntil) this.stopLeading(LAPSED);
      let renewed = false;
      try {
        renewed = await this.tryAcquireOrRenew();
      } catch (error) {
        this.logger.warn('lease attempt failed', { lease: this.options.lease.description, identity: this.identity, ...describeError(error) });
      }
      if (!this.running) break;
      // A success that arrives after the deadline of the attempt's start proves nothing.
      if (renewed && performance.now() < attemptStart + this.renewDeadlineMs) {
        this.leaderUntil = attemptStart + this.renewDeadlineMs;
        this.leadingTransitions = this.writtenTransitions;
        if (!this.leading) this.startLeading();
        this.armDeadline();
      }
      await this.sleeper.sleep(this.retryPeriodMs);
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { lease, identity } = this.options;
    const now = new Date();
    const current = await lease.get();
    if (current === undefined) {
      try {
        this.observe(await lease.create({ holderIdentity: identity, leaseDurationMs: this.leaseDurationMs, acquireTime: rfc3339Micro(now), renewTime: rfc3339Micro(now), leaseTransitions: 0 }));
        this.writtenTransitions = 0;
        return true;
      } catch (error) {
        if (error instanceof AlreadyExists || error instanceof Conflict) return false;
        throw error;
      }
    }
    this.observe(current);
    const heldByOther = current.holderIdentity !== '' && current.holderIdentity !== identity;
    if (heldByOther && performance.now() < this.observedAt + current.leaseDurationMs) return false;
    const keep = current.holderIdentity === identity;
    const next: LeaseRecord = {
      holderIdentity: identity,
      leaseDurationMs: this.leaseDurationMs,
      acquireTime: keep && current.acquireTime ? current.acquireTime : rfc3339Micro(now),
      renewTime: rfc3339Micro(now),
      leaseTransitions: keep ? current.leaseTransitions : current.leaseTransitions + 1,
    };
    try {
      this.observe(await lease.update(next, current.version));
      this.writtenTransitions = next.leaseTransitions;
      return true;
    } catch (error) {
      if (error instanceof Conflict) return false;
      throw error;
    }
  }

  /** Remembers when this version of the lease was first seen: expiry is measured from here. */
  private observe(lease: StoredLease): void {
    if (lease.version !== this.observedVersion) {
      this.observedVersion = lease.version;
      this.observedAt = performance.now();
    }
    if (lease.holderIdentity !== this.observedHolder) {
      this.observedHolder = lease.holderIdentity;
      if (lease.holderIdentity !== '') this.options.onNewLeader?.(lease.holderIdentity);
    }
  }

  private startLeading(): void {
    this.leading = true;
    this.abort = new AbortController();
    this.logger.info('became leader', { lease: this.options.lease.description, identity: this.identity });
    const signal = this.abort.signal;
    void Promise.resolve()
      .then(() => this.options.onStartedLeading(signal))
      .catch((error: unknown) => this.logger.error('onStartedLeading failed', describeError(error)));
  }

  /** Ends a leadership found past its renew deadline, once, on the next microtask. */
  private endLapsed(): void {
    if (this.lapseScheduled) return;
    this.lapseScheduled = true;
    queueMicrotask(() => {
      this.lapseScheduled = false;
      if (this.leading && performance.now() >= this.leaderUntil) this.stopLeading(LAPSED);
    });
  }

  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    // Timers may fire a fraction of a millisecond early against performance.now(): re-arm then.
    this.deadlineTimer = setTimeout(() => {
      if (!this.leading) return;
      if (performance.now() >= this.leaderUntil) this.stopLeading(LAPSED);
      else this.armDeadline();
    }, Math.max(0, Math.ceil(this.leaderUntil - performance.now())));
  }

  private stopLeading(reason: string): void {
    if (!this.leading) return;
    this.leading = false;
    clearTimeout(this.deadlineTimer);
    this.abort?.abort(new Error(reason));
    // The one log line of a leadership end: a loss is a warning, a clean stop is not.
    this.logger[reason === STOPPED ? 'info' : 'warn']('stopped leading', { lease: this.options.lease.description, identity: this.identity, reason });
    try {
      this.options.onStoppedLeading(reason);
    } catch (error) {
      this.logger.error('onStoppedLeading failed', describeError(error));
    }
  }

  private async release(): Promise<void> {
    try {
      const current = await this.options.lease.get();
      if (current === undefined || current.holderIdentity !== this.identity) return;
      await this.options.lease.update({ ...current, holderIdentity: '', leaseDurationMs: 1000, renewTime: rfc3339Micro(new Date()) }, current.version);
    } catch (error) {
      this.logger.warn('lease release failed; standbys take over after expiry', describeError(error));
    }
  }

}
