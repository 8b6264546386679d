/**
 * The leader-election suite, run against each lease backend: two electors on one lease, short
 * durations, and a monitor that samples both every few milliseconds to prove they never lead at
 * the same time.
 */
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { SourceUnavailable } from '../../../src/kube/errors.js';
import { LeaderElector } from '../../../src/kube/leader/elector.js';
import type { LeaseBackend, LeaseRecord, StoredLease } from '../../../src/kube/leader/lease.js';
import { eventually, sleep } from './fixtures.js';

export const LEASE_MS = 1000;
export const RENEW_DEADLINE_MS = 600;
export const RETRY_MS = 100;

/** A backend whose calls fail while `down`, as during a network partition. */
export class Partitionable implements LeaseBackend {
  down = false;
  lastSuccessfulWrite = 0;
  constructor(private readonly inner: LeaseBackend) {}
  get description(): string {
    return this.inner.description;
  }
  private check(): void {
    if (this.down) throw new SourceUnavailable('partitioned');
  }
  async get(): Promise<StoredLease | undefined> {
    this.check();
    return this.inner.get();
  }
  async create(record: LeaseRecord): Promise<StoredLease> {
    this.check();
    const stored = await this.inner.create(record);
    this.lastSuccessfulWrite = performance.now();
    return stored;
  }
  async update(record: LeaseRecord, version: string): Promise<StoredLease> {
    this.check();
    const stored = await this.inner.update(record, version);
    this.lastSuccessfulWrite = performance.now();
    return stored;
  }
}

interface Candidate {
  readonly name: string;
  readonly elector: LeaderElector;
  readonly backend: Partitionable;
  readonly log: Array<{ event: 'start' | 'stop'; at: number; reason?: string }>;
}

export interface ElectionTarget {
  readonly name: string;
  /** Two backends on the same lease, as two processes would have; and a way to read the lease. */
  open(): Promise<{ a: LeaseBackend; b: LeaseBackend; cleanup(): Promise<void> }>;
}

export const runElectionSuite = (target: ElectionTarget): void => {
  describe(`leader election: ${target.name}`, function () {
    this.timeout(15_000);
    let candidates: Candidate[];
    let cleanup: () => Promise<void>;
    let monitor: ReturnType<typeof setInterval>;
    let overlaps: number;

    const candidate = (name: string, backend: LeaseBackend): Candidate => {
      const log: Candidate['log'] = [];
      const partitionable = new Partitionable(backend);
      const elector = new LeaderElector({
        lease: partitionable,
        identity: name,
        leaseDurationMs: LEASE_MS,
        renewDeadlineMs: RENEW_DEADLINE_MS,
        retryPeriodMs: RETRY_MS,
        onStartedLeading: () => void log.push({ event: 'start', at: performance.now() }),
        onStoppedLeading: (reason) => void log.push({ event: 'stop', at: performance.now(), reason }),
      });
      return { name, elector, backend: partitionable, log };
    };

    beforeEach(async () => {
      const opened = await target.open();
      cleanup = opened.cleanup;
      candidates = [candidate('replica-a', opened.a), candidate('replica-b', opened.b)];
      overlaps = 0;
      monitor = setInterval(() => {
        if (candidates.filter((c) => c.elector.isLeader()).length > 1) overlaps += 1;
      }, 2);
    });

    afterEach(async () => {
      clearInterval(monitor);
      await Promise.all(candidates.map((c) => c.elector.stop({ release: false })));
      await cleanup();
      // The callbacks' intervals must not overlap either: a stop always precedes the other's start.
      const timeline = candidates.flatMap((c) => c.log.map((e) => ({ ...e, who: c.name }))).sort((x, y) => x.at - y.at);
      let holder: string | undefined;
      for (const entry of timeline) {
        if (entry.event === 'start') {
          expect(holder, `${entry.who} started leading while ${holder ?? ''} still led`).to.equal(undefined);
          holder = entry.who;
        } else if (entry.who === holder) holder = undefined;
      }
      expect(overlaps, 'samples in which both electors believed they led').to.equal(0);
    });

    const leaderOf = (): Candidate | undefined => candidates.find((c) => c.elector.isLeader());

    it('of two candidates exactly one leads, and the lease names it', async () => {
      candidates.forEach((c) => c.elector.start());
      const leader = await eventually(leaderOf, 3000, 'a leader');
      await sleep(3 * RETRY_MS);
      expect(candidates.filter((c) => c.elector.isLeader())).to.have.length(1);
      const lease = await leader.backend.get();
      expect(lease).to.deep.include({ holderIdentity: leader.name, leaseTransitions: 0 });
      expect(lease?.renewTime).to.match(/\.\d{6}Z$/);
      const other = candidates.find((c) => c !== leader)!;
      expect(other.elector.leader).to.equal(leader.name);
    });

    it('the leader keeps renewing: it still leads after several lease durations', async () => {
      candidates.forEach((c) => c.elector.start());
      const leader = await eventually(leaderOf, 3000, 'a leader');
      await sleep(2.5 * LEASE_MS);
      expect(leaderOf()).to.equal(leader);
      expect(leader.log.map((e) => e.event)).to.deep.equal(['start']);
    });

    it('when the leader stops renewing (a crash), the standby takes over within the lease duration', async () => {
      candidates.forEach((c) => c.elector.start());
      const leader = await eventually(leaderOf, 3000, 'a leader');
      const standby = candidates.find((c) => c !== leader)!;
      await sleep(2 * RETRY_MS);
      await leader.elector.stop({ release: false });
      const lastRenewal = leader.backend.lastSuccessfulWrite;
      await eventually(() => (standby.elector.isLeader() ? true : undefined), 3 * LEASE_MS, 'takeover');
      const takeover = standby.log.find((e) => e.event === 'start')!.at - lastRenewal;
      expect(takeover, 'ms from the last renewal to takeover').to.be.at.least(LEASE_MS - 50).and.at.most(LEASE_MS + 2 * RETRY_MS + 250);
      const lease = await standby.backend.get();
      expect(lease).to.deep.include({ holderIdentity: standby.name, leaseTransitions: 1 });
    });

    it('a partitioned leader stops leading at its renew deadline, before the standby takes over', async () => {
      candidates.forEach((c) => c.elector.start());
      const leader = await eventually(leaderOf, 3000, 'a leader');
      const standby = candidates.find((c) => c !== leader)!;
      await sleep(2 * RETRY_MS);
      leader.backend.down = true;
      const partitioned = performance.now();
      await eventually(() => (standby.elector.isLeader() ? true : undefined), 3 * LEASE_MS, 'takeover');
      const stopped = leader.log.find((e) => e.event === 'stop');
      expect(stopped?.reason).to.equal('renew deadline exceeded');
      expect(stopped!.at - partitioned).to.be.at.most(RENEW_DEADLINE_MS + 150);
      expect(stopped!.at).to.be.below(standby.log.find((e) => e.event === 'start')!.at);
      // Healed, the old leader does not take the lease back while the new one renews.
      leader.backend.down = false;
      await sleep(LEASE_MS);
      expect(leaderOf()).to.equal(standby);
    });

    it('a leader that stops gracefully releases the lease and the standby takes over at once', async () => {
      candidates.forEach((c) => c.elector.start());
      const leader = await eventually(leaderOf, 3000, 'a leader');
      const standby = candidates.find((c) => c !== leader)!;
      await sleep(2 * RETRY_MS);
      const stoppedAt = performance.now();
      await leader.elector.stop();
      expect(leader.log.map((e) => e.event)).to.deep.equal(['start', 'stop']);
      await eventually(() => (standby.elector.isLeader() ? true : undefined), 3 * LEASE_MS, 'takeover');
      expect(standby.log.find((e) => e.event === 'start')!.at - stoppedAt).to.be.below(LEASE_MS / 2);
    });

    it('the started callback gets a signal that aborts when leadership ends', async () => {
      const opened = await target.open();
      let signal: AbortSignal | undefined;
      const elector = new LeaderElector({
        lease: opened.a,
        identity: 'solo',
        leaseDurationMs: LEASE_MS,
        renewDeadlineMs: RENEW_DEADLINE_MS,
        retryPeriodMs: RETRY_MS,
        onStartedLeading: (s) => void (signal = s),
        onStoppedLeading: () => undefined,
      });
      elector.start();
      await eventually(() => signal, 3000, 'leadership');
      expect(signal?.aborted).to.equal(false);
      await elector.stop();
      expect(signal?.aborted).to.equal(true);
      await opened.cleanup();
    });
  });
};
