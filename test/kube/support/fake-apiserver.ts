/**
 * A fake Kubernetes API server on 127.0.0.1 (node:http) for testing the kubernetes adapter at the
 * HTTP level. It serves Regent's custom resources from an embedded store (so it has real semantics:
 * versions, preconditions, watch history with 410), plus Leases, core/v1 Events and core/v1 Secrets
 * in memory (Secrets with the API server's semantics: resourceVersion, 409 on a stale replace, 404,
 * base64 data, name/key/size validation as 422, label selectors), and it records every request so tests can assert the exact paths, query parameters, content types and
 * bodies. Built-in and foreign kinds (batch/v1 jobs and cronjobs, core/v1 pods and configmaps, apps/v1
 * deployments, k8s.mariadb.com/v1alpha1 mariadbs, databases, users, grants, external-secrets.io/v1beta1
 * secretstores) live in a generic in-memory
 * store, `fake.objects` (./fake-objects.ts: its header documents the semantics and the test hooks, e.g.
 * `fake.objects.put(fake.objects.path('jobs', ns), job)`, `completeJob`, `failJob`, `addJobPod`,
 * `addCronJobRun`, and `deletions` with the propagation policy of every DELETE). The cluster-scoped v1 Nodes and
 * kvm.cloud.sap/v1 Hypervisors live in `fake.cluster` (./fake-cluster-objects.ts: metadata-only reads by the Accept
 * header, merge patches, uninstall). A request it does not recognise is answered 404 and recorded in `unexpected`: tests check
 * that list is empty, so a fake never silently accepts a wrong call.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../../src/kube/embedded/store.js';
import { Gone, ResourceError, Invalid, Conflict, AlreadyExists, NotFound, BadRequest } from '../../../src/kube/errors.js';
import { KINDS, type KindName, type InputOf } from '../../../src/resources/index.js';
import { applyMergePatch } from '../../../src/kube/merge-patch.js';
import { matchesSelector, parseLabelSelector, secretErrors } from '../../../src/kube/secrets.js';
import { FakeObjects } from './fake-objects.js';
import { FakeClusterObjects } from './fake-cluster-objects.js';

export { FakeObjects, type FakeDeletion, type FakePlural } from './fake-objects.js';
export { FakeClusterObjects, type FakeClusterPlural } from './fake-cluster-objects.js';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly contentType?: string;
  readonly body?: unknown;
}

interface Fault {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly reason: string;
  readonly message?: string;
}

type Json = Record<string, unknown>;

const statusBody = (code: number, reason: string, message: string, details: Json = {}): Json => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code });

const errorStatus = (error: unknown): { code: number; body: Json } => {
  if (error instanceof Invalid) return { code: 422, body: statusBody(422, 'Invalid', error.message, { causes: error.causes.map((c) => ({ reason: 'FieldValueInvalid', field: c.path, message: c.message })) }) };
  if (error instanceof AlreadyExists) return { code: 409, body: statusBody(409, 'AlreadyExists', error.message) };
  if (error instanceof Conflict) return { code: 409, body: statusBody(409, 'Conflict', error.message) };
  if (error instanceof NotFound) return { code: 404, body: statusBody(404, 'NotFound', error.message) };
  if (error instanceof Gone) return { code: 410, body: statusBody(410, 'Expired', error.message) };
  if (error instanceof BadRequest) return { code: 400, body: statusBody(400, 'BadRequest', error.message) };
  if (error instanceof ResourceError) return { code: error.code, body: statusBody(error.code, 'InternalError', error.message) };
  return { code: 500, body: statusBody(500, 'InternalError', String(error)) };
};

export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  readonly unexpected: RecordedRequest[] = [];
  private readonly faults: Fault[] = [];
  private readonly leases = new Map<string, Json>();
  private readonly events = new Map<string, Json>();
  /** core/v1 Secrets by `<namespace>/<name>`, as stored (data base64). */
  readonly secrets = new Map<string, Json>();
  /** Jobs, CronJobs, Pods, ConfigMaps, Deployments and the mariadb-operator kinds (./fake-objects.ts). */
  readonly objects = new FakeObjects();
  /** The cluster-scoped Nodes and Hypervisors (./fake-cluster-objects.ts). */
  readonly cluster = new FakeClusterObjects();
  private secretVersion = 5000;
  private readonly openWatches = new Map<ServerResponse, { close(): Promise<void> }>();
  private leaseVersion = 1000;

  private constructor(
    private readonly server: Server,
    readonly store: EmbeddedResourceSource,
    private readonly dir: string,
  ) {
    // Secrets are watched like the generic store's kinds, once a test enables it (fake.objects.watch.enable())
    this.objects.watch.register('/api/v1/secrets');
  }

  static async start(options: { changeLogLimit?: number } = {}): Promise<FakeApiServer> {
    const dir = mkdtempSync(join(tmpdir(), 'regent-fake-apiserver-'));
    const store = openEmbeddedSource({ path: join(dir, 'etcd.db'), changeLogLimit: options.changeLogLimit ?? 1000, pollIntervalMs: 20 });
    const server = createServer();
    const fake = new FakeApiServer(server, store, dir);
    server.on('request', (req, res) => void fake.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'tester', token: 'fake-token' }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'tester', namespace: 'default' }],
      currentContext: 'fake',
    });
    return kc;
  }

  /** A kubeconfig YAML for child processes. */
  kubeConfigYaml(): string {
    return this.kubeConfig().exportConfig();
  }

  /**
   * The next request matching method and path gets this status instead of being served, with
   * `message` as the Status message (default `injected <status>`: e.g. what an admission webhook says).
   */
  failNext(method: string, path: string, status: number, reason: string, message?: string): void {
    this.faults.push({ method, path, status, reason, ...(message === undefined ? {} : { message }) });
  }

  /** Ends every open watch stream, as the API server does when a watch times out. */
  endWatches(): void {
    for (const [res, handle] of this.openWatches) {
      void handle.close();
      res.end();
    }
    this.openWatches.clear();
    this.objects.watch.endAll();
  }

  /** Requests other than the ones matching `ignore` (e.g. watch polling). */
  requestsMatching(filter: (r: RecordedRequest) => boolean): RecordedRequest[] {
    return this.requests.filter(filter);
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    this.endWatches();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      ...(req.headers['content-type'] ? { contentType: req.headers['content-type'] } : {}),
      ...(body === undefined ? {} : { body }),
    };
    this.requests.push(request);
    const send = (code: number, payload: unknown, headers: Record<string, string> = {}): void => {
      res.writeHead(code, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(payload));
    };
    const faultIndex = this.faults.findIndex((f) => f.method === request.method && f.path === request.path);
    if (faultIndex >= 0) {
      const [fault] = this.faults.splice(faultIndex, 1);
      return send(fault!.status, statusBody(fault!.status, fault!.reason, fault!.message ?? `injected ${fault!.status}`));
    }
    try {
      const served = (await this.serveCustom(request, res, send)) || this.serveLease(request, send) || this.serveEvent(request, send) || this.objects.watch.serve(request, res) || this.serveSecret(request, send) || this.objects.serve(request, send) || this.cluster.serve(request, req.headers.accept, send);
      if (!served) {
        this.unexpected.push(request);
        send(404, statusBody(404, 'NotFound', `the fake API server does not serve ${request.method} ${request.path}`));
      }
    } catch (error) {
      const { code, body: status } = errorStatus(error);
      send(code, status);
    }
  }

  private async serveCustom(r: RecordedRequest, res: ServerResponse, send: (code: number, payload: unknown, headers?: Record<string, string>) => void): Promise<boolean> {
    const m = /^\/apis\/regent\.dev\/v1alpha1\/(?:namespaces\/([^/]+)\/)?([a-z]+)(?:\/([^/]+))?(\/status)?$/.exec(r.path);
    if (!m) return false;
    const [, namespace, plural, name, status] = m;
    const definition = KINDS.find((k) => k.plural === plural);
    if (!definition) return false;
    const kind = definition.kind as KindName;
    const store = this.store;
    if (name === undefined) {
      if (r.method === 'GET' && r.query.watch === 'true') {
        this.streamWatch(kind, namespace, r.query.resourceVersion, res);
        return true;
      }
      if (r.method === 'GET') {
        const list = await store.list(kind, namespace);
        send(200, { apiVersion: 'regent.dev/v1alpha1', kind: definition.listKind, metadata: { resourceVersion: list.resourceVersion }, items: list.items });
        return true;
      }
      if (r.method === 'POST' && namespace !== undefined) {
        const input = r.body as InputOf<KindName>;
        const validation = definition.validate(input);
        const created = await store.create(input);
        const warnings = validation.ok ? validation.warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(', ') : '';
        send(201, created, warnings ? { warning: warnings } : {});
        return true;
      }
      return false;
    }
    if (namespace === undefined) return false;
    if (status !== undefined) {
      if (r.method !== 'PATCH') return false;
      if (r.contentType !== 'application/merge-patch+json') {
        send(415, statusBody(415, 'UnsupportedMediaType', `the fake only takes merge patches on status, not ${r.contentType ?? 'none'}`));
        return true;
      }
      const patch = (r.body ?? {}) as { metadata?: { resourceVersion?: string }; status?: Json };
      const extra = Object.keys(patch).filter((k) => k !== 'metadata' && k !== 'status');
      if (extra.length > 0) throw new BadRequest(`unexpected fields in a status patch: ${extra.join(', ')}`);
      send(200, await store.patchStatus(kind, namespace, name, (patch.status ?? {}) as never, { resourceVersion: patch.metadata?.resourceVersion }));
      return true;
    }
    switch (r.method) {
      case 'GET': {
        const object = await store.get(kind, namespace, name);
        if (!object) throw new NotFound(kind, namespace, name);
        send(200, object);
        return true;
      }
      case 'PUT': {
        const input = r.body as InputOf<KindName>;
        if (!input.metadata.resourceVersion) {
          const message = 'metadata.resourceVersion: Invalid value: 0x0: must be specified for an update';
          throw new Invalid(message, [{ path: 'metadata.resourceVersion', message }]);
        }
        send(200, await store.update(input));
        return true;
      }
      case 'PATCH': {
        if (r.contentType !== 'application/merge-patch+json') throw new BadRequest(`the fake only takes merge patches, not ${r.contentType ?? 'none'}`);
        const patch = r.body as { metadata?: { finalizers?: string[]; resourceVersion?: string } };
        const keys = [...Object.keys(patch), ...Object.keys(patch.metadata ?? {}).map((k) => `metadata.${k}`)];
        if (keys.some((k) => !['metadata', 'metadata.finalizers', 'metadata.resourceVersion'].includes(k))) throw new BadRequest(`the fake patches only metadata.finalizers, got ${keys.join(', ')}`);
        const current = await store.get(kind, namespace, name);
        if (!current) throw new NotFound(kind, namespace, name);
        const next = applyMergePatch(current, patch) as InputOf<KindName>;
        send(200, await store.update({ ...next, metadata: { ...next.metadata, resourceVersion: patch.metadata?.resourceVersion ?? current.metadata.resourceVersion } }));
        return true;
      }
      case 'DELETE': {
        const options = (r.body ?? {}) as { preconditions?: { resourceVersion?: string } };
        const result = await store.delete(kind, namespace, name, { resourceVersion: options.preconditions?.resourceVersion });
        send(200, result.object);
        return true;
      }
      default:
        return false;
    }
  }

  private streamWatch(kind: KindName, namespace: string | undefined, resourceVersion: string | undefined, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    const handle = this.store.watch(kind, { namespace, resourceVersion: resourceVersion || '0' }, (event) => {
      if (!res.writableEnded) res.write(`${JSON.stringify(event)}\n`);
    });
    this.openWatches.set(res, handle);
    res.on('close', () => {
      this.openWatches.delete(res);
      void handle.close();
    });
    handle.done.then(
      () => res.end(),
      (error: unknown) => {
        if (error instanceof Gone && !res.writableEnded) res.write(`${JSON.stringify({ type: 'ERROR', object: statusBody(410, 'Expired', `too old resource version: ${resourceVersion ?? ''}`) })}\n`);
        res.end();
      },
    );
  }

  private serveLease(r: RecordedRequest, send: (code: number, payload: unknown) => void): boolean {
    const m = /^\/apis\/coordination\.k8s\.io\/v1\/namespaces\/([^/]+)\/leases(?:\/([^/]+))?$/.exec(r.path);
    if (!m) return false;
    const [, namespace, name] = m;
    const key = (n: string): string => `${namespace}/${n}`;
    const stamp = (lease: Json): Json => {
      this.leaseVersion += 1;
      const stored = { ...lease, metadata: { ...(lease.metadata as Json), namespace, resourceVersion: String(this.leaseVersion) } };
      this.leases.set(key((stored.metadata as Json).name as string), stored);
      return stored;
    };
    if (name === undefined && r.method === 'POST') {
      const lease = r.body as Json;
      const leaseName = (lease.metadata as Json).name as string;
      if (this.leases.has(key(leaseName))) send(409, statusBody(409, 'AlreadyExists', `leases "${leaseName}" already exists`));
      else send(201, stamp(lease));
      return true;
    }
    if (name === undefined) return false;
    const current = this.leases.get(key(name));
    if (r.method === 'GET') {
      if (current) send(200, current);
      else send(404, statusBody(404, 'NotFound', `leases "${name}" not found`));
      return true;
    }
    if (r.method === 'PUT') {
      const lease = r.body as Json;
      const wanted = (lease.metadata as Json | undefined)?.resourceVersion;
      if (!current) send(404, statusBody(404, 'NotFound', `leases "${name}" not found`));
      else if (wanted !== (current.metadata as Json).resourceVersion) send(409, statusBody(409, 'Conflict', `Operation cannot be fulfilled on leases "${name}": the object has been modified`));
      else send(200, stamp(lease));
      return true;
    }
    return false;
  }

  private serveEvent(r: RecordedRequest, send: (code: number, payload: unknown) => void): boolean {
    const m = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?events(?:\/([^/]+))?$/.exec(r.path);
    if (!m) return false;
    const [, namespace, name] = m;
    if (r.method === 'POST' && namespace && !name) {
      const event = r.body as Json;
      this.events.set(`${namespace}/${(event.metadata as Json).name as string}`, event);
      send(201, event);
      return true;
    }
    if (r.method === 'PATCH' && namespace && name) {
      const current = this.events.get(`${namespace}/${name}`);
      if (!current) send(404, statusBody(404, 'NotFound', `events "${name}" not found`));
      else {
        const patched = applyMergePatch(current, r.body) as Json;
        this.events.set(`${namespace}/${name}`, patched);
        send(200, patched);
      }
      return true;
    }
    if (r.method === 'GET' && !name) {
      const selectors = Object.fromEntries((r.query.fieldSelector ?? '').split(',').filter(Boolean).map((s) => s.split('=') as [string, string]));
      const items = [...this.events.values()].filter((e) => {
        const involved = e.involvedObject as Json;
        const meta = e.metadata as Json;
        return (!namespace || meta.namespace === namespace) && Object.entries(selectors).every(([field, value]) => involved[field.replace('involvedObject.', '')] === value);
      });
      send(200, { apiVersion: 'v1', kind: 'EventList', metadata: { resourceVersion: '1' }, items });
      return true;
    }
    return false;
  }

  /** core/v1 Secrets: GET/POST on the collection (a labelSelector on lists), GET/PUT/DELETE on one. */
  private serveSecret(r: RecordedRequest, send: (code: number, payload: unknown) => void): boolean {
    const m = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?secrets(?:\/([^/]+))?$/.exec(r.path);
    if (!m) return false;
    const [, namespace, name] = m;
    const notFound = (n: string) => send(404, statusBody(404, 'NotFound', `secrets "${n}" not found`, { name: n, kind: 'secrets' }));
    const invalid = (n: string, causes: Array<{ field: string; message: string }>) =>
      send(422, statusBody(422, 'Invalid', `Secret "${n}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(', ')}`, { name: n, kind: 'Secret', causes: causes.map((c) => ({ reason: 'FieldValueInvalid', ...c })) }));
    /** What the API server checks: names, keys, base64, size (stringData merged into data first). */
    const validate = (body: Json, ns: string): { stored?: Json; causes: Array<{ field: string; message: string }> } => {
      const metadata = (body.metadata ?? {}) as Json;
      const secretName = String(metadata.name ?? '');
      const data: Record<string, string> = { ...((body.data ?? {}) as Record<string, string>) };
      for (const [key, value] of Object.entries((body.stringData ?? {}) as Record<string, string>)) data[key] = Buffer.from(value, 'utf8').toString('base64');
      const causes: Array<{ field: string; message: string }> = [];
      let size = 0;
      for (const [key, value] of Object.entries(data)) {
        if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value) || value.length % 4 !== 0) causes.push({ field: `data[${key}]`, message: 'illegal base64 data' });
        else size += Buffer.byteLength(key) + Buffer.from(value, 'base64').length;
      }
      // Names, keys and labels by the same rules (values left out: the size is counted in bytes here).
      const keysOnly = Object.fromEntries(Object.keys(data).map((k) => [k, '']));
      for (const e of secretErrors(ns, secretName, keysOnly, (metadata.labels ?? {}) as Record<string, string>)) causes.push({ field: e.path, message: e.message });
      if (size > 1024 * 1024) causes.push({ field: 'data', message: 'Too long: must have at most 1048576 bytes' });
      if (causes.length > 0) return { causes };
      const { stringData: _merged, ...rest } = body;
      return { stored: { ...rest, type: body.type ?? 'Opaque', data }, causes };
    };
    const stamp = (secret: Json, ns: string, previous?: Json): Json => {
      this.secretVersion += 1;
      const metadata = secret.metadata as Json;
      const stored = {
        ...secret,
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          ...metadata,
          namespace: ns,
          uid: (previous?.metadata as Json | undefined)?.uid ?? `uid-${this.secretVersion}`,
          creationTimestamp: (previous?.metadata as Json | undefined)?.creationTimestamp ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
          resourceVersion: String(this.secretVersion),
        },
      };
      this.secrets.set(`${ns}/${String(metadata.name)}`, stored);
      this.objects.watch.record(previous ? 'MODIFIED' : 'ADDED', '/api/v1/secrets', stored);
      return stored;
    };
    if (name === undefined) {
      if (r.method === 'GET') {
        let requirements;
        try {
          requirements = parseLabelSelector(r.query.labelSelector);
        } catch (error) {
          send(400, statusBody(400, 'BadRequest', (error as Error).message));
          return true;
        }
        const items = [...this.secrets.values()]
          .filter((s) => (namespace === undefined || (s.metadata as Json).namespace === namespace) && matchesSelector(((s.metadata as Json).labels ?? {}) as Record<string, string>, requirements))
          .sort((a, b) => (`${String((a.metadata as Json).namespace)}/${String((a.metadata as Json).name)}` < `${String((b.metadata as Json).namespace)}/${String((b.metadata as Json).name)}` ? -1 : 1));
        send(200, { apiVersion: 'v1', kind: 'SecretList', metadata: { resourceVersion: String(this.secretVersion) }, items });
        return true;
      }
      if (r.method === 'POST' && namespace !== undefined) {
        const body = (r.body ?? {}) as Json;
        const secretName = String((body.metadata as Json | undefined)?.name ?? '');
        const { stored, causes } = validate(body, namespace);
        if (!stored) invalid(secretName, causes);
        else if (this.secrets.has(`${namespace}/${secretName}`)) send(409, statusBody(409, 'AlreadyExists', `secrets "${secretName}" already exists`, { name: secretName, kind: 'secrets' }));
        else send(201, stamp(stored, namespace));
        return true;
      }
      return false;
    }
    if (namespace === undefined) return false;
    const current = this.secrets.get(`${namespace}/${name}`);
    switch (r.method) {
      case 'GET':
        if (current) send(200, current);
        else notFound(name);
        return true;
      case 'PUT': {
        const body = (r.body ?? {}) as Json;
        const wanted = (body.metadata as Json | undefined)?.resourceVersion;
        if (!current) notFound(name);
        else if (!wanted) invalid(name, [{ field: 'metadata.resourceVersion', message: 'Invalid value: 0x0: must be specified for an update' }]);
        else if (wanted !== (current.metadata as Json).resourceVersion) send(409, statusBody(409, 'Conflict', `Operation cannot be fulfilled on secrets "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, kind: 'secrets' }));
        else if ((body.type ?? 'Opaque') !== current.type) invalid(name, [{ field: 'type', message: 'Invalid value: field is immutable' }]);
        else {
          const { stored, causes } = validate(body, namespace);
          if (!stored) invalid(name, causes);
          else send(200, stamp(stored, namespace, current));
        }
        return true;
      }
      case 'DELETE':
        if (!current) notFound(name);
        else {
          this.secrets.delete(`${namespace}/${name}`);
          this.secretVersion += 1;
          this.objects.watch.record('DELETED', '/api/v1/secrets', { ...current, metadata: { ...(current.metadata as Json), resourceVersion: String(this.secretVersion) } });
          send(200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: 'secrets', uid: (current.metadata as Json).uid } });
        }
        return true;
      default:
        return false;
    }
  }
}
