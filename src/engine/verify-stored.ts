/**
 * Decodes every stored event with the current envelope codec, upcasters and stimulus codecs (`regent migrate verify`).
 * A row the store cannot parse at all (a truncated JSON row in SQLite: the store throws SyntaxError) does not end the
 * check: it is read around, and reported with its stream and revision (its position cannot be read: -1).
 */
import { RecordedEvent } from '../events/envelope.js';
import { decodeWith } from '../events/decode.js';
import type { EventStore } from '../store/port.js';
import type { MachineRegistry } from '../../machines/registry.js';
import { upcasters as shippedUpcasters } from '../../migrations/index.js';
import type { Upcaster } from '../../migrations/upcaster.js';
import { QuarantinedEvent } from './errors.js';
import { readStoredPages, storedStimulus } from './load.js';

export interface StoredEventFailure {
  stream: string;
  revision: number;
  /** -1 for a row the store cannot parse (its position is part of what cannot be read). */
  position: number;
  eventId: string;
  type: string;
  problem: string;
}

/** The event id QuarantinedEvent carries for a row that cannot be parsed (readStoredPages). */
const UNREADABLE = '(unreadable)';

/** One page of the whole history after `after`, or 'unreadable' when a row in it cannot be parsed. */
const readPage = async (store: EventStore, after: number, maxCount: number): Promise<RecordedEvent[] | 'unreadable'> => {
  try {
    return await store.readAll({ after, maxCount });
  } catch (error) {
    if (error instanceof SyntaxError) return 'unreadable';
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

/** Every row of every stream that cannot be parsed, with its stream and revision (walked per stream). */
const unreadableRows = async (store: EventStore): Promise<StoredEventFailure[]> => {
  const failures: StoredEventFailure[] = [];
  for (const { stream } of await store.listStreams()) {
    let from = 0;
    for (;;) {
      try {
        for await (const page of readStoredPages(store, stream, from)) from = (page[page.length - 1]?.revision ?? from) + 1;
        break;
      } catch (error) {
        if (!(error instanceof QuarantinedEvent) || error.eventId !== UNREADABLE) throw error;
        failures.push({ stream, revision: error.revision, position: -1, eventId: UNREADABLE, type: UNREADABLE, problem: error.problem });
        from = error.revision + 1;
      }
    }
  }
  return failures;
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
  let unreadable = 0;
  /** Rows still to read one by one, after a page that held an unparseable row. */
  let singles = 0;
  for (;;) {
    const page = await readPage(store, after, singles > 0 ? 1 : pageSize);
    if (page === 'unreadable') {
      // Read the rest of this window one row at a time; step past the row that cannot be parsed.
      if (singles > 0) {
        unreadable++;
        after++;
      }
      singles = singles > 0 ? singles - 1 : pageSize;
      continue;
    }
    for (const event of page) {
      checked++;
      const problem = problemOf(event, registry, upcasters);
      if (problem !== undefined) failures.push({ stream: event.stream, revision: event.revision, position: event.position, eventId: event.id, type: event.type, problem });
    }
    const last = page[page.length - 1];
    if (singles > 0) {
      singles--;
      if (!last) break;
      after = last.position;
      continue;
    }
    if (page.length < pageSize || !last) break;
    after = last.position;
  }
  if (unreadable > 0) failures.push(...(await unreadableRows(store)));
  return { checked, failures };
};
