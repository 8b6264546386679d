/**
 * A Server lifecycle rig over real HTTP: the OpenStack simulator (manual clock) on 127.0.0.1, Regent's
 * clients as the demo project, the embedded resource store, an engine with the create/delete effect
 * handlers, and helpers to run one Server pass at a time and render its status as the status runner
 * does. The passes' clock is the simulator's, so advancing it moves Nova's transitions and Regent's
 * backoffs together.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { Engine } from '../../src/engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { createServerHandler, deleteServerHandler } from '../../src/provider/servers.js';
import { createNetworkHandler, deleteNetworkHandler } from '../../src/provider/networks.js';
import { reconcileServer } from '../../src/controllers/server/reconcile.js';
import { reconcileNetwork } from '../../src/controllers/network/reconcile.js';
import { StatusRunner } from '../../src/status/runner.js';
import { MemoryCheckpoint } from '../../src/status/checkpoint.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Disposition } from '../../src/controllers/disposition.js';
import { serverLifecycleStream } from '../../machines/server-lifecycle.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import { statusRunnerParts } from '../../src/app/kinds.js';

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}

export interface RenderedServerStatus {
  provisioningStatus?: string;
  serverID?: string;
  conditions?: Condition[];
}

export interface LifecycleRig {
  sim: RunningSimulator;
  os: OpenStackSession;
  /** The admin project's session (quotas, flavors). */
  admin: OpenStackSession;
  engine: Engine;
  store: MemoryEventStore;
  source: EmbeddedResourceSource;
  /** Applies a Server named `name` on Network net-a (image/flavor as YAML flow maps). */
  applyServer(name: string, options?: { image?: string; flavor?: string }): Promise<void>;
  pass(name: string): Promise<Disposition>;
  status(name: string): Promise<RenderedServerStatus>;
  available(name: string): Promise<Condition | undefined>;
  lifecycle(name: string): Promise<{ state: string; context: LifecycleContext; types: string[] }>;
  advance(ms: number): void;
  close(): Promise<void>;
}

export const startLifecycleRig = async (): Promise<LifecycleRig> => {
  const sim = await startSimulator({ clock: 'manual' });
  const cloud = (name: string) => cloudFromYaml(sim.cloudsYaml(), name);
  const os = await connect(cloud('sim-demo'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 });
  const admin = await connect(cloud('sim-admin'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 });
  const dir = mkdtempSync(join(tmpdir(), 'regent-lifecycle-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = new MemoryEventStore();
  const engine = new Engine({
    store,
    registry: createProductRegistry(),
    handlers: {
      'nova.createServer': createServerHandler(os, () => undefined),
      'nova.deleteServer': deleteServerHandler(os),
      'neutron.createNetwork': createNetworkHandler(os),
      'neutron.deleteNetwork': deleteNetworkHandler(os),
    },
  });
  const logger = silentLogger();
  const now = () => new Date(sim.clock.now());
  const runner = new StatusRunner({ store, engine, source, checkpoint: new MemoryCheckpoint(), logger, ...statusRunnerParts(['Server', 'Network']), now });
  await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
`);
  const network = await reconcileNetwork({ engine, source, os, now }, 'default', 'net-a');
  if (network.kind !== 'done') throw new Error(`the rig's Network did not come up: ${JSON.stringify(network)}`);
  const uidOf = async (name: string) => {
    const object = await source.get('Server', 'default', name);
    if (!object) throw new Error(`no Server ${name}`);
    return object.metadata.uid;
  };
  const status = async (name: string) => {
    await runner.render({ kind: 'Server', namespace: 'default', name });
    return ((await source.get('Server', 'default', name))?.status ?? {}) as RenderedServerStatus;
  };
  return {
    sim,
    os,
    admin,
    engine,
    store,
    source,
    applyServer: async (name, options = {}) => {
      await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name} }
spec:
  name: ${name}
  image: ${options.image ?? `{ id: ${SEED.images.cirros} }`}
  flavor: ${options.flavor ?? '{ name: m1.small }'}
  networkID: net-a
  sshInjection: none
`);
    },
    pass: (name) => reconcileServer({ engine, source, os, logger, now }, 'default', name),
    status,
    available: async (name) => (await status(name)).conditions?.find((c) => c.type === 'Available'),
    lifecycle: async (name) => {
      const stream = serverLifecycleStream(await uidOf(name));
      const loaded = await engine.load(stream);
      return { state: String(loaded.snapshot.value), context: loaded.snapshot.context as LifecycleContext, types: (await store.readStream(stream)).map((e) => e.type) };
    },
    advance: (ms) => sim.clock.advance(ms),
    close: async () => {
      await source.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
