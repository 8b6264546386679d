/**
 * The exports publication port (issue 29): the embedded publisher against a real embedded store file (a core v1
 * ConfigMap `regent get configmaps` lists), and the Kubernetes publisher against the fake API server (core v1
 * ConfigMaps: read, create, replace, delete).
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { getResources } from '../../src/kube/cli/manifests.js';
import { formatTable } from '../../src/kube/cli/output.js';
import { openKubernetesSource } from '../../src/kube/kubernetes/source.js';
import type { ClusterExports, ConfigMap } from '../../src/resources/index.js';
import {
  EXPORTS_JSON_KEY,
  ExportsPublisherError,
  embeddedExportsPublisher,
  exportsPublisherFor,
  kubernetesExportsPublisher,
  KubernetesExportsPublisher,
  type ExportsPublisher,
} from '../../src/workload/exports-publisher.js';
import { exportsOf } from '../resources/cases/workload-cluster.cases.js';
import { FakeApiServer } from '../kube/support/fake-apiserver.js';

const exports = exportsOf() as unknown as ClusterExports;
const supplied = { ...exportsOf(null), control_plane_server_group_id: null } as unknown as ClusterExports;

/** What both implementations must do, the same way. */
const behaves = (open: () => Promise<{ publisher: ExportsPublisher; raw: (namespace: string, name: string) => Promise<{ data?: Record<string, string>; labels?: Record<string, string>; owners?: unknown[]; resourceVersion?: string } | undefined>; corrupt: (namespace: string, name: string) => Promise<void>; close: () => Promise<void> }>) => {
  let env: Awaited<ReturnType<typeof open>>;
  beforeEach(async () => (env = await open()));
  afterEach(async () => env.close());

  it('publish creates <cluster>-openstack-exports: the schema, the JSON, the cluster label', async () => {
    expect(await env.publisher.publish('team-a', 'demo', exports)).to.deep.equal({ name: 'demo-openstack-exports' });
    const raw = await env.raw('team-a', 'demo-openstack-exports');
    expect(raw?.data?.schema).to.equal('captf.io/openstack-cluster/v1');
    expect(JSON.parse(raw!.data![EXPORTS_JSON_KEY]!)).to.deep.equal(exports);
    expect(raw?.labels).to.include({ 'regent.dev/workload-cluster': 'demo' });
    expect(await env.publisher.read('team-a', 'demo')).to.deep.equal(exports);
  });

  it('publish again with the same exports is no write; with others, an update; nulls survive the round trip', async () => {
    await env.publisher.publish('team-a', 'demo', exports);
    const first = (await env.raw('team-a', 'demo-openstack-exports'))?.resourceVersion;
    await env.publisher.publish('team-a', 'demo', exports);
    expect((await env.raw('team-a', 'demo-openstack-exports'))?.resourceVersion).to.equal(first);
    await env.publisher.publish('team-a', 'demo', supplied);
    expect((await env.raw('team-a', 'demo-openstack-exports'))?.resourceVersion).to.not.equal(first);
    const read = await env.publisher.read('team-a', 'demo');
    expect(read).to.deep.equal(supplied);
    expect(read?.api).to.equal(null);
    expect(read?.control_plane_server_group_id).to.equal(null);
  });

  it('an owner makes the ConfigMap the cluster\'s (a controller reference)', async () => {
    await env.publisher.publish('team-a', 'demo', exports, { owner: { uid: 'uid-demo' } });
    expect((await env.raw('team-a', 'demo-openstack-exports'))?.owners).to.deep.equal([{ apiVersion: 'regent.dev/v1alpha1', kind: 'WorkloadCluster', name: 'demo', uid: 'uid-demo', controller: true, blockOwnerDeletion: true }]);
  });

  it('read: undefined when nothing is published; a ConfigMap that does not hold exports is an error, not a guess', async () => {
    expect(await env.publisher.read('team-a', 'demo')).to.equal(undefined);
    await env.publisher.publish('team-a', 'demo', exports);
    await env.corrupt('team-a', 'demo-openstack-exports');
    const error = await env.publisher.read('team-a', 'demo').then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(ExportsPublisherError);
    expect((error as Error).message).to.contain('is not captf.io/openstack-cluster/v1 exports');
  });

  it('remove deletes the ConfigMap; removing what is gone is success', async () => {
    await env.publisher.publish('team-a', 'demo', exports);
    await env.publisher.remove('team-a', 'demo');
    expect(await env.raw('team-a', 'demo-openstack-exports')).to.equal(undefined);
    await env.publisher.remove('team-a', 'demo');
    expect(await env.publisher.read('team-a', 'demo')).to.equal(undefined);
  });
};

describe('ExportsPublisher', () => {
  describe('embedded: core v1 ConfigMaps in the embedded store', () => {
    let dir: string;
    let source: EmbeddedResourceSource;
    behaves(async () => {
      dir = mkdtempSync(join(tmpdir(), 'regent-exports-'));
      source = openEmbeddedSource({ path: join(dir, 'resources.db') });
      return {
        publisher: embeddedExportsPublisher(source),
        raw: async (namespace, name) => {
          const o = (await source.get('ConfigMap', namespace, name)) as ConfigMap | undefined;
          return o && { data: o.data, labels: o.metadata.labels, owners: o.metadata.ownerReferences, resourceVersion: o.metadata.resourceVersion };
        },
        corrupt: async (namespace, name) => void (await source.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, spec: {}, data: { [EXPORTS_JSON_KEY]: '{"schema":"other"}' } } as never)),
        close: async () => {
          await source.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    });

    it('the store holds the ConfigMap as a core object: `regent get configmaps -n team-a` lists it, the ConfigMap kind validates its data', async () => {
      dir = mkdtempSync(join(tmpdir(), 'regent-exports-'));
      source = openEmbeddedSource({ path: join(dir, 'resources.db') });
      try {
        await embeddedExportsPublisher(source).publish('team-a', 'demo', exports);
        const listed = await getResources(source, 'configmaps', undefined, { namespace: 'team-a' });
        expect(listed.items.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.namespace}/${o.metadata.name}`)).to.deep.equal(['v1 ConfigMap team-a/demo-openstack-exports']);
        expect(formatTable('ConfigMap', listed.items, { now: new Date(Date.parse(listed.items[0]!.metadata.creationTimestamp) + 3000) })).to.equal(['NAME                     AGE', 'demo-openstack-exports   3s'].join('\n'));
        expect((await getResources(source, 'cm', 'demo-openstack-exports', { namespace: 'team-a' })).items).to.have.length(1);
        const bad = await source.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad', namespace: 'team-a' }, spec: {}, data: { 'not a key': 'x' } } as never).then(() => undefined, (e: unknown) => e);
        expect((bad as Error).message).to.contain("data: Invalid value: \"object\": every key must consist of alphanumeric characters, '-', '_' or '.'");
        // a label or annotation added by someone else survives a republish; the status patch path keeps the data
        await source.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'demo-openstack-exports', namespace: 'team-a', labels: { extra: 'yes' } }, spec: {}, data: { [EXPORTS_JSON_KEY]: JSON.stringify(exports) } } as never);
        await embeddedExportsPublisher(source).publish('team-a', 'demo', supplied);
        const stored = (await source.get('ConfigMap', 'team-a', 'demo-openstack-exports')) as ConfigMap;
        expect(stored.metadata.labels).to.include({ extra: 'yes', 'regent.dev/workload-cluster': 'demo' });
        await source.addFinalizer('ConfigMap', 'team-a', 'demo-openstack-exports', 'example.com/hold');
        expect(((await source.get('ConfigMap', 'team-a', 'demo-openstack-exports')) as ConfigMap).data).to.deep.equal((stored as ConfigMap).data);
      } finally {
        await source.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a ConfigMap owned by a WorkloadCluster goes with it (the embedded store\'s garbage collection)', async () => {
      dir = mkdtempSync(join(tmpdir(), 'regent-exports-'));
      source = openEmbeddedSource({ path: join(dir, 'resources.db') });
      try {
        const cluster = await source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'WorkloadCluster', metadata: { name: 'demo', namespace: 'team-a' }, spec: { identityRef: { name: 'acme' }, subnetID: '6f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f' } });
        const publisher = exportsPublisherFor(source);
        await publisher.publish('team-a', 'demo', exports, { owner: { uid: cluster.metadata.uid } });
        await source.delete('WorkloadCluster', 'team-a', 'demo');
        expect(await publisher.read('team-a', 'demo')).to.equal(undefined);
      } finally {
        await source.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  describe('Kubernetes: core v1 ConfigMaps through CoreV1Api (the fake API server)', () => {
    let fake: FakeApiServer;
    behaves(async () => {
      fake = await FakeApiServer.start();
      const path = (namespace: string, name: string) => fake.objects.path('configmaps', namespace, name);
      return {
        publisher: kubernetesExportsPublisher(fake.kubeConfig()),
        raw: async (namespace, name) => {
          const o = fake.objects.get(path(namespace, name)) as { data?: Record<string, string>; metadata: { labels?: Record<string, string>; ownerReferences?: unknown[]; resourceVersion?: string } } | undefined;
          return o && { data: o.data, labels: o.metadata.labels, owners: o.metadata.ownerReferences, resourceVersion: o.metadata.resourceVersion };
        },
        corrupt: async (namespace, name) => void fake.objects.mutate(path(namespace, name), (o) => void (o.data = { [EXPORTS_JSON_KEY]: '{"schema":"other"}' })),
        close: async () => {
          expect(fake.unexpected.map((r) => `${r.method} ${r.path}`), 'requests the fake does not serve').to.deep.equal([]);
          await fake.close();
        },
      };
    });

    it('sends exactly: GET, then POST when absent; GET, then PUT with the read\'s resourceVersion on a change; DELETE', async () => {
      fake = await FakeApiServer.start();
      try {
        const publisher = new KubernetesExportsPublisher(fake.kubeConfig());
        await publisher.publish('team-a', 'demo', exports);
        await publisher.publish('team-a', 'demo', exports);
        await publisher.publish('team-a', 'demo', supplied);
        await publisher.remove('team-a', 'demo');
        const at = '/api/v1/namespaces/team-a/configmaps';
        expect(fake.requests.map((r) => `${r.method} ${r.path}`)).to.deep.equal([`GET ${at}/demo-openstack-exports`, `POST ${at}`, `GET ${at}/demo-openstack-exports`, `GET ${at}/demo-openstack-exports`, `PUT ${at}/demo-openstack-exports`, `DELETE ${at}/demo-openstack-exports`]);
        const put = fake.requests.find((r) => r.method === 'PUT')!.body as { metadata: { resourceVersion?: string } };
        expect(put.metadata.resourceVersion).to.be.a('string');
      } finally {
        await fake.close();
      }
    });

    it('exportsPublisherFor picks the Kubernetes publisher for the Kubernetes resource source', async () => {
      fake = await FakeApiServer.start();
      const source = openKubernetesSource({ kubeConfig: fake.kubeConfig() });
      try {
        await exportsPublisherFor(source).publish('team-a', 'demo', exports);
        expect(fake.objects.get(fake.objects.path('configmaps', 'team-a', 'demo-openstack-exports'))).to.not.equal(undefined);
      } finally {
        await source.close();
        await fake.close();
      }
    });

    it('an API server that cannot be reached, or refuses, is an ExportsPublisherError with its status', async () => {
      fake = await FakeApiServer.start();
      try {
        fake.failNext('GET', '/api/v1/namespaces/team-a/configmaps/demo-openstack-exports', 403, 'Forbidden', 'no');
        const error = await kubernetesExportsPublisher(fake.kubeConfig()).publish('team-a', 'demo', exports).then(() => undefined, (e: unknown) => e);
        expect(error).to.be.instanceOf(ExportsPublisherError);
        expect((error as ExportsPublisherError).code).to.equal(403);
      } finally {
        await fake.close();
      }
    });
  });
});
