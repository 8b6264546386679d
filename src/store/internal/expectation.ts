/** The optimistic-concurrency rule, in one place so every adapter decides conflicts identically. */
import type { ExpectedRevision } from '../port.js';

/** `actual` is the stream's head revision, or undefined when the stream does not exist. */
export const expectationHolds = (expected: ExpectedRevision, actual: number | undefined): boolean => {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return actual === undefined;
  return actual === expected;
};

/** Revision reported for a stream that does not exist (EventStoreDB's convention), e.g. by an empty append. */
export const NO_STREAM_REVISION = -1;
