/**
 * The embedded resource source: the ResourceSource port on one SQLite file, with the API server's
 * semantics (see src/kube/README.md). Every write is one BEGIN IMMEDIATE transaction that reads the
 * current object, validates the result with the kind's validate function (so an invalid object is
 * refused with Invalid, as the API server answers 422), takes the next global resourceVersion,
 * stores the object and appends to the change log.
 *
 * A cluster-scoped kind (a core v1 Node, src/resources/node.ts) is kept under CLUSTER_NAMESPACE: every namespace a
 * caller names for it maps there (storedNamespace), and a list or watch of it is never restricted to a namespace.
 */
import type Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { InputOf, KindName, ObjectOf, StatusOf } from '../../resources/index.js';
import { AlreadyExists, BadRequest, Conflict, Invalid, NotFound, SourceUnavailable } from '../errors.js';
import { definitionOf, listedNamespace, storedNamespace } from '../kinds.js';
import { applyMergePatch, type MergePatch } from '../merge-patch.js';
import type { ApplyResult, DeleteResult, EventFilter, EventType, RecordedEvent, ResourceSource, WatchHandle, WatchHandler, WatchOptions } from '../port.js';
import { EventLog } from './events.js';
import { created, markedForDeletion, sameObject, updated, withAuthorStamp, withFinalizers, withStatus, type UpdateMode } from '../mutations.js';
import type { AuthorStamp } from '../../resource-history/author.js';
import { isBusy, openDatabase } from './database.js';
import { prepareStatements, type Statements } from './statements.js';
import { EmbeddedSecretStore } from './secrets.js';
import { watchChanges } from './watch.js';
import { wakeups } from './wakeups.js';

export interface EmbeddedOptions {
  /** The SQLite file, e.g. ./data/resources.db. Parent directories are created. */
  readonly path: string;
  /** Changes kept for watchers; a watcher further behind gets 410 Gone. Default 10000. */
  readonly changeLogLimit?: number;
  /** How often a watcher polls for writes by other processes. Default 100 ms. */
  readonly pollIntervalMs?: number;
  /** Recorded events kept. Default 10000. */
  readonly eventLimit?: number;
  /** The component named on recorded events. Default `regent`. */
  readonly component?: string;
  readonly busyTimeoutMs?: number;
  readonly now?: () => Date;
}

type AnyObject = ObjectOf<KindName>;
type Input = InputOf<KindName>;

const parse = <K extends KindName>(body: string): ObjectOf<K> => JSON.parse(body) as ObjectOf<K>;

export class EmbeddedResourceSource implements ResourceSource {
  readonly description: string;
  readonly path: string;
  /** The `secrets` table of the same file (src/kube/embedded/secrets.ts). */
  readonly secrets: EmbeddedSecretStore;
  private readonly db: Database.Database;
  private readonly statements: Statements;
  private readonly events: EventLog;
  private readonly changeLogLimit: number;
  private readonly pollIntervalMs: number;
  private readonly now: () => Date;
  private readonly watches = new Set<WatchHandle>();
  private closed = false;

  constructor(options: EmbeddedOptions) {
    this.path = options.path === ':memory:' ? options.path : resolve(options.path);
    this.description = `embedded:${options.path}`;
    this.db = openDatabase(options.path, { busyTimeoutMs: options.busyTimeoutMs });
    this.statements = prepareStatements(this.db);
    this.changeLogLimit = options.changeLogLimit ?? 10_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.now = options.now ?? (() => new Date());
    this.events = new EventLog(this.db, { limit: options.eventLimit ?? 10_000, component: options.component ?? 'regent', now: this.now });
    this.secrets = new EmbeddedSecretStore({ db: this.db, path: this.path, now: this.now, assertOpen: () => this.assertOpen() });
  }

  /** The underlying connection, for the embedded lease backend. */
  get database(): Database.Database {
    this.assertOpen();
    return this.db;
  }

  async list<K extends KindName>(kind: K, requested?: string): Promise<{ items: ObjectOf<K>[]; resourceVersion: string }> {
    this.assertOpen();
    const namespace = listedNamespace(kind, requested);
    return this.db.transaction(() => {
      const rows = namespace === undefined ? this.statements.listAll.all(kind) : this.statements.listNamespace.all(kind, namespace);
      return { items: rows.map((r) => parse<K>(r.body)), resourceVersion: String(this.head()) };
    })();
  }

  async get<K extends KindName>(kind: K, namespace: string, name: string): Promise<ObjectOf<K> | undefined> {
    this.assertOpen();
    const row = this.statements.getObject.get(kind, storedNamespace(kind, namespace), name);
    return row === undefined ? undefined : parse<K>(row.body);
  }

  watch<K extends KindName>(kind: K, options: WatchOptions, handler: WatchHandler<K>): WatchHandle {
    this.assertOpen();
    const handle = watchChanges(
      { db: this.db, statements: this.statements, pollIntervalMs: this.pollIntervalMs, onWrite: (wake) => wakeups.subscribe(this.path, wake) },
      kind,
      listedNamespace(kind, options.namespace),
      options.resourceVersion,
      handler,
    );
    this.watches.add(handle);
    void handle.done.catch(() => undefined).finally(() => this.watches.delete(handle));
    return handle;
  }

  async create<K extends KindName>(input: InputOf<K>): Promise<ObjectOf<K>> {
    const { status: _ignored, ...withoutStatus } = input as Input;
    const valid = this.validate(withoutStatus, undefined).value;
    const namespace = storedNamespace(valid.kind, valid.metadata.namespace ?? 'default');
    return this.write(() => {
      if (this.statements.getObject.get(valid.kind, namespace, valid.metadata.name) !== undefined) throw new AlreadyExists(valid.kind, namespace, valid.metadata.name);
      return this.store<K>('ADDED', created<K>(valid, namespace, randomUUID(), this.now()));
    });
  }

  async apply<K extends KindName>(input: InputOf<K>): Promise<ApplyResult<K>> {
    const namespace = storedNamespace(input.kind, (input as Input).metadata?.namespace ?? 'default');
    const existing = await this.get(input.kind, namespace, input.metadata.name);
    if (existing === undefined) {
      const { warnings } = this.validate(input as Input, undefined);
      try {
        return { object: await this.create(input), action: 'created', warnings };
      } catch (error) {
        if (!(error instanceof AlreadyExists)) throw error;
      }
    }
    let warnings: readonly string[] = [];
    let changed = false;
    const object = await this.write(() => {
      const old = this.read<K>(input.kind, namespace, input.metadata.name);
      const result = this.updateWithin(old, input as Input, 'apply');
      warnings = result.warnings;
      changed = result.changed;
      return result.object;
    });
    return { object, action: changed ? 'configured' : 'unchanged', warnings };
  }

  async update<K extends KindName>(input: InputOf<K>): Promise<ObjectOf<K>> {
    const namespace = storedNamespace(input.kind, (input as Input).metadata?.namespace ?? 'default');
    return this.write(() => {
      const old = this.read<K>(input.kind, namespace, input.metadata.name);
      this.precondition(old, input.metadata.resourceVersion);
      return this.updateWithin(old, input as Input, 'replace').object;
    });
  }

  async patchStatus<K extends KindName>(kind: K, namespace: string, name: string, patch: MergePatch<StatusOf<K>>, options: { resourceVersion?: string } = {}): Promise<ObjectOf<K>> {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw new BadRequest('a status patch must be a JSON object');
    return this.write(() => {
      const old = this.read<K>(kind, namespace, name);
      this.precondition(old, options.resourceVersion);
      const next = withStatus(old, applyMergePatch(old.status ?? {}, patch));
      const valid = this.validate(next as Input, old as Input).value;
      const status = valid.status !== undefined && Object.keys(valid.status as object).length > 0 ? valid.status : undefined;
      const candidate = withStatus(old, status);
      return sameObject(candidate, old) ? old : this.store<K>('MODIFIED', candidate);
    });
  }

  async addFinalizer<K extends KindName>(kind: K, namespace: string, name: string, finalizer: string): Promise<ObjectOf<K>> {
    return this.write(() => {
      const old = this.read<K>(kind, namespace, name);
      const finalizers = old.metadata.finalizers ?? [];
      if (finalizers.includes(finalizer)) return old;
      const next = withFinalizers(old, [...finalizers, finalizer]);
      this.validate(next as Input, old as Input);
      return this.store<K>('MODIFIED', next);
    });
  }

  async removeFinalizer<K extends KindName>(kind: K, namespace: string, name: string, finalizer: string): Promise<ObjectOf<K> | undefined> {
    return this.write(() => {
      const old = this.read<K>(kind, namespace, name);
      const finalizers = old.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return old;
      return this.storeOrFinish<K>(withFinalizers(old, finalizers.filter((f) => f !== finalizer)));
    });
  }

  async delete<K extends KindName>(kind: K, namespace: string, name: string, options: { resourceVersion?: string; author?: AuthorStamp } = {}): Promise<DeleteResult<K>> {
    return this.write(() => {
      const old = this.read<K>(kind, namespace, name);
      this.precondition(old, options.resourceVersion);
      return this.deleteWithin(old, options.author);
    });
  }

  async recordEvent(object: AnyObject, type: EventType, reason: string, message: string): Promise<void> {
    this.assertOpen();
    this.events.record(object, type, reason, message);
  }

  async listEvents(filter: EventFilter = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    return this.events.list(filter);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.watches].map((w) => w.close()));
    this.db.close();
  }

  // ---- inside write transactions

  private head(): number {
    return Number(this.statements.getMeta.get('resource_version')?.value ?? 0);
  }

  private read<K extends KindName>(kind: K, requested: string, name: string): ObjectOf<K> {
    const namespace = storedNamespace(kind, requested);
    const row = this.statements.getObject.get(kind, namespace, name);
    if (row === undefined) throw new NotFound(kind, namespace, name);
    return parse<K>(row.body);
  }

  private precondition(old: AnyObject, resourceVersion: string | undefined): void {
    if (resourceVersion !== undefined && resourceVersion !== '' && resourceVersion !== old.metadata.resourceVersion) {
      throw new Conflict(old.kind, old.metadata.namespace, old.metadata.name);
    }
  }

  private validate(input: Input, old: Input | undefined): { value: Input; warnings: readonly string[] } {
    const result = definitionOf(input.kind).validate(input, old);
    if (!result.ok) throw new Invalid(result.message, result.errors);
    return { value: result.value as Input, warnings: result.warnings };
  }

  private updateWithin<K extends KindName>(old: ObjectOf<K>, input: Input, mode: UpdateMode): { object: ObjectOf<K>; changed: boolean; warnings: readonly string[] } {
    const { value, warnings } = this.validate({ ...input, status: undefined }, old as Input);
    const next = updated<K>(old, value, mode);
    if (sameObject(next, old)) return { object: old, changed: false, warnings };
    return { object: this.storeOrFinish<K>(next) ?? next, changed: true, warnings };
  }

  /** Stores `next`, or removes it when it is being deleted and its last finalizer is gone. */
  private storeOrFinish<K extends KindName>(next: ObjectOf<K>): ObjectOf<K> | undefined {
    if (next.metadata.deletionTimestamp !== undefined && (next.metadata.finalizers ?? []).length === 0) {
      this.remove(next);
      return undefined;
    }
    return this.store<K>('MODIFIED', next);
  }

  /** `author`: who asked (src/resource-history/author.ts), stamped on the deleting object or on the last state a watcher gets. */
  private deleteWithin<K extends KindName>(old: ObjectOf<K>, author?: AuthorStamp): DeleteResult<K> {
    if ((old.metadata.finalizers ?? []).length === 0) return { deleted: true, object: this.remove(withAuthorStamp(old, author, old.metadata.generation)) };
    if (old.metadata.deletionTimestamp !== undefined) return { deleted: false, object: old };
    return { deleted: false, object: this.store<K>('MODIFIED', markedForDeletion(old, this.now(), author)) };
  }

  /** Takes the next resourceVersion, stores the object, appends the change, compacts the log. */
  private store<K extends KindName>(type: 'ADDED' | 'MODIFIED', object: ObjectOf<K>): ObjectOf<K> {
    const rv = this.nextVersion();
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } } as ObjectOf<K>;
    const body = JSON.stringify(stored);
    const { kind, metadata } = stored;
    this.statements.upsertObject.run(kind, metadata.namespace, metadata.name, metadata.uid, rv, body);
    this.statements.insertChange.run(rv, kind, metadata.namespace, type, body);
    return stored;
  }

  /** Removes the object (DELETED carries its last state) and collects dependents left without owners. */
  private remove<K extends KindName>(object: ObjectOf<K>): ObjectOf<K> {
    const rv = this.nextVersion();
    const final = { ...object, metadata: { ...object.metadata, resourceVersion: String(rv) } } as ObjectOf<K>;
    this.statements.deleteObject.run(final.kind, final.metadata.namespace, final.metadata.name);
    this.statements.insertChange.run(rv, final.kind, final.metadata.namespace, 'DELETED', JSON.stringify(final));
    this.collectDependents(final);
    return final;
  }

  /** Background garbage collection: a dependent whose owners are all gone is deleted in turn. */
  private collectDependents(owner: AnyObject): void {
    const { uid, namespace } = owner.metadata;
    for (const row of this.statements.mentioning.all(namespace, uid)) {
      const dependent = parse<KindName>(row.body);
      const refs = dependent.metadata.ownerReferences ?? [];
      if (!refs.some((r) => r.uid === uid)) continue;
      const liveOwners = refs.filter((r) => r.uid !== uid && this.statements.uidExists.get(r.uid) !== undefined);
      if (liveOwners.length === 0) this.deleteWithin(dependent);
    }
  }

  private nextVersion(): number {
    const rv = this.head() + 1;
    this.statements.setMeta.run(String(rv), 'resource_version');
    const threshold = rv - this.changeLogLimit;
    if (threshold > 0) {
      this.statements.compact.run(threshold);
      this.statements.setMeta.run(String(threshold), 'compacted_through');
    }
    return rv;
  }

  /** Runs `body` in one BEGIN IMMEDIATE transaction, then wakes in-process watchers. */
  private write<T>(body: () => T): Promise<T> {
    this.assertOpen();
    try {
      const result = this.db.transaction(body).immediate();
      wakeups.notify(this.path);
      return Promise.resolve(result);
    } catch (error) {
      if (isBusy(error)) {
        return Promise.reject(new SourceUnavailable(`resource store ${this.path} is busy`, { cause: error }));
      }
      return Promise.reject(error);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new SourceUnavailable(`resource store ${this.path} is closed`);
  }
}

/** Opens (creating if needed) the embedded resource store at `options.path`. */
export const openEmbeddedSource = (options: EmbeddedOptions): EmbeddedResourceSource => new EmbeddedResourceSource(options);
