/**
 * The parallel group's objects on Kubernetes (src/nova/group/kubernetes.ts, render.ts) on the wire, against the fake
 * API server: each kind's body as stored (labels, the Nova's controller owner reference), the requests an ensure makes
 * (one GET and nothing written when the object is as rendered; a PUT with the read's resourceVersion when it is not),
 * remove and remove again, the route's acceptance as its Gateway reported it, the capability probes (discovery GETs:
 * 404, 403, a TTL cache on an injected clock, evict) and the typed errors.
 */
import { expect } from 'chai';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { KubernetesGroupObjects, capabilityFromList, GATEWAY_API } from '../../src/nova/group/kubernetes.js';
import { GroupObjectError, type EgressPort, type NetworkPolicySpec, type RouteSpec } from '../../src/nova/group/port.js';

const NS = 'openstack';
const NOVA = { name: 'nova', uid: 'uid-nova' };
const OWNER = [{ apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', name: 'nova', uid: 'uid-nova', controller: true, blockOwnerDeletion: true }];
const LABELS = { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/instance': 'nova', 'app.kubernetes.io/managed-by': 'regent', 'regent.dev/nova': 'nova' };
const GATEWAY_GV = 'gateway.networking.k8s.io/v1';
const VPA_GV = 'autoscaling.k8s.io/v1';
const ROUTES = `/apis/${GATEWAY_GV}/namespaces/${NS}/httproutes`;
const VPAS = `/apis/${VPA_GV}/namespaces/${NS}/verticalpodautoscalers`;
const HPAS = `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`;
const POLICIES = `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`;
const line = (r: RecordedRequest): string => `${r.method} ${r.path}`;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const API_ROUTE: RouteSpec = { target: 'api', parentRef: { name: 'public' }, hostname: 'compute.example.org' };
const EGRESS: readonly EgressPort[] = [
  { port: 53, protocol: 'UDP', why: 'DNS' },
  { port: 3306, protocol: 'TCP', why: 'MariaDB' },
];
const POLICY: NetworkPolicySpec = { ingressNamespaces: ['ingress-nginx', 'openstack'], ingressPorts: [8774, 8775], egress: EGRESS };
const CONSOLE_POLICY: NetworkPolicySpec = { ingressNamespaces: ['ingress-nginx'], ingressPorts: [6080], egress: [...EGRESS, { port: 5900, endPort: 5999, protocol: 'TCP', why: 'VNC on the compute hosts' }] };

const rejection = async (work: Promise<unknown>): Promise<GroupObjectError> => {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call fails').to.be.instanceOf(GroupObjectError);
  return error as GroupObjectError;
};

describe('nova group objects on Kubernetes (HTTPRoute, HPA, VPA, NetworkPolicy)', () => {
  let fake: FakeApiServer;
  let group: KubernetesGroupObjects;
  let clock: number;
  const stored = (path: string): Json | undefined => fake.objects.get(path);
  const writes = (): string[] => fake.requests.filter((r) => r.method !== 'GET').map(line);

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    clock = 1_000_000;
    group = new KubernetesGroupObjects({ kubeConfig: fake.kubeConfig(), probeTtlMs: 30_000, now: () => clock });
  });
  afterEach(async () => {
    const unexpected = fake.unexpected.map(line);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  describe('HTTPRoute', () => {
    it('is created {nova}-{role} with the Gateway parentRef, the hostname and one rule to the role Service; labelled and owned by the Nova', async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      expect(fake.requests.map(line)).to.deep.equal([`GET ${ROUTES}/nova-api`, `POST ${ROUTES}`]);
      const route = stored(`${ROUTES}/nova-api`)!;
      expect(route.spec.parentRefs).to.deep.equal([{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public' }]);
      expect(route.spec.hostnames).to.deep.equal(['compute.example.org']);
      expect(route.spec.rules).to.have.length(1);
      expect(route.spec.rules[0].backendRefs.map((b: Json) => [b.name, b.port])).to.deep.equal([['nova-api', 8774]]);
      expect(route.metadata.labels).to.deep.equal(LABELS);
      expect(route.metadata.ownerReferences).to.deep.equal(OWNER);
    });

    it('the metadata route goes to {nova}-metadata:8775, the console route to {nova}-novncproxy:6080; a parentRef namespace is sent', async () => {
      await group.ensureRoute(NS, NOVA, { target: 'metadata', parentRef: { name: 'internal', namespace: 'gateways' }, hostname: 'metadata.example.org' });
      await group.ensureRoute(NS, NOVA, { target: 'console', parentRef: { name: 'public' }, hostname: 'console.example.org' });
      const metadata = stored(`${ROUTES}/nova-metadata`)!;
      expect(metadata.spec.parentRefs[0]).to.deep.include({ name: 'internal', namespace: 'gateways' });
      expect(metadata.spec.rules[0].backendRefs[0]).to.deep.include({ name: 'nova-metadata', port: 8775 });
      expect(stored(`${ROUTES}/nova-novncproxy`)!.spec.rules[0].backendRefs[0]).to.deep.include({ name: 'nova-novncproxy', port: 6080 });
    });

    it('a second ensure of the same route reads once and writes nothing', async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      fake.clearRequests();
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      expect(fake.requests.map(line)).to.deep.equal([`GET ${ROUTES}/nova-api`]);
    });

    it('a changed hostname replaces the route with the read resourceVersion', async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      const before = stored(`${ROUTES}/nova-api`)!;
      fake.clearRequests();
      await group.ensureRoute(NS, NOVA, { ...API_ROUTE, hostname: 'nova.example.org' });
      expect(fake.requests.map(line)).to.deep.equal([`GET ${ROUTES}/nova-api`, `PUT ${ROUTES}/nova-api`]);
      expect((fake.requests[1]!.body as Json).metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
      expect(stored(`${ROUTES}/nova-api`)!.spec.hostnames).to.deep.equal(['nova.example.org']);
    });

    it('a label of ours taken off or a foreign owner reference is put back; a label another writer added is kept', async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      fake.objects.mutate(`${ROUTES}/nova-api`, (o) => {
        o.metadata = { ...(o.metadata as Json), labels: { 'app.kubernetes.io/name': 'nova', team: 'compute' } };
      });
      fake.clearRequests();
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      expect(writes()).to.deep.equal([`PUT ${ROUTES}/nova-api`]);
      expect(stored(`${ROUTES}/nova-api`)!.metadata.labels).to.deep.equal({ ...LABELS, team: 'compute' });
      fake.objects.mutate(`${ROUTES}/nova-api`, (o) => {
        o.metadata = { ...(o.metadata as Json), ownerReferences: [{ ...OWNER[0], uid: 'uid-of-an-earlier-nova' }] };
      });
      fake.clearRequests();
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      expect(writes()).to.deep.equal([`PUT ${ROUTES}/nova-api`]);
      expect(stored(`${ROUTES}/nova-api`)!.metadata.ownerReferences).to.deep.equal(OWNER);
    });

    it('remove deletes the route ("removed"); removing it again is "absent"', async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      expect(await group.removeRoute(NS, 'nova', 'api')).to.equal('removed');
      expect(stored(`${ROUTES}/nova-api`)).to.equal(undefined);
      expect(await group.removeRoute(NS, 'nova', 'api')).to.equal('absent');
      expect(fake.requests.filter((r) => r.method === 'DELETE').map(line)).to.deep.equal([`DELETE ${ROUTES}/nova-api`, `DELETE ${ROUTES}/nova-api`]);
    });
  });

  describe('route acceptance (status.parents[] of the parentRef, condition Accepted)', () => {
    const report = (parents: Json[]): void => {
      fake.objects.setStatus(`${ROUTES}/nova-api`, { parents });
    };
    const parent = (ref: Json, condition: Json): Json => ({ parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', ...ref }, controllerName: 'example.org/gateway', conditions: [{ lastTransitionTime: '2025-01-01T00:00:00Z', ...condition }] });

    it('a route its Gateway has not reported on yet is not accepted, naming the Gateway', async () => {
      expect(await group.ensureRoute(NS, NOVA, API_ROUTE)).to.deep.equal({ kind: 'notAccepted', message: 'the Gateway openstack/public has not reported on the route yet' });
    });

    it('Accepted True for our parentRef is accepted, read off the GET when nothing is written', async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      report([parent({ name: 'public' }, { type: 'Accepted', status: 'True', reason: 'Accepted', message: 'Route is accepted', observedGeneration: 1 })]);
      fake.clearRequests();
      expect(await group.ensureRoute(NS, NOVA, API_ROUTE)).to.deep.equal({ kind: 'accepted' });
      expect(writes()).to.deep.equal([]);
    });

    it('Accepted False is not accepted with "<reason>: <message>"', async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      report([parent({ name: 'public', namespace: NS }, { type: 'Accepted', status: 'False', reason: 'NotAllowedByListeners', message: 'no listener allows routes from namespace openstack', observedGeneration: 1 })]);
      expect(await group.ensureRoute(NS, NOVA, API_ROUTE)).to.deep.equal({ kind: 'notAccepted', message: 'NotAllowedByListeners: no listener allows routes from namespace openstack' });
    });

    it("another Gateway's report (same name, another namespace) is not ours: not reported yet", async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      report([parent({ name: 'public', namespace: 'elsewhere' }, { type: 'Accepted', status: 'True', reason: 'Accepted', observedGeneration: 1 })]);
      expect(await group.ensureRoute(NS, NOVA, API_ROUTE)).to.deep.equal({ kind: 'notAccepted', message: 'the Gateway openstack/public has not reported on the route yet' });
    });

    it('after a replace, an Accepted on the older generation is not reported yet: read off the write response', async () => {
      await group.ensureRoute(NS, NOVA, API_ROUTE);
      report([parent({ name: 'public' }, { type: 'Accepted', status: 'True', reason: 'Accepted', observedGeneration: 1 })]);
      expect(await group.ensureRoute(NS, NOVA, { ...API_ROUTE, hostname: 'nova.example.org' })).to.deep.equal({
        kind: 'notAccepted',
        message: 'the Gateway openstack/public has not reported on generation 2 of the route yet (its last report is on generation 1)',
      });
      expect(writes()).to.deep.equal([`POST ${ROUTES}`, `PUT ${ROUTES}/nova-api`]);
    });
  });

  describe('HorizontalPodAutoscaler', () => {
    const HPA = { minReplicas: 2, maxReplicas: 6, targetCPUUtilizationPercentage: 80 };

    it('is created {nova}-api scaling the API Deployment on CPU utilisation; labelled and owned by the Nova', async () => {
      await group.ensureHPA(NS, NOVA, HPA);
      expect(fake.requests.map(line)).to.deep.equal([`GET ${HPAS}/nova-api`, `POST ${HPAS}`]);
      const hpa = stored(`${HPAS}/nova-api`)!;
      expect(hpa.spec).to.deep.equal({
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nova-api' },
        minReplicas: 2,
        maxReplicas: 6,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
      });
      expect(hpa.metadata.labels).to.deep.equal(LABELS);
      expect(hpa.metadata.ownerReferences).to.deep.equal(OWNER);
    });

    it('a second ensure writes nothing; a changed maximum or target is replaced', async () => {
      await group.ensureHPA(NS, NOVA, HPA);
      fake.clearRequests();
      await group.ensureHPA(NS, NOVA, HPA);
      expect(fake.requests.map(line)).to.deep.equal([`GET ${HPAS}/nova-api`]);
      await group.ensureHPA(NS, NOVA, { ...HPA, maxReplicas: 10, targetCPUUtilizationPercentage: 70 });
      expect(writes()).to.deep.equal([`PUT ${HPAS}/nova-api`]);
      expect(stored(`${HPAS}/nova-api`)!.spec).to.deep.include({ maxReplicas: 10 });
      expect(stored(`${HPAS}/nova-api`)!.spec.metrics[0].resource.target.averageUtilization).to.equal(70);
    });

    it('remove is "removed", then "absent"', async () => {
      await group.ensureHPA(NS, NOVA, HPA);
      expect(await group.removeHPA(NS, 'nova')).to.equal('removed');
      expect(await group.removeHPA(NS, 'nova')).to.equal('absent');
      expect(stored(`${HPAS}/nova-api`)).to.equal(undefined);
    });
  });

  describe('VerticalPodAutoscaler', () => {
    it('is created {nova}-{role} targeting the role Deployment, updateMode Auto; labelled and owned by the Nova', async () => {
      await group.ensureVPA(NS, NOVA, 'scheduler');
      expect(fake.requests.map(line)).to.deep.equal([`GET ${VPAS}/nova-scheduler`, `POST ${VPAS}`]);
      const vpa = stored(`${VPAS}/nova-scheduler`)!;
      expect(vpa.spec).to.deep.equal({ targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'nova-scheduler' }, updatePolicy: { updateMode: 'Auto' } });
      expect(vpa.metadata.labels).to.deep.equal(LABELS);
      expect(vpa.metadata.ownerReferences).to.deep.equal(OWNER);
    });

    it('a second ensure writes nothing; a spec edited by hand is put back', async () => {
      await group.ensureVPA(NS, NOVA, 'api');
      fake.clearRequests();
      await group.ensureVPA(NS, NOVA, 'api');
      expect(fake.requests.map(line)).to.deep.equal([`GET ${VPAS}/nova-api`]);
      fake.objects.mutate(`${VPAS}/nova-api`, (o) => {
        o.spec = { ...(o.spec as Json), updatePolicy: { updateMode: 'Off' } };
      });
      await group.ensureVPA(NS, NOVA, 'api');
      expect(writes()).to.deep.equal([`PUT ${VPAS}/nova-api`]);
      expect(stored(`${VPAS}/nova-api`)!.spec.updatePolicy).to.deep.equal({ updateMode: 'Auto' });
    });

    it('remove is "removed", then "absent"', async () => {
      await group.ensureVPA(NS, NOVA, 'conductor');
      expect(await group.removeVPA(NS, 'nova', 'conductor')).to.equal('removed');
      expect(await group.removeVPA(NS, 'nova', 'conductor')).to.equal('absent');
    });
  });

  describe('NetworkPolicy', () => {
    it('{nova} selects every pod of the Nova, admits each ingress namespace to the serving ports, and opens every egress port; why in an annotation', async () => {
      await group.ensureNetworkPolicy(NS, NOVA, POLICY);
      expect(fake.requests.map(line)).to.deep.equal([`GET ${POLICIES}/nova`, `POST ${POLICIES}`]);
      const policy = stored(`${POLICIES}/nova`)!;
      expect(policy.spec).to.deep.equal({
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/instance': 'nova' } },
        policyTypes: ['Ingress', 'Egress'],
        ingress: [
          {
            from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'openstack' } } }],
            ports: [
              { protocol: 'TCP', port: 8774 },
              { protocol: 'TCP', port: 8775 },
            ],
          },
        ],
        egress: [
          {
            ports: [
              { protocol: 'UDP', port: 53 },
              { protocol: 'TCP', port: 3306 },
            ],
          },
        ],
      });
      expect(policy.metadata.labels).to.deep.equal(LABELS);
      expect(policy.metadata.ownerReferences).to.deep.equal(OWNER);
      expect(policy.metadata.annotations).to.deep.equal({ 'regent.dev/egress': 'UDP 53: DNS\nTCP 3306: MariaDB' });
    });

    it('{nova}-novncproxy selects the console proxy pods only and carries the VNC range with its endPort', async () => {
      await group.ensureConsoleNetworkPolicy(NS, NOVA, CONSOLE_POLICY);
      const policy = stored(`${POLICIES}/nova-novncproxy`)!;
      expect(policy.spec.podSelector.matchLabels).to.deep.equal({ 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/instance': 'nova', 'app.kubernetes.io/component': 'novncproxy' });
      expect(policy.spec.ingress[0].ports).to.deep.equal([{ protocol: 'TCP', port: 6080 }]);
      expect(policy.spec.egress[0].ports.at(-1)).to.deep.equal({ protocol: 'TCP', port: 5900, endPort: 5999 });
      expect(policy.metadata.labels).to.deep.equal(LABELS);
      expect(policy.metadata.ownerReferences).to.deep.equal(OWNER);
    });

    it('a second ensure writes nothing (either policy); an ingress namespace taken away or an endPort dropped is replaced', async () => {
      await group.ensureNetworkPolicy(NS, NOVA, POLICY);
      await group.ensureConsoleNetworkPolicy(NS, NOVA, CONSOLE_POLICY);
      fake.clearRequests();
      await group.ensureNetworkPolicy(NS, NOVA, POLICY);
      await group.ensureConsoleNetworkPolicy(NS, NOVA, CONSOLE_POLICY);
      expect(fake.requests.map(line)).to.deep.equal([`GET ${POLICIES}/nova`, `GET ${POLICIES}/nova-novncproxy`]);
      await group.ensureNetworkPolicy(NS, NOVA, { ...POLICY, ingressNamespaces: ['ingress-nginx'] });
      expect(writes()).to.deep.equal([`PUT ${POLICIES}/nova`]);
      expect(stored(`${POLICIES}/nova`)!.spec.ingress[0].from).to.have.length(1);
      fake.clearRequests();
      await group.ensureConsoleNetworkPolicy(NS, NOVA, { ...CONSOLE_POLICY, egress: [...EGRESS, { port: 5900, protocol: 'TCP', why: 'VNC, one display' }] });
      expect(writes()).to.deep.equal([`PUT ${POLICIES}/nova-novncproxy`]);
      expect(stored(`${POLICIES}/nova-novncproxy`)!.spec.egress[0].ports.at(-1)).to.deep.equal({ protocol: 'TCP', port: 5900 });
    });

    it('remove of either policy is "removed", then "absent"', async () => {
      await group.ensureNetworkPolicy(NS, NOVA, POLICY);
      await group.ensureConsoleNetworkPolicy(NS, NOVA, CONSOLE_POLICY);
      expect(await group.removeNetworkPolicy(NS, 'nova')).to.equal('removed');
      expect(await group.removeConsoleNetworkPolicy(NS, 'nova')).to.equal('removed');
      expect(await group.removeNetworkPolicy(NS, 'nova')).to.equal('absent');
      expect(await group.removeConsoleNetworkPolicy(NS, 'nova')).to.equal('absent');
    });
  });

  describe('capability probes', () => {
    const discoveries = (gv: string): number => fake.requests.filter((r) => r.method === 'GET' && r.path === `/apis/${gv}`).length;

    it('the Gateway API and the VPA are installed when their discovery lists httproutes and verticalpodautoscalers; HPA and NetworkPolicy without asking', async () => {
      expect(await group.gatewayAPI()).to.deep.equal({ kind: 'installed' });
      expect(await group.vpaAPI()).to.deep.equal({ kind: 'installed' });
      expect(await group.hpaAPI()).to.deep.equal({ kind: 'installed' });
      expect(await group.networkPolicyAPI()).to.deep.equal({ kind: 'installed' });
      expect(fake.requests.map(line)).to.deep.equal([`GET /apis/${GATEWAY_GV}`, `GET /apis/${VPA_GV}`]);
    });

    it('a group the cluster does not serve (discovery 404) is notInstalled, naming the group/version; nothing is written under it', async () => {
      fake.objects.uninstall(GATEWAY_GV);
      fake.objects.uninstall(VPA_GV);
      const gateway = await group.gatewayAPI();
      const vpa = await group.vpaAPI();
      expect(gateway.kind).to.equal('notInstalled');
      expect(vpa.kind).to.equal('notInstalled');
      expect((gateway as { message: string }).message).to.contain('gateway.networking.k8s.io/v1').and.contain('not served');
      expect((vpa as { message: string }).message).to.contain('autoscaling.k8s.io/v1').and.contain('not served');
      // a step that went on regardless gets a typed 404, and nothing lands
      const error = await rejection(group.ensureRoute(NS, NOVA, API_ROUTE));
      expect(error.status).to.equal(404);
      expect(error.message).to.contain('HTTPRoute openstack/nova-api');
      expect(await group.removeVPA(NS, 'nova', 'api')).to.equal('absent');
      expect(fake.objects.list(ROUTES)).to.deep.equal([]);
      expect(fake.objects.list(VPAS)).to.deep.equal([]);
    });

    it('a served group that does not list the resource is notInstalled', () => {
      expect(capabilityFromList(GATEWAY_API, { resources: [{ name: 'gateways', kind: 'Gateway', namespaced: true, singularName: 'gateway', verbs: ['get'] }] })).to.deep.include({ kind: 'notInstalled' });
      expect(capabilityFromList(GATEWAY_API, { resources: [{ name: 'httproutes/status', kind: 'HTTPRoute', namespaced: true, singularName: '', verbs: ['get'] }] })).to.deep.include({ kind: 'notInstalled' });
    });

    it('a discovery that fails (403, 503) is probeFailed with the status, not notInstalled', async () => {
      fake.objects.failDiscovery(GATEWAY_GV, 403);
      fake.objects.failDiscovery(VPA_GV, 503);
      const gateway = await group.gatewayAPI();
      const vpa = await group.vpaAPI();
      expect(gateway.kind).to.equal('probeFailed');
      expect((gateway as { message: string }).message).to.contain('gateway.networking.k8s.io/v1').and.contain('403 Forbidden');
      expect(vpa.kind).to.equal('probeFailed');
      expect((vpa as { message: string }).message).to.contain('503 ServiceUnavailable');
    });

    it('an unreachable API server is probeFailed, and a write a GroupObjectError without a status', async () => {
      const gone = await FakeApiServer.start();
      const kubeConfig = gone.kubeConfig();
      await gone.close();
      const unreachable = new KubernetesGroupObjects({ kubeConfig });
      expect(await unreachable.gatewayAPI()).to.deep.equal({ kind: 'probeFailed', message: 'cannot tell whether the Gateway API (gateway.networking.k8s.io/v1) is served: cannot reach the Kubernetes API' });
      const error = await rejection(unreachable.ensureHPA(NS, NOVA, { minReplicas: 1, maxReplicas: 2, targetCPUUtilizationPercentage: 80 }));
      expect(error.status).to.equal(undefined);
    });

    it('an answer is kept for the TTL (one discovery for calls within it, concurrent ones too) and asked again after it', async () => {
      await Promise.all([group.gatewayAPI(), group.gatewayAPI()]);
      clock += 29_999;
      await group.gatewayAPI();
      expect(discoveries(GATEWAY_GV)).to.equal(1);
      clock += 1;
      await group.gatewayAPI();
      expect(discoveries(GATEWAY_GV)).to.equal(2);
    });

    it('a failed probe is kept for the TTL too; after it the recovered cluster reads as installed', async () => {
      fake.failNext('GET', `/apis/${VPA_GV}`, 403, 'Forbidden');
      expect((await group.vpaAPI()).kind).to.equal('probeFailed');
      expect((await group.vpaAPI()).kind).to.equal('probeFailed');
      expect(discoveries(VPA_GV)).to.equal(1);
      clock += 30_000;
      expect(await group.vpaAPI()).to.deep.equal({ kind: 'installed' });
      expect(discoveries(VPA_GV)).to.equal(2);
    });

    it('evict forgets the answers: the next call probes again', async () => {
      await group.gatewayAPI();
      await group.vpaAPI();
      group.evict();
      fake.objects.uninstall(GATEWAY_GV);
      expect((await group.gatewayAPI()).kind).to.equal('notInstalled');
      await group.vpaAPI();
      expect([discoveries(GATEWAY_GV), discoveries(VPA_GV)]).to.deep.equal([2, 2]);
    });
  });

  describe('failures', () => {
    it('a refused create is a GroupObjectError naming the object, with the status, reason and message', async () => {
      fake.failNext('POST', ROUTES, 422, 'Invalid', 'spec.hostnames[0]: Invalid value');
      const error = await rejection(group.ensureRoute(NS, NOVA, API_ROUTE));
      expect(error.status).to.equal(422);
      expect(error.message).to.equal('cannot create HTTPRoute openstack/nova-api: the API server answered 422 Invalid: spec.hostnames[0]: Invalid value');
    });

    it('a refused read, replace or delete says which, with its status', async () => {
      fake.failNext('GET', `${HPAS}/nova-api`, 403, 'Forbidden', 'horizontalpodautoscalers.autoscaling is forbidden');
      const read = await rejection(group.ensureHPA(NS, NOVA, { minReplicas: 1, maxReplicas: 3, targetCPUUtilizationPercentage: 80 }));
      expect([read.status, read.message]).to.deep.equal([403, 'cannot read HorizontalPodAutoscaler openstack/nova-api: the API server answered 403 Forbidden: horizontalpodautoscalers.autoscaling is forbidden']);
      await group.ensureNetworkPolicy(NS, NOVA, POLICY);
      fake.failNext('PUT', `${POLICIES}/nova`, 409, 'Conflict');
      const replace = await rejection(group.ensureNetworkPolicy(NS, NOVA, { ...POLICY, ingressPorts: [8774] }));
      expect([replace.status, replace.message]).to.deep.equal([409, 'cannot replace NetworkPolicy openstack/nova: the API server answered 409 Conflict: injected 409']);
      fake.failNext('DELETE', `${VPAS}/nova-api`, 500, 'InternalError');
      const remove = await rejection(group.removeVPA(NS, 'nova', 'api'));
      expect([remove.status, remove.message]).to.deep.equal([500, 'cannot delete VerticalPodAutoscaler openstack/nova-api: the API server answered 500 InternalError: injected 500']);
    });
  });
});
