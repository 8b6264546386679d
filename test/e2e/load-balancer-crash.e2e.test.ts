/**
 * Issue 13, LB12, with a real process: a Regent process SIGKILLed between Octavia's answer to the
 * load-balancer create and the recorded result, on a real sqlite file, against the simulator over HTTP.
 * The restart (a fresh engine on the same file, the real handlers) adopts the load balancer Octavia
 * already has by its exact name and converges: one load balancer of that name, one create ever sent.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/port.js';
import { Engine } from '../../src/engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import type { Stimulus } from '../../machines/definition.js';
import { LB_EFFECTS, loadBalancerName, loadBalancerStream, type LoadBalancerStimulus } from '../../machines/load-balancer.js';
import { loadBalancerObserved } from '../../projections/load-balancer-status.js';
import type { DesiredTopology } from '../../machines/load-balancer-topology.js';
import { loadBalancerHandlers, observeTopology } from '../../src/provider/load-balancers.js';
import { createFixtures, settle } from '../openstack/support/fixtures.js';
import { connectAs, simApi, start } from '../openstack/support/sim.js';

const runChild = (args: string[], killOn: string): Promise<{ out: string; killed: boolean }> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/load-balancer-child.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let killed = false;
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!killed && out.includes(killOn)) {
        killed = true;
        proc.kill('SIGKILL');
      }
    });
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => {
      if (!killed) return reject(new Error(`child exited (${code}) before "${killOn}": ${out}${err}`));
      resolve({ out, killed });
    });
  });

describe('e2e: a crash between the Octavia create and the recorded result (real process, sqlite, simulator over HTTP)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let demo: OpenStackSession;
  let dir: string;
  let clouds: string;
  let db: string;
  let subnetId: string;
  beforeEach(async () => {
    sim = await start();
    demo = await connectAs(sim, 'demo');
    subnetId = (await createFixtures(await connectAs(sim, 'admin'), demo)).subnetId;
    dir = mkdtempSync(join(tmpdir(), 'regent-lb-crash-'));
    clouds = join(dir, 'clouds.yaml');
    db = join(dir, 'regent.db');
    writeFileSync(clouds, sim.cloudsYaml());
  });
  afterEach(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('SIGKILLed after Octavia took the create: the restart adopts the load balancer by its exact name, never creates a second', async () => {
    const uid = `00000000-0000-4000-8000-${String(process.pid).padStart(12, '0')}`;
    const desired: DesiredTopology = {
      name: loadBalancerName(uid),
      vipSubnetId: subnetId,
      floatingIP: { wanted: false },
      listeners: [{ name: 'tcp', protocol: 'TCP', port: 443, allowedCIDRs: [], proxyProtocolV2: false, pool: { members: [{ address: '192.0.2.11', port: 8443 }] } }],
    };
    const stream = loadBalancerStream(uid);
    const lbCreates = () => sim.calls({ method: 'POST' }).filter((c) => c.path.endsWith('/lbaas/loadbalancers'));
    const named = async () => (await demo.octavia.listLoadBalancers({ name: desired.name })).filter((lb) => lb.name === desired.name);

    const child = await runChild([clouds, db, uid, JSON.stringify(desired), sim.url], 'CREATED ');
    expect(child.killed).to.equal(true);
    const createdId = /CREATED (\S+)/.exec(child.out)?.[1];
    expect(createdId, child.out).to.be.a('string');
    expect(lbCreates().map((c) => c.status), 'Octavia took the one create').to.deep.equal([201]);
    expect((await named()).map((lb) => lb.id)).to.deep.equal([createdId]);

    // the decision is durable, its result is not: the stream ends at the create decision
    let store: EventStore = await openStore(`sqlite:${db}`);
    const afterCrash = (await store.readStream(stream)).map((e) => e.type);
    expect(afterCrash).to.deep.equal(['loadBalancer.loadBalancerCreateSubmitted']);

    // the restart: a fresh engine on the same file, the real (unwrapped) handlers, passes until provisioned
    const engine = new Engine({ store, registry: createProductRegistry(), handlers: loadBalancerHandlers(demo) });
    const outcomes: string[] = [];
    const pass = async () => {
      const observed = await observeTopology(demo, desired);
      const at = ((await simApi(sim, 'GET', '/clock')) as { iso: string }).iso;
      const stimulus: LoadBalancerStimulus = { type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested: false, at, desired, observed };
      const decisions = await engine.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor: 'test/load-balancer-crash' });
      for (const d of decisions) if (d.outcome) outcomes.push(d.outcome);
      return decisions.at(-1)!.snapshot;
    };
    let snapshot = await pass();
    for (let i = 0; i < 20 && JSON.stringify(snapshot.value) !== '"provisioned"'; i++) {
      await settle(sim, 1_000);
      snapshot = await pass();
    }
    expect(JSON.stringify(snapshot.value), outcomes.join(', ')).to.equal('"provisioned"');
    console.log(`      restart: ${outcomes.join(', ')}`);

    // exactly one load balancer of that name (Octavia's filter and the exact name), one create ever sent
    expect((await named()).map((lb) => lb.id)).to.deep.equal([createdId]);
    expect((await demo.octavia.listLoadBalancers()).filter((lb) => lb.name === desired.name).map((lb) => lb.id)).to.deep.equal([createdId]);
    expect(lbCreates(), 'one POST /lbaas/loadbalancers').to.have.length(1);
    // adopted by name: the restart's first pass reads the one Octavia has, the machine records its id
    expect(outcomes, 'no second create decision').to.not.include('loadBalancerCreateSubmitted');
    expect(loadBalancerObserved(snapshot)).to.deep.include({ loadBalancerID: createdId });

    await store.close();
    store = await openStore(`sqlite:${db}`);
    const events = await store.readStream(stream);
    await store.close();
    const types = events.map((e) => e.type);
    expect(types.filter((t) => t === 'loadBalancer.loadBalancerCreateSubmitted'), types.join(', ')).to.have.length(1);
    const createEffects = events.flatMap((e) => e.metadata.effects.filter((x) => x.type === LB_EFFECTS.createLoadBalancer));
    expect(createEffects, 'createLoadBalancer decided once, by the killed process').to.have.length(1);
    expect(events[0]!.metadata.effects.map((x) => x.type)).to.deep.equal([LB_EFFECTS.createLoadBalancer]);
    // the restart's first event: the load balancer Octavia has, found by its exact name, nothing sent
    const adopted = events[1]!;
    expect((adopted.data as unknown as LoadBalancerStimulus & { type: 'reconcile' }).observed?.loadBalancer).to.deep.include({ kind: 'present', id: createdId });
    expect(adopted.metadata.effects, 'the adopting pass sends nothing').to.deep.equal([]);
  });
});
