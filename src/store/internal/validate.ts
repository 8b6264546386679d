/**
 * Request validation shared by every adapter, so that a bad request fails the same way (InvalidStoreRequest)
 * whichever store is configured, and before any write starts.
 */
import type { NewEvent } from '../../events/envelope.js';
import { InvalidStoreRequest } from '../errors.js';
import type { ReadAllOptions, ReadStreamOptions, StreamFilter } from '../port.js';

const isNonNegativeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

export const assertStreamName = (stream: unknown): void => {
  if (typeof stream !== 'string' || stream.length === 0) {
    throw new InvalidStoreRequest(`stream name must be a non-empty string, got ${JSON.stringify(stream)}`);
  }
};

export const assertExpectedRevision = (expected: unknown): void => {
  if (expected === 'any' || expected === 'no_stream' || isNonNegativeInteger(expected)) return;
  // -1 is deliberately refused: 'no_stream' says the same thing without a magic number.
  throw new InvalidStoreRequest(`expectedRevision must be a revision >= 0, 'no_stream' or 'any', got ${JSON.stringify(expected)}`);
};

const assertOptionalCount = (value: unknown, what: string): void => {
  if (value !== undefined && !isNonNegativeInteger(value)) {
    throw new InvalidStoreRequest(`${what} must be an integer >= 0, got ${JSON.stringify(value)}`);
  }
};

export const assertFilter = (filter: StreamFilter | undefined): void => {
  const prefixes: unknown = filter?.streamPrefixes;
  if (prefixes === undefined) return;
  if (!Array.isArray(prefixes) || !prefixes.every((prefix) => typeof prefix === 'string')) {
    throw new InvalidStoreRequest('filter.streamPrefixes must be an array of strings');
  }
};

export const assertReadStreamOptions = (options: ReadStreamOptions): void => {
  assertOptionalCount(options.fromRevision, 'fromRevision');
  assertOptionalCount(options.maxCount, 'maxCount');
  const direction: unknown = options.direction;
  if (direction !== undefined && direction !== 'forwards' && direction !== 'backwards') {
    throw new InvalidStoreRequest(`direction must be 'forwards' or 'backwards', got ${JSON.stringify(direction)}`);
  }
};

export const assertReadAllOptions = (options: ReadAllOptions): void => {
  assertOptionalCount(options.after, 'after');
  assertOptionalCount(options.maxCount, 'maxCount');
  assertFilter(options.filter);
};

export const assertAfter = (after: unknown): void => assertOptionalCount(after, 'after');

/**
 * Checks what can be checked without the store: ids and types are non-empty strings and no id repeats
 * inside the batch. Ids already stored are the adapter's job (it holds the index).
 */
export const assertNewEvents = (events: readonly NewEvent[]): void => {
  if (!Array.isArray(events)) throw new InvalidStoreRequest('events must be an array');
  const seen = new Set<string>();
  for (const event of events) {
    const id: unknown = event?.id;
    const type: unknown = event?.type;
    if (typeof id !== 'string' || id.length === 0) {
      throw new InvalidStoreRequest(`event id must be a non-empty string, got ${JSON.stringify(id)}`);
    }
    if (typeof type !== 'string' || type.length === 0) {
      throw new InvalidStoreRequest(`event ${id}: type must be a non-empty string`);
    }
    if (seen.has(id)) throw new InvalidStoreRequest(`event id ${id} appears twice in one append`);
    seen.add(id);
  }
};
