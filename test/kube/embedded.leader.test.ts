/** Leader election on the embedded store's lease row: two connections, as two local replicas. */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedLeaseBackend } from '../../src/kube/embedded/lease.js';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { LeaderElector } from '../../src/kube/leader/elector.js';
import { runElectionSuite } from './support/election.js';

runElectionSuite({
  name: 'embedded lease row',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'regent-lease-'));
    const a = openEmbeddedSource({ path: join(dir, 'resources.db') });
    const b = openEmbeddedSource({ path: join(dir, 'resources.db') });
    return {
      a: new EmbeddedLeaseBackend(a.database, 'regent-system', 'regent-controller'),
      b: new EmbeddedLeaseBackend(b.database, 'regent-system', 'regent-controller'),
      async cleanup() {
        await a.close();
        await b.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

describe('leader election options', () => {
  it('refuse a renew deadline that is not shorter than the lease, or a retry period not shorter than the deadline', () => {
    const lease = { description: 'x', get: async () => undefined, create: async () => ({}) as never, update: async () => ({}) as never };
    const base = { lease, identity: 'a', onStartedLeading: () => undefined, onStoppedLeading: () => undefined };
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 1000, renewDeadlineMs: 1000, retryPeriodMs: 100 })).to.throw(/renewDeadlineMs/);
    expect(() => new LeaderElector({ ...base, leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 1000 })).to.throw(/retryPeriodMs/);
    expect(() => new LeaderElector({ ...base, identity: '' })).to.throw(/identity/);
  });
});
