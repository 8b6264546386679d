/**
 * Baremetal build progress end to end over real HTTP against the simulator (manual clock): a server on the
 * Region's baremetal flavor reads Queued while Ironic has not started deploying its node and Building once it
 * deploys; the node is looked up by instance_uuid with the region's (admin) credentials; a virtual flavor never
 * calls Ironic; Ironic failing falls back to Building, logged.
 */
import { expect } from 'chai';
import { startSimulator, SEED, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { ServerMonitor } from '../../src/controllers/server-monitor/monitor.js';
import { baremetalProgressLookup } from '../../src/controllers/server-monitor/baremetal.js';
import { serverRebuildStream, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import { captureLogs } from '../real-openstack/support/logs.js';

describe('e2e: baremetal Queued/Building from Ironic (simulator)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let demo: OpenStackSession;
  let admin: OpenStackSession;
  let engine: Engine;
  const flavors = new Map<string, { id?: string; name?: string }>();

  beforeEach(async () => {
    sim = await startSimulator({ clock: 'manual' });
    const options = { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 };
    demo = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-demo'), options);
    admin = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), options);
    engine = new Engine({ store: new MemoryEventStore(), registry: createProductRegistry() });
    flavors.clear();
  });
  afterEach(async () => sim.close());

  const monitorWith = (logger = captureLogs().logger, baremetalFlavorIDs: string[] = [SEED.baremetalFlavor]) =>
    new ServerMonitor({
      engine,
      nova: demo.nova,
      logger,
      isManaged: () => true,
      baremetalProgress: baremetalProgressLookup({
        serverOf: (id) => (flavors.has(id) ? { flavor: flavors.get(id) as { id?: string; name?: string } } : undefined),
        regionOf: async () => ({ uid: 'region-1', baremetalFlavorIDs, session: admin }),
      }),
    });
  const boot = async (name: string, flavor: { id?: string; name?: string }) => {
    const flavorRef = flavor.id ?? (await demo.nova.findFlavorByName(flavor.name as string)).id;
    const { id } = await demo.nova.createServer({ name, imageRef: SEED.images.cirros, flavorRef, networks: 'none' });
    flavors.set(id, flavor);
    return id;
  };
  const active = async (id: string) => ((await engine.load(serverRebuildStream(id))).snapshot.context as ServerRebuildContext).health?.active;
  const ironicCalls = () => sim.calls({ method: 'GET' }).filter((c) => c.path.startsWith('/baremetal/'));

  it('Queued before Ironic deploys (no node bound yet, then the claimed node still available), Building while it deploys, Running when Nova is ACTIVE', async () => {
    const monitor = monitorWith();
    const id = await boot('bm-1', { name: 'bm.gold' }); // by name: resolved to the flavor id once
    await monitor.pollOnce();
    expect(await active(id), 'scheduling: no node bound to the instance').to.deep.equal({ status: 'False', reason: 'Queued' });
    sim.clock.advance(80); // scheduled: Nova's ironic driver claimed a node, still `available`
    await monitor.pollOnce();
    expect(await active(id)).to.deep.equal({ status: 'False', reason: 'Queued' });
    expect((await admin.ironic.findNodeByInstance(id))?.provisionState).to.deep.equal({ kind: 'value', value: 'available' });
    sim.clock.advance(160); // spawning: the node deploys
    await monitor.pollOnce();
    expect((await admin.ironic.findNodeByInstance(id))?.provisionState).to.deep.equal({ kind: 'value', value: 'deploying' });
    expect(await active(id)).to.deep.equal({ status: 'False', reason: 'Building' });
    sim.clock.advance(40); // wait call-back: still Building
    await monitor.pollOnce();
    expect(await active(id)).to.deep.equal({ status: 'False', reason: 'Building' });
    sim.clock.advance(200);
    const before = ironicCalls().length;
    await monitor.pollOnce();
    expect(await active(id)).to.deep.equal({ status: 'True', reason: 'Running' });
    expect(ironicCalls().length, 'an ACTIVE server: Ironic is not asked').to.equal(before);
    // every Ironic request (one per BUILD poll) was the instance_uuid lookup
    expect(ironicCalls()).to.have.length(4 + 2); // one per poll in BUILD, and this test's own two reads
    expect(ironicCalls().every((c) => c.path === '/baremetal/v1/nodes/detail' && c.query.includes(`instance_uuid=${id}`))).to.equal(true);
    // Nova was asked for the flavor by name once, not once per poll
    expect(sim.calls({ method: 'GET' }).filter((c) => c.path.startsWith('/compute/v2.1/flavors')).length).to.be.at.most(2);
  });

  it('a virtual flavor never calls Ironic (BUILD reads Building); neither does a baremetal flavor the Region does not list', async () => {
    const monitor = monitorWith();
    const vm = await boot('vm-1', { id: '2' }); // m1.small
    await monitor.pollOnce();
    expect(await active(vm)).to.deep.equal({ status: 'False', reason: 'Building' });
    expect(ironicCalls()).to.have.length(0);
    const unlisted = monitorWith(undefined, ['some-other-flavor']);
    const bm = await boot('bm-2', { id: SEED.baremetalFlavor });
    await unlisted.pollOnce();
    expect(await active(bm)).to.deep.equal({ status: 'False', reason: 'Building' });
    expect(ironicCalls()).to.have.length(0);
  });

  it('Ironic failing (503) or refusing (403) falls back to Building and says so in the log; the next good answer reads Queued', async () => {
    const logs = captureLogs();
    const monitor = monitorWith(logs.logger);
    const id = await boot('bm-3', { id: SEED.baremetalFlavor });
    for (const status of [503, 403]) {
      sim.control.addFault({ method: 'GET', path: '/baremetal/', status, count: 1 });
      await monitor.pollOnce();
      expect(await active(id), `Ironic ${status}`).to.deep.equal({ status: 'False', reason: 'Building' });
    }
    expect(logs.text().match(/Ironic lookup failed: the baremetal server reads Building/g)).to.have.length(2);
    await monitor.pollOnce();
    expect(await active(id)).to.deep.equal({ status: 'False', reason: 'Queued' });
  });
});
