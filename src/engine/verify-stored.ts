/** Decodes every stored event with the current envelope codec, upcasters and stimulus codecs. */
import { RecordedEvent } from '../events/envelope.js';
import { decodeWith } from '../events/decode.js';
import type { EventStore } from '../store/port.js';
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

export const verifyStoredEvents = async (
  store: EventStore,
  registry: MachineRegistry,
  upcasters: readonly Upcaster[] = shippedUpcasters,
  pageSize = 1000,
): Promise<{ checked: number; failures: StoredEventFailure[] }> => {
  const failures: StoredEventFailure[] = [];
  let checked = 0;
  let after = 0;
  for (;;) {
    const page = await store.readAll({ after, maxCount: pageSize });
    for (const event of page) {
      checked++;
      const fail = (problem: string) => failures.push({ stream: event.stream, revision: event.revision, position: event.position, eventId: event.id, type: event.type, problem });
      const envelope = decodeWith(RecordedEvent, event);
      if (!envelope.ok) {
        fail(`envelope: ${envelope.problems.join('; ')}`);
        continue;
      }
      try {
        storedStimulus(registry.get(event.metadata.machine), upcasters, event);
      } catch (error) {
        fail(error instanceof QuarantinedEvent ? error.problem : (error as Error).message);
      }
    }
    const last = page[page.length - 1];
    if (page.length < pageSize || !last) break;
    after = last.position;
  }
  return { checked, failures };
};
