/**
 * The status runner: the writer of resource status (except a Server's per-gate records, status.providerCreateGates,
 * which only the API's POST …/provider-create-gates writes). It follows the event store (a subscription from a stored
 * checkpoint), asks the stream-owner map which resource an event belongs to, renders that resource with its kind's
 * renderer (src/status/renderer.ts; each kind's folder has one), and patches the status subresource only where the
 * render differs from what is stored (unchanged conditions keep their lastTransitionTime, because rendering starts
 * from the stored status). It knows no kind: adding one adds a renderer to the kind table, not a branch here.
 * Renders go through a queue (render-queue.ts): one resource's burst of events is rendered once it has passed, renders
 * of one resource never overlap, and the checkpoint never moves past an event whose render has not finished.
 */
import type { EventStore, Subscription } from '../store/port.js';
import type { RecordedEvent } from '../events/envelope.js';
import type { Engine } from '../engine/engine.js';
import type { ResourceSource } from '../kube/port.js';
import { NotFound } from '../kube/errors.js';
import type { KindName } from '../resources/index.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import { renderUnserved } from '../../projections/unserved-status.js';
import type { Checkpoint } from './checkpoint.js';
import type { StatusEnv, StatusRenderer } from './renderer.js';
import { RenderQueue } from './render-queue.js';

interface ResourceRef {
  kind: KindName;
  namespace: string;
  name: string;
}

export interface StatusRunnerOptions {
  store: EventStore;
  engine: Engine;
  source: ResourceSource;
  checkpoint: Checkpoint;
  logger: Logger;
  /**
   * Each kind's renderer (its folder's status.ts, registered in the kind table src/app/kinds.ts); a kind without
   * one gets the "no controller yet" status, so no spec field is silently dropped behind a success.
   */
  renderers: Partial<Record<KindName, StatusRenderer>>;
  /** Which resource a stream belongs to (src/controllers/stream-owners.ts): the resource a stored event re-renders. */
  ownerOf: (stream: string) => { kind: KindName; uid: string } | undefined;
  now?: () => Date;
  onLag?: (events: number) => void;
  /**
   * The audit pages' base URL: every status written gets `auditURL`, the resource's audit page
   * (`<base>/resources/<Kind>/<namespace>/<name>`; issue 18). Absent: no link is written.
   */
  auditBaseUrl?: string;
}

/** The audit page of a resource (src/audit/web/routes.ts serves /resources/<Kind>/<namespace>/<name>). */
export const auditUrlOf = (base: string, ref: { kind: string; namespace: string; name: string }): string =>
  `${base.replace(/\/$/, '')}/resources/${encodeURIComponent(ref.kind)}/${encodeURIComponent(ref.namespace)}/${encodeURIComponent(ref.name)}`;

const unserved: StatusRenderer = {
  ownedKeys: [],
  render: async (env, object) => renderUnserved({ kind: object.kind, generation: object.metadata.generation ?? 1, at: env.now(), previous: object.status as never }) as unknown as Record<string, unknown>,
};

export class StatusRunner {
  private readonly byUid = new Map<string, ResourceRef>();
  private subscription: Subscription | undefined;
  private position = 0;
  private lastSaved = 0;
  private readonly env: StatusEnv;
  private readonly queue = new RenderQueue<ResourceRef>((ref) => `${ref.kind}/${ref.namespace}/${ref.name}`, (ref) => this.renderNow(ref));

  constructor(private readonly options: StatusRunnerOptions) {
    this.env = { engine: options.engine, store: options.store, source: options.source, now: () => (options.now ?? (() => new Date()))().toISOString() };
  }

  /** The position up to which every event's render has finished (what the checkpoint may hold). */
  get checkpointPosition(): number {
    return this.queue.safePosition(this.position);
  }

  /** Remembers which resource a uid is (informers call this for every object they see). */
  noteResource(kind: KindName, object: { metadata: { uid: string; namespace?: string; name: string } }): void {
    this.byUid.set(object.metadata.uid, { kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });
  }

  forgetResource(uid: string): void {
    this.byUid.delete(uid);
  }

  async start(): Promise<void> {
    this.position = await this.options.checkpoint.load();
    this.lastSaved = this.position;
    this.subscription = this.options.store.subscribe({ after: this.position }, (event) => this.onEvent(event));
    this.subscription.done.catch((error: unknown) => this.options.logger.error('status runner stopped', describeError(error)));
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    await this.queue.idle();
    await this.options.checkpoint.save(this.checkpointPosition);
  }

  /** Renders one resource (informer events, passes, startup); resolves once a render begun after the call is done. */
  render(ref: ResourceRef): Promise<void> {
    return this.queue.render(ref);
  }

  private async renderNow(ref: ResourceRef): Promise<void> {
    try {
      const object = await this.options.source.get(ref.kind, ref.namespace, ref.name);
      if (!object) return;
      const renderer = this.options.renderers[ref.kind] ?? unserved;
      const status = await renderer.render(this.env, object);
      if (status === undefined) return;
      await this.patchIfChanged(ref, renderer.ownedKeys, object.status as Record<string, unknown> | undefined, status);
      await renderer.afterPatch?.(this.env, object);
    } catch (error) {
      // The resource was deleted between the read and the patch: nothing left to render.
      if (error instanceof NotFound) return void this.options.logger.debug('resource gone before its status was written', { ...ref });
      this.options.logger.warn('could not render status', { ...ref, ...describeError(error) });
    }
  }

  private async onEvent(event: RecordedEvent): Promise<void> {
    const owner = this.options.ownerOf(event.stream);
    const ref = owner ? this.byUid.get(owner.uid) : undefined;
    // not awaited: the next events are read while this resource waits, and its later events join the same render
    if (ref) void this.queue.render(ref, event.position);
    this.position = event.position;
    const safe = this.checkpointPosition;
    if (safe - this.lastSaved >= 50) {
      // A checkpoint that cannot be written costs a re-render after a restart, never a lost status.
      await this.options.checkpoint.save(safe).then(
        () => (this.lastSaved = safe),
        (error: unknown) => this.options.logger.warn('could not save the status checkpoint', { checkpoint: this.options.checkpoint.description, ...describeError(error) }),
      );
    }
  }

  /** Patches only the keys whose rendered value differs; owned keys missing from the render are removed. */
  private async patchIfChanged(ref: ResourceRef, ownedKeys: readonly string[], current: Record<string, unknown> | undefined, rendered: Record<string, unknown>): Promise<void> {
    if (this.options.auditBaseUrl !== undefined) rendered = { ...rendered, auditURL: auditUrlOf(this.options.auditBaseUrl, ref) };
    const patch: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(rendered)) {
      if (JSON.stringify(current?.[key]) !== JSON.stringify(value)) patch[key] = value;
    }
    for (const key of ownedKeys) {
      if (!(key in rendered) && current?.[key] !== undefined) patch[key] = null;
    }
    if (Object.keys(patch).length === 0) return;
    await this.options.source.patchStatus(ref.kind, ref.namespace, ref.name, patch as never);
    this.options.logger.debug('status written', { ...ref, keys: Object.keys(patch) });
  }
}
