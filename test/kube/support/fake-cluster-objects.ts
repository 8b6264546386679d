/**
 * The fake API server's cluster-scoped kinds (FakeApiServer serves them after ./fake-objects.ts, which holds
 * namespaced kinds only):
 *
 *   v1 (core)        nodes
 *   kvm.cloud.sap/v1 hypervisors (a CRD: the group can be switched off, see uninstall)
 *
 * With the API server's semantics where an adapter can tell:
 * - GET one (404 NotFound `<resource> "<name>" not found`, details.name set); LIST with `labelSelector`
 *   (src/kube/secrets.ts's parser: a bad selector is 400). A read whose Accept header asks for
 *   `as=PartialObjectMetadataList` (a list) or `as=PartialObjectMetadata` (one) is answered in that form: metadata
 *   only, kind PartialObjectMetadata[List] of meta.k8s.io/v1, as the API server does.
 * - PATCH: `application/merge-patch+json` only (anything else 415); a `metadata.resourceVersion` is a precondition.
 * - Discovery: GET `/apis/kvm.cloud.sap/v1` lists `hypervisors` (and its `/status`), cluster-scoped.
 * - No create, replace or delete: Regent only reads Nodes and patches Hypervisors; anything else is not served
 *   (404, `unexpected`).
 *
 * Hook API (`fake.cluster`):
 *   fake.cluster.put('nodes' | 'hypervisors', obj)   seeds or overwrites (uid, creationTimestamp, a resourceVersion)
 *   fake.cluster.get(plural, name)                    a copy, or undefined
 *   fake.cluster.uninstall('kvm.cloud.sap/v1')        the cluster lacks the CRD: discovery and every request under
 *                                                    it answer 404 "the server could not find the requested resource"
 *   fake.cluster.accepts                              the Accept header of every request it served, with its path
 */
import { randomUUID } from 'node:crypto';
import { applyMergePatch } from '../../../src/kube/merge-patch.js';
import { matchesSelector, parseLabelSelector } from '../../../src/kube/secrets.js';

type Json = Record<string, unknown>;
type Send = (code: number, payload: unknown) => void;

export type FakeClusterPlural = 'nodes' | 'hypervisors';

interface ClusterType {
  readonly prefix: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly group: string;
  readonly groupVersion: string;
}

const TYPES: Readonly<Record<FakeClusterPlural, ClusterType>> = {
  nodes: { prefix: '/api/v1', apiVersion: 'v1', kind: 'Node', group: '', groupVersion: 'v1' },
  hypervisors: { prefix: '/apis/kvm.cloud.sap/v1', apiVersion: 'kvm.cloud.sap/v1', kind: 'Hypervisor', group: 'kvm.cloud.sap', groupVersion: 'kvm.cloud.sap/v1' },
};

export interface FakeClusterRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly contentType?: string;
  readonly body?: unknown;
}

const statusBody = (code: number, reason: string, message: string, details: Json = {}): Json => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code });
const meta = (o: Json): Json => (o.metadata ?? {}) as Json;
const clone = <T>(v: T): T => structuredClone(v);
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export class FakeClusterObjects {
  readonly accepts: Array<{ path: string; accept: string | undefined }> = [];
  private readonly items = new Map<string, Json>();
  private readonly uninstalled = new Set<string>();
  private version = 7000;

  put(plural: FakeClusterPlural, obj: Json): Json {
    const type = TYPES[plural];
    const m = meta(obj);
    const name = m.name as string | undefined;
    if (!name) throw new Error(`fake.cluster.put(${plural}): no name`);
    const previous = this.items.get(`${plural}/${name}`);
    this.version += 1;
    const stored: Json = {
      ...clone(obj),
      apiVersion: type.apiVersion,
      kind: type.kind,
      metadata: { ...clone(m), name, uid: m.uid ?? (previous ? meta(previous).uid : randomUUID()), creationTimestamp: m.creationTimestamp ?? '2024-01-01T00:00:00Z', resourceVersion: String(this.version) },
    };
    this.items.set(`${plural}/${name}`, stored);
    return clone(stored);
  }

  get(plural: FakeClusterPlural, name: string): Json | undefined {
    const found = this.items.get(`${plural}/${name}`);
    return found ? clone(found) : undefined;
  }

  uninstall(groupVersion: string): void {
    this.uninstalled.add(groupVersion);
  }

  /** Serves the request when it is one of the kinds above; false when it is not ours. */
  serve(r: FakeClusterRequest, accept: string | undefined, send: Send): boolean {
    const discovery = /^\/apis\/([^/]+\/[^/]+)\/?$/.exec(r.path)?.[1];
    const plurals = (Object.entries(TYPES) as Array<[FakeClusterPlural, ClusterType]>).filter(([, t]) => t.groupVersion !== 'v1');
    if (discovery !== undefined) {
      const served = plurals.filter(([, t]) => t.groupVersion === discovery);
      if (served.length === 0 || r.method !== 'GET') return false;
      if (this.uninstalled.has(discovery)) return this.notServed(send);
      send(200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: discovery,
        resources: served.flatMap(([plural, t]) => [
          { name: plural, singularName: t.kind.toLowerCase(), namespaced: false, kind: t.kind, verbs: ['get', 'list', 'patch', 'update', 'watch'] },
          { name: `${plural}/status`, singularName: '', namespaced: false, kind: t.kind, verbs: ['get', 'patch', 'update'] },
        ]),
      });
      return true;
    }
    for (const [, t] of plurals) if (r.path.startsWith(`${t.prefix}/`) && this.uninstalled.has(t.groupVersion)) return this.notServed(send);
    const m = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)\/([a-z]+)(?:\/([^/]+))?$/.exec(r.path);
    if (!m) return false;
    const [, prefix, plural, name] = m;
    const type = TYPES[plural as FakeClusterPlural] as ClusterType | undefined;
    if (type === undefined || type.prefix !== prefix) return false;
    this.accepts.push({ path: r.path, accept });
    const partial = (accept ?? '').includes('as=PartialObjectMetadata');
    const asPartial = (o: Json): Json => ({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: clone(meta(o)) });
    if (name === undefined) {
      if (r.method !== 'GET' || r.query.watch === 'true') return false;
      let requirements;
      try {
        requirements = parseLabelSelector(r.query.labelSelector);
      } catch (error) {
        send(400, statusBody(400, 'BadRequest', (error as Error).message));
        return true;
      }
      const items = [...this.items.entries()]
        .filter(([key]) => key.startsWith(`${plural}/`))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([, o]) => o)
        .filter((o) => matchesSelector((meta(o).labels ?? {}) as Record<string, string>, requirements));
      send(
        200,
        partial
          ? { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadataList', metadata: { resourceVersion: String(this.version) }, items: items.map(asPartial) }
          : { apiVersion: type.apiVersion, kind: `${type.kind}List`, metadata: { resourceVersion: String(this.version) }, items: items.map(clone) },
      );
      return true;
    }
    const current = this.items.get(`${plural}/${name}`);
    const resource = type.group ? `${plural}.${type.group}` : plural;
    if (r.method !== 'GET' && r.method !== 'PATCH') return false;
    if (!current) {
      send(404, statusBody(404, 'NotFound', `${resource} "${name}" not found`, { name, group: type.group, kind: plural }));
      return true;
    }
    if (r.method === 'GET') {
      send(200, partial ? asPartial(current) : clone(current));
      return true;
    }
    if ((r.contentType ?? '').split(';')[0]!.trim() !== 'application/merge-patch+json') {
      send(415, statusBody(415, 'UnsupportedMediaType', `the fake takes merge patches on ${resource}, not ${r.contentType ?? 'none'}`));
      return true;
    }
    if (!isObject(r.body)) {
      send(400, statusBody(400, 'BadRequest', 'the patch body is not a JSON object'));
      return true;
    }
    const wanted = meta(r.body).resourceVersion;
    if (wanted !== undefined && wanted !== meta(current).resourceVersion) {
      send(409, statusBody(409, 'Conflict', `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`, { name, group: type.group, kind: plural }));
      return true;
    }
    const next = applyMergePatch(current, r.body) as Json;
    this.version += 1;
    const stored = { ...next, metadata: { ...meta(next), name, uid: meta(current).uid, resourceVersion: String(this.version) } };
    this.items.set(`${plural}/${name}`, stored);
    send(200, clone(stored));
    return true;
  }

  private notServed(send: Send): boolean {
    send(404, statusBody(404, 'NotFound', 'the server could not find the requested resource'));
    return true;
  }
}
