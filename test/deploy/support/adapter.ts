/**
 * Which Kubernetes API calls the control plane makes, from the source:
 *
 * 1. CLIENT_CALLS: every @kubernetes/client-node call the kubernetes adapter (src/kube/kubernetes/)
 *    makes, and the RBAC access it needs. Cross-checked: the adapter's source names exactly these.
 * 2. PORT_CALLS: which client calls each adapter method makes. Cross-checked against the adapter's
 *    method bodies (direct calls and calls through its private helpers).
 * 3. CONTROL_PLANE_CALLS: which adapter methods `regent start` reaches, on which kinds, and why.
 *    Cross-checked by grepping every module the control plane imports for `source.<method>(` (and
 *    `secrets.<method>(` for the secret store).
 * 4. GRANTED_AHEAD: secret store methods granted before any controller calls them (issue 11), each
 *    with the reason; cross-checked to be not yet reached, so a consumer moves its entry to 3.
 * 5. The Nova adapters (src/nova/, NOVA_ADAPTERS): their client calls on namespaced resources (NOVA_CLIENT_CALLS, the
 *    Nova Role), on cluster-scoped ones (NOVA_CLUSTER_CLIENT_CALLS, the ClusterRole), discovery and unreached calls,
 *    and their watches; cross-checked against each adapter's source and the legs src/nova/watches.ts registers (the
 *    Nova's, and the NovaCompute pools' of src/nova/compute/watch-legs.ts, run on the same machinery).
 *
 * A new call anywhere in that chain fails a test until this table, the RBAC and its comments agree.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './files.js';
import { triple } from './rbac.js';
import { servedKinds as tableServedKinds } from '../../../src/app/kinds.js';
import { legPath, novaWatchLegs } from '../../../src/nova/watches.js';
import { poolWatchLegs } from '../../../src/nova/compute/watch-legs.js';

export type Api = 'custom' | 'custom/status' | 'events' | 'leases' | 'secrets';

export interface ClientCall {
  readonly api: Api;
  readonly verb: string;
  /** The request names one object (get, update, patch, delete): RBAC resourceNames can restrict it. */
  readonly named: boolean;
}

export const CLIENT_CALLS: Readonly<Record<string, ClientCall>> = {
  // source.ts (CustomObjectsApi on regent.dev/v1alpha1)
  listCustomObjectForAllNamespaces: { api: 'custom', verb: 'list', named: false },
  listNamespacedCustomObject: { api: 'custom', verb: 'list', named: false },
  getNamespacedCustomObject: { api: 'custom', verb: 'get', named: true },
  createNamespacedCustomObjectWithHttpInfo: { api: 'custom', verb: 'create', named: false },
  replaceNamespacedCustomObjectWithHttpInfo: { api: 'custom', verb: 'update', named: true },
  patchNamespacedCustomObject: { api: 'custom', verb: 'patch', named: true },
  patchNamespacedCustomObjectStatus: { api: 'custom/status', verb: 'patch', named: true },
  deleteNamespacedCustomObject: { api: 'custom', verb: 'delete', named: true },
  // watch.ts (the client's Watch on /apis/regent.dev/v1alpha1[/namespaces/<ns>]/<plural>)
  Watch: { api: 'custom', verb: 'watch', named: false },
  // events.ts (CoreV1Api, core/v1 Events)
  createNamespacedEvent: { api: 'events', verb: 'create', named: false },
  patchNamespacedEvent: { api: 'events', verb: 'patch', named: true },
  listNamespacedEvent: { api: 'events', verb: 'list', named: false },
  listEventForAllNamespaces: { api: 'events', verb: 'list', named: false },
  // lease.ts (CoordinationV1Api)
  readNamespacedLease: { api: 'leases', verb: 'get', named: true },
  createNamespacedLease: { api: 'leases', verb: 'create', named: false },
  replaceNamespacedLease: { api: 'leases', verb: 'update', named: true },
  // secrets.ts (CoreV1Api, core/v1 Secrets: the secret store)
  readNamespacedSecret: { api: 'secrets', verb: 'get', named: true },
  createNamespacedSecret: { api: 'secrets', verb: 'create', named: false },
  replaceNamespacedSecret: { api: 'secrets', verb: 'update', named: true },
  deleteNamespacedSecret: { api: 'secrets', verb: 'delete', named: true },
  listNamespacedSecret: { api: 'secrets', verb: 'list', named: false },
  listSecretForAllNamespaces: { api: 'secrets', verb: 'list', named: false },
};

/** Adapter method → the client calls it makes (KubernetesResourceSource, `lease.*` = KubernetesLeaseBackend, `secrets.*` = KubernetesSecretStore). */
export const PORT_CALLS: Readonly<Record<string, readonly string[]>> = {
  list: ['listCustomObjectForAllNamespaces', 'listNamespacedCustomObject'],
  get: ['getNamespacedCustomObject'],
  watch: ['Watch'],
  create: ['createNamespacedCustomObjectWithHttpInfo'],
  apply: ['getNamespacedCustomObject', 'createNamespacedCustomObjectWithHttpInfo', 'replaceNamespacedCustomObjectWithHttpInfo'],
  update: ['getNamespacedCustomObject', 'replaceNamespacedCustomObjectWithHttpInfo'],
  patchStatus: ['patchNamespacedCustomObjectStatus'],
  addFinalizer: ['getNamespacedCustomObject', 'patchNamespacedCustomObject'],
  removeFinalizer: ['getNamespacedCustomObject', 'patchNamespacedCustomObject'],
  delete: ['deleteNamespacedCustomObject'],
  recordEvent: ['patchNamespacedEvent', 'createNamespacedEvent'],
  listEvents: ['listNamespacedEvent', 'listEventForAllNamespaces'],
  close: [],
  'lease.get': ['readNamespacedLease'],
  'lease.create': ['createNamespacedLease'],
  'lease.update': ['replaceNamespacedLease'],
  'secrets.get': ['readNamespacedSecret'],
  'secrets.put': ['readNamespacedSecret', 'createNamespacedSecret', 'replaceNamespacedSecret'],
  'secrets.delete': ['deleteNamespacedSecret'],
  'secrets.list': ['listNamespacedSecret', 'listSecretForAllNamespaces'],
};

/**
 * What `regent start --resources kubernetes --no-examples` calls, on which kinds ('all': every kind
 * in src/resources KINDS; 'served': the kind table's kinds with a controller, src/app/kinds.ts), and the code path. `--examples`
 * would add apply (get, create, update) for the example manifests: the Deployment passes --no-examples.
 */
export const CONTROL_PLANE_CALLS: Readonly<Record<string, { kinds: 'all' | 'served' | 'servers' | 'lease' | 'events' | 'secrets'; path: string }>> = {
  // the server REST API (src/api/servers.ts, issue 17): requests become Server resources
  create: { kinds: 'servers', path: 'src/api/servers.ts create (v2 and v1): a request becomes a Server resource' },
  update: { kinds: 'servers', path: 'src/api/servers.ts update (v2 and v1), with the read\'s resourceVersion' },
  delete: { kinds: 'servers', path: 'src/api/servers.ts delete (v2 and v1)' },
  list: { kinds: 'all', path: 'src/kube/informer.ts relist (one informer per kind, every namespace)' },
  watch: { kinds: 'all', path: 'src/kube/informer.ts watch (one informer per kind, every namespace)' },
  get: { kinds: 'all', path: 'src/status/runner.ts render*, src/controllers/{server,network,region,identity}/reconcile.ts, src/provider/regions/connections.ts' },
  patchStatus: { kinds: 'all', path: 'src/status/runner.ts patchIfChanged (served kinds and NoController status)' },
  addFinalizer: { kinds: 'served', path: 'src/controllers/lifecycle-pass.ts (Server and Network controllers), src/controllers/identity/reconcile.ts, src/controllers/nova/reconcile.ts (before anything is created), src/controllers/nova-compute/reconcile.ts (the compute-drain finalizer)' },
  removeFinalizer: { kinds: 'served', path: 'src/controllers/lifecycle-pass.ts (Server and Network controllers), src/controllers/identity/reconcile.ts, src/controllers/nova/finalizer.ts (once the cleanup found nothing live), src/controllers/nova-compute/reconcile.ts release (after the sweep)' },
  recordEvent: { kinds: 'events', path: 'src/controllers/kube-events.ts recordDecisionEvents (Server and Network passes), in the resource\'s namespace' },
  'lease.get': { kinds: 'lease', path: 'src/kube/leader/elector.ts acquire/renew/release' },
  'lease.create': { kinds: 'lease', path: 'src/kube/leader/elector.ts first acquire' },
  'lease.update': { kinds: 'lease', path: 'src/kube/leader/elector.ts acquire/renew/release' },
  'secrets.get': { kinds: 'secrets', path: "src/provider/regions/connections.ts (a Region's credentials Secret), src/provider/identity/{observe,handlers}.ts (an Identity's credential), read by name" },
  'secrets.put': { kinds: 'secrets', path: "src/provider/identity/handlers.ts: an Identity's password and application credential (get, then create or update with the read's resourceVersion)" },
  'secrets.delete': { kinds: 'secrets', path: "src/provider/identity/handlers.ts: an Identity's Secret deleted with its project" },
};

/**
 * Secret store methods the ServiceAccount is granted before any module of the control plane calls
 * them: issue 11's Region and Identity controllers are their consumers, and the RBAC ships with the
 * store so that a controller moving onto it does not also need an RBAC change to be reviewed at once.
 * Granted in the install namespace only (a Role), because Regent's secrets live there. Never
 * `secrets.list`: Regent knows its secrets by name, and RBAC cannot grant list without every value of
 * every Secret in the namespace (a list returns the data); `regent get secrets` runs with the
 * operator's credentials. (The secrets Role keeps that rule. The one exception is the Nova Role's list and
 * watch of Secrets in the install namespace, for the Nova controller's Secret leg: NOVA_WATCHES.)
 * When a controller calls one of these, move it to CONTROL_PLANE_CALLS.
 */
export const GRANTED_AHEAD: Readonly<Record<string, { kinds: 'secrets'; path: string }>> = {};

export const GROUP = 'regent.dev';
export const LEASE_GROUP = 'coordination.k8s.io';

/**
 * NovaCompute grants (issue 28) that no client call of the code derives, each with why it is granted all the same:
 * `cluster` in the ClusterRole, `namespaced` in the Nova Role. Its controller (src/controllers/nova-compute/, a served
 * kind of src/app/kinds.ts) and its cluster adapters (src/nova/compute/kubernetes/) are wired, so what they call is
 * derived: the finalizers' patch from the finalized kinds (novacomputes, like every served kind), the namespaced calls
 * (DaemonSets, the pool's pods and ConfigMaps, the VerticalPodAutoscaler) from NOVA_CLIENT_CALLS, the cluster-scoped
 * ones (Nodes, Hypervisors) from NOVA_CLUSTER_CLIENT_CALLS. rbac.test.ts checks the roles grant what is left here,
 * excuses it from the wire scenario's "every grant is used", and fails once the derivation yields one of these on its
 * own: move it out of here then. What the code does not need is not granted ahead either: a new call or watch leg
 * fails the scans above until its grant is derived (the spec's Owns(DaemonSet) leg brought its daemonsets list and
 * watch with it, NOVA_WATCHES; the spec has no local Node leg, so no nodes watch).
 */
export const NOVA_COMPUTE_GRANTED_AHEAD: { readonly cluster: Readonly<Record<string, string>>; readonly namespaced: Readonly<Record<string, string>> } = {
  cluster: {
    // not a client call, so no scan sees it: the OwnerReferencesPermissionEnforcement admission plugin (where a cluster
    // enables it) requires it of a write that sets blockOwnerDeletion on an owner reference to a NovaCompute, which the
    // pool's DaemonSet, ConfigMaps and VPA carry (src/nova/compute/kubernetes/common.ts poolOwnerReference)
    [triple(GROUP, 'novacomputes/finalizers', 'update')]: 'blockOwnerDeletion on the owner references of the DaemonSet, ConfigMaps and VPA to a NovaCompute (OwnerReferencesPermissionEnforcement)',
  },
  namespaced: {},
};

/**
 * The workload kinds' grants (issue 29) that no client call of the code derives, each with why it is granted all the
 * same. Their finalizers' patch is derived (workloadclusters and workloadmachines are finalized kinds once their
 * controllers are in the kind table, src/app/kinds.ts), their informers' list and watch, get and status patch too
 * (KINDS). rbac.test.ts fails once the derivation yields one of these on its own (move it out of here then), and
 * excuses them from the wire scenario's "every grant is used".
 */
export const WORKLOAD_GRANTED_AHEAD: { readonly cluster: Readonly<Record<string, string>> } = {
  cluster: {
    // not a client call: the OwnerReferencesPermissionEnforcement admission plugin (where enabled) requires it of a write
    // that sets blockOwnerDeletion on an owner reference to the kind — the exports ConfigMap's to its WorkloadCluster
    // (src/workload/exports-publisher.ts ownerReference), and what the controllers own of a WorkloadMachine
    [triple(GROUP, 'workloadclusters/finalizers', 'update')]: 'blockOwnerDeletion on the exports ConfigMap\'s owner reference to its WorkloadCluster (OwnerReferencesPermissionEnforcement)',
    [triple(GROUP, 'workloadmachines/finalizers', 'update')]: 'blockOwnerDeletion on owner references to a WorkloadMachine (OwnerReferencesPermissionEnforcement)',
  },
};

/**
 * The exports publisher's client calls (src/workload/exports-publisher.ts KubernetesExportsPublisher, issue 29): the
 * `<cluster>-openstack-exports` ConfigMap in the WorkloadCluster's own namespace — any namespace, so the ClusterRole.
 * Read, created on 404, replaced (PUT with the read's resourceVersion) on a change, deleted with the cluster; never
 * listed, watched or patched. rbac.test.ts checks the publisher's source names exactly these.
 */
export const WORKLOAD_ADAPTERS = ['src/workload/exports-publisher.ts'];
export const WORKLOAD_CLIENT_CALLS: Readonly<Record<string, { group: string; resource: string; verb: string }>> = {
  'core.readNamespacedConfigMap': { group: '', resource: 'configmaps', verb: 'get' },
  'core.createNamespacedConfigMap': { group: '', resource: 'configmaps', verb: 'create' },
  'core.replaceNamespacedConfigMap': { group: '', resource: 'configmaps', verb: 'update' },
  'core.deleteNamespacedConfigMap': { group: '', resource: 'configmaps', verb: 'delete' },
};
export const workloadClientCallsInAdapters = (): string[] =>
  [...new Set(WORKLOAD_ADAPTERS.flatMap((file) => [...src(file).matchAll(/\bthis\.(core)\.(\w+)\(/g)].map((m) => `${m[1]!}.${m[2]!}`)))].sort();

const src = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

// ---------------------------------------------------------------------------------------------
// The adapter's source

interface Method {
  readonly name: string;
  readonly isPrivate: boolean;
  readonly body: string;
}

/** Class members declared at two-space indentation, each with its text up to the next member. */
export const methodsOf = (text: string): Method[] => {
  const header = /^ {2}(private |public |protected )?(?:async )?([A-Za-z_]\w*)\s*(?:<[^\n(]*>)?\(/gm;
  const found = [...text.matchAll(header)];
  return found
    .map((m, i) => ({ name: m[2]!, isPrivate: m[1] === 'private ', body: text.slice(m.index, found[i + 1]?.index ?? text.length) }))
    .filter((m) => !['constructor', 'if', 'for', 'while', 'switch', 'catch'].includes(m.name));
};

/** Client calls in a text: `this.<custom|core|api>.<method>(`, and the Watch behind watchPath. */
const directCalls = (body: string): string[] => [
  ...[...body.matchAll(/this\.(?:custom|core|api)\.(\w+)\(/g)].map((m) => m[1]!),
  ...(/\bwatchPath\(/.test(body) ? ['Watch'] : []),
];

/** Every client-node call named anywhere in src/kube/kubernetes/ (every file: a new one cannot hide a call). */
export const clientCallsInAdapter = (): string[] => {
  const files = readdirSync(join(ROOT, 'src/kube/kubernetes'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => src(`src/kube/kubernetes/${f}`));
  const calls = new Set(files.flatMap((text) => [...text.matchAll(/this\.(?:custom|core|api)\.(\w+)\(/g)].map((m) => m[1]!)));
  if (/new Watch\(/.test(src('src/kube/kubernetes/watch.ts'))) calls.add('Watch');
  return [...calls].sort();
};

/** Adapter method → client calls, read from the method bodies (through private helpers and the event recorder). */
export const portCallsInAdapter = (): Record<string, string[]> => {
  const source = methodsOf(src('src/kube/kubernetes/source.ts'));
  const recorder = methodsOf(src('src/kube/kubernetes/events.ts'));
  const lease = methodsOf(src('src/kube/kubernetes/lease.ts'));
  const secrets = methodsOf(src('src/kube/kubernetes/secrets.ts'));
  const closure = (methods: Method[], name: string, seen = new Set<string>()): Set<string> => {
    const method = methods.find((m) => m.name === name);
    const calls = new Set<string>();
    if (!method || seen.has(name)) return calls;
    seen.add(name);
    for (const call of directCalls(method.body)) calls.add(call);
    for (const m of method.body.matchAll(/this\.(\w+)\(/g)) for (const call of closure(methods, m[1]!, seen)) calls.add(call);
    for (const m of method.body.matchAll(/this\.events\.(\w+)\(/g)) for (const call of closure(recorder, m[1]!)) calls.add(call);
    return calls;
  };
  const result: Record<string, string[]> = {};
  for (const m of source.filter((x) => !x.isPrivate)) result[m.name] = [...closure(source, m.name)].sort();
  for (const m of lease.filter((x) => !x.isPrivate)) result[`lease.${m.name}`] = [...closure(lease, m.name)].sort();
  for (const m of secrets.filter((x) => !x.isPrivate)) result[`secrets.${m.name}`] = [...closure(secrets, m.name)].sort();
  return result;
};

// ---------------------------------------------------------------------------------------------
// What the control plane reaches

const ADAPTERS = ['src/kube/kubernetes/', 'src/kube/embedded/'];
/**
 * Imported by the control plane only for its examples (applyFirstStartExamples: applyManifests, and the
 * built-in simulator's region registration); the Deployment passes --no-examples.
 */
export const EXAMPLES_ONLY = 'src/app/first-start-examples.ts';

const resolveImport = (from: string, spec: string): string | undefined => {
  const base = resolve(dirname(join(ROOT, from)), spec);
  for (const candidate of [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')]) if (existsSync(candidate)) return relative(ROOT, candidate);
  return undefined;
};

/** Every module reachable from `entry` through relative imports (static and dynamic), adapters not followed. */
export const importClosure = (entry: string, stopAt: readonly string[] = ADAPTERS): string[] => {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    if (stopAt.some((prefix) => file.startsWith(prefix))) return;
    const text = src(file);
    for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g)) {
      const target = resolveImport(file, m[1]!);
      if (target) visit(target);
    }
  };
  visit(entry);
  return [...seen].sort();
};

/**
 * Adapter methods called as `source.<method>(` in the control plane's modules (adapters and the
 * examples path excluded), and secret store methods called as `secrets.<method>(` (`source.secrets.get(`,
 * or a store passed on as `secrets`).
 */
export const portCallsOfControlPlane = (): Map<string, string[]> => {
  const methods = new Set(Object.keys(PORT_CALLS).filter((k) => !k.startsWith('lease.') && !k.startsWith('secrets.')));
  const calls = new Map<string, string[]>();
  // Not followed into the examples path: what only first-start-examples.ts imports (manifests.ts,
  // cli/secrets.ts for a Secret document of an example, the region registration) runs only with examples.
  for (const file of importClosure('src/app/control-plane.ts', [...ADAPTERS, EXAMPLES_ONLY])) {
    if (ADAPTERS.some((prefix) => file.startsWith(prefix)) || file === EXAMPLES_ONLY) continue;
    const code = src(file).replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
    for (const m of code.matchAll(/\bsource\??\.(\w+)\(/g)) {
      if (!methods.has(m[1]!) || m[1] === 'close') continue;
      calls.set(m[1]!, [...new Set([...(calls.get(m[1]!) ?? []), file])]);
    }
    for (const m of code.matchAll(/\bsecrets\??\.(get|put|delete|list)\(/g)) {
      const method = `secrets.${m[1]!}`;
      calls.set(method, [...new Set([...(calls.get(method) ?? []), file])]);
    }
  }
  // The Kubernetes lease: the control plane builds a KubernetesLeaseBackend, and the elector calls it.
  if (/KubernetesLeaseBackend\(/.test(src('src/app/control-plane.ts'))) {
    for (const m of src('src/kube/leader/elector.ts').matchAll(/\blease\.(get|create|update)\(/g)) calls.set(`lease.${m[1]!}`, ['src/kube/leader/elector.ts']);
  }
  return calls;
};

/** The kinds with a controller (and so finalizers): the kind table's wirings that build one (src/app/kinds.ts). */
export const servedKinds = (): string[] => tableServedKinds();

/**
 * Served kinds whose controller holds no finalizer, so the control plane never patches their metadata. None since
 * issue 27: the Nova controller holds `nova.openstack.c5c3.io/finalizer` (src/controllers/nova/reconcile.ts adds it,
 * src/controllers/nova/finalizer.ts removes it once its MariaDB cleanup found nothing live), so `novas` gains patch
 * in the ClusterRole like every other finalized kind. Cross-checked by rbac.test.ts (a kind listed here never calls
 * addFinalizer; the Nova controller does).
 */
export const HOLDS_NO_FINALIZER: readonly string[] = [];

/** The served kinds that carry a finalizer (what addFinalizer/removeFinalizer patch). */
export const finalizedKinds = (): string[] => servedKinds().filter((k) => !HOLDS_NO_FINALIZER.includes(k));

/**
 * The kinds whose wiring module gives the control plane a reconcile pass (`reconcile:` in
 * src/controllers/<kind>/wiring.ts, read from the source, next to its `kind: '<Kind>'`): what actually runs a controller.
 */
export const controllerKinds = (): string[] =>
  readdirSync(join(ROOT, 'src/controllers'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'src/controllers', d.name, 'wiring.ts')))
    .map((d) => src(`src/controllers/${d.name}/wiring.ts`))
    .filter((code) => /\breconcile[:,]/.test(code))
    // the wiring's own `kind:` (the top-level field, before its streams), not a stream ownership's
    .map((code) => /^ {2}kind: '(\w+)',$/m.exec(code)?.[1])
    .filter((k): k is string => k !== undefined);

/** The Lease name the control plane elects on. */
export const leaseName = (): string => {
  const m = /KubernetesLeaseBackend\([^)]*'([^']+)'\)/.exec(src('src/app/control-plane.ts'));
  if (!m) throw new Error('no KubernetesLeaseBackend(…, \'<name>\') in src/app/control-plane.ts');
  return m[1]!;
};

/**
 * The grants the control plane needs, split by where they must be granted: cluster-wide (ClusterRole),
 * the Lease and the secrets (two Roles in the install namespace). `ahead: false` leaves out NOVA_COMPUTE_GRANTED_AHEAD
 * (what the code alone derives).
 */
export const expectedGrants = (
  plurals: { all: readonly string[]; served: readonly string[] },
  lease: string,
  options: { ahead?: boolean } = {},
): { cluster: string[]; leases: string[]; secrets: string[] } => {
  const cluster = new Set<string>();
  const leases = new Set<string>();
  const secrets = new Set<string>();
  for (const [method, use] of [...Object.entries(CONTROL_PLANE_CALLS), ...Object.entries(GRANTED_AHEAD)]) {
    for (const call of PORT_CALLS[method] ?? []) {
      const c = CLIENT_CALLS[call];
      if (!c) throw new Error(`${call}: not in CLIENT_CALLS`);
      if (c.api === 'leases') leases.add(triple(LEASE_GROUP, 'leases', c.verb, c.named ? lease : undefined));
      // Not restricted by name: an Identity's credential is named after the Identity.
      else if (c.api === 'secrets') secrets.add(triple('', 'secrets', c.verb));
      else if (c.api === 'events') cluster.add(triple('', 'events', c.verb));
      else for (const plural of use.kinds === 'servers' ? ['servers'] : use.kinds === 'served' ? plurals.served : plurals.all) cluster.add(triple(GROUP, c.api === 'custom/status' ? `${plural}/status` : plural, c.verb));
    }
  }
  // the Nova adapters' cluster-scoped calls (Nodes, Hypervisors): a Role cannot grant them
  for (const grant of novaGrantsOf(NOVA_CLUSTER_CLIENT_CALLS)) cluster.add(grant);
  // the exports publisher's ConfigMaps, in every WorkloadCluster's namespace
  for (const call of Object.values(WORKLOAD_CLIENT_CALLS)) cluster.add(triple(call.group, call.resource, call.verb));
  if (options.ahead !== false) for (const grant of [...Object.keys(NOVA_COMPUTE_GRANTED_AHEAD.cluster), ...Object.keys(WORKLOAD_GRANTED_AHEAD.cluster)]) cluster.add(grant);
  return { cluster: [...cluster].sort(), leases: [...leases].sort(), secrets: [...secrets].sort() };
};

// ---------------------------------------------------------------------------------------------
// The Nova adapters (issues 14 and 27): their own client calls, granted by the Nova Role in the install namespace.

/**
 * Every module that makes client-node calls on this cluster for the Nova controller. Not here, because what it calls
 * is not a grant of this cluster: src/nova/target-clusters.ts calls VersionApi.getCode (GET /version) on a *remote*
 * target cluster with that cluster's own kubeconfig (the `kubeconfig` key of the Secret target-cluster-<name>, read
 * through the secret store, i.e. the secrets Role). Its RBAC is whatever that kubeconfig's identity holds there; and
 * /version is a non-resource URL system:public-info-viewer allows anyway. NOVA_CLIENT_MODULES_ELSEWHERE says so for
 * the test that every src/nova module building an API client is accounted for.
 */
export const NOVA_ADAPTERS = [
  'src/nova/jobs/kubernetes.ts',
  'src/nova/database/mariadb-operator.ts',
  'src/nova/workloads/kubernetes.ts',
  'src/nova/secret-store-kubernetes.ts',
  'src/nova/config/kubernetes.ts',
  'src/nova/group/kubernetes.ts',
  // the NovaCompute pool's (issue 28, src/nova/compute/kubernetes.ts builds them on the install namespace): the Nodes
  // and Hypervisors are cluster-scoped (NOVA_CLUSTER_CLIENT_CALLS), the DaemonSet, pods, ConfigMaps and VPA namespaced
  'src/nova/compute/kubernetes/nodes.ts',
  'src/nova/compute/kubernetes/hypervisors.ts',
  'src/nova/compute/kubernetes/workloads.ts',
  'src/nova/compute/kubernetes/vpa.ts',
  // the watches' LISTs (LegLists); their WATCHes go through the client's Watch, which this scan cannot see: NOVA_WATCHES
  'src/nova/watches.ts',
];

/** Modules under src/nova that build a client-node API client but are not Nova adapters of this cluster, and why. */
export const NOVA_CLIENT_MODULES_ELSEWHERE: Readonly<Record<string, string>> = {
  'src/nova/target-clusters.ts': "VersionApi on a remote target cluster, with that cluster's own kubeconfig: not a grant of this cluster",
  'src/nova/remote-children.ts': "the remote-children sweep (list and delete by the regent.dev/nova-uid label) on a target cluster, with its own kubeconfig: not a grant of this cluster",
};

/**
 * The fields the Nova adapters hold their API clients in (`this.<field> = ….makeApiClient(<Class>)`), and the class.
 * A call is `this.<field>.<method>(`, or `<local>.<method>(` where the adapter aliased the field (`const custom =
 * this.custom;`, as the group adapter's per-kind closures do). A client held in a field not listed here fails the
 * scan (novaClientCallsInAdapters) rather than hiding its calls.
 */
export const NOVA_API_CLIENTS: Readonly<Record<string, string>> = {
  batch: 'BatchV1Api',
  core: 'CoreV1Api',
  apps: 'AppsV1Api',
  policy: 'PolicyV1Api',
  custom: 'CustomObjectsApi',
  autoscaling: 'AutoscalingV2Api',
  networking: 'NetworkingV1Api',
};

export interface NovaGrant {
  readonly group: string;
  readonly resources: readonly string[];
  readonly verb: string;
}

const GATEWAY = 'gateway.networking.k8s.io';
const VPA = 'autoscaling.k8s.io';
const MARIADB = 'k8s.mariadb.com';
const HYPERVISOR = 'kvm.cloud.sap';

/**
 * Every `this.<api>.<method>(` the Nova adapters make, and the (group, resources, verb) it needs; a call several
 * adapters make on different groups (CustomObjectsApi) lists one grant per group.
 */
export const NOVA_CLIENT_CALLS: Readonly<Record<string, NovaGrant | readonly NovaGrant[]>> = {
  'batch.readNamespacedJob': { group: 'batch', resources: ['jobs'], verb: 'get' },
  'batch.createNamespacedJob': { group: 'batch', resources: ['jobs'], verb: 'create' },
  'batch.deleteNamespacedJob': { group: 'batch', resources: ['jobs'], verb: 'delete' },
  'batch.listNamespacedJob': { group: 'batch', resources: ['jobs'], verb: 'list' },
  'batch.readNamespacedCronJob': { group: 'batch', resources: ['cronjobs'], verb: 'get' },
  'batch.createNamespacedCronJob': { group: 'batch', resources: ['cronjobs'], verb: 'create' },
  'batch.replaceNamespacedCronJob': { group: 'batch', resources: ['cronjobs'], verb: 'update' },
  // also the NovaCompute pool's pods on its nodes (src/nova/compute/kubernetes/workloads.ts podsOn: one LIST by the
  // pool label, narrowed by spec.nodeName for one node; never a get or a watch)
  'core.listNamespacedPod': { group: '', resources: ['pods'], verb: 'list' },
  // the NovaCompute pool's {pool}-nova-compute DaemonSet (src/nova/compute/kubernetes/workloads.ts): one GET, created
  // on 404, replaced on drift (PUT with the read's resourceVersion), deleted (Background) with no affinity term left
  // and by the sweep; never patched. Listed and watched only by the pools' DaemonSet leg (custom.listNamespacedCustomObject)
  'apps.readNamespacedDaemonSet': { group: 'apps', resources: ['daemonsets'], verb: 'get' },
  'apps.createNamespacedDaemonSet': { group: 'apps', resources: ['daemonsets'], verb: 'create' },
  'apps.replaceNamespacedDaemonSet': { group: 'apps', resources: ['daemonsets'], verb: 'update' },
  'apps.deleteNamespacedDaemonSet': { group: 'apps', resources: ['daemonsets'], verb: 'delete' },
  // the Jobs' and the roles' config (jobs/, workloads/), and the Config step's store (config/kubernetes.ts): publish
  // lists a Nova's configs, creates one, patches the label and publish time (adoption, republish), deletes beyond
  // the history; current reads the one the API Deployment mounts. The NovaCompute pool's configs likewise
  // (src/nova/compute/kubernetes/workloads.ts publishConfig, removeAll): list by the pool label, create, patch, delete
  'core.createNamespacedConfigMap': { group: '', resources: ['configmaps'], verb: 'create' },
  'core.readNamespacedConfigMap': { group: '', resources: ['configmaps'], verb: 'get' },
  // also the ConfigMap leg of the watches (src/nova/watches.ts): the LIST its WATCH starts from
  'core.listNamespacedConfigMap': { group: '', resources: ['configmaps'], verb: 'list' },
  'core.patchNamespacedConfigMap': { group: '', resources: ['configmaps'], verb: 'patch' },
  'core.deleteNamespacedConfigMap': { group: '', resources: ['configmaps'], verb: 'delete' },
  'apps.readNamespacedDeployment': { group: 'apps', resources: ['deployments'], verb: 'get' },
  'apps.patchNamespacedDeployment': { group: 'apps', resources: ['deployments'], verb: 'patch' },
  'apps.createNamespacedDeployment': { group: 'apps', resources: ['deployments'], verb: 'create' },
  'apps.replaceNamespacedDeployment': { group: 'apps', resources: ['deployments'], verb: 'update' },
  'apps.deleteNamespacedDeployment': { group: 'apps', resources: ['deployments'], verb: 'delete' },
  'core.readNamespacedService': { group: '', resources: ['services'], verb: 'get' },
  'core.createNamespacedService': { group: '', resources: ['services'], verb: 'create' },
  'core.replaceNamespacedService': { group: '', resources: ['services'], verb: 'update' },
  'core.deleteNamespacedService': { group: '', resources: ['services'], verb: 'delete' },
  'policy.readNamespacedPodDisruptionBudget': { group: 'policy', resources: ['poddisruptionbudgets'], verb: 'get' },
  'policy.createNamespacedPodDisruptionBudget': { group: 'policy', resources: ['poddisruptionbudgets'], verb: 'create' },
  'policy.replaceNamespacedPodDisruptionBudget': { group: 'policy', resources: ['poddisruptionbudgets'], verb: 'update' },
  'policy.deleteNamespacedPodDisruptionBudget': { group: 'policy', resources: ['poddisruptionbudgets'], verb: 'delete' },
  // the parallel group (src/nova/group/kubernetes.ts): the API's HorizontalPodAutoscaler (autoscaling/v2) and the
  // NetworkPolicies ({nova}, {nova}-novncproxy): one GET, create on 404, PUT on drift, DELETE
  'autoscaling.readNamespacedHorizontalPodAutoscaler': { group: 'autoscaling', resources: ['horizontalpodautoscalers'], verb: 'get' },
  'autoscaling.createNamespacedHorizontalPodAutoscaler': { group: 'autoscaling', resources: ['horizontalpodautoscalers'], verb: 'create' },
  'autoscaling.replaceNamespacedHorizontalPodAutoscaler': { group: 'autoscaling', resources: ['horizontalpodautoscalers'], verb: 'update' },
  'autoscaling.deleteNamespacedHorizontalPodAutoscaler': { group: 'autoscaling', resources: ['horizontalpodautoscalers'], verb: 'delete' },
  'networking.readNamespacedNetworkPolicy': { group: 'networking.k8s.io', resources: ['networkpolicies'], verb: 'get' },
  'networking.createNamespacedNetworkPolicy': { group: 'networking.k8s.io', resources: ['networkpolicies'], verb: 'create' },
  'networking.replaceNamespacedNetworkPolicy': { group: 'networking.k8s.io', resources: ['networkpolicies'], verb: 'update' },
  'networking.deleteNamespacedNetworkPolicy': { group: 'networking.k8s.io', resources: ['networkpolicies'], verb: 'delete' },
  // The Nova controller's watches (src/nova/watches.ts LegLists, nova-operator.md "Watches and indexes"), and the
  // NovaCompute pools' on the same machinery (src/nova/compute/watch-legs.ts): each leg LISTs the install namespace for
  // a resourceVersion, then WATCHes from it (the watch verbs: NOVA_WATCHES), and relists after a 410 Gone. The core
  // legs through CoreV1Api, every other group through CustomObjectsApi below.
  'core.listNamespacedService': { group: '', resources: ['services'], verb: 'list' },
  // EXCEPTION to "Regent never lists Secrets" (the secrets Role, GRANTED_AHEAD): the spec's Secret leg — a Nova wakes
  // when a Secret it references changes; namespace-scoped to the install namespace, granted by the Nova Role only.
  // The leg reads metadata alone (watch-legs.ts WatchedObject), but RBAC cannot grant list without the data.
  'core.listNamespacedSecret': { group: '', resources: ['secrets'], verb: 'list' },
  'custom.listNamespacedCustomObject': [
    { group: 'apps', resources: ['deployments'], verb: 'list' },
    // the NovaCompute pools' DaemonSet leg (src/nova/compute/watch-legs.ts, by the pool label)
    { group: 'apps', resources: ['daemonsets'], verb: 'list' },
    { group: 'policy', resources: ['poddisruptionbudgets'], verb: 'list' },
    { group: 'autoscaling', resources: ['horizontalpodautoscalers'], verb: 'list' },
    { group: 'networking.k8s.io', resources: ['networkpolicies'], verb: 'list' },
    // jobs list: also src/nova/jobs/kubernetes.ts (listNamespacedJob, the archive runs)
    { group: 'batch', resources: ['jobs', 'cronjobs'], verb: 'list' },
    { group: GATEWAY, resources: ['httproutes'], verb: 'list' },
    { group: MARIADB, resources: ['mariadbs'], verb: 'list' },
    { group: 'external-secrets.io', resources: ['secretstores'], verb: 'list' },
  ],
  // CustomObjectsApi: mariadb-operator (src/nova/database/mariadb-operator.ts), the SecretStore gate
  // (src/nova/secret-store-kubernetes.ts), the group's HTTPRoutes and VPAs (src/nova/group/kubernetes.ts) and the
  // NovaCompute pool's VPA (src/nova/compute/kubernetes/vpa.ts: get, create, update on drift, delete, as the group's)
  'custom.getNamespacedCustomObject': [
    { group: MARIADB, resources: ['mariadbs', 'databases', 'users', 'grants'], verb: 'get' },
    // src/nova/secret-store-kubernetes.ts: the SecretStore a Nova selects, read by the Secrets step's gate
    { group: 'external-secrets.io', resources: ['secretstores'], verb: 'get' },
    { group: GATEWAY, resources: ['httproutes'], verb: 'get' },
    { group: VPA, resources: ['verticalpodautoscalers'], verb: 'get' },
  ],
  'custom.createNamespacedCustomObject': [
    { group: MARIADB, resources: ['databases', 'users', 'grants'], verb: 'create' },
    { group: GATEWAY, resources: ['httproutes'], verb: 'create' },
    { group: VPA, resources: ['verticalpodautoscalers'], verb: 'create' },
  ],
  'custom.patchNamespacedCustomObject': { group: MARIADB, resources: ['databases', 'users', 'grants'], verb: 'patch' },
  // the group adapter replaces a drifted route or VPA (PUT with the read's resourceVersion); mariadb-operator patches
  'custom.replaceNamespacedCustomObject': [
    { group: GATEWAY, resources: ['httproutes'], verb: 'update' },
    { group: VPA, resources: ['verticalpodautoscalers'], verb: 'update' },
  ],
  // the finalizer's database half deletes the Database/User/Grant CRs it provisioned (deprovision, uid precondition);
  // the group deletes a route or VPA whose block is gone
  'custom.deleteNamespacedCustomObject': [
    { group: MARIADB, resources: ['databases', 'users', 'grants'], verb: 'delete' },
    { group: GATEWAY, resources: ['httproutes'], verb: 'delete' },
    { group: VPA, resources: ['verticalpodautoscalers'], verb: 'delete' },
  ],
};

/**
 * The Nova adapters' calls on cluster-scoped resources, `<field>.<method>` → the (group, resources, verb) it needs, in
 * the ClusterRole (a Role cannot grant a cluster-scoped resource): the NovaCompute pool's Nodes and Hypervisors (issue
 * 28). No namespace in these calls' names; every NOVA_CLIENT_CALLS one is `…Namespaced…` (rbac.test.ts checks both).
 */
export const NOVA_CLUSTER_CLIENT_CALLS: Readonly<Record<string, NovaGrant | readonly NovaGrant[]>> = {
  // src/nova/compute/kubernetes/nodes.ts, an uncached metadata-only reader (reconcileNovaComputeNodes): list the
  // selected Nodes (paged, PartialObjectMetadataList), get a held node the list no longer returns; no watch (the spec:
  // "There is no local Node leg", the pool's poll picks up a relabel)
  'core.listNode': { group: '', resources: ['nodes'], verb: 'list' },
  'core.readNode': { group: '', resources: ['nodes'], verb: 'get' },
  // src/nova/compute/kubernetes/hypervisors.ts (reconcileNovaComputeTraits): each managed node's kvm.cloud.sap/v1
  // Hypervisor by name, and the JSON merge patch of its spec.customTraits (field manager cobaltcore-operator)
  'custom.getClusterCustomObject': { group: HYPERVISOR, resources: ['hypervisors'], verb: 'get' },
  'custom.patchClusterCustomObject': { group: HYPERVISOR, resources: ['hypervisors'], verb: 'patch' },
};

/** The grants of a table of Nova client calls, as triples. */
export const novaGrantsOf = (calls: Readonly<Record<string, NovaGrant | readonly NovaGrant[]>>): string[] =>
  Object.values(calls).flatMap((c) => [c].flat().flatMap((g) => g.resources.map((resource) => triple(g.group, resource, g.verb))));

/**
 * Client calls of the Nova adapters that need no rule of any Role or ClusterRole of Regent's, and why. The capability
 * probes are discovery GETs of a group/version (`/apis/gateway.networking.k8s.io/v1`, `/apis/autoscaling.k8s.io/v1`,
 * `/apis/kvm.cloud.sap/v1`): non-resource URLs that the API server's default ClusterRole system:discovery grants
 * every authenticated user (its binding's subject is the group system:authenticated), so Regent's roles carry no
 * nonResourceURLs. rbac.test.ts checks that the only requests outside the resource paths are such discovery GETs.
 */
export const NOVA_DISCOVERY_CALLS: Readonly<Record<string, string>> = {
  'custom.getAPIResources':
    'GET /apis/<group>/<version>, allowed by system:discovery: the probes of src/nova/group/kubernetes.ts (the Gateway API, the VPA API) and src/nova/compute/kubernetes/vpa.ts (the VPA API), and src/nova/compute/kubernetes/hypervisors.ts (is kvm.cloud.sap/v1 served, after a 404 that names no Hypervisor)',
};

/**
 * Client calls of the Nova adapters that the source makes but Regent's install never reaches, so no rule grants them,
 * and why. rbac.test.ts checks each reason against the code (nova-runtime.ts passes `clusterScoped: false`).
 */
export const NOVA_UNREACHED_CALLS: Readonly<Record<string, string>> = {
  'custom.listClusterCustomObject':
    "src/nova/watches.ts: the ClusterSecretStore leg's cluster-wide LIST, registered only when `clusterScoped` (the spec: \"not registered when the operator runs with --namespace\"); Regent runs namespace-scoped (src/app/nova-runtime.ts passes clusterScoped: false)",
};

/**
 * The Nova controller's WATCHes (src/nova/watches.ts, nova-operator.md "Watches and indexes") and the NovaCompute
 * controller's (src/nova/compute/watches.ts, nova-operator.md "Watches"), `<group>/<resource>` (core: `/<resource>`) →
 * why. Written by hand because the watch is the client's `Watch` on a path built at run time (legPath), which the
 * `this.<client>.<call>(` scan cannot see; rbac.test.ts checks it against the legs Regent registers (novaWatchLegs and
 * poolWatchLegs, imported: it cannot drift) and that each is in the install namespace. Each leg also LISTs
 * (NOVA_CLIENT_CALLS above), so each resource here is granted list and watch in the Nova Role.
 */
export const NOVA_WATCHES: Readonly<Record<string, string>> = {
  // the owned set (watch-legs.ts ownedLeg): what Regent creates for a Nova, by owner reference or the regent.dev/nova label
  'apps/deployments': 'owned set: the role Deployments (a rollout, a status change)',
  '/services': "owned set: the roles' Services",
  '/configmaps': "owned set: the content-addressed configs; the NovaCompute pools' {pool}-config-<hash> (poolOwnedLeg, by the pool label)",
  // the NovaCompute pools' legs (src/nova/compute/watch-legs.ts): the spec's Owns(DaemonSet), by the pool label
  'apps/daemonsets': "the NovaCompute pools' DaemonSets {pool}-nova-compute (poolOwnedLeg: a rollout, a status change; by the pool label)",
  'policy/poddisruptionbudgets': "owned set: the API's PodDisruptionBudget",
  'autoscaling/horizontalpodautoscalers': "owned set: the API's HorizontalPodAutoscaler",
  'networking.k8s.io/networkpolicies': 'owned set: {name} and {name}-novncproxy',
  'batch/jobs': 'owned set: the Database-step Jobs and the archive runs',
  'batch/cronjobs': "owned set: the archive CronJob (status.active: what wakes the pass that refreshes DBArchiveReady)",
  'gateway.networking.k8s.io/httproutes': 'owned set: the routes (a 404 while the Gateway API CRD is not installed turns the leg off)',
  // EXCEPTION to "Regent never lists or watches Secrets" (the secrets Role keeps that rule): the spec's Secret leg —
  // a Nova wakes when a Secret it references changes; namespace-scoped to the install namespace, in the Nova Role only.
  '/secrets': "the spec's Secret leg (secretLeg): a Nova wakes when a Secret it references changes, and the pools of <nova> when <nova>-compute-config does (contractSecretLeg); namespace-scoped to the install namespace",
  'k8s.mariadb.com/mariadbs': "mariaDBLeg: the MariaDB cluster either of a Nova's database blocks names",
  'external-secrets.io/secretstores': 'secretStoreLeg: the SecretStore a Nova selects',
};

/**
 * Legs watches.ts can register that Regent's install does not, so no Role grants them: `<group>/<resource>` → why.
 */
export const NOVA_WATCHES_NOT_GRANTED: Readonly<Record<string, string>> = {
  'external-secrets.io/clustersecretstores':
    'clusterSecretStoreLeg, cluster-wide: "The ClusterSecretStore leg is not registered when the operator runs with --namespace", and Regent runs namespaced (src/app/nova-runtime.ts passes clusterScoped: false); its RBAC could not list them',
};

/**
 * The (group, resource, namespace) of each leg Regent registers, read off the path it watches (legPath): the Nova's
 * (novaWatchLegs) and the NovaCompute pools' (poolWatchLegs), one entry per resource and namespace.
 */
export const novaWatchedAccesses = (namespace: string, clusterScoped: boolean): Array<{ key: string; namespace: string | undefined }> => {
  const accesses = [...novaWatchLegs(namespace, clusterScoped), ...poolWatchLegs(namespace)].map((leg) => {
    const m = /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)(?:\/namespaces\/([^/]+))?\/([^/]+)$/.exec(legPath(leg));
    if (!m) throw new Error(`${leg.resource}: not a collection path: ${legPath(leg)}`);
    return { key: `${m[1] ?? ''}/${m[3]!}`, namespace: m[2] };
  });
  return accesses.filter((a, i) => accesses.findIndex((b) => b.key === a.key && b.namespace === a.namespace) === i);
};

/** The modules under src/nova that construct the client's Watch. */
export const novaWatchModules = (): string[] =>
  (readdirSync(join(ROOT, 'src/nova'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/nova/${f}`)
    .filter((file) => /\bnew Watch\(/.test(src(file)))
    .sort();

/** A discovery request (`/api`, `/apis`, `/api/v1`, `/apis/<group>/<version>`, a GET): system:discovery allows it, no resource rule applies. */
export const isDiscoveryRequest = (method: string, path: string): boolean => method === 'GET' && /^\/(?:api|apis|api\/v1|apis\/[^/]+\/[^/]+)\/?$/.test(path);

/** The client calls in one Nova adapter's text, `<field>.<method>`: through `this.<field>.` or a local aliasing the field. */
export const novaClientCallsIn = (file: string, text: string): string[] => {
  const fields = Object.keys(NOVA_API_CLIENTS);
  for (const m of text.matchAll(/\bthis\.(\w+)\s*=\s*[\w.]*makeApiClient\((\w+)\)/g)) {
    if (NOVA_API_CLIENTS[m[1]!] !== m[2]) throw new Error(`${file}: this.${m[1]!} = makeApiClient(${m[2]!}): not in NOVA_API_CLIENTS (field → class), so its calls would not be scanned`);
  }
  for (const m of text.matchAll(/makeApiClient\((\w+)\)/g)) {
    if (!Object.values(NOVA_API_CLIENTS).includes(m[1]!)) throw new Error(`${file}: makeApiClient(${m[1]!}) is not a client NOVA_API_CLIENTS knows`);
  }
  const aliases = new Map([...text.matchAll(/\bconst (\w+) = this\.(\w+);/g)].filter((m) => fields.includes(m[2]!)).map((m) => [m[1]!, m[2]!]));
  for (const m of text.matchAll(/\b(?:const|let) (\w+) = [^;\n]*makeApiClient\(/g)) throw new Error(`${file}: a client held in the local ${m[1]!}, not in a field: its calls would not be scanned`);
  const direct = [...text.matchAll(/\bthis\.(\w+)\.(\w+)\(/g)].filter((m) => fields.includes(m[1]!)).map((m) => `${m[1]!}.${m[2]!}`);
  const aliased = [...text.matchAll(/(?<![\w.])(\w+)\.(\w+)\(/g)].filter((m) => aliases.has(m[1]!)).map((m) => `${aliases.get(m[1]!)!}.${m[2]!}`);
  return [...new Set([...direct, ...aliased])].sort();
};

/** The client calls the Nova adapters' source makes, `<api>.<method>`. */
export const novaClientCallsInAdapters = (): string[] => [...new Set(NOVA_ADAPTERS.flatMap((file) => novaClientCallsIn(file, src(file))))].sort();

/** The modules under src/nova that build a client-node API client (makeApiClient). */
export const novaClientModules = (): string[] =>
  (readdirSync(join(ROOT, 'src/nova'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `src/nova/${f}`)
    .filter((file) => /makeApiClient\(/.test(src(file)))
    .sort();

/**
 * The Nova Role's grants, as derived from NOVA_CLIENT_CALLS and NOVA_WATCHES (NOVA_DISCOVERY_CALLS and NOVA_UNREACHED_CALLS
 * need none; NOVA_CLUSTER_CLIENT_CALLS are the ClusterRole's: expectedGrants). `ahead: false` leaves out
 * NOVA_COMPUTE_GRANTED_AHEAD.namespaced.
 */
export const expectedNovaGrants = (options: { ahead?: boolean } = {}): string[] =>
  [
    ...new Set([
      ...novaGrantsOf(NOVA_CLIENT_CALLS),
      ...Object.keys(NOVA_WATCHES).map((key) => `${key}:watch`),
      ...(options.ahead === false ? [] : Object.keys(NOVA_COMPUTE_GRANTED_AHEAD.namespaced)),
    ]),
  ].sort();
