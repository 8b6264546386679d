/** Test support: a simulator per suite, cloud configs from its clouds.yaml, a log capture, /_sim calls over HTTP. */
import { Writable } from 'node:stream';
import winston from 'winston';
import type { RunningSimulator, SimulatorOptions } from '../../../src/simulator/index.js';
import { startSimulator } from '../../../src/simulator/index.js';
import type { Logger } from '../../../src/log/logger.js';
import type { CloudConfig } from '../../../src/openstack/keystone/clouds-config.js';
import { resolveCloudConfig } from '../../../src/openstack/keystone/clouds-config.js';
import type { ConnectOptions, OpenStackSession } from '../../../src/openstack/session.js';
import { connect } from '../../../src/openstack/session.js';
import type { RetryPolicy } from '../../../src/openstack/retry.js';

export type Who = 'admin' | 'demo' | 'other';

export const FAST_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 1, maxDelayMs: 5 };

export const start = (options: SimulatorOptions = {}): Promise<RunningSimulator> => startSimulator({ clock: 'manual', ...options });

export const cloudFor = (sim: RunningSimulator, who: Who): CloudConfig =>
  resolveCloudConfig({ env: { OS_CLOUD: `sim-${who}` }, cloudsYaml: { path: 'sim-clouds.yaml', contents: sim.cloudsYaml() } });

export interface LogCapture {
  logger: Logger;
  lines: string[];
  text(): string;
}

/** A debug-level JSON logger whose lines are kept in memory. */
export const captureLogs = (): LogCapture => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = winston.createLogger({ level: 'debug', format: winston.format.json(), transports: [new winston.transports.Stream({ stream })] });
  return { logger, lines, text: () => lines.join('') };
};

export const connectAs = (sim: RunningSimulator, who: Who, options: ConnectOptions = {}): Promise<OpenStackSession> =>
  connect(cloudFor(sim, who), { retry: FAST_RETRY, timeoutMs: 2_000, ...options });

/** Call the simulator's /_sim control API over HTTP. */
export const simApi = async (sim: RunningSimulator, method: string, path: string, body?: unknown): Promise<unknown> => {
  const response = await fetch(`${sim.url}/_sim${path}`, {
    method,
    ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`/_sim${path}: ${response.status} ${text}`);
  return text === '' ? undefined : (JSON.parse(text) as unknown);
};

/** Fail the next `count` calls matching method + path regex. */
export const fault = (sim: RunningSimulator, spec: { method?: string; path: string; status?: number; timeout?: boolean; count?: number; body?: unknown; delayMs?: number }): Promise<unknown> =>
  simApi(sim, 'POST', '/faults', spec);

/** The thrown value of an async call (fails the test when nothing is thrown). */
export const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, got a result');
};
