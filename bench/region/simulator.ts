/**
 * The benchmark's handle on its simulator: started in a child process (./sim-process.ts) on 127.0.0.1 with the
 * real clock, driven through `/_sim` over HTTP (seeding servers, reading and clearing the call log), and stopped
 * by the pid this process started.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { CallRecord, SimDelays } from '../../src/simulator/index.js';
import { simulatorCloudsYaml } from '../../src/simulator/index.js';

export interface SeedServersRequest {
  project: string;
  count: number;
  namePrefix: string;
  network?: boolean;
}

export interface BenchSimulator {
  url: string;
  cloudsYaml: string;
  pid: number;
  /** POST /_sim/servers: servers made directly in the simulator, ACTIVE, no quota. */
  createServers(request: SeedServersRequest): Promise<string[]>;
  /** GET /_sim/calls, optionally filtered. */
  calls(filter?: { method?: string; pathIncludes?: string; action?: string }): Promise<CallRecord[]>;
  /** DELETE /_sim/calls. */
  clearCalls(): Promise<void>;
  /** The simulator process's resident set size and heap, in bytes. */
  memory(): Promise<NodeJS.MemoryUsage>;
  stop(): Promise<void>;
}

const SIM_PROCESS = fileURLToPath(new URL('./sim-process.ts', import.meta.url));

/**
 * Calls the simulator's /_sim API on a connection of its own (no keep-alive: a pooled socket the simulator closed
 * while a long poll ran would fail the next call); a non-2xx answer throws with its body.
 */
const simCall = (url: string, method: string, path: string, body?: unknown): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(`${url}/_sim${path}`, { method, agent: false, headers: payload === undefined ? {} : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) >= 300) return reject(new Error(`/_sim${path}: ${res.statusCode} ${text}`));
        resolve(text === '' ? undefined : (JSON.parse(text) as unknown));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });

const waitForUrl = (child: ChildProcess): Promise<string> =>
  new Promise((resolve, reject) => {
    const onMessage = (message: { url?: string }) => {
      if (message.url) resolve(message.url);
    };
    child.on('message', onMessage);
    child.once('exit', (code) => reject(new Error(`the simulator process exited (${code}) before it listened`)));
  });

const queryString = (filter: Record<string, string | undefined>): string => {
  const q = new URLSearchParams(Object.entries(filter).filter((e): e is [string, string] => e[1] !== undefined));
  return q.size > 0 ? `?${q.toString()}` : '';
};

/** Starts the simulator in a child process with the real clock and `delays`. */
export const spawnSimulator = async (delays: Partial<SimDelays>): Promise<BenchSimulator> => {
  const child = fork(SIM_PROCESS, [JSON.stringify(delays)], { execArgv: ['--import', 'tsx', '--max-old-space-size=8192'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const url = await waitForUrl(child);
  let nextId = 0;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    cloudsYaml: simulatorCloudsYaml(url),
    pid: child.pid ?? -1,
    createServers: async (request) => {
      const answer = (await simCall(url, 'POST', '/servers', request)) as { ids?: string[]; servers?: Array<{ id: string }> } | string[];
      if (Array.isArray(answer)) return answer;
      return answer.ids ?? (answer.servers ?? []).map((s) => s.id);
    },
    calls: async (filter = {}) => ((await simCall(url, 'GET', `/calls${queryString(filter)}`)) as { calls: CallRecord[] }).calls,
    clearCalls: async () => void (await simCall(url, 'DELETE', '/calls')),
    memory: () =>
      new Promise((resolve) => {
        const id = ++nextId;
        const onMessage = (message: { id?: number; memory?: NodeJS.MemoryUsage }) => {
          if (message.id !== id || !message.memory) return;
          child.off('message', onMessage);
          resolve(message.memory);
        };
        child.on('message', onMessage);
        child.send({ op: 'memory', id });
      }),
    stop: async () => {
      if (child.exitCode === null) child.send({ op: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
};
