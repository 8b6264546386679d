/**
 * The parallel group's members (src/controllers/nova/steps/{routes,hpa,vpa,network-policy}.ts; nova-operator.md,
 * "Pipeline", "Conditions"; issue 27) as a table over the fake API server (the Kubernetes adapter,
 * src/nova/group/kubernetes.ts), with the Gateway API and VPA CRDs present and absent, and over the embedded default
 * (src/nova/group/local.ts). Each row: a spec, the cluster's state → the one condition the member sets, its reason,
 * what the cluster holds afterwards, how the lane goes on.
 */
import { expect } from 'chai';
import { FakeApiServer, type FakePlural } from '../../kube/support/fake-apiserver.js';
import { KubernetesGroupObjects } from '../../../src/nova/group/kubernetes.js';
import { localGroupObjects } from '../../../src/nova/group/local.js';
import type { GroupObjects } from '../../../src/nova/group/port.js';
import type { NovaStep } from '../../../src/controllers/nova/lane.js';
import type { NovaLanePass } from '../../../src/controllers/nova/pass.js';
import { NOVA_GROUP, runGroup } from '../../../src/controllers/nova/pipeline.js';
import { consoleHTTPRouteStep, httpRouteStep, metadataHTTPRouteStep } from '../../../src/controllers/nova/steps/routes.js';
import { hpaStep } from '../../../src/controllers/nova/steps/hpa.js';
import { vpaStep } from '../../../src/controllers/nova/steps/vpa.js';
import { networkPolicyStep } from '../../../src/controllers/nova/steps/network-policy.js';
import type { NovaSpec } from '../../../src/resources/nova.js';
import { NAME, NS, baseSpec, makePass } from './pass-rig.js';

const GATEWAY_API = 'gateway.networking.k8s.io/v1';
const VPA_API = 'autoscaling.k8s.io/v1';
const GATEWAY = { parentRef: { name: 'public' }, hostname: 'nova.example.com' };
const METADATA = { sharedSecretRef: { name: 'nova-metadata' } };

type Json = Record<string, unknown>;

describe('nova group: the seven members over the fake API server (CRDs present and absent) and the embedded default', () => {
  let fake: FakeApiServer;
  let objects: KubernetesGroupObjects;

  beforeEach(async () => {
    fake = await FakeApiServer.start();
    objects = new KubernetesGroupObjects({ kubeConfig: fake.kubeConfig() });
  });
  afterEach(async () => {
    const unexpected = fake.unexpected.map((r) => `${r.method} ${r.path}`);
    await fake.close();
    expect(unexpected, 'requests the fake does not serve').to.deep.equal([]);
  });

  const run = async (step: NovaStep<NovaLanePass>, spec: NovaSpec, group: GroupObjects = objects) => {
    const report = await step.run(makePass({ spec, group, values: { brokerPort: 5672 } }));
    expect(report.conditions.map((c) => c.type), 'a member sets exactly one condition').to.deep.equal(step.conditions);
    return { report, condition: report.conditions[0]! };
  };
  const stored = (plural: FakePlural, name: string): Json | undefined => fake.objects.get(fake.objects.path(plural, NS, name));
  const names = (plural: FakePlural): string[] => fake.objects.list(fake.objects.path(plural, NS)).map((o) => (o.metadata as Json).name as string).sort();
  const accept = (route: string, status: 'True' | 'False', reason = 'Accepted', message = 'ok') =>
    fake.objects.mutate(fake.objects.path('httproutes', NS, route), (o) => {
      const generation = (o.metadata as Json).generation;
      o.status = { parents: [{ parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public' }, controllerName: 'example.com/gw', conditions: [{ type: 'Accepted', status, reason, message, observedGeneration: generation }] }] };
    });

  describe('HTTPRoute, MetadataHTTPRoute, ConsoleHTTPRoute', () => {
    const members: Array<[string, NovaStep<NovaLanePass>, (s: NovaSpec) => NovaSpec, string]> = [
      ['HTTPRoute (spec.gateway)', httpRouteStep, (s) => ({ ...s, gateway: GATEWAY }), `${NAME}-api`],
      ['MetadataHTTPRoute (spec.metadata.gateway)', metadataHTTPRouteStep, (s) => ({ ...s, metadata: { ...METADATA, gateway: GATEWAY } }), `${NAME}-metadata`],
      ['ConsoleHTTPRoute (spec.consoleProxy.gateway)', consoleHTTPRouteStep, (s) => ({ ...s, consoleProxy: { enabled: true, gateway: GATEWAY } }), `${NAME}-novncproxy`],
    ];
    for (const [title, step, withGateway, route] of members) {
      describe(title, () => {
        it('no block → True HTTPRouteNotRequired, nothing written; with the CRD absent too (never a crash)', async () => {
          expect((await run(step, baseSpec())).condition).to.include({ status: 'True', reason: 'HTTPRouteNotRequired' });
          fake.objects.uninstall(GATEWAY_API);
          expect((await run(step, baseSpec(), new KubernetesGroupObjects({ kubeConfig: fake.kubeConfig() }))).condition).to.include({ status: 'True', reason: 'HTTPRouteNotRequired' });
          expect(names('httproutes')).to.deep.equal([]);
        });

        it('a block, the Gateway has not reported → False HTTPRouteNotAccepted, 10 s; Accepted=True → True HTTPRouteAccepted; Accepted=False → False with its reason', async () => {
          const first = await run(step, withGateway(baseSpec()));
          expect(first.condition).to.include({ status: 'False', reason: 'HTTPRouteNotAccepted' });
          expect(first.report.outcome).to.deep.include({ kind: 'requeue', afterMs: 10_000 });
          expect(stored('httproutes', route)?.spec).to.deep.include({ hostnames: ['nova.example.com'] });
          accept(route, 'True');
          const accepted = await run(step, withGateway(baseSpec()));
          expect(accepted.condition).to.include({ status: 'True', reason: 'HTTPRouteAccepted' });
          expect(accepted.report.outcome).to.deep.equal({ kind: 'continue' });
          accept(route, 'False', 'NotAllowedByListeners', 'no listener allows this hostname');
          const refused = await run(step, withGateway(baseSpec()));
          expect(refused.condition).to.include({ status: 'False', reason: 'HTTPRouteNotAccepted' });
          expect(refused.condition.message).to.contain('NotAllowedByListeners').and.to.contain('no listener allows this hostname');
        });

        it('the block removed → the route deleted in that pass, True HTTPRouteNotRequired', async () => {
          await run(step, withGateway(baseSpec()));
          expect(names('httproutes')).to.deep.equal([route]);
          const removed = await run(step, baseSpec());
          expect(removed.condition).to.include({ status: 'True', reason: 'HTTPRouteNotRequired' });
          expect(removed.condition.message).to.contain('deleted');
          expect(names('httproutes')).to.deep.equal([]);
        });

        it('the Gateway API CRD absent → False GatewayAPINotInstalled, nothing written, the lane goes on', async () => {
          fake.objects.uninstall(GATEWAY_API);
          const { condition, report } = await run(step, withGateway(baseSpec()));
          expect(condition).to.include({ status: 'False', reason: 'GatewayAPINotInstalled' });
          expect(report.outcome).to.deep.equal({ kind: 'continue' });
          expect(fake.requests.filter((r) => r.path.includes('/httproutes'))).to.deep.equal([]);
        });

        it('the capability probe failing (403) → False CapabilityProbeFailed, nothing written', async () => {
          fake.objects.failDiscovery(GATEWAY_API, 403);
          const { condition } = await run(step, withGateway(baseSpec()));
          expect(condition).to.include({ status: 'False', reason: 'CapabilityProbeFailed' });
          expect(fake.requests.filter((r) => r.path.includes('/httproutes'))).to.deep.equal([]);
        });
      });
    }

    it('a disabled console proxy is an absent block: its route is deleted in the same pass (its gateway still set)', async () => {
      await run(consoleHTTPRouteStep, { ...baseSpec(), consoleProxy: { enabled: true, gateway: GATEWAY } });
      expect(names('httproutes')).to.deep.equal([`${NAME}-novncproxy`]);
      const { condition } = await run(consoleHTTPRouteStep, { ...baseSpec(), consoleProxy: { enabled: false, gateway: GATEWAY } });
      expect(condition).to.include({ status: 'True', reason: 'HTTPRouteNotRequired' });
      expect(names('httproutes')).to.deep.equal([]);
    });
  });

  describe('HPA', () => {
    const autoscaled = (s: NovaSpec): NovaSpec => ({ ...s, autoscaling: { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 70 } });

    it('spec.autoscaling → True HPAReady and the API Deployment\'s HPA; unset again → deleted, True HPANotRequired', async () => {
      expect((await run(hpaStep, baseSpec())).condition).to.include({ status: 'True', reason: 'HPANotRequired' });
      expect((await run(hpaStep, autoscaled(baseSpec()))).condition).to.include({ status: 'True', reason: 'HPAReady' });
      const hpa = stored('horizontalpodautoscalers', `${NAME}-api`)!;
      expect(hpa.spec).to.deep.include({ minReplicas: 2, maxReplicas: 5 });
      expect((hpa.spec as Json).scaleTargetRef).to.deep.include({ kind: 'Deployment', name: `${NAME}-api` });
      expect(JSON.stringify((hpa.spec as Json).metrics)).to.contain('"averageUtilization":70');
      const removed = await run(hpaStep, baseSpec());
      expect(removed.condition).to.include({ status: 'True', reason: 'HPANotRequired' });
      expect(names('horizontalpodautoscalers')).to.deep.equal([]);
    });

    it('a failed write → False HPAError and the error propagates (the spec: "errors propagate")', async () => {
      fake.failNext('POST', `/apis/autoscaling/v2/namespaces/${NS}/horizontalpodautoscalers`, 403, 'Forbidden', 'horizontalpodautoscalers is forbidden');
      const { condition, report } = await run(hpaStep, autoscaled(baseSpec()));
      expect(condition).to.include({ status: 'False', reason: 'HPAError' });
      expect(report.outcome.kind).to.equal('error');
    });
  });

  describe('VPA', () => {
    const vpa = (s: NovaSpec, proxy = false): NovaSpec => ({ ...s, vpa: { enabled: true }, ...(proxy ? { consoleProxy: { enabled: true } } : {}) });

    it('unset or disabled → True VPANotRequired; enabled → one VPA per role, the console proxy\'s only while it is enabled', async () => {
      expect((await run(vpaStep, baseSpec())).condition).to.include({ status: 'True', reason: 'VPANotRequired' });
      expect((await run(vpaStep, { ...baseSpec(), vpa: { enabled: false } })).condition).to.include({ status: 'True', reason: 'VPANotRequired' });
      expect((await run(vpaStep, vpa(baseSpec(), true))).condition).to.include({ status: 'True', reason: 'VPAReady' });
      expect(names('verticalpodautoscalers')).to.deep.equal(['api', 'conductor', 'metadata', 'novncproxy', 'scheduler'].map((r) => `${NAME}-${r}`));
      expect(stored('verticalpodautoscalers', `${NAME}-api`)?.spec).to.deep.include({ targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: `${NAME}-api` } });
      await run(vpaStep, vpa(baseSpec(), false));
      expect(names('verticalpodautoscalers'), 'the proxy disabled: its VPA goes').to.not.include(`${NAME}-novncproxy`);
      const off = await run(vpaStep, { ...baseSpec(), vpa: { enabled: false } });
      expect(off.condition).to.include({ status: 'True', reason: 'VPANotRequired' });
      expect(names('verticalpodautoscalers')).to.deep.equal([]);
    });

    it('the VPA CRD absent → False VPANotInstalled; the probe failing → False CapabilityProbeFailed; a failed write → False VPAError', async () => {
      fake.objects.failDiscovery(VPA_API, 500);
      expect((await run(vpaStep, vpa(baseSpec()))).condition).to.include({ status: 'False', reason: 'CapabilityProbeFailed' });
      const fresh = () => new KubernetesGroupObjects({ kubeConfig: fake.kubeConfig() });
      fake.failNext('POST', `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalers`, 500, 'InternalError');
      // discovery answers again for a fresh adapter only after the failDiscovery hook is replaced by uninstall below
      fake.objects.uninstall(VPA_API);
      expect((await run(vpaStep, vpa(baseSpec()), fresh())).condition).to.include({ status: 'False', reason: 'VPANotInstalled' });
      expect(names('verticalpodautoscalers')).to.deep.equal([]);
    });

    it('a failed write → False VPAError, the lane goes on (30 s)', async () => {
      fake.failNext('POST', `/apis/autoscaling.k8s.io/v1/namespaces/${NS}/verticalpodautoscalers`, 500, 'InternalError');
      const { condition, report } = await run(vpaStep, vpa(baseSpec()));
      expect(condition).to.include({ status: 'False', reason: 'VPAError' });
      expect(report.outcome).to.deep.include({ kind: 'requeue', afterMs: 30_000 });
    });
  });

  describe('NetworkPolicy', () => {
    const policy = (s: NovaSpec, ingress: string[] = ['gateway-system'], proxy = false): NovaSpec => ({ ...s, networkPolicy: { enabled: true, ingressNamespaces: ingress }, ...(proxy ? { consoleProxy: { enabled: true } } : {}) });
    const egressPorts = (name: string): string[] => (((stored('networkpolicies', name)?.spec as Json).egress as Json[]).flatMap((rule) => (rule.ports as Json[]).map((p) => `${p.port as number}${p.endPort ? `-${p.endPort as number}` : ''}/${p.protocol as string}`))).sort();

    it('enabled → the policy with the derived egress (DNS, MariaDB, the broker port, the OpenStack APIs) and ingress from the named namespaces', async () => {
      const { condition } = await run(networkPolicyStep, policy(baseSpec()));
      expect(condition).to.include({ status: 'True', reason: 'NetworkPolicyReady' });
      expect(egressPorts(NAME)).to.include.members(['53/UDP', '53/TCP', '3306/TCP', '5672/TCP', '5000/TCP', '8778/TCP', '9696/TCP']);
      const ingress = JSON.stringify((stored('networkpolicies', NAME)?.spec as Json).ingress);
      expect(ingress).to.contain('gateway-system').and.to.contain('8774').and.to.contain('8775');
      expect(names('networkpolicies'), 'no console policy while the proxy is disabled').to.deep.equal([NAME]);
    });

    it('the console proxy enabled → the {name}-novncproxy policy opens VNC egress; disabled → it is deleted', async () => {
      await run(networkPolicyStep, policy(baseSpec(), ['gateway-system'], true));
      expect(names('networkpolicies')).to.deep.equal([NAME, `${NAME}-novncproxy`]);
      expect(egressPorts(`${NAME}-novncproxy`)).to.include('5900-5999/TCP');
      await run(networkPolicyStep, policy(baseSpec()));
      expect(names('networkpolicies')).to.deep.equal([NAME]);
    });

    it('an empty ingress list is refused (fail-closed): nothing applied, False NetworkPolicyRefused and an error', async () => {
      const { condition, report } = await run(networkPolicyStep, policy(baseSpec(), []));
      expect(condition).to.include({ status: 'False', reason: 'NetworkPolicyRefused' });
      expect(report.outcome.kind).to.equal('error');
      expect(names('networkpolicies')).to.deep.equal([]);
    });

    it('unset or disabled → both policies deleted, True NetworkPolicyNotRequired', async () => {
      await run(networkPolicyStep, policy(baseSpec(), ['gateway-system'], true));
      const { condition } = await run(networkPolicyStep, { ...baseSpec(), networkPolicy: { enabled: false } });
      expect(condition).to.include({ status: 'True', reason: 'NetworkPolicyNotRequired' });
      expect(names('networkpolicies')).to.deep.equal([]);
    });

    it('a failed write → False NetworkPolicyError and the error propagates', async () => {
      fake.failNext('POST', `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`, 403, 'Forbidden');
      const { condition, report } = await run(networkPolicyStep, policy(baseSpec()));
      expect(condition).to.include({ status: 'False', reason: 'NetworkPolicyError' });
      expect(report.outcome.kind).to.equal('error');
    });
  });

  describe('the group together', () => {
    it('every member runs and sets its one condition; their conditions are merged; the shortest requeue wins', async () => {
      const spec: NovaSpec = { ...baseSpec(), gateway: GATEWAY, vpa: { enabled: true } };
      const members = NOVA_GROUP.filter((s) => s.name !== 'HealthCheck');
      const result = await runGroup(members, makePass({ spec, group: objects, values: { brokerPort: 5672 } }));
      expect(result.conditions.map((c) => c.type).sort()).to.deep.equal(members.flatMap((s) => s.conditions).sort());
      expect(result.outcome).to.deep.include({ kind: 'requeue', afterMs: 10_000 }); // the route waits for its Gateway
      expect(result.timings.map((t) => t.step).sort()).to.deep.equal(members.map((s) => s.name).sort());
    });
  });

  describe('the embedded default (no Kubernetes): NotRequired without a block, NotInstalled with one; nothing written', () => {
    const table: Array<[NovaStep<NovaLanePass>, (s: NovaSpec) => NovaSpec, string, string]> = [
      [httpRouteStep, (s) => ({ ...s, gateway: GATEWAY }), 'HTTPRouteNotRequired', 'GatewayAPINotInstalled'],
      [metadataHTTPRouteStep, (s) => ({ ...s, metadata: { ...METADATA, gateway: GATEWAY } }), 'HTTPRouteNotRequired', 'GatewayAPINotInstalled'],
      [consoleHTTPRouteStep, (s) => ({ ...s, consoleProxy: { enabled: true, gateway: GATEWAY } }), 'HTTPRouteNotRequired', 'GatewayAPINotInstalled'],
      [hpaStep, (s) => ({ ...s, autoscaling: { minReplicas: 1, maxReplicas: 3 } }), 'HPANotRequired', 'HPANotInstalled'],
      [vpaStep, (s) => ({ ...s, vpa: { enabled: true } }), 'VPANotRequired', 'VPANotInstalled'],
      [networkPolicyStep, (s) => ({ ...s, networkPolicy: { enabled: true, ingressNamespaces: ['gw'] } }), 'NetworkPolicyNotRequired', 'NetworkPolicyNotInstalled'],
    ];
    for (const [step, withBlock, unset, set] of table) {
      it(`${step.name}: ${unset} / ${set}`, async () => {
        expect((await run(step, baseSpec(), localGroupObjects)).condition).to.include({ status: 'True', reason: unset });
        const { condition, report } = await run(step, withBlock(baseSpec()), localGroupObjects);
        expect(condition).to.include({ status: 'False', reason: set });
        expect(condition.message).to.contain('without Kubernetes');
        expect(report.outcome).to.deep.equal({ kind: 'continue' });
      });
    }
  });
});
