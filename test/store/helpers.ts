/** Builders and waiting helpers for the store tests. */
import type { EventMetadata, NewEvent, Typed } from '../../src/events/envelope.js';
import { newEventId } from '../../src/events/ids.js';

export const metadata = (overrides: Partial<EventMetadata> = {}): EventMetadata => ({
  machine: 'serverRebuild',
  machineVersion: 3,
  schemaVersion: 1,
  source: 'reconciler',
  actor: 'regent-controller',
  correlationId: newEventId(),
  causationId: null,
  from: 'idle',
  to: { rebuilding: 'submitted' },
  effects: [{ type: 'nova.rebuild', serverId: 's-1', imageId: 'img-1' }],
  recordedAt: '2025-01-02T03:04:05.678Z',
  ...overrides,
});

export const newEvent = (data: Partial<Typed> = {}, overrides: Partial<NewEvent> = {}): NewEvent => ({
  id: newEventId(),
  type: 'serverRebuild.armed',
  data: { type: 'ARM', imageRef: 'img-1', ...data },
  metadata: metadata(),
  ...overrides,
});

export const newEvents = (count: number, data: Partial<Typed> = {}): NewEvent[] =>
  Array.from({ length: count }, (_, i) => newEvent({ ...data, n: i }));

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export const waitFor = async (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
};

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export const deferred = <T = void>(): Deferred<T> => {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
};

/** Resolves to 'pending' if `promise` has not settled within `ms`. */
export const settledWithin = async (promise: Promise<unknown>, ms: number): Promise<'settled' | 'pending'> =>
  Promise.race([promise.then(() => 'settled' as const, () => 'settled' as const), sleep(ms).then(() => 'pending' as const)]);

/** The rejection reason of a promise that must reject. */
export const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject, but it resolved');
};

/** The exception of a function that must throw synchronously. */
export const thrownBy = (work: () => unknown): unknown => {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw, but it returned');
};
