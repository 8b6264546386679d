/**
 * One supervised local process: what a Deployment's pod gives a Nova role, on this host (./local.ts runs one per
 * role). It never decides what runs; it keeps running what it was given.
 *
 * - **start**: spawned detached (a process group of its own, so a stop reaches the workers an API process forks),
 *   stdin from nothing, stdout and stderr appended to the role's log with a `[regent]` line per start and exit. The
 *   log is rotated to `<log>.1` at a start once it has grown past `logMaxBytes`.
 * - **restart on crash with backoff**: an exit that was not asked for schedules a start after `initialMs`, doubling
 *   with each consecutive crash up to `maxMs` (Kubernetes' CrashLoopBackOff); a process that ran `resetAfterMs`
 *   before it exited starts the count again.
 * - **readiness**: the probe runs every `probeIntervalMs` while the process runs (an HTTP GET of the role's port, or
 *   "alive for N ms" for a role without one); `ready` is the last verdict. A process that is not running is never
 *   ready. No liveness restarts: a process that answers nothing but stays alive is reported, not killed.
 * - **stop**: SIGTERM to the group, SIGKILL after `graceMs`, resolved once the process has exited. No restart is
 *   scheduled for an exit that stop asked for.
 *
 * The pid and its /proc start time are handed to `onStarted`, so a Regent that died without stopping its roles can
 * find and stop them at its next start (./local.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, renameSync, statSync, writeSync } from 'node:fs';

export interface SpawnSpec {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
}

export interface Backoff {
  initialMs: number;
  maxMs: number;
  /** A process that ran this long before it exited is not counted as crash-looping. */
  resetAfterMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1_000, maxMs: 60_000, resetAfterMs: 60_000 };

export interface SupervisorOptions {
  /** `<namespace>/<nova>/<role>`, in the log lines and errors. */
  name: string;
  logPath: string;
  /** The readiness check, called while the process runs; `uptimeMs` since this start. */
  probe: (uptimeMs: number) => Promise<boolean>;
  probeIntervalMs: number;
  backoff: Backoff;
  graceMs: number;
  logMaxBytes: number;
  onStarted?: (pid: number) => void;
  now?: () => number;
}

export interface SupervisorStatus {
  running: boolean;
  ready: boolean;
  pid: number | undefined;
  /** Starts after the first one (crash restarts). */
  restarts: number;
  /** How the last process ended ("exit code 1", "signal SIGKILL"), when one did. */
  lastExit: string | undefined;
  /** When the next start after a crash is due (epoch ms), while waiting out the backoff. */
  restartAt: number | undefined;
  /** The backoff that start waits out, ms. */
  backoffMs: number | undefined;
}

const describeExit = (code: number | null, signal: NodeJS.Signals | null): string => (signal ? `signal ${signal}` : `exit code ${code ?? 'unknown'}`);

export class Supervisor {
  private child: ChildProcess | undefined;
  private startedAt = 0;
  private ready = false;
  private restarts = 0;
  private crashes = 0;
  private lastExit: string | undefined;
  private restartAt: number | undefined;
  private backoffMs: number | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private probeTimer: NodeJS.Timeout | undefined;
  private probing = false;
  private stopping: Promise<void> | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(
    private readonly spec: SpawnSpec,
    private readonly options: SupervisorOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** Starts the process (once; later starts are the supervisor's own, after a crash). */
  start(): void {
    if (this.child || this.stopped) return;
    this.launch();
  }

  status(): SupervisorStatus {
    const running = this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
    return { running, ready: running && this.ready, pid: running ? this.child?.pid : undefined, restarts: this.restarts, lastExit: this.lastExit, restartAt: this.restartAt, backoffMs: this.restartAt === undefined ? undefined : this.backoffMs };
  }

  /** SIGTERM, then SIGKILL after the grace; no restart follows. Resolves when the process is gone. */
  stop(): Promise<void> {
    this.stopped = true;
    this.clearTimers();
    this.stopping ??= this.terminate();
    return this.stopping;
  }

  private launch(): void {
    this.restartAt = undefined;
    this.ready = false;
    this.rotateLog();
    const log = openSync(this.options.logPath, 'a', 0o600);
    try {
      this.logLine(log, `starting ${this.options.name}: ${this.spec.command} ${this.spec.args.map((a) => (a.length > 80 ? `${a.slice(0, 77)}...` : a)).join(' ')}`);
      const child = spawn(this.spec.command, [...this.spec.args], { cwd: this.spec.cwd, env: { ...this.spec.env }, detached: true, stdio: ['ignore', log, log] });
      this.child = child;
      this.startedAt = this.now();
      child.on('error', (error) => this.appendLog(`cannot start ${this.options.name}: ${error.message}`));
      child.on('exit', (code, signal) => this.exited(child, code, signal));
      child.unref();
      if (child.pid !== undefined) {
        this.logLine(log, `${this.options.name} runs as pid ${child.pid}`);
        this.options.onStarted?.(child.pid);
      }
    } finally {
      closeSync(log);
    }
    this.probeTimer = setInterval(() => void this.runProbe(), this.options.probeIntervalMs);
    this.probeTimer.unref();
    void this.runProbe();
  }

  private async runProbe(): Promise<void> {
    if (this.probing || !this.status().running) return;
    this.probing = true;
    const child = this.child;
    try {
      const verdict = await this.options.probe(this.now() - this.startedAt);
      // a verdict about a process that has since been replaced says nothing about this one
      if (child === this.child) this.ready = verdict;
    } catch {
      if (child === this.child) this.ready = false;
    } finally {
      this.probing = false;
    }
  }

  private exited(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.child) return;
    this.ready = false;
    this.lastExit = describeExit(code, signal);
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.probeTimer = undefined;
    if (this.stopped) {
      this.appendLog(`${this.options.name} stopped (${this.lastExit})`);
      return;
    }
    const ranMs = this.now() - this.startedAt;
    this.crashes = ranMs >= this.options.backoff.resetAfterMs ? 1 : this.crashes + 1;
    const delay = Math.min(this.options.backoff.initialMs * 2 ** (this.crashes - 1), this.options.backoff.maxMs);
    this.restartAt = this.now() + delay;
    this.backoffMs = delay;
    this.appendLog(`${this.options.name} exited (${this.lastExit}) after ${ranMs} ms; restarting in ${delay} ms (crash ${this.crashes} in a row)`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopped) return;
      this.restarts += 1;
      this.launch();
    }, delay);
    this.restartTimer.unref();
  }

  private async terminate(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const pid = child.pid;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    signalGroup(pid, 'SIGTERM');
    const killer = setTimeout(() => {
      this.appendLog(`${this.options.name} did not stop within ${this.options.graceMs} ms of SIGTERM: SIGKILL`);
      signalGroup(pid, 'SIGKILL');
    }, this.options.graceMs);
    await gone;
    clearTimeout(killer);
    // the workers of a forking server are in the group too: none may outlive the stop
    signalGroup(pid, 'SIGKILL');
    for (let waited = 0; waited < 2_000 && groupAlive(pid); waited += 20) await new Promise((r) => setTimeout(r, 20));
  }

  private clearTimers(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.probeTimer) clearInterval(this.probeTimer);
    this.restartTimer = undefined;
    this.probeTimer = undefined;
    this.restartAt = undefined;
  }

  private rotateLog(): void {
    try {
      if (existsSync(this.options.logPath) && statSync(this.options.logPath).size > this.options.logMaxBytes) renameSync(this.options.logPath, `${this.options.logPath}.1`);
    } catch {
      // a log that cannot be rotated keeps growing; the role still starts
    }
  }

  private logLine(fd: number, text: string): void {
    writeSync(fd, `[regent] ${new Date(this.now()).toISOString()} ${text}\n`);
  }

  private appendLog(text: string): void {
    try {
      const fd = openSync(this.options.logPath, 'a', 0o600);
      try {
        this.logLine(fd, text);
      } finally {
        closeSync(fd);
      }
    } catch {
      // the log is for the operator; a failed write must not stop the supervision
    }
  }
}

/** Whether any process of the group is left (a zombie not yet reaped counts). */
export const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Signals a process group; a group that is already gone is fine. */
export const signalGroup = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
};
