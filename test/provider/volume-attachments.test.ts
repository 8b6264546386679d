/**
 * The volume-attachment provider (src/provider/volume-attachments.ts) under machines/volume-attachment.ts,
 * through the real engine and a memory store, against the simulator's Nova and Cinder over HTTP: what a
 * Server controller pass will do for one (server, volume) pair, minus the controller (issue 12). One test
 * per rule of openstack-provider.md's asymmetry, titled with the machine's rule labels (A…, D…, P…).
 */
import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { CallRecord } from '../../src/simulator/calls.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { createProductRegistry } from '../../machines/index.js';
import { volumeCloudName } from '../../machines/volume-lifecycle.js';
import { ATTACHMENT_REQUEST_WINDOW_MS, volumeAttachmentStatus, volumeAttachmentStream, type VolumeAttachmentStimulus } from '../../machines/volume-attachment.js';
import { attachVolumeHandler, detachVolumeHandler, observeAttachment, readVolumeAttachmentHandler, ConsistencyError } from '../../src/provider/volume-attachments.js';
import type { Stimulus } from '../../machines/definition.js';
import { createFixtures, settle, type Fixtures } from '../openstack/support/fixtures.js';
import { captureLogs, connectAs, fault, rejectionOf, simApi, start, type LogCapture } from '../openstack/support/sim.js';

describe('volume-attachment provider under the volume-attachment machine (simulator over HTTP)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let demo: OpenStackSession;
  let fx: Fixtures;
  let counter = 0;

  before(async () => {
    sim = await start();
    demo = await connectAs(sim, 'demo');
    fx = await createFixtures(await connectAs(sim, 'admin'), demo);
  });
  after(async () => sim.close());
  afterEach(async () => {
    await simApi(sim, 'DELETE', '/faults');
    await simApi(sim, 'POST', '/config', { cinder: { fuzzyNameFilter: false } });
  });

  const uid = () => `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;
  const newServer = async (): Promise<string> => {
    const server = await demo.nova.createServer({ name: `vm-${uid()}`, flavorRef: fx.flavorId, imageRef: fx.imageId, networks: [{ uuid: fx.networkId }] });
    return server.id;
  };
  /** A Cinder volume named exactly volume-<uid>, as the volume lifecycle creates it. */
  const newVolume = async (options: { multiattach?: boolean } = {}): Promise<{ uid: string; id: string }> => {
    const volumeUid = uid();
    const volume = await demo.cinder.createVolume({ name: volumeCloudName(volumeUid), size: 1, ...options });
    return { uid: volumeUid, id: volume.id };
  };

  const mark = () => sim.calls().at(-1)?.seq ?? 0;
  const since = (seq: number): CallRecord[] => sim.calls().filter((c) => c.seq > seq);
  const isNova = (c: CallRecord) => c.path.includes('/servers');
  const isCinder = (c: CallRecord) => c.path.includes('/volumes') || c.path.includes('/attachments');
  const attachPosts = (calls: CallRecord[]) => calls.filter((c) => c.method === 'POST' && c.path.endsWith('/os-volume_attachments'));
  const attachmentReads = (calls: CallRecord[]) => calls.filter((c) => c.method === 'GET' && c.path.includes('/os-volume_attachments'));
  const deletes = (calls: CallRecord[]) => calls.filter((c) => c.method === 'DELETE' && c.path.includes('/os-volume_attachments/'));
  const summary = (calls: CallRecord[]) => calls.map((c) => `${c.method} ${c.path.replace(/^.*?\/(servers|volumes|attachments)/, '/$1')} ${c.status}`);

  const newEngine = (store: MemoryEventStore, logs?: LogCapture) =>
    new Engine({
      store,
      registry: createProductRegistry(),
      ...(logs ? { logger: logs.logger } : {}),
      handlers: {
        'nova.attachVolume': attachVolumeHandler(demo.nova),
        'nova.readVolumeAttachment': readVolumeAttachmentHandler(demo.nova),
        'nova.detachVolume': detachVolumeHandler(demo.nova),
      },
    });

  interface RigOptions { serverId: string | null; volumeUid: string; identity?: 'realized' | 'neverRealized'; logs?: LogCapture }
  const rig = (options: RigOptions) => {
    const store = new MemoryEventStore();
    const engines = [newEngine(store, options.logs), newEngine(store, options.logs)];
    const stream = volumeAttachmentStream(`server-${options.serverId ?? 'none'}`, options.volumeUid);
    let passes = 0;
    const observe = () => observeAttachment(demo, { identity: options.identity ?? 'realized', serverId: options.serverId, volumeUid: options.volumeUid });
    /** One reconciler pass: a fresh observation, then the engine decides (and runs the effects it declared). */
    const pass = async (type: 'attach' | 'detach', observed?: Awaited<ReturnType<typeof observe>>, engine = 0, laterMs = 0) => {
      passes += 1;
      const o = observed ?? (await observe());
      const at = new Date(Date.now() + laterMs).toISOString();
      const stimulus: VolumeAttachmentStimulus = type === 'attach'
        ? { type, source: 'reconciler', generation: 1, at, observed: o }
        : { type, source: 'reconciler', generation: 2, at, observed: o, why: 'removedFromSpec' };
      const decisions = await engines[engine]!.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor: 'test/volume-attachment' });
      const snapshot = decisions.at(-1)!.snapshot;
      return { snapshot, state: JSON.stringify(snapshot.value).replace(/"/g, ''), outcome: decisions.at(-1)!.outcome, outcomes: decisions.map((d) => d.outcome), status: volumeAttachmentStatus(snapshot) };
    };
    const events = async () => JSON.stringify(await store.readStream(stream));
    return { store, stream, pass, observe, events, passes: () => passes };
  };

  /** A server and a volume, both ready (ACTIVE, available). */
  const pair = async (options: { multiattach?: boolean } = {}) => {
    const serverId = await newServer();
    const volume = await newVolume(options);
    await settle(sim);
    return { serverId, volume };
  };

  it('A4/A7 attach create → attached with the device Nova answered (counts passes and OpenStack calls)', async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    const before = mark();
    const first = await r.pass('attach');
    const firstCalls = since(before);
    expect(first.outcomes).to.deep.equal(['attachRequested', 'attachAccepted']);
    expect(first.state).to.equal('attached');
    const nova = await demo.nova.getVolumeAttachment(serverId, volume.id);
    expect(nova.device).to.be.a('string');
    expect(first.status).to.deep.equal({ state: 'Attached', device: nova.device, reason: null, message: null });
    expect(attachPosts(firstCalls)).to.have.length(1);
    expect(attachPosts(firstCalls)[0]!.body).to.deep.equal({ volumeAttachment: { volumeId: volume.id } });
    // Cinder confirms on the next pass (the row Nova reserved, attached once the simulator settles)
    await settle(sim);
    const mid = mark();
    const second = await r.pass('attach');
    const secondCalls = since(mid);
    expect(second.outcome).to.equal('attached');
    expect(second.status?.device).to.equal(nova.device);
    expect(attachPosts(secondCalls)).to.have.length(0);
    const all = [...firstCalls, ...secondCalls];
    console.log(`      attach: ${r.passes()} passes (attached after pass 1, Cinder's row confirms on pass 2); ${all.length} OpenStack calls ` +
      `(${all.filter(isNova).length} Nova, ${all.filter(isCinder).length} Cinder; ${attachPosts(all).length} POST): ${summary(all).join(', ')}`);
    expect(firstCalls.filter(isNova)).to.have.length(2); // GET server, POST attach
    expect(firstCalls.filter(isCinder)).to.have.length(2); // GET volumes/detail?name=, GET attachments/detail?volume_id=
  });

  it('A2 a Cinder attachment already on this server → attached with the observed device, no Nova attachment read or POST', async () => {
    const { serverId, volume } = await pair();
    const attached = await demo.nova.attachVolume(serverId, volume.id);
    await settle(sim);
    const r = rig({ serverId, volumeUid: volume.uid });
    const before = mark();
    const p = await r.pass('attach');
    expect(p.outcome).to.equal('attached');
    expect(p.status).to.deep.equal({ state: 'Attached', device: attached.device, reason: null, message: null });
    const calls = since(before);
    expect(calls.filter((c) => c.path.includes('/os-volume_attachments')), summary(calls).join(', ')).to.have.length(0);
  });

  it('A2 a row Nova reserved but Cinder has not connected yet counts as ours (the attachments API shows it; the volume field does not)', async () => {
    const { serverId, volume } = await pair();
    await demo.nova.attachVolume(serverId, volume.id);
    const observed = await rig({ serverId, volumeUid: volume.uid }).observe();
    expect((await demo.cinder.getVolume(volume.id)).attachments).to.deep.equal({ kind: 'value', value: [] });
    expect(observed.volume).to.deep.equal({ kind: 'present', id: volume.id, multiattach: false, attachments: [{ serverId, device: null }] });
  });

  for (const multiattach of [false, true]) {
    it(`A3 attached to another server → Conflict, no Nova call (multiattach volume: ${multiattach})`, async () => {
      const { serverId, volume } = await pair({ multiattach });
      const other = await newServer();
      await settle(sim);
      await demo.nova.attachVolume(other, volume.id);
      await settle(sim);
      const r = rig({ serverId, volumeUid: volume.uid });
      const before = mark();
      const p = await r.pass('attach');
      expect(p.outcome).to.equal('attachedElsewhere');
      expect(p.status).to.include({ state: 'Error', reason: 'Conflict' });
      expect(since(before).filter((c) => c.path.includes('/os-volume_attachments'))).to.have.length(0);
      expect(await r.events()).to.include(`"multiattach":${multiattach}`);
    });
  }

  it('A1 server missing or volume missing → NotFound, no Nova attach', async () => {
    const { serverId, volume } = await pair();
    const gone = await newServer();
    await settle(sim);
    await demo.nova.deleteServer(gone);
    await settle(sim);
    const before = mark();
    for (const [input, outcome] of [
      [{ serverId: gone, volumeUid: volume.uid }, 'serverNotFound'],
      [{ serverId: null, volumeUid: volume.uid }, 'serverNotFound'],
      [{ serverId, volumeUid: uid() }, 'volumeNotFound'],
    ] as const) {
      const p = await rig(input).pass('attach');
      expect(p.outcome, JSON.stringify(input)).to.equal(outcome);
      expect(p.status).to.include({ state: 'Error', reason: 'NotFound' });
    }
    expect(attachPosts(since(before))).to.have.length(0);
  });

  it('A1/D1 identity never realized → NotFound on attach, no-op success on detach, zero OpenStack calls', async () => {
    const before = mark();
    const attach = await rig({ serverId: null, volumeUid: uid(), identity: 'neverRealized' }).pass('attach');
    expect(attach.outcome).to.equal('identityNotRealized');
    expect(attach.status).to.include({ state: 'Error', reason: 'NotFound' });
    const detach = await rig({ serverId: 'recorded-nova-id', volumeUid: uid(), identity: 'neverRealized' }).pass('detach');
    expect(detach.outcome).to.equal('identityNeverRealized');
    expect(detach.state).to.equal('detached');
    expect(detach.status).to.equal(null);
    expect(since(before)).to.deep.equal([]);
  });

  it('A5/A6 a create answered 409 → exactly one Nova attachment read: ours present → attached', async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    const observed = await r.observe(); // no attachment yet
    const concurrent = await demo.nova.attachVolume(serverId, volume.id); // another writer's create of the same attachment lands first
    await fault(sim, { method: 'POST', path: '/os-volume_attachments$', status: 409, body: { conflictingRequest: { code: 409, message: 'Cannot attach: instance busy' } } });
    const before = mark();
    const p = await r.pass('attach', observed);
    expect(p.outcomes).to.deep.equal(['attachRequested', 'attachConflict', 'readBackAttached']);
    expect(p.status).to.deep.equal({ state: 'Attached', device: concurrent.device, reason: null, message: null });
    const calls = since(before);
    expect(attachPosts(calls)).to.have.length(1);
    expect(attachmentReads(calls).map((c) => c.path), summary(calls).join(', ')).to.deep.equal([attachmentReads(calls)[0]!.path]);
    expect(attachmentReads(calls)[0]!.path).to.match(new RegExp(`/servers/${serverId}/os-volume_attachments/${volume.id}$`));
  });

  it('A5/A6 a create answered 409 → exactly one Nova attachment read: not ours → Conflict', async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    await fault(sim, { method: 'POST', path: '/os-volume_attachments$', status: 409 });
    const before = mark();
    const p = await r.pass('attach');
    expect(p.outcomes).to.deep.equal(['attachRequested', 'attachConflict', 'conflictUnresolved']);
    expect(p.status).to.include({ state: 'Error', reason: 'Conflict' });
    const calls = since(before);
    expect(attachPosts(calls)).to.have.length(1);
    expect(attachmentReads(calls)).to.have.length(1);
    // the next pass decides from Cinder: still no row, the volume is free → a new create (A4), not a second read
    const later = await r.pass('attach');
    expect(later.outcomes).to.deep.equal(['attachRequested', 'attachAccepted']);
    expect(attachmentReads(since(before))).to.have.length(1);
  });

  it('P1 two passes attaching concurrently (two engines, one store) → exactly one Nova create; the other reaches attached on a later pass via Cinder', async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    const [o1, o2] = await Promise.all([r.observe(), r.observe()]);
    const before = mark();
    const [a, b] = await Promise.all([r.pass('attach', o1, 0), r.pass('attach', o2, 1)]);
    expect(attachPosts(since(before))).to.have.length(1);
    const [winner, loser] = a.outcomes.includes('attachRequested') ? [a, b] : [b, a];
    console.log(`      concurrent passes: ${JSON.stringify(winner.outcomes)} and ${JSON.stringify(loser.outcomes)}`);
    expect(winner.outcomes).to.deep.equal(['attachRequested', 'attachAccepted']);
    expect(loser.outcomes.some((o) => o === 'attachPending' || o === 'attachSettling'), JSON.stringify(loser.outcomes)).to.equal(true);
    await settle(sim);
    const later = await r.pass('attach', undefined, a === loser ? 0 : 1);
    expect(later.outcome).to.equal('attached');
    expect(attachPosts(since(before))).to.have.length(1);
  });

  it('P1–P3 observation first: once attached, more attach passes never send a second attach (zero POSTs)', async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    expect((await r.pass('attach')).state).to.equal('attached');
    const before = mark();
    for (let i = 0; i < 5; i++) {
      // the later ones decided past the request window, where an observation without our row would create again (A4)
      const p = await r.pass('attach', undefined, 0, i < 2 ? 0 : ATTACHMENT_REQUEST_WINDOW_MS + 1_000);
      expect(p.state, JSON.stringify(p.outcomes)).to.equal('attached');
      if (i === 1) await settle(sim);
    }
    expect(attachPosts(since(before))).to.have.length(0);
  });

  it('D3–D5 detach: armed (no Nova call), the next pass deletes, accepted, then confirmed by Cinder', async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    await r.pass('attach');
    await settle(sim);
    const before = mark();
    const armed = await r.pass('detach');
    expect(armed.outcome).to.equal('detachArmed');
    expect(armed.status?.state).to.equal('Detaching');
    expect(deletes(since(before)), 'write-ahead: no delete on the arming pass').to.have.length(0);
    const requested = await r.pass('detach');
    expect(requested.outcomes).to.deep.equal(['detachRequested', 'detachAccepted']);
    expect(deletes(since(before))).to.have.length(1);
    const waiting = await r.pass('detach'); // Cinder still shows the row (detaching)
    expect(waiting.outcome).to.equal('detachInProgress');
    await settle(sim);
    const done = await r.pass('detach');
    expect(done.outcome).to.equal('detached');
    expect(done.status).to.equal(null);
    expect(deletes(since(before))).to.have.length(1);
    expect(await demo.nova.listVolumeAttachments(serverId)).to.deep.equal([]);
  });

  it('D2 detach with the server missing, the volume missing, or the volume attached only elsewhere → detached, no Nova delete', async () => {
    const { serverId, volume } = await pair();
    const other = await newServer();
    await settle(sim);
    await demo.nova.attachVolume(other, volume.id);
    await settle(sim);
    const before = mark();
    for (const input of [{ serverId: null, volumeUid: volume.uid }, { serverId: `${serverId.slice(0, -4)}dead`, volumeUid: volume.uid }, { serverId, volumeUid: uid() }, { serverId, volumeUid: volume.uid }]) {
      const p = await rig(input).pass('detach');
      expect(p.outcome, JSON.stringify(input)).to.equal('detached');
      expect(p.status).to.equal(null);
    }
    expect(deletes(since(before))).to.have.length(0);
    expect((await demo.nova.listVolumeAttachments(other)).map((a) => a.volumeId)).to.deep.equal([volume.id]);
  });

  const armedDetach = async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    await r.pass('attach');
    await settle(sim);
    expect((await r.pass('detach')).outcome).to.equal('detachArmed');
    return { r, serverId, volume };
  };

  it('D5 a Nova delete answered 404 → detached (success)', async () => {
    const { r } = await armedDetach();
    await fault(sim, { method: 'DELETE', path: '/os-volume_attachments/', status: 404 });
    const p = await r.pass('detach');
    expect(p.outcomes).to.deep.equal(['detachRequested', 'detachNotFound']);
    expect(p.state).to.equal('detached');
  });

  it('D6 a Nova delete answered 409 → Conflict', async () => {
    const { r } = await armedDetach();
    await fault(sim, { method: 'DELETE', path: '/os-volume_attachments/', status: 409 });
    const p = await r.pass('detach');
    expect(p.outcomes).to.deep.equal(['detachRequested', 'detachConflict']);
    expect(p.status).to.include({ state: 'Error', reason: 'Conflict' });
  });

  it('D7 another refusal is preserved (status and Regent\'s reason; Nova\'s text only in the log); no answer stays requested', async () => {
    const logs = captureLogs();
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid, logs });
    await r.pass('attach');
    await settle(sim);
    await r.pass('detach');
    const before = mark();
    await fault(sim, { method: 'DELETE', path: '/os-volume_attachments/', status: 503 });
    const unanswered = await r.pass('detach');
    expect(unanswered.outcomes).to.deep.equal(['detachRequested', 'detachOutcomeUnknown']);
    expect(unanswered.state).to.equal('{detaching:requested}');
    expect(deletes(since(before))).to.have.length(1);
    const secret = 'compute-host-17.internal rejected it';
    await fault(sim, { method: 'DELETE', path: '/os-volume_attachments/', status: 400, body: { badRequest: { code: 400, message: secret } } });
    // D8: inside the request window the unanswered delete is waited on; past it, decided again on a fresh observation
    expect((await r.pass('detach')).outcome).to.equal('detachInProgress');
    expect(deletes(since(before))).to.have.length(1);
    const refused = await r.pass('detach', undefined, 0, ATTACHMENT_REQUEST_WINDOW_MS + 1_000);
    expect(refused.outcomes).to.deep.equal(['detachResubmitted', 'detachRejected']);
    expect(deletes(since(before))).to.have.length(2);
    expect(refused.status).to.deep.equal({ state: 'Error', device: null, reason: 'BadRequest', message: 'the cloud refused to detach the volume (400)' });
    expect(await r.events()).to.not.include(secret);
    expect(logs.text()).to.include(secret);
  });

  it('attach answers: 404 → NotFound, 403 → rejected (status, reason), 5xx → outcome unknown with exactly one POST (never retried)', async () => {
    const logs = captureLogs();
    for (const [status, outcome] of [[404, 'attachNotFound'], [403, 'attachRejected'], [503, 'attachOutcomeUnknown']] as const) {
      const { serverId, volume } = await pair();
      const r = rig({ serverId, volumeUid: volume.uid, logs });
      await fault(sim, { method: 'POST', path: '/os-volume_attachments$', status, body: { fault: { code: status, message: `nova-internal-${status}` } } });
      const before = mark();
      const p = await r.pass('attach');
      expect(p.outcomes).to.deep.equal(['attachRequested', outcome]);
      expect(attachPosts(since(before))).to.have.length(1);
      expect(await r.events()).to.not.include(`nova-internal-${status}`);
      if (status === 403) expect(p.status).to.deep.equal({ state: 'Error', device: null, reason: 'Forbidden', message: 'the cloud refused to attach the volume (403)' });
      if (status === 503) {
        expect(p.state).to.equal('attaching');
        expect(await r.events()).to.include('Nova answered HTTP 503');
      }
    }
    expect(logs.text()).to.include('nova-internal-403');
  });

  it('a read whose answer never came is read.failed → Conflict (P4: never read again)', async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    await fault(sim, { method: 'POST', path: '/os-volume_attachments$', status: 409 });
    await fault(sim, { method: 'GET', path: '/os-volume_attachments/', status: 503, count: 3 });
    const p = await r.pass('attach');
    expect(p.outcomes).to.deep.equal(['attachRequested', 'attachConflict', 'conflictUnresolved']);
    expect(await r.events()).to.include('Nova answered HTTP 503');
  });

  it('the volume is found by its exact name only; two exact matches fail closed with ConsistencyError', async () => {
    await simApi(sim, 'POST', '/config', { cinder: { fuzzyNameFilter: true } });
    const serverId = await newServer();
    const volumeUid = uid();
    await demo.cinder.createVolume({ name: `${volumeCloudName(volumeUid)}-other`, size: 1 });
    const r = rig({ serverId, volumeUid });
    expect((await r.observe()).volume).to.deep.equal({ kind: 'absent' });
    await demo.cinder.createVolume({ name: volumeCloudName(volumeUid), size: 1 });
    await demo.cinder.createVolume({ name: volumeCloudName(volumeUid), size: 1 });
    expect(await rejectionOf(r.observe())).to.be.instanceOf(ConsistencyError);
  });

  it('rows (stub clients): statuses that no longer hold the volume are left out, an unreadable one is kept, a reservation without an instance is elsewhere; a DELETED server is absent', async () => {
    const v = (value: unknown) => ({ kind: 'value', value }) as never;
    const row = (id: string, status: unknown, instance: string | null) => ({ id, volumeId: v('vol'), status, instance: v(instance), attachMode: v('rw'), attachedAt: v(null) });
    const volume = { id: 'vol', name: volumeCloudName('u'), multiattach: v(true), attachments: v([{ attachmentId: 'a1', serverId: 'srv', device: '/dev/vdb', hostName: null, attachedAt: null }]) };
    const rows = [row('a1', v('attached'), 'srv'), row('a2', v('detached'), 'srv'), row('a3', v('deleted'), 'x'), row('a4', v('error_attaching'), 'x'), row('a5', { kind: 'unreadable', raw: 'detaching' }, 'y'), row('a6', v('reserved'), null)];
    const os = (status: string) => ({
      nova: { getServer: async () => ({ id: 'srv', status: v(status) }) },
      cinder: { lookupVolumeByName: async () => volume, listAttachments: async () => rows },
    }) as never;
    expect(await observeAttachment(os('ACTIVE'), { identity: 'realized', serverId: 'srv', volumeUid: 'u' })).to.deep.equal({
      identity: 'realized',
      server: { kind: 'present', id: 'srv' },
      volume: { kind: 'present', id: 'vol', multiattach: true, attachments: [{ serverId: 'srv', device: '/dev/vdb' }, { serverId: 'y', device: null }, { serverId: '', device: null }] },
    });
    expect((await observeAttachment(os('DELETED'), { identity: 'realized', serverId: 'srv', volumeUid: 'u' })).server).to.deep.equal({ kind: 'absent' });
  });

  it('volumeAttachmentStatus never contains a Nova or Cinder id', async () => {
    const { serverId, volume } = await pair();
    const r = rig({ serverId, volumeUid: volume.uid });
    const statuses = [(await r.pass('attach')).status];
    await settle(sim);
    statuses.push((await r.pass('attach')).status, (await r.pass('detach')).status);
    await fault(sim, { method: 'DELETE', path: '/os-volume_attachments/', status: 409 });
    statuses.push((await r.pass('detach')).status);
    const elsewhere = await pair();
    await demo.nova.attachVolume(serverId, elsewhere.volume.id);
    statuses.push((await rig({ serverId: elsewhere.serverId, volumeUid: elsewhere.volume.uid }).pass('attach')).status);
    expect(statuses.map((s) => s?.state)).to.deep.equal(['Attached', 'Attached', 'Detaching', 'Error', 'Error']);
    const text = JSON.stringify(statuses);
    for (const id of [serverId, volume.id, elsewhere.serverId, elsewhere.volume.id]) expect(text).to.not.include(id);
    expect(await r.events(), 'the ids are in the stream (for the effects), not in the status').to.include(volume.id);
  });
});
