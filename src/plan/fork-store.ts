/**
 * A fork of the event store for one plan: an in-memory store (src/store/memory.ts) that each stream is copied into,
 * from the stored one, the first time the plan touches it (read, head or append). The plan's passes append their
 * decisions to the fork; the stored streams are only ever read. `appended` lists what the plan decided, in order.
 *
 * Positions in the fork are the memory store's own: a forked stream keeps its revisions (0…n, then the plan's), but
 * its positions are not the stored ones. Nothing a pass decides reads positions (only the monitor's staleness check
 * does, and a plan runs no monitor). Whole-store reads (`readAll`, `subscribe`) are not forked: a plan refuses them.
 */
import type { NewEvent, RecordedEvent } from '../events/envelope.js';
import { MemoryEventStore } from '../store/memory.js';
import { matchesFilter, type AppendResult, type EventStore, type ExpectedRevision, type ReadStreamOptions, type StreamFilter, type StreamInfo, type Subscription } from '../store/port.js';

export class ForkedEventStore implements EventStore {
  readonly description: string;
  /** The events the plan appended (never the copied ones), in the order they were appended. */
  readonly appended: RecordedEvent[] = [];
  private readonly memory = new MemoryEventStore();
  private readonly seeding = new Map<string, Promise<void>>();

  constructor(private readonly base: EventStore) {
    this.description = `${base.description} (forked in memory, for a plan)`;
  }

  /** Copies the stored stream into the fork once (concurrent first touches share the copy). */
  private seed(stream: string): Promise<void> {
    let seeded = this.seeding.get(stream);
    if (!seeded) {
      seeded = (async () => {
        const stored = await this.base.readStream(stream);
        if (stored.length === 0) return;
        const events: NewEvent[] = stored.map((e) => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata }));
        await this.memory.append(stream, events, { expectedRevision: 'no_stream' });
      })();
      this.seeding.set(stream, seeded);
    }
    return seeded;
  }

  /** The streams the plan touched (copied, or begun in the fork). */
  touched(): string[] {
    return [...this.seeding.keys()];
  }

  async append(stream: string, events: readonly NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    await this.seed(stream);
    const result = await this.memory.append(stream, events, options);
    if (events.length > 0) this.appended.push(...(await this.memory.readStream(stream, { fromRevision: result.nextExpectedRevision - events.length + 1 })));
    return result;
  }

  async readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    await this.seed(stream);
    return this.memory.readStream(stream, options);
  }

  async streamHead(stream: string): Promise<number | undefined> {
    await this.seed(stream);
    return this.memory.streamHead(stream);
  }

  /** The stored streams, with the heads of the forked ones as the fork has them. */
  async listStreams(filter?: StreamFilter): Promise<StreamInfo[]> {
    const forked = new Map((await this.memory.listStreams(filter)).map((s) => [s.stream, s]));
    const stored = (await this.base.listStreams(filter)).filter((s) => !this.seeding.has(s.stream));
    const out = [...stored, ...[...forked.values()].filter((s) => matchesFilter(s.stream, filter))];
    return out.sort((a, b) => (a.stream < b.stream ? -1 : a.stream > b.stream ? 1 : 0));
  }

  /** Still increasing as the plan appends (see the header: not a stored position). */
  async lastPosition(): Promise<number> {
    return (await this.base.lastPosition()) + this.appended.length;
  }

  async readAll(): Promise<RecordedEvent[]> {
    throw new Error("a plan's fork of the event store reads streams one by one; readAll is not forked");
  }

  subscribe(): Subscription {
    throw new Error("a plan's fork of the event store cannot be subscribed to");
  }

  /** Closes the fork only: the stored event store is the caller's. */
  async close(): Promise<void> {
    await this.memory.close();
  }
}
