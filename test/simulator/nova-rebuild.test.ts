import { expect } from 'chai';
import { SEED } from '../../src/simulator/index.js';
import { bootServer, getServer, harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

const MV = 'compute 2.96';

describe('simulator: Nova rebuild', () => {
  let hs: Harness;
  let id: string;
  beforeEach(async () => {
    hs = await harness();
    id = await bootServer(hs, 'demo', 'app', { key_name: 'demo-key', user_data: Buffer.from('#cloud-config\n').toString('base64') });
    hs.advance(300);
  });
  afterEach(async () => { await hs.sim.close(); });

  const rebuild = async (body: Record<string, unknown>, mv = MV) =>
    http.post(`${hs.nova}/servers/${id}/action`, { rebuild: body }, { headers: await hs.h('demo', mv) });
  const state = async () => {
    const s = (await getServer(hs, 'demo', id)).data.server;
    return { status: s.status as string, task: s['OS-EXT-STS:task_state'] as string | null, image: s.image.id as string, launched: s['OS-SRV-USG:launched_at'] as string | null, raw: s };
  };

  it('flips the image ref atomically with task_state=rebuilding: the 202 body and the first GET already show both', async () => {
    const r = await rebuild({ imageRef: SEED.images.ubuntu });
    expect(r.status).to.equal(202);
    expect(r.data.server.image.id).to.equal(SEED.images.ubuntu);
    expect(r.data.server.status).to.equal('REBUILD');
    expect(r.data.server.adminPass).to.be.a('string');
    const first = await state();
    expect(first).to.deep.include({ status: 'REBUILD', task: 'rebuilding', image: SEED.images.ubuntu });
    expect(first.raw['OS-EXT-STS:vm_state']).to.equal('active');
  });

  it('walks rebuilding → rebuild_block_device_mapping → rebuild_spawning → settled ACTIVE, refreshing launched_at', async () => {
    const before = (await state()).launched;
    hs.advance(10);
    await rebuild({ imageRef: SEED.images.ubuntu });
    const tasks: Array<string | null> = [];
    for (let i = 0; i < 4; i++) {
      const s = await state();
      tasks.push(s.task);
      expect(s.launched).to.not.equal(null);
      if (s.task !== null) expect(s.status).to.equal('REBUILD');
      hs.advance(300);
    }
    expect(tasks).to.deep.equal(['rebuilding', 'rebuild_block_device_mapping', 'rebuild_spawning', null]);
    const done = await state();
    expect(done.status).to.equal('ACTIVE');
    expect(done.launched).to.not.equal(before);
  });

  it('answers a second action while task_state is set with 409 conflictingRequest', async () => {
    await rebuild({ imageRef: SEED.images.ubuntu });
    const again = await rebuild({ imageRef: SEED.images.debian });
    expect(again.status).to.equal(409);
    expect(again.data.conflictingRequest).to.deep.equal({ code: 409, message: `Cannot 'rebuild' instance ${id} while it is in task_state rebuilding` });
    const stop = await http.post(`${hs.nova}/servers/${id}/action`, { 'os-stop': null }, { headers: await hs.h('demo') });
    expect(stop.status).to.equal(409);
    expect((await state()).image).to.equal(SEED.images.ubuntu);
  });

  it('a stopped server shows REBUILD during the rebuild, then ACTIVE with an empty task, then powering-off, and SHUTOFF again when it settles (as real Nova)', async () => {
    await http.post(`${hs.nova}/servers/${id}/action`, { 'os-stop': null }, { headers: await hs.h('demo') });
    hs.advance(300);
    expect((await state()).status).to.equal('SHUTOFF');
    await rebuild({ imageRef: SEED.images.ubuntu });
    expect((await state()).status).to.equal('REBUILD');
    hs.advance(900);
    const spawned = await state();
    expect(spawned).to.deep.include({ status: 'ACTIVE', task: null, image: SEED.images.ubuntu });
    expect(spawned.raw['OS-EXT-STS:vm_state']).to.equal('active');
    hs.advance(30);
    expect(await state()).to.deep.include({ status: 'ACTIVE', task: 'powering-off', image: SEED.images.ubuntu });
    hs.advance(300);
    const done = await state();
    expect(done).to.deep.include({ status: 'SHUTOFF', task: null, image: SEED.images.ubuntu });
    expect(done.raw['OS-EXT-STS:power_state']).to.equal(4);
  });

  it('records the request body so a test can assert key_name and user_data were NOT sent (and counts exactly one POST)', async () => {
    await rebuild({ imageRef: SEED.images.ubuntu });
    const posts = hs.sim.calls({ method: 'POST', pathIncludes: `/servers/${id}/action`, action: 'rebuild' });
    expect(posts).to.have.length(1);
    const body = (posts[0]?.body as { rebuild: Record<string, unknown> }).rebuild;
    expect(body).to.not.have.any.keys('key_name', 'user_data');
    hs.advance(900);
    const s = (await state()).raw;
    expect(s.key_name).to.equal('demo-key');
  });

  it('refuses key_name below 2.54 and user_data below 2.57 as additional properties; accepts and records them above', async () => {
    const old = await rebuild({ imageRef: SEED.images.ubuntu, key_name: null }, 'compute 2.53');
    expect(old.status).to.equal(400);
    expect(old.data.badRequest.message).to.contain("Additional properties are not allowed ('key_name' was unexpected)");
    expect((await rebuild({ imageRef: SEED.images.ubuntu, user_data: 'eA==' }, 'compute 2.56')).status).to.equal(400);
    const ok = await rebuild({ imageRef: SEED.images.ubuntu, key_name: null, user_data: null }, 'compute 2.57');
    expect(ok.status).to.equal(202);
    const sent = hs.sim.calls({ action: 'rebuild' }).filter((c) => c.status === 202);
    expect((sent[0]?.body as { rebuild: Record<string, unknown> }).rebuild).to.include.keys('key_name', 'user_data');
    expect((await state()).raw.key_name).to.equal(null);
  });

  it('rebuilds an ERROR server back to ACTIVE, and a spawn failure rule ends a rebuild in ERROR', async () => {
    hs.sim.control.forceServer(id, { status: 'ERROR' });
    await rebuild({ imageRef: SEED.images.ubuntu });
    expect((await state()).status).to.equal('REBUILD');
    hs.advance(900);
    expect((await state()).status).to.equal('ACTIVE');
    hs.sim.control.configure({ nova: { bootRules: [{ match: '^app$', outcome: 'error', phase: 'rebuild' }] } });
    await rebuild({ imageRef: SEED.images.debian });
    hs.advance(900);
    const s = await state();
    expect(s).to.deep.include({ status: 'ERROR', task: null, image: SEED.images.debian });
    expect(s.raw.fault.message).to.contain('failed');
  });

  it('with hideTaskState the field is omitted, as on a policy-restricted cloud', async () => {
    await http.post(`${hs.sim.url}/_sim/config`, { nova: { hideTaskState: true } });
    await rebuild({ imageRef: SEED.images.ubuntu });
    const s = (await state()).raw;
    expect(s).to.not.have.property('OS-EXT-STS:task_state');
    expect(s.status).to.equal('REBUILD');
  });

  it('with rebuildRefBeforeTaskState the ref shows the target while task_state is still empty (the failure-mode window)', async () => {
    await http.post(`${hs.sim.url}/_sim/config`, { nova: { rebuildRefBeforeTaskState: true }, delays: { rebuildRefLag: 500 } });
    await rebuild({ imageRef: SEED.images.ubuntu });
    const window = await state();
    expect(window).to.deep.include({ status: 'ACTIVE', task: null, image: SEED.images.ubuntu });
    hs.advance(500);
    expect(await state()).to.deep.include({ status: 'REBUILD', task: 'rebuilding' });
    hs.advance(900);
    expect(await state()).to.deep.include({ status: 'ACTIVE', task: null });
  });

  it('refuses an image change on a volume-backed server before 2.93 (Zed) and needs an existing image', async () => {
    expect((await rebuild({ imageRef: 'no-such-image' })).status).to.equal(400);
    hs.sim.control.forceServer(id, { image: '' });
    const r = await rebuild({ imageRef: SEED.images.ubuntu }, 'compute 2.92');
    expect(r.status).to.equal(400);
    expect(r.data.badRequest.message).to.equal('Unable to rebuild with a different image for a volume-backed server.');
  });
});
