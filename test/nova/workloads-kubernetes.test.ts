/**
 * The apps/v1 WorkloadPort on the wire, against the fake API server's generic object store: when a role's
 * Deployment reads as rolled out onto an image (each missing piece named in the detail), and the
 * installed-release stamp (its merge patch and content type, and no write when it is already there).
 */
import { expect } from 'chai';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { KubernetesWorkloads } from '../../src/nova/workloads/kubernetes.js';
import { INSTALLED_RELEASE_ANNOTATION, WorkloadError, type NovaRole } from '../../src/nova/workloads/port.js';

const NS = 'openstack';
const API = `/apis/apps/v1/namespaces/${NS}/deployments`;
const OLD = 'ghcr.io/c5c3/nova:2025.1';
const NEW = 'ghcr.io/c5c3/nova:2025.2';
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;

type Json = Record<string, unknown>;

/** A Deployment of Nova `nova` fully rolled out onto NEW with 2 replicas; `edit` breaks one piece. */
const deployment = (role: NovaRole, edit: (d: { metadata: Json; spec: Json & { template: { metadata: Json; spec: { containers: Json[] } } }; status: Json }) => void = () => undefined): Json => {
  const labels = { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/component': role };
  const d = {
    metadata: { name: `nova-${role}`, generation: 4, labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      template: { metadata: { labels, annotations: { 'example.com/kept': 'yes' } }, spec: { containers: [{ name: `nova-${role}`, image: NEW }] } },
    },
    status: { observedGeneration: 4, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
  };
  edit(d);
  return d;
};

describe('nova workloads: apps/v1 Deployments', () => {
  let fake: FakeApiServer;
  let workloads: KubernetesWorkloads;
  const seed = (role: NovaRole, d: Json): void => void fake.objects.put(fake.objects.path('deployments', NS, `nova-${role}`), d);
  const stored = (role: NovaRole): Json => fake.objects.get(fake.objects.path('deployments', NS, `nova-${role}`))!;
  const failure = async (run: () => Promise<unknown>): Promise<WorkloadError> => {
    try {
      await run();
    } catch (error) {
      expect(error).to.be.instanceOf(WorkloadError);
      return error as WorkloadError;
    }
    throw new Error('expected a failure');
  };

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    workloads = new KubernetesWorkloads({ kubeConfig: fake.kubeConfig() });
  });
  afterEach(async () => {
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  describe('rollout', () => {
    it('every piece in place: rolled out, from one GET of {nova}-{role}', async () => {
      seed('conductor', deployment('conductor'));
      expect(await workloads.rollout(NS, 'nova', 'conductor', NEW)).to.deep.equal({ role: 'conductor', deployment: 'nova-conductor', present: true, rolledOut: true, detail: `rolled out: 2 replicas on ${NEW}` });
      expect(fake.requests.map(line)).to.deep.equal([`GET ${API}/nova-conductor`]);
    });

    it('no Deployment: not present, not rolled out, and the detail names it', async () => {
      expect(await workloads.rollout(NS, 'nova', 'scheduler', NEW)).to.deep.equal({ role: 'scheduler', deployment: 'nova-scheduler', present: false, rolledOut: false, detail: `no Deployment nova-scheduler in ${NS}` });
    });

    const missing: Array<[string, NovaRole, Parameters<typeof deployment>[1], string]> = [
      ['a Nova container on another image is not rolled out', 'api', (d) => void (d.spec.template.spec.containers[0]!.image = OLD), `container nova-api runs ${OLD}, not ${NEW}`],
      ['the container named nova-<role> is the Nova container, not a sidecar listed first', 'api', (d) => void d.spec.template.spec.containers.splice(0, 1, { name: 'tls-proxy', image: NEW }, { name: 'nova-api', image: OLD }), `container nova-api runs ${OLD}, not ${NEW}`],
      ['with no container named nova-<role>, the first container is the Nova container', 'metadata', (d) => void (d.spec.template.spec.containers = [{ name: 'metadata', image: OLD }, { name: 'nova-sidecar', image: NEW }]), `container metadata runs ${OLD}, not ${NEW}`],
      ['a pod template without containers is not rolled out', 'novncproxy', (d) => void (d.spec.template.spec.containers = []), 'the pod template has no containers'],
      ['until the controller has observed the current generation, nothing is rolled out', 'conductor', (d) => void (d.metadata.generation = 5), 'controller has not observed generation 5'],
      ['a status without observedGeneration has observed nothing', 'conductor', (d) => void delete d.status.observedGeneration, 'controller has not observed generation 4'],
      ['every replica must be updated', 'scheduler', (d) => void (d.status.updatedReplicas = 1), '1 of 2 replicas updated'],
      ['every replica must be ready', 'scheduler', (d) => void (d.status.readyReplicas = 1), '1 of 2 replicas ready'],
      ['every replica must be available (a missing count is 0)', 'scheduler', (d) => void delete d.status.availableReplicas, '0 of 2 replicas available'],
      ['no old pod may still run beside the updated ones (status.replicas)', 'api', (d) => void (d.status.replicas = 3), '3 replicas running, 2 wanted: old pods are still there'],
      ['spec.replicas unset means 1 (two updated replicas are not one)', 'conductor', (d) => void delete d.spec.replicas, '2 of 1 replicas updated'],
      ['the detail names the first thing missing: the image before the generation and the counts', 'api', (d) => {
        d.spec.template.spec.containers[0]!.image = OLD;
        d.status.updatedReplicas = 0;
        d.metadata.generation = 9;
      }, `container nova-api runs ${OLD}, not ${NEW}`],
    ];
    for (const [title, role, edit, detail] of missing) {
      it(`${title}: "${detail}"`, async () => {
        seed(role, deployment(role, edit));
        expect(await workloads.rollout(NS, 'nova', role, NEW)).to.deep.equal({ role, deployment: `nova-${role}`, present: true, rolledOut: false, detail });
      });
    }

    it('a sidecar on its own image does not hold a rollout back', async () => {
      seed('api', deployment('api', (d) => void d.spec.template.spec.containers.unshift({ name: 'tls-proxy', image: 'docker.io/library/httpd:2.4' })));
      expect((await workloads.rollout(NS, 'nova', 'api', NEW)).rolledOut).to.equal(true);
    });

    it('spec.replicas unset with one replica everywhere is rolled out', async () => {
      seed('conductor', deployment('conductor', (d) => {
        delete d.spec.replicas;
        Object.assign(d.status, { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 });
      }));
      expect(await workloads.rollout(NS, 'nova', 'conductor', NEW)).to.deep.equal({ role: 'conductor', deployment: 'nova-conductor', present: true, rolledOut: true, detail: `rolled out: 1 replica on ${NEW}` });
    });

    it('a refused read is a WorkloadError with the HTTP status', async () => {
      fake.failNext('GET', `${API}/nova-api`, 403, 'Forbidden', 'deployments.apps "nova-api" is forbidden');
      const error = await failure(() => workloads.rollout(NS, 'nova', 'api', NEW));
      expect(error.status).to.equal(403);
      expect(error.message).to.equal(`cannot read Deployment nova-api in ${NS}: HTTP 403: deployments.apps "nova-api" is forbidden`);
    });

    it('an API server that is not there is a WorkloadError without a status', async () => {
      const gone = await FakeApiServer.start();
      const kubeConfig = gone.kubeConfig();
      await gone.close();
      const error = await failure(() => new KubernetesWorkloads({ kubeConfig }).rollout(NS, 'nova', 'api', NEW));
      expect(error.status).to.equal(undefined);
      expect(error.message).to.match(new RegExp(`^cannot read Deployment nova-api in ${NS}: the Kubernetes API is unreachable: `));
    });
  });

  describe('stampInstalledRelease', () => {
    it('a template without the annotation: one merge patch of exactly that annotation, others kept, the pod template rolls', async () => {
      seed('conductor', deployment('conductor'));
      expect(await workloads.stampInstalledRelease(NS, 'nova', 'conductor', '2025.2')).to.equal('stamped');
      expect(fake.requests.map(line)).to.deep.equal([`GET ${API}/nova-conductor`, `PATCH ${API}/nova-conductor`]);
      const patch = fake.requests[1]!;
      expect(patch.contentType).to.equal('application/merge-patch+json');
      expect(patch.body).to.deep.equal({ spec: { template: { metadata: { annotations: { [INSTALLED_RELEASE_ANNOTATION]: '2025.2' } } } } });
      const after = stored('conductor') as { metadata: { generation: number }; spec: { template: { metadata: { annotations: Json } } } };
      expect(after.spec.template.metadata.annotations).to.deep.equal({ 'example.com/kept': 'yes', [INSTALLED_RELEASE_ANNOTATION]: '2025.2' });
      expect(after.metadata.generation).to.equal(5);
    });

    it('a template carrying an older release is stamped with the new one', async () => {
      seed('scheduler', deployment('scheduler', (d) => void (d.spec.template.metadata.annotations = { [INSTALLED_RELEASE_ANNOTATION]: '2025.1' })));
      expect(await workloads.stampInstalledRelease(NS, 'nova', 'scheduler', '2025.2')).to.equal('stamped');
      expect((stored('scheduler') as { spec: { template: { metadata: { annotations: Json } } } }).spec.template.metadata.annotations).to.deep.equal({ [INSTALLED_RELEASE_ANNOTATION]: '2025.2' });
    });

    it('a template already carrying the release is unchanged: no PATCH, so no roll', async () => {
      seed('metadata', deployment('metadata', (d) => void (d.spec.template.metadata.annotations = { [INSTALLED_RELEASE_ANNOTATION]: '2025.2' })));
      expect(await workloads.stampInstalledRelease(NS, 'nova', 'metadata', '2025.2')).to.equal('unchanged');
      expect(fake.requests.map(line)).to.deep.equal([`GET ${API}/nova-metadata`]);
    });

    it('no Deployment: absent, and nothing is written', async () => {
      expect(await workloads.stampInstalledRelease(NS, 'nova', 'novncproxy', '2025.2')).to.equal('absent');
      expect(fake.requests.map(line)).to.deep.equal([`GET ${API}/nova-novncproxy`]);
    });

    it('a Deployment deleted between the read and the patch (404 on PATCH) is absent', async () => {
      seed('conductor', deployment('conductor'));
      fake.failNext('PATCH', `${API}/nova-conductor`, 404, 'NotFound', 'deployments.apps "nova-conductor" not found');
      expect(await workloads.stampInstalledRelease(NS, 'nova', 'conductor', '2025.2')).to.equal('absent');
    });

    it('a refused patch is a WorkloadError with the HTTP status', async () => {
      seed('conductor', deployment('conductor'));
      fake.failNext('PATCH', `${API}/nova-conductor`, 500, 'InternalError', 'etcdserver: request timed out');
      const error = await failure(() => workloads.stampInstalledRelease(NS, 'nova', 'conductor', '2025.2'));
      expect(error.status).to.equal(500);
      expect(error.message).to.equal(`cannot patch Deployment nova-conductor in ${NS}: HTTP 500: etcdserver: request timed out`);
    });
  });
});
