/**
 * The embedded default's JobRunner (issue 14, "Where Jobs run"): the same rendered scripts as the Kubernetes
 * Jobs, run as child processes `/bin/sh -eu -c <script>` on this host. Everything is state on disk, so a
 * restarted Regent sees the same Jobs:
 *
 *   <dir>/jobs/<namespace>/<name>/         one folder per Job (mode 0700)
 *     job.json         uid (randomUUID), templateHash, createdAt, pid and its start time, deadline, owner,
 *                      controller (the Nova, or the CronJob of a run), labels; env NAMES only, never a value
 *     config/          the config files; the script sees them as $NOVA_CONFIG_DIR
 *     output.log       stdout and stderr, capped at `outputLimitBytes` (a marker line says so); output.tail the
 *                      last 20 lines, written when the script ends
 *     termination-log  what the script wrote to /dev/termination-log (see below), read by terminationMessage
 *     started          empty; written just before the child is spawned: its mtime is the Job's startedAt
 *     exit             the exit code, written by a small sh wrapper after the script and the output end
 *     failure          the runner's own verdict, when it made one (deadline exceeded, process lost)
 *   <dir>/cronjobs/<namespace>/<name>/cronjob.json   the CronJob spec, its uid and lastScheduleTime
 *   <dir>/tls/<namespace>/<nova>/<block>/   a database block's TLS client files (ca.crt, tls.crt, tls.key), mode
 *                    0400 in directories of mode 0700: what the DSNs' ssl_* parameters name (databaseTlsDir)
 *
 * The TLS files (JobSpec.databaseTls) are written from the Secrets when a Job or an archive run is created, before
 * its child starts: each one to a new file created at 0400 and renamed over the old, so a Job already running
 * reads either the old file or the new one, never half of one. The directory is one per Nova and block, not per
 * Job, because the DSN Secrets that name it are shared by every Job of the Nova. A mount naming any other
 * directory, or a missing Secret or key, refuses the create (names only, never a value).
 *
 * State of a Job, read from the files on every call: `failure` → failed with it; `exit` → succeeded (0) or
 * failed ("exit code N", and the last lines of output); no exit and the pid alive (same process start time,
 * not a zombie) → running, unless its activeDeadlineSeconds since createdAt have passed: then the runner kills
 * the process group and writes `failure` (DeadlineExceeded) — a restarted Regent enforces it on its first read;
 * no exit and the pid gone → failed, "the runner lost the process" (written to `failure`, so it stays so).
 * startedAt is the mtime of `started`, finishedAt the mtime of `exit` or `failure`: both this host's file clock (not
 * the `now` option), so their difference is the Job's duration and a restarted Regent reads the same times. A Job
 * folder from before `started` existed, and a run that could not be started, have no startedAt.
 *
 * The termination log: every `/dev/termination-log` in the script is replaced with the absolute path of the
 * Job's own `termination-log` file (also exported as $TERMINATION_LOG), so the caller renders one script for
 * both runners and the template hash does not depend on where Jobs run. The root `dir` is therefore refused
 * unless its absolute path is plain (letters, digits, `_ . / + -`): the path lands in shell text.
 *
 * The child is spawned detached (a process group of its own) with stdio to nothing but its files, so it
 * survives a Regent restart; delete and the deadline SIGKILL the whole group. The child does NOT inherit
 * Regent's environment (it may hold credentials of its own): it gets PATH (`binDir` first), HOME (its folder),
 * LANG, TMPDIR, the `env` option, the Job's env (secretKeyRef values through `readSecret`, in the child's
 * environment only), NOVA_CONFIG_DIR and TERMINATION_LOG. backoffLimit retries the script at once in the same
 * process (the termination log is emptied before each attempt); Kubernetes' pod backoff delay is not modelled.
 *
 * The archive CronJob: `ensureCronJob` stores the spec; `tick(now)` is the scheduler, called by the caller's
 * timer (or by `start(intervalMs)` / `stop()`; nothing runs from the constructor). A tick fires the latest
 * missed firing time after lastScheduleTime (createdAt at first), as the CronJob controller does: run
 * `<name>-<unix minutes>` with the spec's activeDeadlineSeconds; not while suspended; ConcurrencyPolicy Forbid
 * (a running run defers the firing until it ends, lastScheduleTime unchanged); a run that cannot be started
 * (a missing Secret) is recorded as a failed run, as a pod stuck on its env fails on Kubernetes. Each tick keeps
 * the newest 3 succeeded and the newest 1 failed runs (Kubernetes' history limits) and deletes the rest.
 *
 * Caveats: the output is the script's own and may hold whatever nova-manage printed; credentials in URLs are
 * masked in failure messages, nothing more. Times are this host's clock.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, closeSync, renameSync, rmSync, statSync, writeFileSync, fstatSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { CronParseError, latestFiring, parseCron } from './cron.js';
import { JobRunnerError, type CronJobRuns, type CronJobSpec, type DatabaseBlockName, type JobEnv, type JobRunner, type JobSpec, type ObservedJob } from './port.js';

/** A Job this process started has ended: its namespace and name, the Nova that owns it, and what controls it. */
export type JobEndedListener = (ended: { namespace: string; name: string; owner: JobSpec['owner']; controllerKind: string }) => void;

export interface LocalJobRunnerOptions {
  /** The root of the runner's state (jobs/ and cronjobs/ below it). Created when missing. */
  readonly dir: string;
  /** A secretKeyRef's value; undefined when the Secret or the key is missing. */
  readonly readSecret: (namespace: string, name: string, key: string) => Promise<string | undefined>;
  /** Put first on PATH: where `nova-manage` and `nova-status` live (e.g. /var/tmp/regent-openstack/bin). */
  readonly binDir?: string;
  /** Extra environment for every child, below the Job's own env. */
  readonly env?: Readonly<Record<string, string>>;
  /** The cap on output.log, bytes. Default 1 MiB. */
  readonly outputLimitBytes?: number;
  /** The clock for createdAt, deadlines and the default tick time. Default the system clock. */
  readonly now?: () => Date;
  /** The shell. Default /bin/sh. */
  readonly shell?: string;
}

export interface TickResult {
  /** Runs started, `<namespace>/<name>`. */
  readonly started: string[];
  /** Firings not started, with why (Forbid, create failure). */
  readonly deferred: Array<{ cronJob: string; reason: string }>;
  /** Runs deleted by the history limits, `<namespace>/<name>`. */
  readonly deleted: string[];
}

interface Controller {
  kind: 'Nova' | 'CronJob';
  name: string;
  uid: string;
}

interface JobRecord {
  version: 1;
  namespace: string;
  name: string;
  uid: string;
  templateHash: string;
  createdAt: string;
  pid: number | null;
  pidStart: string | null;
  activeDeadlineSeconds: number | null;
  backoffLimit: number;
  owner: JobSpec['owner'];
  controller: Controller;
  labels: Record<string, string>;
  image: string;
  envNames: string[];
}

interface CronRecord {
  version: 1;
  uid: string;
  createdAt: string;
  lastScheduleTime: string | null;
  spec: CronJobSpec;
}

const TERMINATION_LOG = '/dev/termination-log';
const MESSAGE_LIMIT = 4096; // the kubelet's per-container termination message limit
const TAIL_LINES = 20;
const SUCCEEDED_HISTORY = 3;
const FAILED_HISTORY = 1;
const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const FILE_NAME = /^[A-Za-z0-9._-]{1,253}$/;
const SAFE_PATH = /^[A-Za-z0-9_./+-]+$/;
/** The TLS client files: readable by this user only (the key among them). */
export const DATABASE_TLS_FILE_MODE = 0o400;
const PRIVATE_DIR_MODE = 0o700;
const BLOCKS: readonly DatabaseBlockName[] = ['api', 'cell'];

/**
 * Runs the script (attempts: backoffLimit + 1), output through awk to the capped log and a tail, then the exit
 * code. `exit` is moved into place only after the pipeline ends, so a reader that sees it sees all the output.
 * $1 script, $2 job folder, $3 output cap, $4 retries, $5 shell.
 */
const WRAPPER = `
dir=$2
{
  attempt=0
  while :; do
    : > "$dir/termination-log"
    rc=0
    "$5" -eu -c "$1" || rc=$?
    [ "$rc" -eq 0 ] && break
    [ "$attempt" -ge "$4" ] && break
    attempt=$((attempt + 1))
    echo "regent: attempt $attempt exited $rc; retrying"
  done
  printf '%s\\n' "$rc" > "$dir/exit.tmp"
} 2>&1 < /dev/null | LC_ALL=C awk -v limit="$3" -v out="$dir/output.log" -v tail="$dir/output.tail" -v keep=${TAIL_LINES} '
  { n += length($0) + 1; ring[NR % keep] = $0
    if (n <= limit) { print > out; fflush(out) }
    else if (!capped) { print "[regent: output capped at " limit " bytes]" > out; fflush(out); capped = 1 } }
  END { for (i = (NR > keep ? NR - keep + 1 : 1); i <= NR; i++) print ring[i % keep] > tail }'
mv "$dir/exit.tmp" "$dir/exit"
`;

const maskCredentials = (text: string): string => text.replace(/(:\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@');

const readText = (path: string, limit?: number): string | undefined => {
  try {
    if (limit === undefined) return readFileSync(path, 'utf8');
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(limit);
      const n = readSync(fd, buffer, 0, limit, 0);
      return buffer.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
};

/** The last `limit` bytes of a file. */
const readEnd = (path: string, limit: number): string => {
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      const length = Math.min(size, limit);
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      return buffer.toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
};

const writeAtomic = (path: string, text: string): void => {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  renameSync(temporary, path);
};

const mtime = (path: string): string | undefined => {
  try {
    return statSync(path).mtime.toISOString();
  } catch {
    return undefined;
  }
};

/** /proc/<pid>/stat: the state letter and the start time (field 22), or undefined when there is no such process. */
const procStat = (pid: number): { state: string; start: string } | undefined => {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', start: fields[19] ?? '' };
};

const HAS_PROC = existsSync('/proc/self/stat');

/** Whether the Job's process still runs: same pid AND same start time (a reused pid is not ours), not a zombie. */
const alive = (record: JobRecord): boolean => {
  if (record.pid === null) return false;
  if (HAS_PROC) {
    const stat = procStat(record.pid);
    if (!stat || stat.state === 'Z') return false;
    return record.pidStart === null || stat.start === record.pidStart;
  }
  try {
    process.kill(record.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const labelsMatch = (labels: Readonly<Record<string, string>>, wanted: Readonly<Record<string, string>>): boolean => Object.entries(wanted).every(([k, v]) => labels[k] === v);

export class LocalJobRunner implements JobRunner {
  private readonly root: string;
  private readonly now: () => Date;
  private readonly shell: string;
  private readonly outputLimit: number;
  private readonly deadlines = new Map<string, NodeJS.Timeout>();
  private readonly endedListeners = new Set<JobEndedListener>();
  private interval: NodeJS.Timeout | undefined;
  private ticking: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LocalJobRunnerOptions) {
    this.root = resolve(options.dir);
    if (!SAFE_PATH.test(this.root)) throw new Error(`the local job runner's dir ${JSON.stringify(this.root)} must be a plain path (letters, digits, _ . / + -): it is written into scripts`);
    this.now = options.now ?? (() => new Date());
    this.shell = options.shell ?? '/bin/sh';
    if (!isAbsolute(this.shell)) throw new Error(`the local job runner's shell must be an absolute path, not ${this.shell}`);
    this.outputLimit = options.outputLimitBytes ?? 1024 * 1024;
    mkdirSync(join(this.root, 'jobs'), { recursive: true, mode: 0o700 });
    mkdirSync(join(this.root, 'cronjobs'), { recursive: true, mode: 0o700 });
  }

  /** The file the script's `/dev/termination-log` is rewritten to. */
  terminationLogPath(namespace: string, name: string): string {
    return join(this.jobDir(namespace, name), 'termination-log');
  }

  /** A block's TLS directory, `<dir>/tls/<namespace>/<nova>/<block>` (see the header). */
  databaseTlsDir(namespace: string, nova: string, block: DatabaseBlockName): string {
    checkName('namespace', namespace);
    checkName('Nova name', nova);
    if (!BLOCKS.includes(block)) throw new JobRunnerError(`database block ${JSON.stringify(block)} is neither api nor cell`, 422);
    return join(this.root, 'tls', namespace, nova, block);
  }

  /** The Job's capped output (for an operator reading by hand; never published). */
  outputPath(namespace: string, name: string): string {
    return join(this.jobDir(namespace, name), 'output.log');
  }

  async get(namespace: string, name: string): Promise<ObservedJob | undefined> {
    checkName('namespace', namespace);
    checkName('Job name', name);
    return this.observe(namespace, name);
  }

  async create(spec: JobSpec): Promise<void> {
    await this.createJob(spec, { kind: 'Nova', name: spec.owner.name, uid: spec.owner.uid });
  }

  async delete(namespace: string, name: string): Promise<void> {
    checkName('namespace', namespace);
    checkName('Job name', name);
    const dir = this.jobDir(namespace, name);
    if (!existsSync(dir)) return;
    const record = this.record(dir);
    if (record) await this.killAndWait(record);
    this.clearDeadline(namespace, name);
    rmSync(dir, { recursive: true, force: true });
  }

  async terminationMessage(job: ObservedJob): Promise<string | null> {
    checkName('namespace', job.namespace);
    checkName('Job name', job.name);
    const dir = this.jobDir(job.namespace, job.name);
    const record = this.record(dir);
    // A folder of an earlier Job of the same name (another uid) is never read.
    if (!record || job.uid === '' || record.uid !== job.uid) return null;
    const message = readText(join(dir, 'termination-log'), MESSAGE_LIMIT);
    return message === undefined || message === '' ? null : message;
  }

  async ensureCronJob(spec: CronJobSpec): Promise<void> {
    checkName('namespace', spec.namespace);
    checkName('CronJob name', spec.name);
    try {
      parseCron(spec.schedule);
    } catch (error) {
      if (error instanceof CronParseError) throw new JobRunnerError(`CronJob ${spec.namespace}/${spec.name}: ${error.message}`, 422);
      throw error;
    }
    const dir = this.cronDir(spec.namespace, spec.name);
    const current = this.cronRecord(dir);
    if (current && current.spec.templateHash === spec.templateHash && current.spec.suspend === spec.suspend && current.spec.schedule === spec.schedule) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const record: CronRecord = { version: 1, uid: current?.uid ?? randomUUID(), createdAt: current?.createdAt ?? this.now().toISOString(), lastScheduleTime: current?.lastScheduleTime ?? null, spec: structuredClone(spec) };
    writeAtomic(join(dir, 'cronjob.json'), `${JSON.stringify(record, null, 2)}\n`);
  }

  async cronJobRuns(namespace: string, name: string): Promise<CronJobRuns> {
    checkName('namespace', namespace);
    checkName('CronJob name', name);
    const cron = this.cronRecord(this.cronDir(namespace, name));
    if (!cron) return { exists: false, suspended: false, runs: [] };
    return { exists: true, suspended: cron.spec.suspend, runs: await this.runsOf(cron) };
  }

  /**
   * One scheduler pass over every stored CronJob at `now`: fire (see the header), then apply the history
   * limits. Ticks never overlap: a tick called while one runs waits for it.
   */
  tick(now: Date = this.now()): Promise<TickResult> {
    const run = this.ticking.then(() => this.tickOnce(now));
    this.ticking = run.catch(() => undefined);
    return run;
  }

  /** Calls `tick()` every `intervalMs` (unref'd) until `stop()`; errors go to `onError`. */
  start(intervalMs = 15_000, onError: (error: unknown) => void = () => undefined): void {
    this.stop();
    this.interval = setInterval(() => void this.tick().catch(onError), intervalMs);
    this.interval.unref();
  }

  stop(): void {
    if (this.interval) clearInterval(this.interval);
    this.interval = undefined;
  }

  /**
   * What Kubernetes' garbage collector does for a deleted Nova's owner references, done here when the finalizer
   * releases the Nova: every Job it owns (a running one killed with its process group), its CronJobs and their
   * runs, and its database TLS files. Waits for a scheduler tick in progress first, so no archive run starts after.
   * Returns the names removed.
   */
  async removeOwnedBy(namespace: string, nova: string): Promise<string[]> {
    checkName('namespace', namespace);
    checkName('Nova name', nova);
    await this.ticking;
    const removed: string[] = [];
    const cronBase = join(this.root, 'cronjobs', namespace);
    const crons = new Set<string>();
    for (const name of existsSync(cronBase) ? readdirSync(cronBase) : []) {
      const cron = this.cronRecord(join(cronBase, name));
      if (cron?.spec.owner.kind !== 'Nova' || cron.spec.owner.name !== nova) continue;
      crons.add(cron.uid);
      rmSync(join(cronBase, name), { recursive: true, force: true });
      removed.push(`CronJob ${name}`);
    }
    const jobBase = join(this.root, 'jobs', namespace);
    for (const name of existsSync(jobBase) ? readdirSync(jobBase) : []) {
      const record = this.record(join(jobBase, name));
      if (!record) continue;
      const owned = (record.owner.kind === 'Nova' && record.owner.name === nova) || (record.controller.kind === 'CronJob' && crons.has(record.controller.uid));
      if (!owned) continue;
      await this.delete(namespace, name);
      removed.push(`Job ${name}`);
    }
    rmSync(join(this.root, 'tls', namespace, nova), { recursive: true, force: true });
    return removed;
  }

  /**
   * Calls `listener` when a Job this process started ends (its wrapper exited, `exit` written): the embedded
   * default's stand-in for a Job watch, so the owning Nova's next pass comes at once instead of after its requeue.
   * Returns the unsubscribe.
   */
  onJobEnded(listener: JobEndedListener): () => void {
    this.endedListeners.add(listener);
    return () => void this.endedListeners.delete(listener);
  }

  private announceEnded(namespace: string, name: string, controller: Controller, owner: JobSpec['owner']): void {
    for (const listener of this.endedListeners) {
      try {
        listener({ namespace, name, owner, controllerKind: controller.kind });
      } catch {
        // a listener's failure is its own: the Job's files are the truth, and the requeue still comes
      }
    }
  }

  /** Stops the scheduler and the deadline timers. Running children keep running (they outlive Regent). */
  async close(): Promise<void> {
    this.stop();
    for (const timer of this.deadlines.values()) clearTimeout(timer);
    this.deadlines.clear();
    await this.ticking;
  }

  // ---- Jobs --------------------------------------------------------------------------------------

  private jobDir(namespace: string, name: string): string {
    return join(this.root, 'jobs', namespace, name);
  }

  private cronDir(namespace: string, name: string): string {
    return join(this.root, 'cronjobs', namespace, name);
  }

  private record(dir: string): JobRecord | undefined {
    const text = readText(join(dir, 'job.json'));
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as JobRecord;
    } catch {
      return undefined;
    }
  }

  private async createJob(spec: JobSpec, controller: Controller): Promise<void> {
    checkName('namespace', spec.namespace);
    checkName('Job name', spec.name);
    for (const file of Object.keys(spec.config.files)) {
      if (!FILE_NAME.test(file) || file === '.' || file === '..') throw new JobRunnerError(`Job ${spec.namespace}/${spec.name}: config file name ${JSON.stringify(file)} is not a plain file name`, 422);
    }
    const dir = this.jobDir(spec.namespace, spec.name);
    if (existsSync(dir)) throw new JobRunnerError(`Job ${spec.namespace}/${spec.name} already exists`, 409);
    const env = await this.resolveEnv(spec);
    await this.writeDatabaseTls(spec);
    mkdirSync(join(this.root, 'jobs', spec.namespace), { recursive: true, mode: 0o700 });
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new JobRunnerError(`Job ${spec.namespace}/${spec.name} already exists`, 409);
      throw new JobRunnerError(`Job ${spec.namespace}/${spec.name}: cannot create its folder (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    // No await from here until job.json exists: a reader in this process never sees a folder without it.
    const record = this.newRecord(spec, controller, spec.backoffLimit ?? 0);
    const jobJson = join(dir, 'job.json');
    writeAtomic(jobJson, `${JSON.stringify(record, null, 2)}\n`);
    try {
      const configDir = join(dir, 'config');
      mkdirSync(configDir, { mode: 0o755 });
      for (const [file, text] of Object.entries(spec.config.files)) writeFileSync(join(configDir, file), text, { mode: 0o644 });
      writeFileSync(join(dir, 'output.log'), '', { mode: 0o600 });
      writeFileSync(join(dir, 'termination-log'), '', { mode: 0o600 });
      const terminationLog = join(dir, 'termination-log');
      // Before the spawn, not after: a quick script's `exit` must never be older than `started`.
      writeFileSync(join(dir, 'started'), '', { mode: 0o600 });
      const script = spec.script.split(TERMINATION_LOG).join(terminationLog);
      const child = spawn(this.shell, ['-c', WRAPPER, 'regent-job', script, dir, String(this.outputLimit), String(record.backoffLimit), this.shell], {
        cwd: dir,
        detached: true,
        stdio: 'ignore',
        env: {
          PATH: [this.options.binDir, process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin'].filter(Boolean).join(':'),
          HOME: dir,
          LANG: 'C.UTF-8',
          TMPDIR: process.env.TMPDIR ?? '/tmp',
          ...this.options.env,
          ...env,
          NOVA_CONFIG_DIR: configDir,
          TERMINATION_LOG: terminationLog,
        },
      });
      child.on('error', () => undefined); // a spawn failure shows as a pid-less record: "lost the process"
      // the wrapper exits after it wrote `exit`: tell the listeners (a Job adopted after a restart is found by polling)
      child.once('exit', () => this.announceEnded(spec.namespace, spec.name, controller, spec.owner));
      if (child.pid === undefined) throw new Error('spawn returned no pid');
      child.unref();
      record.pid = child.pid;
      record.pidStart = HAS_PROC ? (procStat(child.pid)?.start ?? null) : null;
      writeAtomic(jobJson, `${JSON.stringify(record, null, 2)}\n`);
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw new JobRunnerError(`Job ${spec.namespace}/${spec.name}: the child could not be started (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (record.activeDeadlineSeconds !== null) this.armDeadline(record);
  }

  /** Literal values, and secretKeyRef values read now; a missing Secret or key refuses the create (names only). */
  private async resolveEnv(spec: JobSpec): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const e of spec.env as readonly JobEnv[]) {
      if (!('secretKeyRef' in e)) {
        out[e.name] = e.value;
        continue;
      }
      const { name, key } = e.secretKeyRef;
      const where = `Job ${spec.namespace}/${spec.name}: env ${e.name} names key "${key}" of Secret ${spec.namespace}/${name}`;
      let value: string | undefined;
      try {
        value = await this.options.readSecret(spec.namespace, name, key);
      } catch {
        throw new JobRunnerError(`${where}, which could not be read`);
      }
      if (value === undefined) throw new JobRunnerError(`${where}, which does not exist (the Secret or the key is missing)`);
      out[e.name] = value;
    }
    return out;
  }

  /**
   * The Job's TLS client files, read now and written at 0400 into the block's private directory. Everything is read
   * and checked before anything is written, so a refused create leaves the files as they were.
   */
  private async writeDatabaseTls(spec: JobSpec): Promise<void> {
    const writes: Array<{ dir: string; path: string; value: string }> = [];
    for (const mount of spec.databaseTls ?? []) {
      const where = `Job ${spec.namespace}/${spec.name}: the ${mount.block} database's TLS files`;
      const expected = this.databaseTlsDir(spec.namespace, spec.owner.name, mount.block);
      // Only the runner's own directory: a spec naming another one must not make Regent write key material there.
      if (mount.dir !== expected) throw new JobRunnerError(`${where} are to go to ${JSON.stringify(mount.dir)}, not this runner's ${JSON.stringify(expected)}`, 422);
      for (const file of mount.files) {
        if (!FILE_NAME.test(file.path) || file.path === '.' || file.path === '..') throw new JobRunnerError(`${where}: ${JSON.stringify(file.path)} is not a plain file name`, 422);
        let value: string | undefined;
        try {
          value = await this.options.readSecret(spec.namespace, file.secret, file.key);
        } catch {
          throw new JobRunnerError(`${where}: key "${file.key}" of Secret ${spec.namespace}/${file.secret} could not be read`);
        }
        if (value === undefined) throw new JobRunnerError(`${where}: key "${file.key}" of Secret ${spec.namespace}/${file.secret} does not exist (the Secret or the key is missing)`);
        writes.push({ dir: mount.dir, path: file.path, value });
      }
    }
    for (const { dir, path, value } of writes) {
      const target = join(dir, path);
      const temporary = `${target}.${process.pid}.${randomUUID()}.tmp`;
      try {
        mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
        chmodSync(dir, PRIVATE_DIR_MODE);
        // created at 0400 (flag wx: never through a file someone else put there), then renamed over the old one
        writeFileSync(temporary, value, { mode: DATABASE_TLS_FILE_MODE, flag: 'wx' });
        renameSync(temporary, target);
      } catch (error) {
        rmSync(temporary, { force: true });
        throw new JobRunnerError(`Job ${spec.namespace}/${spec.name}: cannot write ${target} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    }
  }

  private async observe(namespace: string, name: string): Promise<ObservedJob | undefined> {
    const dir = this.jobDir(namespace, name);
    if (!existsSync(dir)) return undefined;
    const record = this.record(dir);
    if (!record) return { namespace, name, uid: '', templateHash: null, state: 'failed', failureMessage: 'the runner lost the Job record (job.json is missing or unreadable)' };
    const base = { namespace, name, uid: record.uid, templateHash: record.templateHash, ...started(join(dir, 'started')) };
    const verdict = (): ObservedJob | undefined => {
      const failure = readText(join(dir, 'failure'));
      if (failure !== undefined) return { ...base, state: 'failed', failureMessage: failure.trim(), ...finished(join(dir, 'failure')) };
      const exit = readText(join(dir, 'exit'));
      if (exit === undefined) return undefined;
      const code = Number.parseInt(exit.trim(), 10);
      if (code === 0) return { ...base, state: 'succeeded', ...finished(join(dir, 'exit')) };
      return { ...base, state: 'failed', failureMessage: this.exitMessage(dir, Number.isNaN(code) ? exit.trim() : String(code)), ...finished(join(dir, 'exit')) };
    };
    const decided = verdict();
    if (decided) return decided;
    if (alive(record)) {
      if (!this.pastDeadline(record)) return { ...base, state: 'running' };
      this.writeFailure(dir, `DeadlineExceeded: the Job ran longer than its activeDeadlineSeconds (${record.activeDeadlineSeconds} s); the runner killed its process group`);
      await this.killAndWait(record);
      return verdict();
    }
    // The wrapper may have written `exit` and ended between the two reads.
    const late = verdict();
    if (late) return late;
    this.writeFailure(dir, `the runner lost the process (pid ${record.pid ?? 'none'} is gone without an exit code)`);
    return verdict();
  }

  private exitMessage(dir: string, code: string): string {
    const tail = readText(join(dir, 'output.tail')) ?? readEnd(join(dir, 'output.log'), 4096);
    const lines = tail.split('\n').filter((l) => l.trim() !== '').slice(-5);
    const output = lines.length === 0 ? 'no output' : `last output: ${lines.join(' | ')}`;
    return maskCredentials(`exit code ${code}; ${output}`).slice(0, 1024);
  }

  private writeFailure(dir: string, message: string): void {
    if (!existsSync(join(dir, 'failure'))) writeAtomic(join(dir, 'failure'), `${message}\n`);
  }

  private pastDeadline(record: JobRecord): boolean {
    if (record.activeDeadlineSeconds === null) return false;
    return this.now().getTime() - new Date(record.createdAt).getTime() >= record.activeDeadlineSeconds * 1000;
  }

  private armDeadline(record: JobRecord): void {
    const key = `${record.namespace}/${record.name}`;
    this.clearDeadline(record.namespace, record.name);
    const remaining = new Date(record.createdAt).getTime() + (record.activeDeadlineSeconds ?? 0) * 1000 - this.now().getTime();
    const timer = setTimeout(
      () => {
        this.deadlines.delete(key);
        const current = this.record(this.jobDir(record.namespace, record.name));
        if (current?.uid !== record.uid) return;
        if (!this.pastDeadline(current)) return this.armDeadline(current);
        void this.observe(record.namespace, record.name).catch(() => undefined);
      },
      Math.max(remaining, 0) + 5,
    );
    timer.unref();
    this.deadlines.set(key, timer);
  }

  private clearDeadline(namespace: string, name: string): void {
    const key = `${namespace}/${name}`;
    const timer = this.deadlines.get(key);
    if (timer) clearTimeout(timer);
    this.deadlines.delete(key);
  }

  /** SIGKILLs the Job's process group and waits (bounded) until it is gone. */
  private async killAndWait(record: JobRecord): Promise<void> {
    if (!alive(record) || record.pid === null) return;
    try {
      process.kill(-record.pid, 'SIGKILL');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw new JobRunnerError(`Job ${record.namespace}/${record.name}: cannot kill its process group (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    for (let i = 0; i < 250 && alive(record); i += 1) await sleep(20);
  }

  // ---- CronJobs ----------------------------------------------------------------------------------

  private cronRecord(dir: string): CronRecord | undefined {
    const text = readText(join(dir, 'cronjob.json'));
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as CronRecord;
    } catch {
      return undefined;
    }
  }

  /** The Jobs carrying the CronJob's labels whose controller is this CronJob (its uid). */
  private async runsOf(cron: CronRecord): Promise<ObservedJob[]> {
    const nsDir = join(this.root, 'jobs', cron.spec.namespace);
    const names = existsSync(nsDir) ? readdirSync(nsDir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name) : [];
    const runs: ObservedJob[] = [];
    for (const name of names.sort()) {
      const record = this.record(join(nsDir, name));
      if (!record || record.controller.kind !== 'CronJob' || record.controller.uid !== cron.uid || !labelsMatch(record.labels, cron.spec.labels)) continue;
      const observed = await this.observe(cron.spec.namespace, name);
      if (observed) runs.push(observed);
    }
    return runs;
  }

  private async tickOnce(now: Date): Promise<TickResult> {
    const result: TickResult = { started: [], deferred: [], deleted: [] };
    const base = join(this.root, 'cronjobs');
    for (const namespace of readdirSync(base).sort()) {
      for (const name of readdirSync(join(base, namespace)).sort()) {
        const dir = this.cronDir(namespace, name);
        const cron = this.cronRecord(dir);
        if (!cron) continue;
        await this.fire(cron, dir, now, result);
        await this.prune(cron, result);
      }
    }
    return result;
  }

  private async fire(cron: CronRecord, dir: string, now: Date, result: TickResult): Promise<void> {
    if (cron.spec.suspend) return;
    const { spec } = cron;
    const key = `${spec.namespace}/${spec.name}`;
    const due = latestFiring(parseCron(spec.schedule), now, new Date(cron.lastScheduleTime ?? cron.createdAt));
    if (!due) return;
    const running = (await this.runsOf(cron)).filter((r) => r.state === 'running');
    if (running.length > 0) {
      result.deferred.push({ cronJob: key, reason: `Forbid: ${running.map((r) => r.name).join(', ')} still running` });
      return;
    }
    const runName = `${spec.name}-${Math.floor(due.getTime() / 60_000)}`;
    const runSpec: JobSpec = {
      namespace: spec.namespace,
      name: runName,
      owner: spec.owner,
      labels: spec.labels,
      image: spec.image,
      script: spec.script,
      env: spec.env,
      config: spec.config,
      ...(spec.databaseTls ? { databaseTls: spec.databaseTls } : {}),
      templateHash: spec.templateHash,
      backoffLimit: 0,
      activeDeadlineSeconds: spec.activeDeadlineSeconds,
    };
    const controller: Controller = { kind: 'CronJob', name: spec.name, uid: cron.uid };
    try {
      await this.createJob(runSpec, controller);
      result.started.push(`${spec.namespace}/${runName}`);
    } catch (error) {
      if (!(error instanceof JobRunnerError) || error.status !== 409) {
        const message = error instanceof Error ? error.message : String(error);
        result.deferred.push({ cronJob: key, reason: message });
        this.recordFailedRun(runSpec, controller, message);
      }
    }
    const latest = this.cronRecord(dir);
    if (latest?.uid === cron.uid) writeAtomic(join(dir, 'cronjob.json'), `${JSON.stringify({ ...latest, lastScheduleTime: due.toISOString() }, null, 2)}\n`);
  }

  /** job.json of a new Job: env names only, never a value. */
  private newRecord(spec: JobSpec, controller: Controller, backoffLimit: number): JobRecord {
    return {
      version: 1,
      namespace: spec.namespace,
      name: spec.name,
      uid: randomUUID(),
      templateHash: spec.templateHash,
      createdAt: this.now().toISOString(),
      pid: null,
      pidStart: null,
      activeDeadlineSeconds: spec.activeDeadlineSeconds ?? null,
      backoffLimit,
      owner: { ...spec.owner },
      controller,
      labels: { ...spec.labels },
      image: spec.image,
      envNames: spec.env.map((e) => e.name),
    };
  }

  /** A run that could not be started is kept as a failed Job, so the archive's status shows it. */
  private recordFailedRun(spec: JobSpec, controller: Controller, message: string): void {
    const dir = this.jobDir(spec.namespace, spec.name);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      return;
    }
    if (existsSync(join(dir, 'job.json'))) return;
    const record = this.newRecord(spec, controller, 0);
    writeAtomic(join(dir, 'job.json'), `${JSON.stringify(record, null, 2)}\n`);
    this.writeFailure(dir, `CreateFailed: ${message}`);
  }

  /** Kubernetes' history limits: the newest 3 succeeded and the newest 1 failed runs stay. */
  private async prune(cron: CronRecord, result: TickResult): Promise<void> {
    const runs = await this.runsOf(cron);
    const newestFirst = (a: ObservedJob, b: ObservedJob): number => (b.finishedAt ?? '').localeCompare(a.finishedAt ?? '') || b.name.localeCompare(a.name);
    const excess = [...runs.filter((r) => r.state === 'succeeded').sort(newestFirst).slice(SUCCEEDED_HISTORY), ...runs.filter((r) => r.state === 'failed').sort(newestFirst).slice(FAILED_HISTORY)];
    for (const run of excess) {
      await this.delete(run.namespace, run.name);
      result.deleted.push(`${run.namespace}/${run.name}`);
    }
  }
}

const started = (path: string): { startedAt?: string } => {
  const at = mtime(path);
  return at === undefined ? {} : { startedAt: at };
};

const finished = (path: string): { finishedAt?: string } => {
  const at = mtime(path);
  return at === undefined ? {} : { finishedAt: at };
};

const checkName = (what: string, name: string): void => {
  if (!NAME.test(name) || name.includes('..')) throw new JobRunnerError(`${what} ${JSON.stringify(name)} is not a DNS-1123 name`, 422);
};
