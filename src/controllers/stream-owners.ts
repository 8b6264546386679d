/**
 * Which resource an event stream belongs to: the one map every part of the control plane asks (issue 25: the
 * status runner, effect scopes, event subjects and the monitor each had a parser of their own, and two in-memory
 * Nova-id maps joined rebuild streams to Servers).
 *
 * Streams are named after what OpenStack cannot rename: a resource's uid, or for a rebuild the Nova server id.
 * Each kind declares the stream prefixes it owns (its wiring's `streams`, src/app/kind.ts), so this map is built
 * from the same table that registers the kinds. The one join that is not in a stream's name — a Nova server id to
 * its Server — is durable: the Server's lifecycle stream records the id it created or adopted (`resourceId`), and
 * `warm` reads it back from the store at start, so a restart loses nothing; passes keep it current (`noteNovaServer`).
 */
import type { Engine } from '../engine/engine.js';
import type { EventStore } from '../store/port.js';
import type { KindName } from '../resources/index.js';
import type { MachineDefinition } from '../../machines/definition.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';

/** How a stream names its resource after the prefix. */
export type StreamKey =
  /** the resource's uid is the rest of the name */
  | 'uid'
  /** the resource's uid is the first 36 characters after the prefix (volume-attachment-<server uid>-<volume uid>) */
  | 'uid-prefix'
  /** a Nova server id: its Server is found through the lifecycle's recorded id */
  | 'nova-server';

export interface StreamOwnership {
  prefix: string;
  kind: KindName;
  key: StreamKey;
}

export interface StreamOwner {
  kind: KindName;
  uid: string;
}

const UID_LENGTH = 36;

export class StreamOwners {
  private readonly serverUidByNovaId = new Map<string, string>();
  /** The kind of a Nova server's resource when it is not a Server (a WorkloadMachine's server, issue 29). */
  private readonly kindByNovaId = new Map<string, KindName>();
  /** Longest prefix first: `server-lifecycle-` must not be read as a shorter prefix's stream. */
  private readonly ownerships: readonly StreamOwnership[];

  constructor(
    ownerships: readonly StreamOwnership[],
    /** Whether a resource of this kind and uid exists (informer caches): a prefix shared by several kinds is resolved by it. */
    private readonly exists: (kind: KindName, uid: string) => boolean,
  ) {
    this.ownerships = [...ownerships].sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** The resource a stream belongs to, or undefined (not a resource's stream, or a Nova id no Server recorded). */
  ownerOf(stream: string): StreamOwner | undefined {
    const matching = this.ownerships.find((o) => stream.startsWith(o.prefix));
    if (!matching) return undefined;
    const rest = stream.slice(matching.prefix.length);
    if (matching.key === 'nova-server') {
      const uid = this.serverUidByNovaId.get(rest);
      return uid === undefined ? undefined : { kind: this.kindByNovaId.get(rest) ?? matching.kind, uid };
    }
    const uid = matching.key === 'uid-prefix' ? rest.slice(0, UID_LENGTH) : rest;
    const kinds = this.ownerships.filter((o) => o.prefix === matching.prefix).map((o) => o.kind);
    // a prefix one kind owns names it whether or not the resource still exists; one several kinds share
    // (scope-reachability-<uid>) names the kind that has the uid
    if (kinds.length === 1) return { kind: matching.kind, uid };
    const kind = kinds.find((k) => this.exists(k, uid));
    return kind === undefined ? undefined : { kind, uid };
  }

  /** The Server a Nova server id belongs to (its uid). */
  serverOfNovaId(novaId: string): string | undefined {
    return this.serverUidByNovaId.get(novaId);
  }

  /** Nova server ids known to belong to a Server. */
  isManagedNovaServer(novaId: string): boolean {
    return this.serverUidByNovaId.has(novaId);
  }

  /** A pass learned (or the lifecycle recorded) which Nova server a Server (or another kind's resource) has. */
  noteNovaServer(novaId: string, serverUid: string, kind: KindName = 'Server'): void {
    this.serverUidByNovaId.set(novaId, serverUid);
    if (kind === 'Server') this.kindByNovaId.delete(novaId);
    else this.kindByNovaId.set(novaId, kind);
  }

  /**
   * Reads the Nova ids another kind's streams recorded (a WorkloadMachine's `serverId`), so its rebuild stream resolves
   * to it after a restart as a Server's does.
   */
  async warmKind<TContext>(store: EventStore, engine: Engine, definition: MachineDefinition<TContext>, kind: KindName, novaIdOf: (context: TContext) => string | null | undefined): Promise<number> {
    let found = 0;
    for (const { stream } of await store.listStreams({ streamPrefixes: [definition.streamPrefix] })) {
      const novaId = novaIdOf((await engine.load(definition, stream)).context);
      if (!novaId) continue;
      this.noteNovaServer(novaId, stream.slice(definition.streamPrefix.length), kind);
      found++;
    }
    return found;
  }

  /**
   * Reads every Server lifecycle stream's recorded Nova id, so rebuild streams resolve from the first moment after a
   * restart, before any pass has run (the monitor polls at once; the status runner renders what it is behind on).
   */
  async warm(store: EventStore, engine: Engine, lifecycle: MachineDefinition<LifecycleContext>): Promise<number> {
    const lifecyclePrefix = lifecycle.streamPrefix;
    let found = 0;
    for (const { stream } of await store.listStreams({ streamPrefixes: [lifecyclePrefix] })) {
      const novaId = (await engine.load(lifecycle, stream)).context.resourceId;
      if (!novaId) continue;
      this.serverUidByNovaId.set(novaId, stream.slice(lifecyclePrefix.length));
      found++;
    }
    return found;
  }
}
