/** Objects and helpers the kube tests share. */
import type { InputOf, ObjectOf } from '../../../src/resources/index.js';
import type { ResourceSource, WatchEvent, WatchHandle } from '../../../src/kube/port.js';
import type { KindName } from '../../../src/resources/index.js';

export const API_VERSION = 'regent.dev/v1alpha1';

export const server = (namespace: string, name: string, spec: Partial<InputOf<'Server'>['spec']> = {}, metadata: Partial<InputOf<'Server'>['metadata']> = {}): InputOf<'Server'> => ({
  apiVersion: API_VERSION,
  kind: 'Server',
  metadata: { name, namespace, ...metadata },
  spec: { name, image: { name: 'cirros' }, flavor: { name: 'm1.small' }, networkID: 'net-a', ...spec },
});

export const network = (namespace: string, name: string, metadata: Partial<InputOf<'Network'>['metadata']> = {}): InputOf<'Network'> => ({
  apiVersion: API_VERSION,
  kind: 'Network',
  metadata: { name, namespace, ...metadata },
  spec: { identityRef: { name: 'acme' }, prefix: '10.0.0.0/24' },
});

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export const eventually = async <T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs: number, what = 'condition'): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
};

export interface Recorder<K extends KindName> {
  readonly events: WatchEvent<K>[];
  readonly handle: WatchHandle;
  /** Waits until at least `n` events arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<WatchEvent<K>[]>;
}

export const record = <K extends KindName>(source: ResourceSource, kind: K, resourceVersion: string, namespace?: string): Recorder<K> => {
  const events: WatchEvent<K>[] = [];
  const handle = source.watch(kind, { namespace, resourceVersion }, (event) => {
    events.push(event);
  });
  return {
    events,
    handle,
    waitFor: (n, timeoutMs = 5000) => eventually(() => (events.length >= n ? events.slice() : undefined), timeoutMs, `${n} watch events (have ${events.length})`),
  };
};

export const summary = <K extends KindName>(events: readonly WatchEvent<K>[]): string[] => events.map((e) => `${e.type} ${e.object.metadata.name}`);
export const rv = (object: ObjectOf<KindName>): bigint => BigInt(object.metadata.resourceVersion);
