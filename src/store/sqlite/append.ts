/**
 * The append transaction: read the head, compare it with the expectation, insert every event, move the
 * head — all inside one BEGIN IMMEDIATE, so the write lock is taken before the head is read. (A
 * deferred transaction would read the head under a shared lock and could lose the upgrade race to
 * another process, surfacing as SQLITE_BUSY instead of a clean WrongExpectedVersion.)
 *
 * Payloads are serialised inside the transaction: there is no second array of strings, and a payload
 * that cannot be serialised aborts the transaction, which rolls back the rows already inserted.
 */
import Database from 'better-sqlite3';
import type { NewEvent } from '../../events/envelope.js';
import { InvalidStoreRequest, WrongExpectedVersion } from '../errors.js';
import { NO_STREAM_REVISION, expectationHolds } from '../internal/expectation.js';
import { toJson } from '../internal/json.js';
import type { AppendResult, ExpectedRevision } from '../port.js';
import type { Statements } from './statements.js';

export type Appender = (stream: string, events: readonly NewEvent[], expected: ExpectedRevision) => AppendResult;

/**
 * A UNIQUE violation has two possible owners. The event id is checked by lookup (never by parsing the
 * error message); anything else is the (stream, revision) backstop, which only fires if the streams
 * table disagrees with the events table, and is reported as the concurrency conflict it is.
 */
const explainUniqueViolation = (
  statements: Statements,
  stream: string,
  event: NewEvent,
  expected: ExpectedRevision,
): Error => {
  if (statements.idExists.get(event.id) !== undefined) return new InvalidStoreRequest(`event id ${event.id} is already stored`);
  return new WrongExpectedVersion(stream, expected, statements.maxRevision.get(stream) ?? undefined);
};

export const createAppender = (db: Database.Database, statements: Statements): Appender => {
  const transaction = db.transaction((stream: string, events: readonly NewEvent[], expected: ExpectedRevision): AppendResult => {
    const current = statements.head.get(stream);
    const actual = current?.head;
    if (!expectationHolds(expected, actual)) throw new WrongExpectedVersion(stream, expected, actual);
    if (events.length === 0) return { nextExpectedRevision: actual ?? NO_STREAM_REVISION, position: current?.lastPosition ?? 0 };

    let revision = actual ?? NO_STREAM_REVISION;
    let position = 0;
    for (const event of events) {
      revision += 1;
      const data = toJson(event.data, `event ${event.id} data`);
      const metadata = toJson(event.metadata, `event ${event.id} metadata`);
      try {
        position = Number(statements.insert.run(event.id, stream, revision, event.type, data, metadata).lastInsertRowid);
      } catch (error) {
        if (error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw explainUniqueViolation(statements, stream, event, expected);
        }
        throw error;
      }
    }
    statements.upsertHead.run(stream, revision, position);
    return { nextExpectedRevision: revision, position };
  });
  return (stream, events, expected) => transaction.immediate(stream, events, expected);
};
