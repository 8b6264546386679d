/**
 * The lifecycle's bounded retries end visibly, against the simulator over HTTP (manual clock; the
 * passes read the simulator's clock):
 * - item 7: three creates that each end in ERROR before booting leave the Server Available=False /
 *   CreateRetriesExhausted with Nova's fault, never `provisioned`; a new spec generation retries;
 * - item 9: a delete Nova drops (204, server still there) or refuses (409) is sent again after the
 *   backoff, and Available says so (DeleteRetrying) meanwhile.
 */
import { expect } from 'chai';
import { SEED } from '../../src/simulator/index.js';
import { startLifecycleRig, type LifecycleRig } from '../controllers/lifecycle-rig.js';
import type { Disposition } from '../../src/controllers/disposition.js';

describe('e2e: the lifecycle retries end visibly', function () {
  this.timeout(30_000);
  let rig: LifecycleRig;
  beforeEach(async () => {
    rig = await startLifecycleRig();
  });
  afterEach(async () => rig?.close());

  const creates = () => rig.sim.calls({ method: 'POST' }).filter((c) => /\/servers$/.test(c.path) && c.status === 202);
  const deletes = () => rig.sim.calls({ method: 'DELETE' }).filter((c) => /\/servers\/[^/]+$/.test(c.path));
  /** Passes (one second of cloud time apart) until the lifecycle reaches `state`. */
  const passUntil = async (name: string, state: string, maxPasses = 30): Promise<Disposition> => {
    for (let i = 0; i < maxPasses; i++) {
      const disposition = await rig.pass(name);
      if ((await rig.lifecycle(name)).state === state) return disposition;
      rig.advance(1_000);
    }
    throw new Error(`${name} never reached ${state}: ${(await rig.lifecycle(name)).types.join(', ')}`);
  };

  it('item 7: three never-booted ERRORs end in Available=False/CreateRetriesExhausted with the Nova fault, never provisioned; a new generation retries', async () => {
    const fault = 'No valid host was found. There are not enough hosts available.';
    rig.sim.control.configure({ nova: { bootRules: [{ match: '^web-1$', outcome: 'error', phase: 'boot', message: fault }] } });
    await rig.applyServer('web-1');
    const parked = await passUntil('web-1', 'failed');
    expect(parked).to.include({ kind: 'park', reason: 'CreateRetriesExhausted' });
    expect(creates()).to.have.length(3);
    expect(deletes()).to.have.length(2);
    const status = await rig.status('web-1');
    expect(status.provisioningStatus).to.equal('error');
    const available = status.conditions?.find((c) => c.type === 'Available');
    expect(available).to.include({ status: 'False', reason: 'CreateRetriesExhausted' });
    expect(available?.message).to.equal(`Nova put the server in ERROR before it ever booted, 3 times (the create bound); last Nova fault: ${fault}`);
    const types = (await rig.lifecycle('web-1')).types;
    expect(types.at(-1)).to.equal('serverLifecycle.createRetriesExhausted');

    // later passes of the same generation neither retry nor store anything
    for (let i = 0; i < 3; i++) {
      rig.advance(5_000);
      await rig.pass('web-1');
    }
    expect(creates()).to.have.length(3);
    expect(deletes()).to.have.length(2);
    expect((await rig.lifecycle('web-1')).types).to.have.length(types.length);

    // the designed retry: a new generation deletes the errored server and creates it from the current spec
    rig.sim.control.configure({ nova: { bootRules: [] } });
    await rig.applyServer('web-1', { image: `{ id: ${SEED.images.debian} }` });
    await passUntil('web-1', 'present');
    rig.advance(2_000);
    await rig.pass('web-1');
    expect(creates()).to.have.length(4);
    expect(deletes()).to.have.length(3);
    expect(creates().at(-1)?.body).to.deep.nested.include({ 'server.imageRef': SEED.images.debian });
    const after = await rig.lifecycle('web-1');
    expect(after.state).to.equal('present');
    expect(after.context.createFailure).to.equal(null);
  });

  const running = async (name: string): Promise<string> => {
    await rig.applyServer(name);
    await passUntil(name, 'present');
    rig.advance(2_000);
    const serverId = (await rig.lifecycle(name)).context.resourceId as string;
    expect((await rig.os.nova.getServer(serverId)).status).to.deep.equal({ kind: 'value', value: 'ACTIVE' });
    return serverId;
  };

  it('item 9: a delete Nova drops (204, the server stays) is sent again after the backoff, and Available says so meanwhile', async () => {
    const serverId = await running('web-1');
    // Nova "accepts" the next delete without doing it
    rig.sim.control.addFault({ method: 'DELETE', path: `/servers/${serverId}$`, status: 204, body: '', count: 1 });
    await rig.source.delete('Server', 'default', 'web-1');
    await rig.pass('web-1'); // arms the deletion
    const first = await rig.pass('web-1'); // reads it back, sends the delete
    expect((await rig.lifecycle('web-1')).state).to.equal('deleting');
    expect(deletes().map((c) => c.status)).to.deep.equal([204]);
    expect(first).to.include({ kind: 'yield', afterMs: 2_000 }); // confirm absence promptly

    // within the backoff nothing is sent again; once Nova had its chance the pass waits until the retry is due
    for (let i = 0; i < 5; i++) {
      rig.advance(2_000);
      await rig.pass('web-1');
    }
    rig.advance(1_000);
    const waiting = await rig.pass('web-1'); // 11 s after the delete
    expect(deletes()).to.have.length(1);
    expect(waiting).to.include({ kind: 'yield', afterMs: 4_000 });
    expect(await rig.available('web-1')).to.include({ reason: 'Deprovisioning' });

    rig.advance(4_000);
    await rig.pass('web-1'); // 15 s: due
    expect(deletes().map((c) => c.status)).to.deep.equal([204, 204]);
    expect(deletes()[1]?.fault).to.equal(undefined); // this one reached Nova
    const retrying = await rig.available('web-1');
    expect(retrying).to.include({ status: 'False', reason: 'DeleteRetrying' });
    expect(retrying?.message).to.equal('sent 2 delete requests for the server; Nova has not deleted it yet; re-sending with backoff until it is gone');
    expect((await rig.lifecycle('web-1')).types).to.include('serverLifecycle.deleteResubmitted');

    rig.advance(2_000);
    const gone = await rig.pass('web-1');
    expect(gone.kind).to.equal('done');
    expect(await rig.source.get('Server', 'default', 'web-1')).to.equal(undefined);
  });

  it("item 9: a refused delete (409) is sent again after the backoff; meanwhile Available names the refusal with Nova's message", async () => {
    const serverId = await running('web-1');
    const message = `Cannot 'delete' instance ${serverId} while it is in task_state rebuilding`;
    rig.sim.control.addFault({ method: 'DELETE', path: `/servers/${serverId}$`, status: 409, body: { conflictingRequest: { code: 409, message } }, count: 1 });
    await rig.source.delete('Server', 'default', 'web-1');
    await rig.pass('web-1');
    await rig.pass('web-1');
    expect(deletes().map((c) => c.status)).to.deep.equal([409]);
    const refused = await rig.available('web-1');
    expect(refused).to.include({ status: 'False', reason: 'DeleteRetrying' });
    expect(refused?.message).to.equal(`sent 1 delete request for the server; Nova refused the last: ${message} (HTTP 409); re-sending with backoff until it is gone`);

    rig.advance(14_000);
    await rig.pass('web-1');
    expect(deletes()).to.have.length(1);
    rig.advance(1_000);
    await rig.pass('web-1');
    expect(deletes().map((c) => c.status)).to.deep.equal([409, 204]);
    rig.advance(2_000);
    await rig.pass('web-1');
    expect(await rig.source.get('Server', 'default', 'web-1')).to.equal(undefined);
  });
});
