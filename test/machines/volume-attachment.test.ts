/**
 * The volume-attachment machine (openstack-provider.md, "Existing-volume server attachments" and
 * "Attachment behavior is deliberately asymmetric"): one table test per rule of the asymmetry, titled
 * with the rule's label in machines/volume-attachment.ts (A…, D…, P…, M…); the write-ahead engine run
 * (two concurrent passes, one Nova create); and model-based checks over every reachable edge
 * (xstate/graph) whose oracles are written from the spec's sentences, not from the machine.
 */
import { expect } from 'chai';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import {
  ATTACHMENT_REQUEST_WINDOW_MS,
  buildVolumeAttachmentMachine,
  volumeAttachmentDefinition as def,
  volumeAttachmentStatus,
  volumeAttachmentStream,
  type AttachmentRow,
  type VolumeAttachmentContext,
  type VolumeAttachmentObservation,
  type VolumeAttachmentStimulus,
} from '../../machines/volume-attachment.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';
import { checkMachine } from '../../src/audit/checks/rules.js';
import { Engine, type EffectHandler } from '../../src/engine/engine.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { MachineRegistry } from '../../machines/registry.js';
import type { Stimulus } from '../../machines/definition.js';

const STREAM = volumeAttachmentStream('server-uid-1', 'volume-uid-1');
const SERVER = 'nova-server-7c1e';
const VOLUME = 'cinder-volume-93ab';
const T0 = '2026-03-01T10:00:00Z';
const T10S = '2026-03-01T10:00:10Z';
const T5M = '2026-03-01T10:05:00Z';

type Pass = Extract<VolumeAttachmentStimulus, { type: 'attach' | 'detach' }>;
const ours = (device: string | null = '/dev/vdb'): AttachmentRow => ({ serverId: SERVER, device });
const others = (device: string | null = '/dev/vdc'): AttachmentRow => ({ serverId: 'nova-server-other', device });
const seen = (attachments: AttachmentRow[] = [], over: { multiattach?: boolean } = {}): VolumeAttachmentObservation => ({
  identity: 'realized',
  server: { kind: 'present', id: SERVER },
  volume: { kind: 'present', id: VOLUME, multiattach: over.multiattach ?? false, attachments },
});
const serverGone = (attachments: AttachmentRow[] = []): VolumeAttachmentObservation => ({ ...seen(attachments), server: { kind: 'absent' } });
const volumeGone: VolumeAttachmentObservation = { ...seen(), volume: { kind: 'absent' } };
const neverRealized: VolumeAttachmentObservation = { identity: 'neverRealized', server: { kind: 'absent' }, volume: { kind: 'absent' } };

const attach = (observed: VolumeAttachmentObservation, at = T0, extra: { device?: string } = {}): VolumeAttachmentStimulus => ({ type: 'attach', source: 'reconciler', generation: 1, at, observed, ...extra });
const detach = (observed: VolumeAttachmentObservation, at = T0, why: 'removedFromSpec' | 'serverDeleted' = 'removedFromSpec'): VolumeAttachmentStimulus => ({ type: 'detach', source: 'reconciler', generation: 2, at, observed, why });
const monitor = (observed: VolumeAttachmentObservation): VolumeAttachmentStimulus => ({ type: 'observed', source: 'monitor', at: T0, observed });
const fx = (type: string, extra: Record<string, unknown> = {}) => ({ type, source: 'effect', ...extra }) as VolumeAttachmentStimulus;

const after = (...stimuli: VolumeAttachmentStimulus[]): AnyMachineSnapshot => {
  let s = initialSnapshot(def, STREAM);
  for (const stimulus of stimuli) s = step(def, s, stimulus).snapshot;
  return s;
};
const decide = (from: AnyMachineSnapshot, stimulus: VolumeAttachmentStimulus) => {
  const r = step(def, from, stimulus);
  const context = r.snapshot.context as VolumeAttachmentContext;
  return { snapshot: r.snapshot, value: r.snapshot.value, outcome: r.outcome, effects: r.effects.map((e) => e.type), params: r.effects[0], context, status: volumeAttachmentStatus(r.snapshot) };
};

// Standing situations.
const attaching = () => after(attach(seen()));
const attachedState = () => after(attach(seen([ours()])));
const armed = () => after(attach(seen([ours()])), detach(seen([ours()])));
const requested = () => after(attach(seen([ours()])), detach(seen([ours()])), detach(seen([ours()])));

describe('volume attachment: attach (Cinder rows are the observation, Nova create the action)', () => {
  const cases: Array<[string, () => AnyMachineSnapshot, VolumeAttachmentStimulus, { value: unknown; outcome: string; effects: string[]; status: unknown }]> = [
    ['A1 attach with the server missing is NotFound, and nothing is sent to Nova', after, attach(serverGone()), { value: 'notFound', outcome: 'serverNotFound', effects: [], status: { state: 'Error', reason: 'NotFound' } }],
    ['A1 attach with the volume missing is NotFound', after, attach(volumeGone), { value: 'notFound', outcome: 'volumeNotFound', effects: [], status: { state: 'Error', reason: 'NotFound' } }],
    ['A1 attach under an identity never realized is NotFound (neither can exist)', after, attach(neverRealized), { value: 'notFound', outcome: 'identityNotRealized', effects: [], status: { state: 'Error', reason: 'NotFound' } }],
    ['A2 a Cinder attachment already on this server is success with its observed device, without a Nova read', after, attach(seen([ours('/dev/vdd')])), { value: 'attached', outcome: 'attached', effects: [], status: { state: 'Attached', device: '/dev/vdd' } }],
    ['A2 also when the volume is attached to another server too (multi-attach volume): ours is present', after, attach(seen([others(), ours()], { multiattach: true })), { value: 'attached', outcome: 'attached', effects: [], status: { state: 'Attached', device: '/dev/vdb' } }],
    ['A3 attached to another server is Conflict', after, attach(seen([others()])), { value: 'conflict', outcome: 'attachedElsewhere', effects: [], status: { state: 'Error', reason: 'Conflict' } }],
    ['A3 attached to another server is Conflict even when the volume type allows multi-attach', after, attach(seen([others()], { multiattach: true })), { value: 'conflict', outcome: 'attachedElsewhere', effects: [], status: { state: 'Error', reason: 'Conflict' } }],
    ['A4 no attachment: Nova create directly', after, attach(seen()), { value: 'attaching', outcome: 'attachRequested', effects: ['nova.attachVolume'], status: { state: 'Attaching', device: null } }],
    ['A4 an attachment that vanished from an attached pair is created again', () => after(attach(seen([ours()]))), attach(seen()), { value: 'attaching', outcome: 'attachRequested', effects: ['nova.attachVolume'], status: { state: 'Attaching' } }],
    ['A5 a create 409 is followed by exactly one Nova attachment read', attaching, fx('attach.conflict'), { value: 'readingAfterConflict', outcome: 'attachConflict', effects: ['nova.readVolumeAttachment'], status: { state: 'Attaching' } }],
    ['A6 the read after a 409 finds ours: success with its device', () => after(attach(seen()), fx('attach.conflict')), fx('read.found', { device: '/dev/vde' }), { value: 'attached', outcome: 'readBackAttached', effects: [], status: { state: 'Attached', device: '/dev/vde' } }],
    ['A6 the read after a 409 does not find ours: Conflict', () => after(attach(seen()), fx('attach.conflict')), fx('read.notFound'), { value: 'conflict', outcome: 'conflictUnresolved', effects: [], status: { state: 'Error', reason: 'Conflict' } }],
    ['A6 the read after a 409 fails: Conflict, never a second read', () => after(attach(seen()), fx('attach.conflict')), fx('read.failed', { reason: 'Nova answered HTTP 503' }), { value: 'conflict', outcome: 'conflictUnresolved', effects: [], status: { state: 'Error', reason: 'Conflict' } }],
    ['A7 an accepted create is success with the device Nova answered', attaching, fx('attach.accepted', { device: '/dev/vdb' }), { value: 'attached', outcome: 'attachAccepted', effects: [], status: { state: 'Attached', device: '/dev/vdb' } }],
    ['A8 a create 404 is NotFound', attaching, fx('attach.notFound'), { value: 'notFound', outcome: 'attachNotFound', effects: [], status: { state: 'Error', reason: 'NotFound' } }],
    ['A8 another refusal is preserved, typed', attaching, fx('attach.rejected', { status: 403, reason: 'Forbidden' }), { value: 'failed', outcome: 'attachRejected', effects: [], status: { state: 'Error', reason: 'Forbidden' } }],
  ];
  for (const [title, from, stimulus, expected] of cases) {
    it(title, () => {
      const r = decide(from(), stimulus);
      expect([r.value, r.outcome, r.effects]).to.deep.equal([expected.value, expected.outcome, expected.effects]);
      expect(r.status).to.deep.include(expected.status);
    });
  }

  it('A4 the create names the observed Nova server and Cinder volume and carries the spec\'s device hint', () => {
    expect(decide(after(), attach(seen(), T0, { device: '/dev/vdz' })).params).to.deep.equal({ type: 'nova.attachVolume', serverId: SERVER, volumeId: VOLUME, device: '/dev/vdz' });
    expect(decide(after(), attach(seen())).params).to.deep.include({ device: null });
  });

  it('A5 the read after a 409 asks Nova about this server and this volume', () => {
    expect(decide(attaching(), fx('attach.conflict')).params).to.deep.equal({ type: 'nova.readVolumeAttachment', serverId: SERVER, volumeId: VOLUME });
  });

  it('A2 a pass after success keeps the device Nova answered while Cinder does not know it yet (a reserved row)', () => {
    const s = after(attach(seen()), fx('attach.accepted', { device: '/dev/vdb' }));
    expect(decide(s, attach(seen([ours(null)]))).status).to.deep.include({ state: 'Attached', device: '/dev/vdb' });
  });

  it('A1–A3 are retried by a later pass: a Conflict that cleared attaches', () => {
    const conflicted = after(attach(seen([others()])));
    expect(decide(conflicted, attach(seen())).effects).to.deep.equal(['nova.attachVolume']);
    const missing = after(attach(serverGone()));
    expect(decide(missing, attach(seen([ours()]))).value).to.equal('attached');
  });
});

describe('volume attachment: detach (Nova delete only for an attachment to this server)', () => {
  const cases: Array<[string, () => AnyMachineSnapshot, VolumeAttachmentStimulus, { value: unknown; outcome: string; effects: string[] }]> = [
    ['D1 an identity never realized: no-op success', after, detach(neverRealized), { value: 'detached', outcome: 'identityNeverRealized', effects: [] }],
    ['D1 also for an attached pair whose identity is gone', attachedState, detach(neverRealized), { value: 'detached', outcome: 'identityNeverRealized', effects: [] }],
    ['D2 a missing server is success: detached already holds', attachedState, detach(serverGone([ours()])), { value: 'detached', outcome: 'detached', effects: [] }],
    ['D2 a missing volume is success', attachedState, detach(volumeGone), { value: 'detached', outcome: 'detached', effects: [] }],
    ['D2 no attachment to this server is success', attachedState, detach(seen()), { value: 'detached', outcome: 'detached', effects: [] }],
    ['D2 a volume attached only to another server is success, and that attachment is left alone', attachedState, detach(seen([others()])), { value: 'detached', outcome: 'detached', effects: [] }],
    ['D3 attached to this server: the detach is armed first and nothing is sent to Nova in that pass', attachedState, detach(seen([ours()])), { value: { detaching: 'armed' }, outcome: 'detachArmed', effects: [] }],
    ['D3 the server being deleted detaches the same way (armed first)', attachedState, detach(seen([ours()]), T0, 'serverDeleted'), { value: { detaching: 'armed' }, outcome: 'detachArmed', effects: [] }],
    ['D4 the arm read back, Cinder still shows it on this server: Nova delete', armed, detach(seen([ours()])), { value: { detaching: 'requested' }, outcome: 'detachRequested', effects: ['nova.detachVolume'] }],
    ['D2 the arm read back, Cinder no longer shows it on this server: success without a delete', armed, detach(seen([others()])), { value: 'detached', outcome: 'detached', effects: [] }],
    ['D5 a Nova delete 404 is success', requested, fx('detach.notFound'), { value: 'detached', outcome: 'detachNotFound', effects: [] }],
    ['D5 an accepted delete waits for Cinder to stop showing it', requested, fx('detach.accepted'), { value: { detaching: 'requested' }, outcome: 'detachAccepted', effects: [] }],
    ['D5 then a pass with no attachment to this server is success', () => after(attach(seen([ours()])), detach(seen([ours()])), detach(seen([ours()])), fx('detach.accepted')), detach(seen(), T10S), { value: 'detached', outcome: 'detached', effects: [] }],
    ['D6 a Nova delete 409 is Conflict', requested, fx('detach.conflict'), { value: 'conflict', outcome: 'detachConflict', effects: [] }],
    ['D7 another failure is preserved, typed', requested, fx('detach.rejected', { status: 400, reason: 'BadRequest' }), { value: 'failed', outcome: 'detachRejected', effects: [] }],
    ['D7 a delete whose answer never came stays requested: nothing is sent on the unknown answer', requested, fx('detach.outcomeUnknown', { reason: 'no answer within the client timeout' }), { value: { detaching: 'requested' }, outcome: 'detachOutcomeUnknown', effects: [] }],
    ['D8 within the window a delete still shown is waited for, not sent again', requested, detach(seen([ours()]), T10S), { value: { detaching: 'requested' }, outcome: 'detachInProgress', effects: [] }],
    ['D8 past the window, on a fresh observation still showing it on this server, the delete is sent again', requested, detach(seen([ours()]), T5M), { value: { detaching: 'requested' }, outcome: 'detachResubmitted', effects: ['nova.detachVolume'] }],
    ['D9 the volume wanted again while armed: still attached, so attached, nothing sent', armed, attach(seen([ours()])), { value: 'attached', outcome: 'attached', effects: [] }],
    ['D9 the volume wanted again while the delete may be in flight: wait', requested, attach(seen([ours()]), T10S), { value: { detaching: 'requested' }, outcome: 'detachInProgress', effects: [] }],
    ['D9 the volume wanted again once the delete took effect: Nova create', requested, attach(seen(), T10S), { value: 'attaching', outcome: 'attachRequested', effects: ['nova.attachVolume'] }],
  ];
  for (const [title, from, stimulus, expected] of cases) {
    it(title, () => {
      const r = decide(from(), stimulus);
      expect([r.value, r.outcome, r.effects]).to.deep.equal([expected.value, expected.outcome, expected.effects]);
    });
  }

  it('D4 the delete names the server and volume observed on the deciding pass', () => {
    expect(decide(armed(), detach(seen([ours()]))).params).to.deep.equal({ type: 'nova.detachVolume', serverId: SERVER, volumeId: VOLUME });
  });

  it('D6/D7 a Conflict or failed detach is retried by a later pass, write-ahead again (arm, then delete)', () => {
    for (const answer of [fx('detach.conflict'), fx('detach.rejected', { status: 500, reason: 'ServerError' })]) {
      const s = step(def, requested(), answer).snapshot;
      const rearm = decide(s, detach(seen([ours()])));
      expect([rearm.value, rearm.effects]).to.deep.equal([{ detaching: 'armed' }, []]);
      expect(decide(rearm.snapshot, detach(seen([ours()]))).effects).to.deep.equal(['nova.detachVolume']);
    }
  });

  it('the status renders Detaching with the device while the detach stands, and no row once detached', () => {
    expect(decide(attachedState(), detach(seen([ours('/dev/vdb')]))).status).to.deep.equal({ state: 'Detaching', device: '/dev/vdb', reason: null, message: null });
    expect(decide(requested(), fx('detach.notFound')).status).to.equal(null);
  });
});

describe('volume attachment: write-ahead, and nothing resent blindly (P1–P4)', () => {
  it('P1 a pending create is not decided again: a second pass with the same observation waits', () => {
    const r = decide(attaching(), attach(seen()));
    expect([r.value, r.outcome, r.effects]).to.deep.equal(['attaching', 'attachPending', []]);
  });

  it('P1 two passes attaching concurrently: exactly one Nova create; the other reads back success', () => {
    const passA = attach(seen(), T0);
    const passB = attach(seen(), T0); // observed before A's create landed
    const decisions = [passA, passB, fx('attach.accepted', { device: '/dev/vdb' }), attach(seen([ours()]), T10S)];
    let s = after();
    const creates: string[] = [];
    const outcomes: string[] = [];
    for (const d of decisions) {
      const r = decide(s, d);
      creates.push(...r.effects);
      outcomes.push(r.outcome ?? '');
      s = r.snapshot;
    }
    expect(creates).to.deep.equal(['nova.attachVolume']);
    expect(outcomes).to.deep.equal(['attachRequested', 'attachPending', 'attachAccepted', 'attached']);
  });

  it('P2 a create whose answer never came is settled by the next Cinder observation: ours → success', () => {
    const unknown = after(attach(seen()), fx('attach.outcomeUnknown', { reason: 'no answer within the client timeout' }));
    expect(unknown.value).to.equal('attaching');
    expect(decide(unknown, attach(seen([ours()]), T10S))).to.deep.include({ value: 'attached', outcome: 'attached', effects: [] });
    expect(decide(unknown, attach(seen([others()]), T10S))).to.deep.include({ value: 'conflict', effects: [] });
  });

  it('P2 an unanswered create with no attachment: waits within the window, settles as not landed past it, and only a later pass creates', () => {
    const crashed = attaching(); // decided, no answer recorded (a crash between the append and the result)
    expect(decide(crashed, attach(seen(), T10S))).to.deep.include({ value: 'attaching', outcome: 'attachPending', effects: [] });
    const settled = decide(crashed, attach(seen(), T5M));
    expect(settled).to.deep.include({ value: 'detached', outcome: 'attachNotLanded', effects: [] });
    expect(decide(settled.snapshot, attach(seen(), T5M)).effects).to.deep.equal(['nova.attachVolume']);
  });

  it('P2 a detach pass while a create may still land waits rather than calling it detached', () => {
    expect(decide(attaching(), detach(seen(), T10S))).to.deep.include({ value: 'attaching', outcome: 'attachPending', effects: [] });
    expect(decide(attaching(), detach(seen([ours()]), T10S))).to.deep.include({ value: { detaching: 'armed' }, effects: [] });
    expect(decide(attaching(), detach(seen(), T5M))).to.deep.include({ value: 'detached', effects: [] });
  });

  it('P3 an observation without our row just after an accepted create predates it: no second create', () => {
    const accepted = after(attach(seen()), fx('attach.accepted', { device: '/dev/vdb' }));
    expect(decide(accepted, attach(seen(), T10S))).to.deep.include({ value: 'attached', outcome: 'attachSettling', effects: [] });
    expect(decide(accepted, attach(seen(), T5M)).effects).to.deep.equal(['nova.attachVolume']);
  });

  it('P4 a read whose answer never came is never repeated: the next pass settles by Cinder', () => {
    const reading = after(attach(seen()), fx('attach.conflict'));
    expect(decide(reading, attach(seen(), T10S))).to.deep.include({ value: 'conflict', outcome: 'conflictUnresolved', effects: [] });
    expect(decide(reading, attach(seen([ours()]), T10S))).to.deep.include({ value: 'attached', effects: [] });
  });

  it('Cinder\'s 400 "already attached" is never provoked: no create decided from any state while any attachment is shown', () => {
    const situations = [after, attaching, attachedState, armed, requested, () => after(attach(seen([others()]))), () => after(attach(serverGone())), () => after(attach(seen()), fx('attach.rejected', { status: 400, reason: 'BadRequest' }))];
    for (const from of situations)
      for (const rows of [[ours()], [ours(null)], [others()], [ours(), others()]])
        for (const at of [T0, T10S, T5M]) expect(decide(from(), attach(seen(rows, { multiattach: true }), at)).effects, JSON.stringify(rows)).to.not.include('nova.attachVolume');
  });

  it('the codec pins each stimulus to its source: a monitor cannot send a pass, a pass needs its clock', () => {
    expect(def.stimulus.is(attach(seen()))).to.equal(true);
    expect(def.stimulus.is({ ...attach(seen()), source: 'monitor' })).to.equal(false);
    expect(def.stimulus.is({ ...detach(seen()), source: 'effect' })).to.equal(false);
    expect(def.stimulus.is({ ...fx('attach.accepted', { device: null }), source: 'reconciler' })).to.equal(false);
    const { at: _at, ...clockless } = attach(seen()) as Pass;
    expect(def.stimulus.is(clockless)).to.equal(false);
  });

  it('M1 a monitor observation only refreshes the device of an attached pair; it decides nothing anywhere', () => {
    expect(decide(attachedState(), monitor(seen([ours('/dev/vdq')])))).to.deep.include({ value: 'attached', outcome: 'deviceObserved', effects: [] });
    for (const from of [after, attaching, armed, requested]) {
      const before = from();
      const r = step(def, before, monitor(seen()));
      expect([r.snapshot.value, r.effects, r.changed]).to.deep.equal([before.value, [], false]);
    }
  });

  it('the engine runs each effect only after the deciding event is appended, and two concurrent passes make one Nova create', async () => {
    const store = new MemoryEventStore();
    let creates = 0;
    let release: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => (release = resolve));
    const attachVolume: EffectHandler = async (effect, context) => {
      creates++;
      const stored = await store.readStream(context.stream);
      expect(stored.at(-1)?.id, 'the deciding event is stored before the effect runs').to.equal(context.decidedBy.id);
      expect(effect).to.deep.include({ serverId: SERVER, volumeId: VOLUME });
      await inFlight; // the second pass is decided while this create is in flight
      return { type: 'attach.accepted', device: '/dev/vdb' };
    };
    const engine = new Engine({ store, registry: new MachineRegistry([def]), handlers: { 'nova.attachVolume': attachVolume } });
    const envelope = { stimulus: attach(seen()) as Stimulus, actor: 'reconciler/server' };
    const first = engine.dispatch(STREAM, envelope);
    await new Promise((resolve) => setImmediate(resolve));
    const second = await engine.dispatch(STREAM, envelope);
    release();
    const firstDecisions = await first;
    expect(creates).to.equal(1);
    expect(second.map((d) => d.outcome)).to.deep.equal(['attachPending']);
    expect(firstDecisions.map((d) => d.outcome)).to.deep.equal(['attachRequested', 'attachAccepted']);
    const readBack = await engine.dispatch(STREAM, { stimulus: attach(seen([ours()]), T10S) as Stimulus, actor: 'reconciler/server' });
    expect(readBack.map((d) => [d.outcome, d.effects.length])).to.deep.equal([['attached', 0]]);
    expect(creates).to.equal(1);
  });
});

describe('volume attachment: model-based, every reachable edge', function () {
  this.timeout(60_000);
  type Action = { type: string; params?: Record<string, unknown> };
  type Edge = { state: AnyMachineSnapshot; event: VolumeAttachmentStimulus; nextState: AnyMachineSnapshot; actions: Action[] };
  const machine = buildVolumeAttachmentMachine();
  const alphabet = def.audit?.alphabet() as VolumeAttachmentStimulus[];
  const key = (s: AnyMachineSnapshot) => def.audit?.stateKey?.(s) ?? '';
  const run = (s: AnyMachineSnapshot, e: VolumeAttachmentStimulus) => transition(machine, s as never, e as never) as unknown as [AnyMachineSnapshot, Action[]];
  let edges: Edge[];
  before(() => {
    const map = getAdjacencyMap(machine, { events: alphabet as never, serializeState: (s) => key(s as AnyMachineSnapshot), serializeEvent: (e) => JSON.stringify(e) });
    edges = (adjacencyMapToArray(map) as unknown as Edge[]).map((e) => ({ ...e, actions: run(e.state, e.event)[1] }));
  });

  // Oracles, from the spec's words.
  const rows = (o: VolumeAttachmentObservation) => (o.volume.kind === 'present' ? o.volume.attachments : []);
  const cinderShowsAnyAttachment = (o: VolumeAttachmentObservation) => rows(o).length > 0;
  const cinderShowsOursOn = (o: VolumeAttachmentObservation) => o.server.kind === 'present' && rows(o).some((r) => r.serverId === (o.server as { id: string }).id);
  const calls = (e: Edge, type: string) => e.actions.filter((a) => a.type === type);
  const ctx = (s: AnyMachineSnapshot) => s.context as VolumeAttachmentContext;

  it('explores every state, and every kind of Nova call', () => {
    const values = new Set(edges.map((e) => JSON.stringify(e.nextState.value)));
    for (const v of ['"detached"', '"attaching"', '"readingAfterConflict"', '"attached"', '"conflict"', '"notFound"', '"failed"', '{"detaching":"armed"}', '{"detaching":"requested"}']) expect(values, v).to.include(v);
    for (const type of def.effects) expect(edges.some((e) => calls(e, type).length > 0), type).to.equal(true);
    expect(edges.length).to.be.greaterThan(3_000);
  });

  it('never a Nova create while Cinder shows an attachment (on this server or any other); only a reconciler attach pass with both present creates', () => {
    let creates = 0;
    for (const e of edges) {
      if (calls(e, 'nova.attachVolume').length === 0) continue;
      creates++;
      const what = `${JSON.stringify(e.state.value)} + ${JSON.stringify(e.event)}`;
      expect(e.event.type, what).to.equal('attach');
      const o = (e.event as Pass).observed;
      expect(cinderShowsAnyAttachment(o), what).to.equal(false);
      expect([o.identity, o.server.kind, o.volume.kind], what).to.deep.equal(['realized', 'present', 'present']);
    }
    expect(creates).to.be.greaterThan(0);
  });

  it('a pending create is not decided again: no create from `attaching`, nor within the window of an accepted one', () => {
    for (const e of edges) {
      if (calls(e, 'nova.attachVolume').length === 0) continue;
      const what = `${JSON.stringify(e.state.value)} ${JSON.stringify(ctx(e.state).request)} + ${JSON.stringify(e.event)}`;
      expect(e.state.value, what).to.not.equal('attaching');
      const r = ctx(e.state).request;
      if (r?.call === 'attach') expect(Date.parse((e.event as Pass).at) - Date.parse(r.decidedAt), what).to.be.at.least(ATTACHMENT_REQUEST_WINDOW_MS);
    }
  });

  it('never a Nova delete unless Cinder showed an attachment to this server, on the deciding reconciler pass, under an arm recorded earlier', () => {
    let deletes = 0;
    for (const e of edges) {
      if (calls(e, 'nova.detachVolume').length === 0) continue;
      deletes++;
      const what = `${JSON.stringify(e.state.value)} + ${JSON.stringify(e.event)}`;
      expect([e.event.type, e.event.source], what).to.deep.equal(['detach', 'reconciler']);
      expect(cinderShowsOursOn((e.event as Pass).observed), what).to.equal(true);
      expect(e.state.value, what).to.have.property('detaching');
    }
    expect(deletes).to.be.greaterThan(0);
    // the arm itself is entered only from a pass that showed the attachment on this server
    for (const e of edges) {
      const entersArm = JSON.stringify(e.nextState.value) === '{"detaching":"armed"}' && JSON.stringify(e.state.value) !== '{"detaching":"armed"}';
      if (entersArm) expect(e.event.type === 'detach' && cinderShowsOursOn(e.event.observed), JSON.stringify(e.event)).to.equal(true);
    }
  });

  it('the one read is declared only on a create 409, and never from the read\'s own state', () => {
    for (const e of edges) {
      if (calls(e, 'nova.readVolumeAttachment').length === 0) continue;
      expect([e.state.value, e.event.type]).to.deep.equal(['attaching', 'attach.conflict']);
    }
    for (const e of edges) if (e.state.value === 'readingAfterConflict') expect(e.actions.map((a) => a.type)).to.not.include('nova.readVolumeAttachment');
  });

  it('after a 409 at most one read, on every path (reads counted since the last create)', () => {
    // BFS over (state, reads since the last create): the path property as a property of the product graph
    const [initial] = initialTransition(machine, {}) as unknown as [AnyMachineSnapshot];
    const seenKeys = new Set<string>();
    const queue: Array<[AnyMachineSnapshot, number]> = [[initial, 0]];
    let maxReads = 0;
    let readsSeen = 0;
    while (queue.length > 0) {
      const [s, reads] = queue.shift() as [AnyMachineSnapshot, number];
      for (const e of alphabet) {
        const [next, actions] = run(s, e);
        const created = actions.some((a) => a.type === 'nova.attachVolume');
        const read = actions.some((a) => a.type === 'nova.readVolumeAttachment');
        const count = created ? 0 : reads + (read ? 1 : 0);
        if (read) readsSeen++;
        maxReads = Math.max(maxReads, count);
        const k = `${key(next)}|${count}`;
        if (count > 1 || seenKeys.has(k)) continue;
        seenKeys.add(k);
        queue.push([next, count]);
      }
    }
    expect(readsSeen).to.be.greaterThan(0);
    expect(maxReads).to.equal(1);
  });

  it('only reconciler passes declare creates and deletes; the monitor declares nothing and moves no state', () => {
    for (const e of edges) {
      const types = e.actions.map((a) => a.type);
      if (types.includes('nova.attachVolume') || types.includes('nova.detachVolume')) expect(e.event.source).to.equal('reconciler');
      if (e.event.source === 'monitor') {
        expect(types.filter((t) => def.effects.includes(t))).to.deep.equal([]);
        expect(e.nextState.value).to.deep.equal(e.state.value);
        expect(ctx(e.nextState).request).to.deep.equal(ctx(e.state).request);
      }
    }
  });

  it('A1/A3/D2 on every edge: a missing server or volume never attaches; another server\'s attachment never becomes ours; a detach pass without ours is detached', () => {
    for (const e of edges) {
      if (e.event.type === 'attach' && JSON.stringify(e.nextState.value) === '"attached"' && e.state.value !== 'attached') expect(cinderShowsOursOn(e.event.observed), JSON.stringify(e.event)).to.equal(true);
      if (e.event.type === 'attach' && (e.event.observed.server.kind === 'absent' || e.event.observed.volume.kind === 'absent')) expect(e.nextState.value).to.equal('notFound');
      if (e.event.type === 'detach' && !cinderShowsOursOn(e.event.observed) && e.state.value !== 'attaching') expect(e.nextState.value, JSON.stringify(e.state.value)).to.equal('detached');
    }
  });

  it('only the guest device crosses the boundary: no rendered status, in any reachable state, carries a Nova or Cinder id', () => {
    const machineWithIds = buildVolumeAttachmentMachine();
    // the alphabet uses 'srv'/'vol'; replay one path with real-looking ids too
    let s = initialTransition(machineWithIds, {})[0] as AnyMachineSnapshot;
    for (const e of [attach(seen()), fx('attach.conflict'), fx('read.found', { device: '/dev/vdb' }), detach(seen([ours()])), detach(seen([ours()])), fx('detach.rejected', { status: 400, reason: 'BadRequest' })]) {
      s = transition(machineWithIds, s as never, e as never)[0] as AnyMachineSnapshot;
      expect(JSON.stringify(volumeAttachmentStatus(s))).to.not.match(new RegExp(`${SERVER}|${VOLUME}`));
    }
    for (const e of edges) {
      const status = volumeAttachmentStatus(e.nextState);
      expect(JSON.stringify(status)).to.not.match(/\bsrv\b|\bvol\b|"other"/);
      if (status) expect(Object.keys(status).sort()).to.deep.equal(['device', 'message', 'reason', 'state']);
    }
  });

  it('regent check: volumeAttachment passes every check, none skipped, and the Nova detach is the destructive effect it covers', () => {
    const report = checkMachine(def);
    expect(report.results.map((r) => [r.id, r.status])).to.deep.equal([
      ['destructive-needs-arm', 'pass'],
      ['destructive-by-reconciler', 'pass'],
      ['monitor-never-authorises', 'pass'],
      ['every-state-reachable', 'pass'],
      ['no-rank-retreat', 'pass'],
    ]);
    expect(def.destructiveEffects).to.deep.equal(['nova.detachVolume']);
    expect(report.results[0]?.detail).to.match(/^[1-9]\d* destructive transition/);
    expect(report.truncated).to.equal(false);
  });
});
