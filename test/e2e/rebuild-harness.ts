/**
 * A rebuild rig over real HTTP: the OpenStack simulator (manual clock) on 127.0.0.1, Regent's clients
 * connected as the demo project, an engine with the nova.rebuild handler, the monitor, and helpers to
 * run passes and count what Nova actually accepted.
 */
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import type { EventStore } from '../../src/store/port.js';
import { createProductRegistry } from '../../machines/index.js';
import { novaRebuildHandler } from '../../src/controllers/server-rebuild/nova-rebuild-effect.js';
import { reconcileServerImage } from '../../src/controllers/server-rebuild/reconcile.js';
import { ServerMonitor } from '../../src/controllers/server-monitor/monitor.js';
import { serverRebuildStream, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import { silentLogger } from '../../src/log/logger.js';

export const IMAGES = { A: SEED.images.cirros, B: SEED.images.ubuntu, C: SEED.images.debian };

export interface RebuildRig {
  sim: RunningSimulator;
  os: OpenStackSession;
  engine: Engine;
  store: EventStore;
  monitor: ServerMonitor;
  createServer(name: string, image?: string): Promise<string>;
  pass(serverId: string, desiredImage: string): ReturnType<typeof reconcileServerImage>;
  poll(): ReturnType<ServerMonitor['pollOnce']>;
  advance(ms: number): void;
  marker(serverId: string): Promise<ServerRebuildContext['marker']>;
  context(serverId: string): Promise<ServerRebuildContext>;
  /** Rebuild actions Nova answered 202 to. */
  acceptedRebuilds(serverId?: string): number;
  rebuildCalls(serverId?: string): ReturnType<RunningSimulator['calls']>;
  close(): Promise<void>;
}

export const startRebuildRig = async (options: { store?: EventStore; sim?: RunningSimulator; timeoutMs?: number } = {}): Promise<RebuildRig> => {
  const sim = options.sim ?? (await startSimulator({ clock: 'manual' }));
  const os = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-demo'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: options.timeoutMs ?? 5_000 });
  const store = options.store ?? new MemoryEventStore();
  const engine = new Engine({ store, registry: createProductRegistry(), handlers: { 'nova.rebuild': novaRebuildHandler(os.nova) } });
  const logger = silentLogger();
  const monitor = new ServerMonitor({ engine, nova: os.nova, logger, isManaged: () => true });
  const small = (await os.nova.findFlavorByName('m1.small')).id;
  const rebuildCalls = (serverId?: string) =>
    sim.calls({ method: 'POST' }).filter((c) => c.action === 'rebuild' && (serverId === undefined || c.path.includes(serverId)));
  return {
    sim,
    os,
    engine,
    store,
    monitor,
    createServer: async (name, image = IMAGES.A) => {
      const { id } = await os.nova.createServer({ name, imageRef: image, flavorRef: small, networks: 'none' });
      sim.clock.advance(1_000);
      return id;
    },
    // The pass's clock is the simulator's: advancing it moves both Nova's transitions and Regent's windows.
    pass: (serverId, desiredImage) => reconcileServerImage({ engine, nova: os.nova, logger, now: () => new Date(sim.clock.now()) }, { serverId, desiredImage }),
    poll: () => monitor.pollOnce(),
    advance: (ms) => sim.clock.advance(ms),
    marker: async (serverId) => ((await engine.load(serverRebuildStream(serverId))).snapshot.context as ServerRebuildContext).marker,
    context: async (serverId) => (await engine.load(serverRebuildStream(serverId))).snapshot.context as ServerRebuildContext,
    acceptedRebuilds: (serverId) => rebuildCalls(serverId).filter((c) => c.status === 202).length,
    rebuildCalls,
    close: async () => {
      if (!options.sim) await sim.close();
    },
  };
};
