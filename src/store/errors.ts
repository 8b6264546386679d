/** Typed store errors. Callers branch on `instanceof`, never on message text. */
import type { ExpectedRevision } from './port.js';

/** The stream was not at the revision the writer expected; `actualRevision` is undefined for no stream. */
export class WrongExpectedVersion extends Error {
  override readonly name = 'WrongExpectedVersion';
  constructor(
    readonly stream: string,
    readonly expectedRevision: ExpectedRevision,
    readonly actualRevision: number | undefined,
  ) {
    super(
      `stream ${stream}: expected revision ${String(expectedRevision)}, actual ${actualRevision === undefined ? 'no stream' : actualRevision}`,
    );
  }
}

/** The store cannot be opened or reached (missing file, bad URL, server down). */
export class StoreUnavailable extends Error {
  override readonly name: string = 'StoreUnavailable';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * A store URL that is none of the accepted forms: the invocation must change, not the store. A
 * StoreUnavailable, so callers that handle "cannot open the store" handle this too.
 */
export class InvalidStoreUrl extends StoreUnavailable {
  override readonly name: string = 'InvalidStoreUrl';
}

/** A caller passed something the store cannot accept (bad stream name, bad revision). */
export class InvalidStoreRequest extends Error {
  override readonly name = 'InvalidStoreRequest';
}

/**
 * A stored row the store cannot parse (SQLite: its JSON text was cut short or overwritten). The row's columns name it,
 * so readers can quarantine exactly that event; the history is damaged, the store is not unavailable.
 */
export class UnreadableStoredEvent extends Error {
  override readonly name = 'UnreadableStoredEvent';
  /** What is wrong with the row, without naming it: "the stored row is not valid JSON (<the parser's words>)". */
  readonly problem: string;
  constructor(
    readonly stream: string,
    readonly revision: number,
    readonly position: number,
    readonly eventId: string,
    options?: { cause?: unknown },
  ) {
    const problem = `the stored row is not valid JSON${options?.cause instanceof Error ? ` (${options.cause.message})` : ''}`;
    super(`stream ${stream} revision ${revision} (position ${position}): ${problem}`, options);
    this.problem = problem;
  }
}
