/**
 * The NovaCompute pool's Kubernetes adapters (src/nova/compute/kubernetes.ts and ./kubernetes/) on the wire, against
 * the fake API server: the metadata-only Node reads, the `{pool}-nova-compute` DaemonSet as stored (its node affinity
 * terms, pod template, labels and owner) and the requests an ensure makes (one GET and nothing written when it is as
 * rendered; a PUT with the read's resourceVersion when it drifted), the status mirror, the pod listing per node, the
 * immutable configs and their history of three, the sweep, the VPA, and the kvm.cloud.sap/v1 Hypervisors (found,
 * missing, not installed, forbidden; the custom-traits merge patch).
 */
import { expect } from 'chai';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { PARTIAL_METADATA, PARTIAL_METADATA_LIST, SPEC_HASH_ANNOTATION, kubernetesComputeCluster, type KubernetesComputeCluster } from '../../src/nova/compute/kubernetes.js';
import { CONFIG_HISTORY, PUBLISHED_AT_ANNOTATION } from '../../src/nova/config/port.js';
import { ComputeClusterError, POOL_LABEL, type PoolAffinity, type PoolDaemonSetSpec } from '../../src/nova/compute/port.js';

const NS = 'openstack';
const POOL = 'kvm-a';
const OWNER = { name: POOL, uid: 'uid-pool' };
const OWNER_REFS = [{ apiVersion: 'regent.dev/v1alpha1', kind: 'NovaCompute', name: POOL, uid: 'uid-pool', controller: true, blockOwnerDeletion: true }];
const DS = `/apis/apps/v1/namespaces/${NS}/daemonsets`;
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const VPAS = `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalers`;
const HV = '/apis/kvm.cloud.sap/v1/hypervisors';
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const spec = (overrides: Partial<PoolDaemonSetSpec> = {}): PoolDaemonSetSpec => ({
  namespace: NS,
  pool: POOL,
  owner: OWNER,
  nova: 'nova',
  image: 'ghcr.io/c5c3/nova-compute:2025.1',
  config: { name: `${POOL}-config-aaaa`, files: { 'compute-pool.conf': '[DEFAULT]\n' } },
  contractSecret: 'nova-compute-config',
  serviceUserSecret: 'nova-service-user',
  annotations: { 'nova.c5c3.io/compute-config-hash': 'abc123' },
  affinity: { selector: { labels: { 'pool.example.org/kvm': 'a', 'node-role.kubernetes.io/compute': 'true' }, excluded: ['node-3', 'node-1'] }, held: [] },
  nodes: ['node-2'],
  ...overrides,
});

const rejection = async (work: Promise<unknown>): Promise<ComputeClusterError> => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call fails').to.be.instanceOf(ComputeClusterError);
  return error as ComputeClusterError;
};

describe('NovaCompute pool on Kubernetes (Nodes, DaemonSet, configs, VPA, Hypervisors)', () => {
  let fake: FakeApiServer;
  let cluster: KubernetesComputeCluster;
  let clock: Date;
  const writes = (): string[] => fake.requests.filter((r) => r.method !== 'GET').map(line);
  const stored = (name = `${POOL}-nova-compute`): Json => fake.objects.get(`${DS}/${name}`)!;

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    clock = new Date('2025-01-01T00:00:00.000Z');
    cluster = kubernetesComputeCluster(fake.kubeConfig(), NS, { clock: () => clock });
  });
  afterEach(async () => {
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  describe('Nodes', () => {
    beforeEach(() => {
      fake.cluster.put('nodes', { metadata: { name: 'node-1', labels: { pool: 'a', zone: 'z1' }, annotations: { 'nova.openstack.cloud.sap/custom-traits': 'x' } }, spec: { podCIDR: '10.0.0.0/24' }, status: { capacity: { cpu: '64' } } });
      fake.cluster.put('nodes', { metadata: { name: 'node-2', labels: { pool: 'a' } }, status: { capacity: { cpu: '64' } } });
      fake.cluster.put('nodes', { metadata: { name: 'node-3', labels: { pool: 'b' } } });
    });

    it('lists by the selector (keys sorted, one GET, metadata only: PartialObjectMetadataList), keeping name, labels and annotations', async () => {
      const nodes = await cluster.nodes.list({ zone: 'z1', pool: 'a' });
      expect(fake.requests.map(line)).to.deep.equal(['GET /api/v1/nodes']);
      expect(fake.requests[0]!.query.labelSelector).to.equal('pool=a,zone=z1');
      expect(fake.cluster.accepts).to.deep.equal([{ path: '/api/v1/nodes', accept: PARTIAL_METADATA_LIST }]);
      expect(nodes).to.deep.equal([{ name: 'node-1', labels: { pool: 'a', zone: 'z1' }, annotations: { 'nova.openstack.cloud.sap/custom-traits': 'x' } }]);
    });

    it('an empty selector sends no labelSelector and matches every Node', async () => {
      const nodes = await cluster.nodes.list({});
      expect(fake.requests[0]!.query).to.not.have.property('labelSelector');
      expect(nodes.map((n) => n.name)).to.deep.equal(['node-1', 'node-2', 'node-3']);
      expect(nodes[1]).to.deep.equal({ name: 'node-2', labels: { pool: 'a' }, annotations: {} });
    });

    it('get reads one Node as PartialObjectMetadata; a gone Node is undefined', async () => {
      expect(await cluster.nodes.get('node-2')).to.deep.equal({ name: 'node-2', labels: { pool: 'a' }, annotations: {} });
      expect(await cluster.nodes.get('node-9')).to.equal(undefined);
      expect(fake.cluster.accepts.map((a) => a.accept)).to.deep.equal([PARTIAL_METADATA, PARTIAL_METADATA]);
    });

    it('a 403 is ComputeClusterError 403 (NodesForbidden); a 500 carries its status too', async () => {
      fake.failNext('GET', '/api/v1/nodes', 403, 'Forbidden', 'nodes is forbidden: User "regent" cannot list resource "nodes"');
      const forbidden = await rejection(cluster.nodes.list({ pool: 'a' }));
      expect(forbidden.status).to.equal(403);
      expect(forbidden.message).to.contain('cannot list resource "nodes"');
      fake.failNext('GET', '/api/v1/nodes/node-1', 500, 'InternalError');
      expect((await rejection(cluster.nodes.get('node-1'))).status).to.equal(500);
    });
  });

  describe('the DaemonSet', () => {
    it('is created {pool}-nova-compute: labelled, owned by the NovaCompute, privileged nova-compute on the host network', async () => {
      await cluster.workloads.ensureDaemonSet(spec());
      expect(fake.requests.map(line)).to.deep.equal([`GET ${DS}/${POOL}-nova-compute`, `POST ${DS}`]);
      const ds = stored();
      expect(ds.metadata.labels).to.deep.include({ 'app.kubernetes.io/name': 'nova-compute', [POOL_LABEL]: POOL, 'regent.dev/nova': 'nova' });
      expect(ds.metadata.ownerReferences).to.deep.equal(OWNER_REFS);
      expect(ds.spec.updateStrategy.type).to.equal('RollingUpdate');
      expect(ds.spec.selector.matchLabels).to.deep.equal({ 'app.kubernetes.io/name': 'nova-compute', [POOL_LABEL]: POOL });
      const pod = ds.spec.template;
      expect(pod.metadata.labels).to.deep.include(ds.spec.selector.matchLabels);
      expect(pod.metadata.annotations).to.deep.equal({ 'nova.c5c3.io/compute-config-hash': 'abc123' });
      expect(pod.spec.hostNetwork).to.equal(true);
      const [container] = pod.spec.containers;
      expect(container.name).to.equal('nova-compute');
      expect(container.image).to.equal('ghcr.io/c5c3/nova-compute:2025.1');
      expect(container.securityContext).to.deep.equal({ privileged: true });
      expect(container.command).to.deep.equal(['nova-compute', '--config-file', '/etc/nova/nova.conf', '--config-file', '/etc/nova/compute-pool.conf']);
      const env = Object.fromEntries(container.env.map((e: Json) => [e.name, e.valueFrom.secretKeyRef]));
      expect(env.TRANSPORT_URL).to.deep.equal({ name: 'nova-compute-config', key: 'transport_url' });
      expect(env.NOVA_SERVICE_PASSWORD).to.deep.equal({ name: 'nova-service-user', key: 'password' });
      const mounts = Object.fromEntries(container.volumeMounts.map((m: Json) => [m.mountPath, m.name]));
      const volumes = Object.fromEntries(pod.spec.volumes.map((v: Json) => [v.name, v]));
      expect(volumes[mounts['/etc/nova/nova.conf']].secret).to.deep.include({ secretName: 'nova-compute-config', items: [{ key: 'compute.conf', path: 'nova.conf' }] });
      expect(volumes[mounts['/etc/nova/compute-pool.conf']].configMap).to.deep.include({ name: `${POOL}-config-aaaa` });
      const ca = Object.values(volumes).find((v: Json) => v.secret?.items?.[0]?.key === 'ca.crt') as Json;
      expect(ca.secret).to.deep.include({ secretName: 'nova-compute-config', optional: true });
      expect(JSON.stringify(ds)).to.not.contain('rabbit://');
    });

    const termsOf = (ds: Json): Json[] => ds.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms;
    const cases: Array<{ title: string; affinity: PoolAffinity; terms: Json[] }> = [
      {
        title: 'selector and excluded: one In per label (sorted) and hostname NotIn the excluded (sorted)',
        affinity: { selector: { labels: { 'pool.example.org/kvm': 'a', 'node-role.kubernetes.io/compute': 'true' }, excluded: ['node-3', 'node-1'] }, held: [] },
        terms: [
          {
            matchExpressions: [
              { key: 'node-role.kubernetes.io/compute', operator: 'In', values: ['true'] },
              { key: 'pool.example.org/kvm', operator: 'In', values: ['a'] },
              { key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['node-1', 'node-3'] },
            ],
          },
        ],
      },
      {
        title: 'a selector with nothing excluded has no NotIn',
        affinity: { selector: { labels: { pool: 'a' }, excluded: [] }, held: [] },
        terms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['a'] }] }],
      },
      {
        title: 'held only (a deleting pool draining): hostname In held',
        affinity: { held: ['node-7', 'node-5'] },
        terms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-5', 'node-7'] }] }],
      },
      {
        title: 'both: the selector term ORed with the held term',
        affinity: { selector: { labels: { pool: 'a' }, excluded: ['node-1'] }, held: ['node-9'] },
        terms: [
          {
            matchExpressions: [
              { key: 'pool', operator: 'In', values: ['a'] },
              { key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['node-1'] },
            ],
          },
          { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-9'] }] },
        ],
      },
      {
        title: 'an empty selector (every node) is hostname Exists, never an empty term (which matches none)',
        affinity: { selector: { labels: {}, excluded: [] }, held: [] },
        terms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'Exists' }] }],
      },
    ];
    for (const { title, affinity, terms } of cases) {
      it(`affinity, ${title}`, async () => {
        await cluster.workloads.ensureDaemonSet(spec({ affinity }));
        expect(termsOf(stored())).to.deep.equal(terms);
      });
    }

    it('an affinity with no term is refused, and nothing is requested (the step deletes instead)', async () => {
      const error = await rejection(cluster.workloads.ensureDaemonSet(spec({ affinity: { held: [] } })));
      expect(error.message).to.contain('delete the DaemonSet instead');
      expect(fake.requests).to.deep.equal([]);
    });

    it('an unchanged ensure reads once and writes nothing', async () => {
      await cluster.workloads.ensureDaemonSet(spec());
      const version = stored().metadata.resourceVersion;
      fake.clearRequests();
      await cluster.workloads.ensureDaemonSet(spec());
      expect(fake.requests.map(line)).to.deep.equal([`GET ${DS}/${POOL}-nova-compute`]);
      expect(stored().metadata.resourceVersion).to.equal(version);
    });

    it('an unchanged ensure over an API server that defaulted fields into the template writes nothing either', async () => {
      await cluster.workloads.ensureDaemonSet(spec());
      fake.objects.mutate(`${DS}/${POOL}-nova-compute`, (ds: Json) => {
        ds.spec.revisionHistoryLimit = 10;
        ds.spec.template.spec.restartPolicy = 'Always';
        ds.spec.template.spec.containers[0].imagePullPolicy = 'IfNotPresent';
        ds.spec.template.spec.containers[0].terminationMessagePath = '/dev/termination-log';
        ds.spec.template.spec.volumes[0].secret.defaultMode = 420;
        ds.metadata.annotations['deprecated.daemonset.template.generation'] = '1';
      });
      fake.clearRequests();
      await cluster.workloads.ensureDaemonSet(spec());
      expect(writes()).to.deep.equal([]);
    });

    it('a new image replaces it (PUT with the read resourceVersion), keeping the annotations others put on it', async () => {
      await cluster.workloads.ensureDaemonSet(spec());
      fake.objects.mutate(`${DS}/${POOL}-nova-compute`, (ds: Json) => {
        ds.metadata.annotations['deprecated.daemonset.template.generation'] = '1';
      });
      const version = stored().metadata.resourceVersion;
      fake.clearRequests();
      await cluster.workloads.ensureDaemonSet(spec({ image: 'ghcr.io/c5c3/nova-compute:2025.2' }));
      expect(fake.requests.map(line)).to.deep.equal([`GET ${DS}/${POOL}-nova-compute`, `PUT ${DS}/${POOL}-nova-compute`]);
      expect((fake.requests[1]!.body as Json).metadata.resourceVersion).to.equal(version);
      const ds = stored();
      expect(ds.spec.template.spec.containers[0].image).to.equal('ghcr.io/c5c3/nova-compute:2025.2');
      expect(ds.metadata.generation).to.equal(2);
      expect(ds.metadata.annotations).to.include({ 'deprecated.daemonset.template.generation': '1' });
    });

    it('a field we render edited by someone else (same spec hash) is put back; so are a lost label and a lost owner', async () => {
      await cluster.workloads.ensureDaemonSet(spec());
      const hash = stored().metadata.annotations[SPEC_HASH_ANNOTATION];
      fake.objects.mutate(`${DS}/${POOL}-nova-compute`, (ds: Json) => {
        ds.spec.template.spec.containers[0].image = 'evil:latest';
      });
      fake.clearRequests();
      await cluster.workloads.ensureDaemonSet(spec());
      expect(writes()).to.deep.equal([`PUT ${DS}/${POOL}-nova-compute`]);
      expect(stored().spec.template.spec.containers[0].image).to.equal('ghcr.io/c5c3/nova-compute:2025.1');
      expect(stored().metadata.annotations[SPEC_HASH_ANNOTATION]).to.equal(hash);

      fake.objects.mutate(`${DS}/${POOL}-nova-compute`, (ds: Json) => {
        delete ds.metadata.labels['regent.dev/nova'];
      });
      fake.clearRequests();
      await cluster.workloads.ensureDaemonSet(spec());
      expect(writes()).to.deep.equal([`PUT ${DS}/${POOL}-nova-compute`]);

      fake.objects.mutate(`${DS}/${POOL}-nova-compute`, (ds: Json) => {
        ds.metadata.ownerReferences = [];
      });
      fake.clearRequests();
      await cluster.workloads.ensureDaemonSet(spec());
      expect(writes()).to.deep.equal([`PUT ${DS}/${POOL}-nova-compute`]);
      expect(stored().metadata.ownerReferences).to.deep.equal(OWNER_REFS);
    });

    it('a changed affinity or contract annotation is drift; so is a new config name', async () => {
      await cluster.workloads.ensureDaemonSet(spec());
      for (const next of [spec({ affinity: { selector: { labels: { pool: 'b' }, excluded: [] }, held: [] } }), spec({ annotations: { 'nova.c5c3.io/compute-config-hash': 'def456' } }), spec({ config: { name: `${POOL}-config-bbbb`, files: {} } })]) {
        fake.clearRequests();
        await cluster.workloads.ensureDaemonSet(next);
        expect(writes(), JSON.stringify(next)).to.deep.equal([`PUT ${DS}/${POOL}-nova-compute`]);
      }
    });

    it('mirrors the status: not rolled out until the controller observed the generation and every scheduled pod is updated and ready', async () => {
      const created = await cluster.workloads.ensureDaemonSet(spec());
      expect(created).to.deep.equal({ present: true, desiredNumberScheduled: 0, numberReady: 0, rolledOut: false, image: 'ghcr.io/c5c3/nova-compute:2025.1' });
      const path = `${DS}/${POOL}-nova-compute`;
      fake.objects.setStatus(path, { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberReady: 2 });
      expect(await cluster.workloads.ensureDaemonSet(spec())).to.deep.include({ desiredNumberScheduled: 3, numberReady: 2, rolledOut: false });
      fake.objects.setStatus(path, { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 2, numberReady: 3 });
      expect((await cluster.workloads.daemonSet(NS, POOL)).rolledOut, 'an old pod left').to.equal(false);
      fake.objects.setStatus(path, { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberReady: 3 });
      expect(await cluster.workloads.daemonSet(NS, POOL)).to.deep.equal({ present: true, desiredNumberScheduled: 3, numberReady: 3, rolledOut: true, image: 'ghcr.io/c5c3/nova-compute:2025.1' });
      // a new template: the counts are the old generation's until the controller observes it
      const replaced = await cluster.workloads.ensureDaemonSet(spec({ image: 'ghcr.io/c5c3/nova-compute:2025.2' }));
      expect(replaced).to.deep.include({ rolledOut: false, image: 'ghcr.io/c5c3/nova-compute:2025.2' });
      fake.objects.setStatus(path, { observedGeneration: 2, desiredNumberScheduled: 0, updatedNumberScheduled: 0, numberReady: 0 });
      expect((await cluster.workloads.daemonSet(NS, POOL)).rolledOut, 'nothing scheduled: nothing to roll').to.equal(true);
    });

    it('daemonSet() of none is absent with zeros and writes nothing; deleteDaemonSet is Background, absent is false', async () => {
      expect(await cluster.workloads.daemonSet(NS, POOL)).to.deep.equal({ present: false, desiredNumberScheduled: 0, numberReady: 0, rolledOut: false, image: null });
      expect(await cluster.workloads.deleteDaemonSet(NS, POOL)).to.equal(false);
      await cluster.workloads.ensureDaemonSet(spec());
      expect(await cluster.workloads.deleteDaemonSet(NS, POOL)).to.equal(true);
      expect(fake.objects.deletions).to.deep.equal([{ path: `${DS}/${POOL}-nova-compute`, propagationPolicy: 'Background', applied: 'Background' }]);
      expect(fake.objects.get(`${DS}/${POOL}-nova-compute`)).to.equal(undefined);
    });

    it('a refused write is ComputeClusterError with the status; another namespace is refused before any request', async () => {
      fake.failNext('POST', DS, 403, 'Forbidden');
      expect((await rejection(cluster.workloads.ensureDaemonSet(spec()))).status).to.equal(403);
      fake.clearRequests();
      await rejection(cluster.workloads.ensureDaemonSet(spec({ namespace: 'elsewhere' })));
      expect(fake.requests).to.deep.equal([]);
    });

    it('on a target cluster (remote) the DaemonSet carries no owner reference, only the pool label', async () => {
      const remote = kubernetesComputeCluster(fake.kubeConfig(), NS, { remote: true });
      await remote.workloads.ensureDaemonSet(spec());
      expect(stored().metadata).to.not.have.property('ownerReferences');
      expect(stored().metadata.labels[POOL_LABEL]).to.equal(POOL);
      fake.clearRequests();
      await remote.workloads.ensureDaemonSet(spec());
      expect(writes()).to.deep.equal([]);
    });
  });

  describe('podsOn', () => {
    const pod = (name: string, node: string, phase: string, pool = POOL): void => {
      fake.objects.put(fake.objects.path('pods', NS, name), { metadata: { name, labels: { [POOL_LABEL]: pool } }, spec: { nodeName: node, containers: [] }, status: { phase } });
    };
    beforeEach(() => {
      pod('a', 'node-1', 'Running');
      pod('b', 'node-2', 'Pending');
      pod('c', 'node-3', 'Succeeded');
      pod('d', 'node-4', 'Failed');
      pod('e', 'node-5', 'Running', 'other-pool');
    });

    it('one node: one LIST on that node (fieldSelector spec.nodeName) of the pool label', async () => {
      expect([...(await cluster.workloads.podsOn(NS, POOL, ['node-1']))]).to.deep.equal(['node-1']);
      expect(fake.requests.map(line)).to.deep.equal([`GET ${PODS}`]);
      expect(fake.requests[0]!.query).to.include({ labelSelector: `${POOL_LABEL}=${POOL}`, fieldSelector: 'spec.nodeName=node-1' });
      expect([...(await cluster.workloads.podsOn(NS, POOL, ['node-3']))], 'a Succeeded pod runs nothing').to.deep.equal([]);
    });

    it('several nodes or the whole pool: one LIST of the pool, without a field selector; finished pods and other pools do not count', async () => {
      expect([...(await cluster.workloads.podsOn(NS, POOL, ['node-2', 'node-4', 'node-5']))]).to.deep.equal(['node-2']);
      expect([...(await cluster.workloads.podsOn(NS, POOL))].sort()).to.deep.equal(['node-1', 'node-2']);
      expect(fake.requests.map(line)).to.deep.equal([`GET ${PODS}`, `GET ${PODS}`]);
      expect(fake.requests.map((r) => r.query.fieldSelector)).to.deep.equal([undefined, undefined]);
    });

    it('no node asked: no request', async () => {
      expect((await cluster.workloads.podsOn(NS, POOL, [])).size).to.equal(0);
      expect(fake.requests).to.deep.equal([]);
    });
  });

  describe('publishConfig', () => {
    const configNames = (): string[] => fake.objects.list(CMS, `${POOL_LABEL}=${POOL}`).map((c: Json) => c.metadata.name as string);
    const publish = (hash: string) => cluster.workloads.publishConfig(NS, OWNER, { name: `${POOL}-config-${hash}`, files: { 'compute-pool.conf': `# ${hash}\n` } });
    const tick = (): void => {
      clock = new Date(clock.getTime() + 1000);
    };

    it('creates it immutable, labelled with the pool, owned and stamped with its publish time; publishing it again writes nothing', async () => {
      expect(await publish('aaaa')).to.equal(true);
      const cm: Json = fake.objects.get(`${CMS}/${POOL}-config-aaaa`)!;
      expect(cm.immutable).to.equal(true);
      expect(cm.data).to.deep.equal({ 'compute-pool.conf': '# aaaa\n' });
      expect(cm.metadata.labels[POOL_LABEL]).to.equal(POOL);
      expect(cm.metadata.ownerReferences).to.deep.equal(OWNER_REFS);
      expect(cm.metadata.annotations[PUBLISHED_AT_ANNOTATION]).to.equal('2025-01-01T00:00:00.000Z');
      fake.clearRequests();
      tick();
      expect(await publish('aaaa')).to.equal(false);
      expect(writes()).to.deep.equal([]);
    });

    it('keeps the three newest: the fourth config prunes the oldest (never the one the DaemonSet mounts)', async () => {
      for (const hash of ['aaaa', 'bbbb', 'cccc']) {
        await publish(hash);
        tick();
      }
      expect(configNames()).to.have.length(CONFIG_HISTORY);
      await publish('dddd');
      expect(configNames()).to.deep.equal([`${POOL}-config-bbbb`, `${POOL}-config-cccc`, `${POOL}-config-dddd`]);
      // the DaemonSet still mounts bbbb, the oldest: a fifth config keeps it beside the three newest
      await cluster.workloads.ensureDaemonSet(spec({ config: { name: `${POOL}-config-bbbb`, files: {} } }));
      tick();
      await publish('eeee');
      expect(configNames()).to.deep.equal([`${POOL}-config-bbbb`, `${POOL}-config-cccc`, `${POOL}-config-dddd`, `${POOL}-config-eeee`]);
    });

    it('going back to an older config patches only its publish time (it is never rewritten), so it counts as newest', async () => {
      for (const hash of ['aaaa', 'bbbb', 'cccc']) {
        await publish(hash);
        tick();
      }
      fake.clearRequests();
      expect(await publish('aaaa')).to.equal(false);
      expect(writes()).to.deep.equal([`PATCH ${CMS}/${POOL}-config-aaaa`]);
      expect(fake.requests.find((r) => r.method === 'PATCH')!.body).to.deep.equal({ metadata: { annotations: { [PUBLISHED_AT_ANNOTATION]: '2025-01-01T00:00:03.000Z' } } });
      tick();
      await publish('dddd');
      expect(configNames()).to.deep.equal([`${POOL}-config-aaaa`, `${POOL}-config-cccc`, `${POOL}-config-dddd`]);
    });
  });

  describe('removeAll and the VPA', () => {
    it('ensurePoolVPA creates {pool}-nova-compute targeting the DaemonSet (updateMode Auto), then writes nothing while unchanged', async () => {
      expect(await cluster.vpa.vpaAPI()).to.deep.equal({ kind: 'installed' });
      await cluster.vpa.ensurePoolVPA(NS, OWNER, POOL);
      const vpa: Json = fake.objects.get(`${VPAS}/${POOL}-nova-compute`)!;
      expect(vpa.spec).to.deep.equal({ targetRef: { apiVersion: 'apps/v1', kind: 'DaemonSet', name: `${POOL}-nova-compute` }, updatePolicy: { updateMode: 'Auto' } });
      expect(vpa.metadata.ownerReferences).to.deep.equal(OWNER_REFS);
      expect(vpa.metadata.labels[POOL_LABEL]).to.equal(POOL);
      fake.clearRequests();
      await cluster.vpa.ensurePoolVPA(NS, OWNER, POOL);
      expect(writes()).to.deep.equal([]);
      expect(await cluster.vpa.removePoolVPA(NS, POOL)).to.equal('removed');
      expect(await cluster.vpa.removePoolVPA(NS, POOL)).to.equal('absent');
    });

    it('removeAll deletes the DaemonSet, every config of the pool and the VPA; another pool keeps its own', async () => {
      await cluster.workloads.ensureDaemonSet(spec());
      await cluster.workloads.publishConfig(NS, OWNER, { name: `${POOL}-config-aaaa`, files: {} });
      await cluster.workloads.publishConfig(NS, { name: 'kvm-b', uid: 'uid-b' }, { name: 'kvm-b-config-aaaa', files: {} });
      await cluster.vpa.ensurePoolVPA(NS, OWNER, POOL);
      expect(await cluster.workloads.removeAll(NS, POOL)).to.deep.equal([`DaemonSet/${POOL}-nova-compute`, `ConfigMap/${POOL}-config-aaaa`, `VerticalPodAutoscaler/${POOL}-nova-compute`]);
      expect(fake.objects.get(`${DS}/${POOL}-nova-compute`)).to.equal(undefined);
      expect(fake.objects.get(`${VPAS}/${POOL}-nova-compute`)).to.equal(undefined);
      expect(fake.objects.list(CMS).map((c: Json) => c.metadata.name)).to.deep.equal(['kvm-b-config-aaaa']);
      expect(await cluster.workloads.removeAll(NS, POOL), 'again: nothing left').to.deep.equal([]);
    });

    it('without the VPA API removeAll never touches a VPA (the probe is notInstalled)', async () => {
      fake.objects.uninstall('autoscaling.k8s.io/v1');
      expect((await cluster.vpa.vpaAPI()).kind).to.equal('notInstalled');
      fake.clearRequests();
      expect(await cluster.workloads.removeAll(NS, POOL)).to.deep.equal([]);
      expect(fake.requests.filter((r) => r.path.includes('autoscaling.k8s.io'))).to.deep.equal([]);
    });
  });

  describe('Hypervisors', () => {
    it('found: spec.customTraits, and the CUSTOM_ subset of status.traits', async () => {
      fake.cluster.put('hypervisors', { metadata: { name: 'node-1' }, spec: { customTraits: ['CUSTOM_B', 'CUSTOM_A'] }, status: { traits: ['HW_CPU_X86_AVX2', 'CUSTOM_A', 'COMPUTE_NET_VIF_MODEL_VIRTIO'] } });
      expect(await cluster.hypervisors.get('node-1')).to.deep.equal({ kind: 'found', hypervisor: { name: 'node-1', customTraits: ['CUSTOM_B', 'CUSTOM_A'], statusTraits: ['CUSTOM_A'] } });
      expect(fake.requests.map(line)).to.deep.equal([`GET ${HV}/node-1`]);
    });

    it('a Hypervisor without spec or status reads as empty lists', async () => {
      fake.cluster.put('hypervisors', { metadata: { name: 'node-2' } });
      expect(await cluster.hypervisors.get('node-2')).to.deep.equal({ kind: 'found', hypervisor: { name: 'node-2', customTraits: [], statusTraits: [] } });
    });

    it('missing: the 404 names the object, so no discovery is needed', async () => {
      expect(await cluster.hypervisors.get('node-9')).to.deep.equal({ kind: 'missing' });
      expect(fake.requests.map(line)).to.deep.equal([`GET ${HV}/node-9`]);
    });

    it('a 404 that does not name the object, on a cluster serving the kind, is missing (settled by discovery)', async () => {
      fake.failNext('GET', `${HV}/node-9`, 404, 'NotFound', 'the server could not find the requested resource');
      expect(await cluster.hypervisors.get('node-9')).to.deep.equal({ kind: 'missing' });
      expect(fake.requests.map(line)).to.deep.equal([`GET ${HV}/node-9`, 'GET /apis/kvm.cloud.sap/v1']);
    });

    it('notInstalled: the kind is not served (the 404 of an unknown resource, then a discovery 404)', async () => {
      fake.cluster.uninstall('kvm.cloud.sap/v1');
      const read = await cluster.hypervisors.get('node-1');
      expect(read.kind).to.equal('notInstalled');
      expect((read as { message: string }).message).to.contain('kvm.cloud.sap/v1');
      expect(fake.requests.map(line)).to.deep.equal([`GET ${HV}/node-1`, 'GET /apis/kvm.cloud.sap/v1']);
    });

    it('forbidden: a 403 on the object (HypervisorsForbidden); another failure throws with its status', async () => {
      fake.failNext('GET', `${HV}/node-1`, 403, 'Forbidden', 'hypervisors.kvm.cloud.sap "node-1" is forbidden');
      const read = await cluster.hypervisors.get('node-1');
      expect(read.kind).to.equal('forbidden');
      expect((read as { message: string }).message).to.contain('is forbidden');
      fake.failNext('GET', `${HV}/node-1`, 503, 'ServiceUnavailable');
      expect((await rejection(cluster.hypervisors.get('node-1'))).status).to.equal(503);
    });

    it('setCustomTraits: one merge patch of spec.customTraits, sorted, under the field manager cobaltcore-operator; the rest of the object kept', async () => {
      fake.cluster.put('hypervisors', { metadata: { name: 'node-1' }, spec: { customTraits: ['CUSTOM_OLD'], highAvailability: true } });
      await cluster.hypervisors.setCustomTraits('node-1', ['CUSTOM_Z', 'CUSTOM_A', 'CUSTOM_M']);
      expect(fake.requests.map(line)).to.deep.equal([`PATCH ${HV}/node-1`]);
      const [patch] = fake.requests;
      expect(patch!.contentType).to.equal('application/merge-patch+json');
      expect(patch!.query).to.deep.equal({ fieldManager: 'cobaltcore-operator' });
      expect(patch!.body).to.deep.equal({ spec: { customTraits: ['CUSTOM_A', 'CUSTOM_M', 'CUSTOM_Z'] } });
      expect(fake.cluster.get('hypervisors', 'node-1')!.spec).to.deep.equal({ customTraits: ['CUSTOM_A', 'CUSTOM_M', 'CUSTOM_Z'], highAvailability: true });
    });

    it('setCustomTraits on a gone Hypervisor is ComputeClusterError 404', async () => {
      expect((await rejection(cluster.hypervisors.setCustomTraits('node-9', []))).status).to.equal(404);
    });
  });
});
