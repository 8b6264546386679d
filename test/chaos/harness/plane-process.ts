/**
 * One control-plane replica as a child process (test/chaos/fixtures/plane-child.ts) on a data directory, with
 * failpoints armed through REGENT_FAILPOINTS when given, and the scenario's extra environment (the Nova stand-ins). Keeps its log lines (stderr) for the secrets invariant,
 * its leadership lines, and how it ended: a failpoint's SIGKILL names the point, a harness kill is recorded too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { track } from './children.js';

export interface PlaneExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The failpoint that killed it (from its last stderr line), if one did. */
  failpoint?: { name: string; stream: string };
}

export interface PlaneProcess {
  proc: ChildProcess;
  /** JSON log lines and anything else written to stderr. */
  logLines: string[];
  leadership: Array<{ leading: boolean; at: string }>;
  ready: Promise<void>;
  exited: Promise<PlaneExit>;
  isRunning(): boolean;
  leads(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<PlaneExit>;
  kill(signal: NodeJS.Signals): void;
}

const FAILPOINT_LINE = /^failpoint (\S+) fired on (\S+) \(hit \d+\)$/;

export const startPlaneProcess = (clouds: string, dataDir: string, failpoints?: string, extraEnv: Record<string, string> = {}): PlaneProcess => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, REGENT_LOG_LEVEL: process.env.CHAOS_PLANE_LOG_LEVEL ?? 'info' };
  if (failpoints) env.REGENT_FAILPOINTS = failpoints;
  else delete env.REGENT_FAILPOINTS;
  const proc = track(spawn(process.execPath, ['--import', 'tsx', 'test/chaos/fixtures/plane-child.ts', clouds, dataDir], { stdio: ['pipe', 'pipe', 'pipe'], env }));
  const logLines: string[] = [];
  const leadership: PlaneProcess['leadership'] = [];
  let failpoint: PlaneExit['failpoint'];
  let errBuffer = '';
  proc.stderr?.on('data', (d: Buffer) => {
    errBuffer += d.toString();
    for (let i = errBuffer.indexOf('\n'); i >= 0; i = errBuffer.indexOf('\n')) {
      const line = errBuffer.slice(0, i);
      errBuffer = errBuffer.slice(i + 1);
      const m = FAILPOINT_LINE.exec(line);
      if (m) failpoint = { name: m[1] as string, stream: m[2] as string };
      logLines.push(line);
    }
  });
  const exited = new Promise<PlaneExit>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal, ...(failpoint ? { failpoint } : {}) })));
  let outBuffer = '';
  const ready = new Promise<void>((resolve, reject) => {
    proc.stdout?.on('data', (d: Buffer) => {
      outBuffer += d.toString();
      for (let i = outBuffer.indexOf('\n'); i >= 0; i = outBuffer.indexOf('\n')) {
        const line = outBuffer.slice(0, i);
        outBuffer = outBuffer.slice(i + 1);
        if (line === 'ready') resolve();
        else if (line.startsWith('{')) leadership.push(JSON.parse(line) as { leading: boolean; at: string });
      }
    });
    void exited.then((e) => reject(new Error(`control plane exited (${e.code ?? e.signal}) before ready: ${logLines.slice(-5).join('\n')}`)));
  });
  ready.catch(() => undefined);
  const isRunning = () => proc.exitCode === null && proc.signalCode === null;
  return {
    proc,
    logLines,
    leadership,
    ready,
    exited,
    isRunning,
    leads: () => leadership.at(-1)?.leading === true,
    kill: (signal) => {
      if (isRunning()) proc.kill(signal);
    },
    stop: async (graceMs = 8_000) => {
      if (isRunning()) {
        proc.kill('SIGCONT');
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        const exit = await exited;
        clearTimeout(timer);
        return exit;
      }
      return exited;
    },
  };
};
