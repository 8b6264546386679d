/**
 * The NovaCompute controller's watches (src/nova/compute/watches.ts) on the wire, against the fake API server with its
 * object watch enabled: a DaemonSet's status change enqueues its pool, a ConfigMap of a pool its pool, the contract
 * Secret `<nova>-compute-config` every pool of that Nova; an unlabelled object, another Secret, another pool's object
 * enqueue only what they concern; the first list wakes nothing; stop ends every stream; and the requests made are list
 * and watch on the three legs in the install namespace, the DaemonSets and ConfigMaps by the pool label.
 */
import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { FakeApiServer, type FakePlural, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { accessOf, triple } from '../deploy/support/rbac.js';
import { startPoolWatches } from '../../src/nova/compute/watches.js';
import { poolWatchLegs } from '../../src/nova/compute/watch-legs.js';
import type { NovaWatches } from '../../src/nova/watches.js';
import { POOL_LABEL } from '../../src/nova/compute/port.js';
import type { NovaCompute } from '../../src/resources/nova-compute.js';
import type { Logger } from '../../src/log/logger.js';

const NS = 'openstack';
const pool = (name: string, uid: string, nova: string): NovaCompute =>
  ({ apiVersion: 'regent.dev/v1alpha1', kind: 'NovaCompute', metadata: { namespace: NS, name, uid, resourceVersion: '1', generation: 1, creationTimestamp: '2025-01-01T00:00:00Z' }, spec: { novaRef: { name: nova }, nodeSelector: { 'topology.kubernetes.io/zone': name } } }) as NovaCompute;
const POOLS = [pool('az1', 'uid-az1', 'a'), pool('az2', 'uid-az2', 'a'), pool('az3', 'uid-az3', 'b')];

const ownedBy = (p: NovaCompute) => [{ apiVersion: 'regent.dev/v1alpha1', kind: 'NovaCompute', name: p.metadata.name, uid: p.metadata.uid, controller: true, blockOwnerDeletion: true }];
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const eventually = async (check: () => boolean, what: string, ms = 3000): Promise<void> => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
};
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;

describe('the NovaCompute controller watches on Kubernetes (nova-operator.md, "Watches")', () => {
  let fake: FakeApiServer;
  let watches: NovaWatches | undefined;
  let woken: string[];
  let core: CoreV1Api;
  const logger = (): Logger => ({ warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined }) as unknown as Logger;
  const path = (plural: FakePlural, name?: string): string => fake.objects.path(plural, NS, name);
  const legCount = poolWatchLegs(NS).length;

  const start = async (): Promise<void> => {
    watches = startPoolWatches({
      kubeConfig: fake.kubeConfig(),
      namespace: NS,
      pools: () => POOLS,
      enqueue: (key) => woken.push(key),
      logger: logger(),
      timing: { backoffInitialMs: 20, backoffMaxMs: 100, notInstalledRetryMs: 60_000 },
    });
    await eventually(() => fake.objects.watch.open === legCount, `${legCount} watch streams open`);
  };
  /** The keys woken once things settled (sorted): exactly these, and nothing more arrives. */
  const wokenExactly = async (keys: string[], what: string): Promise<void> => {
    await eventually(() => woken.length >= keys.length, what);
    await sleep(80);
    expect([...woken].sort(), what).to.deep.equal([...keys].sort());
  };
  const replaceSecret = async (name: string): Promise<void> => {
    const current = await core.readNamespacedSecret({ namespace: NS, name });
    await core.replaceNamespacedSecret({ namespace: NS, name, body: { ...current, data: { ...current.data, 'compute.conf': b64('rotated') } } });
  };

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    fake.objects.watch.enable();
    core = fake.kubeConfig().makeApiClient(CoreV1Api);
    woken = [];
    // what exists before the watches start: az1's DaemonSet and config, an unlabelled DaemonSet, the contract Secrets
    fake.objects.put(path('daemonsets', 'az1-nova-compute'), { metadata: { ownerReferences: ownedBy(POOLS[0]!), labels: { [POOL_LABEL]: 'az1' } }, spec: {} });
    fake.objects.put(path('daemonsets', 'az3-nova-compute'), { metadata: { ownerReferences: ownedBy(POOLS[2]!), labels: { [POOL_LABEL]: 'az3' } }, spec: {} });
    fake.objects.put(path('daemonsets', 'unrelated'), { metadata: { labels: { app: 'x' } }, spec: {} });
    fake.objects.put(path('configmaps', 'az2-config-0123456789'), { metadata: { ownerReferences: ownedBy(POOLS[1]!), labels: { [POOL_LABEL]: 'az2' } }, data: { 'compute-pool.conf': '' } });
    for (const name of ['a-compute-config', 'b-compute-config', 'a-service-user']) await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name }, data: { 'compute.conf': b64('one') } } });
  });

  afterEach(async () => {
    await watches?.stop();
    watches = undefined;
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  it('the first list wakes nothing (the informer enqueues every pool at start)', async () => {
    await start();
    await sleep(80);
    expect(woken).to.deep.equal([]);
  });

  it('a DaemonSet status change enqueues exactly its pool; an unlabelled DaemonSet none', async () => {
    await start();
    fake.objects.setStatus(path('daemonsets', 'unrelated'), { numberReady: 1 });
    fake.objects.setStatus(path('daemonsets', 'az1-nova-compute'), { desiredNumberScheduled: 2, numberReady: 1 });
    await wokenExactly(['openstack/az1'], 'the DaemonSet wakes az1');
  });

  it('a ConfigMap of a pool enqueues exactly that pool', async () => {
    await start();
    fake.objects.put(path('configmaps', 'az3-config-abcdef0123'), { metadata: { ownerReferences: ownedBy(POOLS[2]!), labels: { [POOL_LABEL]: 'az3' } }, data: { 'compute-pool.conf': '' } });
    await wokenExactly(['openstack/az3'], 'the new config wakes az3');
  });

  it('a change of the contract Secret enqueues every pool of its Nova; another Secret none', async () => {
    await start();
    await replaceSecret('a-service-user');
    await replaceSecret('a-compute-config');
    await wokenExactly(['openstack/az1', 'openstack/az2'], 'the contract of a wakes az1 and az2');
    woken = [];
    await replaceSecret('b-compute-config');
    await wokenExactly(['openstack/az3'], 'the contract of b wakes az3');
  });

  it('stop ends every stream; a change after it wakes none', async () => {
    await start();
    await watches!.stop();
    await eventually(() => fake.objects.watch.open === 0, 'the streams closed');
    fake.objects.setStatus(path('daemonsets', 'az1-nova-compute'), { numberReady: 2 });
    await replaceSecret('a-compute-config');
    await sleep(100);
    expect(woken).to.deep.equal([]);
  });

  it('needs exactly list and watch on daemonsets, configmaps and secrets in the install namespace; the pool objects by the label', async () => {
    await start();
    expect(watches!.resources).to.deep.equal(['daemonsets.apps', 'configmaps', 'secrets']);
    const secrets = `/api/v1/namespaces/${NS}/secrets`;
    const legRequests = fake.requests.filter((r) => r.method === 'GET' && [path('daemonsets'), path('configmaps'), secrets].includes(r.path));
    const used = [...new Set(legRequests.map((r) => accessOf(r.method, r.path, r.query)).map((a) => `${a.namespace ?? '*'} ${triple(a.group, a.resource, a.verb)}`))].sort();
    const expected = [['apps', 'daemonsets'], ['', 'configmaps'], ['', 'secrets']].flatMap(([group, resource]) => ['list', 'watch'].map((verb) => `${NS} ${triple(group!, resource!, verb)}`));
    expect(used).to.deep.equal(expected.sort());
    const selectors = legRequests.map((r) => [r.path, r.query.labelSelector ?? null]);
    expect(new Set(selectors.filter(([p]) => p !== secrets).map(([, s]) => s)), 'every DaemonSet and ConfigMap request selects by the pool label').to.deep.equal(new Set([POOL_LABEL]));
    expect(new Set(selectors.filter(([p]) => p === secrets).map(([, s]) => s)), 'the Secrets unselected').to.deep.equal(new Set([null]));
  });
});
