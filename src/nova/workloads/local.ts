/**
 * The embedded default's role workloads (issue 26, "Where the roles run"): each Nova role is one supervised process
 * of the installed Nova on this host (./nova-launcher.ts), giving what a Deployment gives — the current template
 * running, restart on crash with backoff, logs, a clean stop (./supervisor.ts). Layout under `dir` (`./data/nova`):
 *
 *   <dir>/<namespace>/<nova>/ports.json         the loopback port of the API, metadata and console proxy, chosen
 *                                                free once and kept, so the endpoint survives restarts of the role
 *                                                and of Regent
 *   <dir>/<namespace>/<nova>/<role>.log         the role's stdout and stderr, `[regent]` lines for each start and
 *                                                exit; rotated to .log.1 at a start past 10 MiB
 *   <dir>/<namespace>/<nova>/<role>/config/     the rendered files as they are, and the launcher's regent-local.conf
 *   <dir>/<namespace>/<nova>/<role>/messaging-ca/ca.crt  the broker CA bundle on a TLS bus (0400), from its Secret
 *   <dir>/<namespace>/<nova>/<role>/process.json  pid, its /proc start time, template hash, image, config, port:
 *                                                how a Regent that died without stopping its roles finds them at its
 *                                                next start, and how `regent plan` (observeRecorded) sees them
 *
 * The local ConfigPort (src/nova/config/local.ts) may share `dir`: its entries there (`<nova>-config-<hash>/`,
 * published.json, state/, locks/) are named apart from the role names used here.
 *
 * **Rolled out** means: the process runs the current template (its hash; rollout(image): its image) and its
 * readiness check passed — the API answers GET / with 2xx or 300 (the version document, no token), the metadata
 * API and the console proxy answer GET / at all (any status below 500), the conductor and the scheduler have stayed
 * up `readyAfterMs` (they serve the bus, not a port; their service rows are the real test's to read).
 *
 * **ensure** with the running template's hash changes nothing; with another one it reads the env's Secrets first
 * (a missing one refuses the ensure and leaves the running process alone), stops the old process and starts the
 * new (Recreate: one process per role holds the role's port, so the two cannot overlap). The installed-release
 * stamp restarts the process the same way (the annotation rolls a pod). spec.image is recorded, never pulled: the
 * installed Nova runs whatever the image says. Replicas are not multiplied: one process serves each role with one
 * worker (regent-local.conf).
 *
 * Secrets: env values are read (`readSecret`) into the child's environment only; nothing of them is written to a
 * file, a log line or process.json. The child does not inherit Regent's environment.
 *
 * **close** (Regent's stop) stops every role: SIGTERM to its process group, SIGKILL after `graceMs`. A process found
 * running from an earlier Regent (process.json, same pid and start time) is stopped the same way before anything
 * else is done here, and the kernel SIGTERMs a role whose Regent died (the launcher's PR_SET_PDEATHSIG).
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { JobEnv } from '../jobs/port.js';
import { novaLauncher, type RoleLauncher } from './nova-launcher.js';
import { UPGRADE_ROLE_ORDER, WorkloadError, deploymentName, type NovaOwner, type NovaRole, type RoleRollout, type RoleTemplate, type RoleWorkloads } from './port.js';
import { DEFAULT_BACKOFF, Supervisor, type Backoff, type SpawnSpec } from './supervisor.js';
import { procStart, readJson, readLiveRecord, stopRecordedProcesses, subdirectories, writeJson } from './process-records.js';

export interface LocalWorkloadsOptions {
  /**
   * Only the leader runs processes (the control plane): nothing is swept at construction (a standby starting on the
   * same data directory must not stop the leader's processes); `lead()` sweeps, `resign()` stops them all.
   * Default false: the earlier Regent's processes are stopped at construction.
   */
  readonly leaderScoped?: boolean;
  /** The root of the roles' state and logs (`<dataDir>/nova`). Created when missing. */
  readonly dir: string;
  /** A secretKeyRef's value; undefined when the Secret or the key is missing. */
  readonly readSecret: (namespace: string, name: string, key: string) => Promise<string | undefined>;
  /** How a role is started; default the installed Nova through /usr/bin/python3. */
  readonly launcher?: RoleLauncher;
  /** Extra environment for every role process, below the template's env. */
  readonly env?: Readonly<Record<string, string>>;
  /** The conductor and the scheduler are ready after running this long. Default 5 s. */
  readonly readyAfterMs?: number;
  /** How often a running role's readiness is checked. Default 1 s. */
  readonly probeIntervalMs?: number;
  readonly backoff?: Backoff;
  /** SIGTERM → SIGKILL. Default 10 s. */
  readonly graceMs?: number;
  /** Where free loopback ports are looked for. Default 21000–28999 (below Linux's ephemeral range). */
  readonly portRange?: readonly [number, number];
  /**
   * Runs nothing and stops nothing: answers what the Regent running on the same `dir` runs, from its process records
   * (process.json: the pid still running with its start time, the template, image, config and port; readiness
   * probed as that Regent probes it). For `regent plan` in its own process; ensure, stamp and remove refuse.
   */
  readonly observeRecorded?: boolean;
}

interface Running {
  supervisor: Supervisor;
  templateHash: string;
  /** The rendered config's name (the ConfigPort's `current` asks which one the API runs). */
  config: string;
  image: string;
  port: number | undefined;
  stamp: string | undefined;
  spawn: SpawnSpec;
}

interface ProcessRecord {
  pid: number;
  pidStart: string | null;
  templateHash: string;
  startedAt: string;
  /** What an observer (`observeRecorded`) judges the rollout by; absent in a record from before them. */
  image?: string;
  config?: string;
  port?: number | null;
}

const HOST = '127.0.0.1';
const LOG_MAX_BYTES = 10 * 1024 * 1024;
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const FILE = /^[A-Za-z0-9._-]{1,253}(\/[A-Za-z0-9._-]{1,253})?$/;

const checkName = (what: string, name: string): void => {
  if (!NAME.test(name) || name.includes('..')) throw new WorkloadError(`${what} ${JSON.stringify(name)} is not a DNS-1123 name`, 422);
};



/** GET http://host:port/ → the status code, or undefined when nothing answered within 2 s. */
const httpStatus = (port: number): Promise<number | undefined> =>
  new Promise((resolveStatus) => {
    const req = request({ host: HOST, port, path: '/', method: 'GET', timeout: 2_000 }, (res) => {
      res.resume();
      resolveStatus(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolveStatus(undefined));
    req.end();
  });

const canBind = (port: number): Promise<boolean> =>
  new Promise((answer) => {
    const server = createServer();
    server.once('error', () => answer(false));
    server.listen(port, HOST, () => server.close(() => answer(true)));
  });



export class LocalWorkloads implements RoleWorkloads {
  private readonly root: string;
  private readonly launcher: RoleLauncher;
  private readonly running = new Map<string, Running>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private swept: Promise<void>;
  private readonly readyAfterMs: number;
  private readonly graceMs: number;

  constructor(private readonly options: LocalWorkloadsOptions) {
    this.root = resolve(options.dir);
    this.launcher = options.launcher ?? novaLauncher();
    this.readyAfterMs = options.readyAfterMs ?? 5_000;
    this.graceMs = options.graceMs ?? 10_000;
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    this.swept = options.leaderScoped || options.observeRecorded ? Promise.resolve() : this.stopLeftovers();
  }

  /**
   * Leader-scoped use (`leaderScoped`, the control plane): this replica starts leading. Stops what another replica
   * or an earlier Regent recorded as running first; the passes' ensures wait for it.
   */
  lead(): Promise<void> {
    if (this.options.observeRecorded) return Promise.resolve();
    this.swept = this.swept.then(() => this.stopLeftovers());
    return this.swept;
  }

  /** This replica stopped leading: it stops every process it runs, so the next leader runs them alone. */
  resign(): Promise<void> {
    return this.close();
  }

  /** `<dir>/<namespace>/<nova>/<role>.log`. */
  logPath(namespace: string, nova: string, role: NovaRole): string {
    return join(this.novaDir(namespace, nova), `${role}.log`);
  }

  /** The pid of the role's process while it runs (for an operator, and the tests' process listing). */
  pid(namespace: string, nova: string, role: NovaRole): number | undefined {
    return this.running.get(this.key(namespace, nova, role))?.supervisor.status().pid;
  }

  async ensure(namespace: string, nova: NovaOwner, role: NovaRole, template: RoleTemplate): Promise<RoleRollout> {
    this.refuseObserving('ensure');
    checkName('namespace', namespace);
    checkName('Nova name', nova.name);
    const key = this.key(namespace, nova.name, role);
    return this.locked(key, async () => {
      await this.swept;
      const current = this.running.get(key);
      if (current?.templateHash !== template.templateHash) {
        const port = template.port === undefined ? undefined : await this.portOf(namespace, nova.name, role);
        const env = await this.resolveEnv(namespace, nova.name, role, template.env);
        const ca = template.messagingCA ? await this.readSecretFile(namespace, nova.name, role, template.messagingCA) : undefined;
        if (current) await this.stopRunning(key, current);
        const spawn = this.prepare(namespace, nova.name, role, template, port, env, ca);
        this.launch(key, namespace, nova.name, role, { templateHash: template.templateHash, config: template.config.name, image: template.image, port, stamp: current?.stamp, spawn });
      }
      return this.judge(namespace, nova.name, role, template.image);
    });
  }

  async rollout(namespace: string, nova: string, role: NovaRole, image: string): Promise<RoleRollout> {
    checkName('namespace', namespace);
    checkName('Nova name', nova);
    await this.swept;
    return this.options.observeRecorded && !this.running.has(this.key(namespace, nova, role)) ? this.judgeRecorded(namespace, nova, role, image) : this.judge(namespace, nova, role, image);
  }

  async stampInstalledRelease(namespace: string, nova: string, role: NovaRole, release: string): Promise<'stamped' | 'unchanged' | 'absent'> {
    this.refuseObserving('stampInstalledRelease');
    checkName('namespace', namespace);
    checkName('Nova name', nova);
    const key = this.key(namespace, nova, role);
    return this.locked(key, async () => {
      await this.swept;
      const current = this.running.get(key);
      if (!current) return 'absent';
      if (current.stamp === release) return 'unchanged';
      // the annotation rolls a pod; here it restarts the process on the same template
      await this.stopRunning(key, current);
      this.launch(key, namespace, nova, role, { ...current, stamp: release });
      return 'stamped';
    });
  }

  async remove(namespace: string, nova: string, role: NovaRole): Promise<'removed' | 'absent'> {
    this.refuseObserving('remove');
    checkName('namespace', namespace);
    checkName('Nova name', nova);
    const key = this.key(namespace, nova, role);
    return this.locked(key, async () => {
      await this.swept;
      const current = this.running.get(key);
      if (current) await this.stopRunning(key, current);
      const dir = this.roleDir(namespace, nova, role);
      const existed = current !== undefined || existsSync(dir);
      rmSync(dir, { recursive: true, force: true });
      return existed ? 'removed' : 'absent';
    });
  }

  /** Removes every role of a Nova (the controller's `released`, once the Nova is gone). */
  async removeAll(namespace: string, nova: string): Promise<void> {
    for (const role of UPGRADE_ROLE_ORDER) await this.remove(namespace, nova, role);
  }

  /** The rendered config the API process runs (the local ConfigPort's `liveConfig` hook), undefined while none runs. */
  async liveConfig(namespace: string, nova: string): Promise<string | undefined> {
    const running = this.running.get(this.key(namespace, nova, 'api'));
    if (running || !this.options.observeRecorded) return running?.config;
    return this.liveRecord(namespace, nova, 'api')?.config;
  }

  async endpoint(namespace: string, nova: string): Promise<string | undefined> {
    checkName('namespace', namespace);
    checkName('Nova name', nova);
    const port = readJson<Record<string, number>>(join(this.novaDir(namespace, nova), 'ports.json'))?.api;
    return port === undefined ? undefined : `http://${HOST}:${port}`;
  }

  /** Stops every role (SIGTERM, SIGKILL after the grace). */
  async close(): Promise<void> {
    await this.swept;
    await Promise.all([...this.running].map(([key, current]) => this.locked(key, () => this.stopRunning(key, current))));
  }

  // ---- the processes ------------------------------------------------------------------------------

  private launch(key: string, namespace: string, nova: string, role: NovaRole, running: Omit<Running, 'supervisor'>): void {
    const recordPath = join(this.roleDir(namespace, nova, role), 'process.json');
    const supervisor = new Supervisor(running.spawn, {
      name: `${namespace}/${nova}/${role}`,
      logPath: this.logPath(namespace, nova, role),
      probe: (uptimeMs) => this.probe(role, running.port, uptimeMs),
      probeIntervalMs: this.options.probeIntervalMs ?? 1_000,
      backoff: this.options.backoff ?? DEFAULT_BACKOFF,
      graceMs: this.graceMs,
      logMaxBytes: LOG_MAX_BYTES,
      onStarted: (pid) =>
        writeJson(recordPath, { pid, pidStart: procStart(pid), templateHash: running.templateHash, startedAt: new Date().toISOString(), image: running.image, config: running.config, port: running.port ?? null } satisfies ProcessRecord),
    });
    this.running.set(key, { ...running, supervisor });
    supervisor.start();
  }

  private async stopRunning(key: string, current: Running): Promise<void> {
    await current.supervisor.stop();
    if (this.running.get(key) === current) this.running.delete(key);
    const [namespace, nova, role] = key.split('/') as [string, string, NovaRole];
    rmSync(join(this.roleDir(namespace, nova, role), 'process.json'), { force: true });
  }

  private async probe(role: NovaRole, port: number | undefined, uptimeMs: number): Promise<boolean> {
    if (port === undefined) return uptimeMs >= this.readyAfterMs;
    const status = await httpStatus(port);
    if (status === undefined) return false;
    // the API's root is its version document: 300 Multiple Choices (or a 2xx); the others need only answer
    return role === 'api' ? (status >= 200 && status < 300) || status === 300 : status < 500;
  }

  private judge(namespace: string, nova: string, role: NovaRole, image: string): RoleRollout {
    const name = deploymentName(nova, role);
    const current = this.running.get(this.key(namespace, nova, role));
    if (!current) return { role, deployment: name, present: false, rolledOut: false, detail: `no local process for ${name}` };
    const base = { role, deployment: name, present: true };
    if (current.image !== image) return { ...base, rolledOut: false, detail: `runs the template of ${current.image}, not ${image}` };
    const status = current.supervisor.status();
    if (status.running) return { ...base, ...this.runningRollout(status.pid, current.port, current.templateHash, status.ready) };
    // no countdown in the words: a detail that changed every pass would rewrite the condition every pass
    const wait = status.backoffMs === undefined ? '' : ` after a ${status.backoffMs / 1000} s backoff`;
    return { ...base, rolledOut: false, detail: `not running (${status.lastExit ?? 'starting'}); restart ${status.restarts + 1} follows${wait}; see ${this.logPath(namespace, nova, role)}` };
  }

  // ---- another Regent's processes, observed (observeRecorded) ---------------------------------------

  /** The role's process record when the process it names still runs (same pid, same start time). */
  private liveRecord(namespace: string, nova: string, role: NovaRole): ProcessRecord | undefined {
    return readLiveRecord<ProcessRecord>(join(this.roleDir(namespace, nova, role), 'process.json'));
  }

  /** `judge` of a process another Regent runs, in the same words, from its record and the same readiness check. */
  private async judgeRecorded(namespace: string, nova: string, role: NovaRole, image: string): Promise<RoleRollout> {
    const name = deploymentName(nova, role);
    const record = this.liveRecord(namespace, nova, role);
    if (!record) return { role, deployment: name, present: false, rolledOut: false, detail: `no local process for ${name}` };
    const base = { role, deployment: name, present: true };
    if (record.image === undefined) return { ...base, rolledOut: false, detail: `pid ${record.pid} runs template ${record.templateHash}; its record (from an older Regent) does not say its image` };
    if (record.image !== image) return { ...base, rolledOut: false, detail: `runs the template of ${record.image}, not ${image}` };
    const port = record.port ?? undefined;
    return { ...base, ...this.runningRollout(record.pid, port, record.templateHash, await this.probe(role, port, Date.now() - Date.parse(record.startedAt))) };
  }

  /** A running role's rollout, in the same words for this Regent's processes and an observed one's. */
  private runningRollout(pid: number | undefined, port: number | undefined, templateHash: string, ready: boolean): { rolledOut: boolean; detail: string } {
    const where = port === undefined ? '' : ` on ${HOST}:${port}`;
    if (ready) return { rolledOut: true, detail: `rolled out: pid ${pid}${where}, template ${templateHash}` };
    return { rolledOut: false, detail: `pid ${pid}${where} is not ready yet (${port === undefined ? `up less than ${this.readyAfterMs / 1000} s` : 'GET / does not answer yet'})` };
  }

  private refuseObserving(what: string): void {
    if (this.options.observeRecorded) throw new WorkloadError(`${what}: these local workloads only observe what another Regent on ${this.root} runs`, 409);
  }

  /** The role's config directory written afresh (and the broker CA), and the command that starts it. */
  private prepare(namespace: string, nova: string, role: NovaRole, template: RoleTemplate, port: number | undefined, env: Record<string, string>, ca: string | undefined): SpawnSpec {
    const roleDir = this.roleDir(namespace, nova, role);
    const configDir = join(roleDir, 'config');
    rmSync(configDir, { recursive: true, force: true });
    mkdirSync(configDir, { recursive: true, mode: 0o700 });
    let messagingCAFile: string | undefined;
    if (ca !== undefined) {
      messagingCAFile = join(roleDir, 'messaging-ca', 'ca.crt');
      mkdirSync(dirname(messagingCAFile), { recursive: true, mode: 0o700 });
      rmSync(messagingCAFile, { force: true });
      writeFileSync(messagingCAFile, ca, { mode: 0o400 });
    }
    const launch = this.launcher({ role, configDir, files: Object.keys(template.config.files), ...(template.overlay ? { overlay: template.overlay } : {}), host: HOST, ...(port === undefined ? {} : { port }), ...(messagingCAFile ? { messagingCAFile } : {}) });
    for (const [file, text] of Object.entries({ ...launch.files, ...template.config.files })) {
      if (!FILE.test(file) || file.split('/').some((part) => part === '.' || part === '..')) throw new WorkloadError(`${namespace}/${nova}/${role}: config file name ${JSON.stringify(file)} is not a plain file name`, 422);
      mkdirSync(dirname(join(configDir, file)), { recursive: true, mode: 0o700 });
      writeFileSync(join(configDir, file), text, { mode: 0o600 });
    }
    return {
      command: launch.command,
      args: launch.args,
      cwd: roleDir,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: roleDir, LANG: 'C.UTF-8', TMPDIR: process.env.TMPDIR ?? '/tmp', ...this.options.env, ...env },
    };
  }

  /** A Secret key's value for a file the process reads; missing refuses the ensure (names only). */
  private async readSecretFile(namespace: string, nova: string, role: NovaRole, ref: { secret: string; key: string }): Promise<string> {
    const where = `${namespace}/${nova}/${role}: the broker CA bundle, key "${ref.key}" of Secret ${namespace}/${ref.secret}`;
    let value: string | undefined;
    try {
      value = await this.options.readSecret(namespace, ref.secret, ref.key);
    } catch {
      throw new WorkloadError(`${where}, could not be read`);
    }
    if (value === undefined) throw new WorkloadError(`${where}, does not exist (the Secret or the key is missing)`);
    return value;
  }

  /** Literal values, and secretKeyRef values read now; a missing one refuses the ensure (names only). */
  private async resolveEnv(namespace: string, nova: string, role: NovaRole, env: readonly JobEnv[]): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const e of env) {
      if (!('secretKeyRef' in e)) {
        out[e.name] = e.value;
        continue;
      }
      const where = `${namespace}/${nova}/${role}: env ${e.name} names key "${e.secretKeyRef.key}" of Secret ${namespace}/${e.secretKeyRef.name}`;
      let value: string | undefined;
      try {
        value = await this.options.readSecret(namespace, e.secretKeyRef.name, e.secretKeyRef.key);
      } catch {
        throw new WorkloadError(`${where}, which could not be read`);
      }
      if (value === undefined) throw new WorkloadError(`${where}, which does not exist (the Secret or the key is missing)`);
      out[e.name] = value;
    }
    return out;
  }

  // ---- ports --------------------------------------------------------------------------------------

  /** The role's loopback port: the one recorded for this Nova, else a free one, recorded. */
  private async portOf(namespace: string, nova: string, role: NovaRole): Promise<number> {
    const path = join(this.novaDir(namespace, nova), 'ports.json');
    const ports = readJson<Record<string, number>>(path) ?? {};
    const kept = ports[role];
    if (kept !== undefined) return kept;
    const taken = this.recordedPorts();
    const [low, high] = this.options.portRange ?? [21_000, 28_999];
    const size = high - low + 1;
    // start where this role's name points, so two Novas rarely probe the same ports
    const offset = createHash('sha256').update(`${namespace}/${nova}/${role}`).digest().readUInt32BE(0) % size;
    for (let i = 0; i < size; i += 1) {
      const port = low + ((offset + i) % size);
      if (taken.has(port)) continue;
      if (!(await canBind(port))) continue;
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeJson(path, { ...ports, [role]: port });
      return port;
    }
    throw new WorkloadError(`${namespace}/${nova}/${role}: no free loopback port in ${low}–${high}`);
  }

  /** Every port recorded by any Nova here: a stopped role keeps its port. */
  private recordedPorts(): Set<number> {
    const ports = new Set<number>();
    for (const ns of this.dirs(this.root)) for (const nova of this.dirs(join(this.root, ns))) for (const p of Object.values(readJson<Record<string, number>>(join(this.root, ns, nova, 'ports.json')) ?? {})) ports.add(p);
    return ports;
  }

  // ---- an earlier Regent's processes ------------------------------------------------------------

  /** Stops each process an earlier Regent recorded that still runs (same pid and start time). */
  private async stopLeftovers(): Promise<void> {
    const records = this.dirs(this.root).flatMap((ns) => this.dirs(join(this.root, ns)).flatMap((nova) => this.dirs(join(this.root, ns, nova)).map((role) => join(this.root, ns, nova, role, 'process.json'))));
    await stopRecordedProcesses(records, this.graceMs);
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private dirs(path: string): string[] {
    return subdirectories(path);
  }

  private key(namespace: string, nova: string, role: NovaRole): string {
    return `${namespace}/${nova}/${role}`;
  }

  private novaDir(namespace: string, nova: string): string {
    return join(this.root, namespace, nova);
  }

  private roleDir(namespace: string, nova: string, role: NovaRole): string {
    return join(this.novaDir(namespace, nova), role);
  }

  /** One operation at a time per role (an ensure and a stamp of the same role never interleave). */
  private locked<T>(key: string, run: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(key) ?? Promise.resolve();
    const next = previous.then(run, run);
    this.locks.set(key, next.catch(() => undefined));
    return next;
  }
}
