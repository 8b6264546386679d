/**
 * Regent's rebuild path wired the way the control plane wires it (src/app/control-plane.ts): an engine
 * over an in-memory event store with the product machines, `novaRebuildHandler` as the `nova.rebuild`
 * effect, `reconcileServerImage` as the pass and `ServerMonitor.pollOnce` as the observer — against
 * whatever Nova client it is given (the simulator's or a real cloud's).
 *
 * The Nova client is wrapped, never faked: every call goes to the cloud. The wrapper counts rebuild
 * submissions (exactly one per accepted rebuild) and does the spec's environmental check at the only
 * place it can be done exactly: the GET sent right after the rebuild's 202, before anything else.
 */
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { serverRebuildStream, type Marker, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import { reconcileServerImage } from '../../src/controllers/server-rebuild/reconcile.js';
import { novaRebuildHandler } from '../../src/controllers/server-rebuild/nova-rebuild-effect.js';
import { ServerMonitor, type PollResult } from '../../src/controllers/server-monitor/monitor.js';
import type { Disposition } from '../../src/controllers/disposition.js';
import type { NovaClient } from '../../src/openstack/nova/index.js';
import type { ServerObservation } from '../../src/openstack/decoders/server.js';
import type { Logger } from '../../src/log/logger.js';

export interface PassResult {
  outcomes: string[];
  disposition: Disposition;
}

export interface RebuildHarness {
  readonly engine: Engine;
  /** Servers the monitor treats as Regent's. */
  readonly managed: Set<string>;
  /** Rebuild POSTs sent by the effect handler (all answers counted: 202, 409, ...). */
  submits(serverId: string): number;
  /** The GET sent right after each accepted rebuild's 202, per server. */
  firstGetsAfterAccept(serverId: string): ServerObservation[];
  /** Run before the handler's POST (to race a foreign action against Regent's submit). */
  beforeSubmit: ((serverId: string) => Promise<void>) | undefined;
  pass(serverId: string, desiredImage: string): Promise<PassResult>;
  poll(): Promise<PollResult>;
  marker(serverId: string): Promise<Marker | null>;
  context(serverId: string): Promise<ServerRebuildContext>;
  /** Stored event types of the server's rebuild stream, in order. */
  eventTypes(serverId: string): Promise<string[]>;
}

export const rebuildHarness = (nova: NovaClient, logger: Logger): RebuildHarness => {
  const submits = new Map<string, number>();
  const firstGets = new Map<string, ServerObservation[]>();
  const managed = new Set<string>();
  const harness: RebuildHarness = {
    engine: undefined as unknown as Engine,
    managed,
    submits: (id) => submits.get(id) ?? 0,
    firstGetsAfterAccept: (id) => firstGets.get(id) ?? [],
    beforeSubmit: undefined,
    pass: async (serverId, desiredImage) => {
      const { disposition, decisions } = await reconcileServerImage({ engine, nova, logger }, { serverId, desiredImage });
      return { outcomes: decisions.map((d) => d.outcome ?? '(none)'), disposition };
    },
    poll: () => monitor.pollOnce(),
    marker: async (id) => (await harness.context(id)).marker,
    context: async (id) => (await engine.load(serverRebuildStream(id))).snapshot.context as ServerRebuildContext,
    eventTypes: async (id) => (await engine.store.readStream(serverRebuildStream(id))).map((e) => e.type),
  };
  const observedNova: Pick<NovaClient, 'rebuildServer'> = {
    rebuildServer: async (serverId, imageRef, options) => {
      await harness.beforeSubmit?.(serverId);
      submits.set(serverId, (submits.get(serverId) ?? 0) + 1);
      const accepted = await nova.rebuildServer(serverId, imageRef, options);
      // The spec's two environmental facts, read at the first opportunity after the 202.
      const first = await nova.getServer(serverId);
      firstGets.set(serverId, [...(firstGets.get(serverId) ?? []), first]);
      return accepted;
    },
  };
  const engine = new Engine({ store: new MemoryEventStore(), registry: createProductRegistry(), logger, handlers: { 'nova.rebuild': novaRebuildHandler(observedNova) } });
  (harness as { engine: Engine }).engine = engine;
  const monitor = new ServerMonitor({ engine, nova, logger, isManaged: (id) => managed.has(id) });
  return harness;
};
