/**
 * Least privilege: the ServiceAccount may make exactly the API calls `regent start --resources
 * kubernetes --no-examples` makes, plus the secret store's get/create/update/delete in the install
 * namespace, granted ahead of the Region and Identity controllers that will call it (GRANTED_AHEAD). The expected grants are derived from the source (support/adapter.ts:
 * client calls of the kubernetes adapter → adapter methods → what the control plane reaches, each table
 * cross-checked against the code), and then proven on the wire: the control plane runs against the fake
 * API server and every request it sends must be allowed by deploy/manifests' RBAC, and every grant used.
 */
import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, AutoscalingV2Api, BatchV1Api, CoordinationV1Api, CoreV1Api, CustomObjectsApi, NetworkingV1Api, PolicyV1Api, Watch } from '@kubernetes/client-node';
import { KINDS } from '../../src/resources/index.js';
import { startControlPlane } from '../../src/app/control-plane.js';
import { silentLogger } from '../../src/log/logger.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { startSimulator } from '../../src/simulator/index.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { FakeApiServer, type RecordedRequest } from '../kube/support/fake-apiserver.js';
import { openKubernetesSource } from '../../src/kube/kubernetes/source.js';
import { at, loadChartObjects, loadManifests, only, read, ROOT, type KubeObject, type Loaded } from './support/files.js';
import { accessOf, allows, grantsOf, rulesFor, rulesOf, triple, wildcardsIn, type Access } from './support/rbac.js';
import {
  CLIENT_CALLS,
  CONTROL_PLANE_CALLS,
  EXAMPLES_ONLY,
  GRANTED_AHEAD,
  GROUP,
  NOVA_COMPUTE_GRANTED_AHEAD,
  WORKLOAD_CLIENT_CALLS,
  WORKLOAD_GRANTED_AHEAD,
  workloadClientCallsInAdapters,
  LEASE_GROUP,
  PORT_CALLS,
  clientCallsInAdapter,
  controllerKinds,
  expectedGrants,
  leaseName,
  portCallsInAdapter,
  portCallsOfControlPlane,
  servedKinds,
  finalizedKinds,
  HOLDS_NO_FINALIZER,
  NOVA_ADAPTERS,
  NOVA_API_CLIENTS,
  NOVA_CLIENT_CALLS,
  NOVA_CLIENT_MODULES_ELSEWHERE,
  NOVA_CLUSTER_CLIENT_CALLS,
  NOVA_DISCOVERY_CALLS,
  NOVA_UNREACHED_CALLS,
  NOVA_WATCHES,
  NOVA_WATCHES_NOT_GRANTED,
  expectedNovaGrants,
  isDiscoveryRequest,
  novaClientCallsInAdapters,
  novaClientModules,
  novaGrantsOf,
  novaWatchedAccesses,
  novaWatchModules,
} from './support/adapter.js';
import { KubernetesJobRunner } from '../../src/nova/jobs/kubernetes.js';
import { MariaDbOperatorProvisioner } from '../../src/nova/database/mariadb-operator.js';
import { KubernetesWorkloads } from '../../src/nova/workloads/kubernetes.js';
import { kubernetesSecretStoreReader } from '../../src/nova/secret-store-kubernetes.js';
import { KubernetesConfigStore } from '../../src/nova/config/kubernetes.js';
import { KubernetesGroupObjects } from '../../src/nova/group/kubernetes.js';
import { kubernetesComputeCluster } from '../../src/nova/compute/kubernetes.js';
import { POOL_LABEL, type PoolDaemonSetSpec } from '../../src/nova/compute/port.js';
import { COMPUTE_DRAIN_FINALIZER } from '../../src/controllers/nova-compute/reconcile.js';
import { NOVA_FINALIZER } from '../../src/controllers/nova/finalizer.js';
import { configHash, configName, type RenderedConfig } from '../../src/nova/config/render.js';
import { namespacedSecretStoreGate } from '../../src/nova/secret-store.js';
import { renderArchiveCronJob, renderNovaJob } from '../../src/nova/jobs/render.js';
import { planDatabases } from '../../src/nova/database/plan.js';
import { validateNova } from '../../src/resources/nova.js';
import { kubernetesExportsPublisher } from '../../src/workload/exports-publisher.js';
import type { ClusterExports } from '../../src/resources/index.js';

const pluralOf = (kind: string): string => {
  const definition = KINDS.find((k) => k.kind === kind);
  if (!definition) throw new Error(`unknown kind ${kind}`);
  return definition.plural;
};
const plurals = () => ({ all: KINDS.map((k) => k.plural), served: finalizedKinds().map(pluralOf) });
const sorted = (values: Iterable<string>): string[] => [...values].sort();

const containerArgs = (deployment: KubeObject): string[] => (at(deployment, 'spec', 'template', 'spec', 'containers', 0, 'args') as string[] | undefined) ?? [];

describe('deploy: RBAC least privilege', () => {
  describe('what the code calls (the tables in test/deploy/support/adapter.ts)', () => {
    it('CLIENT_CALLS names exactly the client calls the kubernetes adapter makes', () => {
      expect(clientCallsInAdapter(), 'src/kube/kubernetes/*.ts calls a client method the table does not map to RBAC (or the table lists one it no longer calls)').to.deep.equal(sorted(Object.keys(CLIENT_CALLS)));
    });

    it('every CLIENT_CALLS name is a real @kubernetes/client-node method', () => {
      const prototypes = [CustomObjectsApi.prototype, CoreV1Api.prototype, CoordinationV1Api.prototype] as unknown as Array<Record<string, unknown>>;
      for (const name of Object.keys(CLIENT_CALLS)) {
        if (name === 'Watch') expect(typeof Watch.prototype.watch).to.equal('function');
        else expect(prototypes.some((p) => typeof p[name] === 'function'), name).to.equal(true);
      }
    });

    it('PORT_CALLS matches the client calls in each adapter method body (through its private helpers)', () => {
      const derived = portCallsInAdapter();
      expect(sorted(Object.keys(derived))).to.deep.equal(sorted(Object.keys(PORT_CALLS)));
      for (const [method, calls] of Object.entries(PORT_CALLS)) expect(derived[method], method).to.deep.equal(sorted(calls));
    });

    it('CONTROL_PLANE_CALLS lists exactly the adapter methods the control plane reaches', () => {
      const reached = portCallsOfControlPlane();
      const detail = [...reached].map(([method, files]) => `${method}: ${files.join(', ')}`).join('\n');
      expect(sorted(reached.keys()), `source.<method>( calls in the modules src/app/control-plane.ts imports:\n${detail}`).to.deep.equal(sorted(Object.keys(CONTROL_PLANE_CALLS)));
    });

    it('the secret store: the Region and Identity controllers get, put and delete secrets by name, and nothing ever lists them', () => {
      const reached = portCallsOfControlPlane();
      const early = Object.keys(GRANTED_AHEAD).filter((m) => reached.has(m));
      expect(early, 'the control plane now calls these: move them from GRANTED_AHEAD to CONTROL_PLANE_CALLS').to.deep.equal([]);
      for (const method of ['secrets.get', 'secrets.put', 'secrets.delete']) expect(reached.has(method), method).to.equal(true);
      expect(reached.has('secrets.list')).to.equal(false);
      for (const method of Object.keys(GRANTED_AHEAD)) expect(PORT_CALLS[method], method).to.not.equal(undefined);
    });

    it('the control plane records Kubernetes Events in the namespaces of its resources: core events create and patch, cluster-wide', () => {
      expect(portCallsOfControlPlane().has('recordEvent')).to.equal(true);
      expect(CONTROL_PLANE_CALLS.recordEvent?.kinds).to.equal('events');
    });

    it('finalizers are patched only on kinds with a controller: SERVED equals the controllers the control plane builds', () => {
      expect(sorted(servedKinds())).to.deep.equal(sorted(controllerKinds()));
    });

    it('the examples path (apply: get, create, update) runs only with --examples, and every Deployment passes --no-examples', () => {
      const plane = read('src/app/control-plane.ts');
      expect([...plane.matchAll(/import \{([^}]*)\} from '\.\/first-start-examples\.js'/g)].map((m) => m[1]!.trim()), EXAMPLES_ONLY).to.deep.equal(['applyFirstStartExamples']);
      expect(plane.split('applyFirstStartExamples(').length - 1, 'applyFirstStartExamples is called once, in the examples block').to.equal(1);
      expect(plane.slice(plane.indexOf('if (options.examples)'))).to.include('applyFirstStartExamples(');
      expect(plane, 'the control plane writes resources only through the examples module').to.not.match(/\bapplyManifests\(|\bregisterRegion\(/);
      expect(containerArgs(only(loadManifests(), 'Deployment'))).to.include('--no-examples');
      expect(containerArgs(only(loadChartObjects(), 'Deployment'))).to.include('--no-examples');
    });

    it('a served kind listed as holding no finalizer really holds none (its controller never adds one)', () => {
      for (const kind of HOLDS_NO_FINALIZER) {
        expect(servedKinds()).to.include(kind);
        const dir = join(ROOT, 'src/controllers', kind.toLowerCase());
        const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
        const code = files.map((f) => readFileSync(join(dir, f), 'utf8')).join('\n');
        expect(code, kind).to.not.match(/addFinalizer\(/);
      }
    });

    it('the NovaCompute grants left in NOVA_COMPUTE_GRANTED_AHEAD are none the code derives (issue 28), each says why', () => {
      // what the tables derive from the code alone, without the ahead table (expectedGrants would add it back)
      const derived = new Set([...expectedGrants(plurals(), leaseName(), { ahead: false }).cluster, ...expectedNovaGrants({ ahead: false })]);
      const early = [...Object.keys(NOVA_COMPUTE_GRANTED_AHEAD.cluster), ...Object.keys(NOVA_COMPUTE_GRANTED_AHEAD.namespaced)].filter((g) => derived.has(g));
      expect(early, 'the code now needs these: move them from NOVA_COMPUTE_GRANTED_AHEAD to the derivation').to.deep.equal([]);
      for (const [grant, why] of [...Object.entries(NOVA_COMPUTE_GRANTED_AHEAD.cluster), ...Object.entries(NOVA_COMPUTE_GRANTED_AHEAD.namespaced)]) expect(why, grant).to.be.a('string').and.not.equal('');
      expect(KINDS.map((k) => k.plural)).to.include('novacomputes');
      // the controller is wired and holds its finalizer: novacomputes patch is derived (a finalized kind), not ahead
      expect(finalizedKinds()).to.include('NovaCompute');
      expect(read('src/controllers/nova-compute/reconcile.ts')).to.match(/\bsource\.addFinalizer\('NovaCompute',/).and.to.match(/\bsource\.removeFinalizer\('NovaCompute',/);
      expect(derived).to.include(triple(GROUP, 'novacomputes', 'patch'));
      // the one grant left: blockOwnerDeletion on the pool's owner references (no client call names it)
      expect(read('src/nova/compute/kubernetes/common.ts')).to.match(/kind: NOVA_COMPUTE_KIND,[^}]*blockOwnerDeletion: true/);
    });

    it('the workload kinds (issue 29): the exports publisher calls exactly WORKLOAD_CLIENT_CALLS; what WORKLOAD_GRANTED_AHEAD holds the code does not derive yet, each says why', () => {
      expect(workloadClientCallsInAdapters()).to.deep.equal(sorted(Object.keys(WORKLOAD_CLIENT_CALLS)));
      const prototype = CoreV1Api.prototype as unknown as Record<string, unknown>;
      for (const call of Object.keys(WORKLOAD_CLIENT_CALLS)) expect(typeof prototype[call.split('.')[1]!], call).to.equal('function');
      expect(read('src/workload/exports-publisher.ts'), 'the publisher builds its client from the kubeConfig it is given').to.match(/this\.core = kubeConfig\.makeApiClient\(CoreV1Api\);/);
      const derived = new Set(expectedGrants(plurals(), leaseName(), { ahead: false }).cluster);
      expect(Object.keys(WORKLOAD_GRANTED_AHEAD.cluster).filter((g) => derived.has(g)), 'the code now needs these: move them from WORKLOAD_GRANTED_AHEAD to the derivation').to.deep.equal([]);
      for (const [grant, why] of Object.entries(WORKLOAD_GRANTED_AHEAD.cluster)) expect(why, grant).to.be.a('string').and.not.equal('');
      expect(KINDS.map((k) => k.plural)).to.include.members(['workloadclusters', 'workloadmachines']);
    });

    it('the Nova controller holds its finalizer (issue 27): it adds and removes it on the Nova, so novas is a finalized kind', () => {
      const code = ['src/controllers/nova/reconcile.ts', 'src/controllers/nova/finalizer.ts'].map((f) => read(f)).join('\n');
      expect(code).to.match(/\bsource\.addFinalizer\('Nova',/);
      expect(code).to.match(/\bsource\.removeFinalizer\('Nova',/);
      expect(finalizedKinds()).to.include('Nova');
    });

    it('NOVA_CLIENT_CALLS, NOVA_CLUSTER_CLIENT_CALLS, NOVA_DISCOVERY_CALLS and NOVA_UNREACHED_CALLS name exactly the client calls the Nova adapters make (jobs, mariadb-operator, workloads, secret store, config store, group, the NovaCompute pool\'s, the watches\' lists)', () => {
      const tables = [Object.keys(NOVA_CLIENT_CALLS), Object.keys(NOVA_CLUSTER_CLIENT_CALLS), Object.keys(NOVA_DISCOVERY_CALLS), Object.keys(NOVA_UNREACHED_CALLS)];
      expect(novaClientCallsInAdapters()).to.deep.equal(sorted(tables.flat()));
      expect(tables.flat().filter((call) => tables.filter((t) => t.includes(call)).length > 1), 'a call is granted namespaced, granted cluster-wide, discovery or unreached: one of them').to.deep.equal([]);
    });

    it('a namespaced call is granted by the Nova Role, a cluster-scoped one (the NovaCompute pool\'s Nodes and Hypervisors) by the ClusterRole', () => {
      expect(Object.keys(NOVA_CLIENT_CALLS).filter((call) => !/Namespaced/.test(call)), 'NOVA_CLIENT_CALLS: namespaced calls only').to.deep.equal([]);
      expect(Object.keys(NOVA_CLUSTER_CLIENT_CALLS).filter((call) => /Namespaced|ForAllNamespaces/.test(call)), 'NOVA_CLUSTER_CLIENT_CALLS: cluster-scoped calls only').to.deep.equal([]);
      expect(sorted(novaGrantsOf(NOVA_CLUSTER_CLIENT_CALLS))).to.deep.equal(sorted([triple('', 'nodes', 'get'), triple('', 'nodes', 'list'), triple('kvm.cloud.sap', 'hypervisors', 'get'), triple('kvm.cloud.sap', 'hypervisors', 'patch')]));
      const cluster = expectedGrants(plurals(), leaseName()).cluster;
      for (const grant of novaGrantsOf(NOVA_CLUSTER_CLIENT_CALLS)) {
        expect(cluster, grant).to.include(grant);
        expect(expectedNovaGrants(), grant).to.not.include(grant);
      }
    });

    it("the Nova controller's watches and the NovaCompute pools': NOVA_WATCHES names exactly the legs Regent registers under --namespace, each in the install namespace", () => {
      // the only Watch of src/nova, on the path of a leg from novaWatchLegs (imported below: the table cannot drift)
      expect(novaWatchModules(), 'modules under src/nova constructing a Watch').to.deep.equal(['src/nova/watches.ts']);
      const watches = read('src/nova/watches.ts');
      expect(watches.match(/\.watch\(/g), 'one watch call').to.have.length(1);
      expect(watches).to.match(/new Watch\(this\.options\.kubeConfig\)\s*\.watch\(this\.path,/);
      expect(watches).to.match(/private get path\(\): string \{\s*return legPath\(this\.leg\);/);
      expect(watches).to.match(/const legs = novaWatchLegs\(options\.namespace, options\.clusterScoped\);/);
      // what Regent registers: src/app/nova-runtime.ts starts the watches namespace-scoped
      expect(read('src/app/nova-runtime.ts')).to.match(/startNovaWatches\(\{[^}]*\bnamespace: options\.installNamespace, clusterScoped: false\b/);
      // the NovaCompute pools' legs (issue 28) on the same machinery, in the install namespace: poolWatchLegs
      expect(read('src/app/nova-runtime.ts')).to.match(/startPoolWatches\(\{[^}]*\bnamespace: options\.installNamespace\b/);
      expect(read('src/nova/compute/watches.ts')).to.match(/const legs = poolWatchLegs\(options\.namespace\);[\s\S]*startLegWatches\(legs,/);
      const install = 'install-namespace';
      const registered = novaWatchedAccesses(install, false);
      expect(sorted(registered.map((a) => a.key))).to.deep.equal(sorted(Object.keys(NOVA_WATCHES)));
      expect(registered.filter((a) => a.namespace !== install).map((a) => a.key), 'watched outside the install namespace').to.deep.equal([]);
      // the leg Regent does not register (a cluster-scoped install would): cluster-wide, and granted nowhere
      const unregistered = novaWatchedAccesses(install, true).filter((a) => !registered.some((r) => r.key === a.key));
      expect(sorted(unregistered.map((a) => a.key))).to.deep.equal(sorted(Object.keys(NOVA_WATCHES_NOT_GRANTED)));
      expect(unregistered.every((a) => a.namespace === undefined), 'the ClusterSecretStore leg is cluster-wide').to.equal(true);
      expect(Object.keys(NOVA_WATCHES).filter((key) => key in NOVA_WATCHES_NOT_GRANTED)).to.deep.equal([]);
    });

    it('every watched leg is granted list (the LIST it starts from and relists with) and watch; the unregistered ClusterSecretStore leg neither', () => {
      const grants = expectedNovaGrants();
      for (const key of Object.keys(NOVA_WATCHES)) expect(grants, key).to.include.members([`${key}:list`, `${key}:watch`]);
      for (const key of Object.keys(NOVA_WATCHES_NOT_GRANTED)) expect(grants.filter((g) => g.startsWith(`${key}:`)), key).to.deep.equal([]);
      expect(read('src/nova/watches.ts'), "the unreached call is the ClusterSecretStore leg's list").to.match(/l\.namespace === undefined \? await this\.custom\.listClusterCustomObject\(/);
    });

    it('every Nova client call is a real method of the client class its field holds', () => {
      const classes: Record<string, { prototype: unknown }> = { BatchV1Api, CoreV1Api, AppsV1Api, PolicyV1Api, CustomObjectsApi, AutoscalingV2Api, NetworkingV1Api };
      for (const call of [...Object.keys(NOVA_CLIENT_CALLS), ...Object.keys(NOVA_CLUSTER_CLIENT_CALLS), ...Object.keys(NOVA_DISCOVERY_CALLS), ...Object.keys(NOVA_UNREACHED_CALLS)]) {
        const [field, method] = call.split('.') as [string, string];
        const prototype = classes[NOVA_API_CLIENTS[field]!]?.prototype as Record<string, unknown> | undefined;
        expect(typeof prototype?.[method], call).to.equal('function');
      }
    });

    it('the capability probes (the group\'s, the pool VPA\'s, the Hypervisors\') are discovery GETs: no rule grants them, system:discovery allows them (non-resource URLs every authenticated user may GET)', () => {
      expect(Object.keys(NOVA_DISCOVERY_CALLS)).to.deep.equal(['custom.getAPIResources']);
      expect(read('src/nova/group/kubernetes.ts')).to.match(/this\.custom\.getAPIResources\(\{ group: api\.group, version: api\.version \}\)/);
      expect(read('src/nova/compute/kubernetes/vpa.ts')).to.match(/this\.custom\.getAPIResources\(\{ group: VPA_API\.group, version: VPA_API\.version \}\)/);
      expect(read('src/nova/compute/kubernetes/hypervisors.ts')).to.match(/this\.custom\.getAPIResources\(\{ group: HYPERVISOR_GROUP, version: HYPERVISOR_VERSION \}\)/);
      expect(isDiscoveryRequest('GET', '/apis/gateway.networking.k8s.io/v1')).to.equal(true);
      expect(isDiscoveryRequest('GET', '/apis/gateway.networking.k8s.io/v1/namespaces/regent-system/httproutes'), 'a resource request is not discovery').to.equal(false);
      expect(isDiscoveryRequest('POST', '/apis/gateway.networking.k8s.io/v1'), 'only a GET').to.equal(false);
    });

    it('every src/nova module that builds an API client is a Nova adapter of this cluster, or says why its calls are no grant here (target-clusters.ts: a remote cluster)', () => {
      expect(novaClientModules()).to.deep.equal(sorted([...NOVA_ADAPTERS, ...Object.keys(NOVA_CLIENT_MODULES_ELSEWHERE)]));
      expect(read('src/nova/target-clusters.ts'), 'the target cluster client is built from that cluster\'s kubeconfig').to.match(/parsed\.kubeConfig[\s\S]*kubeConfig\.makeApiClient\(VersionApi\)/);
    });

    it('the expected grants, as derived from those tables', () => {
      const { cluster, leases, secrets } = expectedGrants(plurals(), leaseName());
      // Written out once so a change in the derivation shows up in review, not only in the RBAC files.
      const all = plurals().all;
      expect(cluster).to.deep.equal(sorted([
        ...all.flatMap((p) => [triple(GROUP, p, 'get'), triple(GROUP, p, 'list'), triple(GROUP, p, 'watch'), triple(GROUP, `${p}/status`, 'patch')]),
        triple(GROUP, 'servers', 'patch'),
        triple(GROUP, 'networks', 'patch'),
        triple(GROUP, 'identities', 'patch'),
        triple(GROUP, 'regions', 'patch'),
        triple(GROUP, 'volumes', 'patch'),
        triple(GROUP, 'loadbalancers', 'patch'),
        triple(GROUP, 'securitygroups', 'patch'),
        // the Nova finalizer (issue 27), the NovaCompute drain finalizer (issue 28)
        triple(GROUP, 'novas', 'patch'),
        triple(GROUP, 'novacomputes', 'patch'),
        triple('', 'events', 'create'),
        triple('', 'events', 'patch'),
        // the server REST API's writes (issue 17)
        triple(GROUP, 'servers', 'create'),
        triple(GROUP, 'servers', 'update'),
        triple(GROUP, 'servers', 'delete'),
        // the NovaCompute pool's cluster-scoped calls (issue 28, NOVA_CLUSTER_CLIENT_CALLS): the Nodes it selects (an
        // uncached metadata read: no watch) and the Hypervisors whose custom traits it writes
        ...['get', 'list'].map((verb) => triple('', 'nodes', verb)),
        triple('kvm.cloud.sap', 'hypervisors', 'get'),
        triple('kvm.cloud.sap', 'hypervisors', 'patch'),
        // granted ahead (NOVA_COMPUTE_GRANTED_AHEAD.cluster): blockOwnerDeletion on the owner references to a NovaCompute
        triple(GROUP, 'novacomputes/finalizers', 'update'),
        // the exports publisher (issue 29, WORKLOAD_CLIENT_CALLS): the <cluster>-openstack-exports ConfigMap in any namespace
        ...['get', 'create', 'update', 'delete'].map((verb) => triple('', 'configmaps', verb)),
        // the workload controllers' finalizers (issue 29: finalized kinds of src/app/kinds.ts)
        triple(GROUP, 'workloadclusters', 'patch'),
        triple(GROUP, 'workloadmachines', 'patch'),
        // granted ahead (WORKLOAD_GRANTED_AHEAD.cluster): blockOwnerDeletion on owner references to the workload kinds
        triple(GROUP, 'workloadclusters/finalizers', 'update'),
        triple(GROUP, 'workloadmachines/finalizers', 'update'),
      ]));
      expect(leases).to.deep.equal(sorted([triple(LEASE_GROUP, 'leases', 'create'), triple(LEASE_GROUP, 'leases', 'get', 'regent-controller'), triple(LEASE_GROUP, 'leases', 'update', 'regent-controller')]));
      expect(secrets).to.deep.equal(sorted(['get', 'create', 'update', 'delete'].map((verb) => triple('', 'secrets', verb))));
      // the Nova controller's watches (src/nova/watches.ts): list and watch, in the install namespace, on each leg
      const watched = (group: string, resource: string) => ['list', 'watch'].map((verb) => triple(group, resource, verb));
      expect(expectedNovaGrants()).to.deep.equal(sorted([...new Set([
        ...['get', 'list', 'create', 'delete'].map((verb) => triple('batch', 'jobs', verb)),
        ...watched('batch', 'jobs'),
        ...['get', 'create', 'update'].map((verb) => triple('batch', 'cronjobs', verb)),
        ...watched('batch', 'cronjobs'),
        // the Jobs' reports, and the NovaCompute pool's pods on its nodes (issue 28)
        triple('', 'pods', 'list'),
        // the NovaCompute pool's {pool}-nova-compute DaemonSet (issue 28): get, create, update (replace on drift), delete;
        // list and watch: the pools' DaemonSet leg (the spec's Owns(DaemonSet), by the pool label)
        ...['get', 'create', 'update', 'delete'].map((verb) => triple('apps', 'daemonsets', verb)),
        ...watched('apps', 'daemonsets'),
        ...['get', 'list', 'create', 'patch', 'delete'].map((verb) => triple('', 'configmaps', verb)),
        ...watched('', 'configmaps'),
        ...['get', 'patch', 'create', 'update', 'delete'].map((verb) => triple('apps', 'deployments', verb)),
        ...watched('apps', 'deployments'),
        ...['get', 'create', 'update', 'delete'].map((verb) => triple('', 'services', verb)),
        ...watched('', 'services'),
        ...['get', 'create', 'update', 'delete'].map((verb) => triple('policy', 'poddisruptionbudgets', verb)),
        ...watched('policy', 'poddisruptionbudgets'),
        triple('k8s.mariadb.com', 'mariadbs', 'get'),
        ...watched('k8s.mariadb.com', 'mariadbs'),
        // delete: the finalizer's deprovision (issue 27)
        ...['databases', 'users', 'grants'].flatMap((r) => ['get', 'create', 'patch', 'delete'].map((verb) => triple('k8s.mariadb.com', r, verb))),
        triple('external-secrets.io', 'secretstores', 'get'),
        ...watched('external-secrets.io', 'secretstores'),
        // the parallel group (issue 27): get, create, update (replace on drift), delete; list and watch: the watches only
        ...['get', 'create', 'update', 'delete'].map((verb) => triple('gateway.networking.k8s.io', 'httproutes', verb)),
        ...watched('gateway.networking.k8s.io', 'httproutes'),
        ...['get', 'create', 'update', 'delete'].map((verb) => triple('autoscaling', 'horizontalpodautoscalers', verb)),
        ...watched('autoscaling', 'horizontalpodautoscalers'),
        ...['get', 'create', 'update', 'delete'].map((verb) => triple('autoscaling.k8s.io', 'verticalpodautoscalers', verb)),
        ...['get', 'create', 'update', 'delete'].map((verb) => triple('networking.k8s.io', 'networkpolicies', verb)),
        ...watched('networking.k8s.io', 'networkpolicies'),
        // EXCEPTION to "never list or watch Secrets" (the secrets Role above keeps it): the spec's Secret leg — a Nova
        // wakes when a Secret it references changes; namespace-scoped to the install namespace
        ...watched('', 'secrets'),
        // not external-secrets.io/clustersecretstores: Regent runs namespaced, and the spec registers no
        // ClusterSecretStore leg under --namespace (NOVA_WATCHES_NOT_GRANTED)
      ])]));
    });
  });

  for (const [name, load] of [['deploy/manifests', loadManifests], ['deploy/helm/regent', loadChartObjects]] as const) {
    describe(`${name} grants exactly that`, () => {
      const objects = load();
      const clusterRole = only(objects, 'ClusterRole');
      const roles = objects.filter((o) => o.object.kind === 'Role').map((o) => o.object);
      const leaseRole = roles.find((r) => r.metadata.name.endsWith('leader-election'))!;
      const secretRole = roles.find((r) => r.metadata.name.endsWith('secrets'))!;
      const novaRole = roles.find((r) => r.metadata.name.endsWith('nova'))!;
      const deployment = only(objects, 'Deployment');

      it('the ClusterRole grants exactly the custom-resource calls (informers list and watch every namespace)', () => {
        expect(sorted(grantsOf(rulesOf(clusterRole)))).to.deep.equal(expectedGrants(plurals(), leaseName()).cluster);
      });

      it('the leader-election Role grants exactly the Lease calls, get and update only on the Lease the code names', () => {
        expect(leaseRole, 'a Role named …leader-election').to.not.equal(undefined);
        expect(sorted(grantsOf(rulesOf(leaseRole)))).to.deep.equal(expectedGrants(plurals(), leaseName()).leases);
      });

      it('the secrets Role grants exactly the secret store calls: get, create, update, delete on core secrets, no list or watch', () => {
        expect(secretRole, 'a Role named …secrets').to.not.equal(undefined);
        expect(sorted(grantsOf(rulesOf(secretRole)))).to.deep.equal(expectedGrants(plurals(), leaseName()).secrets);
        expect(grantsOf(rulesOf(clusterRole)).filter((g) => g.startsWith('/secrets')), 'no secrets in the ClusterRole').to.deep.equal([]);
      });

      it('the Nova Role grants exactly the Nova adapters\' calls, in the install namespace; nothing of it is cluster-wide', () => {
        expect(novaRole, 'a Role named …nova').to.not.equal(undefined);
        expect(sorted(grantsOf(rulesOf(novaRole)))).to.deep.equal(expectedNovaGrants());
        const clusterWide = grantsOf(rulesOf(clusterRole));
        // the exports publisher's ConfigMap grants are cluster-wide (a WorkloadCluster lives in any namespace) and cover
        // the Nova Role's get and create there: the Nova Role keeps its own, so it reads on its own
        const workload = Object.values(WORKLOAD_CLIENT_CALLS).map((c) => triple(c.group, c.resource, c.verb));
        for (const grant of expectedNovaGrants().filter((g) => !workload.includes(g))) expect(clusterWide, grant).to.not.include(grant);
      });

      it('no role grants anything on clustersecretstores: Regent runs namespaced, so the ClusterSecretStore leg is not registered (the spec: not under --namespace)', () => {
        for (const r of [clusterRole, ...roles]) expect(grantsOf(rulesOf(r)).filter((g) => g.startsWith('external-secrets.io/clustersecretstores')), r.metadata.name).to.deep.equal([]);
      });

      it('no wildcard, no non-resource URL, no duplicate grant, and no other role', () => {
        for (const r of [clusterRole, ...roles]) {
          expect(wildcardsIn(rulesOf(r)), r.kind).to.deep.equal([]);
          const grants = grantsOf(rulesOf(r));
          expect(new Set(grants).size, `${r.kind}: a grant listed twice`).to.equal(grants.length);
        }
        expect(objects.filter((o) => o.object.kind === 'ClusterRole' || o.object.kind === 'Role')).to.have.length(4);
      });

      it("every role is bound to the Deployment's ServiceAccount; the Roles live in the Deployment's namespace (POD_NAMESPACE, where the Lease and the secrets are)", () => {
        const serviceAccount = { name: at(deployment, 'spec', 'template', 'spec', 'serviceAccountName') as string, namespace: deployment.metadata.namespace! };
        expect(only(objects, 'ServiceAccount').metadata).to.include(serviceAccount);
        const bound = rulesFor(objects, serviceAccount);
        expect(sorted(new Set(bound.map((b) => b.from)))).to.deep.equal(sorted([`ClusterRole ${clusterRole.metadata.name}`, ...roles.map((r) => `Role ${r.metadata.name}`)]));
        for (const r of roles) expect(r.metadata.namespace, r.metadata.name).to.equal(deployment.metadata.namespace);
        expect(bound.filter((b) => b.from.startsWith('Role ')).every((b) => b.namespace === deployment.metadata.namespace)).to.equal(true);
      });

      it('the ServiceAccount can touch secrets only in its own namespace; list and watch them only there, through the Nova Role (the Secret leg), never through the secrets Role', () => {
        const serviceAccount = { name: at(deployment, 'spec', 'template', 'spec', 'serviceAccountName') as string, namespace: deployment.metadata.namespace! };
        const bound = rulesFor(objects, serviceAccount);
        const home = deployment.metadata.namespace!;
        const secret = (verb: string, namespace?: string, name?: string, rules = bound) => allows(rules, { verb, group: '', resource: 'secrets', ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) });
        expect(['get', 'update', 'delete'].map((verb) => secret(verb, home, 'acme-web'))).to.deep.equal([true, true, true]);
        expect(secret('create', home)).to.equal(true);
        expect(['get', 'create', 'update', 'delete'].map((verb) => secret(verb, 'default', 'acme-web'))).to.deep.equal([false, false, false, false]);
        // EXCEPTION: the spec's Secret leg — a Nova wakes when a Secret it references changes; namespace-scoped to the install namespace
        expect([secret('list', home), secret('watch', home)]).to.deep.equal([true, true]);
        expect([secret('list'), secret('watch'), secret('list', 'default'), secret('watch', 'default'), secret('deletecollection', home)]).to.deep.equal([false, false, false, false, false]);
        const from = (name: string) => bound.filter((b) => b.from === `Role ${name}`);
        expect([secret('list', home, undefined, from(secretRole.metadata.name)), secret('watch', home, undefined, from(secretRole.metadata.name))], 'the secrets Role: never list or watch').to.deep.equal([false, false]);
        expect([secret('list', home, undefined, from(novaRole.metadata.name)), secret('watch', home, undefined, from(novaRole.metadata.name))], 'the Nova Role: the Secret leg').to.deep.equal([true, true]);
        expect(grantsOf(rulesOf(novaRole)).filter((g) => g.startsWith('/secrets:')), 'the Nova Role: list and watch of Secrets, nothing else').to.deep.equal(['/secrets:list', '/secrets:watch']);
      });
    });
  }

  describe('on the wire: the control plane against a fake API server, as the ServiceAccount of deploy/manifests', function () {
    this.timeout(120_000);
    const objects: Loaded[] = loadManifests();
    const deployment = only(objects, 'Deployment');
    const namespace = deployment.metadata.namespace!;
    const bound = rulesFor(objects, { name: at(deployment, 'spec', 'template', 'spec', 'serviceAccountName') as string, namespace });
    let requests: RecordedRequest[] = [];
    let unexpected: RecordedRequest[] = [];

    const until = async (what: string, probe: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> => {
      const deadline = Date.now() + timeoutMs;
      while (!(await probe())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    before(async function () {
      this.timeout(120_000);
      const fake = await FakeApiServer.start();
      // The Nova controller's watches (src/nova/watches.ts) list and watch its legs in the install namespace: the fake
      // streams `?watch=true` on its generic store's collections only once enabled (otherwise a 404 in `unexpected`)
      fake.objects.watch.enable();
      const sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
      const dir = mkdtempSync(join(tmpdir(), 'regent-deploy-rbac-'));
      const saved = { KUBECONFIG: process.env.KUBECONFIG, POD_NAMESPACE: process.env.POD_NAMESPACE };
      try {
        writeFileSync(join(dir, 'kubeconfig'), fake.kubeConfigYaml());
        // What the pod has: a kubeconfig (in-cluster there) and POD_NAMESPACE from the downward API.
        process.env.KUBECONFIG = join(dir, 'kubeconfig');
        process.env.POD_NAMESPACE = namespace;
        // One object of every kind (the examples), written straight into the fake's store: not requests.
        // The example Region names a real Keystone: here it names the simulator, with its admin
        // credentials in the Secret the Region refers to, in the pod's namespace.
        for (const file of readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.yaml')).sort()) {
          const text = readFileSync(join(ROOT, 'examples', file), 'utf8');
          await applyManifests(fake.store, file === 'region.yaml' ? text.replace('http://127.0.0.1:5000/v3', `${sim.url}/identity/v3`) : text);
        }
        fake.secrets.set(`${namespace}/region-one-credentials`, {
          apiVersion: 'v1', kind: 'Secret', type: 'Opaque',
          metadata: { name: 'region-one-credentials', namespace, resourceVersion: '1', uid: 'uid-region-secret', labels: {} },
          data: { 'clouds.yaml': Buffer.from(sim.cloudsYaml()).toString('base64'), cloud: Buffer.from('sim-admin').toString('base64') },
        });
        const plane = await startControlPlane({
          storeUrl: `sqlite:${join(dir, 'regent.db')}`,
          resourcesUrl: 'kubernetes',
          logger: silentLogger(),
          port: 0,
          monitorIntervalMs: 200,
          openstack: { cloud: cloudFromYaml(sim.cloudsYaml(), 'sim-demo'), simulator: sim, description: 'test simulator' },
          lease: { durationMs: 1_500, renewDeadlineMs: 1_000, retryPeriodMs: 200 },
        });
        try {
          await until('leadership', () => plane.isLeader());
          const everything = async () => (await Promise.all(KINDS.map((k) => fake.store.list(k.kind as never)))).flatMap((l) => l.items);
          await until('a status on every object', async () => (await everything()).every((o) => Array.isArray((o.status as { conditions?: unknown } | undefined)?.conditions)));
          await until('finalizers on the served kinds', async () => (await everything()).some((o) => o.kind === 'Server' && (o.metadata.finalizers ?? []).length > 0) && (await everything()).some((o) => o.kind === 'Network' && (o.metadata.finalizers ?? []).length > 0));
          // Delete a Server the cloud has created: the finalizer comes off after Nova deleted it.
          await until('web-2 created in Nova', async () => typeof ((await fake.store.get('Server', 'default', 'web-2'))?.status as { serverID?: string } | undefined)?.serverID === 'string');
          await fake.store.delete('Server', 'default', 'web-2');
          await until('web-2 gone', async () => (await fake.store.get('Server', 'default', 'web-2')) === undefined);
        } finally {
          await plane.stop(); // releases the Lease: an update
        }
        // The secret store, granted ahead of its consumer (GRANTED_AHEAD): what issue 11's Region and
        // Identity controllers will do, with the pod's credentials, in POD_NAMESPACE.
        const pod = openKubernetesSource({ kubeConfig: fake.kubeConfig() });
        try {
          await pod.secrets.put(namespace, 'acme-web-credential', { id: 'a', secret: 'one' }); // get, create
          await pod.secrets.put(namespace, 'acme-web-credential', { id: 'a', secret: 'two' }); // get, update
          await pod.secrets.get(namespace, 'acme-web-credential');
          await pod.secrets.delete(namespace, 'acme-web-credential');
        } finally {
          await pod.close();
        }
        // The Nova adapters, as the Nova controller calls them for a Nova in the install namespace (the example
        // Nova lives in default, which Regent does not serve on Kubernetes: it records NamespaceNotServed).
        const kubeConfig = fake.kubeConfig();
        const example = validateNova((await fake.store.get('Nova', 'default', 'nova'))!);
        if (!example.ok) throw new Error('the example Nova does not validate');
        const nova = { namespace, name: 'nova', uid: 'uid-nova' };
        const jobs = new KubernetesJobRunner({ kubeConfig });
        const job = renderNovaJob(nova, example.value.spec, 'sync');
        await jobs.create(job); // configmaps create, jobs create
        const observed = (await jobs.get(namespace, job.name))!; // jobs get
        fake.objects.addJobPod(namespace, job.name, { phase: 'Succeeded', message: 'cell1=5d3b0a52-3a6e-4c55-9d0e-2f1b6c7a8e91' });
        expect(await jobs.terminationMessage(observed)).to.contain('cell1='); // pods list
        await jobs.delete(namespace, job.name); // jobs delete
        const cron = renderArchiveCronJob(nova, example.value.spec);
        await jobs.ensureCronJob(cron); // cronjobs get, create
        await jobs.ensureCronJob({ ...cron, suspend: true, templateHash: 'changed' }); // cronjobs get, update
        await jobs.cronJobRuns(namespace, cron.name); // cronjobs get, jobs list
        fake.objects.put(fake.objects.path('deployments', namespace), { metadata: { name: 'nova-conductor', generation: 1 }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'nova-conductor', image: example.value.spec.image }] } } }, status: {} });
        const workloads = new KubernetesWorkloads({ kubeConfig });
        await workloads.rollout(namespace, 'nova', 'conductor', example.value.spec.image); // deployments get
        await workloads.stampInstalledRelease(namespace, 'nova', 'conductor', '2025.1'); // deployments get, patch
        const api = (templateHash: string, port: number, maxUnavailable: number) => ({ image: example.value.spec.image, config: { name: 'nova-config-0123456789', files: { 'nova.conf': '' } }, env: [], annotations: {}, replicas: 1, port, podDisruptionBudget: { maxUnavailable }, templateHash });
        await workloads.ensure(namespace, { name: 'nova', uid: 'uid-nova' }, 'api', api('a', 8774, 1)); // deployments, services, poddisruptionbudgets get, create
        await workloads.ensure(namespace, { name: 'nova', uid: 'uid-nova' }, 'api', api('b', 8775, 2)); // deployments, services, poddisruptionbudgets get, update
        await workloads.remove(namespace, 'nova', 'api'); // deployments, services, poddisruptionbudgets delete
        // The Config step's store (src/nova/config/kubernetes.ts): content-addressed ConfigMaps, the history rule
        const configs = new KubernetesConfigStore({ kubeConfig });
        const rendered = (n: number): RenderedConfig => {
          const files = { 'nova.conf': `[DEFAULT]\ndebug = v${n}\n` };
          const hash = configHash(files);
          return { name: configName('nova', hash), hash, files };
        };
        for (const n of [1, 2, 3]) await configs.publish(nova, rendered(n)); // configmaps list, create
        await configs.publish(nova, rendered(1)); // configmaps list, patch (an earlier config published again)
        fake.objects.put(fake.objects.path('deployments', namespace), { metadata: { name: 'nova-api', generation: 1 }, spec: { replicas: 1, template: { spec: { containers: [{ name: 'nova-api', image: example.value.spec.image }], volumes: [{ name: 'nova-config', configMap: { name: rendered(1).name } }] } } }, status: {} });
        expect(await configs.publish(nova, rendered(4))).to.deep.equal({ created: true, pruned: [rendered(2).name] }); // configmaps list, create; deployments get, configmaps delete
        expect((await configs.current(namespace, 'nova'))?.name).to.equal(rendered(1).name); // deployments get, configmaps get
        fake.objects.put(fake.objects.path('mariadbs', namespace), { metadata: { name: 'mariadb' }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Running', message: 'Running' }] } });
        const plan = planDatabases(example.value, { api: { username: 'nova_api' }, cell: { username: 'nova' } });
        if (!plan.ok) throw new Error(plan.problems.join('; '));
        const provisioner = new MariaDbOperatorProvisioner({ kubeConfig });
        const [apiPlan] = plan.blocks;
        await provisioner.provision(namespace, apiPlan, async () => undefined); // mariadbs get, databases get, create
        fake.objects.mutate(fake.objects.path('databases', namespace, 'nova-api'), (o) => void ((o.spec as Record<string, unknown>).characterSet = 'latin1'));
        await provisioner.provision(namespace, apiPlan, async () => undefined); // databases patch (the drift)
        fake.objects.setStatus(fake.objects.path('databases', namespace, 'nova-api'), { conditions: [{ type: 'Ready', status: 'True', reason: 'Created', message: 'Created', observedGeneration: 99 }] });
        await provisioner.provision(namespace, apiPlan, async () => undefined); // users get, create
        fake.objects.setStatus(fake.objects.path('users', namespace, 'nova-api'), { conditions: [{ type: 'Ready', status: 'True', reason: 'Created', message: 'Created', observedGeneration: 99 }] });
        fake.objects.mutate(fake.objects.path('users', namespace, 'nova-api'), (o) => void ((o.spec as Record<string, unknown>).maxUserConnections = 1));
        await provisioner.provision(namespace, apiPlan, async () => undefined); // users patch
        fake.objects.setStatus(fake.objects.path('users', namespace, 'nova-api'), { conditions: [{ type: 'Ready', status: 'True', reason: 'Created', message: 'Created', observedGeneration: 99 }] });
        await provisioner.provision(namespace, apiPlan, async () => undefined); // grants get, create
        fake.objects.mutate(fake.objects.path('grants', namespace, 'nova-api'), (o) => void ((o.spec as Record<string, unknown>).privileges = ['SELECT']));
        await provisioner.provision(namespace, apiPlan, async () => undefined); // grants patch
        // The Secrets step's gate on the SecretStore a Nova selects (src/nova/secret-store-kubernetes.ts)
        fake.objects.put(fake.objects.path('secretstores', namespace), { metadata: { name: 'openbao' }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'Valid', message: 'store validated' }] } });
        const storeGate = namespacedSecretStoreGate(kubernetesSecretStoreReader(kubeConfig));
        expect((await storeGate.check(namespace, { name: 'openbao', kind: 'SecretStore' })).kind).to.equal('ready'); // secretstores get
        // The finalizer's database half (src/nova/database/mariadb-operator.ts deprovision): every CR read, then the live ones deleted
        expect(await provisioner.deprovision(namespace, apiPlan, [], async () => undefined)).to.deep.include({ live: true }); // databases, users, grants get, delete
        // The parallel group (src/nova/group/kubernetes.ts): the probes are discovery GETs (no rule: system:discovery)
        const group = new KubernetesGroupObjects({ kubeConfig });
        expect([await group.gatewayAPI(), await group.vpaAPI()]).to.deep.equal([{ kind: 'installed' }, { kind: 'installed' }]); // GET /apis/<group>/<version>
        const route = { target: 'api', parentRef: { name: 'public' }, hostname: 'compute.example.org' } as const;
        await group.ensureRoute(namespace, { name: 'nova', uid: 'uid-nova' }, route); // httproutes get, create
        await group.ensureRoute(namespace, { name: 'nova', uid: 'uid-nova' }, { ...route, hostname: 'nova.example.org' }); // httproutes get, update
        expect(await group.removeRoute(namespace, 'nova', 'api')).to.equal('removed'); // httproutes delete
        const hpa = { minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 80 };
        await group.ensureHPA(namespace, { name: 'nova', uid: 'uid-nova' }, hpa); // horizontalpodautoscalers get, create
        await group.ensureHPA(namespace, { name: 'nova', uid: 'uid-nova' }, { ...hpa, maxReplicas: 10 }); // horizontalpodautoscalers get, update
        expect(await group.removeHPA(namespace, 'nova')).to.equal('removed'); // horizontalpodautoscalers delete
        await group.ensureVPA(namespace, { name: 'nova', uid: 'uid-nova' }, 'api'); // verticalpodautoscalers get, create
        fake.objects.mutate(fake.objects.path('verticalpodautoscalers', namespace, 'nova-api'), (o) => void ((o.spec as Record<string, unknown>).updatePolicy = { updateMode: 'Off' }));
        await group.ensureVPA(namespace, { name: 'nova', uid: 'uid-nova' }, 'api'); // verticalpodautoscalers get, update (the drift)
        expect(await group.removeVPA(namespace, 'nova', 'api')).to.equal('removed'); // verticalpodautoscalers delete
        const policy = { ingressNamespaces: [namespace], ingressPorts: [8774], egress: [{ port: 3306, protocol: 'TCP' as const, why: 'MariaDB' }] };
        await group.ensureNetworkPolicy(namespace, { name: 'nova', uid: 'uid-nova' }, policy); // networkpolicies get, create
        await group.ensureNetworkPolicy(namespace, { name: 'nova', uid: 'uid-nova' }, { ...policy, ingressPorts: [8774, 8775] }); // networkpolicies get, update
        expect(await group.removeNetworkPolicy(namespace, 'nova')).to.equal('removed'); // networkpolicies delete
        // The NovaCompute pool's adapters (src/nova/compute/kubernetes/, issue 28), as src/app/nova-runtime.ts builds them
        // on the install namespace: the cluster-scoped Nodes and Hypervisors through the ClusterRole, the rest the Nova Role
        const compute = kubernetesComputeCluster(kubeConfig, namespace);
        const poolOwner = { name: 'az1', uid: 'uid-pool' };
        const selector = { 'node-role.kubernetes.io/compute': 'true', 'topology.kubernetes.io/zone': 'az1' };
        fake.cluster.put('nodes', { metadata: { name: 'compute-1', labels: selector } });
        expect((await compute.nodes.list(selector)).map((n) => n.name)).to.deep.equal(['compute-1']); // nodes list (metadata only)
        expect((await compute.nodes.get('compute-1'))?.name).to.equal('compute-1'); // nodes get
        fake.cluster.put('hypervisors', { metadata: { name: 'compute-1' }, spec: { customTraits: [] }, status: { traits: ['CUSTOM_NUMA_2'] } });
        expect((await compute.hypervisors.get('compute-1')).kind).to.equal('found'); // hypervisors get
        await compute.hypervisors.setCustomTraits('compute-1', ['CUSTOM_NUMA_2']); // hypervisors patch (merge patch)
        fake.failNext('GET', '/apis/kvm.cloud.sap/v1/hypervisors/compute-2', 404, 'NotFound', 'the server could not find the requested resource');
        expect(await compute.hypervisors.get('compute-2')).to.deep.equal({ kind: 'missing' }); // hypervisors get; GET /apis/kvm.cloud.sap/v1 (discovery)
        const daemonSet: PoolDaemonSetSpec = {
          namespace,
          pool: 'az1',
          owner: poolOwner,
          nova: 'nova',
          image: 'ghcr.io/c5c3/nova-compute:2025.1',
          config: { name: 'az1-config-aaaa', files: { 'compute-pool.conf': '[DEFAULT]\n' } },
          contractSecret: 'nova-compute-config',
          serviceUserSecret: 'nova-service-user',
          annotations: {},
          affinity: { selector: { labels: selector, excluded: [] }, held: [] },
          nodes: ['compute-1'],
        };
        await compute.workloads.ensureDaemonSet(daemonSet); // daemonsets get, create
        await compute.workloads.ensureDaemonSet({ ...daemonSet, image: 'ghcr.io/c5c3/nova-compute:2025.2' }); // daemonsets get, update (the drift)
        fake.objects.put(fake.objects.path('pods', namespace, 'az1-nova-compute-x1'), { metadata: { name: 'az1-nova-compute-x1', labels: { [POOL_LABEL]: 'az1' } }, spec: { nodeName: 'compute-1', containers: [] }, status: { phase: 'Running' } });
        expect([...(await compute.workloads.podsOn(namespace, 'az1', ['compute-1']))]).to.deep.equal(['compute-1']); // pods list
        expect(await compute.workloads.publishConfig(namespace, poolOwner, daemonSet.config)).to.equal(true); // configmaps list, create
        await compute.vpa.ensurePoolVPA(namespace, poolOwner, 'az1'); // verticalpodautoscalers get, create
        // the sweep: daemonsets delete, configmaps list, delete; the VPA probe (discovery), verticalpodautoscalers delete
        expect(await compute.workloads.removeAll(namespace, 'az1')).to.deep.equal(['DaemonSet/az1-nova-compute', 'ConfigMap/az1-config-aaaa', 'VerticalPodAutoscaler/az1-nova-compute']);
        // The Nova finalizer through the control plane's source (ClusterRole: novas get, patch), as
        // src/controllers/nova/reconcile.ts adds it and finalizer.ts releases it. On a Nova in the install namespace:
        // the scenario's control plane never reaches one (the example's, in default, is NamespaceNotServed there).
        await fake.store.create({ ...example.value, metadata: { name: 'nova', namespace } } as never);
        const source = openKubernetesSource({ kubeConfig });
        // The NovaCompute drain finalizer likewise (ClusterRole: novacomputes get, patch), as
        // src/controllers/nova-compute/reconcile.ts adds it and releases it after the sweep.
        const pool = (await fake.store.get('NovaCompute', 'default', 'az1'))!;
        await fake.store.create({ apiVersion: pool.apiVersion, kind: pool.kind, metadata: { name: pool.metadata.name, namespace }, spec: pool.spec } as never);
        try {
          await source.addFinalizer('Nova', namespace, 'nova', NOVA_FINALIZER); // novas get, patch
          await source.removeFinalizer('Nova', namespace, 'nova', NOVA_FINALIZER); // novas get, patch
          await source.addFinalizer('NovaCompute', namespace, 'az1', COMPUTE_DRAIN_FINALIZER); // novacomputes get, patch
          await source.removeFinalizer('NovaCompute', namespace, 'az1', COMPUTE_DRAIN_FINALIZER); // novacomputes get, patch
        } finally {
          await source.close();
        }
        // The exports publisher (src/workload/exports-publisher.ts, issue 29), as the workload controllers publish a
        // WorkloadCluster's exports in its own namespace: configmaps get, create, update (a change), delete
        const publisher = kubernetesExportsPublisher(kubeConfig);
        const exports = {
          schema: 'captf.io/openstack-cluster/v1', region: 'RegionOne', network_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', subnet_id: '6f0c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
          failure_domains: { az1: {} }, distribution: 'kubeadm', provider_id_format: 'default', security_group_ids: { control_plane: [], worker: [] },
          control_plane_server_group_id: null, node_allowed_address_cidrs: [], api: null,
        } as ClusterExports;
        await publisher.publish('default', 'demo', exports); // configmaps get, create
        await publisher.publish('default', 'demo', { ...exports, region: 'RegionTwo' }); // configmaps get, update
        await publisher.remove('default', 'demo'); // configmaps delete
        requests = [...fake.requests];
        unexpected = [...fake.unexpected];
      } finally {
        process.env.KUBECONFIG = saved.KUBECONFIG;
        process.env.POD_NAMESPACE = saved.POD_NAMESPACE;
        if (saved.KUBECONFIG === undefined) delete process.env.KUBECONFIG;
        if (saved.POD_NAMESPACE === undefined) delete process.env.POD_NAMESPACE;
        await fake.close();
        await sim.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });

    /** Discovery GETs are non-resource requests: no rule of Regent's roles grants them, system:discovery allows them. */
    const resourceRequests = () => requests.filter((r) => !isDiscoveryRequest(r.method, r.path));

    it("the only non-resource requests are the capability probes' discovery GETs, which need no rule (system:discovery allows every authenticated user)", () => {
      expect(sorted(new Set(requests.filter((r) => isDiscoveryRequest(r.method, r.path)).map((r) => `${r.method} ${r.path}`)))).to.deep.equal(['GET /apis/autoscaling.k8s.io/v1', 'GET /apis/gateway.networking.k8s.io/v1', 'GET /apis/kvm.cloud.sap/v1']);
    });

    const describeAccess = (a: Access) => `${a.verb} ${a.group}/${a.resource}${a.namespace ? ` in ${a.namespace}` : ' (all namespaces)'}${a.name ? ` name=${a.name}` : ''}`;

    it('every request the control plane sends is allowed by the RBAC (no 403 in a cluster)', () => {
      expect(requests.length).to.be.greaterThan(0);
      const denied = [...new Set(resourceRequests().map((r) => accessOf(r.method, r.path, r.query)).filter((a) => !allows(bound, a)).map(describeAccess))];
      expect(denied).to.deep.equal([]);
      expect(unexpected.map((r) => `${r.method} ${r.path}`), 'requests the fake does not serve').to.deep.equal([]);
    });

    it('every grant is used: each (group, resource, verb[, name]) the roles allow was requested', () => {
      const accesses = resourceRequests().map((r) => accessOf(r.method, r.path, r.query));
      const unused = bound.flatMap(({ namespace: ns, rule }) =>
        grantsOf([rule]).filter((grant) => {
          const m = /^([^/]*)\/([^#:]+)(?:#([^:]+))?:(\w+)$/.exec(grant)!;
          const [, group, resource, name, verb] = m;
          return !accesses.some((a) => a.group === group && a.resource === resource && a.verb === verb && (name === undefined || a.name === name) && (ns === undefined || a.namespace === ns));
        }),
      );
      // A repeated event (same object, reason and message) is counted with a patch; the scenario records
      // each event once. The patch itself is covered by the kubernetes adapter's wire tests (test/kube).
      // The scenario sends no API request: the server API's Server writes are exercised by test/api (over the
      // embedded source) and the adapter's create/replace/delete by its conformance suite (test/kube).
      // What NOVA_COMPUTE_GRANTED_AHEAD grants no client call requests (novacomputes/finalizers update: an admission check).
      const exercisedElsewhere = ['/events:patch', 'regent.dev/servers:create', 'regent.dev/servers:update', 'regent.dev/servers:delete', ...Object.keys(NOVA_COMPUTE_GRANTED_AHEAD.cluster), ...Object.keys(NOVA_COMPUTE_GRANTED_AHEAD.namespaced), ...Object.keys(WORKLOAD_GRANTED_AHEAD.cluster)];
      expect(unused.filter((grant) => !exercisedElsewhere.includes(grant))).to.deep.equal([]);
    });
  });
});
