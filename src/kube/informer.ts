/**
 * Informer: list, then watch from the list's resourceVersion, keeping a cache and delivering
 * ADDED / MODIFIED / DELETED in order, one at a time. When the watch's version is no longer retained
 * (410 Gone) it relists and delivers the difference against its cache (objects that vanished in the
 * gap arrive as DELETED with their last known state), so a consumer never misses a deletion. Other
 * watch failures resume from the last delivered version after a backoff.
 */
import type { Logger } from '../log/logger.js';
import { describeError, silentLogger } from '../log/logger.js';
import type { KindName, ObjectOf } from '../resources/index.js';
import { Gone } from './errors.js';
import { keyOf, objectKey } from './object.js';
import type { ResourceSource, WatchEvent, WatchHandle } from './port.js';
import { WakeableSleep } from './wakeable-sleep.js';

export interface InformerOptions {
  /** Omitted: every namespace. */
  readonly namespace?: string;
  readonly logger?: Logger;
  /** First retry delay after a failed list or watch; doubles up to maxRetryDelayMs. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
}

export type InformerHandler<K extends KindName> = (event: WatchEvent<K>) => void | Promise<void>;

export class Informer<K extends KindName> {
  private readonly cache = new Map<string, ObjectOf<K>>();
  private readonly logger: Logger;
  private stopped = false;
  private watchHandle: WatchHandle | undefined;
  private loop: Promise<void> | undefined;
  private readonly sleeper = new WakeableSleep();
  private version = '';
  private relistCount = 0;
  private isSynced = false;

  constructor(
    private readonly source: ResourceSource,
    private readonly kind: K,
    private readonly handler: InformerHandler<K>,
    private readonly options: InformerOptions = {},
  ) {
    this.logger = options.logger ?? silentLogger();
  }

  /** Lists (retrying until it succeeds), delivers the initial ADDED events, then watches in the background. */
  async start(): Promise<void> {
    if (this.loop) throw new Error('informer already started');
    let synced!: () => void;
    const ready = new Promise<void>((resolve) => (synced = resolve));
    this.loop = this.run(synced);
    await Promise.race([ready, this.loop]);
  }

  /** Stops watching; resolves once no handler call is in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.sleeper.wake();
    await this.watchHandle?.close();
    await this.loop;
  }

  get synced(): boolean {
    return this.isSynced;
  }
  /** How many times the informer relisted after 410 Gone. */
  get relists(): number {
    return this.relistCount;
  }
  get resourceVersion(): string {
    return this.version;
  }
  get(namespace: string, name: string): ObjectOf<K> | undefined {
    return this.cache.get(objectKey(namespace, name));
  }
  list(): ObjectOf<K>[] {
    return [...this.cache.values()];
  }

  private async run(synced: () => void): Promise<void> {
    let needList = true;
    let delay = this.options.retryDelayMs ?? 500;
    while (!this.stopped) {
      try {
        if (needList) {
          await this.relist();
          needList = false;
          this.isSynced = true;
          synced();
        }
        const handle = this.source.watch(this.kind, { namespace: this.options.namespace, resourceVersion: this.version }, (event) => this.deliver(event));
        this.watchHandle = handle;
        try {
          await handle.done;
        } finally {
          this.version = handle.resourceVersion;
        }
        delay = this.options.retryDelayMs ?? 500;
      } catch (error) {
        if (this.stopped) break;
        if (error instanceof Gone) {
          this.logger.info('watch version expired; relisting', { kind: this.kind, resourceVersion: this.version });
          needList = true;
          this.relistCount += 1;
          continue;
        }
        this.logger.warn('list/watch failed; retrying', { kind: this.kind, delayMs: delay, ...describeError(error) });
        await this.sleeper.sleep(delay);
        delay = Math.min(delay * 2, this.options.maxRetryDelayMs ?? 30_000);
      }
    }
  }

  /** Lists and delivers the difference against the cache: ADDED, MODIFIED, then DELETED. */
  private async relist(): Promise<void> {
    const list = await this.source.list(this.kind, this.options.namespace);
    const seen = new Set<string>();
    for (const object of list.items) {
      const key = keyOf(object);
      seen.add(key);
      const cached = this.cache.get(key);
      if (cached === undefined) await this.deliver({ type: 'ADDED', object });
      else if (cached.metadata.resourceVersion !== object.metadata.resourceVersion) await this.deliver({ type: 'MODIFIED', object });
    }
    for (const [key, object] of [...this.cache]) if (!seen.has(key)) await this.deliver({ type: 'DELETED', object });
    this.version = list.resourceVersion;
  }

  private async deliver(event: WatchEvent<K>): Promise<void> {
    const key = keyOf(event.object);
    if (event.type === 'DELETED') this.cache.delete(key);
    else this.cache.set(key, event.object);
    try {
      await this.handler(event);
    } catch (error) {
      // One failing handler call must not stop the informer: the object stays in the cache and the
      // consumer sees the next event for it; a controller requeues from its own queue.
      this.logger.error('informer handler failed', { kind: this.kind, key, type: event.type, ...describeError(error) });
    }
  }

}
