/** Reads a stream page by page, so replaying 100,000 events never holds them all in memory. */
import type { RecordedEvent } from '../events/envelope.js';
import type { EventStore } from '../store/port.js';

export async function* streamEvents(store: EventStore, stream: string, fromRevision = 0, pageSize = 1000): AsyncGenerator<RecordedEvent> {
  let from = fromRevision;
  for (;;) {
    const page = await store.readStream(stream, { fromRevision: from, maxCount: pageSize });
    yield* page;
    const last = page[page.length - 1];
    if (page.length < pageSize || !last) return;
    from = last.revision + 1;
  }
}
