/**
 * Crash points of the rebuild protocol with real processes, a real sqlite file and the simulator
 * over HTTP: a process killed between the arm and the submit, and one killed between Nova's 202 and
 * the Rebuilding append. After a restart, still exactly one rebuild accepted by Nova.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMAGES, startRebuildRig, type RebuildRig } from './rebuild-harness.js';
import { openStore } from '../../src/store/open.js';
import { serverRebuildStream } from '../../machines/server-rebuild.js';

const runChild = (args: string[], killOn?: string): Promise<{ out: string; killed: boolean }> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/rebuild-child.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let killed = false;
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (killOn && !killed && out.includes(killOn)) {
        killed = true;
        proc.kill('SIGKILL');
      }
    });
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => {
      if (killOn && !killed) return reject(new Error(`child exited (${code}) before "${killOn}": ${out}${err}`));
      if (!killOn && code !== 0) return reject(new Error(`child failed (${code}): ${out}${err}`));
      resolve({ out, killed });
    });
  });

describe('e2e: rebuild crash points (real processes, sqlite, simulator over HTTP)', function () {
  this.timeout(60_000);
  let rig: RebuildRig;
  let dir: string;
  let clouds: string;
  let db: string;
  beforeEach(async () => {
    rig = await startRebuildRig();
    dir = mkdtempSync(join(tmpdir(), 'regent-rebuild-crash-'));
    clouds = join(dir, 'clouds.yaml');
    db = join(dir, 'regent.db');
    writeFileSync(clouds, rig.sim.cloudsYaml());
  });
  afterEach(async () => {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const types = async (serverId: string) => {
    const store = await openStore(`sqlite:${db}`);
    const events = await store.readStream(serverRebuildStream(serverId));
    await store.close();
    return events.map((e) => e.type);
  };

  it('killed between the arm and the submit: the restart reads the armed marker back and submits once', async () => {
    const id = await rig.createServer('crash-arm');
    const first = await runChild([clouds, db, id, IMAGES.B, 'arm-then-hang'], 'armed-and-hanging');
    expect(first.out).to.include('pass 0 armed');
    expect(rig.rebuildCalls(id)).to.have.length(0);
    expect(await types(id)).to.deep.equal(['serverRebuild.armed']);
    const second = await runChild([clouds, db, id, IMAGES.B, 'normal', '2']);
    expect(second.out).to.include('pass 0 submitted,accepted');
    expect(second.out).to.include('pass 1 rebuildInProgress');
    rig.advance(1_500);
    const third = await runChild([clouds, db, id, IMAGES.B, 'normal', '2']);
    expect(third.out).to.include('pass 0 cleared');
    expect(third.out).to.include('pass 1 inSync');
    expect(rig.acceptedRebuilds(id)).to.equal(1);
  });

  it("killed between Nova's 202 and the Rebuilding append: the restart sees the accepted rebuild in Nova and never submits again", async () => {
    const id = await rig.createServer('crash-202');
    const first = await runChild([clouds, db, id, IMAGES.B, 'hang-after-202', '2'], 'nova-answered rebuild.accepted');
    expect(first.killed).to.equal(true);
    expect(rig.acceptedRebuilds(id)).to.equal(1);
    // the decision is durable, its result is not: the stream ends at the submit
    expect(await types(id)).to.deep.equal(['serverRebuild.armed', 'serverRebuild.submitted']);
    const second = await runChild([clouds, db, id, IMAGES.B, 'normal', '1']);
    expect(second.out).to.include('pass 0 acceptanceRecorded');
    rig.advance(1_500);
    const third = await runChild([clouds, db, id, IMAGES.B, 'normal', '2']);
    expect(third.out).to.include('pass 0 cleared');
    expect(rig.acceptedRebuilds(id)).to.equal(1);
    expect(rig.rebuildCalls(id)).to.have.length(1);
  });

  it('killed after the 202 and restarted only after the rebuild settled: converged, cleared, no second rebuild', async () => {
    const id = await rig.createServer('crash-late');
    await runChild([clouds, db, id, IMAGES.B, 'hang-after-202', '2'], 'nova-answered rebuild.accepted');
    rig.advance(1_500);
    const restarted = await runChild([clouds, db, id, IMAGES.B, 'normal', '2']);
    expect(restarted.out).to.include('pass 0 cleared');
    expect(restarted.out).to.include('pass 1 inSync');
    expect(rig.rebuildCalls(id)).to.have.length(1);
  });
});
