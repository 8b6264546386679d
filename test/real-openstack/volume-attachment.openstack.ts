/**
 * Volume attachments (machines/volume-attachment.ts, rules A1–A8, D1–D9, P1–P4) and their provider
 * (src/provider/volume-attachments.ts) through the real Engine against the sandbox's real Nova and Cinder
 * (issue 12): the rig of test/provider/volume-attachments.test.ts with the simulator replaced by the real
 * cloud. There is no controller yet, so a test plays the Server reconciler: each pass observes the pair with
 * observeAttachment (Nova GET of the server, exact-name Cinder lookup of `volume-<uid>`, Cinder's attachment
 * rows) and dispatches one `attach` or `detach` stimulus.
 *
 * Nova and Cinder calls are counted from a session of our own whose logger keeps every `openstack request`
 * line (support/logs.ts), filtered to the `compute` and `block-storage` services. Setup and the diagnostic
 * reads a test makes beside the passes (Cinder's row statuses) go through the run's tenant session, which is
 * not counted.
 *
 * Servers: two small servers (the run's flavor and image) are booted once, concurrently, in `before`: `a`,
 * the server every rig attaches to, and `b`, the "other server" a volume is attached to out of band (A3, D2).
 * Booting both costs one boot time (2–6 s), less than contriving a conflict on one server would.
 *
 * In-flight windows, as measured on the sandbox: an attach settles in under a second (the row `reserved` →
 * `attaching` → `attached`, the volume `reserved` → `attaching` → `in-use`), a detach in well under a second
 * (`detaching` with the row still `attached`, then no row, `available`). The tests that need a pass inside a
 * window hold it with fault control and are pending without it: `initialize_connection` (Cinder, attach: the
 * row and the volume stay `reserved` for the delay), `detach_volume` (Nova compute, detach: `detaching` for the
 * delay), and `reboot` (Nova, to hold a task_state for the 409 path).
 *
 * Names: a Volume's Cinder name is `volume-<uid>`, and the uid carries the run prefix. The suite's sweep only
 * matches names that start with a prefix, so (as volume-lifecycle.openstack.ts does) this file removes each
 * test's volumes after the test and sweeps `volume-<prefix>` names of killed runs itself. A volume attached
 * to a server cannot be deleted (not even force-deleted), so the removal detaches it through Nova first.
 * The demo project's quota is 10 volumes; no test holds more than one.
 */
import { expect } from 'chai';
import type { Context } from 'mocha';
import { randomUUID } from 'node:crypto';
import type { AnyMachineSnapshot } from 'xstate';
import { Engine } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import type { OpenStackError } from '../../src/openstack/errors.js';
import { BadRequest } from '../../src/openstack/errors.js';
import { createProductRegistry } from '../../machines/index.js';
import type { Stimulus } from '../../machines/definition.js';
import { volumeCloudName } from '../../machines/volume-lifecycle.js';
import {
  ATTACHMENT_REQUEST_WINDOW_MS,
  volumeAttachmentStatus,
  volumeAttachmentStream,
  type VolumeAttachmentObservation,
  type VolumeAttachmentStatus,
  type VolumeAttachmentStimulus,
} from '../../machines/volume-attachment.js';
import { attachVolumeHandler, detachVolumeHandler, observeAttachment, readVolumeAttachmentHandler } from '../../src/provider/volume-attachments.js';
import { exactNameRegex } from './support/faults.js';
import { captureLogs, type LogCapture, type RequestLine } from './support/logs.js';
import { realRun, type RealRun } from './support/run.js';
import { alive, removeVolumeByName, sweepRunVolumes } from './support/volumes.js';
import { sleep, waitFor } from './support/wait.js';

/** Seconds the sandbox holds an in-flight window in the tests that assert passes inside it. */
const WINDOW_S = 3;
/** The pass interval of the tests' reconciler. */
const PASS_INTERVAL_MS = 250;

interface PassResult {
  snapshot: AnyMachineSnapshot;
  state: string;
  outcome: string | undefined;
  outcomes: Array<string | undefined>;
  status: VolumeAttachmentStatus | null;
  observed: VolumeAttachmentObservation;
}

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);
const valueOf = (f: { kind: string; value?: unknown }): unknown => (f.kind === 'value' ? f.value : `(${f.kind})`);

describe('volume attachments against real Nova and Cinder (issue 12)', function () {
  let run: RealRun;
  let logs: LogCapture;
  /** The tenant, through a session whose requests are counted. */
  let demo: OpenStackSession;
  /** Where every rig attaches, and the other server (A3, D2). */
  let serverA: { id: string; name: string };
  let serverB: { id: string; name: string };
  /** The names created in the current test, removed after it. */
  let created: string[] = [];

  const mark = (): number => logs.requests().length;
  const callsSince = (since: number): RequestLine[] => logs.requests().slice(since).filter((l) => l.service === 'compute' || l.service === 'block-storage');
  const attachPosts = (calls: RequestLine[]) => calls.filter((c) => c.method === 'POST' && /\/os-volume_attachments$/.test(c.path));
  const attachmentCalls = (calls: RequestLine[]) => calls.filter((c) => c.path.includes('/os-volume_attachments'));
  const attachmentReads = (calls: RequestLine[]) => calls.filter((c) => c.method === 'GET' && /\/os-volume_attachments\/[^/]+$/.test(c.path));
  const deletes = (calls: RequestLine[]) => calls.filter((c) => c.method === 'DELETE' && c.path.includes('/os-volume_attachments/'));
  const summary = (calls: RequestLine[]) => calls.map((c) => `${c.method} ${c.path.replace(/^.*?\/(servers|volumes|attachments)/, '/$1').replace(/[0-9a-f-]{36}/g, '…')} ${c.status ?? '-'}`);

  /** The volume's Cinder status and its rows' attach statuses (uncounted session): what the passes decided against. */
  const cinderView = async (volumeId: string): Promise<{ status: unknown; rows: unknown[] }> => {
    const v = await run.tenant.cinder.getVolume(volumeId);
    const rows = await run.tenant.cinder.listAttachments({ volumeId });
    return { status: valueOf(v.status), rows: rows.map((r) => valueOf(r.status)) };
  };

  /** Every volume named exactly `name` detached, then deleted (support/volumes.ts). */
  const removeByName = (name: string): Promise<void> => removeVolumeByName(run, name, { detachFirst: true });

  before(async function () {
    this.timeout(300_000);
    run = await realRun();
    logs = captureLogs();
    demo = await connect(run.target.tenantCloud, { logger: logs.logger });
    if (!run.target.keep) {
      const swept = await sweepRunVolumes(run, (prefix, pid) => prefix === run.prefix || alive(pid), { detachFirst: true });
      if (swept.length > 0) console.log(`      swept ${swept.length} volume-<prefix> volumes killed runs left: ${swept.join(', ')}`);
    }
    const t0 = Date.now();
    [serverA, serverB] = await Promise.all([run.bootServer('va-a'), run.bootServer('va-b')]);
    await Promise.all([run.waitActive(serverA.id), run.waitActive(serverB.id)]);
    console.log(`      two servers ACTIVE in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  });
  afterEach(async function () {
    this.timeout(300_000);
    const names = created;
    created = [];
    if (run.target.keep) return;
    for (const name of names) await removeByName(name);
    // the next test starts from an idle server a (the 409 path reboots it)
    await Promise.all([run.waitActive(serverA.id), run.waitActive(serverB.id)]);
  });
  after(async function () {
    this.timeout(300_000);
    if (!run || run.target.keep) return;
    const left = await sweepRunVolumes(run, (prefix) => prefix !== run.prefix, { detachFirst: true });
    if (left.length > 0) console.log(`      swept volumes of this run that escaped their test's cleanup: ${left.join(', ')}`);
  });

  const needFaults = (ctx: Context): NonNullable<RealRun['faults']> => {
    if (!run.faults) ctx.skip();
    return run.faults as NonNullable<RealRun['faults']>;
  };

  /** A Cinder volume named exactly volume-<uid>, as the volume lifecycle creates it, available. */
  const newVolume = async (suffix: string): Promise<{ uid: string; id: string; name: string }> => {
    const uid = `${run.prefix}-${suffix}`;
    const name = volumeCloudName(uid);
    created.push(name);
    run.cleanup.add(`volume ${name}`, () => removeByName(name), 'volumes');
    const v = await run.tenant.cinder.createVolume({ name, size: 1 });
    await waitFor(`volume ${name} available`, () => run.tenant.cinder.getVolume(v.id), (x) => valueOf(x.status) === 'available', { timeoutMs: 60_000, intervalMs: 200 });
    return { uid, id: v.id, name };
  };

  /** Attach out of band (another writer, not the rig) and wait until Cinder shows the volume in-use. */
  const attachOutOfBand = async (serverId: string, volumeId: string): Promise<void> => {
    await run.tenant.nova.attachVolume(serverId, volumeId);
    await waitFor('volume in-use', () => cinderView(volumeId), (v) => v.status === 'in-use' && v.rows.length === 1 && v.rows[0] === 'attached', { timeoutMs: 60_000, intervalMs: 200 });
  };

  const newEngine = (store: MemoryEventStore) =>
    new Engine({
      store,
      registry: createProductRegistry(),
      logger: run.logger,
      handlers: {
        'nova.attachVolume': attachVolumeHandler(demo.nova),
        'nova.readVolumeAttachment': readVolumeAttachmentHandler(demo.nova),
        'nova.detachVolume': detachVolumeHandler(demo.nova),
      },
    });

  interface RigOptions { server: { id: string | null; name: string }; volumeUid: string }
  /** One (server, volume) pair: its stream in a memory store, two engines on it, and a test reconciler. */
  const rig = (options: RigOptions) => {
    const store = new MemoryEventStore();
    const engines = [newEngine(store), newEngine(store)];
    const stream = volumeAttachmentStream(options.server.name, options.volumeUid);
    let passes = 0;
    const observe = () => observeAttachment(demo, { identity: 'realized', serverId: options.server.id, volumeUid: options.volumeUid });
    /** One reconciler pass: a fresh observation (unless given one), then the engine decides and runs the effects it declared. */
    const pass = async (type: 'attach' | 'detach', over: { observed?: VolumeAttachmentObservation; engine?: number; laterMs?: number } = {}): Promise<PassResult> => {
      passes += 1;
      const observed = over.observed ?? (await observe());
      const at = new Date(Date.now() + (over.laterMs ?? 0)).toISOString();
      const stimulus: VolumeAttachmentStimulus = type === 'attach'
        ? { type, source: 'reconciler', generation: 1, at, observed }
        : { type, source: 'reconciler', generation: 2, at, observed, why: 'removedFromSpec' };
      const decisions = await engines[over.engine ?? 0]!.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor: 'test/volume-attachment' });
      const last = decisions.at(-1);
      if (!last) throw new Error('dispatch decided nothing');
      const snapshot = last.snapshot;
      return {
        snapshot, observed,
        state: JSON.stringify(snapshot.value).replace(/"/g, ''),
        outcome: last.outcome, outcomes: decisions.map((d) => d.outcome), status: volumeAttachmentStatus(snapshot),
      };
    };
    /** Passes every PASS_INTERVAL_MS until `done`; every pass's result, the last one included. */
    const until = async (type: 'attach' | 'detach', what: string, done: (p: PassResult) => boolean, timeoutMs = 60_000): Promise<PassResult[]> => {
      const seen: PassResult[] = [];
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const p = await pass(type);
        seen.push(p);
        if (done(p)) return seen;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; passes: ${JSON.stringify(seen.map((s) => [s.state, s.outcomes]))}`);
        await sleep(PASS_INTERVAL_MS);
      }
    };
    const events = async () => JSON.stringify(await store.readStream(stream));
    return { store, stream, pass, until, observe, events, passes: () => passes };
  };
  type Rig = ReturnType<typeof rig>;

  /** Our row on this pass's observation, with the device Cinder knows (null until the row is attached). */
  const oursOf = (p: PassResult) => (p.observed.volume.kind === 'present' && p.observed.server.kind === 'present'
    ? p.observed.volume.attachments.find((r) => r.serverId === (p.observed.server as { id: string }).id)
    : undefined);
  /** Cinder confirms: our row with a device (the volume's `attachments` field lists a row only once it is attached). */
  const confirmed = (p: PassResult): boolean => p.state === 'attached' && typeof oursOf(p)?.device === 'string';

  /** A volume attached to server a through the machine, Cinder confirming it. */
  const attachedRig = async (suffix: string): Promise<{ r: Rig; volume: { uid: string; id: string; name: string } }> => {
    const volume = await newVolume(suffix);
    const r = rig({ server: serverA, volumeUid: volume.uid });
    await r.until('attach', 'Cinder confirms the attachment', confirmed);
    return { r, volume };
  };

  it('1. A4/A7 attach create → attached: one Nova create with the device Nova answers; passes until Cinder shows it in-use (passes and calls counted)', async () => {
    const volume = await newVolume('attach');
    const r = rig({ server: serverA, volumeUid: volume.uid });
    const since = mark();
    const seen = await r.until('attach', 'Cinder confirms the attachment', confirmed);
    const calls = callsSince(since);
    const first = seen[0] as PassResult;
    const firstCalls = callsSince(since).slice(0, 4);
    console.log(`      attach: ${r.passes()} passes, ${calls.length} calls (${attachPosts(calls).length} POST); attached after pass 1, Cinder's row attached with a device on pass ${r.passes()}: ` +
      `${calls.filter((c) => c.service === 'compute').length} Nova, ${calls.filter((c) => c.service === 'block-storage').length} Cinder; first pass: ${summary(firstCalls).join(', ')}`);
    expect(first.outcomes).to.deep.equal(['attachRequested', 'attachAccepted']);
    expect(first.state).to.equal('attached');
    expect(summary(firstCalls).map((c) => c.replace(/ \d+$/, '')), 'the first pass: the observation (server, exact-name volume, rows), then the create').to.deep.equal([
      'GET /servers/…', 'GET /volumes/detail', 'GET /attachments/detail', 'POST /servers/…/os-volume_attachments',
    ]);
    expect(attachPosts(calls), 'exactly one Nova create').to.have.length(1);
    expect(calls.filter((c) => c.method !== 'GET' && c.method !== 'POST'), 'nothing but reads and the create').to.deep.equal([]);
    for (const p of seen.slice(1)) expect(p.outcomes, 'later passes settle by observation (A2), no Nova call').to.deep.equal(['attached']);
    expect(attachmentCalls(calls.slice(4)), 'no Nova attachment call after the create').to.deep.equal([]);

    // the device: the one Nova answered, what Nova shows, what Cinder shows once attached
    const last = seen.at(-1) as PassResult;
    const nova = await run.tenant.nova.getVolumeAttachment(serverA.id, volume.id);
    const cinder = await run.tenant.cinder.getVolume(volume.id);
    const refs = cinder.attachments.kind === 'value' ? cinder.attachments.value : [];
    expect(nova.device).to.be.a('string');
    expect(first.status).to.deep.equal({ state: 'Attached', device: nova.device, reason: null, message: null });
    expect(last.status).to.deep.equal({ state: 'Attached', device: nova.device, reason: null, message: null });
    expect(refs.map((a) => ({ serverId: a.serverId, device: a.device }))).to.deep.equal([{ serverId: serverA.id, device: nova.device }]);
    expect(valueOf(cinder.status), 'Cinder shows the volume in-use').to.equal('in-use');
    const rows = await run.tenant.cinder.listAttachments({ volumeId: volume.id });
    expect(rows.map((a) => [valueOf(a.status), valueOf(a.instance), valueOf(a.attachMode)])).to.deep.equal([['attached', serverA.id, 'rw']]);
    expect(refs[0]?.attachmentId).to.equal(rows[0]?.id);
    const text = JSON.stringify(seen.map((p) => p.status));
    for (const id of [serverA.id, volume.id]) expect(text, 'no Nova or Cinder id in the status').to.not.include(id);
  });

  it('2. P1–P3 observation first: with the volume attached, more attach passes send zero POSTs (also past the request window); a second create is what real Nova refuses with 400 "already attached"', async () => {
    const { r, volume } = await attachedRig('again');
    const since = mark();
    for (let i = 0; i < 5; i++) {
      // the later ones decided past the request window, where an observation without our row would create again (A4)
      const p = await r.pass('attach', { laterMs: i < 2 ? 0 : ATTACHMENT_REQUEST_WINDOW_MS + 1_000 });
      expect(p.outcomes, `pass ${i + 1}`).to.deep.equal(['attached']);
      expect(p.status?.state).to.equal('Attached');
    }
    const calls = callsSince(since);
    expect(attachPosts(calls), 'zero POSTs').to.deep.equal([]);
    expect(attachmentCalls(calls), 'no Nova attachment call at all: Cinder\'s rows decide (A2)').to.deep.equal([]);

    // why observation first: a second create of the same attachment is refused by real Nova with a 400
    // (not a 409, so it is outside the provider's "409 → one read" path), and it changes nothing
    const refused = await rejectionOf(demo.nova.attachVolume(serverA.id, volume.id));
    expect(refused).to.be.instanceOf(BadRequest);
    expect((refused as OpenStackError).status).to.equal(400);
    expect((refused as OpenStackError).fault).to.match(/already attached/);
    console.log(`      a second create answered ${(refused as OpenStackError).status}: ${(refused as OpenStackError).fault?.replace(/[0-9a-f-]{36}/g, '…')}`);
    expect((await run.tenant.nova.listVolumeAttachments(serverA.id)).map((a) => a.volumeId), 'still one attachment').to.deep.equal([volume.id]);
    expect(await cinderView(volume.id), 'Cinder unchanged').to.deep.equal({ status: 'in-use', rows: ['attached'] });
  });

  // 3. attach while Cinder has not finished: initialize_connection held (3a) or failing (3b).
  //
  // What the sandbox shows: holding initialize_connection does not slow Nova's POST (it answers 200 with the
  // device in about 0.15 s: Nova reserves the Cinder row, then casts the attach to the compute), and the row
  // and the volume read `reserved` for the whole delay, then `attaching` for a moment, then `attached`/`in-use`.
  // So a *fresh* pass inside the window never yields: it sees the reserved row on this server, which A2 counts
  // as ours (P2: "a create Nova took shows a row on every observation after it"), and reports Attached with the
  // device Nova answered. The passes that yield are those whose observation predates the create (two
  // reconcilers racing: P1 attachPending while the create is in flight, P3 attachSettling after it), and, in
  // 3b, those that find no row after Nova rolled a failed attach back (P3 attachSettling).
  it(`3a. initialize_connection held ${WINDOW_S} s: one POST; a pass that observed before the create yields (P1/P3); passes after it see Nova's reserved row and report attached (A2) while Cinder reads reserved; then in-use`, async function () {
    const faults = needFaults(this);
    const volume = await newVolume('slow');
    const r = rig({ server: serverA, volumeUid: volume.uid });
    faults.set('cinder', { delay: { initialize_connection: WINDOW_S } });
    const since = mark();
    // two reconcilers observe before the create, then decide concurrently on one stream
    const [o1, o2] = await Promise.all([r.observe(), r.observe()]);
    const [a, b] = await Promise.all([r.pass('attach', { observed: o1, engine: 0 }), r.pass('attach', { observed: o2, engine: 1 })]);
    const [winner, loser] = a.outcomes.includes('attachRequested') ? [a, b] : [b, a];
    console.log(`      concurrent passes: ${JSON.stringify(winner.outcomes)} and ${JSON.stringify(loser.outcomes)}`);
    expect(winner.outcomes).to.deep.equal(['attachRequested', 'attachAccepted']);
    expect(['attachPending', 'attachSettling'], 'the pass that observed before the create yields').to.include(loser.outcome);
    expect(attachPosts(callsSince(since)), 'one create for two passes').to.have.length(1);

    // fresh passes while Cinder still runs initialize_connection
    const seen: Array<{ p: PassResult; cinder: { status: unknown; rows: unknown[] } }> = [];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const p = await r.pass('attach');
      const cinder = await cinderView(volume.id);
      seen.push({ p, cinder });
      if (confirmed(p)) break;
      if (Date.now() > deadline) throw new Error(`timed out; seen ${JSON.stringify(seen.map((s) => [s.p.outcomes, s.cinder]))}`);
      await sleep(PASS_INTERVAL_MS);
    }
    console.log(`      ${seen.length} passes until Cinder confirmed; Cinder read: ${[...new Set(seen.map((s) => `${String(s.cinder.status)}/${s.cinder.rows.join(',')}`))].join(' → ')}`);
    const held = seen.filter((s) => s.cinder.status === 'reserved');
    expect(held.length, `passes that saw Cinder hold the volume reserved (initialize_connection ${WINDOW_S} s)`).to.be.at.least(3);
    for (const { p, cinder } of held) {
      // the two reads are not one snapshot: when the hold ends between them, the row already reads attaching
      // (measured once in a run with a busy core) while the volume read before it still said reserved
      expect(cinder.rows, 'the row Nova reserved is visible through the attachments API').to.have.length(1);
      expect(['reserved', 'attaching'], 'the row Nova reserved is visible through the attachments API').to.include(cinder.rows[0]);
      expect(oursOf(p), 'observed as ours, without a device (Cinder\'s volume field lists attached rows only)').to.deep.equal({ serverId: serverA.id, device: null });
      // A2: a row Nova reserved is ours; the status keeps the device Nova answered, although Cinder is still connecting
      expect(p.outcomes).to.deep.equal(['attached']);
      expect(p.status).to.deep.equal({ state: 'Attached', device: winner.status?.device, reason: null, message: null });
    }
    expect(attachPosts(callsSince(since)), 'exactly one POST').to.have.length(1);
    expect(attachmentCalls(callsSince(since)).length, 'no Nova attachment call besides it').to.equal(1);
    expect(await cinderView(volume.id)).to.deep.equal({ status: 'in-use', rows: ['attached'] });
  });

  it('3b. initialize_connection failing: Nova rolls the attach back (no row, available); passes inside the window yield (P3 attachSettling); past it a new create (A4) attaches', async function () {
    const faults = needFaults(this);
    const volume = await newVolume('nocon');
    const r = rig({ server: serverA, volumeUid: volume.uid });
    faults.set('cinder', { fail: { initialize_connection: exactNameRegex(volume.name) } });
    const since = mark();
    const first = await r.pass('attach');
    expect(first.outcomes).to.deep.equal(['attachRequested', 'attachAccepted']);
    const rolledBack = await waitFor('Nova to roll the attach back', () => cinderView(volume.id), (v) => v.status === 'available' && v.rows.length === 0, { timeoutMs: 60_000, intervalMs: 200 });
    expect(rolledBack).to.deep.equal({ status: 'available', rows: [] });
    expect(await run.tenant.nova.listVolumeAttachments(serverA.id), 'Nova dropped its block device mapping').to.deep.equal([]);
    faults.reset();
    const settling = [await r.pass('attach'), await r.pass('attach')];
    for (const p of settling) {
      expect(p.outcomes, 'an accepted create with no row inside the window: the observation may predate it').to.deep.equal(['attachSettling']);
      expect(p.state).to.equal('attached');
    }
    // what the status says meanwhile: still Attached with Nova's device although nothing is attached (the
    // machine keeps `attached` through P3's window, ATTACHMENT_REQUEST_WINDOW_MS; recorded, not asserted as wanted)
    expect(settling[0]?.status).to.deep.equal({ state: 'Attached', device: first.status?.device, reason: null, message: null });
    console.log(`      after the rollback, inside the window: ${JSON.stringify(settling[0]?.status)}`);
    expect(attachPosts(callsSince(since)), 'no create inside the window').to.have.length(1);
    const later = await r.pass('attach', { laterMs: ATTACHMENT_REQUEST_WINDOW_MS + 1_000 });
    expect(later.outcomes, 'past the window, decided on this observation').to.deep.equal(['attachRequested', 'attachAccepted']);
    expect(attachPosts(callsSince(since))).to.have.length(2);
    await waitFor('volume in-use', () => cinderView(volume.id), (v) => v.status === 'in-use', { timeoutMs: 60_000, intervalMs: 200 });
    expect((await r.pass('attach', { laterMs: ATTACHMENT_REQUEST_WINDOW_MS + 2_000 })).outcomes).to.deep.equal(['attached']);
  });

  it('4. A3 attached to another server (out of band, to server b) → Conflict with no POST and no Nova attachment call', async () => {
    const volume = await newVolume('elsewhere');
    await attachOutOfBand(serverB.id, volume.id);
    const r = rig({ server: serverA, volumeUid: volume.uid });
    const since = mark();
    const p = await r.pass('attach');
    expect(p.outcomes).to.deep.equal(['attachedElsewhere']);
    expect(p.status).to.deep.equal({ state: 'Error', device: null, reason: 'Conflict', message: 'the volume is attached to another server' });
    const again = await r.pass('attach', { laterMs: ATTACHMENT_REQUEST_WINDOW_MS + 1_000 });
    expect(again.outcomes).to.deep.equal(['attachedElsewhere']);
    const calls = callsSince(since);
    expect(attachmentCalls(calls), summary(calls).join(', ')).to.deep.equal([]);
    expect(JSON.stringify([p.status, again.status])).to.not.include(serverB.id);
    expect(await r.events(), 'the observation recorded (multiattach false)').to.include('"multiattach":false');
    // what a create would have met: real Nova refuses it with 400 (the simulator words it as Nova does, §15)
    const refused = await rejectionOf(run.tenant.nova.attachVolume(serverA.id, volume.id));
    expect(refused).to.be.instanceOf(BadRequest);
    expect((refused as OpenStackError).fault).to.include(`is already attached to instances: ${serverB.id}`);
    expect((await run.tenant.nova.listVolumeAttachments(serverB.id)).map((x) => x.volumeId)).to.deep.equal([volume.id]);
  });

  it(`5. D3–D5 detach (detach_volume held ${WINDOW_S} s): the arming pass sends no DELETE, the next one Nova DELETE, then passes wait until Cinder no longer shows it; D1/D2 detach of a volume not attached here or of a missing server → detached, zero DELETEs`, async function () {
    const faults = needFaults(this);
    const { r, volume } = await attachedRig('detach');
    faults.set('nova', { delay: { detach_volume: WINDOW_S } });
    const since = mark();
    const armed = await r.pass('detach');
    expect(armed.outcomes).to.deep.equal(['detachArmed']);
    expect(armed.status).to.deep.include({ state: 'Detaching' });
    expect(deletes(callsSince(since)), 'write-ahead: no DELETE on the arming pass').to.deep.equal([]);
    const requested = await r.pass('detach');
    expect(requested.outcomes).to.deep.equal(['detachRequested', 'detachAccepted']);
    expect(requested.state).to.equal('{detaching:requested}');
    expect(deletes(callsSince(since))).to.have.length(1);

    const seen: Array<{ p: PassResult; cinder: { status: unknown; rows: unknown[] } }> = [];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const p = await r.pass('detach');
      seen.push({ p, cinder: await cinderView(volume.id) });
      if (p.state === 'detached') break;
      if (Date.now() > deadline) throw new Error(`timed out; seen ${JSON.stringify(seen.map((s) => [s.p.outcomes, s.cinder]))}`);
      await sleep(PASS_INTERVAL_MS);
    }
    console.log(`      detach: ${r.passes()} passes in all; after the DELETE, Cinder read: ${[...new Set(seen.map((s) => `${String(s.cinder.status)}/${s.cinder.rows.join(',')}`))].join(' → ')}`);
    const waiting = seen.slice(0, -1);
    expect(waiting.length, `passes inside the held window (${WINDOW_S} s)`).to.be.at.least(3);
    for (const { p } of waiting) {
      expect(p.outcomes).to.deep.equal(['detachInProgress']);
      expect(p.status).to.deep.include({ state: 'Detaching' });
    }
    // Cinder during a Nova detach: the volume reads detaching, its row attached until attachment_delete removes it,
    // and for a moment after that the volume still reads detaching with no row (§13, measured: detaching/attached →
    // detaching/ → available/). Never a row in any other status, and Regent waits on every one of those reads.
    expect(waiting.filter((s) => s.cinder.status === 'detaching').every((s) => ['attached', ''].includes(s.cinder.rows.join())), JSON.stringify(waiting.map((s) => s.cinder))).to.equal(true);
    expect(waiting.some((s) => s.cinder.status === 'detaching')).to.equal(true);
    const done = seen.at(-1) as (typeof seen)[number];
    expect(done.p.outcomes).to.deep.equal(['detached']);
    expect(done.p.status).to.equal(null);
    expect(oursOf(done.p), 'confirmed by the row\'s absence').to.equal(undefined);
    expect(deletes(callsSince(since)), 'one Nova DELETE').to.have.length(1);
    expect(await run.tenant.nova.listVolumeAttachments(serverA.id)).to.deep.equal([]);
    expect(await cinderView(volume.id)).to.deep.equal({ status: 'available', rows: [] });
    faults.reset();

    // D2: not attached to this server, attached only elsewhere, the server missing (never recorded, or gone: a
    // Nova 404), the volume missing → detached, and no Nova DELETE
    const before = mark();
    expect((await r.pass('detach')).outcomes, 'again on the same rig').to.deep.equal(['detached']);
    await attachOutOfBand(serverB.id, volume.id);
    const missing = { id: randomUUID(), name: `${run.prefix}-va-gone` };
    for (const input of [
      { server: serverA, volumeUid: volume.uid },
      { server: { id: null, name: `${run.prefix}-va-none` }, volumeUid: volume.uid },
      { server: missing, volumeUid: volume.uid },
      { server: serverA, volumeUid: `${run.prefix}-va-novolume` },
    ]) {
      const p = await rig(input).pass('detach');
      expect(p.outcomes, JSON.stringify(input)).to.deep.equal(['detached']);
      expect(p.status).to.equal(null);
    }
    const calls = callsSince(before);
    expect(deletes(calls), 'zero DELETEs').to.deep.equal([]);
    expect(calls.filter((c) => c.method !== 'GET'), 'nothing but reads').to.deep.equal([]);
    expect(calls.filter((c) => c.path.endsWith(`/servers/${missing.id}`)).map((c) => c.status), 'the missing server was a Nova 404').to.deep.equal([404]);
    expect((await run.tenant.nova.listVolumeAttachments(serverB.id)).map((x) => x.volumeId), 'the attachment elsewhere untouched').to.deep.equal([volume.id]);
  });

  it(`6. A5/A6 and D6, the 409 paths: a create while Nova holds server a in a task state (reboot held ${WINDOW_S}+ s) → exactly one Nova read (404) → Conflict, then a later pass creates; a delete in the same state → Conflict`, async function () {
    const faults = needFaults(this);
    const volume = await newVolume('busy');
    const r = rig({ server: serverA, volumeUid: volume.uid });
    const rebootHeld = async (): Promise<string> => {
      faults.set('nova', { delay: { reboot: WINDOW_S + 1 } });
      await run.tenant.nova.rebootServer(serverA.id, 'SOFT');
      const busy = await waitFor('server a in a task state', () => run.tenant.nova.getServer(serverA.id), (s) => typeof valueOf(s.taskState) === 'string' && valueOf(s.taskState) !== '(absent)', { timeoutMs: 30_000, intervalMs: 100 });
      return String(valueOf(busy.taskState));
    };

    const task = await rebootHeld();
    const since = mark();
    const p = await r.pass('attach');
    const calls = callsSince(since);
    console.log(`      task_state ${task}: ${summary(attachmentCalls(calls)).join(', ')}`);
    expect(p.outcomes).to.deep.equal(['attachRequested', 'attachConflict', 'conflictUnresolved']);
    expect(p.status).to.deep.equal({ state: 'Error', device: null, reason: 'Conflict', message: 'the attachment conflicted with another request and was not found afterwards' });
    expect(attachPosts(calls).map((c) => c.status), 'one create, answered 409').to.deep.equal([409]);
    expect(attachmentReads(calls).map((c) => c.path.endsWith(`/servers/${serverA.id}/os-volume_attachments/${volume.id}`)), 'exactly one Nova attachment read').to.deep.equal([true]);
    expect(await r.events(), 'Nova\'s fault text stays out of the events').to.not.include('task_state');
    faults.reset();
    await run.waitActive(serverA.id);
    // the next pass decides from Cinder: no row, the volume is free → a new create (A4), not a second read
    const later = await r.pass('attach');
    expect(later.outcomes).to.deep.equal(['attachRequested', 'attachAccepted']);
    expect(attachmentReads(callsSince(since)), 'still one read').to.have.length(1);
    await waitFor('volume in-use', () => cinderView(volume.id), (v) => v.status === 'in-use', { timeoutMs: 60_000, intervalMs: 200 });

    // D6: the delete answered 409 while the server is busy
    expect((await r.pass('detach')).outcomes).to.deep.equal(['detachArmed']);
    await rebootHeld();
    const refused = await r.pass('detach');
    expect(refused.outcomes).to.deep.equal(['detachRequested', 'detachConflict']);
    expect(refused.status).to.deep.equal({ state: 'Error', device: null, reason: 'Conflict', message: 'the volume cannot be detached right now (conflict)' });
    expect(deletes(callsSince(since)).map((c) => c.status)).to.deep.equal([409]);
    faults.reset();
    await run.waitActive(serverA.id);
    // from the conflict, later passes decide afresh: arm, delete, confirmed by Cinder
    const after = await r.until('detach', 'detached', (x) => x.state === 'detached');
    expect(after.flatMap((x) => x.outcomes)).to.include.members(['detachArmed', 'detachRequested', 'detachAccepted', 'detached']);
    expect(deletes(callsSince(since)).map((c) => c.status)).to.deep.equal([409, 202]);
  });
});
