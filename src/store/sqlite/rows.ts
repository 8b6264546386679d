/** Row shapes as SQLite returns them, and the mapping back to the envelope. */
import type { RecordedEvent } from '../../events/envelope.js';
import { UnreadableStoredEvent } from '../errors.js';

export interface EventRow {
  position: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
}

export interface StreamRow {
  stream: string;
  head: number;
  lastPosition: number;
}

export interface HeadRow {
  head: number;
  lastPosition: number;
}

/** JSON text of one column of `row`; a row that does not parse is an UnreadableStoredEvent naming it. */
const parseColumn = (row: EventRow, text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UnreadableStoredEvent(row.stream, row.revision, row.position, row.id, { cause: error });
  }
};

/** The envelope is stored as JSON text and parsed on every read; decoding is the engine's job (after upcasting). */
export const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  id: row.id,
  stream: row.stream,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: parseColumn(row, row.data) as RecordedEvent['data'],
  metadata: parseColumn(row, row.metadata) as RecordedEvent['metadata'],
});
