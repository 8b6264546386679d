/**
 * The kubernetes resource source: the port over Regent's custom resources through the API server
 * (@kubernetes/client-node 1.4.0). The API server validates with the CRDs in deploy/crds, so this
 * adapter does not validate; it maps requests and errors:
 *
 * - status writes are JSON merge patches on the status subresource
 *   (`Content-Type: application/merge-patch+json`, set with setHeaderOptions, because the client's
 *   default for PATCH is a JSON patch); a resourceVersion precondition travels in the patch body as
 *   `metadata.resourceVersion`, which the API server checks and answers with 409;
 * - finalizer changes are read-modify-write merge patches of metadata.finalizers with the read's
 *   resourceVersion, retried on Conflict;
 * - apply is GET then POST or PUT (with the read's resourceVersion), merging exactly as the embedded
 *   store does (src/kube/mutations.ts);
 * - delete sends a resourceVersion precondition in DeleteOptions and background propagation.
 */
import { CoreV1Api, CustomObjectsApi, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import type { InputOf, KindName, ObjectOf, StatusOf } from '../../resources/index.js';
import { API_VERSION, GROUP, VERSION } from '../../resources/index.js';
import { BadRequest, Conflict, NotFound } from '../errors.js';
import { definitionOf } from '../kinds.js';
import type { MergePatch } from '../merge-patch.js';
import { sameObject, updated } from '../mutations.js';
import type { ApplyResult, DeleteResult, EventFilter, EventType, RecordedEvent, ResourceSource, WatchHandle, WatchHandler, WatchOptions } from '../port.js';
import { loadKubeConfig, type KubeConfigOptions } from './config.js';
import { toResourceError, warningsFrom } from './errors.js';
import { KubernetesEventRecorder } from './events.js';
import { KubernetesSecretStore } from './secrets.js';
import { watchPath } from './watch.js';

const MERGE_PATCH = setHeaderOptions('Content-Type', 'application/merge-patch+json');
const RETRIES = 5;

export interface KubernetesSourceOptions extends KubeConfigOptions {
  /** A loaded KubeConfig; otherwise one is loaded from `kubeconfig`/`context`/the environment. */
  readonly kubeConfig?: KubeConfig;
  /** The component named on recorded events. Default `regent`. */
  readonly component?: string;
}

type Input = InputOf<KindName>;

export class KubernetesResourceSource implements ResourceSource {
  readonly description: string;
  readonly kubeConfig: KubeConfig;
  /** core/v1 Secrets (src/kube/kubernetes/secrets.ts). */
  readonly secrets: KubernetesSecretStore;
  private readonly custom: CustomObjectsApi;
  private readonly events: KubernetesEventRecorder;
  private readonly watches = new Set<WatchHandle>();

  constructor(options: KubernetesSourceOptions = {}) {
    this.kubeConfig = options.kubeConfig ?? loadKubeConfig(options);
    this.description = `kubernetes:${this.kubeConfig.getCurrentCluster()?.server ?? '?'}`;
    this.custom = this.kubeConfig.makeApiClient(CustomObjectsApi);
    const core = this.kubeConfig.makeApiClient(CoreV1Api);
    this.events = new KubernetesEventRecorder(core, options.component ?? 'regent');
    this.secrets = new KubernetesSecretStore(core);
  }

  /**
   * A Regent kind's custom-resource coordinates. A core kind the embedded store holds (a v1 Node) is not served
   * here: on a cluster Nodes are the API server's own, read through the core API (src/nova/compute/), never as a CR.
   */
  private coordinates(kind: KindName) {
    const definition = definitionOf(kind);
    if (definition.apiVersion !== API_VERSION) throw new BadRequest(`${kind} is not a Regent custom resource: the Kubernetes resource source serves ${GROUP} kinds only (read ${kind}s through the core API)`);
    return { group: GROUP, version: VERSION, plural: definition.plural };
  }

  async list<K extends KindName>(kind: K, namespace?: string): Promise<{ items: ObjectOf<K>[]; resourceVersion: string }> {
    const c = this.coordinates(kind);
    try {
      const list = (namespace === undefined ? await this.custom.listCustomObjectForAllNamespaces(c) : await this.custom.listNamespacedCustomObject({ ...c, namespace })) as {
        items: ObjectOf<K>[];
        metadata: { resourceVersion: string };
      };
      return { items: list.items, resourceVersion: list.metadata.resourceVersion };
    } catch (error) {
      throw toResourceError(error, { kind, namespace: namespace ?? '', name: '' });
    }
  }

  async get<K extends KindName>(kind: K, namespace: string, name: string): Promise<ObjectOf<K> | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject({ ...this.coordinates(kind), namespace, name })) as ObjectOf<K>;
    } catch (error) {
      const mapped = toResourceError(error, { kind, namespace, name });
      if (mapped instanceof NotFound) return undefined;
      throw mapped;
    }
  }

  watch<K extends KindName>(kind: K, options: WatchOptions, handler: WatchHandler<K>): WatchHandle {
    const { plural } = this.coordinates(kind);
    const path = options.namespace === undefined ? `/apis/${GROUP}/${VERSION}/${plural}` : `/apis/${GROUP}/${VERSION}/namespaces/${options.namespace}/${plural}`;
    const handle = watchPath(this.kubeConfig, path, kind, options.resourceVersion, handler);
    this.watches.add(handle);
    void handle.done.catch(() => undefined).finally(() => this.watches.delete(handle));
    return handle;
  }

  async create<K extends KindName>(input: InputOf<K>): Promise<ObjectOf<K>> {
    return (await this.createWithInfo(input)).object;
  }

  private async createWithInfo<K extends KindName>(input: InputOf<K>): Promise<{ object: ObjectOf<K>; warnings: string[] }> {
    const namespace = input.metadata.namespace ?? 'default';
    const { status: _status, ...body } = input as Input;
    try {
      const response = await this.custom.createNamespacedCustomObjectWithHttpInfo({ ...this.coordinates(input.kind), namespace, body: { ...body, metadata: { ...body.metadata, namespace } } });
      return { object: response.data as ObjectOf<K>, warnings: warningsFrom(response.headers) };
    } catch (error) {
      throw toResourceError(error, { kind: input.kind, namespace, name: input.metadata.name });
    }
  }

  private async replace<K extends KindName>(object: ObjectOf<K>): Promise<{ object: ObjectOf<K>; warnings: string[] }> {
    const { namespace, name } = object.metadata;
    try {
      const response = await this.custom.replaceNamespacedCustomObjectWithHttpInfo({ ...this.coordinates(object.kind), namespace, name, body: object });
      return { object: response.data as ObjectOf<K>, warnings: warningsFrom(response.headers) };
    } catch (error) {
      throw toResourceError(error, { kind: object.kind, namespace, name });
    }
  }

  async apply<K extends KindName>(input: InputOf<K>): Promise<ApplyResult<K>> {
    const namespace = input.metadata.namespace ?? 'default';
    for (let attempt = 1; ; attempt++) {
      const existing = await this.get(input.kind, namespace, input.metadata.name);
      if (existing === undefined) {
        const { object, warnings } = await this.createWithInfo(input);
        return { object, action: 'created', warnings };
      }
      const next = updated<K>(existing, input as Input, 'apply');
      if (sameObject(next, existing)) return { object: existing, action: 'unchanged', warnings: [] };
      try {
        const { object, warnings } = await this.replace(next);
        return { object, action: 'configured', warnings };
      } catch (error) {
        if (!(error instanceof Conflict) || attempt >= RETRIES) throw error;
      }
    }
  }

  async update<K extends KindName>(input: InputOf<K>): Promise<ObjectOf<K>> {
    const namespace = input.metadata.namespace ?? 'default';
    const conditional = input.metadata.resourceVersion !== undefined && input.metadata.resourceVersion !== '';
    for (let attempt = 1; ; attempt++) {
      // A PUT needs a resourceVersion: an unconditional update uses the current one, retrying on Conflict.
      const current = await this.get(input.kind, namespace, input.metadata.name);
      if (current === undefined) throw new NotFound(input.kind, namespace, input.metadata.name);
      const next = updated<K>(current, input as Input, 'replace');
      const resourceVersion = conditional ? (input.metadata.resourceVersion as string) : current.metadata.resourceVersion;
      if (sameObject(next, current) && resourceVersion === current.metadata.resourceVersion) return current;
      try {
        return (await this.replace({ ...next, metadata: { ...next.metadata, resourceVersion } })).object;
      } catch (error) {
        if (conditional || !(error instanceof Conflict) || attempt >= RETRIES) throw error;
      }
    }
  }

  async patchStatus<K extends KindName>(kind: K, namespace: string, name: string, status: MergePatch<StatusOf<K>>, options: { resourceVersion?: string } = {}): Promise<ObjectOf<K>> {
    const body = { ...(options.resourceVersion ? { metadata: { resourceVersion: options.resourceVersion } } : {}), status };
    try {
      return (await this.custom.patchNamespacedCustomObjectStatus({ ...this.coordinates(kind), namespace, name, body }, MERGE_PATCH)) as ObjectOf<K>;
    } catch (error) {
      throw toResourceError(error, { kind, namespace, name });
    }
  }

  private async patchFinalizers<K extends KindName>(kind: K, namespace: string, name: string, change: (finalizers: string[]) => string[] | undefined): Promise<ObjectOf<K> | undefined> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.get(kind, namespace, name);
      if (current === undefined) throw new NotFound(kind, namespace, name);
      const finalizers = change(current.metadata.finalizers ?? []);
      if (finalizers === undefined) return current;
      const body = { metadata: { finalizers, resourceVersion: current.metadata.resourceVersion } };
      try {
        const patched = (await this.custom.patchNamespacedCustomObject({ ...this.coordinates(kind), namespace, name, body }, MERGE_PATCH)) as ObjectOf<K>;
        const gone = patched.metadata.deletionTimestamp !== undefined && (patched.metadata.finalizers ?? []).length === 0;
        return gone ? undefined : patched;
      } catch (error) {
        const mapped = toResourceError(error, { kind, namespace, name });
        if (!(mapped instanceof Conflict) || attempt >= RETRIES) throw mapped;
      }
    }
  }

  async addFinalizer<K extends KindName>(kind: K, namespace: string, name: string, finalizer: string): Promise<ObjectOf<K>> {
    const result = await this.patchFinalizers(kind, namespace, name, (f) => (f.includes(finalizer) ? undefined : [...f, finalizer]));
    if (result === undefined) throw new NotFound(kind, namespace, name);
    return result;
  }

  async removeFinalizer<K extends KindName>(kind: K, namespace: string, name: string, finalizer: string): Promise<ObjectOf<K> | undefined> {
    return this.patchFinalizers(kind, namespace, name, (f) => (f.includes(finalizer) ? f.filter((x) => x !== finalizer) : undefined));
  }

  async delete<K extends KindName>(kind: K, namespace: string, name: string, options: { resourceVersion?: string } = {}): Promise<DeleteResult<K>> {
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background', ...(options.resourceVersion ? { preconditions: { resourceVersion: options.resourceVersion } } : {}) };
    try {
      const response = (await this.custom.deleteNamespacedCustomObject({ ...this.coordinates(kind), namespace, name, body })) as ObjectOf<K> | { kind: 'Status' };
      if (response.kind === 'Status') return { deleted: true };
      const object = response as ObjectOf<K>;
      const pending = object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers ?? []).length > 0;
      return { deleted: !pending, object };
    } catch (error) {
      throw toResourceError(error, { kind, namespace, name });
    }
  }

  async recordEvent(object: ObjectOf<KindName>, type: EventType, reason: string, message: string): Promise<void> {
    await this.events.record(object, type, reason, message);
  }

  async listEvents(filter: EventFilter = {}): Promise<RecordedEvent[]> {
    return this.events.list(filter);
  }

  async close(): Promise<void> {
    await Promise.all([...this.watches].map((w) => w.close()));
  }
}

export const openKubernetesSource = (options: KubernetesSourceOptions = {}): KubernetesResourceSource => new KubernetesResourceSource(options);
