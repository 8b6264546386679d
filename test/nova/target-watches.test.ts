/**
 * A Nova's children watched on its target cluster (src/nova/target-watches.ts; nova-operator.md, "Watches and
 * indexes": "by ownership label rather than by owner reference"; issue 27), against a fake API server acting as the
 * target with its object watch enabled: a Deployment labelled with the Nova's uid wakes that Nova, an unlabelled one
 * none; every list and watch selects by the uid label; ensure twice starts one set; stopAll ends every stream.
 */
import { expect } from 'chai';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { startTargetWatches, targetWatchLegs, type TargetWatches } from '../../src/nova/target-watches.js';
import type { TargetCluster } from '../../src/nova/target-clusters.js';
import type { Nova, NovaSpec } from '../../src/resources/nova.js';
import type { Logger } from '../../src/log/logger.js';

import { novaObject, novaSpecFor } from './support/nova-objects.js';
const NS = 'openstack';
const spec = (prefix: string, target: string | undefined): NovaSpec => novaSpecFor(prefix, target ? { targetClusterRef: { name: target } } : {});
const nova = (name: string, uid: string, target: string | undefined): Nova => novaObject(name, uid, spec(name, target), NS);
const E = nova('e', 'uid-e', 'edge');
const LOCAL = nova('a', 'uid-a', undefined);
const NOVAS = [E, LOCAL];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const eventually = async (check: () => boolean, what: string, ms = 3000): Promise<void> => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
};
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;
const quiet = { warn: () => undefined, info: () => undefined, error: () => undefined, debug: () => undefined } as unknown as Logger;

describe("a Nova's children watched on its target cluster by the uid label (issue 27)", () => {
  let fake: FakeApiServer;
  let targets: TargetWatches;
  let woken: string[];
  let cluster: TargetCluster;
  const legCount = targetWatchLegs('edge', NS).length;
  const path = (name?: string) => fake.objects.path('deployments', NS, name);

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    fake.objects.watch.enable();
    woken = [];
    const kubeConfig = fake.kubeConfig();
    cluster = { name: 'edge', kubeConfig, server: kubeConfig.getCurrentCluster()!.server };
    targets = startTargetWatches({ novas: () => NOVAS, enqueue: (key) => woken.push(key), logger: quiet, timing: { backoffInitialMs: 20, backoffMaxMs: 100 } });
    // projected onto the target: no owner reference, the uid label (src/nova/ownership.ts); and someone else's
    fake.objects.put(path('e-api'), { metadata: { labels: { 'regent.dev/nova': 'e', 'regent.dev/nova-uid': 'uid-e' } }, spec: { replicas: 1 } });
    fake.objects.put(path('unlabelled'), { metadata: { labels: { 'regent.dev/nova': 'e' } }, spec: { replicas: 1 } });
    fake.objects.put(path('left-by-a'), { metadata: { labels: { 'regent.dev/nova-uid': 'uid-a' } }, spec: { replicas: 1 } });
  });

  afterEach(async () => {
    await targets.stopAll();
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  it('the legs are the owned kinds alone: no Secret index, MariaDB cluster or SecretStore leg on a target', () => {
    expect(targetWatchLegs('edge', NS).map((l) => l.resource)).to.deep.equal([
      'deployments.apps',
      'services',
      'configmaps',
      'secrets',
      'poddisruptionbudgets.policy',
      'horizontalpodautoscalers.autoscaling',
      'networkpolicies.networking.k8s.io',
      'jobs.batch',
      'cronjobs.batch',
      'httproutes.gateway.networking.k8s.io',
    ]);
  });

  it('a Deployment status change labelled with the Nova’s uid enqueues that Nova; an unlabelled one, or one of a Nova on no target, none', async () => {
    expect(targets.ensure(cluster, NS), 'not live before its lists').to.equal(false);
    await eventually(() => fake.objects.watch.open === legCount, `${legCount} watch streams open`);
    await eventually(() => targets.ensure(cluster, NS), 'the set is live');
    fake.objects.setStatus(path('unlabelled'), { readyReplicas: 1 });
    fake.objects.setStatus(path('left-by-a'), { readyReplicas: 1 });
    fake.objects.setStatus(path('e-api'), { readyReplicas: 1, availableReplicas: 1 });
    await eventually(() => woken.length >= 1, 'the labelled Deployment wakes e');
    await sleep(80);
    expect(woken).to.deep.equal(['openstack/e']);
  });

  it('every list and watch on the target selects by the uid label, in the namespace', async () => {
    targets.ensure(cluster, NS);
    await eventually(() => fake.objects.watch.open === legCount, 'the streams open');
    const calls = fake.requests.filter((r) => r.method === 'GET' && r.path !== '/version');
    expect(calls.length, 'a list and a watch per leg').to.be.at.least(2 * legCount);
    for (const r of calls) {
      expect(r.query.labelSelector, line(r)).to.equal('regent.dev/nova-uid');
      expect(r.path, line(r)).to.contain(`/namespaces/${NS}/`);
    }
  });

  it('ensure twice starts one set; another namespace a second; stopAll ends every stream and later ensures start none', async () => {
    targets.ensure(cluster, NS);
    targets.ensure(cluster, NS);
    targets.ensure({ ...cluster }, NS);
    expect(targets.size).to.equal(1);
    await eventually(() => fake.objects.watch.open === legCount, 'one set of streams');
    targets.ensure(cluster, 'elsewhere');
    expect(targets.size).to.equal(2);
    await eventually(() => fake.objects.watch.open === 2 * legCount, 'two sets of streams');
    await targets.stopAll();
    await eventually(() => fake.objects.watch.open === 0, 'the streams closed');
    expect(targets.ensure(cluster, NS), 'stopped: nothing starts').to.equal(false);
    expect(targets.size).to.equal(0);
    fake.objects.setStatus(path('e-api'), { readyReplicas: 1 });
    await sleep(80);
    expect(woken).to.deep.equal([]);
  });
});
