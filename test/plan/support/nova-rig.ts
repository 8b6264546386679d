/**
 * A plan rig for the Nova operator kinds on the embedded default's runtime pieces, without a MariaDB or a real Nova:
 * the embedded resource store and a sqlite event store in a temporary folder; the local Job runner running the
 * rendered scripts as real child processes against a scripted nova-manage and nova-status; the local role workloads
 * running the stand-in roles of test/nova/support/fake-nova-roles.ts; the local config store; the local pool cluster
 * (the store's Nodes, stand-in nova-compute processes). The database provisioner is a planted one that keeps its
 * schemas and users in memory (absent() reads them).
 *
 * Every runtime piece sits behind a tripwire: while `tripwires.arm()` is in force, any write through it (provision,
 * deprovision, a Job's create or delete, the CronJob, a role's ensure, remove or stamp, a config's publish, a pool's
 * DaemonSet, config or removal, a compute client write) throws and is recorded in `tripwires.tripped`.
 *
 * The real passes are the control plane's (the Nova wiring built from src/plan/plane.ts's services over the REAL
 * store, source and runtime, its effect handlers on the real engine). A plan is the planner's own, as the command
 * and the control plane run it: the control plane's kind table, and this rig's runtime as `nova` (the planner puts
 * it behind src/plan/nova-guards.ts; the pools' client is the runtime's planted `compute.openComputeApi`, which the
 * NovaCompute wiring opens as it opens the real one).
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../../src/kube/embedded/store.js';
import { applyManifests, parseManifestFiles } from '../../../src/kube/cli/manifests.js';
import { openStore } from '../../../src/store/open.js';
import type { EventStore } from '../../../src/store/port.js';
import { Engine } from '../../../src/engine/engine.js';
import { createProductRegistry } from '../../../machines/index.js';
import { silentLogger } from '../../../src/log/logger.js';
import { kindTable } from '../../../src/app/kinds.js';
import type { Disposition } from '../../../src/controllers/disposition.js';
import { novaWiring } from '../../../src/controllers/nova/wiring.js';
import { novaComputeWiring } from '../../../src/controllers/nova-compute/wiring.js';
import type { ComputeApiOpener, NovaRuntime } from '../../../src/controllers/nova/runtime.js';
import { assemblePlane } from '../../../src/plan/plane.js';
import { plan, type PlanOptions } from '../../../src/plan/planner.js';
import type { Plan } from '../../../src/plan/report.js';
import { LocalJobRunner } from '../../../src/nova/jobs/local.js';
import { LocalWorkloads } from '../../../src/nova/workloads/local.js';
import { novaLauncher } from '../../../src/nova/workloads/nova-launcher.js';
import { LocalConfigStore } from '../../../src/nova/config/local.js';
import { localComputeCluster } from '../../../src/nova/compute/local.js';
import type { ComputeLauncher } from '../../../src/nova/compute/compute-launcher.js';
import type { ComputeApi } from '../../../src/nova/compute/compute-api.js';
import type { BlockPlan, DatabaseProvisioner, DeprovisionOutcome, ProvisionOutcome, ProvisionedObject, SecretReader } from '../../../src/nova/database/port.js';
import { NOVA_JOBS, novaDatabaseStream, novaJobName, novaUpgradeDefinition, type NovaUpgradeContext } from '../../../machines/nova-upgrade.js';
import { novaPipelineDefinition, novaPipelineStream, type NovaPipelineContext } from '../../../machines/nova-pipeline.js';
import { contextOf } from '../../../src/engine/engine.js';
import { writeFakeNovaPython } from '../../nova/support/fake-nova-roles.js';
import { listCellsTableShell } from '../../nova/support/list-cells-table.js';
import { COMPUTE_WRITES } from './compute-world.js';

export const NOVA = 'nova';

/** The Secrets a Nova reads (test values: each must never show in a plan). */
export const SECRETS = {
  api: { username: 'nova_api', password: 'api-s3cret-plan-value' },
  cell: { username: 'nova', password: 'cell-s3cret-plan-value' },
  service: { password: 'svc-s3cret-plan-value' },
  rabbit: { url: 'rabbit://nova:mq-s3cret-plan-value@10.0.0.5:5672/' },
};

export const secretsManifest = (): string => `apiVersion: v1
kind: Secret
metadata: { name: nova-api-db }
stringData: { username: ${SECRETS.api.username}, password: ${SECRETS.api.password} }
---
apiVersion: v1
kind: Secret
metadata: { name: nova-db }
stringData: { username: ${SECRETS.cell.username}, password: ${SECRETS.cell.password} }
---
apiVersion: v1
kind: Secret
metadata: { name: nova-service-user }
stringData: { password: ${SECRETS.service.password} }
---
apiVersion: v1
kind: Secret
metadata: { name: rabbitmq-rabbitmq }
stringData: { url: "${SECRETS.rabbit.url}" }
`;

export interface NovaShape {
  release: string;
  /** metadata.name (default NOVA). */
  name?: string;
  /** spec.image's tag (default the release: the lockstep holds). */
  imageTag?: string;
  replicas?: number;
  /** spec.extraConfig's [DEFAULT] debug (a config change). */
  debug?: boolean;
  apiDatabase?: string;
}

export const novaManifest = (shape: NovaShape): string => `apiVersion: regent.dev/v1alpha1
kind: Nova
metadata: { name: ${shape.name ?? NOVA} }
spec:
  image: ghcr.io/c5c3/nova:${shape.imageTag ?? shape.release}
  openStackRelease: "${shape.release}"
  database:
    api: { clusterRef: { name: mariadb }, database: ${shape.apiDatabase ?? 'nova_api'}, secretRef: { name: nova-api-db } }
    cell: { clusterRef: { name: mariadb }, database: nova, secretRef: { name: nova-db } }
  messaging: { clusterRef: { name: rabbitmq } }
  serviceUser: { secretRef: { name: nova-service-user } }
  consoleProxy: { enabled: false }
${shape.replicas === undefined ? '' : `  replicas: ${shape.replicas}\n`}${shape.debug === undefined ? '' : `  extraConfig: { DEFAULT: { debug: "${shape.debug}" } }\n`}`;

// ─── the planted provisioner ────────────────────────────────────────────────────────────────────

const objectsOf = (plan: BlockPlan): ProvisionedObject[] =>
  plan.steps.flatMap((s): ProvisionedObject[] => (s.kind === 'Database' ? [{ kind: 'database', name: s.database }] : s.kind === 'User' ? [{ kind: 'user', name: s.username }] : []));

/** A MariaDB server in memory: absent() reads it; provision() and deprovision() write it, or trip while armed. */
export class PlantedProvisioner implements DatabaseProvisioner {
  readonly existing = new Set<string>();
  /** While true, deprovision() fails (a MariaDB that does not answer the cleanup) before it drops anything. */
  failing = false;
  /** Every SQL write it would have run, in words (a password as the Secret key it came from). */
  readonly statements: string[] = [];
  constructor(private readonly trip: (what: string) => void) {}

  async absent(_namespace: string, plan: BlockPlan, _secrets: SecretReader): Promise<ProvisionedObject[]> {
    return objectsOf(plan).filter((o) => !this.existing.has(`${o.kind}:${o.name}`));
  }

  async provision(_namespace: string, plan: BlockPlan, password: SecretReader): Promise<ProvisionOutcome> {
    this.trip(`provision ${plan.instance}`);
    for (const step of plan.steps) {
      if (step.kind === 'User' && (await password(step.passwordSecret)) === undefined) return { kind: 'waiting', message: `no password for ${step.username}` };
    }
    for (const o of objectsOf(plan)) {
      if (this.existing.has(`${o.kind}:${o.name}`)) continue;
      this.existing.add(`${o.kind}:${o.name}`);
      this.statements.push(`CREATE ${o.kind.toUpperCase()} ${o.name}`);
    }
    return { kind: 'ready' };
  }

  async deprovision(_namespace: string, plan: BlockPlan, owned: readonly ProvisionedObject[]): Promise<DeprovisionOutcome> {
    this.trip(`deprovision ${plan.instance}`);
    if (this.failing) throw new Error(`the planted MariaDB does not answer (deprovision ${plan.instance})`);
    const live = owned.filter((o) => this.existing.delete(`${o.kind}:${o.name}`));
    for (const o of live) this.statements.push(`DROP ${o.kind.toUpperCase()} ${o.name}`);
    return { live: live.length > 0, message: live.length > 0 ? `dropped ${live.map((o) => o.name).join(', ')}` : 'nothing was live' };
  }
}

// ─── tripwires ──────────────────────────────────────────────────────────────────────────────────

export interface Tripwires {
  arm(): void;
  armed(): boolean;
  disarm(): void;
  readonly tripped: string[];
  trip(what: string): void;
}

const tripwires = (): Tripwires => {
  let armed = false;
  const tripped: string[] = [];
  return {
    arm: () => void (armed = true),
    armed: () => armed,
    disarm: () => void (armed = false),
    tripped,
    trip: (what) => {
      if (!armed) return;
      tripped.push(what);
      throw new Error(`tripwire: ${what} during a plan`);
    },
  };
};

/** `target` with its methods named in `writes` tripping while armed (a Proxy: `instanceof` still sees the class). */
const wired = <T extends object>(target: T, name: string, writes: readonly string[], wires: Tripwires): T =>
  new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: unknown[]) => unknown).bind(object);
      if (!writes.includes(String(property))) return bound;
      return (...args: unknown[]) => {
        wires.trip(`${name}.${String(property)}`);
        return bound(...args);
      };
    },
  });


/** `api` whose writes, outside a plan, first note the event store's head (what a pass had appended before it wrote). */
const positionNoted = (api: ComputeApi, wires: Tripwires, store: EventStore, positions: number[]): ComputeApi =>
  new Proxy(api, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== 'function' || !(COMPUTE_WRITES as readonly string[]).includes(String(property))) return value;
      return async (...args: unknown[]) => {
        if (!wires.armed()) positions.push(await store.lastPosition());
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });

// ─── the scripted nova-manage ───────────────────────────────────────────────────────────────────

const writeFakeNovaManage = (bin: string, state: string): void => {
  mkdirSync(bin, { recursive: true });
  mkdirSync(state, { recursive: true });
  writeFileSync(
    join(bin, 'nova-manage'),
    `#!/bin/sh
while [ "$1" = "--config-file" ]; do shift 2; done
echo "$*" >> ${state}/calls
[ -f ${state}/fail ] && { echo "nova-manage: scripted failure" >&2; exit 1; }
case "$1 $2" in
  "cell_v2 map_cell0") touch ${state}/cell0; exit 0 ;;
  "cell_v2 create_cell") touch ${state}/cell1; exit 0 ;;
  "cell_v2 list_cells")
${listCellsTableShell(state)}
    exit 0 ;;
esac
exit 0
`,
  );
  writeFileSync(join(bin, 'nova-status'), `#!/bin/sh\necho "nova-status $*" >> ${state}/calls\nexit 0\n`);
  chmodSync(join(bin, 'nova-manage'), 0o755);
  chmodSync(join(bin, 'nova-status'), 0o755);
};

/** A stand-in nova-compute: stays up; records its start. */
const computeStandIn = (startsFile: string): ComputeLauncher => () => ({
  command: process.execPath,
  args: ['-e', `require('node:fs').appendFileSync(${JSON.stringify(startsFile)}, 'compute ' + process.pid + '\\n'); process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1 << 30);`],
  files: {},
});

// ─── the rig ────────────────────────────────────────────────────────────────────────────────────

/** What a plan must leave as it was (compared before and after). */
export interface WorldSnapshot {
  lastPosition: number;
  streams: string;
  resources: string;
  secrets: string;
  files: string[];
  jobs: string[];
  roleStarts: string[];
  computeStarts: string[];
  statements: number;
}

export interface NovaPlanRig {
  dir: string;
  store: EventStore;
  source: EmbeddedResourceSource;
  engine: Engine;
  provisioner: PlantedProvisioner;
  jobs: LocalJobRunner;
  roles: LocalWorkloads;
  runtime: NovaRuntime;
  tripwires: Tripwires;
  /** The compute client the pools open (reads answer empty; writes trip while armed): the writes it was asked for. */
  computeWrites: string[];
  /** The reads it answered. */
  computeReads: string[];
  /** With `computeApi`: the event store's head when each of its writes was made outside a plan, in order. */
  computeWritePositions: number[];
  apply(text: string): Promise<void>;
  /** The real Nova pass (the control plane's wiring over the real stores and runtime); its effects run. */
  pass(name?: string): Promise<Disposition>;
  /** The real NovaCompute pass of the pool `name` (the control plane's wiring over the real stores and runtime); its effects run. */
  poolPass(name: string): Promise<Disposition>;
  /** Real passes, a short pause between them, until `done` holds (bounded). */
  until(done: () => Promise<boolean>, what: string, maxPasses?: number): Promise<void>;
  upgradeContext(name?: string): Promise<NovaUpgradeContext & { state: unknown }>;
  pipelineContext(name?: string): Promise<NovaPipelineContext>;
  /** The scripted nova-manage fails every call from now on (true) or runs them (false). */
  failJobs(on: boolean): void;
  /** Waits until no Job of the Nova runs and its roles had time to become ready. */
  settle(name?: string): Promise<void>;
  /** Stops what runs for the Nova here (its roles, its Jobs): as the finalizer's release does. */
  release(name: string): Promise<void>;
  /** A plan of manifest text over the rig's stores, the rig's runtime handed to the planner as `nova` (tripwires armed). */
  plan(text: string, extra?: Partial<PlanOptions>): Promise<Plan>;
  snapshot(): Promise<WorldSnapshot>;
  /** The nova-manage calls the Jobs made. */
  novaManageCalls(): string[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every file under `dir` with its size and mtime, but the stores' own files and the roles' logs (read separately). */
const filesUnder = (dir: string): string[] => {
  const out: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (!/\.(db|db-wal|db-shm|db-journal|log)$/.test(entry.name) && !entry.name.startsWith('starts')) {
        const stat = statSync(full);
        out.push(`${relative(dir, full)} ${stat.size} ${stat.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out.sort();
};

export interface NovaPlanRigOptions {
  /**
   * The compute client the pools open, instead of the planted one whose reads answer empty: its writes trip while
   * the tripwires are armed, and each write made while they are not notes the event store's head first
   * (`computeWritePositions`).
   */
  computeApi?: ComputeApi;
}

export const startNovaPlanRig = async (options: NovaPlanRigOptions = {}): Promise<NovaPlanRig> => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-nova-plan-'));
  const source = openEmbeddedSource({ path: join(dir, 'resources.db') });
  const store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
  const logger = silentLogger();
  const engine = new Engine({ store, registry: createProductRegistry(), logger });
  const wires = tripwires();
  const state = join(dir, 'nova-manage-state');
  writeFakeNovaManage(join(dir, 'bin'), state);
  const readSecret = async (namespace: string, name: string, key: string) => (await source.secrets.get(namespace, name))?.data[key];
  const provisioner = new PlantedProvisioner(wires.trip);
  const jobs = new LocalJobRunner({ dir: join(dir, 'nova-jobs'), binDir: join(dir, 'bin'), readSecret });
  const roleStarts = join(dir, 'starts-roles');
  const roles = new LocalWorkloads({ dir: join(dir, 'nova'), readSecret, launcher: novaLauncher({ python: writeFakeNovaPython(dir, { startsFile: roleStarts }) }), readyAfterMs: 200, probeIntervalMs: 100, graceMs: 2_000 });
  const configs = new LocalConfigStore({ dir: join(dir, 'nova'), settings: { keystoneURL: 'http://127.0.0.1:5000/v3', regionName: 'RegionOne' }, liveConfig: (ns, name) => roles.liveConfig(ns, name) });
  const computeStarts = join(dir, 'starts-compute');
  const cluster = localComputeCluster({ dir: join(dir, 'nova-compute'), readSecret, listNodes: async () => (await source.list('Node')).items, launcher: computeStandIn(computeStarts), readyAfterMs: 200, probeIntervalMs: 100, graceMs: 2_000 });
  const computeWrites: string[] = [];
  const write = (what: string) => async (): Promise<never> => {
    computeWrites.push(what);
    wires.trip(`compute ${what}`);
    throw new Error(`the rig's compute client does not ${what}`);
  };
  const computeReads: string[] = [];
  const read = <T>(what: string, answer: T) => async (): Promise<T> => {
    computeReads.push(what);
    return answer;
  };
  const plantedApi: ComputeApi = {
    calls: [],
    listComputeServices: read('listComputeServices', []),
    mappedHosts: async () => {
      computeReads.push('mappedHosts');
      return new Set();
    },
    serversOnHost: read('serversOnHost', 0),
    listAggregates: read('listAggregates', []),
    traitExists: read('traitExists', false),
    disableService: write('disableService'),
    deleteService: write('deleteService'),
    createAggregate: write('createAggregate'),
    setAggregateMetadata: write('setAggregateMetadata'),
    deleteAggregate: write('deleteAggregate'),
    createTrait: write('createTrait'),
    deleteTrait: write('deleteTrait'),
  };
  const computeWritePositions: number[] = [];
  const given = options.computeApi;
  const opener: ComputeApiOpener = async () => (given ? positionNoted(wired(given, 'compute', COMPUTE_WRITES, wires), wires, store, computeWritePositions) : plantedApi);
  const runtime: NovaRuntime = {
    description: 'the Nova plan rig: a planted provisioner, local Jobs, local roles',
    provisioner: wired(provisioner, 'provisioner', [], wires),
    databaseEndpoint: async () => ({ host: '10.0.0.4', port: 3306 }),
    jobs: wired(jobs, 'jobs', ['create', 'delete', 'ensureCronJob', 'removeOwnedBy', 'tick'], wires),
    workloads: wired(roles, 'workloads', ['ensure', 'remove', 'stampInstalledRelease', 'removeAll'], wires),
    configs: wired(configs, 'configs', ['publish'], wires),
    released: async (namespace, name) => {
      wires.trip('released');
      await roles.removeAll(namespace, name);
      await jobs.removeOwnedBy(namespace, name);
    },
    jobsUnavailable: () => null,
    compute: {
      cluster: {
        nodes: cluster.nodes,
        workloads: wired(cluster.workloads, 'pool workloads', ['ensureDaemonSet', 'deleteDaemonSet', 'publishConfig', 'removeAll'], wires),
        hypervisors: wired(cluster.hypervisors, 'hypervisors', ['setCustomTraits'], wires),
      },
      openComputeApi: opener,
    },
    start: () => undefined,
    stop: () => undefined,
    close: async () => undefined,
  };

  // the real passes: the control plane's wirings over the real store, source and runtime
  const table = kindTable();
  const plane = await assemblePlane({ engine, store, source, logger, table, connect: async () => Promise.reject(new Error('the Nova plan rig has no cloud')), nova: runtime });
  const novaRuntime = novaWiring.build!(plane.services);
  for (const [type, handler] of Object.entries(novaRuntime.handlers ?? {})) engine.handle(type, handler);
  const poolRuntime = novaComputeWiring.build!(plane.services);
  for (const [type, handler] of Object.entries(poolRuntime.handlers ?? {})) engine.handle(type, handler);
  const run = async (name: string): Promise<Disposition> => {
    await plane.refresh();
    return (novaRuntime.reconcile as (key: string) => Promise<Disposition>)(`default/${name}`);
  };
  const runPool = async (name: string): Promise<Disposition> => {
    await plane.refresh();
    return (poolRuntime.reconcile as (key: string) => Promise<Disposition>)(`default/${name}`);
  };
  const uidOf = async (name = NOVA) => (await source.get('Nova', 'default', name))?.metadata.uid ?? '';

  const rig: NovaPlanRig = {
    dir,
    store,
    source,
    engine,
    provisioner,
    jobs,
    roles,
    runtime,
    tripwires: wires,
    computeWrites,
    computeReads,
    computeWritePositions,
    apply: async (text) => void (await applyManifests(source, text)),
    pass: (name = NOVA) => run(name),
    poolPass: (name) => runPool(name),
    until: async (done, what, maxPasses = 80) => {
      for (let i = 0; i < maxPasses; i++) {
        await run(NOVA);
        if (await done()) return;
        await sleep(150);
      }
      throw new Error(`${what}: not reached after ${maxPasses} passes (${JSON.stringify((await rig.upgradeContext()).condition)})`);
    },
    upgradeContext: async (name = NOVA) => {
      const loaded = await engine.load(novaUpgradeDefinition, novaDatabaseStream(await uidOf(name)));
      return { ...contextOf(novaUpgradeDefinition, loaded.snapshot), state: loaded.value };
    },
    pipelineContext: async (name = NOVA) => contextOf(novaPipelineDefinition, (await engine.load(novaPipelineDefinition, novaPipelineStream(await uidOf(name)))).snapshot),
    failJobs: (on) => (on ? writeFileSync(join(state, 'fail'), '') : rmSync(join(state, 'fail'), { force: true })),
    settle: async (name = NOVA) => {
      for (let i = 0; i < 100; i++) {
        const states = await Promise.all(NOVA_JOBS.map(async (job) => (await jobs.get('default', novaJobName(name, job)))?.state));
        if (!states.includes('running')) break;
        await sleep(50);
      }
      // a role (re)started by the last pass is ready after readyAfterMs and a probe
      await sleep(350);
    },
    release: async (name) => {
      await roles.removeAll('default', name);
      await jobs.removeOwnedBy('default', name);
    },
    plan: async (text, extra = {}) => {
      wires.arm();
      try {
        return await plan({
          store,
          source,
          documents: parseManifestFiles([{ file: 'nova.yaml', text }]),
          connect: async () => Promise.reject(new Error('the Nova kinds call no cloud')),
          nova: runtime,
          ...extra,
        });
      } finally {
        wires.disarm();
      }
    },
    snapshot: async () => {
      const resources: string[] = [];
      for (const kind of ['Nova', 'NovaCompute', 'Node'] as const) resources.push(JSON.stringify((await source.list(kind)).items));
      const secrets = await source.secrets.list('default');
      const values = await Promise.all(secrets.map(async (s) => [s.name, (await source.secrets.get('default', s.name))?.data] as const));
      return {
        lastPosition: await store.lastPosition(),
        streams: JSON.stringify(await store.listStreams()),
        resources: resources.join('\n'),
        secrets: JSON.stringify(values),
        files: filesUnder(dir),
        jobs: existsSync(join(dir, 'nova-jobs', 'jobs', 'default')) ? readdirSync(join(dir, 'nova-jobs', 'jobs', 'default')).sort() : [],
        roleStarts: existsSync(roleStarts) ? readFileSync(roleStarts, 'utf8').trim().split('\n').filter(Boolean) : [],
        computeStarts: existsSync(computeStarts) ? readFileSync(computeStarts, 'utf8').trim().split('\n').filter(Boolean) : [],
        statements: provisioner.statements.length,
      };
    },
    novaManageCalls: () => (existsSync(join(state, 'calls')) ? readFileSync(join(state, 'calls'), 'utf8').trim().split('\n').filter(Boolean) : []),
    close: async () => {
      jobs.stop();
      await roles.close();
      await cluster.workloads.close();
      await jobs.close();
      await source.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
};
