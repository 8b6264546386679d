/** Reads a stream page by page, so replaying 100,000 events never holds them all in memory. */
import type { RecordedEvent } from '../events/envelope.js';
import type { EventStore } from '../store/port.js';

/** Pages of a stream, in order (one await per page, not per event: the hot loops of load and replay). */
export async function* streamPages(store: EventStore, stream: string, fromRevision = 0, pageSize = 1000): AsyncGenerator<RecordedEvent[]> {
  let from = fromRevision;
  for (;;) {
    const page = await store.readStream(stream, { fromRevision: from, maxCount: pageSize });
    if (page.length > 0) yield page;
    const last = page[page.length - 1];
    if (page.length < pageSize || !last) return;
    from = last.revision + 1;
  }
}

/** Events of a stream, one at a time. */
export async function* streamEvents(store: EventStore, stream: string, fromRevision = 0, pageSize = 1000): AsyncGenerator<RecordedEvent> {
  for await (const page of streamPages(store, stream, fromRevision, pageSize)) yield* page;
}
