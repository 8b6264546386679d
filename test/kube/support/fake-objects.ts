/**
 * The fake API server's generic in-memory store for the built-in and foreign kinds the Nova work reads and
 * writes (FakeApiServer serves it; see the hook API below). Namespaced kinds only:
 *
 *   batch/v1                  jobs, cronjobs
 *   v1 (core)                 pods, configmaps, services
 *   apps/v1                   deployments, daemonsets
 *   policy/v1                 poddisruptionbudgets
 *   k8s.mariadb.com/v1alpha1  mariadbs, databases, users, grants
 *   external-secrets.io/v1beta1  secretstores (seeded with put: Regent only reads them)
 *   autoscaling/v2            horizontalpodautoscalers
 *   autoscaling.k8s.io/v1     verticalpodautoscalers (a CRD: the group can be switched off, see uninstall)
 *   networking.k8s.io/v1      networkpolicies
 *   gateway.networking.k8s.io/v1  httproutes, gateways (CRDs: likewise)
 *
 * Served with the API server's semantics, so an adapter bug shows as a test failure rather than as a fake
 * that agrees with anything:
 * - GET one (404 NotFound); LIST a namespace or every namespace with `labelSelector` (src/kube/secrets.ts's
 *   parser: a bad selector is 400) and `fieldSelector` on metadata.name / metadata.namespace (and spec.nodeName on
 *   pods, as the API server serves it). A `watch=true`
 *   list is NOT served: it 404s and lands in `unexpected`, so a test proves an adapter never watched — unless
 *   the test called `fake.objects.watch.enable()` (./fake-object-watch.ts: every write is recorded as a watch event).
 * - POST: 409 AlreadyExists; uid, resourceVersion, generation 1 and creationTimestamp assigned;
 *   `generateName` honoured; status dropped for kinds with a status subresource (all but configmaps);
 *   a Job gets the controller's defaults (selector and pod-template labels `batch.kubernetes.io/controller-uid`,
 *   `controller-uid`, `batch.kubernetes.io/job-name`, `job-name`; backoffLimit 6, completions/parallelism 1,
 *   suspend false), a CronJob its defaults (concurrencyPolicy Allow, suspend false, history limits 3/1).
 * - PUT: resourceVersion required (422) and must be the current one (409 Conflict); uid and creationTimestamp
 *   kept; status kept from the stored object (status subresource); generation bumped when anything but
 *   metadata/status changed; an immutable ConfigMap refuses a data change (422).
 * - PATCH: `application/merge-patch+json` (RFC 7386); `application/strategic-merge-patch+json` and
 *   `application/apply-patch+yaml` are applied as merge patches (the fake does not know the strategic list
 *   merge keys: an adapter relying on them must be tested another way); apply creates a missing object.
 *   `application/json-patch+json` is 415. A `metadata.resourceVersion` in the patch is a precondition (409).
 * - `/status` subresource: GET, PUT (status only), PATCH (merge).
 * - Discovery: GET `/apis/<group>/<version>` answers the APIResourceList of the plurals of that group/version the fake
 *   serves (each with its `/status` when it has one). A group/version the fake serves none of is not ours (404,
 *   `unexpected`).
 * - DELETE: DeleteOptions from the query (`propagationPolicy`, as client-node sends it) or the body
 *   (`propagationPolicy`, `preconditions.uid/resourceVersion`, 409 on a mismatch). Every delete is recorded in
 *   `deletions` with the policy sent and the policy applied. The default policy is the API server's: Orphan
 *   for batch/v1 Jobs (the legacy default that leaves a deleted Job's pods behind), Background for the rest.
 *   Background and Foreground delete the dependents (objects with an ownerReference to the deleted UID and no
 *   other live owner) at once, recursively — the fake's garbage collector runs synchronously, and Foreground is
 *   not staged; Orphan strips the ownerReference from them. An object with finalizers is only marked
 *   (deletionTimestamp; 200 with the object) and goes away when a write empties its finalizers. Pods go away
 *   at once (no grace period).
 *
 * Hook API for tests (`fake.objects`), paths are API paths as the client sends them:
 *   fake.objects.path('jobs', ns, name?)     → '/apis/batch/v1/namespaces/<ns>/jobs[/<name>]'
 *   fake.objects.put(path, obj)              seeds or overwrites (collection path + obj.metadata.name, or
 *                                            object path); stamps apiVersion/kind/namespace/name, a uid and
 *                                            creationTimestamp unless given (an overwrite keeps the stored
 *                                            uid), a new resourceVersion; keeps status as given; no defaults
 *   fake.objects.get(path)                   a copy, or undefined
 *   fake.objects.list(collectionPath, labelSelector?)
 *   fake.objects.mutate(path, (obj) => …)    edits a copy in place (or returns a replacement), new
 *                                            resourceVersion; throws when absent
 *   fake.objects.setStatus(path, status)     replaces status
 *   fake.objects.remove(path)                drops the object, no garbage collection
 *   fake.objects.completeJob(ns, name, { at? })           Complete=True (+ SuccessCriteriaMet), succeeded 1,
 *                                                         completionTime
 *   fake.objects.failJob(ns, name, reason, message, { at? })  Failed=True, failed 1
 *   fake.objects.addJobPod(ns, jobName, { phase, message?, name?, createdAt?, jobUid?, legacyLabelsOnly? })
 *       a pod of the Job (labels and controller ownerReference for the Job's UID, or `jobUid`: a pod an earlier
 *       Job of the same name left behind), container `nova-manage` terminated with `message` when Succeeded or
 *       Failed; `legacyLabelsOnly` carries only `controller-uid`/`job-name` (clusters before 1.27)
 *   fake.objects.addCronJobRun(ns, cronJobName, runName, { state?, at? })
 *       a Job as the CronJob controller spawns it: the jobTemplate's labels and spec, a controller
 *       ownerReference to the CronJob's UID; state running (default), succeeded or failed
 *   fake.objects.deletions                   [{ path, propagationPolicy (as sent), applied }]
 *   fake.objects.uninstall(groupVersion)     e.g. 'gateway.networking.k8s.io/v1': the cluster lacks the CRDs; its
 *                                            discovery and every request under /apis/<groupVersion>/ answer 404
 *                                            NotFound "the server could not find the requested resource", as the
 *                                            API server does (served, not `unexpected`)
 *   fake.objects.failDiscovery(groupVersion, status)  the discovery GET of that group/version answers `status`
 *                                            (403 Forbidden, 500 InternalError, 503 ServiceUnavailable, …) from
 *                                            now on; its objects are still served
 */
import { randomUUID } from 'node:crypto';
import { applyMergePatch } from '../../../src/kube/merge-patch.js';
import { matchesSelector, parseLabelSelector } from '../../../src/kube/secrets.js';
import { FakeObjectWatch } from './fake-object-watch.js';

type Json = Record<string, unknown>;

interface ResourceType {
  readonly prefix: string;
  readonly apiVersion: string;
  readonly kind: string;
  /** The group for Status details (`jobs.batch "x" not found`). */
  readonly group: string;
  readonly statusSubresource: boolean;
  readonly defaultPropagation: 'Orphan' | 'Background';
  /** A built-in kind whose group has a dot (networking.k8s.io); otherwise a dotted group is a CRD's. */
  readonly builtIn?: true;
}

const TYPES: Readonly<Record<string, ResourceType>> = {
  jobs: { prefix: '/apis/batch/v1', apiVersion: 'batch/v1', kind: 'Job', group: 'batch', statusSubresource: true, defaultPropagation: 'Orphan' },
  cronjobs: { prefix: '/apis/batch/v1', apiVersion: 'batch/v1', kind: 'CronJob', group: 'batch', statusSubresource: true, defaultPropagation: 'Background' },
  pods: { prefix: '/api/v1', apiVersion: 'v1', kind: 'Pod', group: '', statusSubresource: true, defaultPropagation: 'Background' },
  configmaps: { prefix: '/api/v1', apiVersion: 'v1', kind: 'ConfigMap', group: '', statusSubresource: false, defaultPropagation: 'Background' },
  deployments: { prefix: '/apis/apps/v1', apiVersion: 'apps/v1', kind: 'Deployment', group: 'apps', statusSubresource: true, defaultPropagation: 'Background' },
  daemonsets: { prefix: '/apis/apps/v1', apiVersion: 'apps/v1', kind: 'DaemonSet', group: 'apps', statusSubresource: true, defaultPropagation: 'Background' },
  services: { prefix: '/api/v1', apiVersion: 'v1', kind: 'Service', group: '', statusSubresource: true, defaultPropagation: 'Background' },
  poddisruptionbudgets: { prefix: '/apis/policy/v1', apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', group: 'policy', statusSubresource: true, defaultPropagation: 'Background' },
  mariadbs: { prefix: '/apis/k8s.mariadb.com/v1alpha1', apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'MariaDB', group: 'k8s.mariadb.com', statusSubresource: true, defaultPropagation: 'Background' },
  databases: { prefix: '/apis/k8s.mariadb.com/v1alpha1', apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'Database', group: 'k8s.mariadb.com', statusSubresource: true, defaultPropagation: 'Background' },
  users: { prefix: '/apis/k8s.mariadb.com/v1alpha1', apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'User', group: 'k8s.mariadb.com', statusSubresource: true, defaultPropagation: 'Background' },
  grants: { prefix: '/apis/k8s.mariadb.com/v1alpha1', apiVersion: 'k8s.mariadb.com/v1alpha1', kind: 'Grant', group: 'k8s.mariadb.com', statusSubresource: true, defaultPropagation: 'Background' },
  secretstores: { prefix: '/apis/external-secrets.io/v1beta1', apiVersion: 'external-secrets.io/v1beta1', kind: 'SecretStore', group: 'external-secrets.io', statusSubresource: true, defaultPropagation: 'Background' },
  horizontalpodautoscalers: { prefix: '/apis/autoscaling/v2', apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', group: 'autoscaling', statusSubresource: true, defaultPropagation: 'Background' },
  verticalpodautoscalers: { prefix: '/apis/autoscaling.k8s.io/v1', apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', group: 'autoscaling.k8s.io', statusSubresource: true, defaultPropagation: 'Background' },
  // built in despite the dot in its group: a DELETE answers a Status, not the object
  networkpolicies: { prefix: '/apis/networking.k8s.io/v1', apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', group: 'networking.k8s.io', statusSubresource: false, defaultPropagation: 'Background', builtIn: true },
  httproutes: { prefix: '/apis/gateway.networking.k8s.io/v1', apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', group: 'gateway.networking.k8s.io', statusSubresource: true, defaultPropagation: 'Background' },
  gateways: { prefix: '/apis/gateway.networking.k8s.io/v1', apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', group: 'gateway.networking.k8s.io', statusSubresource: true, defaultPropagation: 'Background' },
};

export type FakePlural =
  | 'jobs'
  | 'cronjobs'
  | 'pods'
  | 'configmaps'
  | 'deployments'
  | 'daemonsets'
  | 'services'
  | 'poddisruptionbudgets'
  | 'mariadbs'
  | 'databases'
  | 'users'
  | 'grants'
  | 'secretstores'
  | 'horizontalpodautoscalers'
  | 'verticalpodautoscalers'
  | 'networkpolicies'
  | 'httproutes'
  | 'gateways';

export interface FakeDeletion {
  readonly path: string;
  /** The policy the request named (query or DeleteOptions body), undefined when it named none. */
  readonly propagationPolicy: string | undefined;
  /** What the fake did: the named policy or the kind's default. */
  readonly applied: 'Orphan' | 'Background' | 'Foreground';
}

interface Parsed {
  readonly plural: string;
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  readonly status: boolean;
}

export interface FakeRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly contentType?: string;
  readonly body?: unknown;
}

type Send = (code: number, payload: unknown) => void;

/** `/apis/<group>/<version>` itself (discovery), or anything under it. */
const DISCOVERY = /^\/apis\/([^/]+\/[^/]+)\/?$/;
const GROUP_VERSION = /^\/apis\/([^/]+\/[^/]+)(?:\/|$)/;
const REASONS: Readonly<Record<number, string>> = { 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout' };

const PATH = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)(?:\/namespaces\/([^/]+))?\/([a-z]+)(?:\/([^/]+))?(\/status)?$/;

const parse = (path: string): Parsed | undefined => {
  const m = PATH.exec(path);
  if (!m) return undefined;
  const [, prefix, namespace, plural, name, status] = m;
  const type = TYPES[plural!];
  if (!type || type.prefix !== prefix) return undefined;
  return { plural: plural!, type, namespace, name, status: status !== undefined };
};

const statusBody = (code: number, reason: string, message: string, details: Json = {}): Json => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code });
const meta = (o: Json): Json => (o.metadata ?? {}) as Json;
const labelsOf = (o: Json): Record<string, string> => (meta(o).labels ?? {}) as Record<string, string>;
const clone = <T>(v: T): T => structuredClone(v);
const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
/** Everything but metadata and status: what bumps generation. */
const specPart = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([k]) => k !== 'metadata' && k !== 'status' && k !== 'apiVersion' && k !== 'kind'));

class HttpError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details: Json = {},
  ) {
    super(message);
  }
}

export class FakeObjects {
  readonly deletions: FakeDeletion[] = [];
  private readonly items = new Map<string, Json>();
  private readonly uninstalled = new Set<string>();
  private readonly discoveryFaults = new Map<string, number>();
  private version = 9000;
  /** Every write as a watch event; `?watch=true` served once a test calls `watch.enable()` (./fake-object-watch.ts). */
  readonly watch = new FakeObjectWatch((groupVersion) => !this.uninstalled.has(groupVersion));

  constructor() {
    for (const [plural, type] of Object.entries(TYPES)) this.watch.register(`${type.prefix}/${plural}`);
  }

  /** The API path of a collection (no name) or of one object. */
  path(plural: FakePlural, namespace: string, name?: string): string {
    const type = TYPES[plural]!;
    return `${type.prefix}/namespaces/${namespace}/${plural}${name === undefined ? '' : `/${name}`}`;
  }

  // ---- hooks ---------------------------------------------------------------------------------------

  put(path: string, obj: Json): Json {
    const p = this.must(path);
    const name = p.name ?? (meta(obj).name as string | undefined);
    const namespace = p.namespace ?? (meta(obj).namespace as string | undefined);
    if (!name || !namespace) throw new Error(`fake.objects.put(${path}): no name or namespace`);
    const key = this.key(p, namespace, name);
    const previous = this.items.get(key);
    const m = meta(obj);
    const stored: Json = {
      ...clone(obj),
      apiVersion: p.type.apiVersion,
      kind: p.type.kind,
      metadata: {
        ...clone(m),
        name,
        namespace,
        uid: m.uid ?? (previous ? meta(previous).uid : randomUUID()),
        creationTimestamp: m.creationTimestamp ?? (previous ? meta(previous).creationTimestamp : now()),
        generation: m.generation ?? (previous ? meta(previous).generation : 1),
        resourceVersion: this.nextVersion(),
      },
    };
    this.items.set(key, stored);
    this.watch.record(previous ? 'MODIFIED' : 'ADDED', `${p.type.prefix}/${p.plural}`, stored);
    return clone(stored);
  }

  /** The cluster does not serve `groupVersion` (its CRDs are not installed): discovery and every request 404. */
  uninstall(groupVersion: string): void {
    this.uninstalled.add(groupVersion);
  }

  /** The discovery GET of `groupVersion` answers `status` from now on. */
  failDiscovery(groupVersion: string, status: number): void {
    this.discoveryFaults.set(groupVersion, status);
  }

  get(path: string): Json | undefined {
    const p = this.must(path);
    if (p.name === undefined || p.namespace === undefined) throw new Error(`fake.objects.get(${path}): not an object path`);
    const found = this.items.get(this.key(p, p.namespace, p.name));
    return found ? clone(found) : undefined;
  }

  list(path: string, labelSelector?: string): Json[] {
    const p = this.must(path);
    const requirements = parseLabelSelector(labelSelector);
    return this.ofType(p.plural, p.namespace)
      .filter((o) => matchesSelector(labelsOf(o), requirements))
      .map(clone);
  }

  mutate(path: string, edit: (obj: Json) => Json | void): Json {
    const current = this.get(path);
    if (!current) throw new Error(`fake.objects.mutate(${path}): absent`);
    const next = edit(current) ?? current;
    const p = this.must(path);
    return this.store(p, clone(next));
  }

  setStatus(path: string, status: Json): Json {
    return this.mutate(path, (o) => ({ ...o, status: clone(status) }));
  }

  remove(path: string): boolean {
    const p = this.must(path);
    const removed = this.items.get(this.key(p, p.namespace!, p.name!));
    if (removed) this.watch.record('DELETED', `${p.type.prefix}/${p.plural}`, { ...removed, metadata: { ...meta(removed), resourceVersion: this.nextVersion() } });
    return this.items.delete(this.key(p, p.namespace!, p.name!));
  }

  completeJob(namespace: string, name: string, options: { at?: string } = {}): Json {
    const at = options.at ?? now();
    return this.setStatus(this.path('jobs', namespace, name), {
      startTime: meta(this.mustGet('jobs', namespace, name)).creationTimestamp,
      completionTime: at,
      succeeded: 1,
      conditions: [
        { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastTransitionTime: at, lastProbeTime: at },
        { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastTransitionTime: at, lastProbeTime: at },
      ],
    });
  }

  failJob(namespace: string, name: string, reason: string, message: string, options: { at?: string } = {}): Json {
    const at = options.at ?? now();
    return this.setStatus(this.path('jobs', namespace, name), {
      startTime: meta(this.mustGet('jobs', namespace, name)).creationTimestamp,
      failed: 1,
      conditions: [
        { type: 'FailureTarget', status: 'True', reason, message, lastTransitionTime: at, lastProbeTime: at },
        { type: 'Failed', status: 'True', reason, message, lastTransitionTime: at, lastProbeTime: at },
      ],
    });
  }

  addJobPod(
    namespace: string,
    jobName: string,
    options: { phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed'; message?: string; name?: string; createdAt?: string; jobUid?: string; legacyLabelsOnly?: boolean },
  ): Json {
    const job = this.items.get(this.key(this.must(this.path('jobs', namespace, jobName)), namespace, jobName));
    const uid = options.jobUid ?? (job ? (meta(job).uid as string) : undefined);
    if (!uid) throw new Error(`fake.objects.addJobPod: no Job ${namespace}/${jobName} and no jobUid`);
    const labels: Record<string, string> = options.legacyLabelsOnly
      ? { 'controller-uid': uid, 'job-name': jobName }
      : { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': jobName, 'controller-uid': uid, 'job-name': jobName };
    const terminated = options.phase === 'Succeeded' || options.phase === 'Failed';
    const podName = options.name ?? `${jobName}-${randomUUID().slice(0, 5)}`;
    return this.put(this.path('pods', namespace, podName), {
      metadata: {
        name: podName,
        labels,
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: jobName, uid, controller: true, blockOwnerDeletion: true }],
        ...(options.createdAt ? { creationTimestamp: options.createdAt } : {}),
      },
      spec: { restartPolicy: 'Never', containers: [{ name: 'nova-manage', image: 'nova' }] },
      status: {
        phase: options.phase,
        containerStatuses: [
          {
            name: 'nova-manage',
            ready: false,
            restartCount: 0,
            image: 'nova',
            state: terminated
              ? { terminated: { exitCode: options.phase === 'Succeeded' ? 0 : 1, reason: options.phase === 'Succeeded' ? 'Completed' : 'Error', ...(options.message === undefined ? {} : { message: options.message }) } }
              : options.phase === 'Running'
                ? { running: { startedAt: now() } }
                : { waiting: { reason: 'ContainerCreating' } },
          },
        ],
      },
    });
  }

  addCronJobRun(namespace: string, cronJobName: string, runName: string, options: { state?: 'running' | 'succeeded' | 'failed'; at?: string } = {}): Json {
    const cron = this.mustGet('cronjobs', namespace, cronJobName);
    const template = ((cron.spec as Json | undefined)?.jobTemplate ?? {}) as Json;
    const templateMeta = (template.metadata ?? {}) as Json;
    const job = this.put(this.path('jobs', namespace, runName), {
      metadata: {
        name: runName,
        labels: clone(templateMeta.labels ?? {}),
        annotations: clone(templateMeta.annotations ?? {}),
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: cronJobName, uid: meta(cron).uid, controller: true, blockOwnerDeletion: true }],
        ...(options.at ? { creationTimestamp: options.at } : {}),
      },
      spec: clone(template.spec ?? {}),
    });
    if (options.state === 'succeeded') return this.completeJob(namespace, runName, options.at ? { at: options.at } : {});
    if (options.state === 'failed') return this.failJob(namespace, runName, 'DeadlineExceeded', 'Job was active longer than specified deadline', options.at ? { at: options.at } : {});
    return job;
  }

  // ---- serving -------------------------------------------------------------------------------------

  /** Serves the request when its path is one of the kinds above; false when it is not ours (or a watch). */
  serve(r: FakeRequest, send: Send): boolean {
    const groupVersion = GROUP_VERSION.exec(r.path)?.[1];
    if (groupVersion !== undefined && this.uninstalled.has(groupVersion)) {
      send(404, statusBody(404, 'NotFound', 'the server could not find the requested resource'));
      return true;
    }
    const discovered = DISCOVERY.exec(r.path)?.[1];
    if (discovered !== undefined && r.method === 'GET') return this.serveDiscovery(discovered, send);
    const p = parse(r.path);
    if (!p) return false;
    try {
      return this.route(p, r, send);
    } catch (error) {
      if (error instanceof HttpError) {
        send(error.code, statusBody(error.code, error.reason, error.message, error.details));
        return true;
      }
      throw error;
    }
  }

  private serveDiscovery(groupVersion: string, send: Send): boolean {
    const plurals = Object.entries(TYPES).filter(([, t]) => t.prefix === `/apis/${groupVersion}`);
    if (plurals.length === 0) return false;
    const fault = this.discoveryFaults.get(groupVersion);
    if (fault !== undefined) {
      const reason = REASONS[fault] ?? 'Unknown';
      send(fault, statusBody(fault, reason, `injected ${fault} ${reason} on the discovery of ${groupVersion}`));
      return true;
    }
    const verbs = ['create', 'delete', 'get', 'list', 'patch', 'update'];
    const resources = plurals.flatMap(([plural, t]) => [
      { name: plural, singularName: t.kind.toLowerCase(), namespaced: true, kind: t.kind, verbs },
      ...(t.statusSubresource ? [{ name: `${plural}/status`, singularName: '', namespaced: true, kind: t.kind, verbs: ['get', 'patch', 'update'] }] : []),
    ]);
    send(200, { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources });
    return true;
  }

  private route(p: Parsed, r: FakeRequest, send: Send): boolean {
    if (p.name === undefined) {
      if (p.status) return false;
      if (r.method === 'GET') {
        if (r.query.watch === 'true' || r.query.watch === '1') return false;
        send(200, this.serveList(p, r.query));
        return true;
      }
      if (r.method === 'POST' && p.namespace !== undefined) {
        send(201, this.create(p, p.namespace, (r.body ?? {}) as Json));
        return true;
      }
      return false;
    }
    if (p.namespace === undefined) return false;
    const ns = p.namespace;
    const name = p.name;
    if (p.status) {
      if (!p.type.statusSubresource) return false;
      const current = this.current(p, ns, name);
      if (r.method === 'GET') send(200, clone(current));
      else if (r.method === 'PUT') {
        const body = (r.body ?? {}) as Json;
        this.checkVersion(p, name, current, meta(body).resourceVersion, true);
        send(200, this.store(p, { ...current, status: clone(body.status ?? {}) }));
      } else if (r.method === 'PATCH') {
        const patch = this.patchBody(r, false);
        this.checkVersion(p, name, current, meta(patch).resourceVersion, false);
        send(200, this.store(p, { ...current, status: applyMergePatch(current.status ?? {}, patch.status ?? {}) }));
      } else return false;
      return true;
    }
    switch (r.method) {
      case 'GET':
        send(200, clone(this.current(p, ns, name)));
        return true;
      case 'PUT': {
        const current = this.current(p, ns, name);
        const body = (r.body ?? {}) as Json;
        if (meta(body).name !== undefined && meta(body).name !== name) throw new HttpError(400, 'BadRequest', `the name of the object (${String(meta(body).name)}) does not match the name on the URL (${name})`);
        this.checkVersion(p, name, current, meta(body).resourceVersion, true);
        send(200, this.update(p, current, clone(body)));
        return true;
      }
      case 'PATCH': {
        const patch = this.patchBody(r, true);
        const existing = this.items.get(this.key(p, ns, name));
        if (!existing) {
          if (r.contentType?.startsWith('application/apply-patch') !== true) throw this.notFound(p, name);
          send(201, this.create(p, ns, { ...patch, metadata: { ...meta(patch), name } }));
          return true;
        }
        this.checkVersion(p, name, existing, meta(patch).resourceVersion, false);
        const next = applyMergePatch(existing, patch) as Json;
        send(200, this.update(p, existing, { ...next, metadata: { ...meta(next), resourceVersion: meta(existing).resourceVersion } }));
        return true;
      }
      case 'DELETE':
        this.serveDelete(p, ns, name, r, send);
        return true;
      default:
        return false;
    }
  }

  private serveList(p: Parsed, query: Record<string, string>): Json {
    let requirements;
    try {
      requirements = parseLabelSelector(query.labelSelector);
    } catch (error) {
      throw new HttpError(400, 'BadRequest', (error as Error).message);
    }
    const fields = (query.fieldSelector ?? '')
      .split(',')
      .filter(Boolean)
      .map((part) => {
        const m = /^(metadata\.name|metadata\.namespace|spec\.nodeName)(==|=|!=)(.*)$/.exec(part);
        if (!m || (m[1] === 'spec.nodeName' && p.plural !== 'pods')) throw new HttpError(400, 'BadRequest', `the fake serves field selectors on metadata.name and metadata.namespace (and a pod's spec.nodeName) only, not ${JSON.stringify(part)}`);
        return { field: m[1]!, equal: m[2] !== '!=', value: m[3]! };
      });
    const fieldOf = (o: Json, field: string): unknown => (field === 'spec.nodeName' ? (((o.spec ?? {}) as Json).nodeName ?? '') : meta(o)[field === 'metadata.name' ? 'name' : 'namespace']);
    const items = this.ofType(p.plural, p.namespace)
      .filter((o) => matchesSelector(labelsOf(o), requirements))
      .filter((o) => fields.every((f) => (fieldOf(o, f.field) === f.value) === f.equal))
      .map(clone);
    return { apiVersion: p.type.apiVersion, kind: `${p.type.kind}List`, metadata: { resourceVersion: String(this.version) }, items };
  }

  private create(p: Parsed, namespace: string, body: Json): Json {
    const m = meta(body);
    if (m.namespace !== undefined && m.namespace !== namespace) throw new HttpError(400, 'BadRequest', 'the namespace of the provided object does not match the namespace sent on the request');
    let name = m.name as string | undefined;
    if (!name && typeof m.generateName === 'string') name = `${m.generateName}${randomUUID().replace(/-/g, '').slice(0, 5)}`;
    if (!name) throw new HttpError(422, 'Invalid', `${p.type.kind} is invalid: metadata.name: Required value: name or generateName is required`);
    if (this.items.has(this.key(p, namespace, name))) throw new HttpError(409, 'AlreadyExists', `${this.resource(p)} "${name}" already exists`, { name, group: p.type.group, kind: p.plural });
    const { status: _dropped, ...rest } = clone(body);
    const stored: Json = {
      ...(p.type.statusSubresource ? rest : clone(body)),
      apiVersion: p.type.apiVersion,
      kind: p.type.kind,
      metadata: { ...clone(m), name, namespace, uid: randomUUID(), creationTimestamp: now(), generation: 1, resourceVersion: '' },
    };
    if (p.plural === 'jobs') this.defaultJob(stored);
    if (p.plural === 'cronjobs') this.defaultCronJob(stored);
    return this.store(p, stored);
  }

  /** What the Job controller's defaulting and the API server add on create. */
  private defaultJob(job: Json): void {
    const uid = meta(job).uid as string;
    const name = meta(job).name as string;
    const spec = (job.spec ?? {}) as Json;
    const template = (spec.template ?? {}) as Json;
    const tmeta = (template.metadata ?? {}) as Json;
    const added = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name };
    job.spec = {
      completions: 1,
      parallelism: 1,
      backoffLimit: 6,
      suspend: false,
      completionMode: 'NonIndexed',
      ...spec,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: { ...template, metadata: { ...tmeta, labels: { ...((tmeta.labels ?? {}) as Json), ...added } } },
    };
    if (meta(job).labels === undefined) (job.metadata as Json).labels = { ...((tmeta.labels ?? {}) as Json), ...added };
  }

  private defaultCronJob(cron: Json): void {
    cron.spec = { concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, ...((cron.spec ?? {}) as Json) };
  }

  private update(p: Parsed, current: Json, body: Json): Json {
    const cm = meta(current);
    if (p.plural === 'configmaps' && current.immutable === true && (!sameJson(current.data ?? {}, body.data ?? {}) || !sameJson(current.binaryData ?? {}, body.binaryData ?? {}) || body.immutable !== true)) {
      throw new HttpError(422, 'Invalid', `ConfigMap "${String(cm.name)}" is invalid: data: Forbidden: field is immutable when \`immutable\` is set`, { name: cm.name, kind: 'ConfigMap', causes: [{ reason: 'FieldValueForbidden', field: 'data', message: 'Forbidden: field is immutable when `immutable` is set' }] });
    }
    const next: Json = {
      ...body,
      apiVersion: p.type.apiVersion,
      kind: p.type.kind,
      metadata: {
        ...meta(body),
        name: cm.name,
        namespace: cm.namespace,
        uid: cm.uid,
        creationTimestamp: cm.creationTimestamp,
        generation: sameJson(specPart(current), specPart(body)) ? cm.generation : Number(cm.generation ?? 1) + 1,
        ...(cm.deletionTimestamp ? { deletionTimestamp: cm.deletionTimestamp } : {}),
      },
    };
    if (p.type.statusSubresource) {
      if (current.status === undefined) delete next.status;
      else next.status = clone(current.status);
    }
    return this.store(p, next);
  }

  private serveDelete(p: Parsed, ns: string, name: string, r: FakeRequest, send: Send): void {
    const current = this.current(p, ns, name);
    const options = (isObject(r.body) ? r.body : {}) as { propagationPolicy?: string; orphanDependents?: boolean; preconditions?: { uid?: string; resourceVersion?: string } };
    const named = r.query.propagationPolicy ?? options.propagationPolicy ?? (options.orphanDependents === true ? 'Orphan' : undefined);
    if (named !== undefined && !['Orphan', 'Background', 'Foreground'].includes(named)) throw new HttpError(400, 'BadRequest', `propagationPolicy: Unsupported value: "${named}"`);
    const pre = options.preconditions ?? {};
    if ((pre.uid !== undefined && pre.uid !== meta(current).uid) || (pre.resourceVersion !== undefined && pre.resourceVersion !== meta(current).resourceVersion)) {
      throw new HttpError(409, 'Conflict', `Operation cannot be fulfilled on ${this.resource(p)} "${name}": Precondition failed`, { name, group: p.type.group, kind: p.plural });
    }
    const applied = (named ?? p.type.defaultPropagation) as FakeDeletion['applied'];
    this.deletions.push({ path: r.path, propagationPolicy: named, applied });
    const finalizers = (meta(current).finalizers ?? []) as string[];
    if (finalizers.length > 0) {
      const marked = meta(current).deletionTimestamp ? current : this.store(p, { ...current, metadata: { ...meta(current), deletionTimestamp: now(), deletionGracePeriodSeconds: 0 } });
      send(200, clone(marked));
      return;
    }
    this.destroy(p, current, applied);
    const isCustom = p.type.group.includes('.') && p.type.builtIn !== true;
    send(200, isCustom ? clone(current) : { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: p.type.group, kind: p.plural, uid: meta(current).uid } });
  }

  /** Removes the object and runs the garbage collector over its dependents. */
  private destroy(p: Parsed, obj: Json, policy: FakeDeletion['applied']): void {
    const m = meta(obj);
    this.items.delete(this.key(p, m.namespace as string, m.name as string));
    this.watch.record('DELETED', `${p.type.prefix}/${p.plural}`, { ...obj, metadata: { ...m, resourceVersion: this.nextVersion() } });
    const uid = m.uid as string;
    for (const [key, dependent] of [...this.items]) {
      const refs = (meta(dependent).ownerReferences ?? []) as Json[];
      if (!refs.some((ref) => ref.uid === uid)) continue;
      const remaining = refs.filter((ref) => ref.uid !== uid);
      const dp = parse(key)!;
      const liveOwner = remaining.some((ref) => [...this.items.values()].some((o) => meta(o).uid === ref.uid));
      if (policy === 'Orphan' || liveOwner) {
        this.store(dp, { ...dependent, metadata: { ...meta(dependent), ownerReferences: remaining } });
      } else if (((meta(dependent).finalizers ?? []) as string[]).length > 0) {
        this.store(dp, { ...dependent, metadata: { ...meta(dependent), deletionTimestamp: meta(dependent).deletionTimestamp ?? now() } });
      } else {
        this.destroy(dp, dependent, 'Background');
      }
    }
  }

  private patchBody(r: FakeRequest, allowApply: boolean): Json {
    const type = (r.contentType ?? '').split(';')[0]!.trim();
    const accepted = ['application/merge-patch+json', 'application/strategic-merge-patch+json', ...(allowApply ? ['application/apply-patch+yaml'] : [])];
    if (!accepted.includes(type)) throw new HttpError(415, 'UnsupportedMediaType', `the fake takes ${accepted.join(', ')}, not ${type || 'none'}`);
    if (!isObject(r.body)) throw new HttpError(400, 'BadRequest', 'the patch body is not a JSON object');
    return r.body;
  }

  private checkVersion(p: Parsed, name: string, current: Json, wanted: unknown, required: boolean): void {
    if (wanted === undefined || wanted === '') {
      if (required) throw new HttpError(422, 'Invalid', `${p.type.kind} "${name}" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update`, { name, kind: p.type.kind, causes: [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion' }] });
      return;
    }
    if (wanted !== meta(current).resourceVersion) {
      throw new HttpError(409, 'Conflict', `Operation cannot be fulfilled on ${this.resource(p)} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, group: p.type.group, kind: p.plural });
    }
  }

  /** Writes with a new resourceVersion; an object marked for deletion whose finalizers are gone is removed. */
  private store(p: Parsed, obj: Json): Json {
    const m = meta(obj);
    const stored = { ...obj, metadata: { ...m, resourceVersion: this.nextVersion() } };
    if (m.deletionTimestamp && ((m.finalizers ?? []) as string[]).length === 0) {
      this.destroy(p, stored, 'Background');
      return clone(stored);
    }
    const existed = this.items.has(this.key(p, m.namespace as string, m.name as string));
    this.items.set(this.key(p, m.namespace as string, m.name as string), stored);
    this.watch.record(existed ? 'MODIFIED' : 'ADDED', `${p.type.prefix}/${p.plural}`, stored);
    return clone(stored);
  }

  private current(p: Parsed, ns: string, name: string): Json {
    const found = this.items.get(this.key(p, ns, name));
    if (!found) throw this.notFound(p, name);
    return found;
  }

  private notFound(p: Parsed, name: string): HttpError {
    return new HttpError(404, 'NotFound', `${this.resource(p)} "${name}" not found`, { name, group: p.type.group, kind: p.plural });
  }

  private resource(p: Parsed): string {
    return p.type.group ? `${p.plural}.${p.type.group}` : p.plural;
  }

  private ofType(plural: string, namespace: string | undefined): Json[] {
    const type = TYPES[plural]!;
    const prefix = `${type.prefix}/namespaces/`;
    return [...this.items.entries()]
      .filter(([key]) => key.startsWith(prefix) && key.split('/').at(-2) === plural && (namespace === undefined || meta(this.items.get(key)!).namespace === namespace))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, o]) => o);
  }

  private mustGet(plural: FakePlural, namespace: string, name: string): Json {
    const found = this.get(this.path(plural, namespace, name));
    if (!found) throw new Error(`fake.objects: no ${plural} ${namespace}/${name}`);
    return found;
  }

  private must(path: string): Parsed {
    const p = parse(path);
    if (!p || p.status) throw new Error(`fake.objects: ${path} is not a path of a kind the fake stores`);
    return p;
  }

  private key(p: Parsed, namespace: string, name: string): string {
    return `${p.type.prefix}/namespaces/${namespace}/${p.plural}/${name}`;
  }

  private nextVersion(): string {
    this.version += 1;
    return String(this.version);
  }
}
