/**
 * The embedded default's adapters of the NovaCompute pool ports (./port.ts; nova-operator.md, "NovaCompute"): one
 * machine, no Kubernetes. A pool's "DaemonSet" is one supervised nova-compute process per node the affinity resolves
 * to, run by Regent the way the Nova roles are (src/nova/workloads/local.ts, supervisor.ts): restart on crash with
 * backoff, a log per process, SIGTERM then SIGKILL after a grace on a stop. Nova's fake virt driver stands in for a
 * hypervisor, so each Node object of the embedded store becomes one compute host of that name.
 *
 *   LocalNodeReader       the Node objects the embedded store holds (`regent apply` of a v1 Node), label equality on
 *                         every selector pair
 *   LocalPoolWorkloads    the processes and the configs, under `dir` (`<dataDir>/nova-compute`)
 *   LocalHypervisors      no kvm.cloud.sap/v1 Hypervisor kind here: every read is notInstalled
 *                         (HypervisorOperatorNotInstalled), a write is refused
 *
 * Layout of a pool, `<dir>/<namespace>/<pool>/`:
 *
 *   daemonset.json                 the "DaemonSet": the template's hash and image, the names it reads (contract Secret,
 *                                  service-user Secret, config), the annotations and the nodes. No value of a Secret.
 *                                  Written only when it drifted; present ⇔ this file exists
 *   configs/<pool>-config-<hash>/  a published config (compute-pool.conf), written once (a temporary directory renamed
 *                                  into place), never rewritten; configs/published.json orders them, newest first, and
 *                                  the history is pruned to the three newest
 *   nodes/<node>/config/           nova.conf (the contract Secret's compute.conf), compute-pool.conf (the pool's config)
 *                                  and regent-local.conf (this adapter's: host, fake driver, state and lock paths, the
 *                                  broker CA file), written afresh at each start of the node's process (0600)
 *   nodes/<node>/messaging-ca/ca.crt  the contract's ca.crt on a TLS bus (0400)
 *   nodes/<node>/state/, locks/    [DEFAULT] state_path and [oslo_concurrency] lock_path: kept across restarts
 *   nodes/<node>/nova-compute.log  stdout and stderr, a `[regent]` line per start and exit, rotated past 10 MiB
 *   nodes/<node>/process.json      pid, its /proc start time, template hash
 *
 * **Secrets** never reach a file, a log line or a record: transport_url (the contract Secret's key) and the service
 * user's password (spec.serviceUserSecret, key `password`) reach the process as oslo.config environment overrides,
 * `OS_DEFAULT__TRANSPORT_URL` and `OS_<SECTION>__PASSWORD` for each keystoneauth section (src/nova/config/env.ts: the
 * same way the roles get theirs). The child does not inherit Regent's environment.
 *
 * **ensure** records the spec, stops the process of every node no longer in spec.nodes (an excluded or released node
 * loses its pod), and (re)starts each node whose process does not run the current template (its hash: image, config,
 * Secret names, annotations — the contract digest among them): Recreate, the old process is stopped before the new
 * one starts. The Secrets are read only when a process is to start; a missing Secret or key refuses the ensure
 * (ComputeClusterError, names only) before any running process is touched, after the dropped nodes were stopped.
 * spec.image is recorded, never pulled: the installed Nova runs whatever the image says.
 *
 * **Status**: desired = the recorded nodes; ready = their processes that run and have stayed up `readyAfterMs`
 * (nova-compute serves the bus, not a port: its service row is the Services step's to read); rolledOut = every
 * recorded node runs the current template and is ready (vacuously true for no node, as a DaemonSet scheduling none).
 *
 * **A Regent that died** without stopping its processes (the launcher's PR_SET_PDEATHSIG normally ends them with it):
 * the next LocalPoolWorkloads on the same `dir` finds each process.json whose pid still runs with the recorded start
 * time and stops it (SIGTERM to its group, SIGKILL after the grace) before it does anything else — every operation
 * waits for that sweep. They are stopped, not adopted: a process Regent did not spawn cannot be supervised (no exit
 * event, no restart). The recorded DaemonSet stays, so `daemonSet` reports it present with nothing ready, and the
 * pool's next ensure starts each node afresh: never a second process for the same pool and node.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CONFIG_HISTORY } from '../config/port.js';
import { writeConfigDirectory } from '../config/directory.js';
import { COMPUTE_CONTRACT_KEYS } from '../config/compute.js';
import { SERVICE_USER_PASSWORD_KEY, SERVICE_USER_PASSWORD_SECTIONS, optionEnv } from '../config/env.js';
import { writeIni, type IniSection } from '../config/ini.js';
import { LOCAL_CONF } from '../workloads/nova-launcher.js';
import { DEFAULT_BACKOFF, Supervisor, type Backoff, type SpawnSpec } from '../workloads/supervisor.js';
import { procStart, readJson, stopRecordedProcesses, subdirectories, writeJson } from '../workloads/process-records.js';
import { novaComputeLauncher, type ComputeLauncher } from './compute-launcher.js';
import {
  ComputeClusterError,
  POOL_CONFIG_FILE,
  daemonSetName,
  type ComputeCluster,
  type HypervisorRead,
  type Hypervisors,
  type NodeMeta,
  type NodeReader,
  type PoolDaemonSetSpec,
  type PoolDaemonSetStatus,
  type PoolOwner,
  type PoolWorkloads,
} from './port.js';

// ---- Nodes --------------------------------------------------------------------------------------------

/** A Node object as the embedded store holds it (metadata is all the pool reads). */
export interface StoredNode {
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

/** Every Node of the embedded store (the composition root passes `() => source.list('Node' …)`). */
export type ListNodes = () => Promise<StoredNode[]>;

const nodeMeta = (node: StoredNode): NodeMeta => ({ name: node.metadata.name, labels: { ...(node.metadata.labels ?? {}) }, annotations: { ...(node.metadata.annotations ?? {}) } });

export class LocalNodeReader implements NodeReader {
  constructor(private readonly listNodes: ListNodes) {}

  async list(selector: Readonly<Record<string, string>>): Promise<NodeMeta[]> {
    const pairs = Object.entries(selector);
    return (await this.all())
      .filter((node) => pairs.every(([key, value]) => Object.prototype.hasOwnProperty.call(node.labels, key) && node.labels[key] === value))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async get(name: string): Promise<NodeMeta | undefined> {
    return (await this.all()).find((node) => node.name === name);
  }

  private async all(): Promise<NodeMeta[]> {
    try {
      return (await this.listNodes()).map(nodeMeta);
    } catch (error) {
      throw new ComputeClusterError(`cannot list the Nodes of the embedded store: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

// ---- Hypervisors --------------------------------------------------------------------------------------

export const LOCAL_HYPERVISORS_MESSAGE = 'the embedded default serves no kvm.cloud.sap/v1 Hypervisor kind (no hypervisor operator runs here)';

export class LocalHypervisors implements Hypervisors {
  async get(_name: string): Promise<HypervisorRead> {
    return { kind: 'notInstalled', message: LOCAL_HYPERVISORS_MESSAGE };
  }

  async setCustomTraits(name: string, _traits: readonly string[]): Promise<void> {
    throw new ComputeClusterError(`cannot set the custom traits of Hypervisor ${name}: ${LOCAL_HYPERVISORS_MESSAGE}`, 404);
  }
}

// ---- the pool's processes -----------------------------------------------------------------------------

export interface LocalPoolWorkloadsOptions {
  /**
   * Only the leader runs processes (the control plane): nothing is swept at construction (a standby starting on the
   * same data directory must not stop the leader's processes); `lead()` sweeps, `resign()` stops them all.
   * Default false: the earlier Regent's processes are stopped at construction.
   */
  readonly leaderScoped?: boolean;
  /** The root of every pool's state and logs (`<dataDir>/nova-compute`). Created when missing. */
  readonly dir: string;
  /** A Secret key's value; undefined when the Secret or the key is missing. */
  readonly readSecret: (namespace: string, name: string, key: string) => Promise<string | undefined>;
  /** How a node's nova-compute is started; default the installed Nova through /usr/bin/python3. */
  readonly launcher?: ComputeLauncher;
  /** Extra environment for every process, below the credentials. */
  readonly env?: Readonly<Record<string, string>>;
  /** A process is ready after running this long. Default 5 s. */
  readonly readyAfterMs?: number;
  /** How often a running process's readiness is checked. Default 1 s. */
  readonly probeIntervalMs?: number;
  readonly backoff?: Backoff;
  /** SIGTERM → SIGKILL. Default 10 s. */
  readonly graceMs?: number;
  readonly now?: () => Date;
}

/** The recorded "DaemonSet" (daemonset.json): names and digests only. */
interface DaemonSetRecord {
  name: string;
  namespace: string;
  pool: string;
  owner: PoolOwner;
  nova: string;
  image: string;
  templateHash: string;
  config: string;
  contractSecret: string;
  serviceUserSecret: string;
  annotations: Record<string, string>;
  nodes: string[];
}

interface ProcessRecord {
  pid: number;
  pidStart: string | null;
  templateHash: string;
  startedAt: string;
}

interface Running {
  supervisor: Supervisor;
  templateHash: string;
}

/** The values a node's process needs, read from the Secrets when one is to start. */
interface PoolSecrets {
  transportURL: string;
  fragment: string;
  ca: string | undefined;
  password: string;
}

interface Published {
  name: string;
  at: string;
}

const LOG_MAX_BYTES = 10 * 1024 * 1024;
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const FILE_NAME = /^[A-Za-z0-9._-]{1,253}$/;
const RECORD = 'daemonset.json';
const PUBLISHED = 'published.json';
export const COMPUTE_LOG = 'nova-compute.log';
/** The fake virt driver: each process is a hypervisor-less compute host named after its Node. */
export const LOCAL_COMPUTE_DRIVER = 'fake.FakeDriver';

const checkName = (what: string, name: string): void => {
  if (typeof name !== 'string' || !NAME.test(name) || name.includes('..')) throw new ComputeClusterError(`${what} ${JSON.stringify(name)} is not a DNS-1123 name`, 422);
};





const sorted = (record: Readonly<Record<string, string>>): Record<string, string> => Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** The pod template's hash: everything a change of which restarts every node's process. No Secret value. */
export const poolTemplateHash = (spec: PoolDaemonSetSpec): string =>
  createHash('sha256')
    .update(
      JSON.stringify({
        nova: spec.nova,
        image: spec.image,
        config: { name: spec.config.name, files: sorted(spec.config.files) },
        contractSecret: spec.contractSecret,
        serviceUserSecret: spec.serviceUserSecret,
        annotations: sorted(spec.annotations),
      }),
    )
    .digest('hex')
    .slice(0, 16);

/** regent-local.conf of a node: what only this host can say, loaded last. */
export const computeLocalConf = (input: { node: string; nodeDir: string; messagingCAFile?: string }): string => {
  const sections: IniSection[] = [
    [
      'DEFAULT',
      [
        ['host', input.node],
        ['compute_driver', LOCAL_COMPUTE_DRIVER],
        ['state_path', join(input.nodeDir, 'state')],
      ],
    ],
    ['oslo_concurrency', [['lock_path', join(input.nodeDir, 'locks')]]],
    ['oslo_messaging_rabbit', input.messagingCAFile === undefined ? [] : [['ssl_ca_file', input.messagingCAFile]]],
  ];
  return `# Written by Regent's local NovaCompute adapter (src/nova/compute/local.ts), loaded last: this process is the\n# compute host of Node ${input.node}, on Nova's fake virt driver. Credentials reach it as environment only.\n${writeIni(sections)}`;
};

export class LocalPoolWorkloads implements PoolWorkloads {
  private readonly root: string;
  private readonly launcher: ComputeLauncher;
  /** `<namespace>/<pool>` → node → its supervised process. */
  private readonly pools = new Map<string, Map<string, Running>>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private swept: Promise<void>;
  private readonly readyAfterMs: number;
  private readonly graceMs: number;
  private readonly now: () => Date;

  constructor(private readonly options: LocalPoolWorkloadsOptions) {
    this.root = resolve(options.dir);
    this.launcher = options.launcher ?? novaComputeLauncher();
    this.readyAfterMs = options.readyAfterMs ?? 5_000;
    this.graceMs = options.graceMs ?? 10_000;
    this.now = options.now ?? (() => new Date());
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    this.swept = options.leaderScoped ? Promise.resolve() : this.stopLeftovers();
  }

  /**
   * Leader-scoped use (`leaderScoped`, the control plane): this replica starts leading. Stops what another replica
   * or an earlier Regent recorded as running first; the passes' ensures wait for it.
   */
  lead(): Promise<void> {
    this.swept = this.swept.then(() => this.stopLeftovers());
    return this.swept;
  }

  /** This replica stopped leading: it stops every process it runs, so the next leader runs them alone. */
  resign(): Promise<void> {
    return this.close();
  }

  /** `<dir>/<namespace>/<pool>`. */
  poolDir(namespace: string, pool: string): string {
    checkName('namespace', namespace);
    checkName('NovaCompute name', pool);
    return join(this.root, namespace, pool);
  }

  /** `<dir>/<namespace>/<pool>/nodes/<node>`. */
  nodeDir(namespace: string, pool: string, node: string): string {
    checkName('Node name', node);
    return join(this.poolDir(namespace, pool), 'nodes', node);
  }

  logPath(namespace: string, pool: string, node: string): string {
    return join(this.nodeDir(namespace, pool, node), COMPUTE_LOG);
  }

  /** The pid of the node's process while it runs. */
  pid(namespace: string, pool: string, node: string): number | undefined {
    return this.pools.get(this.key(namespace, pool))?.get(node)?.supervisor.status().pid;
  }

  async ensureDaemonSet(spec: PoolDaemonSetSpec): Promise<PoolDaemonSetStatus> {
    const poolDir = this.poolDir(spec.namespace, spec.pool);
    for (const node of spec.nodes) checkName('Node name', node);
    if (spec.config.files[POOL_CONFIG_FILE] === undefined) throw new ComputeClusterError(`${spec.namespace}/${spec.pool}: config ${spec.config.name} has no ${POOL_CONFIG_FILE}`, 422);
    const key = this.key(spec.namespace, spec.pool);
    return this.locked(key, async () => {
      await this.swept;
      const record: DaemonSetRecord = {
        name: daemonSetName(spec.pool),
        namespace: spec.namespace,
        pool: spec.pool,
        owner: { name: spec.owner.name, uid: spec.owner.uid },
        nova: spec.nova,
        image: spec.image,
        templateHash: poolTemplateHash(spec),
        config: spec.config.name,
        contractSecret: spec.contractSecret,
        serviceUserSecret: spec.serviceUserSecret,
        annotations: sorted(spec.annotations),
        nodes: [...new Set(spec.nodes)].sort(),
      };
      mkdirSync(poolDir, { recursive: true, mode: 0o700 });
      const recordPath = join(poolDir, RECORD);
      if (JSON.stringify(readJson(recordPath)) !== JSON.stringify(record)) writeJson(recordPath, record);

      const running = this.running(key);
      const wanted = new Set(record.nodes);
      await Promise.all([...running].filter(([node]) => !wanted.has(node)).map(([node, current]) => this.stopNode(spec.namespace, spec.pool, node, current)));

      const toStart = record.nodes.filter((node) => running.get(node)?.templateHash !== record.templateHash);
      if (toStart.length > 0) {
        // read before anything is stopped: a missing Secret leaves every running process as it is
        const secrets = await this.readSecrets(spec, toStart);
        for (const node of toStart) {
          const current = running.get(node);
          if (current) await this.stopNode(spec.namespace, spec.pool, node, current);
          this.launch(spec.namespace, spec.pool, node, record.templateHash, this.prepare(spec, node, secrets));
        }
      }
      return this.status(spec.namespace, spec.pool, record);
    });
  }

  async deleteDaemonSet(namespace: string, pool: string): Promise<boolean> {
    const poolDir = this.poolDir(namespace, pool);
    const key = this.key(namespace, pool);
    return this.locked(key, async () => {
      await this.swept;
      const hadProcesses = this.running(key).size > 0;
      await this.stopAll(namespace, pool);
      const recordPath = join(poolDir, RECORD);
      const existed = existsSync(recordPath);
      rmSync(recordPath, { force: true });
      return existed || hadProcesses;
    });
  }

  async daemonSet(namespace: string, pool: string): Promise<PoolDaemonSetStatus> {
    const poolDir = this.poolDir(namespace, pool);
    await this.swept;
    return this.status(namespace, pool, readJson<DaemonSetRecord>(join(poolDir, RECORD)));
  }

  /**
   * The nodes with a process of the pool: one that runs, or one its supervisor restarts after a crash (a pod in
   * CrashLoopBackOff is still a pod on its node). A stopped process is none.
   */
  async podsOn(namespace: string, pool: string, nodes?: readonly string[]): Promise<Set<string>> {
    this.poolDir(namespace, pool);
    await this.swept;
    const running = this.pools.get(this.key(namespace, pool)) ?? new Map<string, Running>();
    const asked = nodes === undefined ? undefined : new Set(nodes);
    return new Set([...running.keys()].filter((node) => asked === undefined || asked.has(node)));
  }

  async publishConfig(namespace: string, owner: PoolOwner, config: { name: string; files: Readonly<Record<string, string>> }): Promise<boolean> {
    const poolDir = this.poolDir(namespace, owner.name);
    const pattern = this.configPattern(owner.name);
    if (!pattern.test(config.name)) throw new ComputeClusterError(`${JSON.stringify(config.name)} is not a config name of NovaCompute ${owner.name}`, 422);
    for (const file of Object.keys(config.files)) {
      if (!FILE_NAME.test(file) || file === '.' || file === '..') throw new ComputeClusterError(`config ${config.name}: ${JSON.stringify(file)} is not a plain file name`, 422);
    }
    return this.locked(this.key(namespace, owner.name), async () => {
      const base = join(poolDir, 'configs');
      mkdirSync(base, { recursive: true, mode: 0o700 });
      const target = join(base, config.name);
      const written = !existsSync(target) && writeConfigDirectory(target, config.files, (code) => new ComputeClusterError(`cannot write config ${config.name} (${code})`));
      const published = this.published(base);
      if (published[0]?.name !== config.name) writeJson(join(base, PUBLISHED), { published: [{ name: config.name, at: this.now().toISOString() }, ...published.filter((p) => p.name !== config.name)] }, 0o644);
      this.pruneConfigs(base, pattern);
      return written;
    });
  }

  async removeAll(namespace: string, pool: string): Promise<string[]> {
    const poolDir = this.poolDir(namespace, pool);
    const key = this.key(namespace, pool);
    return this.locked(key, async () => {
      await this.swept;
      const removed: string[] = [];
      const hadProcesses = this.running(key).size > 0;
      await this.stopAll(namespace, pool);
      if (hadProcesses || existsSync(join(poolDir, RECORD))) removed.push(`DaemonSet/${daemonSetName(pool)}`);
      const pattern = this.configPattern(pool);
      for (const name of this.entries(join(poolDir, 'configs')).filter((entry) => pattern.test(entry)).sort()) removed.push(`ConfigMap/${name}`);
      rmSync(poolDir, { recursive: true, force: true });
      this.pools.delete(key);
      return removed;
    });
  }

  /** Stops every process (SIGTERM, SIGKILL after the grace). */
  async close(): Promise<void> {
    await this.swept;
    await Promise.all(
      [...this.pools.keys()].map((key) =>
        this.locked(key, async () => {
          const [namespace, pool] = key.split('/') as [string, string];
          await this.stopAll(namespace, pool);
        }),
      ),
    );
  }

  // ---- the processes ------------------------------------------------------------------------------

  private status(namespace: string, pool: string, record: DaemonSetRecord | undefined): PoolDaemonSetStatus {
    if (!record) return { present: false, desiredNumberScheduled: 0, numberReady: 0, rolledOut: false, image: null };
    const running = this.pools.get(this.key(namespace, pool)) ?? new Map<string, Running>();
    let ready = 0;
    let current = 0;
    for (const node of record.nodes) {
      const entry = running.get(node);
      if (!entry?.supervisor.status().ready) continue;
      ready += 1;
      if (entry.templateHash === record.templateHash) current += 1;
    }
    return { present: true, desiredNumberScheduled: record.nodes.length, numberReady: ready, rolledOut: current === record.nodes.length, image: record.image };
  }

  /** The Secrets' values a start needs; a missing one refuses the ensure (names only, never a value). */
  private async readSecrets(spec: PoolDaemonSetSpec, nodes: readonly string[]): Promise<PoolSecrets> {
    const read = async (secret: string, key: string, required: boolean): Promise<string | undefined> => {
      const refuse = (why: string): ComputeClusterError =>
        new ComputeClusterError(`${spec.namespace}/${spec.pool}: cannot start nova-compute on ${nodes.join(', ')}: key "${key}" of Secret ${spec.namespace}/${secret} ${why}`);
      let value: string | undefined;
      try {
        value = await this.options.readSecret(spec.namespace, secret, key);
      } catch {
        throw refuse('could not be read');
      }
      if (value === undefined && required) throw refuse('does not exist (the Secret or the key is missing)');
      return value;
    };
    const transportURL = (await read(spec.contractSecret, COMPUTE_CONTRACT_KEYS.transportURL, true))!;
    const fragment = (await read(spec.contractSecret, COMPUTE_CONTRACT_KEYS.fragment, true))!;
    const ca = await read(spec.contractSecret, COMPUTE_CONTRACT_KEYS.ca, false);
    const password = (await read(spec.serviceUserSecret, SERVICE_USER_PASSWORD_KEY, true))!;
    return { transportURL, fragment, ca, password };
  }

  /** The node's config directory written afresh (and the broker CA), and the command that starts it. */
  private prepare(spec: PoolDaemonSetSpec, node: string, secrets: PoolSecrets): SpawnSpec {
    const nodeDir = this.nodeDir(spec.namespace, spec.pool, node);
    const configDir = join(nodeDir, 'config');
    rmSync(configDir, { recursive: true, force: true });
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    for (const dir of ['state', 'locks']) mkdirSync(join(nodeDir, dir), { recursive: true, mode: 0o700 });
    let messagingCAFile: string | undefined;
    const caDir = join(nodeDir, 'messaging-ca');
    rmSync(caDir, { recursive: true, force: true });
    if (secrets.ca !== undefined) {
      mkdirSync(caDir, { recursive: true, mode: 0o700 });
      messagingCAFile = join(caDir, 'ca.crt');
      writeFileSync(messagingCAFile, secrets.ca, { mode: 0o400 });
    }
    const files: Array<[string, string]> = [
      ['nova.conf', secrets.fragment],
      [POOL_CONFIG_FILE, spec.config.files[POOL_CONFIG_FILE] ?? ''],
      [LOCAL_CONF, computeLocalConf({ node, nodeDir, ...(messagingCAFile ? { messagingCAFile } : {}) })],
    ];
    for (const [file, text] of files) writeFileSync(join(configDir, file), text, { mode: 0o600 });
    const launch = this.launcher({ node, nodeDir, configFiles: files.map(([file]) => join(configDir, file)) });
    const credentials: Record<string, string> = { [optionEnv('DEFAULT', 'transport_url')]: secrets.transportURL };
    for (const section of SERVICE_USER_PASSWORD_SECTIONS) credentials[optionEnv(section, 'password')] = secrets.password;
    return {
      command: launch.command,
      args: launch.args,
      cwd: nodeDir,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: nodeDir, LANG: 'C.UTF-8', TMPDIR: process.env.TMPDIR ?? '/tmp', ...this.options.env, ...credentials },
    };
  }

  private launch(namespace: string, pool: string, node: string, templateHash: string, spawn: SpawnSpec): void {
    const recordPath = join(this.nodeDir(namespace, pool, node), 'process.json');
    const supervisor = new Supervisor(spawn, {
      name: `${namespace}/${pool}/${node}`,
      logPath: this.logPath(namespace, pool, node),
      probe: async (uptimeMs) => uptimeMs >= this.readyAfterMs,
      probeIntervalMs: this.options.probeIntervalMs ?? 1_000,
      backoff: this.options.backoff ?? DEFAULT_BACKOFF,
      graceMs: this.graceMs,
      logMaxBytes: LOG_MAX_BYTES,
      onStarted: (pid) => writeJson(recordPath, { pid, pidStart: procStart(pid), templateHash, startedAt: new Date().toISOString() } satisfies ProcessRecord),
    });
    this.running(this.key(namespace, pool)).set(node, { supervisor, templateHash });
    supervisor.start();
  }

  private async stopNode(namespace: string, pool: string, node: string, current: Running): Promise<void> {
    await current.supervisor.stop();
    const running = this.running(this.key(namespace, pool));
    if (running.get(node) === current) running.delete(node);
    rmSync(join(this.nodeDir(namespace, pool, node), 'process.json'), { force: true });
  }

  private async stopAll(namespace: string, pool: string): Promise<void> {
    await Promise.all([...this.running(this.key(namespace, pool))].map(([node, current]) => this.stopNode(namespace, pool, node, current)));
  }

  // ---- configs ------------------------------------------------------------------------------------

  private configPattern(pool: string): RegExp {
    return new RegExp(`^${pool.replace(/[.]/g, '\\.')}-config-[a-z0-9]{1,63}$`);
  }


  private published(base: string): Published[] {
    const parsed = readJson<{ published?: Published[] }>(join(base, PUBLISHED));
    return Array.isArray(parsed?.published) ? parsed.published : [];
  }

  /** The three most recently published stay; every other config directory of the pool goes. */
  private pruneConfigs(base: string, pattern: RegExp): void {
    const published = this.published(base);
    const keep = new Set(published.slice(0, CONFIG_HISTORY).map((p) => p.name));
    for (const entry of this.entries(base).filter((e) => pattern.test(e) && !keep.has(e))) rmSync(join(base, entry), { recursive: true, force: true });
    if (published.length > keep.size) writeJson(join(base, PUBLISHED), { published: published.filter((p) => keep.has(p.name)) }, 0o644);
  }

  // ---- an earlier Regent's processes ------------------------------------------------------------

  /** Stops each process an earlier Regent recorded that still runs (same pid and start time). */
  private async stopLeftovers(): Promise<void> {
    const records = this.entries(this.root).flatMap((ns) => this.entries(join(this.root, ns)).flatMap((pool) => this.entries(join(this.root, ns, pool, 'nodes')).map((node) => join(this.root, ns, pool, 'nodes', node, 'process.json'))));
    await stopRecordedProcesses(records, this.graceMs);
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private entries(path: string): string[] {
    return subdirectories(path);
  }

  private running(key: string): Map<string, Running> {
    let running = this.pools.get(key);
    if (!running) {
      running = new Map();
      this.pools.set(key, running);
    }
    return running;
  }

  private key(namespace: string, pool: string): string {
    return `${namespace}/${pool}`;
  }

  /** One operation at a time per pool (an ensure and a delete of the same pool never interleave). */
  private locked<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(run, run);
    this.locks.set(key, next.catch(() => undefined));
    return next;
  }
}

// ---- the factory --------------------------------------------------------------------------------------

export interface LocalComputeClusterOptions extends LocalPoolWorkloadsOptions {
  /** Every Node of the embedded store. */
  readonly listNodes: ListNodes;
}

/** The embedded default's ComputeCluster: the store's Nodes, supervised nova-compute processes, no Hypervisor kind. */
export const localComputeCluster = (options: LocalComputeClusterOptions): ComputeCluster & { workloads: LocalPoolWorkloads } => ({
  nodes: new LocalNodeReader(options.listNodes),
  workloads: new LocalPoolWorkloads(options),
  hypervisors: new LocalHypervisors(),
});
