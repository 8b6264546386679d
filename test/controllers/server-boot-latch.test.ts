/**
 * Issue 24 (A), "a booted server is never destroyed and recreated", read from the Nova simulator over HTTP
 * through the real Server pass (src/controllers/server/reconcile.ts) and the real monitor
 * (src/controllers/server-monitor/): the server boots (ACTIVE with launched_at), then the simulator's control
 * API forces it to ERROR with launched_at null. openstack-provider.md: the provisionedAt latch is what "the
 * controller's bounded provider-create delete-and-retry guard relies on (so a server that has booted is never
 * destroyed and recreated)". The call log must show no DELETE and no second POST /servers, and the status must
 * show the same server, errored.
 */
import { expect } from 'chai';
import axios from 'axios';
import { startLifecycleRig, type LifecycleRig } from './lifecycle-rig.js';
import { ServerMonitor, type PollResult } from '../../src/controllers/server-monitor/monitor.js';
import { silentLogger } from '../../src/log/logger.js';
import { serverRebuildStream, type ServerRebuildContext } from '../../machines/server-rebuild.js';

describe('Server pass and monitor over the Nova simulator: a booted server read ERROR with launched_at empty is never destroyed and recreated (L10)', function () {
  this.timeout(60_000);
  let rig: LifecycleRig;
  let woken: string[];
  let monitor: ServerMonitor;
  beforeEach(async () => {
    rig = await startLifecycleRig();
    woken = [];
    monitor = new ServerMonitor({ engine: rig.engine, nova: rig.os.nova, logger: silentLogger(), isManaged: () => true, onErrored: (id) => woken.push(id), now: () => new Date(rig.sim.clock.now()) });
  });
  afterEach(async () => rig?.close());

  const creates = () => rig.sim.calls({ method: 'POST' }).filter((c) => /\/servers$/.test(c.path));
  const deletes = () => rig.sim.calls({ method: 'DELETE' }).filter((c) => /\/servers\/[^/]+$/.test(c.path));
  /** The simulator's control API, over HTTP: Nova now reads ERROR, and launched_at null. */
  const forceErrorWithoutLaunchedAt = async (serverId: string) => {
    const answer = await axios.post(`${rig.sim.url}/_sim/servers/${serverId}/state`, { status: 'ERROR', launched_at: null, fault: 'the hypervisor lost the instance' });
    expect(answer.data.server).to.include({ id: serverId, vm_state: 'error', launched_at: null });
    const read = await rig.os.nova.getServer(serverId);
    expect(read.status).to.deep.equal({ kind: 'value', value: 'ERROR' });
    expect(read.launchedAt).to.deep.equal({ kind: 'value', value: null });
  };
  /** Passes well past every backoff of the delete-and-retry (armed, read back, L8), with monitor polls between. */
  const passesAndPolls = async (count: number): Promise<PollResult[]> => {
    const polls: PollResult[] = [];
    for (let i = 0; i < count; i++) {
      await rig.pass('web-1');
      rig.advance(20_000);
      polls.push(await monitor.pollOnce());
    }
    return polls;
  };
  const expectSameServerErrored = async (serverId: string) => {
    expect(deletes(), 'DELETE /servers/{id} calls').to.have.length(0);
    expect(creates(), 'POST /servers calls').to.have.length(1);
    const lifecycle = await rig.lifecycle('web-1');
    expect(lifecycle.state).to.equal('present');
    expect(lifecycle.context.resourceId).to.equal(serverId);
    expect(lifecycle.types).to.not.include('serverLifecycle.recreateArmed');
    const status = await rig.status('web-1');
    expect(status.serverID).to.equal(serverId);
    expect(status.conditions?.find((c) => c.type === 'Healthy')).to.include({ status: 'False', reason: 'Errored' });
    expect((await rig.os.nova.getServer(serverId)).status).to.deep.equal({ kind: 'value', value: 'ERROR' });
  };

  it('L10 a pass read it ACTIVE with launched_at, then Nova reads ERROR with launched_at null: zero DELETE, zero second POST /servers, the same server, Healthy=Errored', async () => {
    await rig.applyServer('web-1');
    await rig.pass('web-1'); // the create
    rig.advance(2_000); // BUILD → ACTIVE
    await rig.pass('web-1'); // reads it ACTIVE, launched: the latch is recorded
    const booted = await rig.lifecycle('web-1');
    const serverId = booted.context.resourceId as string;
    expect((await rig.os.nova.getServer(serverId)).status).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    expect(booted.context.bootedIds).to.deep.equal([serverId]);

    await forceErrorWithoutLaunchedAt(serverId);
    // the monitor never saw it booted (it polls only now), so it wakes the pass: the pass must refuse the retry
    expect((await monitor.pollOnce()).errored).to.deep.equal([serverId]);
    await passesAndPolls(6);
    await expectSameServerErrored(serverId);
  });

  it("L10 only the monitor saw it booted (provisionedAt latched), then Nova reads ERROR with launched_at null: the monitor wakes no retry, and the pass decides none — zero DELETE, zero second POST /servers", async () => {
    await rig.applyServer('web-1');
    await rig.pass('web-1'); // the create: no pass reads the server again until it has errored
    const serverId = (await rig.lifecycle('web-1')).context.resourceId as string;
    rig.advance(2_000); // BUILD → ACTIVE
    await monitor.pollOnce();
    const provisionedAt = ((await rig.engine.load(serverRebuildStream(serverId))).snapshot.context as ServerRebuildContext).provisionedAt;
    expect(provisionedAt, 'the monitor latched provisionedAt from launched_at').to.be.a('string');
    expect((await rig.lifecycle('web-1')).context.bootedIds).to.deep.equal([]);

    await forceErrorWithoutLaunchedAt(serverId);
    const first = await monitor.pollOnce();
    expect(first.changed, 'the monitor recorded the ERROR').to.equal(1);
    expect(first.errored, 'a server latched booted is never woken for the delete-and-retry').to.deep.equal([]);
    const polls = await passesAndPolls(6);
    expect(polls.flatMap((p) => p.errored)).to.deep.equal([]);
    expect(woken).to.deep.equal([]);
    await expectSameServerErrored(serverId);
    // the pass carried the monitor's latch into the lifecycle: it is recorded there too
    expect((await rig.lifecycle('web-1')).context.bootedIds).to.deep.equal([serverId]);
    // a booted server Nova reports in ERROR: Available says so (provisionedAt is latched, so it is not "not booted yet")
    expect(await rig.available('web-1')).to.include({ status: 'False', reason: 'Errored', message: 'Nova reports the server in ERROR' });
  });

  it('L5 still holds for a server that never booted: ERROR with launched_at null before any ACTIVE is deleted and created again (the control)', async () => {
    await rig.applyServer('web-1');
    await rig.pass('web-1');
    const serverId = (await rig.lifecycle('web-1')).context.resourceId as string;
    await forceErrorWithoutLaunchedAt(serverId);
    expect((await monitor.pollOnce()).errored).to.deep.equal([serverId]);
    for (let i = 0; i < 6 && creates().length < 2; i++) {
      await rig.pass('web-1');
      rig.advance(1_000);
    }
    expect(deletes().map((c) => c.path.split('/').at(-1))).to.deep.equal([serverId]);
    expect(creates()).to.have.length(2);
  });
});
