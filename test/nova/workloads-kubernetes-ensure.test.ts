/**
 * The Kubernetes RoleWorkloads on the wire (src/nova/workloads/kubernetes.ts, render.ts), against the fake API
 * server: the Deployment, Service and PodDisruptionBudget as sent (secrets by Secret reference only, the digests and
 * the template hash as pod-template annotations, the config mounted, fsGroup), the requests a pass makes (none that
 * writes when nothing changed), a replace that keeps the installed-release stamp and a Service's cluster IP, the
 * rollout judged from the status the API server reports, remove and the endpoint. The shared contract with the local
 * adapter is test/nova/workloads-contract.test.ts.
 */
import { expect } from 'chai';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { KubernetesWorkloads } from '../../src/nova/workloads/kubernetes.js';
import { INSTALLED_RELEASE_ANNOTATION, WorkloadError, type NovaRole, type RoleTemplate } from '../../src/nova/workloads/port.js';
import { withTemplateHash } from '../../src/nova/workloads/template-hash.js';
import { TEMPLATE_HASH_ANNOTATION } from '../../src/nova/workloads/render.js';
import { roleTemplate } from '../../src/controllers/nova/steps/roles.js';
import { lanePass, novaSpec } from './support/workloads.js';

const NS = 'openstack';
const NOVA = { name: 'nova', uid: 'uid-nova' };
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;
const DEPLOYMENTS = `/apis/apps/v1/namespaces/${NS}/deployments`;
const SERVICES = `/api/v1/namespaces/${NS}/services`;
const PDBS = `/apis/policy/v1/namespaces/${NS}/poddisruptionbudgets`;
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const templateOf = (role: NovaRole, spec = novaSpec()): RoleTemplate => {
  const built = roleTemplate(lanePass({ spec }), role);
  if ('waiting' in built) throw new Error(built.waiting);
  return built.template;
};

describe('nova workloads: ensure on Kubernetes (Deployments, Services, the PDB)', () => {
  let fake: FakeApiServer;
  let workloads: KubernetesWorkloads;
  const stored = (plural: 'deployments' | 'services' | 'poddisruptionbudgets' | 'configmaps', name: string): Json => fake.objects.get(fake.objects.path(plural, NS, name))!;
  const settle = (role: NovaRole): void => {
    const d = stored('deployments', `nova-${role}`);
    const n = d.spec.replicas;
    fake.objects.setStatus(fake.objects.path('deployments', NS, `nova-${role}`), { observedGeneration: d.metadata.generation, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n });
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

  it('the API: the ConfigMap, the Deployment, its Service on 8774 and its PDB, in that order; owned by the Nova', async () => {
    const template = templateOf('api');
    const rollout = await workloads.ensure(NS, NOVA, 'api', template);
    expect(fake.requests.map(line)).to.deep.equal([
      `GET ${DEPLOYMENTS}/nova-api`,
      `POST ${CONFIGMAPS}`,
      `POST ${DEPLOYMENTS}`,
      `GET ${SERVICES}/nova-api`,
      `POST ${SERVICES}`,
      `GET ${PDBS}/nova-api`,
      `POST ${PDBS}`,
    ]);
    expect(rollout).to.deep.equal({ role: 'api', deployment: 'nova-api', present: true, rolledOut: false, detail: 'controller has not observed generation 1' });
    const service = stored('services', 'nova-api');
    expect(service.spec).to.deep.include({ type: 'ClusterIP', ports: [{ name: 'http', port: 8774, targetPort: 8774, protocol: 'TCP' }], selector: { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/instance': 'nova', 'app.kubernetes.io/component': 'api' } });
    expect(stored('poddisruptionbudgets', 'nova-api').spec).to.deep.equal({ maxUnavailable: 1, selector: { matchLabels: service.spec.selector } });
    for (const object of [stored('deployments', 'nova-api'), service, stored('poddisruptionbudgets', 'nova-api'), stored('configmaps', template.config.name)]) {
      expect(object.metadata.ownerReferences).to.deep.equal([{ apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', name: 'nova', uid: 'uid-nova', controller: true, blockOwnerDeletion: true }]);
    }
    expect(stored('configmaps', template.config.name)).to.deep.include({ immutable: true, data: template.config.files });
  });

  it('the pod template: secrets only as secretKeyRef, the digests and the template hash as annotations, the config and its overlay, fsGroup, the readiness probe', async () => {
    await workloads.ensure(NS, NOVA, 'metadata', templateOf('metadata'));
    const d = stored('deployments', 'nova-metadata');
    const pod = d.spec.template;
    const container = pod.spec.containers[0];
    expect(container.name).to.equal('nova-metadata');
    expect(container.image).to.equal('ghcr.io/c5c3/nova:2025.1');
    expect(container.command).to.deep.equal(['nova-api-metadata', '--config-file', '/etc/nova/nova.conf', '--config-file', '/etc/nova/nova-metadata.conf']);
    expect(container.env.every((e: Json) => e.value === undefined && e.valueFrom?.secretKeyRef !== undefined), 'no literal value in env').to.equal(true);
    expect(container.env.map((e: Json) => `${e.name}=${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`)).to.include.members([
      'OS_API_DATABASE__CONNECTION=nova-api-db-connection/connection',
      'OS_DATABASE__CONNECTION=nova-db-connection/connection',
      'OS_DEFAULT__TRANSPORT_URL=nova-transport-url/url',
      'OS_KEYSTONE_AUTHTOKEN__PASSWORD=nova-service-user/password',
      'OS_NEUTRON__METADATA_PROXY_SHARED_SECRET=nova-metadata/shared-secret',
    ]);
    expect(Object.keys(pod.metadata.annotations).sort()).to.deep.equal([
      'nova.c5c3.io/api-db-connection-hash',
      'nova.c5c3.io/authtoken-hash',
      'nova.c5c3.io/db-connection-hash',
      'nova.c5c3.io/metadata-secret-hash',
      TEMPLATE_HASH_ANNOTATION,
      'nova.c5c3.io/transport-url-hash',
    ].sort());
    expect(d.metadata.annotations[TEMPLATE_HASH_ANNOTATION]).to.equal(pod.metadata.annotations[TEMPLATE_HASH_ANNOTATION]);
    expect(container.volumeMounts).to.deep.equal([{ name: 'nova-config', mountPath: '/etc/nova', readOnly: true }]);
    expect(pod.spec.volumes).to.deep.equal([{ name: 'nova-config', configMap: { name: 'nova-config-0123456789' } }]);
    expect(pod.spec.securityContext).to.deep.equal({ fsGroup: 42424 });
    expect(container.readinessProbe).to.deep.include({ httpGet: { path: '/', port: 8775 } });
    expect(stored('services', 'nova-metadata').spec.ports[0].port).to.equal(8775);
  });

  it('the conductor: no port, no Service, no PDB, no probe; the console proxy its Service on 6080 and a TCP probe', async () => {
    await workloads.ensure(NS, NOVA, 'conductor', templateOf('conductor'));
    const c = stored('deployments', 'nova-conductor').spec.template.spec.containers[0];
    expect([c.ports, c.readinessProbe]).to.deep.equal([undefined, undefined]);
    expect(fake.requests.map(line).filter((l) => l.includes('/services') || l.includes('/poddisruptionbudgets'))).to.deep.equal([]);
    await workloads.ensure(NS, NOVA, 'novncproxy', templateOf('novncproxy'));
    expect(stored('services', 'nova-novncproxy').spec.ports).to.deep.equal([{ name: 'novnc', port: 6080, targetPort: 6080, protocol: 'TCP' }]);
    expect(stored('deployments', 'nova-novncproxy').spec.template.spec.containers[0].readinessProbe).to.deep.include({ tcpSocket: { port: 6080 } });
  });

  it('database TLS and a TLS bus: the block files as projected volumes at 0400 where the DSNs point, the broker CA where the config names it', async () => {
    const spec = novaSpec({
      database: { ...novaSpec().database, cell: { ...novaSpec().database.cell, tls: { enabled: true, caSecretRef: { name: 'db-ca' } } } },
      messaging: { secretRef: { name: 'rabbit', key: 'url' }, tls: { enabled: true, caSecretRef: { name: 'rabbit-ca' } } },
    });
    await workloads.ensure(NS, NOVA, 'novncproxy', templateOf('novncproxy', spec));
    const pod = stored('deployments', 'nova-novncproxy').spec.template.spec;
    expect(pod.volumes.slice(1)).to.deep.equal([
      { name: 'db-tls-cell', projected: { defaultMode: 0o400, sources: [{ secret: { name: 'db-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } }] } },
      { name: 'messaging-ca', secret: { secretName: 'rabbit-ca', items: [{ key: 'ca.crt', path: 'ca.crt' }], defaultMode: 0o444 } },
    ]);
    expect(pod.containers[0].volumeMounts.slice(1)).to.deep.equal([
      { name: 'db-tls-cell', mountPath: '/etc/nova-db-tls/cell', readOnly: true },
      { name: 'messaging-ca', mountPath: '/etc/nova-messaging-tls', readOnly: true },
    ]);
  });

  it('an unchanged template writes nothing: one GET per object', async () => {
    await workloads.ensure(NS, NOVA, 'api', templateOf('api'));
    fake.clearRequests();
    await workloads.ensure(NS, NOVA, 'api', templateOf('api'));
    expect(fake.requests.map(line)).to.deep.equal([`GET ${DEPLOYMENTS}/nova-api`, `GET ${SERVICES}/nova-api`, `GET ${PDBS}/nova-api`]);
  });

  it('a changed template replaces the Deployment with the read resourceVersion, keeps the installed-release stamp, and reads as not rolled out until the controller catches up', async () => {
    await workloads.ensure(NS, NOVA, 'conductor', templateOf('conductor'));
    settle('conductor');
    await workloads.stampInstalledRelease(NS, NOVA.name, 'conductor', '2025.1');
    expect((await workloads.ensure(NS, NOVA, 'conductor', templateOf('conductor'))).rolledOut, 'the stamp alone is not a template change').to.equal(false);
    settle('conductor');
    fake.clearRequests();
    const changed = withTemplateHash({ ...templateOf('conductor'), annotations: { ...templateOf('conductor').annotations, 'nova.c5c3.io/db-connection-hash': '9'.repeat(64) } });
    const rollout = await workloads.ensure(NS, NOVA, 'conductor', changed);
    expect(fake.requests.map(line)).to.deep.equal([`GET ${DEPLOYMENTS}/nova-conductor`, `POST ${CONFIGMAPS}`, `PUT ${DEPLOYMENTS}/nova-conductor`]);
    expect(fake.requests[2]!.body).to.have.nested.property('metadata.resourceVersion');
    const d = stored('deployments', 'nova-conductor');
    expect(d.spec.template.metadata.annotations[INSTALLED_RELEASE_ANNOTATION]).to.equal('2025.1');
    expect(d.spec.template.metadata.annotations['nova.c5c3.io/db-connection-hash']).to.equal('9'.repeat(64));
    expect(rollout).to.include({ rolledOut: false, detail: 'controller has not observed generation 3' });
    settle('conductor');
    expect((await workloads.ensure(NS, NOVA, 'conductor', changed)).detail).to.equal('rolled out: 1 replica on ghcr.io/c5c3/nova:2025.1');
  });

  it('an autoscaled API (spec.autoscaling): created at the HPA\'s minimum; the count the HPA scaled to is neither compared nor overwritten, also by a replace', async () => {
    const spec = { ...novaSpec(), replicas: 1, autoscaling: { minReplicas: 2, maxReplicas: 6 } };
    const template = templateOf('api', spec);
    expect(template).to.deep.include({ replicas: 2, autoscaled: true });
    await workloads.ensure(NS, NOVA, 'api', template);
    expect(stored('deployments', 'nova-api').spec.replicas, 'created at minReplicas').to.equal(2);
    fake.objects.mutate(fake.objects.path('deployments', NS, 'nova-api'), (d) => void ((d.spec as Json).replicas = 5)); // the HPA scaled it
    fake.clearRequests();
    await workloads.ensure(NS, NOVA, 'api', template);
    expect(fake.requests.filter((r) => r.method === 'PUT' && r.path.startsWith(DEPLOYMENTS)), 'no replace over the HPA').to.deep.equal([]);
    expect(stored('deployments', 'nova-api').spec.replicas).to.equal(5);
    await workloads.ensure(NS, NOVA, 'api', templateOf('api', { ...spec, image: 'ghcr.io/c5c3/nova:2025.2', openStackRelease: '2025.2' }));
    expect(stored('deployments', 'nova-api').spec.replicas, 'a replace for a new template keeps the HPA\'s count').to.equal(5);
    expect(templateOf('scheduler', spec), 'only the API autoscales').to.deep.include({ replicas: 1 }).and.not.have.property('autoscaled');
  });

  it('a Deployment whose image was changed by hand, or whose replicas differ, is replaced; a scale alone keeps the pod template', async () => {
    await workloads.ensure(NS, NOVA, 'scheduler', templateOf('scheduler'));
    fake.objects.mutate(fake.objects.path('deployments', NS, 'nova-scheduler'), (d) => void ((d as Json).spec.template.spec.containers[0].image = 'evil:latest'));
    fake.clearRequests();
    await workloads.ensure(NS, NOVA, 'scheduler', templateOf('scheduler'));
    expect(fake.requests.map(line)).to.include(`PUT ${DEPLOYMENTS}/nova-scheduler`);
    expect(stored('deployments', 'nova-scheduler').spec.template.spec.containers[0].image).to.equal('ghcr.io/c5c3/nova:2025.1');
    const before = stored('deployments', 'nova-scheduler').spec.template;
    await workloads.ensure(NS, NOVA, 'scheduler', { ...templateOf('scheduler'), replicas: 3 });
    expect(stored('deployments', 'nova-scheduler').spec.replicas).to.equal(3);
    expect(stored('deployments', 'nova-scheduler').spec.template).to.deep.equal(before);
  });

  it('a Service whose port changed is replaced keeping its cluster IP; a PDB whose budget changed is replaced', async () => {
    await workloads.ensure(NS, NOVA, 'api', templateOf('api'));
    fake.objects.mutate(fake.objects.path('services', NS, 'nova-api'), (s) => void Object.assign((s as Json).spec, { clusterIP: '10.96.0.17', clusterIPs: ['10.96.0.17'], ports: [{ name: 'http', port: 80, targetPort: 80 }] }));
    fake.objects.mutate(fake.objects.path('poddisruptionbudgets', NS, 'nova-api'), (p) => void ((p as Json).spec = { minAvailable: 1, selector: (p as Json).spec.selector }));
    fake.clearRequests();
    await workloads.ensure(NS, NOVA, 'api', templateOf('api'));
    expect(fake.requests.map(line)).to.deep.equal([`GET ${DEPLOYMENTS}/nova-api`, `GET ${SERVICES}/nova-api`, `PUT ${SERVICES}/nova-api`, `GET ${PDBS}/nova-api`, `PUT ${PDBS}/nova-api`]);
    expect(stored('services', 'nova-api').spec).to.deep.include({ clusterIP: '10.96.0.17', ports: [{ name: 'http', port: 8774, targetPort: 8774, protocol: 'TCP' }] });
    expect(stored('poddisruptionbudgets', 'nova-api').spec).to.deep.equal({ maxUnavailable: 1, selector: { matchLabels: stored('services', 'nova-api').spec.selector } });
  });

  it('a ConfigMap the Config step already created (409) is fine', async () => {
    const template = templateOf('conductor');
    fake.objects.put(fake.objects.path('configmaps', NS), { metadata: { name: template.config.name }, immutable: true, data: template.config.files });
    expect((await workloads.ensure(NS, NOVA, 'conductor', template)).present).to.equal(true);
  });

  it('remove deletes the Deployment (Background), the Service and the PDB; the endpoint is the Service cluster-local URL while it exists', async () => {
    await workloads.ensure(NS, NOVA, 'api', templateOf('api'));
    expect(await workloads.endpoint(NS, NOVA.name)).to.equal(`http://nova-api.${NS}.svc:8774`);
    expect(await workloads.remove(NS, NOVA.name, 'api')).to.equal('removed');
    expect(fake.objects.deletions.map((d) => `${d.path} ${d.applied}`)).to.have.members([`${DEPLOYMENTS}/nova-api Background`, `${SERVICES}/nova-api Background`, `${PDBS}/nova-api Background`]);
    expect(fake.objects.deletions.find((d) => d.path.includes('/deployments/'))!.propagationPolicy).to.equal('Background');
    expect(await workloads.endpoint(NS, NOVA.name)).to.equal(undefined);
    expect(await workloads.remove(NS, NOVA.name, 'api')).to.equal('absent');
  });

  it('a refused write is a WorkloadError with the HTTP status and the API server message', async () => {
    fake.failNext('POST', DEPLOYMENTS, 403, 'Forbidden', 'deployments.apps is forbidden');
    const error = await workloads.ensure(NS, NOVA, 'conductor', templateOf('conductor')).then(
      () => undefined,
      (e: unknown) => e as WorkloadError,
    );
    expect(error).to.be.instanceOf(WorkloadError);
    expect(error!.status).to.equal(403);
    expect(error!.message).to.equal(`cannot create Deployment nova-conductor in ${NS}: HTTP 403: deployments.apps is forbidden`);
  });
});
