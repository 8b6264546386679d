/**
 * A Nova on a target cluster (issue 27; nova-operator.md "Watches and indexes", last paragraph, "Rotation and
 * deletion", second paragraph): its children projected there without an owner reference and labelled
 * regent.dev/nova-uid; deletion runs the named MariaDB cleanup on the target first, then the label sweep; a target
 * unresolved for the whole five-minute window is abandoned with one RemoteChildrenAbandoned Warning.
 * The management cluster is the rig's embedded store; the target is a FakeApiServer on 127.0.0.1.
 */
import { expect } from 'chai';
import { FakeApiServer, type FakePlural } from '../kube/support/fake-apiserver.js';
import { openNovaRig, type NovaRig } from './support/nova-rig.js';
import { KubernetesWorkloads } from '../../src/nova/workloads/kubernetes.js';
import { MariaDbOperatorProvisioner } from '../../src/nova/database/mariadb-operator.js';
import { KubernetesRemoteChildren } from '../../src/nova/remote-children.js';
import { NOVA_UID_LABEL, withOwnership } from '../../src/nova/ownership.js';
import { deploymentBody } from '../../src/nova/workloads/render.js';
import { targetPortsFactory } from '../../src/app/nova-target-ports.js';
import { reconcileNova } from '../../src/controllers/nova/reconcile.js';
import { NOVA_FINALIZER } from '../../src/controllers/nova/finalizer.js';
import { REMOTE_CHILDREN_FINALIZER } from '../../src/controllers/nova/target.js';
import type { DatabaseProvisioner } from '../../src/nova/database/port.js';
import type { TargetResolution } from '../../src/nova/target-clusters.js';
import type { NovaSpec } from '../../src/resources/nova.js';
import type { RoleTemplate } from '../../src/nova/workloads/port.js';

type Json = Record<string, unknown>;
const NS = 'default';
const NAME = 'nova';

/** The management cluster's provisioner: a Nova on a target must never reach it. */
const refusingProvisioner = (calls: string[]): DatabaseProvisioner => ({
  provision: async () => (calls.push('provision'), { kind: 'ready' }),
  absent: async () => (calls.push('absent'), []),
  deprovision: async () => (calls.push('deprovision'), { live: false, message: '' }),
});

const spec = (): NovaSpec => ({
  image: 'ghcr.io/c5c3/nova:2025.1',
  openStackRelease: '2025.1',
  database: {
    api: { clusterRef: { name: 'mariadb' }, database: 'nova_api', secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'mariadb' }, database: 'nova', secretRef: { name: 'nova-db' } },
  },
  messaging: { clusterRef: { name: 'rabbitmq' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
  targetClusterRef: { name: 'edge' },
});

const template: RoleTemplate = { image: 'ghcr.io/c5c3/nova:2025.1', replicas: 1, env: [], config: { name: 'nova-config-abc', files: { 'nova.conf': '' } }, templateHash: 'h1', annotations: {} } as unknown as RoleTemplate;

describe('a Nova on a target cluster (issue 27)', function () {
  this.timeout(30_000);
  let target: FakeApiServer;

  beforeEach(async () => {
    target = await FakeApiServer.start();
  });
  afterEach(async () => {
    const unexpected = target.unexpected.map((r) => `${r.method} ${r.path}`);
    await target.close();
    expect(unexpected, 'requests the target fake does not serve').to.deep.equal([]);
  });

  describe('ownership on a target: no owner reference, the uid label', () => {
    const owner = { name: NAME, uid: 'uid-1' };
    it('the default body is as rendered (the owner reference, no uid label); the remote one has no owner reference and the uid label', () => {
      const body = deploymentBody(NS, owner, 'conductor', template);
      expect(withOwnership(body, 'uid-1', undefined)).to.equal(body);
      expect(withOwnership(body, 'uid-1', { remote: false })).to.equal(body);
      const remote = withOwnership(body, 'uid-1', { remote: true });
      expect(remote.metadata).to.not.have.property('ownerReferences');
      expect(remote.metadata?.labels).to.include({ [NOVA_UID_LABEL]: 'uid-1', 'regent.dev/nova': NAME, 'app.kubernetes.io/managed-by': 'regent' });
      expect(remote.spec).to.deep.equal(body.spec);
    });

    it('the remote workload adapter writes the Deployment and its ConfigMap onto the target without an owner reference, labelled with the uid', async () => {
      await new KubernetesWorkloads({ kubeConfig: target.kubeConfig(), remote: true }).ensure(NS, owner, 'conductor', template);
      for (const [plural, name] of [['deployments', 'nova-conductor'], ['configmaps', 'nova-config-abc']] as const) {
        const stored = target.objects.get(target.objects.path(plural, NS, name))!;
        expect((stored.metadata as Json).ownerReferences ?? [], `${plural} ${name}`).to.deep.equal([]);
        expect((stored.metadata as Json).labels).to.include({ [NOVA_UID_LABEL]: 'uid-1' });
      }
      await new KubernetesWorkloads({ kubeConfig: target.kubeConfig() }).ensure(NS, { name: 'other', uid: 'uid-2' }, 'conductor', template);
      const local = target.objects.get(target.objects.path('deployments', NS, 'other-conductor'))!;
      expect(((local.metadata as Json).ownerReferences as Json[])[0]).to.include({ kind: 'Nova', uid: 'uid-2', controller: true });
      expect((local.metadata as Json).labels).to.not.have.property(NOVA_UID_LABEL);
    });

    it('the remote MariaDB adapter labels its CRs with the uid (the plan carries it)', async () => {
      target.objects.put(target.objects.path('mariadbs', NS), { metadata: { name: 'mariadb' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
      const plan = { nova: NAME, uid: 'uid-1', instance: 'nova-api', clusterRef: 'mariadb', steps: [{ kind: 'Database' as const, name: 'nova-api', database: 'nova_api' }] };
      await new MariaDbOperatorProvisioner({ kubeConfig: target.kubeConfig(), remote: true }).provision(NS, plan, async () => undefined);
      const stored = target.objects.get(target.objects.path('databases', NS, 'nova-api'))!;
      expect((stored.metadata as Json).labels).to.include({ [NOVA_UID_LABEL]: 'uid-1', 'regent.dev/nova': NAME });
    });
  });

  it('the sweep deletes by label only this Nova\'s objects, of every kind; another Nova\'s stay', async () => {
    const kinds: FakePlural[] = ['deployments', 'services', 'configmaps', 'jobs', 'cronjobs', 'poddisruptionbudgets', 'horizontalpodautoscalers', 'networkpolicies', 'httproutes', 'verticalpodautoscalers', 'databases', 'users', 'grants'];
    for (const plural of kinds) {
      target.objects.put(target.objects.path(plural, NS), { metadata: { name: `mine-${plural}`, labels: { [NOVA_UID_LABEL]: 'uid-1' } } });
      target.objects.put(target.objects.path(plural, NS), { metadata: { name: `theirs-${plural}`, labels: { [NOVA_UID_LABEL]: 'uid-2' } } });
    }
    const { deleted } = await new KubernetesRemoteChildren({ kubeConfig: target.kubeConfig() }).sweep(NS, 'uid-1');
    expect(deleted).to.have.length(kinds.length);
    for (const plural of kinds) {
      expect(target.objects.get(target.objects.path(plural, NS, `mine-${plural}`)), plural).to.equal(undefined);
      expect(target.objects.get(target.objects.path(plural, NS, `theirs-${plural}`)), plural).to.not.equal(undefined);
    }
  });

  describe('deletion', () => {
    let rig: NovaRig;
    let managementCalls: string[];
    let resolution: () => TargetResolution;
    let events: Array<[string, string, string]>;

    beforeEach(async () => {
      managementCalls = [];
      resolution = () => ({ kind: 'resolved', cluster: { name: 'edge', server: target.kubeConfig().getCurrentCluster()!.server, kubeConfig: target.kubeConfig() } });
      rig = await openNovaRig({ name: NAME, provisioner: refusingProvisioner(managementCalls), databaseEndpoint: async () => undefined, binDir: '/nonexistent', targetClusters: { resolve: async () => resolution() }, forTarget: targetPortsFactory({}) });
      events = [];
      const record = rig.source.recordEvent.bind(rig.source);
      rig.source.recordEvent = (async (object: never, type: string, reason: string, message: string) => {
        events.push([type, reason, message]);
        return record(object, type as never, reason, message);
      }) as typeof rig.source.recordEvent;
      await rig.apply(spec());
      await rig.source.addFinalizer('Nova', NS, NAME, NOVA_FINALIZER);
      await rig.source.addFinalizer('Nova', NS, NAME, REMOTE_CHILDREN_FINALIZER);
    });
    afterEach(async () => rig.close());

    const uid = async (): Promise<string> => (await rig.source.get('Nova', NS, NAME))!.metadata.uid;

    it('the named MariaDB cleanup on the target first (by name), then the label sweep; then both finalizers go; the management cluster is never reached', async () => {
      const mine = { 'regent.dev/nova': NAME, 'app.kubernetes.io/managed-by': 'regent', [NOVA_UID_LABEL]: await uid() };
      for (const [plural, name] of [['databases', 'nova-api'], ['users', 'nova-api'], ['grants', 'nova-api'], ['databases', 'nova'], ['databases', 'nova-cell0'], ['users', 'nova'], ['grants', 'nova'], ['grants', 'nova-cell0']] as const) {
        target.objects.put(target.objects.path(plural, NS), { metadata: { name, labels: mine } });
      }
      target.objects.put(target.objects.path('deployments', NS), { metadata: { name: 'nova-api', labels: mine } });
      target.objects.put(target.objects.path('deployments', NS), { metadata: { name: 'other-api', labels: { [NOVA_UID_LABEL]: 'someone-else' } } });
      await rig.source.delete('Nova', NS, NAME);

      const first = await reconcileNova(rig.deps, NS, NAME);
      expect(first).to.deep.include({ kind: 'yield', afterMs: 30_000 });
      expect(events.map((e) => e[1])).to.deep.equal(['FinalizingDatabase']);
      const second = await reconcileNova(rig.deps, NS, NAME);
      expect(second.kind).to.equal('done');
      expect(await rig.source.get('Nova', NS, NAME), 'both finalizers released').to.equal(undefined);
      expect(events.map((e) => e[1])).to.deep.equal(['FinalizingDatabase', 'DatabaseFinalized', 'RemoteChildrenSwept']);

      const byName = target.requests.map((r, i) => ({ r, i })).filter(({ r }) => r.method === 'DELETE' && /\/(databases|users|grants)\//.test(r.path));
      const firstSweep = target.requests.findIndex((r) => r.method === 'GET' && (r.query.labelSelector ?? '').includes(NOVA_UID_LABEL));
      expect(byName, 'the eight CRs deleted by name').to.have.length(8);
      expect(firstSweep, 'a sweep ran').to.be.greaterThan(-1);
      expect(Math.max(...byName.map(({ i }) => i)), 'every named Delete before the first label-selected request').to.be.lessThan(firstSweep);
      expect(target.objects.get(target.objects.path('deployments', NS, 'nova-api'))).to.equal(undefined);
      expect(target.objects.get(target.objects.path('deployments', NS, 'other-api')), 'another Nova\'s stays').to.not.equal(undefined);
      expect(managementCalls).to.deep.equal([]);
    });

    it('a target unresolved for the whole window: held at t0 + 4m59s, both finalizers released at t0 + 5m with one RemoteChildrenAbandoned Warning naming the cluster and what stays', async () => {
      resolution = () => ({ kind: 'unresolvable', message: 'the target cluster edge does not resolve: GET https://edge/version had no answer' });
      await rig.source.delete('Nova', NS, NAME);
      const t0 = Date.parse('2026-03-01T10:00:00.000Z');
      const at = (ms: number) => () => new Date(t0 + ms);
      expect(await reconcileNova(rig.deps, NS, NAME, at(0))).to.deep.include({ kind: 'yield', afterMs: 15_000 });
      expect(await reconcileNova(rig.deps, NS, NAME, at(4 * 60_000 + 59_000))).to.deep.include({ kind: 'yield', afterMs: 15_000 });
      expect((await rig.source.get('Nova', NS, NAME))?.metadata.finalizers).to.include.members([NOVA_FINALIZER, REMOTE_CHILDREN_FINALIZER]);
      expect(events, 'nothing said while held').to.deep.equal([]);
      expect((await reconcileNova(rig.deps, NS, NAME, at(5 * 60_000))).kind).to.equal('done');
      expect(await rig.source.get('Nova', NS, NAME), 'both finalizers released').to.equal(undefined);
      expect(events.map((e) => [e[0], e[1]])).to.deep.equal([['Warning', 'RemoteChildrenAbandoned']]);
      expect(events[0]![2]).to.contain('edge').and.to.contain('Deployment').and.to.contain('MariaDB Database/User/Grant CRs were not cleaned');
      expect(target.requests, 'nothing was sent to the unresolved cluster').to.deep.equal([]);
      expect(managementCalls).to.deep.equal([]);
    });

    it('a target that resolves again before the window ends continues the normal cleanup', async () => {
      resolution = () => ({ kind: 'unresolvable', message: 'down' });
      await rig.source.delete('Nova', NS, NAME);
      const t0 = Date.parse('2026-03-01T10:00:00.000Z');
      await reconcileNova(rig.deps, NS, NAME, () => new Date(t0));
      resolution = () => ({ kind: 'resolved', cluster: { name: 'edge', server: target.kubeConfig().getCurrentCluster()!.server, kubeConfig: target.kubeConfig() } });
      expect((await reconcileNova(rig.deps, NS, NAME, () => new Date(t0 + 4 * 60_000))).kind).to.equal('done');
      expect(events.map((e) => e[1])).to.deep.equal(['DatabaseFinalized', 'RemoteChildrenSwept']);
    });
  });
});
