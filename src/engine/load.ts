/**
 * Loading a stream's state: read → upcast (migrations/) → decode → fold. Keeps a bounded in-memory
 * cache of folded snapshots keyed by stream and machine version; because streams are append-only, a
 * cached snapshot at revision r plus the events after r is the same state as a full fold.
 *
 * Whatever is stored, reading it throws nothing but QuarantinedEvent for a bad event: metadata that is not an object,
 * another machine, a schemaVersion that is not an integer, a payload that does not decode, and a row the store cannot
 * parse (a truncated JSON row in SQLite) are each a quarantine at their revision (readStoredPages).
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { RecordedEvent } from '../events/envelope.js';
import type { EventStore } from '../store/port.js';
import { UnreadableStoredEvent } from '../store/errors.js';
import type { MachineDefinition, Stimulus } from '../../machines/definition.js';
import type { MachineRegistry } from '../../machines/registry.js';
import { upcast, type Upcaster } from '../../migrations/upcaster.js';
import { decodeWith } from '../events/decode.js';
import { QuarantinedEvent } from './errors.js';
import { advance, initialSnapshot } from './fold.js';

export interface LoadedStream {
  definition: MachineDefinition;
  snapshot: AnyMachineSnapshot;
  /** Head revision, or undefined when the stream does not exist yet. */
  revision: number | undefined;
  /** The stream's last event, when there is one. */
  last: RecordedEvent | undefined;
}

/** The stimulus a stored event carries, upcast and decoded with the current codec; throws QuarantinedEvent. */
export const storedStimulus = (definition: MachineDefinition, upcasters: readonly Upcaster[], event: RecordedEvent): Stimulus => {
  const quarantine = (problem: string): never => {
    throw new QuarantinedEvent(event.stream, event.revision, event.id, problem);
  };
  const metadata: unknown = event.metadata;
  if (!isRecord(metadata)) return quarantine(`metadata is ${describeJsonType(metadata)}, not an object`);
  if (metadata.machine !== definition.id) {
    quarantine(`recorded by machine ${describeStored(metadata.machine)}, but ${definition.id} owns this stream`);
  }
  const { schemaVersion } = metadata;
  if (typeof schemaVersion !== 'number' || !Number.isSafeInteger(schemaVersion)) return quarantine(`metadata.schemaVersion ${describeStored(schemaVersion)} is not an integer`);
  let data: Record<string, unknown>;
  try {
    data = upcast(upcasters, definition.id, event.data, schemaVersion, definition.schemaVersion);
  } catch (error) {
    return quarantine((error as Error).message);
  }
  // Fast path: a structurally valid payload needs no Either allocation; decode only to explain a failure.
  if (definition.stimulus.is(data)) return data;
  const decoded = decodeWith(definition.stimulus, data);
  if (!decoded.ok) return quarantine(decoded.problems.join('; '));
  return decoded.value;
};

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

const describeJsonType = (u: unknown): string => (u === null ? 'null' : Array.isArray(u) ? 'an array' : `a ${typeof u}`);

/** A stored value as a problem names it: JSON, cut short (a corrupted field may be anything, of any size). */
const describeStored = (u: unknown): string => {
  const text = JSON.stringify(u) ?? 'nothing';
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

/**
 * A stream's events page by page (as streamPages), where a row the store cannot parse (UnreadableStoredEvent, e.g.
 * a truncated JSON row in SQLite) becomes a QuarantinedEvent at that row's revision instead of a crash. Store failures (StoreUnavailable) pass through: they are not the history's fault.
 */
export async function* readStoredPages(store: EventStore, stream: string, fromRevision = 0, pageSize = 1000): AsyncGenerator<RecordedEvent[]> {
  let from = fromRevision;
  for (;;) {
    let page: RecordedEvent[];
    try {
      page = await store.readStream(stream, { fromRevision: from, maxCount: pageSize });
    } catch (error) {
      if (!(error instanceof UnreadableStoredEvent)) throw error;
      throw new QuarantinedEvent(stream, error.revision, error.eventId, error.problem);
    }
    if (page.length > 0) yield page;
    const last = page[page.length - 1];
    if (page.length < pageSize || !last) return;
    from = last.revision + 1;
  }
}

export class StreamLoader {
  private readonly cache = new Map<string, LoadedStream>();

  constructor(
    private readonly store: EventStore,
    private readonly registry: MachineRegistry,
    private readonly upcasters: readonly Upcaster[],
    private readonly cacheLimit = 10_000,
  ) {}

  async load(stream: string): Promise<LoadedStream> {
    const definition = this.registry.forStream(stream);
    const cached = this.cache.get(stream);
    let state: LoadedStream =
      cached && cached.definition === definition
        ? cached
        : { definition, snapshot: initialSnapshot(definition, stream), revision: undefined, last: undefined };
    const from = state.revision === undefined ? 0 : state.revision + 1;
    let { snapshot, revision, last } = state;
    for await (const page of readStoredPages(this.store, stream, from)) {
      for (const event of page) snapshot = advance(definition, snapshot, storedStimulus(definition, this.upcasters, event));
      last = page[page.length - 1];
      revision = last?.revision;
    }
    state = { definition, snapshot, revision, last };
    this.remember(stream, state);
    return state;
  }

  /** Records the state after a successful append, so the next load reads nothing. */
  remember(stream: string, state: LoadedStream): void {
    this.cache.delete(stream);
    this.cache.set(stream, state);
    if (this.cache.size > this.cacheLimit) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }

  forget(stream: string): void {
    this.cache.delete(stream);
  }
}
