/**
 * A plan rig for Volumes and the volume attachments a Server's pass decides, over real HTTP: the OpenStack simulator
 * (manual clock) on 127.0.0.1, a Region resource `default` (the demo project's credentials, no managed domain) that
 * exports the ssd VolumeClass, Identity acme, Network net-a; the embedded resource store and a sqlite event store in
 * a temporary folder; and the control plane's own Identity, Network, Volume and Server passes (their wirings, built
 * from src/plan/plane.ts's services over the REAL store, source and cloud, with their real effect handlers), to bring
 * Volumes and Servers to a state and to run the real pass a plan is compared with.
 *
 * (test/plan/support/rig.ts stands the process's cloud in for Region `default`, which exports no VolumeClass: a
 * Volume there could only be refused its class, so this rig names the Region.)
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
import { volumeLifecycleStream, type VolumeContext } from '../../../machines/volume-lifecycle.js';
import { IMAGES } from './rig.js';

export { IMAGES };

/** The VolumeClass the Region exports (Cinder's ssd type); `standard` exists in Cinder but is not exported. */
export const CLASSES = { ssd: SEED.volumeTypes.ssd, standard: SEED.volumeTypes.standard };

const SECRET = 'default-credentials';

export const FOUNDATION = (sim: RunningSimulator) => `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: default }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: ${SECRET} }
    blockStorage:
      volumeClasses:
        selector: { ids: [${CLASSES.ssd}] }
        metadata:
          - { id: ${CLASSES.ssd}, minCapacityGiB: 1, maxCapacityGiB: 100, media: ssd }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: default }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
`;

export const volumeManifest = (name: string, size = 1, volumeClass = CLASSES.ssd, tags?: Record<string, string>) => `apiVersion: regent.dev/v1alpha1
kind: Volume
metadata: { name: ${name} }
spec:
  networkID: net-a
  size: ${size}
  volumeClassID: ${volumeClass}
${tags ? `  tags: ${JSON.stringify(tags)}\n` : ''}`;

/** A Server on net-a listing `volumes` (Volume resource names) in spec.volumes. */
export const serverWithVolumes = (name: string, volumes: readonly string[], image = IMAGES.A) => `apiVersion: regent.dev/v1alpha1
kind: Server
metadata: { name: ${name} }
spec:
  name: ${name}
  image: { id: ${image} }
  flavor: { name: m1.small }
  networkID: net-a
  sshInjection: none
${volumes.length > 0 ? `  volumes:\n${volumes.map((v) => `    - { volumeID: ${v} }\n`).join('')}` : ''}`;

type RunKind = 'Identity' | 'Network' | 'Volume' | 'Server';

export interface VolumeRig {
  dir: string;
  sim: RunningSimulator;
  cloud: CloudConfig;
  os: OpenStackSession;
  store: EventStore;
  source: EmbeddedResourceSource;
  engine: Engine;
  /** The real pass of a kind (the control plane's wiring), over the real store, source and cloud. */
  pass(kind: RunKind, name: string): Promise<Disposition>;
  /** Real Volume passes (advancing the simulator's clock between them) until Cinder reports it available; its Cinder id. */
  bringUpVolume(name: string, size?: number): Promise<string>;
  /** Real Server passes until the Server is ACTIVE and every volume it lists is attached; its Nova id. */
  bringUpServer(name: string, volumes: readonly string[]): Promise<string>;
  /** The Cinder id the Volume's lifecycle recorded. */
  volumeId(name: string): Promise<string | undefined>;
  /** The Nova id the Server's lifecycle recorded. */
  serverId(name: string): Promise<string | undefined>;
  /** A plan of manifest text over the rig's stores and cloud. */
  plan(text: string, extra?: Partial<PlanOptions>): Promise<Plan>;
  close(): Promise<void>;
}

const connectOptions = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 };

export const startVolumeRig = async (): Promise<VolumeRig> => {
  const sim = await startSimulator({ clock: 'manual' });
  const cloud = cloudFromYaml(sim.cloudsYaml(), 'sim-demo');
  const os = await connect(cloud, connectOptions);
  const dir = mkdtempSync(join(tmpdir(), 'regent-plan-volume-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
  const logger = silentLogger();
  const engine = new Engine({ store, registry: createProductRegistry(), logger });
  const table = kindTable();
  const plane = await assemblePlane({ engine, store, source, logger, table, connect: (c) => connect(c, connectOptions) });
  const runtimes = new Map<string, KindRuntime>();
  for (const wiring of table) {
    if (!['Identity', 'Network', 'Volume', 'Server'].includes(wiring.kind)) continue;
    const runtime = wiring.build?.(plane.services) as KindRuntime;
    runtimes.set(wiring.kind, runtime);
    for (const [type, handler] of Object.entries(runtime.handlers ?? {})) engine.handle(type, handler);
  }
  const run = async (kind: RunKind, name: string): Promise<Disposition> => {
    await plane.refresh();
    const runtime = runtimes.get(kind) as KindRuntime;
    for (const object of plane.services.lookups.list(kind)) runtime.onObject?.(object);
    return (runtime.reconcile as (key: string) => Promise<Disposition>)(`default/${name}`);
  };
  const settle = async (kind: RunKind, name: string, tries = 8) => {
    for (let i = 0; i < tries && (await run(kind, name)).kind !== 'done'; i++) sim.clock.advance(1_000);
  };
  await source.secrets.put('default', SECRET, { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-demo' });
  await applyManifests(source, FOUNDATION(sim));
  await settle('Identity', 'acme');
  await settle('Network', 'net-a');

  const volumeId = async (name: string) => {
    const object = await source.get('Volume', 'default', name);
    if (!object) return undefined;
    return ((await engine.load(volumeLifecycleStream(object.metadata.uid))).snapshot.context as VolumeContext).volumeId ?? undefined;
  };
  /** The lifecycle's state: the Server's attach pass waits for `available`. */
  const volumeState = async (name: string) => {
    const object = await source.get('Volume', 'default', name);
    return object ? (await engine.load(volumeLifecycleStream(object.metadata.uid))).snapshot.value : undefined;
  };
  const serverId = async (name: string) => {
    const object = await source.get('Server', 'default', name);
    if (!object) return undefined;
    return ((await engine.load(serverLifecycleStream(object.metadata.uid))).snapshot.context as LifecycleContext).resourceId ?? undefined;
  };
  return {
    dir,
    sim,
    cloud,
    os,
    store,
    source,
    engine,
    pass: run,
    bringUpVolume: async (name, size = 1) => {
      await applyManifests(source, volumeManifest(name, size));
      for (let i = 0; i < 10; i++) {
        await run('Volume', name);
        sim.clock.advance(1_000);
        const id = await volumeId(name);
        if (id && (await volumeState(name)) === 'available') return id;
      }
      throw new Error(`Volume ${name} did not become available`);
    },
    bringUpServer: async (name, volumes) => {
      await applyManifests(source, serverWithVolumes(name, volumes));
      for (let i = 0; i < 16; i++) {
        const d = await run('Server', name);
        sim.clock.advance(1_500);
        const id = await serverId(name);
        if (id && d.kind === 'done') {
          const server = await os.nova.getServer(id);
          if (server.status.kind === 'value' && server.status.value === 'ACTIVE') return id;
        }
      }
      throw new Error(`Server ${name} did not come up with its volumes`);
    },
    volumeId,
    serverId,
    plan: async (text, extra = {}) =>
      plan({
        store,
        source,
        documents: parseManifestFiles([{ file: 'plan.yaml', text }]),
        connect: (c) => connect(c, connectOptions),
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
