/**
 * A NovaCompute rig (issue 28): the embedded resource store on a temp sqlite file, an engine over a memory event store
 * with the pool's effect handlers, a status runner rendering the NovaCompute as `npm start` does, a Nova with its
 * status written directly (installedRelease, the contract Secret's name, the simulator's compute URL), the service
 * user's Secret and the contract Secret, Node objects in the store, and fakes of what runs on the pool's cluster
 * (./FakeComputeCluster: Nodes with a 403 switch, a recording DaemonSet/config port with a controllable status, the
 * pods, Hypervisors per node) and of the Nova's Job runner. Keystone, Nova and Placement are the simulator's, reached
 * through the real client (src/nova/compute/compute-api.ts), each opened client counted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../../src/kube/embedded/store.js';
import { MemoryEventStore } from '../../../src/store/memory.js';
import { Engine } from '../../../src/engine/engine.js';
import { productMachines } from '../../../machines/index.js';
import { MachineRegistry } from '../../../machines/registry.js';
import { novaComputePipelineDefinition } from '../../../machines/nova-pipeline.js';
import { StatusRunner } from '../../../src/status/runner.js';
import { MemoryCheckpoint } from '../../../src/status/checkpoint.js';
import { silentLogger } from '../../../src/log/logger.js';
import type { RunningSimulator } from '../../../src/simulator/index.js';
import { openComputeApi, type ComputeApi, type ComputeApiLogin } from '../../../src/nova/compute/compute-api.js';
import {
  ComputeClusterError,
  type ComputeCluster,
  type HypervisorRead,
  type NodeMeta,
  type PoolDaemonSetSpec,
  type PoolDaemonSetStatus,
} from '../../../src/nova/compute/port.js';
import type { JobRunner, JobSpec, ObservedJob } from '../../../src/nova/jobs/port.js';
import type { ConfigPort } from '../../../src/nova/config/port.js';
import { podSettings } from '../../../src/nova/config/settings.js';
import { reconcileNovaCompute } from '../../../src/controllers/nova-compute/reconcile.js';
import { novaComputeEffectHandlers } from '../../../src/controllers/nova-compute/effects.js';
import type { NovaComputeDeps } from '../../../src/controllers/nova-compute/deps.js';
import type { Disposition } from '../../../src/controllers/disposition.js';
import type { NovaCompute, NovaComputeSpec } from '../../../src/resources/nova-compute.js';
import type { NovaSpec } from '../../../src/resources/nova.js';
import type { RecordedEvent } from '../../../src/kube/port.js';
import { connectAs, FAST_RETRY } from '../../openstack/support/sim.js';

export const SERVICE_PASSWORD = 'nova-compute-rig-pw-51c2';
export const RELEASE = '2025.1';
export const ZONE = 'topology.kubernetes.io/zone';

export interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
export interface PoolStatusView {
  phase?: string;
  conditions?: Condition[];
  nodes?: Array<{ name: string; phase: string; zone?: string; traits?: string[]; servers?: number }>;
  createdTraits?: string[];
  installedImage?: string;
  desiredNumberScheduled?: number;
  numberReady?: number;
}

/** Creates the Nova service user (admin on `service`) on a freshly reset simulator. */
export const seedServiceUser = async (sim: RunningSimulator): Promise<void> => {
  const admin = await connectAs(sim, 'admin');
  const project = await admin.identityAdmin.findProject({ domainId: 'default', name: 'service' });
  const role = await admin.identityAdmin.findRoleByName('admin');
  if (project === undefined || role === undefined) throw new Error('seed has no service project or admin role');
  const user = await admin.identityAdmin.createUser({ domainId: 'default', name: 'nova', password: SERVICE_PASSWORD, defaultProjectId: project.id });
  await admin.identityAdmin.grantProjectRole({ projectId: project.id, userId: user.id, roleId: role.id });
};

export const novaSpec = (): NovaSpec => ({
  image: `ghcr.io/c5c3/nova:${RELEASE}`,
  openStackRelease: RELEASE,
  database: {
    api: { clusterRef: { name: 'maria' }, database: 'nova_api', secretRef: { name: 'nova-api-db' } },
    cell: { clusterRef: { name: 'maria' }, database: 'nova', secretRef: { name: 'nova-db' } },
  },
  messaging: { secretRef: { name: 'nova-bus', key: 'url' } },
  serviceUser: { secretRef: { name: 'nova-service-user' } },
});

/** A fake pool cluster: every call recorded, every answer controllable. */
export class FakeComputeCluster implements ComputeCluster {
  /** true: every Node read is refused with 403. */
  forbidden = false;
  /** Set: every Node read fails with this (non-403) error. */
  nodeError: Error | undefined;
  readonly ensured: PoolDaemonSetSpec[] = [];
  readonly deletedDaemonSets: string[] = [];
  readonly published: Array<{ namespace: string; name: string; files: Readonly<Record<string, string>> }> = [];
  readonly removedAll: string[] = [];
  readonly podsOnCalls: Array<readonly string[] | undefined> = [];
  /** Nodes on which a pod of the pool runs. */
  readonly pods = new Set<string>();
  /** The DaemonSet's answer (default: every node the spec resolves to runs a ready pod of the current template). */
  daemonSetStatus: (spec: PoolDaemonSetSpec) => PoolDaemonSetStatus = (spec) => ({ present: true, desiredNumberScheduled: spec.nodes.length, numberReady: spec.nodes.length, rolledOut: true, image: spec.image });
  /** Hypervisor reads by node (default: found, no custom traits). */
  readonly hypervisorReads = new Map<string, HypervisorRead>();
  readonly hypervisorGets: string[] = [];
  readonly traitPatches: Array<{ name: string; traits: string[] }> = [];

  constructor(private readonly listNodes: () => Promise<NodeMeta[]>) {}

  private async all(): Promise<NodeMeta[]> {
    if (this.forbidden) throw new ComputeClusterError('nodes is forbidden: User "system:serviceaccount:regent" cannot list resource "nodes"', 403);
    if (this.nodeError) throw this.nodeError;
    return this.listNodes();
  }

  readonly nodes = {
    list: async (selector: Readonly<Record<string, string>>): Promise<NodeMeta[]> => {
      const pairs = Object.entries(selector);
      return (await this.all()).filter((n) => pairs.every(([k, v]) => n.labels[k] === v)).sort((a, b) => a.name.localeCompare(b.name));
    },
    get: async (name: string): Promise<NodeMeta | undefined> => (await this.all()).find((n) => n.name === name),
  };

  readonly workloads = {
    ensureDaemonSet: async (spec: PoolDaemonSetSpec): Promise<PoolDaemonSetStatus> => {
      this.ensured.push(structuredClone(spec) as PoolDaemonSetSpec);
      return this.daemonSetStatus(spec);
    },
    deleteDaemonSet: async (namespace: string, pool: string): Promise<boolean> => {
      this.deletedDaemonSets.push(`${namespace}/${pool}`);
      return true;
    },
    daemonSet: async (): Promise<PoolDaemonSetStatus> => ({ present: false, desiredNumberScheduled: 0, numberReady: 0, rolledOut: true, image: null }),
    podsOn: async (_namespace: string, _pool: string, nodes?: readonly string[]): Promise<Set<string>> => {
      this.podsOnCalls.push(nodes ? [...nodes] : undefined);
      return new Set([...this.pods].filter((n) => !nodes || nodes.includes(n)));
    },
    publishConfig: async (namespace: string, _owner: { name: string; uid: string }, config: { name: string; files: Readonly<Record<string, string>> }): Promise<boolean> => {
      this.published.push({ namespace, name: config.name, files: config.files });
      return true;
    },
    removeAll: async (namespace: string, pool: string): Promise<string[]> => {
      this.removedAll.push(`${namespace}/${pool}`);
      return [`${pool}-nova-compute`];
    },
  };

  readonly hypervisors = {
    get: async (name: string): Promise<HypervisorRead> => {
      this.hypervisorGets.push(name);
      return this.hypervisorReads.get(name) ?? { kind: 'found', hypervisor: { name, customTraits: [], statusTraits: [] } };
    },
    setCustomTraits: async (name: string, traits: readonly string[]): Promise<void> => {
      this.traitPatches.push({ name, traits: [...traits] });
      const read = this.hypervisorReads.get(name);
      const statusTraits = read?.kind === 'found' ? read.hypervisor.statusTraits : [];
      this.hypervisorReads.set(name, { kind: 'found', hypervisor: { name, customTraits: [...traits], statusTraits } });
    },
  };
}

/** A recording fake of the Nova's Job runner (the host-discovery Job). */
export class FakeJobs {
  readonly jobs = new Map<string, ObservedJob>();
  readonly created: JobSpec[] = [];
  readonly deleted: string[] = [];
  readonly gets: string[] = [];
  failGet: Error | undefined;

  readonly runner = {
    databaseTlsDir: (_ns: string, nova: string, block: string) => `/tmp/${nova}-${block}-tls`,
    get: async (namespace: string, name: string): Promise<ObservedJob | undefined> => {
      this.gets.push(`${namespace}/${name}`);
      if (this.failGet) throw this.failGet;
      return this.jobs.get(`${namespace}/${name}`);
    },
    create: async (spec: JobSpec): Promise<void> => {
      this.created.push(spec);
      this.jobs.set(`${spec.namespace}/${spec.name}`, { namespace: spec.namespace, name: spec.name, uid: `job-${this.created.length}`, templateHash: spec.templateHash, state: 'running', startedAt: new Date().toISOString() });
    },
    delete: async (namespace: string, name: string): Promise<void> => {
      this.deleted.push(`${namespace}/${name}`);
      this.jobs.delete(`${namespace}/${name}`);
    },
  } as unknown as JobRunner;

  finish(namespace: string, name: string, state: 'succeeded' | 'failed', finishedAt: Date): void {
    const job = this.jobs.get(`${namespace}/${name}`);
    if (!job) throw new Error(`no Job ${namespace}/${name}`);
    this.jobs.set(`${namespace}/${name}`, { ...job, state, finishedAt: finishedAt.toISOString() });
  }
}

export interface NovaComputeRig {
  readonly namespace: string;
  readonly nova: string;
  readonly source: EmbeddedResourceSource;
  readonly engine: Engine;
  readonly cluster: FakeComputeCluster;
  readonly jobs: FakeJobs;
  readonly deps: NovaComputeDeps;
  /** Every client the controller opened, in order. */
  readonly apis: ComputeApi[];
  /** The clock the passes read (default: real time). */
  clock: { now: () => Date };
  login: ComputeApiLogin;
  /** The Nova with its status written (installedRelease, the contract, the simulator's endpoint), and both Secrets. */
  seedNova(options?: { status?: Record<string, unknown>; contract?: Record<string, string> | null; serviceUser?: boolean }): Promise<void>;
  setNovaStatus(status: Record<string, unknown>): Promise<void>;
  node(name: string, labels: Record<string, string>, annotations?: Record<string, string>): Promise<void>;
  deleteNode(name: string): Promise<void>;
  createPool(name: string, spec: Partial<NovaComputeSpec> & Pick<NovaComputeSpec, 'nodeSelector'>): Promise<NovaCompute>;
  updatePool(name: string, edit: (spec: NovaComputeSpec) => void): Promise<void>;
  deletePool(name: string): Promise<void>;
  get(name: string): Promise<NovaCompute | undefined>;
  /** One reconcile of the pool (no finalizer shortcut). */
  reconcile(name: string): Promise<Disposition>;
  /** One reconcile; a finalizer add (1 s) is followed by the next pass at once. */
  pass(name: string): Promise<Disposition>;
  status(name: string): Promise<PoolStatusView>;
  condition(name: string, type: string): Promise<Condition | undefined>;
  events(name: string): Promise<RecordedEvent[]>;
  close(): Promise<void>;
}

/**
 * createProductRegistry(), plus the pool's pipeline definition when the product list does not carry it yet (it did
 * not when this rig was written: the controller records on `nova-compute-pipeline-<uid>`).
 */
const productRegistry = (): MachineRegistry =>
  new MachineRegistry(productMachines.some((d) => d.id === novaComputePipelineDefinition.id) ? productMachines : [...productMachines, novaComputePipelineDefinition]);

interface StatusRender {
  noteResource(kind: 'NovaCompute', object: { metadata: { uid: string; namespace?: string; name: string } }): void;
  render(ref: { kind: 'NovaCompute'; namespace: string; name: string }): Promise<void>;
}

/**
 * The status runner of `npm start` (statusRunnerParts(['NovaCompute'])). TEMPORARY fallback while
 * projections/nova-compute-status.ts is not in the checkout: the same rule rendered from the two streams.
 */
const statusRunner = async (parts: { store: MemoryEventStore; engine: Engine; source: EmbeddedResourceSource; logger: ReturnType<typeof silentLogger> }): Promise<StatusRender> => {
  try {
    const { statusRunnerParts } = await import('../../../src/app/kinds.js');
    return new StatusRunner({ ...parts, checkpoint: new MemoryCheckpoint(), ...statusRunnerParts(['NovaCompute']) }) as unknown as StatusRender;
  } catch {
    const { novaComputePipelineDefinition, novaComputePipelineStream } = await import('../../../machines/nova-pipeline.js');
    const { novaComputePoolDefinition, novaComputePoolStream } = await import('../../../machines/nova-compute-pool.js');
    const STEPS = ['NovaReady', 'NodesReady', 'ConfigReady', 'DaemonSetReady', 'VPAReady', 'AggregatesReady', 'ServicesReady', 'TraitsReady'];
    const uids = new Map<string, string>();
    return {
      noteResource: (_kind, object) => void uids.set(`${object.metadata.namespace}/${object.metadata.name}`, object.metadata.uid),
      render: async ({ namespace, name }) => {
        const uid = uids.get(`${namespace}/${name}`)!;
        const pipeline = await parts.engine.load(novaComputePipelineDefinition, novaComputePipelineStream(uid));
        const pool = await parts.engine.load(novaComputePoolDefinition, novaComputePoolStream(uid));
        const recorded = pipeline.revision === undefined ? {} : pipeline.context.conditions;
        const subs = STEPS.map((type) => recorded[type] ?? { type, status: 'Unknown', reason: 'NotReached', message: '' });
        const notTrue = subs.filter((c) => c.status !== 'True').map((c) => c.type);
        const conditions = [{ type: 'Ready', status: notTrue.length ? 'False' : 'True', reason: notTrue.length ? 'NotAllReady' : 'AllReady', message: notTrue.join(', ') }, ...subs, ...(recorded['ExtraConfigHealthy'] ? [recorded['ExtraConfigHealthy']] : [])]
          .map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: new Date().toISOString() }));
        const stamps = pipeline.revision === undefined ? {} : (pipeline.context.stamps as Record<string, unknown>);
        const status: Record<string, unknown> = { phase: notTrue.length ? 'Provisioning' : 'Ready', conditions, ...Object.fromEntries(Object.entries(stamps).filter(([, v]) => v !== null && v !== undefined)) };
        if (pool.revision !== undefined) {
          status['nodes'] = Object.entries(pool.context.nodes).map(([n, r]) => ({ name: n, phase: r.phase, ...(r.zone ? { zone: r.zone } : {}), ...(r.traits.length ? { traits: r.traits } : {}), ...(r.servers !== null ? { servers: r.servers } : {}) }));
          status['createdTraits'] = pool.context.createdTraits;
        }
        await parts.source.patchStatus('NovaCompute', namespace, name, status as never);
      },
    };
  }
};

export const openNovaComputeRig = async (sim: RunningSimulator, options: { namespace?: string; nova?: string } = {}): Promise<NovaComputeRig> => {
  const namespace = options.namespace ?? 'openstack';
  const novaName = options.nova ?? 'nova';
  const dir = mkdtempSync(join(tmpdir(), 'regent-nova-compute-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = new MemoryEventStore();
  const logger = silentLogger();
  const engine = new Engine({ store, registry: productRegistry(), logger });
  const cluster = new FakeComputeCluster(async () =>
    (await source.list('Node')).items.map((n) => ({ name: n.metadata.name, labels: { ...(n.metadata.labels ?? {}) }, annotations: { ...(n.metadata.annotations ?? {}) } })),
  );
  const jobs = new FakeJobs();
  const apis: ComputeApi[] = [];
  const settings = podSettings({ keystoneURL: sim.authUrl, regionName: 'RegionOne' });
  const configs: ConfigPort = {
    settings: () => settings,
    publish: async () => {
      throw new Error('the NovaCompute controller publishes no Nova config');
    },
    current: async (_ns, nova) => ({ name: `${nova}-config-abc123`, hash: 'abc123', files: { 'nova.conf': '[DEFAULT]\n' } }),
  };
  const clock = { now: () => new Date() };
  const deps: NovaComputeDeps = {
    engine,
    source,
    secrets: source.secrets,
    logger,
    cluster,
    openComputeApi: async (login) => {
      const api = await openComputeApi(login, { timeoutMs: 2_000, retry: FAST_RETRY });
      apis.push(api);
      return api;
    },
    jobs: jobs.runner,
    configs,
  };
  for (const [type, handler] of Object.entries(novaComputeEffectHandlers(deps))) engine.handle(type, handler);
  const runner = await statusRunner({ store, engine, source, logger });
  const novaURL = `${sim.url}/compute/v2.1`;
  const contractName = `${novaName}-compute-config`;

  const rig: NovaComputeRig = {
    namespace,
    nova: novaName,
    source,
    engine,
    cluster,
    jobs,
    deps,
    apis,
    clock,
    login: { authURL: sim.authUrl, novaURL, username: 'nova', password: SERVICE_PASSWORD, projectName: 'service', userDomainName: 'Default', projectDomainName: 'Default' },
    async seedNova({ status, contract, serviceUser = true } = {}) {
      await source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'Nova', metadata: { name: novaName, namespace }, spec: novaSpec() } as never);
      await rig.setNovaStatus(status ?? { installedRelease: RELEASE, computeConfigSecretRef: { name: contractName }, endpoint: novaURL });
      if (serviceUser) await source.secrets.put(namespace, 'nova-service-user', { password: SERVICE_PASSWORD });
      if (contract !== null) {
        await source.secrets.put(namespace, contractName, contract ?? { transport_url: 'rabbit://nova:bus-pw@rabbit:5672/nova', auth_url: sim.authUrl, 'compute.conf': '[placement]\nregion_name = RegionOne\n' });
      }
    },
    async setNovaStatus(status) {
      await source.patchStatus('Nova', namespace, novaName, status as never);
    },
    async node(name, labels, annotations = {}) {
      await source.apply({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels, annotations } } as never);
    },
    async deleteNode(name) {
      await source.delete('Node', 'default', name);
    },
    async createPool(name, spec) {
      return (await source.create({ apiVersion: 'regent.dev/v1alpha1', kind: 'NovaCompute', metadata: { name, namespace }, spec: { novaRef: { name: novaName }, ...spec } } as never)) as NovaCompute;
    },
    async updatePool(name, edit) {
      const current = (await source.get('NovaCompute', namespace, name)) as NovaCompute;
      const spec = structuredClone(current.spec);
      edit(spec);
      await source.update({ ...current, spec } as never);
    },
    async deletePool(name) {
      await source.delete('NovaCompute', namespace, name);
    },
    get: async (name) => (await source.get('NovaCompute', namespace, name)) as NovaCompute | undefined,
    reconcile: async (name) => {
      const disposition = await reconcileNovaCompute(deps, namespace, name, () => clock.now());
      const object = await source.get('NovaCompute', namespace, name);
      if (object) {
        runner.noteResource('NovaCompute', object);
        await runner.render({ kind: 'NovaCompute', namespace, name });
      }
      return disposition;
    },
    async pass(name) {
      const first = await rig.reconcile(name);
      return first.kind === 'yield' && first.afterMs === 1_000 && first.why.includes('finalizer') ? rig.reconcile(name) : first;
    },
    async status(name) {
      const object = await source.get('NovaCompute', namespace, name);
      if (!object) return {};
      runner.noteResource('NovaCompute', object);
      await runner.render({ kind: 'NovaCompute', namespace, name });
      return ((await source.get('NovaCompute', namespace, name))?.status ?? {}) as PoolStatusView;
    },
    condition: async (name, type) => (await rig.status(name)).conditions?.find((c) => c.type === type),
    events: async (name) => source.listEvents({ kind: 'NovaCompute', namespace, name }),
    async close() {
      await source.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
};
