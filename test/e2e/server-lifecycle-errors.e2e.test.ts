/**
 * Errors reach status within one pass (issue 10, item 15), against the simulator over HTTP: an image or
 * flavor name that resolves to nothing or to two, a Nova 400 on create and a quota refusal each end the
 * first pass with Available=False naming the cause, instead of a pass that fails with backoff and
 * leaves the cause in the log only.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { SEED } from '../../src/simulator/index.js';
import { startLifecycleRig, type LifecycleRig } from '../controllers/lifecycle-rig.js';

describe('e2e: a Server whose create cannot happen says why within one pass', function () {
  this.timeout(30_000);
  let rig: LifecycleRig;
  beforeEach(async () => {
    rig = await startLifecycleRig();
  });
  afterEach(async () => rig?.close());

  const creates = () => rig.sim.calls({ method: 'POST' }).filter((c) => /\/servers$/.test(c.path));

  it('an image name that matches no image: Available=False/ImageNotFound, nothing is sent to Nova; once the image exists the next pass creates the server', async () => {
    await rig.applyServer('web-1', { image: '{ name: golden-2024 }' });
    const first = await rig.pass('web-1');
    expect(first).to.include({ kind: 'yield', afterMs: 30_000 });
    const available = await rig.available('web-1');
    expect(available).to.include({ status: 'False', reason: 'ImageNotFound' });
    expect(available?.message).to.include("golden-2024");
    expect((await rig.status('web-1')).provisioningStatus).to.equal('error');
    expect(creates()).to.have.length(0);
    expect((await rig.lifecycle('web-1')).types).to.deep.equal(['serverLifecycle.desiredUnresolvable']);
    // a pass that still cannot resolve it stores nothing new
    await rig.pass('web-1');
    expect((await rig.lifecycle('web-1')).types).to.have.length(1);

    const image = await rig.os.glance.createImage({ name: 'golden-2024', diskFormat: 'qcow2', containerFormat: 'bare' });
    await rig.os.glance.uploadImageData(image.id, Buffer.from('image bytes'));
    await rig.pass('web-1');
    expect(creates().filter((c) => c.status === 202)).to.have.length(1);
    const after = await rig.lifecycle('web-1');
    expect(after.context.unresolvable).to.equal(null);
    expect((await rig.available('web-1'))?.reason).to.not.equal('ImageNotFound');
  });

  it('an image name that matches two images: Available=False/ImageAmbiguous naming how many, nothing is sent to Nova', async () => {
    rig.sim.control.duplicate('image', SEED.images.cirros);
    await rig.applyServer('web-1', { image: '{ name: cirros-0.6.2-x86_64-disk }' });
    await rig.pass('web-1');
    const available = await rig.available('web-1');
    expect(available).to.include({ status: 'False', reason: 'ImageAmbiguous' });
    expect(available?.message).to.match(/2 Glance images are named exactly 'cirros-0\.6\.2-x86_64-disk'/);
    expect(creates()).to.have.length(0);
  });

  it('a flavor name that matches no flavor: Available=False/FlavorNotFound, nothing is sent to Nova', async () => {
    await rig.applyServer('web-1', { flavor: '{ name: m9.enormous }' });
    await rig.pass('web-1');
    const available = await rig.available('web-1');
    expect(available).to.include({ status: 'False', reason: 'FlavorNotFound' });
    expect(available?.message).to.include('m9.enormous');
    expect(creates()).to.have.length(0);
  });

  it('an image or flavor id that names nothing: the same ImageNotFound/FlavorNotFound as a name, phase Error, nothing sent to Nova (issue 24, item 5)', async () => {
    const missing = randomUUID();
    await rig.applyServer('web-1', { image: `{ id: ${missing} }` });
    await rig.pass('web-1');
    expect(await rig.available('web-1')).to.include({ status: 'False', reason: 'ImageNotFound', message: `the spec cannot be resolved: no Glance image has the id '${missing}' (or the project cannot see it)` });
    expect(await rig.status('web-1')).to.include({ provisioningStatus: 'error', phase: 'Error' });
    await rig.applyServer('web-2', { flavor: '{ id: no-such-flavor }' });
    await rig.pass('web-2');
    expect(await rig.available('web-2')).to.include({ status: 'False', reason: 'FlavorNotFound' });
    expect(await rig.status('web-2')).to.include({ provisioningStatus: 'error', phase: 'Error' });
    expect(creates()).to.have.length(0);
  });

  it("a Nova 400 on create: Available=False/CreateRejected with Nova's own message and the status code", async () => {
    rig.sim.control.addFault({ method: 'POST', path: '/compute/v2.1/servers$', status: 400, body: { badRequest: { code: 400, message: 'Invalid key_name provided.' } }, count: 1 });
    await rig.applyServer('web-1');
    const disposition = await rig.pass('web-1');
    expect(disposition.kind).to.equal('park');
    expect(creates().map((c) => c.status)).to.deep.equal([400]);
    const available = await rig.available('web-1');
    expect(available).to.include({ status: 'False', reason: 'CreateRejected' });
    expect(available?.message).to.equal('Nova refused to create the server: Invalid key_name provided. (HTTP 400)');
    expect(await rig.status('web-1')).to.include({ provisioningStatus: 'error', phase: 'Error' });
  });

  it("a quota refusal (403): Available=False/QuotaExceeded with Nova's message", async () => {
    await rig.admin.http('compute').put(`/os-quota-sets/${rig.os.projectId}`, { quota_set: { instances: 0 } });
    await rig.applyServer('web-1');
    await rig.pass('web-1');
    expect(creates().map((c) => c.status)).to.deep.equal([403]);
    const available = await rig.available('web-1');
    expect(available).to.include({ status: 'False', reason: 'QuotaExceeded' });
    expect(available?.message).to.equal('Nova refused to create the server: Quota exceeded for instances: Requested 1, but already used 0 of 0 instances (HTTP 403)');
  });
});
