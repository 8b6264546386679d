/**
 * The Kubernetes ConfigPort (src/nova/config/kubernetes.ts) on the wire, against the fake API server: the immutable
 * ConfigMap it creates, no write when nothing changed, adopting a ConfigMap a Job created first, "newest" as most
 * recently published, the history rule sparing the live API's config, `current` read off the API Deployment, and
 * errors with their HTTP status.
 */
import { expect } from 'chai';
import { KubernetesConfigStore } from '../../src/nova/config/kubernetes.js';
import { ConfigStoreError, PUBLISHED_AT_ANNOTATION } from '../../src/nova/config/port.js';
import { renderNovaConfig, type RenderedConfig } from '../../src/nova/config/render.js';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { NAME, NS, REF, SETTINGS, UID, baseSpec } from './support/config-fixtures.js';

const CM = `/api/v1/namespaces/${NS}/configmaps`;
const DEPLOYMENT = `/apis/apps/v1/namespaces/${NS}/deployments/${NAME}-api`;
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;

const config = (n: number, name = NAME): RenderedConfig => {
  const result = renderNovaConfig({ name, spec: baseSpec((s) => (s.extraConfig = { DEFAULT: { debug: `v${n}` } })), settings: SETTINGS });
  if (!result.ok) throw new Error('refused');
  return result.config;
};

describe('Nova config: the Kubernetes store', () => {
  let fake: FakeApiServer;
  let store: KubernetesConfigStore;
  let clock: number;
  const stored = (name: string) => fake.objects.get(fake.objects.path('configmaps', NS, name));
  const names = (): string[] => fake.objects.list(fake.objects.path('configmaps', NS)).map((o) => (o.metadata as { name: string }).name).sort();
  /** The API Deployment, mounting `config` as the workload steps do. */
  const apiDeployment = (mounted: string): void =>
    void fake.objects.put(fake.objects.path('deployments', NS), {
      metadata: { name: `${NAME}-api` },
      spec: { template: { spec: { containers: [{ name: 'nova-api', image: 'x' }], volumes: [{ name: 'db-tls-api', projected: { sources: [] } }, { name: 'nova-config', configMap: { name: mounted } }] } } },
    });

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    clock = Date.parse('2026-01-01T00:00:00Z');
    store = new KubernetesConfigStore({ kubeConfig: fake.kubeConfig(), settings: { keystoneURL: 'https://keystone.example:5000/v3' }, now: () => new Date((clock += 1000)) });
  });
  afterEach(async () => {
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  it('publish creates the immutable ConfigMap {name}-config-<hash>: the files, owned by the Nova, labelled, its publish time', async () => {
    const c = config(1);
    expect(await store.publish(REF, c)).to.deep.equal({ created: true, pruned: [] });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${CM}`, `POST ${CM}`, `GET ${CM}`]);
    expect(fake.requests[0]!.query.labelSelector).to.equal(`regent.dev/nova-config=${NAME}`);
    expect(fake.requests[1]!.body).to.deep.equal({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: c.name,
        namespace: NS,
        labels: { 'app.kubernetes.io/managed-by': 'regent', 'app.kubernetes.io/name': 'nova', 'regent.dev/nova': NAME, 'regent.dev/nova-config': NAME },
        annotations: { [PUBLISHED_AT_ANNOTATION]: '2026-01-01T00:00:01.000Z' },
        ownerReferences: [{ apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', name: NAME, uid: UID, controller: true, blockOwnerDeletion: true }],
      },
      immutable: true,
      data: c.files,
    });
  });

  it('a pass that publishes the newest config again writes nothing: one LIST', async () => {
    await store.publish(REF, config(1));
    fake.clearRequests();
    expect(await store.publish(REF, config(1))).to.deep.equal({ created: false, pruned: [] });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${CM}`]);
  });

  it('a ConfigMap of the same content a Job created first (409) is adopted: a merge patch of the label and the publish time, the data untouched', async () => {
    const c = config(1);
    fake.objects.put(fake.objects.path('configmaps', NS), { metadata: { name: c.name, labels: { 'regent.dev/nova': NAME, 'regent.dev/nova-job': 'db-sync' } }, immutable: true, data: c.files });
    expect(await store.publish(REF, c)).to.deep.equal({ created: false, pruned: [] });
    const patch = fake.requests.find((r) => r.method === 'PATCH')!;
    expect(patch.path).to.equal(`${CM}/${c.name}`);
    expect(patch.contentType).to.match(/^application\/merge-patch\+json/);
    expect(patch.body).to.deep.equal({ metadata: { labels: { 'regent.dev/nova-config': NAME }, annotations: { [PUBLISHED_AT_ANNOTATION]: '2026-01-01T00:00:01.000Z' } } });
    expect((stored(c.name)!.metadata as { labels: Record<string, string> }).labels).to.include({ 'regent.dev/nova-config': NAME, 'regent.dev/nova-job': 'db-sync' });
    expect(stored(c.name)!.data).to.deep.equal(c.files);
  });

  it('the three most recently published stay; the oldest goes (DELETE), after one read of the API Deployment', async () => {
    for (const n of [1, 2, 3]) await store.publish(REF, config(n));
    fake.clearRequests();
    expect((await store.publish(REF, config(4))).pruned).to.deep.equal([config(1).name]);
    expect(fake.requests.map(line)).to.deep.equal([`GET ${CM}`, `POST ${CM}`, `GET ${CM}`, `GET ${DEPLOYMENT}`, `DELETE ${CM}/${config(1).name}`]);
    expect(names()).to.deep.equal([config(2), config(3), config(4)].map((c) => c.name).sort());
  });

  it('"newest" is the most recently published: going back to an earlier config patches its publish time, and it outlives younger ones', async () => {
    for (const n of [1, 2, 3]) await store.publish(REF, config(n));
    fake.clearRequests();
    expect(await store.publish(REF, config(1))).to.deep.equal({ created: false, pruned: [] });
    expect(fake.requests.map(line)).to.deep.equal([`GET ${CM}`, `PATCH ${CM}/${config(1).name}`, `GET ${CM}`]);
    expect((await store.publish(REF, config(4))).pruned).to.deep.equal([config(2).name]);
  });

  it('the config the live API Deployment mounts is never pruned, however old', async () => {
    await store.publish(REF, config(1));
    apiDeployment(config(1).name);
    for (const n of [2, 3, 4, 5]) await store.publish(REF, config(n));
    expect(names()).to.deep.equal([config(1), config(3), config(4), config(5)].map((c) => c.name).sort());
  });

  it('another Nova\'s configs are neither listed nor pruned', async () => {
    const other = { ...REF, name: 'nova-b', uid: 'uid-b' };
    await store.publish(other, config(1, 'nova-b'));
    for (const n of [1, 2, 3, 4, 5]) await store.publish(REF, config(n));
    expect(stored(config(1, 'nova-b').name)).to.not.equal(undefined);
  });

  describe('current: what the live API mounts', () => {
    it('the API Deployment\'s config volume, read back with its files and hash', async () => {
      await store.publish(REF, config(1));
      await store.publish(REF, config(2));
      apiDeployment(config(1).name);
      expect(await store.current(NS, NAME)).to.deep.equal(config(1));
    });

    const none: Array<[string, () => void]> = [
      ['nothing when there is no API Deployment', () => undefined],
      ['nothing when the API Deployment mounts no config of this Nova\'s (another ConfigMap is not a config)', () => {
        fake.objects.put(fake.objects.path('configmaps', NS), { metadata: { name: 'some-other-configmap' }, data: { 'nova.conf': '[DEFAULT]\n' } });
        apiDeployment('some-other-configmap');
      }],
      ['nothing when the ConfigMap the API mounts is gone', () => apiDeployment(config(9).name)],
    ];
    for (const [title, arrange] of none) {
      it(title, async () => {
        await store.publish(REF, config(1));
        arrange();
        expect(await store.current(NS, NAME)).to.equal(undefined);
      });
    }
  });

  it('a refused call is a ConfigStoreError with the HTTP status and the API server\'s reason', async () => {
    fake.failNext('GET', CM, 403, 'Forbidden', 'configmaps is forbidden');
    const error = await store.publish(REF, config(1)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ConfigStoreError);
    expect((error as ConfigStoreError).status).to.equal(403);
    expect((error as Error).message).to.equal(`listing the configs of Nova ${NS}/${NAME}: the API server answered 403 Forbidden: configmaps is forbidden`);
  });

  it('settings: the pod defaults, the runtime\'s cloud over them', () => {
    expect(store.settings()).to.include({ keystoneURL: 'https://keystone.example:5000/v3', listenHost: '0.0.0.0', statePath: '/var/lib/nova', messagingCAFile: '/etc/nova-messaging-tls/ca.crt' });
  });
});
