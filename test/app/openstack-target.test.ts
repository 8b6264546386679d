import { expect } from 'chai';
import sinon from 'sinon';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openStackTarget, SimulatorOwnerUnreachable } from '../../src/app/openstack-target.js';
import type { OpenStackTarget } from '../../src/app/openstack-target.js';
import { connect } from '../../src/openstack/session.js';
import { SEED } from '../../src/simulator/index.js';

// `regent serve` on embedded defaults keeps the simulated cloud in ./data/simulator.json. Only the process
// holding simulator.json.lock may load or write it: a second process (a standby replica, a second
// `npm start` about to fail on its port) must use the owner's simulator and never write the file, or it
// overwrites the owner's cloud with an empty one at exit.

const src = (path: string): string => pathToFileURL(join(process.cwd(), 'src', path)).href;

interface Child {
  pid: number;
  /** Resolves with the first stdout line. */
  firstLine: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  kill(signal: NodeJS.Signals): void;
}

/** A node process running `code` (an ES module, TypeScript through tsx) with `args` as process.argv[1…]. */
const child = (code: string, args: string[]): Child => {
  const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, ...args], { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let lineResolve: (line: string) => void = () => undefined;
  const firstLine = new Promise<string>((resolve) => { lineResolve = resolve; });
  proc.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    const nl = stdout.indexOf('\n');
    if (nl >= 0) lineResolve(stdout.slice(0, nl));
  });
  proc.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) => {
    proc.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  void exited.then((r) => lineResolve(`(exited ${r.code ?? r.signal}: ${r.stderr.slice(0, 2000)})`));
  return { pid: proc.pid as number, firstLine, exited, kill: (signal) => proc.kill(signal) };
};

/** A second Regent in another process: choose the target as `regent serve` does, list servers, close what it owns. */
const NON_OWNER = `
const { openStackTarget } = await import(${JSON.stringify(src('app/openstack-target.js'))});
const { connect } = await import(${JSON.stringify(src('openstack/session.js'))});
const target = await openStackTarget({ env: {}, simulatorStatePath: process.argv[1] });
const os = await connect(target.cloud);
const names = (await os.nova.listServers()).map((s) => s.name);
await target.simulator?.close();
console.log(JSON.stringify({ description: target.description, owns: target.simulator !== undefined, names }));
`;

/** An owner that is killed (no save, no release): prints its url, then waits to be killed. */
const CRASHING_OWNER = `
const { startSimulator } = await import(${JSON.stringify(src('simulator/index.js'))});
const sim = await startSimulator({ clock: 'real', statePath: process.argv[1] });
console.log(sim.url);
setInterval(() => undefined, 1000);
`;

const createServerOn = async (target: OpenStackTarget, name: string): Promise<string> => {
  const os = await connect(target.cloud);
  const { id } = await os.nova.createServer({ name, flavorRef: '1', imageRef: SEED.images.cirros, networks: 'none' });
  return id;
};

const serverNames = async (target: OpenStackTarget): Promise<string[]> => (await (await connect(target.cloud)).nova.listServers()).map((s) => s.name);

/** A loopback port nobody listens on. */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

describe('openStackTarget: only the owner of the simulator state writes it', function () {
  this.timeout(30_000);
  let dir: string;
  let statePath: string;
  const opened: OpenStackTarget[] = [];
  const target = async (): Promise<OpenStackTarget> => {
    const t = await openStackTarget({ env: {}, simulatorStatePath: statePath });
    opened.push(t);
    return t;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-target-'));
    statePath = join(dir, 'simulator.json');
  });
  afterEach(async () => {
    for (const t of opened.splice(0).reverse()) await t.simulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second start in the same process uses the owner\'s simulator, sees the server the owner created, and has nothing to close', async () => {
    const owner = await target();
    expect(owner.simulator).to.not.equal(undefined);
    expect(JSON.parse(readFileSync(`${statePath}.lock`, 'utf8'))).to.include({ pid: process.pid, url: owner.simulator?.url });
    await createServerOn(owner, 'made-by-owner');
    const lock = readFileSync(`${statePath}.lock`, 'utf8');

    const second = await target();
    expect(second.simulator).to.equal(undefined);
    expect(second.description).to.equal(`the OpenStack simulator of pid ${process.pid} at ${owner.simulator?.url}`);
    expect(second.cloud.authUrl).to.equal(owner.simulator?.authUrl);
    expect(await serverNames(second)).to.include('made-by-owner');
    expect(readFileSync(`${statePath}.lock`, 'utf8'), 'the owner keeps the lock').to.equal(lock);
  });

  it('a second start in a child process uses the owner\'s simulator and leaves the state file byte-identical', async () => {
    // A kept cloud with one server, then an owner that loads it.
    const first = await target();
    await createServerOn(first, 'kept');
    await first.simulator?.close();
    opened.splice(0);
    const saved = readFileSync(statePath);

    // The owner's periodic save (every 5 s, the first one whatever changed) is held back while the child runs: a
    // child slower than that (two test files at once on a busy machine) met the owner's own save, and the byte
    // comparison below blamed the non-owner for it. Only setInterval is faked: the owner still serves the child.
    const clock = sinon.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const owner = await target().finally(() => clock.uninstall());
    const result = await child(NON_OWNER, [statePath]).exited;
    expect(result.code, result.stderr).to.equal(0);
    const seen = JSON.parse(result.stdout) as { description: string; owns: boolean; names: string[] };
    expect(seen.owns).to.equal(false);
    expect(seen.description).to.equal(`the OpenStack simulator of pid ${process.pid} at ${owner.simulator?.url}`);
    expect(seen.names).to.include('kept');
    expect(readFileSync(statePath).equals(saved), 'the non-owner wrote the state file').to.equal(true);
    expect(JSON.parse(readFileSync(`${statePath}.lock`, 'utf8'))).to.include({ pid: process.pid });
  });

  it('the owner saves at close, then releases the lock: the next start owns the file and finds the server', async () => {
    const owner = await target();
    await createServerOn(owner, 'survivor');
    await owner.simulator?.close();
    opened.splice(0);
    expect(existsSync(`${statePath}.lock`)).to.equal(false);
    const next = await target();
    expect(next.simulator).to.not.equal(undefined);
    expect(await serverNames(next)).to.include('survivor');
  });

  it('the lock of an owner that crashed is taken over (its pid has exited): the state it saved before is loaded, and the description says so', async () => {
    const first = await target();
    await createServerOn(first, 'before-crash');
    await first.simulator?.close();
    opened.splice(0);
    const saved = readFileSync(statePath);

    const crashing = child(CRASHING_OWNER, [statePath]);
    expect(await crashing.firstLine).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(JSON.parse(readFileSync(`${statePath}.lock`, 'utf8'))).to.include({ pid: crashing.pid });
    crashing.kill('SIGKILL');
    expect((await crashing.exited).signal).to.equal('SIGKILL');
    expect(readFileSync(statePath).equals(saved)).to.equal(true);

    const next = await target();
    expect(next.simulator, 'a stale lock must not make this process a non-owner').to.not.equal(undefined);
    expect(next.description).to.equal(`OpenStack simulator at ${next.simulator?.url} (took over the state lock of pid ${crashing.pid}, which has exited)`);
    expect(next.simulator?.stateOwnership?.staleOwner?.pid).to.equal(crashing.pid);
    expect(JSON.parse(readFileSync(`${statePath}.lock`, 'utf8'))).to.include({ pid: process.pid, url: next.simulator?.url });
    expect(await serverNames(next)).to.include('before-crash');
  });

  it('an owner whose simulator does not answer is a SimulatorOwnerUnreachable naming the lock file and the pid; nothing is written', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const lock = `${JSON.stringify({ pid: process.pid, url, startedAt: '2024-05-01T10:00:00.000Z' })}\n`;
    writeFileSync(`${statePath}.lock`, lock);
    const error = await openStackTarget({ env: {}, simulatorStatePath: statePath, ownerProbeTimeoutMs: 1_000 }).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(SimulatorOwnerUnreachable);
    const unreachable = error as SimulatorOwnerUnreachable;
    expect(unreachable).to.include({ lockPath: `${statePath}.lock`, pid: process.pid, url, reason: 'simulator-owner-unreachable' });
    expect(unreachable.message).to.contain(`${statePath}.lock`).and.to.contain(`pid ${process.pid}`);
    expect(readFileSync(`${statePath}.lock`, 'utf8')).to.equal(lock);
    expect(readdirSync(dir)).to.deep.equal(['simulator.json.lock']);
  });

  it('a lock naming a simulator off loopback is refused before any credential is sent', async () => {
    writeFileSync(`${statePath}.lock`, JSON.stringify({ pid: process.pid, url: 'http://192.0.2.1:5000', startedAt: '2024-05-01T10:00:00.000Z' }));
    const error = await openStackTarget({ env: {}, simulatorStatePath: statePath }).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(SimulatorOwnerUnreachable);
    expect((error as Error).message).to.contain('not a loopback simulator');
  });

  it('without a state path every start gets its own simulator (tests, `regent simulator`)', async () => {
    const a = await openStackTarget({ env: {} });
    opened.push(a);
    const b = await openStackTarget({ env: {} });
    opened.push(b);
    expect(a.simulator?.url).to.not.equal(b.simulator?.url);
  });
});
