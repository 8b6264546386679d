import { expect } from 'chai';
import axios from 'axios';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createServer } from 'node:net';
import { startSimulator, SimStateOwned, SimulatorPortTaken, SEED, keptSimPort } from '../../src/simulator/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';

const token = async (authUrl: string, password: string) => {
  const response = await axios.post(`${authUrl}/auth/tokens`, {
    auth: { identity: { methods: ['password'], password: { user: { name: 'demo', domain: { name: 'Default' }, password } } }, scope: { project: { name: 'demo', domain: { name: 'Default' } } } },
  });
  return String(response.headers['x-subject-token']);
};

describe('simulator: a kept cloud (statePath)', function () {
  this.timeout(20_000);

  it('a server created before a restart is there after it, settled, under the same id; tokens are not kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-sim-state-'));
    const statePath = join(dir, 'simulator.json');
    try {
      const first = await startSimulator({ clock: 'real', delays: { serverBuild: 50 }, statePath });
      const password = first.credentials.demo.password;
      const t1 = await token(first.authUrl, password);
      const created = await axios.post(`${first.url}/compute/v2.1/servers`, { server: { name: 'kept', imageRef: SEED.images.cirros, flavorRef: '2', networks: 'none' } }, { headers: { 'X-Auth-Token': t1 } });
      const id = String(created.data.server.id);
      await first.close(); // waits for BUILD → ACTIVE, then saves

      const second = await startSimulator({ clock: 'real', statePath });
      try {
        const stale = await axios.get(`${second.url}/compute/v2.1/servers/${id}`, { headers: { 'X-Auth-Token': t1 }, validateStatus: () => true });
        expect(stale.status).to.equal(401);
        const t2 = await token(second.authUrl, password);
        const server = await axios.get(`${second.url}/compute/v2.1/servers/${id}`, { headers: { 'X-Auth-Token': t2 } });
        expect(server.data.server.name).to.equal('kept');
        expect(server.data.server.status).to.equal('ACTIVE');
        expect(server.data.server['OS-SRV-USG:launched_at']).to.be.a('string');
        // the cloud answers where it did: the Regions registered into it name that address (issue 24, item 1)
        expect(second.url).to.equal(first.url);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a readable save the cloud is seeded as usual', async () => {
    const sim = await startSimulator({ clock: 'real', statePath: join(tmpdir(), `regent-missing-${process.pid}`, 'nope.json') });
    try {
      const t = await token(sim.authUrl, sim.credentials.demo.password);
      const images = await axios.get(`${sim.url}/image/v2/images`, { headers: { 'X-Auth-Token': t } });
      expect(images.data.images.map((i: { id: string }) => i.id)).to.include(SEED.images.cirros);
    } finally {
      await sim.close();
      rmSync(join(tmpdir(), `regent-missing-${process.pid}`), { recursive: true, force: true });
    }
  });
});

describe('simulator: a kept cloud keeps its address and its changes (issue 24, item 1)', function () {
  this.timeout(20_000);
  let dir: string;
  let statePath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-sim-port-'));
    statePath = join(dir, 'simulator.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the port is saved the moment a fresh cloud starts, and the next start takes it again; an explicit port wins', async () => {
    const first = await startSimulator({ clock: 'real', statePath });
    const port = Number(new URL(first.url).port);
    expect(keptSimPort(statePath), 'kept before any close').to.equal(port);
    await first.close();
    const again = await startSimulator({ clock: 'real', statePath });
    expect(again.url).to.equal(first.url);
    await again.close();
    const explicit = await startSimulator({ clock: 'real', statePath, port: 0 });
    expect(explicit.url).to.not.equal(first.url);
    await explicit.close();
  });

  it('a kept port another program holds is SimulatorPortTaken, and the state file and lock are left as they were', async () => {
    const first = await startSimulator({ clock: 'real', statePath });
    const port = Number(new URL(first.url).port);
    await first.close();
    const saved = readFileSync(statePath, 'utf8');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', () => resolve()));
    try {
      const error = await startSimulator({ clock: 'real', statePath }).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(SimulatorPortTaken);
      expect((error as Error).message).to.include(`127.0.0.1:${port}`);
      expect(readFileSync(statePath, 'utf8')).to.equal(saved);
      expect(existsSync(`${statePath}.lock`)).to.equal(false);
    } finally {
      holder.close();
    }
  });

  it('changes are saved while the simulator runs (a killed process loses at most one save interval), and not when nothing changed', async () => {
    const sim = await startSimulator({ clock: 'real', delays: { serverBuild: 20 }, statePath, saveIntervalMs: 100 });
    try {
      const idle = readFileSync(statePath, 'utf8');
      // a negative check (no save while nothing changes), so a fixed wait: three save intervals
      await new Promise((resolve) => setTimeout(resolve, 350));
      expect(readFileSync(statePath, 'utf8'), 'nothing changed, nothing saved').to.equal(idle);
      const t = await token(sim.authUrl, sim.credentials.demo.password);
      await axios.post(`${sim.url}/compute/v2.1/servers`, { server: { name: 'unsaved-until-close', imageRef: SEED.images.cirros, flavorRef: '2', networks: 'none' } }, { headers: { 'X-Auth-Token': t } });
      // read as a restarted process would, without the owner's close: within a few save intervals
      const deadline = Date.now() + 5_000;
      while (!readFileSync(statePath, 'utf8').includes('unsaved-until-close') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readFileSync(statePath, 'utf8')).to.include('unsaved-until-close');
    } finally {
      await sim.close();
    }
  });
});

const serverNames = (sim: RunningSimulator): string[] => [...sim.control.sim.nova.servers.values()].map((s) => s.name);

/**
 * A simulator owner that crashes in the middle of its save: fs is instrumented (syncBuiltinESMExports makes
 * the patched functions what `import { renameSync } from 'node:fs'` sees) to print every fsync and rename,
 * and the process SIGKILLs itself at the rename onto the state file — after the temp is written, before
 * the file is replaced.
 */
const CRASH_AT_RENAME = `
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const statePath = process.argv[1];
const log = (line) => fs.writeSync(1, line + '\\n');
const paths = new Map();
const { openSync, fsyncSync, renameSync, writeFileSync } = fs;
fs.openSync = (p, ...rest) => { const fd = openSync(p, ...rest); paths.set(fd, String(p)); return fd; };
fs.fsyncSync = (fd) => { log('fsync ' + (paths.get(fd) ?? fd)); return fsyncSync(fd); };
fs.writeFileSync = (p, ...rest) => { log('writeFile ' + p); return writeFileSync(p, ...rest); };
fs.renameSync = (from, to) => {
  log('rename ' + from + ' ' + to);
  if (String(to) === statePath) process.kill(process.pid, 'SIGKILL');
  return renameSync(from, to);
};
syncBuiltinESMExports();
const { startSimulator } = await import(${JSON.stringify(pathToFileURL(join(process.cwd(), 'src/simulator/index.js')).href)});
const sim = await startSimulator({ clock: 'real', statePath });
sim.control.createServers({ count: 1, name: 'after' });
await sim.close();
`;

const runChild = (code: string, args: string[]): Promise<{ pid: number; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code, ...args], { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
    proc.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
    proc.on('exit', (exitCode, signal) => resolve({ pid: proc.pid as number, code: exitCode, signal, stdout, stderr }));
  });

describe('simulator: one owner per state file, atomic saves', function () {
  this.timeout(20_000);
  let dir: string;
  let statePath: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-sim-owner-'));
    statePath = join(dir, 'simulator.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a second simulator on a state file a live process owns throws SimStateOwned (pid, url) and loads and writes nothing', async () => {
    const owner = await startSimulator({ clock: 'real', statePath });
    try {
      owner.control.createServers({ count: 1, name: 'owned' });
      // the owner saved its fresh cloud at once (its port is kept from the first moment)
      const saved = readFileSync(statePath, 'utf8');
      const error = await startSimulator({ clock: 'real', statePath }).then(() => undefined, (e: unknown) => e);
      expect(error).to.be.instanceOf(SimStateOwned);
      expect((error as SimStateOwned).owner).to.include({ pid: process.pid, url: owner.url });
      expect((error as SimStateOwned).lockPath).to.equal(`${statePath}.lock`);
      expect(readFileSync(statePath, 'utf8'), 'the second simulator wrote nothing').to.equal(saved);
    } finally {
      await owner.close();
    }
    expect(existsSync(`${statePath}.lock`), 'released after the save').to.equal(false);
    const next = await startSimulator({ clock: 'real', statePath });
    try {
      expect(serverNames(next)).to.include('owned');
    } finally {
      await next.close();
    }
  });

  it('a save never shares a temp file: another writer\'s simulator.json.tmp is left as it was, and the file is replaced whole', async () => {
    const foreign = '{"format":1,"half-written by another process';
    writeFileSync(`${statePath}.tmp`, foreign);
    const sim = await startSimulator({ clock: 'real', statePath });
    sim.control.createServers({ count: 1, name: 'mine' });
    await sim.close();
    expect(readFileSync(`${statePath}.tmp`, 'utf8')).to.equal(foreign);
    const saved = JSON.parse(readFileSync(statePath, 'utf8')) as { format: number };
    expect(saved.format).to.equal(1);
    expect(readdirSync(dir).sort()).to.deep.equal(['simulator.json', 'simulator.json.tmp']);
  });

  it('a crash mid-save (killed at the rename) leaves the previous file whole; its own temp was fsynced first; the next owner loads the previous state and removes the temp', async () => {
    const first = await startSimulator({ clock: 'real', statePath });
    first.control.createServers({ count: 1, name: 'before' });
    await first.close();
    const previous = readFileSync(statePath);

    const crashed = await runChild(CRASH_AT_RENAME, [statePath]);
    expect(crashed.signal, crashed.stderr).to.equal('SIGKILL');
    const trace = crashed.stdout.trim().split('\n');
    const rename = trace.find((l) => l.startsWith('rename ') && l.endsWith(` ${statePath}`));
    expect(rename, trace.join('\n')).to.be.a('string');
    const temp = (rename as string).split(' ')[1] as string;
    expect(temp).to.match(new RegExp(`^${dir}/simulator\\.json\\.\\d+\\.[0-9a-f]{12}\\.tmp$`));
    expect(trace.indexOf(`fsync ${temp}`), 'the temp is fsynced before it is renamed').to.be.within(0, trace.indexOf(rename as string) - 1);

    expect(readFileSync(statePath).equals(previous), 'the previous file is whole').to.equal(true);
    expect(existsSync(temp), 'the crash left its temp behind').to.equal(true);
    expect(readFileSync(temp, 'utf8')).to.contain('"after"');

    const next = await startSimulator({ clock: 'real', statePath });
    try {
      expect(next.stateOwnership?.staleOwner?.pid, "the crashed owner's lock is taken over").to.equal(crashed.pid);
      expect(serverNames(next)).to.include('before').and.not.to.include('after');
      expect(existsSync(temp), 'a leftover temp is removed by the next owner').to.equal(false);
    } finally {
      await next.close();
    }
  });
});
