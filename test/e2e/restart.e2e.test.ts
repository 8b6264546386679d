/**
 * Issue 24, item 1: "npm start again resumes from ./data/ without repeating any effect", as a user runs it —
 * `regent serve` on the embedded defaults with the built-in simulator and the example resources, stopped with
 * SIGTERM, started again on the same ./data/.
 *
 * The defect this guards: the built-in simulator came back on a new random port while the Region registered into
 * it (region-one) still named the first start's Keystone, so within seconds region-one and everything in it was
 * Errored. The simulator now keeps its port with its cloud (src/simulator/persistence.ts) and takes it again; a
 * port another program holds by then is said in one line, before anything under ./data/ is touched.
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedSource } from '../../src/kube/embedded/store.js';
import { KIND_NAMES, type KindName } from '../../src/resources/index.js';
import { keptSimPort } from '../../src/simulator/index.js';
import { until } from './support/plane.js';

interface Serving {
  proc: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

const MONITOR_INTERVAL_MS = 1_000;

const serve = (dataDir: string): Serving => {
  const proc = spawn(
    process.execPath,
    ['bin/regent.js', 'serve', '--store', `sqlite:${join(dataDir, 'regent.db')}`, '--resources', `embedded:${join(dataDir, 'resources.db')}`, '--port', '0', '--api-port', '0', '--monitor-interval', String(MONITOR_INTERVAL_MS)],
    { env: { ...process.env, REGENT_LOG_LEVEL: 'warn', OS_CLOUD: '', OS_AUTH_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return { proc, out: () => out, err: () => err, exited };
};

const stop = async (serving: Serving): Promise<number | null> => {
  serving.proc.kill('SIGTERM');
  const timer = setTimeout(() => serving.proc.kill('SIGKILL'), 30_000);
  const code = await serving.exited;
  clearTimeout(timer);
  return code;
};

/** The operations URL `regent serve` prints once it runs (port 0: the one it got). */
const metricsUrl = async (serving: Serving): Promise<string> =>
  until('regent serve to print its URLs', () => /metrics \/ health:\s+(http:\/\/\S+)\/metrics/.exec(serving.out())?.[1], 60_000, 100);

/** Sum of a Prometheus counter's samples whose labels include `labels`. */
const sample = (text: string, name: string, labels: Record<string, string> = {}): number =>
  text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .filter((line) => Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);

type Condition = { type: string; status: string; reason: string; message?: string };

/** Every resource in the embedded store with its Available condition (read while Regent runs: sqlite WAL). */
const availability = async (dataDir: string): Promise<Map<string, Condition | undefined>> => {
  const source = openEmbeddedSource({ path: join(dataDir, 'resources.db') });
  try {
    const all = new Map<string, Condition | undefined>();
    for (const kind of KIND_NAMES) {
      for (const object of (await source.list(kind as KindName)).items) {
        const conditions = (object.status as { conditions?: Condition[] } | undefined)?.conditions;
        all.set(`${kind}/${object.metadata.name}`, conditions?.find((c) => c.type === 'Available'));
      }
    }
    return all;
  } finally {
    await source.close();
  }
};

const unavailable = (all: Map<string, Condition | undefined>, expected: readonly string[]): string[] =>
  expected.filter((key) => all.get(key)?.status !== 'True').map((key) => `${key}: ${JSON.stringify(all.get(key))}`);

interface SimCall {
  method: string;
  path: string;
}

/** Calls that change the cloud: everything but reads and Keystone token issue (a login creates nothing a restart repeats). */
const mutatingCalls = async (port: number): Promise<string[]> => {
  const calls = (await (await fetch(`http://127.0.0.1:${port}/_sim/calls`)).json()) as SimCall[] | { calls: SimCall[] };
  return (Array.isArray(calls) ? calls : calls.calls).filter((c) => !['GET', 'HEAD'].includes(c.method) && !c.path.endsWith('/auth/tokens')).map((c) => `${c.method} ${c.path}`);
};

/** Every file under `dir` with its size, mtime and content hash: "nothing under ./data/ was touched". */
const fingerprint = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const stat = statSync(path);
    out[path] = `${stat.size} ${stat.mtimeMs} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`;
  }
  return out;
};

/** The examples that are Available on a first start (the example Nova waits for its Secrets by design: docs/nova.md). */
const EXAMPLES_AVAILABLE = [
  'Region/region-one', 'Identity/acme-web', 'Network/net-a', 'SecurityGroup/web-sg', 'SSHCertificateAuthority/web-users',
  'Server/web-1', 'Server/web-2', 'Volume/data-1', 'LoadBalancer/web-lb',
];

describe('e2e: npm start, stop, npm start again on the same ./data/ (issue 24, item 1)', function () {
  this.timeout(240_000);
  let dir: string;
  let running: Serving | undefined;
  let held: Server | undefined;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-restart-'));
    // the first start: every example Available, then a clean stop (SIGTERM, as a process manager sends it)
    running = serve(join(dir, 'data'));
    await metricsUrl(running);
    await until('every example resource Available on the first start', async () => unavailable(await availability(join(dir, 'data')), EXAMPLES_AVAILABLE).length === 0, 150_000, 500);
    expect(await stop(running), 'a clean stop on SIGTERM').to.equal(0);
    running = undefined;
  });
  afterEach(async () => {
    if (running) await stop(running);
    running = undefined;
    held?.close();
    held = undefined;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the simulator keeps its port in ./data/ and takes it again: everything stays Available after the second start\'s first passes and poll, and the second start sends no mutating call', async () => {
    const port = keptSimPort(join(dir, 'data', 'simulator.json'));
    expect(port, 'the port is kept with the cloud').to.be.a('number');
    running = serve(join(dir, 'data'));
    const url = await metricsUrl(running);
    expect(running.out()).to.include(`OpenStack simulator at http://127.0.0.1:${port}`);
    // fresh evidence, not the statuses the first start left: every served kind has passed at least once, and the
    // monitor has polled, under this process (a Region naming a dead Keystone is Errored after its first pass)
    const polls = async () => sample(await (await fetch(`${url}/metrics`)).text(), 'regent_monitor_polls_total', { outcome: 'ok' });
    await until('a pass of every kind and a monitor poll', async () => {
      const metrics = await (await fetch(`${url}/metrics`)).text();
      return ['Region', 'Identity', 'Network', 'SecurityGroup', 'Server', 'Volume', 'LoadBalancer'].every((kind) => sample(metrics, 'regent_reconcile_duration_seconds_count', { kind }) > 0) &&
        sample(metrics, 'regent_monitor_polls_total', { outcome: 'ok' }) > 0;
    }, 60_000, 200);
    // two more monitor polls, counted (a fixed 2 s was two of them only on an idle machine): whatever the first
    // poll made the passes record is rendered by now
    const seen = await polls();
    await until('two more monitor polls', async () => (await polls()) >= seen + 2, 30_000, 100);
    expect(unavailable(await availability(join(dir, 'data')), EXAMPLES_AVAILABLE)).to.deep.equal([]);
    expect(await mutatingCalls(port as number), 'nothing repeated in the cloud').to.deep.equal([]);
  });

  it('a kept port another program holds now: one line naming it, a non-zero exit, and nothing under ./data/ touched', async () => {
    const port = keptSimPort(join(dir, 'data', 'simulator.json')) as number;
    held = createServer();
    await new Promise<void>((resolve) => held?.listen(port, '127.0.0.1', () => resolve()));
    const before = fingerprint(join(dir, 'data'));
    running = serve(join(dir, 'data'));
    const code = await running.exited;
    const err = running.err().trim();
    running = undefined;
    expect(code).to.equal(1);
    expect(err.split('\n'), err).to.have.length(1);
    expect(err).to.match(new RegExp(`^regent: .*127\\.0\\.0\\.1:${port}.*another program holds that port`));
    expect(fingerprint(join(dir, 'data'))).to.deep.equal(before);
  });
});

describe('e2e: npm start stops cleanly on a SIGTERM sent to npm\'s own process (issue 24, item 5)', function () {
  this.timeout(120_000);
  it('a process manager\'s SIGTERM to the pid it started (npm) reaches Regent: it stops cleanly and nothing keeps running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-npm-start-'));
    try {
      const proc = spawn('npm', ['start', '--', '--store', `sqlite:${join(dir, 'regent.db')}`, '--resources', `embedded:${join(dir, 'resources.db')}`, '--port', '0', '--api-port', '0', '--no-examples'], {
        env: { ...process.env, REGENT_LOG_LEVEL: 'info', OS_CLOUD: '', OS_AUTH_URL: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      proc.stdout.on('data', (d: Buffer) => (output += d.toString()));
      proc.stderr.on('data', (d: Buffer) => (output += d.toString()));
      // 'close': every process holding the pipes (npm and whatever it started) has exited
      const closed = new Promise<void>((resolve) => proc.on('close', () => resolve()));
      const url = await until('Regent to run', () => /metrics \/ health:\s+(http:\/\/\S+)\/metrics/.exec(output)?.[1], 60_000, 100);
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000);
      await closed;
      clearTimeout(timer);
      expect(output).to.include('"message":"stopped cleanly"');
      const after = await fetch(`${url}/healthz`).then(() => 'answered', () => 'refused');
      expect(after, 'nothing listens any more').to.equal('refused');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
