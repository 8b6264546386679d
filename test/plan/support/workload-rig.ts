/**
 * The workload kinds' plan rig, over real HTTP: the OpenStack simulator (manual clock) on 127.0.0.1, Regent's clients
 * as the demo project standing for Region `default`, the Identity `acme` on it, a network and subnet of that project
 * for the clusters (a WorkloadCluster brings its own), the embedded resource store and a sqlite event store in a
 * temporary folder — and ONE plane (src/plan/plane.ts's services over the REAL store, source and cloud) from which
 * the control plane's own WorkloadCluster, WorkloadMachine, LoadBalancer and Server wirings are built, every handler
 * of theirs registered (the API load balancer's Octavia handlers are the LoadBalancer kind's, a running machine's
 * `nova.rebuild` the Server kind's; one plane, so the stream-owner map that scopes them is the passes' own). Its passes
 * bring clusters and machines up and are the real pass a plan is compared with.
 *
 * Its plans run the kinds with the exports publisher the planner hands the plan's plane (src/plan/read-only-exports.ts:
 * reads from the stored source, a publish or remove recorded).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../../src/simulator/index.js';
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
import type { KindRuntime, PlaneServices } from '../../../src/controllers/kind.js';
import type { ResourceSource } from '../../../src/kube/port.js';
import { BadRequest } from '../../../src/kube/errors.js';
import { definitionOf } from '../../../src/kube/kinds.js';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Disposition } from '../../../src/controllers/disposition.js';
import type { KindName } from '../../../src/resources/index.js';
import { assemblePlane } from '../../../src/plan/plane.js';
import { plan, type PlanOptions } from '../../../src/plan/planner.js';
import type { Plan } from '../../../src/plan/report.js';
import { exportsPublisherFor } from '../../../src/workload/exports-publisher.js';
import { workloadClusterDefinition, workloadClusterStream } from '../../../machines/workload-cluster.js';
import { workloadMachineDefinition, workloadMachineStream } from '../../../machines/workload-machine.js';
import { loadBalancerDefinition, loadBalancerStream } from '../../../machines/load-balancer.js';
import { formatState } from '../../../src/events/state-text.js';
import type { StateValue } from '../../../src/events/envelope.js';
import { NETWORK } from './rig.js';

export { IMAGES } from './rig.js';

export type Role = 'ControlPlane' | 'Worker';
export type WorkloadKind = 'WorkloadCluster' | 'WorkloadMachine';

/** The Identity `acme` of test/plan/support/rig.ts (Region `default`: the process's own cloud, the demo project). */
export const IDENTITY = NETWORK.slice(0, NETWORK.indexOf('---'));

export const clusterManifest = (name: string, subnetId: string, extra = '') => `apiVersion: regent.dev/v1alpha1
kind: WorkloadCluster
metadata: { name: ${name} }
spec:
  identityRef: { name: acme }
  subnetID: ${subnetId}
  nodeAllowedAddressCIDRs: [10.244.0.0/16]
${extra}`;

export interface MachineSpec {
  image: string;
  role?: Role;
  flavor?: string;
  userData?: string;
  tags?: Readonly<Record<string, string>>;
}

export const machineManifest = (name: string, cluster: string, spec: MachineSpec) => `apiVersion: regent.dev/v1alpha1
kind: WorkloadMachine
metadata: { name: ${name} }
spec:
  clusterRef: { name: ${cluster} }
  role: ${spec.role ?? 'Worker'}
  image: { id: ${spec.image} }
  flavorName: ${spec.flavor ?? 'm1.small'}
${spec.userData === undefined ? '' : `  userData: ${JSON.stringify(spec.userData)}\n`}${spec.tags === undefined ? '' : `  additionalTags: ${JSON.stringify(spec.tags)}\n`}`;

/**
 * A Kubernetes resource source as a plan meets it: Regent's kinds read from `embedded`, a core kind (a ConfigMap)
 * refused as src/kube/kubernetes/source.ts refuses it, and the kubeConfig of the cluster whose core API holds the
 * exports ConfigMaps (exportsPublisherFor reads them there).
 */
export const kubernetesLike = (embedded: ResourceSource, kubeConfig: KubeConfig): ResourceSource => {
  const served = (kind: KindName) => {
    if (definitionOf(kind).apiVersion !== 'regent.dev/v1alpha1') throw new BadRequest(`${kind} is not a Regent custom resource: the Kubernetes resource source serves regent.dev kinds only (read ${kind}s through the core API)`);
  };
  return Object.assign(Object.create(embedded) as ResourceSource, {
    kubeConfig,
    get: (kind: KindName, namespace: string, name: string) => (served(kind), embedded.get(kind, namespace, name)),
    list: (kind: KindName, namespace?: string) => (served(kind), embedded.list(kind, namespace)),
  });
};

export interface WorkloadRig {
  dir: string;
  sim: RunningSimulator;
  cloud: CloudConfig;
  os: OpenStackSession;
  store: EventStore;
  source: EmbeddedResourceSource;
  engine: Engine;
  /** The real plane's services (the real store, source and cloud) the rig's wirings are built from. */
  services: PlaneServices;
  networkId: string;
  subnetId: string;
  /** One real pass of the kind's wiring (over the real store, source and cloud), its effects executed. */
  pass(kind: WorkloadKind, name: string): Promise<Disposition>;
  /** The cluster's machine state (`∅`: nothing decided yet) and what it recorded; its API load balancer's state (undefined: never decided). */
  cluster(name: string): Promise<{ uid: string; state: string; partsReady: boolean; lb: string | undefined }>;
  /** The machine's state (`∅`: nothing decided yet) and the Nova server it recorded. */
  machine(name: string): Promise<{ uid: string; state: string; serverId: string | null }>;
  /** Real passes (the simulator's clock moved between them) until the cluster's parts, endpoint and exports are there. */
  bringUpCluster(name: string, extra?: string): Promise<void>;
  /** Real passes of the machine and of its cluster (which puts a control plane's address in the API pools) until it runs. */
  bringUpMachine(name: string, cluster: string, spec: MachineSpec): Promise<string>;
  /** A plan of manifest text over the rig's stores and cloud (the planner hands the plane its recording exports). */
  plan(text: string, extra?: Partial<PlanOptions>): Promise<Plan>;
  close(): Promise<void>;
}

const stateText = (loaded: { revision?: unknown; value: unknown }): string => (loaded.revision === undefined ? '∅' : formatState(loaded.value as StateValue));

const PASSED: readonly KindName[] = ['WorkloadCluster', 'WorkloadMachine', 'LoadBalancer', 'Server'];

export const startWorkloadRig = async (): Promise<WorkloadRig> => {
  const sim = await startSimulator({ clock: 'manual' });
  const cloud = cloudFromYaml(sim.cloudsYaml(), 'sim-demo');
  const connectOptions = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 };
  const os = await connect(cloud, connectOptions);
  const network = await os.neutron.createNetwork({ name: 'workload-net' });
  const subnet = await os.neutron.createSubnet({ name: 'workload-subnet', network_id: network.id, cidr: '10.20.0.0/24', ip_version: 4 });
  const dir = mkdtempSync(join(tmpdir(), 'regent-plan-workload-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
  const logger = silentLogger();
  const engine = new Engine({ store, registry: createProductRegistry(), logger });
  const table = kindTable();
  const plane = await assemblePlane({ engine, store, source, logger, table, connect: (c) => connect(c, connectOptions), processRegion: { name: 'default', cloud, session: os } });
  const runtimes = new Map<KindName, KindRuntime>();
  for (const wiring of table) {
    if (!PASSED.includes(wiring.kind)) continue;
    const runtime = wiring.build?.(plane.services) as KindRuntime;
    runtimes.set(wiring.kind, runtime);
    for (const [type, handler] of Object.entries(runtime.handlers ?? {})) engine.handle(type, handler);
  }
  await applyManifests(source, IDENTITY);

  const pass = async (kind: WorkloadKind, name: string): Promise<Disposition> => {
    await plane.refresh();
    const runtime = runtimes.get(kind) as KindRuntime;
    for (const object of plane.services.lookups.list(kind)) runtime.onObject?.(object);
    return (runtime.reconcile as (key: string) => Promise<Disposition>)(`default/${name}`);
  };
  const uidOf = async (kind: WorkloadKind, name: string): Promise<string> => {
    const object = await source.get(kind, 'default', name);
    if (!object) throw new Error(`${kind} ${name} is not stored`);
    return object.metadata.uid;
  };
  const cluster = async (name: string) => {
    const uid = await uidOf('WorkloadCluster', name);
    const loaded = await engine.load(workloadClusterDefinition, workloadClusterStream(uid));
    const lb = await engine.load(loadBalancerDefinition, loadBalancerStream(uid));
    return { uid, state: stateText(loaded), partsReady: loaded.context.partsReady, lb: lb.revision === undefined ? undefined : stateText(lb) };
  };
  const machine = async (name: string) => {
    const uid = await uidOf('WorkloadMachine', name);
    const loaded = await engine.load(workloadMachineDefinition, workloadMachineStream(uid));
    return { uid, state: stateText(loaded), serverId: loaded.context.serverId };
  };
  const exports = exportsPublisherFor(source);

  return {
    dir,
    sim,
    cloud,
    os,
    store,
    source,
    engine,
    services: plane.services,
    networkId: network.id,
    subnetId: subnet.id,
    pass,
    cluster,
    machine,
    bringUpCluster: async (name, extra = '') => {
      await applyManifests(source, clusterManifest(name, subnet.id, extra));
      for (let i = 0; i < 40; i++) {
        await pass('WorkloadCluster', name);
        sim.clock.advance(1_500);
        const c = await cluster(name);
        if (c.partsReady && c.lb === 'provisioned' && (await exports.read('default', name)) !== undefined) return;
      }
      throw new Error(`WorkloadCluster ${name} did not come up: ${JSON.stringify(await cluster(name))}`);
    },
    bringUpMachine: async (name, clusterName, spec) => {
      await applyManifests(source, machineManifest(name, clusterName, spec));
      for (let i = 0; i < 40; i++) {
        await pass('WorkloadMachine', name);
        await pass('WorkloadCluster', clusterName);
        sim.clock.advance(1_500);
        const m = await machine(name);
        if (m.state === 'running' && m.serverId) return m.serverId;
      }
      throw new Error(`WorkloadMachine ${name} did not come up: ${JSON.stringify(await machine(name))}`);
    },
    plan: (text, extra = {}) =>
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
