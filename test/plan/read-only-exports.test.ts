/**
 * The exports publisher of a plan (src/plan/read-only-exports.ts): on a Kubernetes source (the fake API server's core
 * API and its CRs) and on the embedded store, a WorkloadCluster's exports are read where the control plane reads them,
 * a publish or a remove is a recorded ConfigMap write the later reads see, never a request or a store write, and a
 * write that would change nothing (the same exports in another key order, the remove of what is not there) is none.
 *
 * And the plan's resource source (src/plan/read-only-source.ts) records an apply only when the store would write.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { openKubernetesSource } from '../../src/kube/kubernetes/source.js';
import type { ResourceSource } from '../../src/kube/port.js';
import type { ClusterExports, ConfigMap } from '../../src/resources/index.js';
import { EXPORTS_JSON_KEY, embeddedExportsPublisher, exportsPublisherFor, kubernetesExportsPublisher } from '../../src/workload/exports-publisher.js';
import { readOnlyExports } from '../../src/plan/read-only-exports.js';
import { ReadOnlySource } from '../../src/plan/read-only-source.js';
import { exportsOf } from '../resources/cases/workload-cluster.cases.js';
import { FakeApiServer } from '../kube/support/fake-apiserver.js';

const exports = exportsOf() as unknown as ClusterExports;
const other = { ...exports, region: 'RegionTwo' } as ClusterExports;
/** The same exports, every object's keys in reverse order. */
const reordered = <T>(value: T): T =>
  (Array.isArray(value) ? value.map(reordered) : typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)])) : value) as T;
const writesOf = (source: ReadOnlySource) => source.writes.map((x) => `${x.op} ${x.kind} ${x.namespace}/${x.name}`);

interface Setting {
  stored: ResourceSource;
  /** Puts exports in the ConfigMap of `<cluster>` for real (outside the plan). */
  seed(clusterName: string, value: ClusterExports): Promise<void>;
  /** Every request or store write the setting saw since `seed`, as `<method> <path>`. */
  sent(): string[];
  close(): Promise<void>;
}

const behaves = (open: () => Promise<Setting>) => {
  let env: Setting;
  let plan: ReadOnlySource;
  beforeEach(async () => {
    env = await open();
    plan = new ReadOnlySource(env.stored);
  });
  afterEach(async () => env.close());

  it('reads the stored exports; a publish of others is a recorded apply the next read sees, and nothing is sent', async () => {
    await env.seed('demo', exports);
    const publisher = readOnlyExports(env.stored, plan);
    expect(await publisher.read('team-a', 'demo')).to.deep.equal(exports);
    expect(await publisher.publish('team-a', 'demo', other, { owner: { uid: 'uid-demo' } })).to.deep.equal({ name: 'demo-openstack-exports' });
    expect(writesOf(plan)).to.deep.equal(['apply ConfigMap team-a/demo-openstack-exports']);
    expect(await publisher.read('team-a', 'demo')).to.deep.equal(other);
    expect(await exportsPublisherFor(env.stored).read('team-a', 'demo')).to.deep.equal(exports);
    expect(env.sent().filter((r) => !r.startsWith('GET '))).to.deep.equal([]);
  });

  it('a new cluster: its first publish is an apply; publishing the same exports again (in any key order) is no write', async () => {
    const publisher = readOnlyExports(env.stored, plan);
    expect(await publisher.read('team-a', 'fresh')).to.equal(undefined);
    await publisher.publish('team-a', 'fresh', exports);
    await publisher.publish('team-a', 'fresh', reordered(exports));
    expect(writesOf(plan)).to.deep.equal(['apply ConfigMap team-a/fresh-openstack-exports']);
    expect(await exportsPublisherFor(env.stored).read('team-a', 'fresh')).to.equal(undefined);
  });

  it('the stored exports published again, keys in another order: no write', async () => {
    await env.seed('demo', exports);
    await readOnlyExports(env.stored, plan).publish('team-a', 'demo', reordered(exports));
    expect(plan.writes).to.deep.equal([]);
  });

  it('a remove is a recorded delete, after which the exports read as gone; removing what is not there is no write', async () => {
    await env.seed('demo', exports);
    const publisher = readOnlyExports(env.stored, plan);
    await publisher.remove('team-a', 'demo');
    expect(await publisher.read('team-a', 'demo')).to.equal(undefined);
    await publisher.remove('team-a', 'demo');
    await publisher.remove('team-a', 'never');
    expect(writesOf(plan)).to.deep.equal(['delete ConfigMap team-a/demo-openstack-exports']);
    expect(await exportsPublisherFor(env.stored).read('team-a', 'demo')).to.deep.equal(exports);
    expect(env.sent().filter((r) => !r.startsWith('GET '))).to.deep.equal([]);
  });
};

describe('plan: the exports publisher of a plan', () => {
  describe('on Kubernetes: the core API of the fake API server, read with GETs only', () => {
    let fake: FakeApiServer;
    behaves(async () => {
      fake = await FakeApiServer.start();
      const stored = openKubernetesSource({ kubeConfig: fake.kubeConfig() });
      return {
        stored,
        seed: async (clusterName, value) => {
          await kubernetesExportsPublisher(fake.kubeConfig()).publish('team-a', clusterName, value);
          fake.clearRequests();
        },
        sent: () => fake.requests.map((r) => `${r.method} ${r.path}`),
        close: async () => {
          await stored.close();
          await fake.close();
        },
      };
    });

    it("the Kubernetes resource source refuses a ConfigMap: the plan's source cannot stand in for the core API", async () => {
      fake = await FakeApiServer.start();
      const stored = openKubernetesSource({ kubeConfig: fake.kubeConfig() });
      try {
        const error = await exportsPublisherFor(new ReadOnlySource(stored)).read('team-a', 'demo').then(() => undefined, (e: unknown) => e);
        expect((error as Error).message).to.match(/^ConfigMap is not a Regent custom resource/);
        await kubernetesExportsPublisher(fake.kubeConfig()).publish('team-a', 'demo', exports);
        expect(await readOnlyExports(stored, new ReadOnlySource(stored)).read('team-a', 'demo')).to.deep.equal(exports);
      } finally {
        await stored.close();
        await fake.close();
      }
    });
  });

  describe('on the embedded store: its ConfigMaps', () => {
    let dir: string;
    let store: EmbeddedResourceSource;
    behaves(async () => {
      dir = mkdtempSync(join(tmpdir(), 'regent-plan-exports-'));
      store = openEmbeddedSource({ path: join(dir, 'resources.db') });
      const head = async () => (await store.list('ConfigMap')).resourceVersion;
      let seeded = await head();
      return {
        stored: store,
        seed: async (clusterName, value) => {
          await embeddedExportsPublisher(store).publish('team-a', clusterName, value);
          seeded = await head();
        },
        // the store's resource version moves with any write
        sent: () => [],
        close: async () => {
          expect(await head(), 'a write to the embedded store').to.equal(seeded);
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    });
  });
});

describe('plan: the read-only source records an apply only when the store would write', () => {
  let dir: string;
  let store: EmbeddedResourceSource;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-plan-apply-'));
    store = openEmbeddedSource({ path: join(dir, 'resources.db') });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const configMap = (data: Record<string, string>, labels: Record<string, string> = {}) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo-openstack-exports', namespace: 'team-a', labels }, spec: {}, data }) as never;

  it('the same data and labels: no write; other data, or a label added: an apply, kept for the next read', async () => {
    await store.apply(configMap({ [EXPORTS_JSON_KEY]: '{}' }, { a: '1' }));
    const before = await store.get('ConfigMap', 'team-a', 'demo-openstack-exports');
    const plan = new ReadOnlySource(store);
    expect((await plan.apply(configMap({ [EXPORTS_JSON_KEY]: '{}' }, { a: '1' }))).action).to.equal('unchanged');
    expect((await plan.apply(configMap({ [EXPORTS_JSON_KEY]: '{}' }))).action).to.equal('unchanged'); // apply merges labels
    expect(plan.writes).to.deep.equal([]);
    expect((await plan.apply(configMap({ [EXPORTS_JSON_KEY]: '{"x":1}' }, { a: '1' }))).action).to.equal('configured');
    expect(((await plan.get('ConfigMap', 'team-a', 'demo-openstack-exports')) as ConfigMap).data).to.deep.equal({ [EXPORTS_JSON_KEY]: '{"x":1}' });
    expect((await plan.apply(configMap({ [EXPORTS_JSON_KEY]: '{"x":1}' }, { b: '2' }))).action).to.equal('configured');
    expect(writesOf(plan)).to.deep.equal(['apply ConfigMap team-a/demo-openstack-exports', 'apply ConfigMap team-a/demo-openstack-exports']);
    expect(await store.get('ConfigMap', 'team-a', 'demo-openstack-exports')).to.deep.equal(before);
  });

  it('an object that is not there: its apply is a create, recorded', async () => {
    const plan = new ReadOnlySource(store);
    expect((await plan.apply(configMap({ [EXPORTS_JSON_KEY]: '{}' }))).action).to.equal('created');
    expect(writesOf(plan)).to.deep.equal(['apply ConfigMap team-a/demo-openstack-exports']);
    expect(await store.get('ConfigMap', 'team-a', 'demo-openstack-exports')).to.equal(undefined);
  });
});
