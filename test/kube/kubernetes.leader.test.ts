/**
 * Leader election on a coordination.k8s.io/v1 Lease through the fake API server: the election suite,
 * plus the exact Lease create and update bodies and the 409 a losing candidate gets.
 */
import { expect } from 'chai';
import { KubernetesLeaseBackend } from '../../src/kube/kubernetes/lease.js';
import { LeaderElector } from '../../src/kube/leader/elector.js';
import { FakeApiServer } from './support/fake-apiserver.js';
import { runElectionSuite, LEASE_MS, RENEW_DEADLINE_MS, RETRY_MS } from './support/election.js';
import { eventually } from './support/fixtures.js';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/regent-system/leases';

runElectionSuite({
  name: 'coordination.k8s.io/v1 Lease (fake API server)',
  async open() {
    const fake = await FakeApiServer.start();
    return {
      a: new KubernetesLeaseBackend(fake.kubeConfig(), 'regent-system', 'regent-controller'),
      b: new KubernetesLeaseBackend(fake.kubeConfig(), 'regent-system', 'regent-controller'),
      cleanup: () => fake.close(),
    };
  },
});

describe('leader election: Lease requests on the wire', function () {
  this.timeout(10_000);
  let fake: FakeApiServer;
  beforeEach(async () => (fake = await FakeApiServer.start()));
  afterEach(async () => {
    const unexpected = fake.unexpected.map((r) => `${r.method} ${r.path}`);
    await fake.close();
    expect(unexpected).to.deep.equal([]);
  });

  const elector = (identity: string, onStarted: () => void = () => undefined) =>
    new LeaderElector({
      lease: new KubernetesLeaseBackend(fake.kubeConfig(), 'regent-system', 'regent-controller'),
      identity,
      leaseDurationMs: LEASE_MS,
      renewDeadlineMs: RENEW_DEADLINE_MS,
      retryPeriodMs: RETRY_MS,
      onStartedLeading: onStarted,
      onStoppedLeading: () => undefined,
    });

  it('acquires with GET (404) then POST of a Lease naming the holder, duration in seconds and MicroTimes', async () => {
    let leading = false;
    const a = elector('replica-a', () => (leading = true));
    a.start();
    await eventually(() => (leading ? true : undefined), 3000, 'leadership');
    await a.stop({ release: false });
    const [get, post] = fake.requests;
    expect(`${get!.method} ${get!.path}`).to.equal(`GET ${LEASES}/regent-controller`);
    expect(`${post!.method} ${post!.path}`).to.equal(`POST ${LEASES}`);
    const body = post!.body as { apiVersion: string; kind: string; metadata: unknown; spec: Record<string, unknown> };
    expect(body).to.deep.include({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'regent-controller', namespace: 'regent-system' } });
    expect(body.spec).to.deep.include({ holderIdentity: 'replica-a', leaseDurationSeconds: 1, leaseTransitions: 0 });
    expect(body.spec.acquireTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(body.spec.renewTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('renews with PUTs carrying the read resourceVersion, keeping acquireTime and transitions', async () => {
    let leading = false;
    const a = elector('replica-a', () => (leading = true));
    a.start();
    await eventually(() => (leading ? true : undefined), 3000, 'leadership');
    await eventually(() => (fake.requests.filter((r) => r.method === 'PUT').length >= 2 ? true : undefined), 3000, 'two renewals');
    await a.stop({ release: false });
    const created = fake.requests.find((r) => r.method === 'POST')!.body as { spec: { acquireTime: string } };
    const puts = fake.requests.filter((r) => r.method === 'PUT');
    for (const put of puts) {
      expect(put.path).to.equal(`${LEASES}/regent-controller`);
      const body = put.body as { metadata: { resourceVersion?: string }; spec: Record<string, unknown> };
      expect(body.metadata.resourceVersion).to.match(/^\d+$/);
      expect(body.spec).to.deep.include({ holderIdentity: 'replica-a', leaseTransitions: 0, acquireTime: created.spec.acquireTime });
    }
  });

  it('a takeover PUT increments leaseTransitions; a candidate whose PUT meets 409 does not lead', async () => {
    let aLeading = false;
    const a = elector('replica-a', () => (aLeading = true));
    a.start();
    await eventually(() => (aLeading ? true : undefined), 3000, 'a leads');
    await a.stop({ release: false });
    fake.failNext('PUT', `${LEASES}/regent-controller`, 409, 'Conflict');
    let bLeading = false;
    const b = elector('replica-b', () => (bLeading = true));
    b.start();
    await eventually(() => (bLeading ? true : undefined), 4 * LEASE_MS, 'b takes over');
    await b.stop({ release: false });
    const bPuts = fake.requests.filter((r) => r.method === 'PUT' && (r.body as { spec: { holderIdentity: string } }).spec.holderIdentity === 'replica-b');
    expect(bPuts.length, 'the 409 attempt, then the winning one').to.be.at.least(2);
    expect((bPuts[0]!.body as { spec: { leaseTransitions: number } }).spec.leaseTransitions).to.equal(1);
    const lease = await new KubernetesLeaseBackend(fake.kubeConfig(), 'regent-system', 'regent-controller').get();
    expect(lease).to.deep.include({ holderIdentity: 'replica-b', leaseTransitions: 1, leaseDurationMs: 1000 });
  });
});
