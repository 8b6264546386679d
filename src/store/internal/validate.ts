/**
 * Request validation shared by every adapter, so that a bad request fails the same way (InvalidStoreRequest)
 * whichever store is configured, and before any write starts.
 */
import type { NewEvent } from '../../events/envelope.js';
import { InvalidStoreRequest } from '../errors.js';
import type { ReadAllOptions, ReadStreamOptions, StreamFilter } from '../port.js';

const isNonNegativeInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** A lone surrogate (half of a UTF-16 pair) cannot be encoded as UTF-8: SQLite would store U+FFFD instead. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Names that are stored as text columns (stream, id, type) must survive UTF-8 and C strings unchanged:
 * no NUL (SQLite's string functions stop at it, breaking prefix filters) and no lone surrogate.
 */
const isStorableName = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && !value.includes('\u0000') && !LONE_SURROGATE.test(value);

export const assertStreamName = (stream: unknown): void => {
  if (!isStorableName(stream)) {
    throw new InvalidStoreRequest(`stream name must be a non-empty string without NUL or lone surrogates, got ${JSON.stringify(stream)}`);
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
  // An empty prefix is allowed (it matches every stream); NUL or a lone surrogate could never match.
  if (!Array.isArray(prefixes) || !prefixes.every((prefix) => prefix === '' || isStorableName(prefix))) {
    throw new InvalidStoreRequest('filter.streamPrefixes must be an array of strings without NUL or lone surrogates');
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
    if (!isStorableName(id)) {
      throw new InvalidStoreRequest(`event id must be a non-empty string without NUL or lone surrogates, got ${JSON.stringify(id)}`);
    }
    if (!isStorableName(type)) {
      throw new InvalidStoreRequest(`event ${id}: type must be a non-empty string without NUL or lone surrogates`);
    }
    if (seen.has(id)) throw new InvalidStoreRequest(`event id ${id} appears twice in one append`);
    seen.add(id);
  }
};
