/**
 * Decodes every stored event with the current envelope codec, upcasters and stimulus codecs (`regent migrate verify`).
 * A row the store cannot parse at all (a truncated JSON row in SQLite: UnreadableStoredEvent) does not end the check:
 * the rows before it are read one at a time, it is reported with its stream, revision and position, and the check
 * goes on after it.
 */
import { RecordedEvent } from '../events/envelope.js';
import { decodeWith } from '../events/decode.js';
import type { EventStore } from '../store/port.js';
import { UnreadableStoredEvent } from '../store/errors.js';
import type { MachineRegistry } from '../../machines/registry.js';
import { upcasters as shippedUpcasters } from '../../migrations/index.js';
import type { Upcaster } from '../../migrations/upcaster.js';
import { QuarantinedEvent } from './errors.js';
import { storedStimulus } from './load.js';

export interface StoredEventFailure {
  stream: string;
  revision: number;
  position: number;
  eventId: string;
  type: string;
  problem: string;
}

/** The type reported for a row the store cannot parse. */
const UNREADABLE = '(unreadable)';

/** Up to `maxCount` events of the whole history after `after`, or the first row in them that cannot be parsed. */
const readPage = async (store: EventStore, after: number, maxCount: number): Promise<RecordedEvent[] | UnreadableStoredEvent> => {
  try {
    return await store.readAll({ after, maxCount });
  } catch (error) {
    if (error instanceof UnreadableStoredEvent) return error;
    throw error;
  }
};

/** Checks one readable event: its envelope, its machine, its payload (upcast and decoded). */
const problemOf = (event: RecordedEvent, registry: MachineRegistry, upcasters: readonly Upcaster[]): string | undefined => {
  const envelope = decodeWith(RecordedEvent, event);
  if (!envelope.ok) return `envelope: ${envelope.problems.join('; ')}`;
  try {
    storedStimulus(registry.get(event.metadata.machine), upcasters, event);
    return undefined;
  } catch (error) {
    return error instanceof QuarantinedEvent ? error.problem : (error as Error).message;
  }
};

export const verifyStoredEvents = async (
  store: EventStore,
  registry: MachineRegistry,
  upcasters: readonly Upcaster[] = shippedUpcasters,
  pageSize = 1000,
): Promise<{ checked: number; failures: StoredEventFailure[] }> => {
  const failures: StoredEventFailure[] = [];
  let checked = 0;
  let after = 0;
  const check = (event: RecordedEvent): void => {
    checked++;
    const problem = problemOf(event, registry, upcasters);
    if (problem !== undefined) failures.push({ stream: event.stream, revision: event.revision, position: event.position, eventId: event.id, type: event.type, problem });
  };
  for (;;) {
    const page = await readPage(store, after, pageSize);
    if (page instanceof UnreadableStoredEvent) {
      // The rows before the unreadable one, one at a time (a page is read whole or not at all); then step past it.
      for (;;) {
        const single = await readPage(store, after, 1);
        if (single instanceof UnreadableStoredEvent) {
          failures.push({ stream: single.stream, revision: single.revision, position: single.position, eventId: single.eventId, type: UNREADABLE, problem: single.problem });
          after = single.position;
          break;
        }
        const [event] = single;
        if (!event) break;
        check(event);
        after = event.position;
      }
      continue;
    }
    for (const event of page) check(event);
    const last = page[page.length - 1];
    if (page.length < pageSize || !last) break;
    after = last.position;
  }
  return { checked, failures };
};
