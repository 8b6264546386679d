/**
 * The resource source port: what controllers, the CLI and tests need from the place desired state
 * lives. Two adapters implement it with the same semantics: `embedded` (SQLite, one file, for a
 * single machine) and `kubernetes` (custom resources through the API server). The conformance suite
 * in test/kube/conformance.ts is the contract; src/kube/README.md states it in prose.
 */
import type { InputOf, KindName, ObjectOf, StatusOf } from '../resources/index.js';
import type { MergePatch } from './merge-patch.js';
import type { SecretStore } from './secrets.js';
import type { AuthorStamp } from '../resource-history/author.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface WatchEvent<K extends KindName = KindName> {
  readonly type: WatchEventType;
  /** For DELETED: the object's last state, with the resourceVersion of the deletion. */
  readonly object: ObjectOf<K>;
}

export interface ObjectList<K extends KindName = KindName> {
  readonly items: ObjectOf<K>[];
  /** Watch from here to see every change after this list, with no gap. */
  readonly resourceVersion: string;
}

export interface WatchOptions {
  /** Omitted: every namespace. */
  readonly namespace?: string;
  /** Deliver changes strictly after this version (from a list, or the last event seen). */
  readonly resourceVersion: string;
}

/** Called one event at a time, in resourceVersion order: the next call waits for the promise. */
export type WatchHandler<K extends KindName = KindName> = (event: WatchEvent<K>) => void | Promise<void>;

export interface WatchHandle {
  /** Stops delivery; resolves once no handler call is in flight. */
  close(): Promise<void>;
  /**
   * Settles when the watch ends: resolves after close() or when the server ended the stream (a
   * Kubernetes watch timeout; resume from `resourceVersion`); rejects with Gone when the requested
   * version is no longer retained (relist), or with the handler's or the connection's error.
   */
  readonly done: Promise<void>;
  /** The version to resume from: the last event delivered, or the starting version. */
  readonly resourceVersion: string;
}

export interface ApplyResult<K extends KindName = KindName> {
  readonly object: ObjectOf<K>;
  readonly action: 'created' | 'configured' | 'unchanged';
  /** Pruned unknown fields, as the API server's `Warning:` headers name them. */
  readonly warnings: readonly string[];
}

export interface DeleteResult<K extends KindName = KindName> {
  /** True when the object is gone; false when it waits for finalizers (deletionTimestamp set). */
  readonly deleted: boolean;
  /** The object's state after the call (its last state when deleted), when the source returned it. */
  readonly object?: ObjectOf<K>;
}

export type EventType = 'Normal' | 'Warning';

export interface InvolvedObject {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly apiVersion?: string;
  readonly resourceVersion?: string;
}

export interface RecordedEvent {
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
  readonly involvedObject: InvolvedObject;
  /** How many times this same event (object, type, reason, message) was recorded. */
  readonly count: number;
  readonly firstTimestamp: string;
  readonly lastTimestamp: string;
  readonly reportingComponent: string;
}

export interface EventFilter {
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
}

export interface DeleteOptions {
  resourceVersion?: string;
  /**
   * Who asks (src/resource-history/author.ts): stamped on the deleting object (embedded). The Kubernetes adapter
   * sends no stamp on a DELETE; there the admission webhook names the user.
   */
  author?: AuthorStamp;
}

export interface ResourceSource {
  /** For logs and CLI output: `embedded:./data/resources.db`, `kubernetes:https://…`. */
  readonly description: string;

  /**
   * Where credentials live (src/kube/secrets.ts): core/v1 Secrets on a cluster, the `secrets` table
   * of the embedded file. Never in objects, events or logs.
   */
  readonly secrets: SecretStore;

  list<K extends KindName>(kind: K, namespace?: string): Promise<ObjectList<K>>;
  get<K extends KindName>(kind: K, namespace: string, name: string): Promise<ObjectOf<K> | undefined>;
  watch<K extends KindName>(kind: K, options: WatchOptions, handler: WatchHandler<K>): WatchHandle;

  /** Creates the object (status is dropped, as with a status subresource). AlreadyExists, Invalid. */
  create<K extends KindName>(object: InputOf<K>): Promise<ObjectOf<K>>;
  /**
   * Creates the object, or updates its spec, labels and annotations (merged: keys given win), and
   * owner references when given. Status and finalizers are untouched. For the CLI and tests.
   */
  apply<K extends KindName>(object: InputOf<K>): Promise<ApplyResult<K>>;
  /**
   * Replaces spec, labels, annotations, finalizers and owner references. With
   * `metadata.resourceVersion` set, fails with Conflict when the object changed since.
   */
  update<K extends KindName>(object: InputOf<K>): Promise<ObjectOf<K>>;
  /**
   * JSON merge patch of the status subresource. With `resourceVersion`, fails with Conflict when
   * the object changed since; the caller re-reads and re-decides (see patchStatusWithRetry).
   * Never bumps generation.
   */
  patchStatus<K extends KindName>(kind: K, namespace: string, name: string, status: MergePatch<StatusOf<K>>, options?: { resourceVersion?: string }): Promise<ObjectOf<K>>;

  /** Adds a finalizer (idempotent). Refused on an object being deleted, as by the API server. */
  addFinalizer<K extends KindName>(kind: K, namespace: string, name: string, finalizer: string): Promise<ObjectOf<K>>;
  /**
   * Removes a finalizer (idempotent). Returns undefined when that removal completed a pending
   * deletion (the object is gone), else the updated object.
   */
  removeFinalizer<K extends KindName>(kind: K, namespace: string, name: string, finalizer: string): Promise<ObjectOf<K> | undefined>;
  /**
   * Deletes the object: gone at once without finalizers; otherwise deletionTimestamp is set and
   * the object disappears when its last finalizer is removed. Dependents whose owners are all gone
   * are deleted in turn (background propagation).
   */
  delete<K extends KindName>(kind: K, namespace: string, name: string, options?: DeleteOptions): Promise<DeleteResult<K>>;

  /** Records an event about an object (Normal or Warning, a CamelCase reason, a message). */
  recordEvent(object: ObjectOf<KindName>, type: EventType, reason: string, message: string): Promise<void>;
  listEvents(filter?: EventFilter): Promise<RecordedEvent[]>;

  close(): Promise<void>;
}
