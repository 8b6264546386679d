/** Row shapes as SQLite returns them, and the mapping back to the envelope. */
import type { RecordedEvent } from '../../events/envelope.js';

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

/** The envelope is stored as JSON text and parsed on every read; decoding is the engine's job (after upcasting). */
export const toRecordedEvent = (row: EventRow): RecordedEvent => ({
  id: row.id,
  stream: row.stream,
  revision: row.revision,
  position: row.position,
  type: row.type,
  data: JSON.parse(row.data) as RecordedEvent['data'],
  metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
});
