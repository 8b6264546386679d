/**
 * A plan rig over real HTTP: the OpenStack simulator (manual clock) on 127.0.0.1, Regent's clients as the demo
 * project standing for Region `default`, the embedded resource store and a sqlite event store in a temporary
 * folder, and the control plane's own Network and Server passes (their wirings, built from src/plan/plane.ts's
 * services over the REAL store, source and cloud, with their real effect handlers) to bring a Server up and to run
 * the real pass a plan is compared with.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, SEED, type RunningSimulator } from '../../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../../src/openstack/session.js';
import { cloudFromYaml, type CloudConfig } from '../../../src/openstack/keystone/clouds-config.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../../src/kube/embedded/store.js';
import { applyManifests, parseManifestFiles } from '../../../src/kube/cli/manifests.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore } from '../../../src/store/port.js';
import { Engine } from '../../../src/engine/engine.js';
import { createProductRegistry } from '../../../machines/index.js';
import { silentLogger } from '../../../src/log/logger.js';
import { kindTable } from '../../../src/app/kinds.js';
import type { KindRuntime } from '../../../src/controllers/kind.js';
import type { Disposition } from '../../../src/controllers/disposition.js';
import { assemblePlane } from '../../../src/plan/plane.js';
import { plan, type PlanOptions } from '../../../src/plan/planner.js';
import type { Plan } from '../../../src/plan/report.js';
import { serverLifecycleStream } from '../../../machines/server-lifecycle.js';
import type { LifecycleContext } from '../../../machines/lifecycle.js';

export const IMAGES = { A: SEED.images.cirros, B: SEED.images.ubuntu, C: SEED.images.debian };

export const NETWORK = `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: default }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
`;

export const serverManifest = (name: string, image: string, flavor = 'm1.small') => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name} }
spec:
  name: ${name}
  image: { id: ${image} }
  flavor: { name: ${flavor} }
  networkID: net-a
  sshInjection: none
`;

export interface PlanRig {
  dir: string;
  sim: RunningSimulator;
  cloud: CloudConfig;
  os: OpenStackSession;
  store: EventStore;
  source: EmbeddedResourceSource;
  engine: Engine;
  /** The real Server pass (the control plane's wiring), over the real store, source and cloud. */
  pass(name: string): Promise<Disposition>;
  /** Real passes (advancing the simulator's clock between them) until the Server is present and ACTIVE. */
  bringUp(name: string, image: string): Promise<string>;
  /** The Nova id the Server's lifecycle recorded. */
  serverId(name: string): Promise<string | undefined>;
  /** A plan of manifest text over the rig's stores and cloud. */
  plan(text: string, extra?: Partial<PlanOptions>): Promise<Plan>;
  close(): Promise<void>;
}

export const startPlanRig = async (): Promise<PlanRig> => {
  const sim = await startSimulator({ clock: 'manual' });
  const cloud = cloudFromYaml(sim.cloudsYaml(), 'sim-demo');
  const connectOptions = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 };
  const os = await connect(cloud, connectOptions);
  const dir = mkdtempSync(join(tmpdir(), 'regent-plan-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
  const logger = silentLogger();
  const engine = new Engine({ store, registry: createProductRegistry(), logger });
  const table = kindTable();
  const plane = await assemblePlane({ engine, store, source, logger, table, connect: (c) => connect(c, connectOptions), processRegion: { name: 'default', cloud, session: os } });
  const runtimes = new Map<string, KindRuntime>();
  for (const wiring of table) {
    if (wiring.kind !== 'Network' && wiring.kind !== 'Server') continue;
    const runtime = wiring.build?.(plane.services) as KindRuntime;
    runtimes.set(wiring.kind, runtime);
    for (const [type, handler] of Object.entries(runtime.handlers ?? {})) engine.handle(type, handler);
  }
  const run = async (kind: 'Network' | 'Server', name: string): Promise<Disposition> => {
    await plane.refresh();
    const runtime = runtimes.get(kind) as KindRuntime;
    for (const object of plane.services.lookups.list(kind)) runtime.onObject?.(object);
    return (runtime.reconcile as (key: string) => Promise<Disposition>)(`default/${name}`);
  };
  await applyManifests(source, NETWORK);
  for (let i = 0; i < 5 && (await run('Network', 'net-a')).kind !== 'done'; i++) sim.clock.advance(1_000);
  const serverId = async (name: string) => {
    const object = await source.get('Server', 'default', name);
    if (!object) return undefined;
    const loaded = await engine.load(serverLifecycleStream(object.metadata.uid));
    return (loaded.snapshot.context as LifecycleContext).resourceId ?? undefined;
  };
  return {
    dir,
    sim,
    cloud,
    os,
    store,
    source,
    engine,
    pass: (name) => run('Server', name),
    bringUp: async (name, image) => {
      await applyManifests(source, serverManifest(name, image));
      for (let i = 0; i < 10; i++) {
        const d = await run('Server', name);
        sim.clock.advance(1_500);
        const id = await serverId(name);
        if (id && d.kind === 'done') {
          const server = await os.nova.getServer(id);
          if (server.status.kind === 'value' && server.status.value === 'ACTIVE') return id;
        }
      }
      throw new Error(`Server ${name} did not come up`);
    },
    serverId,
    plan: async (text, extra = {}) =>
      plan({
        store,
        source,
        documents: parseManifestFiles([{ file: 'plan.yaml', text }]),
        connect: (c) => connect(c, connectOptions),
        processRegion: { name: 'default', cloud, session: os },
        ...extra,
      }),
    close: async () => {
      await source.close();
      await store.close();
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
