/**
 * The simulator as a separate process (test/chaos/fixtures/simulator-child.ts) and its /_sim API over HTTP: the
 * chaos runs' ground truth is this process's call log and state, never what Regent says about itself.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { track } from './children.js';

export interface CallRecord {
  seq: number;
  method: string;
  path: string;
  query: string;
  status: number;
  at: number;
  body?: unknown;
  action?: string;
  fault?: string;
}

export interface SimulatorProcess {
  url: string;
  cloudsYaml: string;
  /** The seed users' passwords: secrets no event or log line may carry. */
  passwords: string[];
  proc: ChildProcess;
  sim(method: string, path: string, body?: unknown): Promise<unknown>;
  reset(): Promise<void>;
  calls(): Promise<CallRecord[]>;
  stop(): Promise<void>;
}

export const startSimulatorProcess = async (): Promise<SimulatorProcess> => {
  const proc = track(spawn(process.execPath, ['--import', 'tsx', 'test/chaos/fixtures/simulator-child.ts'], { stdio: ['pipe', 'pipe', 'pipe'] }));
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const hello = await new Promise<{ url: string; cloudsYaml: string; passwords: string[] }>((resolve, reject) => {
    let out = '';
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as { url: string; cloudsYaml: string; passwords: string[] });
    });
    proc.once('exit', (code) => reject(new Error(`simulator child exited (${code}) before listening: ${err}`)));
  });
  const sim = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${hello.url}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  };
  return {
    ...hello,
    proc,
    sim,
    reset: async () => void (await sim('POST', '/_sim/reset')),
    calls: async () => ((await sim('GET', '/_sim/calls')) as { calls: CallRecord[] }).calls,
    stop: async () => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    },
  };
};
