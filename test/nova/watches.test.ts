/**
 * The Nova controller's watches (src/nova/watches.ts) on the wire, against the fake API server with its object watch
 * enabled (test/kube/support/fake-object-watch.ts): each leg's change enqueues exactly the Nova it concerns (a Job's
 * status, a Deployment's, a CronJob's status.active, a referenced Secret, a MariaDB cluster, the selected SecretStore),
 * an unrelated object enqueues none; the first list wakes nothing, a resume loses nothing, a 410 relists and wakes what
 * it lists, a CRD that is not installed turns its leg off with one info log, stop ends every stream; and the requests
 * made are list and watch on exactly the resources the Role must grant (no ClusterSecretStore under --namespace).
 */
import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { FakeApiServer, type FakePlural, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { accessOf, triple } from '../deploy/support/rbac.js';
import { startNovaWatches, novaWatchLegs, legPath, type NovaWatches } from '../../src/nova/watches.js';
import type { Nova, NovaSpec } from '../../src/resources/nova.js';
import type { Logger } from '../../src/log/logger.js';

import { novaObject, novaSpecFor } from './support/nova-objects.js';
const NS = 'openstack';
type Json = Record<string, unknown>;
interface Logged {
  level: string;
  message: string;
  meta: Record<string, unknown>;
}

const spec = novaSpecFor;
const nova = (name: string, uid: string, novaSpec: NovaSpec, namespace = NS): Nova => novaObject(name, uid, novaSpec, namespace);
const A = nova('a', 'uid-a', spec('a'));
const B = nova('b', 'uid-b', spec('b', { secretStoreRef: { name: 'vault', kind: 'SecretStore' } }));
const ELSEWHERE = nova('a', 'uid-c', spec('a'), 'other');
const NOVAS = [A, B, ELSEWHERE];

const ownedBy = (n: Nova) => [{ apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', name: n.metadata.name, uid: n.metadata.uid, controller: true, blockOwnerDeletion: true }];
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

describe('the Nova controller watches on Kubernetes (nova-operator.md, "Watches and indexes")', () => {
  let fake: FakeApiServer;
  let watches: NovaWatches | undefined;
  let woken: string[];
  let logs: Logged[];
  let core: CoreV1Api;
  const logger = (): Logger => {
    const at = (level: string) => (message: string, meta: Record<string, unknown> = {}) => void logs.push({ level, message, meta });
    return { warn: at('warn'), info: at('info'), error: at('error'), debug: at('debug') } as unknown as Logger;
  };
  /** The fake's path of a collection in the install namespace, or of one object in it. */
  const path = (plural: FakePlural, name?: string): string => fake.objects.path(plural, NS, name);
  const legCount = novaWatchLegs(NS, false).length;

  const start = async (options: { notInstalledRetryMs?: number; legsUp?: number } = {}): Promise<void> => {
    watches = startNovaWatches({
      kubeConfig: fake.kubeConfig(),
      namespace: NS,
      clusterScoped: false,
      novas: () => NOVAS,
      enqueue: (key) => woken.push(key),
      logger: logger(),
      timing: { backoffInitialMs: 20, backoffMaxMs: 100, notInstalledRetryMs: options.notInstalledRetryMs ?? 60_000 },
    });
    await eventually(() => fake.objects.watch.open === (options.legsUp ?? legCount), `${options.legsUp ?? legCount} watch streams open`);
  };
  /** The keys woken once things settled: exactly these, and nothing more arrives. */
  const wokenExactly = async (keys: string[], what: string): Promise<void> => {
    await eventually(() => woken.length >= keys.length, what);
    await sleep(80);
    expect(woken, what).to.deep.equal(keys);
  };

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    fake.objects.watch.enable();
    core = fake.kubeConfig().makeApiClient(CoreV1Api);
    woken = [];
    logs = [];
    // what exists before the watches start: A's children, the clusters and the Secrets both Novas read, B's store
    fake.objects.put(path('deployments', 'a-api'), { metadata: { ownerReferences: ownedBy(A), labels: { 'regent.dev/nova': 'a' } }, spec: { replicas: 1 } });
    fake.objects.put(path('deployments', 'unrelated'), { metadata: {}, spec: { replicas: 1 } });
    fake.objects.put(path('jobs', 'a-db-sync'), { metadata: { ownerReferences: ownedBy(A), labels: { 'regent.dev/nova': 'a' } }, spec: {} });
    fake.objects.put(path('cronjobs', 'a-db-archive'), { metadata: { ownerReferences: ownedBy(A), labels: { 'regent.dev/nova': 'a' } }, spec: { schedule: '0 * * * *' } });
    fake.objects.put(path('mariadbs', 'a-mariadb'), { metadata: {}, spec: {} });
    fake.objects.put(path('mariadbs', 'b-mariadb'), { metadata: {}, spec: {} });
    fake.objects.put(path('mariadbs', 'nobodys'), { metadata: {}, spec: {} });
    fake.objects.put(path('secretstores', 'vault'), { metadata: {}, spec: {} });
    for (const name of ['a-cell-db', 'b-cell-db', 'unreferenced']) await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name }, data: { password: b64('one') } } });
  });

  afterEach(async () => {
    await watches?.stop();
    watches = undefined;
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  it('the first list wakes nothing (the informer enqueues every Nova at start)', async () => {
    await start();
    await sleep(80);
    expect(woken).to.deep.equal([]);
  });

  it('a Job status change enqueues exactly its owning Nova', async () => {
    await start();
    fake.objects.completeJob(NS, 'a-db-sync');
    await wokenExactly(['openstack/a'], 'the Job wakes a');
  });

  it('a Deployment status change enqueues exactly its owning Nova; an unrelated Deployment none', async () => {
    await start();
    fake.objects.setStatus(path('deployments', 'unrelated'), { readyReplicas: 1 });
    fake.objects.setStatus(path('deployments', 'a-api'), { readyReplicas: 1, availableReplicas: 1 });
    await wokenExactly(['openstack/a'], 'the Deployment wakes a');
  });

  it("a CronJob's status.active change enqueues exactly its owning Nova (what refreshes DBArchiveReady)", async () => {
    await start();
    fake.objects.setStatus(path('cronjobs', 'a-db-archive'), { active: [{ kind: 'Job', namespace: NS, name: 'a-db-archive-29000000', apiVersion: 'batch/v1' }] });
    await wokenExactly(['openstack/a'], 'the CronJob wakes a');
  });

  it('an update of a referenced Secret enqueues exactly the Nova referencing it; an unreferenced Secret none', async () => {
    await start();
    const replace = async (name: string) => {
      const current = await core.readNamespacedSecret({ namespace: NS, name });
      await core.replaceNamespacedSecret({ namespace: NS, name, body: { ...current, data: { password: b64('rotated') } } });
    };
    await replace('unreferenced');
    await replace('b-cell-db');
    await wokenExactly(['openstack/b'], 'the Secret wakes b');
  });

  it('a MariaDB status change enqueues exactly the Nova whose clusterRefs name it, once although both do', async () => {
    await start();
    fake.objects.setStatus(path('mariadbs', 'nobodys'), { conditions: [{ type: 'Ready', status: 'True' }] });
    fake.objects.setStatus(path('mariadbs', 'a-mariadb'), { conditions: [{ type: 'Ready', status: 'True' }] });
    await wokenExactly(['openstack/a'], 'the cluster wakes a once');
  });

  it('a status change of the selected SecretStore enqueues exactly the Nova selecting it', async () => {
    await start();
    fake.objects.setStatus(path('secretstores', 'vault'), { conditions: [{ type: 'Ready', status: 'False', reason: 'ValidationFailed' }] });
    await wokenExactly(['openstack/b'], 'the store wakes b');
  });

  it('objects nobody owns, labels or references enqueue none: created, changed and deleted', async () => {
    await start();
    fake.objects.put(path('services', 'someone-elses'), { metadata: { labels: { app: 'x' } }, spec: {} });
    fake.objects.put(path('configmaps', 'someone-elses'), { metadata: {}, data: { a: 'b' } });
    fake.objects.setStatus(path('deployments', 'unrelated'), { readyReplicas: 2 });
    fake.objects.remove(path('deployments', 'unrelated'));
    await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'another' }, data: { x: b64('y') } } });
    await sleep(150);
    expect(woken).to.deep.equal([]);
  });

  it('a stream the server ends is resumed from the last version seen: the change in the gap wakes once', async () => {
    await start();
    fake.objects.setStatus(path('deployments', 'a-api'), { readyReplicas: 1 });
    await wokenExactly(['openstack/a'], 'the first change');
    const seen = fake.objects.get(path('deployments', 'a-api'))!;
    fake.endWatches();
    fake.objects.completeJob(NS, 'a-db-sync');
    await wokenExactly(['openstack/a', 'openstack/a'], 'the change made while disconnected');
    await eventually(() => fake.objects.watch.open === legCount, 'every leg reconnected');
    const resumed = fake.requests.filter((r) => r.path === path('deployments') && r.query.watch === 'true').map((r) => r.query.resourceVersion);
    expect(resumed.at(-1), 'the Deployment leg resumed from the last event it saw').to.equal((seen.metadata as Json).resourceVersion);
  });

  it('a 410 Gone on resume relists, and the relist wakes what it lists (the events in the gap are lost)', async () => {
    await start();
    fake.endWatches();
    // while the watcher is away: a change, then the history compacted past its version
    fake.objects.completeJob(NS, 'a-db-sync');
    fake.objects.watch.compact();
    await wokenExactly(['openstack/a'], 'the relist of Jobs wakes a');
    const jobs = fake.requests.filter((r) => r.path === path('jobs')).map((r) => (r.query.watch === 'true' ? 'watch' : 'list'));
    expect(jobs, 'list, watch, the 410 watch, then list and watch again').to.deep.equal(['list', 'watch', 'watch', 'list', 'watch']);
  });

  it('a CRD that is not installed turns its leg off with one info log, retried, and the other legs still wake', async () => {
    fake.objects.uninstall('k8s.mariadb.com/v1alpha1');
    await start({ notInstalledRetryMs: 40, legsUp: legCount - 1 });
    await eventually(() => fake.requests.filter((r) => r.path === path('mariadbs')).length >= 3, 'the leg tried again');
    const said = logs.filter((l) => l.level === 'info' && l.meta.resource === 'mariadbs.k8s.mariadb.com');
    expect(said, 'one info log').to.have.length(1);
    expect(said[0]!.message).to.match(/not installed/);
    expect(logs.filter((l) => l.level === 'warn' || l.level === 'error'), 'nothing louder').to.deep.equal([]);
    fake.objects.completeJob(NS, 'a-db-sync');
    await wokenExactly(['openstack/a'], 'the Job leg works');
  });

  it('stop ends every stream; a change after it wakes none', async () => {
    await start();
    await watches!.stop();
    await eventually(() => fake.objects.watch.open === 0, 'the streams closed');
    fake.objects.completeJob(NS, 'a-db-sync');
    await sleep(100);
    expect(woken).to.deep.equal([]);
  });

  it('needs exactly list and watch on the legs’ resources in the install namespace; no ClusterSecretStore leg under --namespace', async () => {
    await start();
    expect(watches!.resources).to.not.include('clustersecretstores.external-secrets.io');
    expect(novaWatchLegs(NS, true).map((l) => l.resource), 'a cluster-scoped install registers it').to.include('clustersecretstores.external-secrets.io');
    expect(legPath(novaWatchLegs(NS, true).at(-1)!), 'cluster-wide').to.equal('/apis/external-secrets.io/v1beta1/clustersecretstores');
    const used = [...new Set(fake.requests.filter((r) => r.method === 'GET' && !r.path.endsWith('/secrets/a-cell-db')).map((r) => accessOf(r.method, r.path, r.query)).filter((a) => a.verb === 'list' || a.verb === 'watch').map((a) => `${a.namespace ?? '*'} ${triple(a.group, a.resource, a.verb)}`))].sort();
    const expected = [
      ['apps', 'deployments'],
      ['', 'services'],
      ['', 'configmaps'],
      ['', 'secrets'],
      ['policy', 'poddisruptionbudgets'],
      ['autoscaling', 'horizontalpodautoscalers'],
      ['networking.k8s.io', 'networkpolicies'],
      ['batch', 'jobs'],
      ['batch', 'cronjobs'],
      ['gateway.networking.k8s.io', 'httproutes'],
      ['k8s.mariadb.com', 'mariadbs'],
      ['external-secrets.io', 'secretstores'],
    ].flatMap(([group, resource]) => ['list', 'watch'].map((verb) => `${NS} ${triple(group!, resource!, verb)}`));
    expect(used).to.deep.equal([...expected].sort());
  });
});
