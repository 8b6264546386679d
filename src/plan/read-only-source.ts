/**
 * The resource source a plan's passes read: the real one (embedded store or Kubernetes) underneath, the desired
 * objects of the manifests on top, and every write a pass would make (a finalizer, a status, a Kubernetes event, a
 * Secret) recorded instead of written. A recorded finalizer, status or applied change is kept in the overlay, so the
 * plan's next pass sees what the real one would have; a write the store would not make (an apply that changes
 * nothing) is not recorded; the source underneath is only ever read.
 */
import type { ApplyResult, DeleteResult, EventType, ObjectList, RecordedEvent, ResourceSource, WatchHandle } from '../kube/port.js';
import type { SecretPutResult, SecretStore, StoredSecret } from '../kube/secrets.js';
import type { MergePatch } from '../kube/merge-patch.js';
import { applyMergePatch } from '../kube/merge-patch.js';
import { definitionOf, storedNamespace } from '../kube/kinds.js';
import { Invalid } from '../kube/errors.js';
import { sameObject, updated, withFinalizers, withStatus } from '../kube/mutations.js';
import type { InputOf, KindName, ObjectOf, StatusOf } from '../resources/index.js';

/** A write a pass would have made, recorded instead (secret values never: their keys only). */
export interface RecordedWrite {
  op: 'create' | 'apply' | 'update' | 'patchStatus' | 'addFinalizer' | 'removeFinalizer' | 'delete' | 'recordEvent' | 'putSecret' | 'deleteSecret';
  kind: string;
  namespace: string;
  name: string;
  /** The finalizer, the event's type/reason/message, the status patch's keys, a Secret's keys. */
  detail?: string;
}

const keyOf = (kind: KindName, namespace: string, name: string): string => `${kind}/${storedNamespace(kind, namespace)}/${name}`;

export class ReadOnlySource implements ResourceSource {
  readonly description: string;
  readonly secrets: SecretStore;
  /** Every write a pass tried, in order. */
  readonly writes: RecordedWrite[] = [];
  private readonly overlay = new Map<string, ObjectOf<KindName>>();
  private readonly secretOverlay = new Map<string, StoredSecret | null>();

  constructor(private readonly base: ResourceSource) {
    this.description = `${base.description} (read-only, for a plan)`;
    this.secrets = {
      get: async (namespace, name) => {
        const key = `${namespace}/${name}`;
        if (this.secretOverlay.has(key)) return this.secretOverlay.get(key) ?? undefined;
        return base.secrets.get(namespace, name);
      },
      put: async (namespace, name, data): Promise<SecretPutResult> => {
        const existing = await this.secrets.get(namespace, name);
        this.writes.push({ op: 'putSecret', kind: 'Secret', namespace, name, detail: `keys ${Object.keys(data).sort().join(', ')}` });
        this.secretOverlay.set(`${namespace}/${name}`, { data: { ...data }, version: `plan-${this.writes.length}`, labels: existing?.labels ?? {} });
        return { version: `plan-${this.writes.length}`, created: existing === undefined };
      },
      delete: async (namespace, name) => {
        const existed = (await this.secrets.get(namespace, name)) !== undefined;
        this.writes.push({ op: 'deleteSecret', kind: 'Secret', namespace, name });
        this.secretOverlay.set(`${namespace}/${name}`, null);
        return existed;
      },
      // no pass lists Secrets (Regent knows its Secrets by name; RBAC grants no list): a plan never lists them either
      list: async () => {
        throw new Error('a plan never lists Secrets: Regent reads its Secrets by name');
      },
    };
  }

  /** Puts an object the plan assumes (a manifest's desired object) in front of the stored one. */
  assume(object: ObjectOf<KindName>): void {
    const kind = object.kind as KindName;
    this.overlay.set(keyOf(kind, object.metadata.namespace ?? 'default', object.metadata.name), object);
  }

  /** Puts a Secret the plan assumes (a manifest's v1 Secret document) in front of the stored one. */
  assumeSecret(namespace: string, name: string, data: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>> = {}): void {
    this.secretOverlay.set(`${namespace}/${name}`, { data: { ...data }, version: `plan-assumed-${namespace}-${name}`, labels: { ...labels } });
  }

  async get<K extends KindName>(kind: K, namespace: string, name: string): Promise<ObjectOf<K> | undefined> {
    const assumed = this.overlay.get(keyOf(kind, namespace, name));
    if (assumed) return assumed as ObjectOf<K>;
    return this.base.get(kind, namespace, name);
  }

  async list<K extends KindName>(kind: K, namespace?: string): Promise<ObjectList<K>> {
    const listed = await this.base.list(kind, namespace);
    const items = listed.items.map((o) => (this.overlay.get(keyOf(kind, o.metadata.namespace ?? 'default', o.metadata.name)) as ObjectOf<K> | undefined) ?? o);
    const seen = new Set(items.map((o) => keyOf(kind, o.metadata.namespace ?? 'default', o.metadata.name)));
    for (const [key, object] of this.overlay) {
      if (object.kind !== kind || seen.has(key)) continue;
      if (namespace !== undefined && storedNamespace(kind, namespace) !== (object.metadata.namespace ?? 'default')) continue;
      items.push(object as ObjectOf<K>);
    }
    return { items, resourceVersion: listed.resourceVersion };
  }

  watch(): WatchHandle {
    throw new Error('a plan does not watch the resource source');
  }

  private record(write: RecordedWrite): void {
    this.writes.push(write);
  }

  private async current<K extends KindName>(kind: K, namespace: string, name: string): Promise<ObjectOf<K>> {
    const object = await this.get(kind, namespace, name);
    if (!object) throw new Error(`${kind} ${namespace}/${name} does not exist (in the plan)`);
    return object;
  }

  async create<K extends KindName>(object: InputOf<K>): Promise<ObjectOf<K>> {
    const meta = object.metadata as { namespace?: string; name: string };
    this.record({ op: 'create', kind: object.kind, namespace: meta.namespace ?? 'default', name: meta.name });
    return object as unknown as ObjectOf<K>;
  }

  /**
   * Recorded only when the store would write: an apply that leaves the object as it is (the same spec, labels,
   * annotations and fields such as a ConfigMap's data, as the store's own no-op check compares them) is no write. A
   * change is kept in the overlay, so the next pass reads the applied object.
   */
  async apply<K extends KindName>(object: InputOf<K>): Promise<ApplyResult<K>> {
    const meta = object.metadata as { namespace?: string; name: string };
    const namespace = meta.namespace ?? 'default';
    const existing = await this.get(object.kind as K, namespace, meta.name);
    if (existing) {
      // as the store applies it: validated (defaults filled in) against the object it changes
      const checked = definitionOf(object.kind).validate({ ...(object as object), status: undefined }, existing as unknown as Parameters<typeof updated>[1]);
      if (!checked.ok) throw new Invalid(checked.message, checked.errors);
      const next = updated(existing, checked.value as unknown as Parameters<typeof updated>[1], 'apply');
      if (sameObject(next, existing)) return { object: existing, action: 'unchanged', warnings: [] };
      this.record({ op: 'apply', kind: object.kind, namespace, name: meta.name });
      this.assume(next);
      return { object: next, action: 'configured', warnings: [] };
    }
    this.record({ op: 'apply', kind: object.kind, namespace, name: meta.name });
    return { object: object as unknown as ObjectOf<K>, action: 'created', warnings: [] };
  }

  async update<K extends KindName>(object: InputOf<K>): Promise<ObjectOf<K>> {
    const meta = object.metadata as { namespace?: string; name: string };
    this.record({ op: 'update', kind: object.kind, namespace: meta.namespace ?? 'default', name: meta.name });
    return (await this.get(object.kind as K, meta.namespace ?? 'default', meta.name)) ?? (object as unknown as ObjectOf<K>);
  }

  async patchStatus<K extends KindName>(kind: K, namespace: string, name: string, patch: MergePatch<StatusOf<K>>): Promise<ObjectOf<K>> {
    const old = await this.current(kind, namespace, name);
    this.record({ op: 'patchStatus', kind, namespace, name, detail: `status keys ${Object.keys(patch as object).sort().join(', ')}` });
    const next = withStatus(old, applyMergePatch(old.status ?? {}, patch));
    this.assume(next);
    return next;
  }

  async addFinalizer<K extends KindName>(kind: K, namespace: string, name: string, finalizer: string): Promise<ObjectOf<K>> {
    const old = await this.current(kind, namespace, name);
    const finalizers = old.metadata.finalizers ?? [];
    if (finalizers.includes(finalizer)) return old;
    this.record({ op: 'addFinalizer', kind, namespace, name, detail: finalizer });
    const next = withFinalizers(old, [...finalizers, finalizer]);
    this.assume(next);
    return next;
  }

  async removeFinalizer<K extends KindName>(kind: K, namespace: string, name: string, finalizer: string): Promise<ObjectOf<K> | undefined> {
    const old = await this.current(kind, namespace, name);
    const finalizers = old.metadata.finalizers ?? [];
    if (!finalizers.includes(finalizer)) return old;
    this.record({ op: 'removeFinalizer', kind, namespace, name, detail: finalizer });
    const next = withFinalizers(old, finalizers.filter((f) => f !== finalizer));
    this.assume(next);
    return next;
  }

  async delete<K extends KindName>(kind: K, namespace: string, name: string): Promise<DeleteResult<K>> {
    this.record({ op: 'delete', kind, namespace, name });
    const object = await this.get(kind, namespace, name);
    return { deleted: false, ...(object ? { object } : {}) };
  }

  async recordEvent(object: ObjectOf<KindName>, type: EventType, reason: string, message: string): Promise<void> {
    this.record({ op: 'recordEvent', kind: object.kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name, detail: `${type} ${reason}: ${message}` });
  }

  listEvents(filter?: Parameters<ResourceSource['listEvents']>[0]): Promise<RecordedEvent[]> {
    return this.base.listEvents(filter);
  }

  /** The source underneath is the caller's to close. */
  async close(): Promise<void> {}
}
