/**
 * Table tests: every reconciler-pass case and every monitor-observation case of the issue, each
 * titled with its rule and label (R…, M…, E…) as used in machines/server-rebuild.ts.
 */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { serverRebuildDefinition, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';
import type { ServerRebuildStimulus } from '../../machines/server-rebuild/stimuli.js';
import { accepted, actions, actionsUnreadable, busy, conflict, hidden, image, never, observed, reconcile, reconcileAt, rejected, STREAM, T0, T30S, T5M, unknown, unreadableRef } from './server-rebuild-facts.js';

const def = serverRebuildDefinition;
const after = (...stimuli: ServerRebuildStimulus[]): AnyMachineSnapshot => {
  let s = initialSnapshot(def, STREAM);
  for (const stimulus of stimuli) s = step(def, s, stimulus).snapshot;
  return s;
};
const decide = (from: AnyMachineSnapshot, stimulus: ServerRebuildStimulus) => {
  const r = step(def, from, stimulus);
  const c = r.snapshot.context as ServerRebuildContext;
  return { value: r.snapshot.value, outcome: r.outcome, effects: r.effects, changed: r.changed, marker: c.marker, context: c };
};

// Standing situations: server runs image A; the spec now wants B.
const noMarker = () => after();
const initiated = () => after(reconcile('B'));
const rebuilding = () => after(reconcile('B'), reconcile('B'), accepted('B'));
const succeeded = () => after(reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B') }));
const failed = () => after(reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), status: 'ERROR' }));
const parked = () => after(reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), status: 'ERROR' }), reconcile('B', { imageRef: image('B'), status: 'ERROR' }));

describe('server-rebuild: the reconciler pass, case by case', () => {
  const cases: Array<[string, () => AnyMachineSnapshot, ServerRebuildStimulus, { value: unknown; outcome: string; changed: boolean; effects?: string[] }]> = [
    ['R0 an image change on a server Nova reports with a zero launched_at defers, writing nothing', noMarker, reconcile('B', { launchedAt: never }), { value: 'noMarker', outcome: 'deferred', changed: false }],
    ['R0 a never-booted server in ERROR is also deferred, without writing health', noMarker, reconcile('B', { launchedAt: never, status: 'ERROR' }), { value: 'noMarker', outcome: 'deferred', changed: false }],
    ['R0 an Initiated marker on a never-booted server does not submit', initiated, reconcile('B', { launchedAt: never }), { value: 'Initiated', outcome: 'deferred', changed: false }],
    ['R0 launched_at is read fresh: the monitor latch does not authorise a change', () => after(observed({ launchedAt: { kind: 'launched', at: '2026-01-01T00:00:00Z' } })), reconcile('B', { launchedAt: never }), { value: 'noMarker', outcome: 'deferred', changed: false }],
    ['R3 no marker and desired ≠ ref: arm {desired, Initiated} and yield (the durable commit point)', noMarker, reconcile('B'), { value: 'Initiated', outcome: 'armed', changed: true, effects: [] }],
    ['R2 no marker and an unreadable ref: yield silently', noMarker, reconcile('B', { imageRef: unreadableRef }), { value: 'noMarker', outcome: 'refUnreadable', changed: false }],
    ['R4 no marker and ref == desired: in sync, nothing to do', noMarker, reconcile('A'), { value: 'noMarker', outcome: 'inSync', changed: false }],
    ['R4 a marker-less ERROR never becomes a rebuild', noMarker, reconcile('A', { status: 'ERROR' }), { value: 'noMarker', outcome: 'inSync', changed: false }],
    ['R11 Initiated read back, quiescent, ref ≠ target: submit the one destructive step', initiated, reconcile('B'), { value: 'Initiated', outcome: 'submitted', changed: true, effects: ['nova.rebuild'] }],
    ['R11 a SHUTOFF server is quiescent: submit', initiated, reconcile('B', { status: 'SHUTOFF' }), { value: 'Initiated', outcome: 'submitted', changed: true, effects: ['nova.rebuild'] }],
    ['R11 a generic ERROR under an unmoved-ref Initiated marker is not a park: the remediation submit owns it', initiated, reconcile('B', { status: 'ERROR' }), { value: 'Initiated', outcome: 'submitted', changed: true, effects: ['nova.rebuild'] }],
    ['R10 Initiated with a foreign task busy: yield, do not submit', initiated, reconcile('B', { taskState: busy('powering-off') }), { value: 'Initiated', outcome: 'foreignTaskBusy', changed: false }],
    ['R10 Initiated with status REBUILD (task folded in): yield, do not submit', initiated, reconcile('B', { status: 'REBUILD', taskState: { kind: 'idle' } }), { value: 'Initiated', outcome: 'foreignTaskBusy', changed: false }],
    ['R7 Initiated with a missing ref: yield silently', initiated, reconcile('B', { imageRef: unreadableRef }), { value: 'Initiated', outcome: 'refUnreadable', changed: false }],
    ['R9 ref on target with an active task and a non-terminal marker: record Rebuilding and complete', initiated, reconcile('B', { imageRef: image('B'), taskState: busy(), status: 'REBUILD' }), { value: 'Rebuilding', outcome: 'acceptanceRecorded', changed: true, effects: [] }],
    ['R9 Rebuilding with the task still active: complete, nothing to write', rebuilding, reconcile('B', { imageRef: image('B'), taskState: busy('rebuild_spawning'), status: 'REBUILD' }), { value: 'Rebuilding', outcome: 'rebuildInProgress', changed: false }],
    ['R8 converged with the marker present and the task empty: clear the marker and yield', rebuilding, reconcile('B', { imageRef: image('B') }), { value: 'noMarker', outcome: 'cleared', changed: true }],
    ['R8 converged on SHUTOFF settles like any stable status', rebuilding, reconcile('B', { imageRef: image('B'), status: 'SHUTOFF' }), { value: 'noMarker', outcome: 'cleared', changed: true }],
    ['R8 after the clear, the next pass confirms it by read-back: in sync', () => after(reconcile('B'), reconcile('B'), accepted('B'), reconcile('B', { imageRef: image('B') })), reconcile('B', { imageRef: image('B') }), { value: 'noMarker', outcome: 'inSync', changed: false }],
    ['R8 a Succeeded marker that converged is cleared', succeeded, reconcile('B', { imageRef: image('B') }), { value: 'noMarker', outcome: 'cleared', changed: true }],
    ['R12 a hidden task_state never converges: yield, never clear', rebuilding, reconcile('B', { imageRef: image('B'), taskState: hidden }), { value: 'Rebuilding', outcome: 'waiting', changed: false }],
    ['R9 a terminal marker that cannot be settled yet yields (carries liveness)', succeeded, reconcile('B', { imageRef: image('B'), taskState: busy('rebooting'), status: 'REBOOT' }), { value: 'Succeeded', outcome: 'terminalUnsettled', changed: false }],
    ['R1 a marker whose target differs from the desired image is re-armed', rebuilding, reconcile('C', { imageRef: image('B') }), { value: 'Initiated', outcome: 'rearmed', changed: true }],
    ['R1 re-arm is allowed over a parked Failed: a different image is the designed recovery', parked, reconcile('C', { imageRef: image('B'), status: 'ERROR' }), { value: 'Initiated', outcome: 'rearmed', changed: true }],
    ['R6 park phase 1: ref on target and ERROR stamps Failed and yields', rebuilding, reconcile('B', { imageRef: image('B'), status: 'ERROR' }), { value: { Failed: 'stamped' }, outcome: 'failureStamped', changed: true }],
    ['R6 the park may overwrite a Succeeded stamped moments before an ERROR arrived', succeeded, reconcile('B', { imageRef: image('B'), status: 'ERROR' }), { value: { Failed: 'stamped' }, outcome: 'failureStamped', changed: true }],
    ['R6 supersession: accepted, ref moved off target and the task quiesced → park', rebuilding, reconcile('B', { imageRef: image('C') }), { value: { Failed: 'stamped' }, outcome: 'failureStamped', changed: true }],
    ['R6 an unreadable ref with durable acceptance plus ERROR parks rather than yielding forever', rebuilding, reconcile('B', { imageRef: unreadableRef, status: 'ERROR' }), { value: { Failed: 'stamped' }, outcome: 'failureStamped', changed: true }],
    ['R6 an Initiated marker whose ref is on target in ERROR is attributable: park', initiated, reconcile('B', { imageRef: image('B'), status: 'ERROR' }), { value: { Failed: 'stamped' }, outcome: 'failureStamped', changed: true }],
    ['R5 park phase 2: only a pass that reads Failed back issues the terminal parked outcome', failed, reconcile('B', { imageRef: image('B'), status: 'ERROR' }), { value: { Failed: 'parked' }, outcome: 'parked', changed: true }],
    ['R5 a parked server stays parked: never an automatic retry', parked, reconcile('B', { imageRef: image('B'), status: 'ERROR' }), { value: { Failed: 'parked' }, outcome: 'parked', changed: false }],
    ['R5 a parked server whose ERROR cleared still stays parked (recovery is a new image or a replacement); the pass records its fresh read', parked, reconcile('B', { imageRef: image('B') }), { value: { Failed: 'parked' }, outcome: 'parked', changed: true }],
  ];
  for (const [title, from, stimulus, expected] of cases) {
    it(title, () => {
      const r = decide(from(), stimulus);
      expect(r.value).to.deep.equal(expected.value);
      expect(r.outcome).to.equal(expected.outcome);
      expect(r.changed).to.equal(expected.changed);
      if (expected.effects) expect(r.effects.map((e) => e.type)).to.deep.equal(expected.effects);
      if (!expected.effects?.length) expect(r.effects).to.deep.equal([]);
    });
  }

  it('R11 the submit carries only the server and the target image: no key_name, no user_data', () => {
    const r = decide(initiated(), reconcile('B'));
    expect(r.effects).to.deep.equal([{ type: 'nova.rebuild', serverId: 'srv-1', imageId: 'B' }]);
    expect(r.context.submissions).to.equal(1);
  });

  it('E1 on 2xx: advance to Rebuilding and write the fixed accepted stamp (phase Building, Healthy False/Provisioning)', () => {
    const submitted = after(reconcile('B'), reconcile('B'));
    const r = decide(submitted, accepted('B'));
    expect(r.value).to.equal('Rebuilding');
    expect(r.context.health).to.deep.equal({ phase: 'Building', healthy: { status: 'False', reason: 'Provisioning' }, active: { status: 'False', reason: 'Building' }, writtenBy: 'reconciler' });
    expect(r.context.lastSubmission).to.equal('accepted');
  });

  it('E1 an accept arriving after the monitor already advanced neither retreats nor overwrites newer health', () => {
    const ahead = after(reconcile('B'), reconcile('B'), observed({ imageRef: image('B') }));
    expect(ahead.value).to.equal('Succeeded');
    const r = decide(ahead, accepted('B'));
    expect(r.value).to.equal('Succeeded');
    expect(r.context.health?.writtenBy).to.equal('monitor');
  });

  it('E2 on 409: yield silently, the marker stays Initiated, and the next pass may submit again', () => {
    const r = decide(after(reconcile('B'), reconcile('B')), conflict('B'));
    expect(r.value).to.equal('Initiated');
    expect(r.outcome).to.equal('conflict');
    const again = decide(after(reconcile('B'), reconcile('B'), conflict('B')), reconcile('B'));
    expect(again.outcome).to.equal('submitted');
  });

  it('E3 a refused rebuild (400) keeps the marker Initiated and is recorded', () => {
    const r = decide(after(reconcile('B'), reconcile('B')), rejected('B'));
    expect(r.value).to.equal('Initiated');
    expect(r.context.lastSubmission).to.equal('rejected');
  });

  it('at most one accepted rebuild per standing target: after the accept no pass submits again', () => {
    let s = after(reconcile('B'), reconcile('B'), accepted('B'));
    for (const server of [{}, { status: 'ERROR' }, { imageRef: image('B'), taskState: busy() }, { taskState: hidden }]) {
      const r = step(def, s, reconcile('B', server));
      expect(r.effects, JSON.stringify(server)).to.deep.equal([]);
      s = r.snapshot;
    }
  });
});

describe('server-rebuild: the park records the fresh-read health (R5)', () => {
  const monitorFailed = () => after(reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), status: 'ERROR' }));

  it('R5 the pass that reads a monitor-stamped Failed back and parks writes Healthy from its own GET: ACTIVE → True/Healthy', () => {
    const r = decide(monitorFailed(), reconcile('B', { imageRef: image('B'), status: 'ACTIVE' }));
    expect(r.outcome).to.equal('parked');
    expect(r.context.health).to.deep.include({ phase: 'Running', healthy: { status: 'True', reason: 'Healthy' }, writtenBy: 'reconciler' });
  });

  it('R5 … and ERROR → False/Errored', () => {
    const r = decide(monitorFailed(), reconcile('B', { imageRef: image('B'), status: 'ERROR' }));
    expect(r.outcome).to.equal('parked');
    expect(r.context.health).to.deep.include({ healthy: { status: 'False', reason: 'Errored' }, writtenBy: 'reconciler' });
  });
});

describe('server-rebuild: an unknown outcome is never submitted again blindly (U1–U4)', () => {
  // B armed at T0, submitted at T0 with Nova's record showing no rebuild yet (the baseline).
  const submittedAtT0 = () => after(reconcileAt('B', T0), reconcileAt('B', T0, actions()));
  const timedOut = () => after(reconcileAt('B', T0), reconcileAt('B', T0, actions()), unknown('B'));

  it('E4 an answer that never came is recorded as an unknown outcome with its reason, not a refusal', () => {
    const r = decide(submittedAtT0(), unknown('B', 'no answer within the client timeout'));
    expect(r.outcome).to.equal('outcomeUnknown');
    expect(r.changed).to.equal(true);
    expect(r.context.outstanding).to.deep.include({ imageId: 'B', answer: 'unknown', reason: 'no answer within the client timeout', decidedAt: T0, baseline: [] });
  });

  const cases: Array<[string, () => AnyMachineSnapshot, ServerRebuildStimulus, { outcome: string; effects: string[] }]> = [
    ['U1 the next pass after a timeout reads the old image with no task and does not submit again', timedOut, reconcileAt('B', T30S, actions()), { outcome: 'awaitingEvidence', effects: [] }],
    ['U1 a crash between the submit and its answer (no result at all) is the same unknown outcome', submittedAtT0, reconcileAt('B', T30S, actions()), { outcome: 'awaitingEvidence', effects: [] }],
    ['U1 even past the window, no resubmission without reading Nova’s instance-action record', timedOut, reconcileAt('B', T5M), { outcome: 'outcomeUnresolvable', effects: [] }],
    ['U2 past the window with no rebuild recorded since the decision: submitted again, the evidence in the event', timedOut, reconcileAt('B', T5M, actions()), { outcome: 'resubmittedOnEvidence', effects: ['nova.rebuild'] }],
    ['U4 past the window but Nova recorded a rebuild since the decision: never submitted again', timedOut, reconcileAt('B', T5M, actions('req-late')), { outcome: 'outcomeUnresolvable', effects: [] }],
    ['U4 past the window with the record unreadable: no evidence, no resubmission', timedOut, reconcileAt('B', T5M, actionsUnreadable), { outcome: 'outcomeUnresolvable', effects: [] }],
    ['U1 the ref on the target is evidence of acceptance: the rebuild is recorded, nothing submitted', timedOut, reconcileAt('B', T30S, actions('req-late'), { imageRef: image('B'), status: 'REBUILD', taskState: busy() }), { outcome: 'acceptanceRecorded', effects: [] }],
  ];
  for (const [title, from, stimulus, expected] of cases) {
    it(title, () => {
      const r = decide(from(), stimulus);
      expect(r.outcome).to.equal(expected.outcome);
      expect(r.effects.map((e) => e.type)).to.deep.equal(expected.effects);
    });
  }

  it('U1 the wait is recorded once (when it started), later waiting passes store nothing', () => {
    const first = decide(timedOut(), reconcileAt('B', T30S, actions()));
    expect(first.changed).to.equal(true);
    expect(first.context.outstanding?.waitingSince).to.equal(T30S);
    const second = step(def, step(def, timedOut(), reconcileAt('B', T30S, actions())).snapshot, reconcileAt('B', T30S, actions()));
    expect(second.changed).to.equal(false);
  });

  it('U2 a submission decided on a pass without a clock (recorded before passes carried one) waits a whole window from the first wait', () => {
    const old = after(reconcile('B'), reconcile('B'), unknown('B'));
    const first = decide(old, reconcileAt('B', T0, actions()));
    expect(first.outcome).to.equal('awaitingEvidence');
    expect(first.context.outstanding?.waitingSince).to.equal(T0);
    const waiting = step(def, old, reconcileAt('B', T0, actions())).snapshot;
    expect(decide(waiting, reconcileAt('B', T30S, actions())).outcome).to.equal('awaitingEvidence');
    // past the window: no baseline was read when it was decided, so nothing can show it did not take effect
    const late = decide(waiting, reconcileAt('B', T5M, actions()));
    expect(late.outcome).to.equal('outcomeUnresolvable');
    expect(late.effects).to.deep.equal([]);
    expect(late.context.outstanding?.unresolvable).to.match(/not readable when the rebuild was decided/);
  });

  it('U3 a re-arm over an unanswered submission keeps it: the new image is not submitted until the old request can no longer land', () => {
    const rearmed = step(def, timedOut(), reconcileAt('C', T30S)).snapshot;
    expect((rearmed.context as ServerRebuildContext).marker).to.deep.equal({ targetImageID: 'C', state: 'Initiated' });
    const blocked = decide(rearmed, reconcileAt('C', T30S, actions()));
    expect(blocked.outcome).to.equal('awaitingEvidence');
    expect(blocked.effects).to.deep.equal([]);
    const settled = decide(rearmed, reconcileAt('C', T5M, actions()));
    expect(settled.outcome).to.equal('staleSubmissionSettled');
    expect(settled.context.outstanding).to.equal(null);
    expect(decide(step(def, rearmed, reconcileAt('C', T5M, actions())).snapshot, reconcileAt('C', T5M, actions())).outcome).to.equal('submitted');
  });

  it('U3 the old request visibly landed (its image on the ref): settled, and the new image proceeds once quiescent', () => {
    const rearmed = step(def, timedOut(), reconcileAt('C', T30S)).snapshot;
    const landed = decide(rearmed, reconcileAt('C', T30S, actions('req-late'), { imageRef: image('B') }));
    expect(landed.outcome).to.equal('staleSubmissionSettled');
  });

  it('U3 a revert to the running image while the answer is unknown: the marker clears, the unanswered request still stands', () => {
    const reverted = step(def, step(def, timedOut(), reconcileAt('A', T30S)).snapshot, reconcileAt('A', T30S, actions())).snapshot;
    expect(reverted.value).to.equal('noMarker');
    expect((reverted.context as ServerRebuildContext).outstanding).to.include({ imageId: 'B' });
    // the late POST lands: the server is on B, the spec wants A; arming waits for nothing, submitting waits for the settle
    const landed = step(def, reverted, reconcileAt('A', T5M, actions('req-late'), { imageRef: image('B') })).snapshot;
    expect(landed.value).to.equal('Initiated');
    expect(decide(landed, reconcileAt('A', T5M, actions('req-late'), { imageRef: image('B') })).outcome).to.equal('staleSubmissionSettled');
  });
});

describe('server-rebuild: monitor observations, case by case', () => {
  const cases: Array<[string, () => AnyMachineSnapshot, ServerRebuildStimulus, unknown]> = [
    ['M1 ref == target and ERROR → Failed', rebuilding, observed({ imageRef: image('B'), status: 'ERROR' }), { Failed: 'stamped' }],
    ['M2 ref == target and an active task → Rebuilding', initiated, observed({ imageRef: image('B'), status: 'REBUILD', taskState: busy() }), 'Rebuilding'],
    ['M3 ref == target and quiescent → Succeeded', rebuilding, observed({ imageRef: image('B') }), 'Succeeded'],
    ['M3 Initiated may jump straight to Succeeded when the accepted rebuild already settled', initiated, observed({ imageRef: image('B') }), 'Succeeded'],
    ['M4 supersession: off-target ref, accepted marker, quiesced task → Failed', rebuilding, observed({ imageRef: image('C') }), { Failed: 'stamped' }],
    ['M4 supersession: off-target ref, accepted marker, ERROR → Failed', rebuilding, observed({ imageRef: image('C'), status: 'ERROR' }), { Failed: 'stamped' }],
    ['M5 an unreadable ref: durable acceptance plus ERROR → Failed', rebuilding, observed({ imageRef: unreadableRef, status: 'ERROR' }), { Failed: 'stamped' }],
    ['M5 an unreadable ref without ERROR advances nothing', rebuilding, observed({ imageRef: unreadableRef }), 'Rebuilding'],
    ['an Initiated marker observed with ref ≠ target advances nothing', initiated, observed({ status: 'ERROR' }), 'Initiated'],
    ['an Initiated marker with an unreadable ref and ERROR advances nothing (no durable acceptance)', initiated, observed({ imageRef: unreadableRef, status: 'ERROR' }), 'Initiated'],
    ['first observation wins: a Succeeded marker never flips to Failed by observation', succeeded, observed({ imageRef: image('B'), status: 'ERROR' }), 'Succeeded'],
    ['first observation wins: a Failed marker never flips to Succeeded by observation', failed, observed({ imageRef: image('B') }), { Failed: 'stamped' }],
    ['no retreat: Rebuilding observed as only Initiated-worthy stays Rebuilding', rebuilding, observed({ imageRef: image('A'), taskState: busy('powering-on') }), 'Rebuilding'],
    ['a hidden task_state never yields Succeeded', rebuilding, observed({ imageRef: image('B'), taskState: hidden }), 'Rebuilding'],
    ['a monitor observation never creates a marker', noMarker, observed({ imageRef: image('B') }), 'noMarker'],
    ['a monitor observation never clears a parked marker', parked, observed({ imageRef: image('B') }), { Failed: 'parked' }],
  ];
  for (const [title, from, stimulus, value] of cases) {
    it(title, () => {
      expect(decide(from(), stimulus).value).to.deep.equal(value);
    });
  }

  it('records observed health; an observation that changes nothing leaves no change', () => {
    const first = decide(noMarker(), observed({ status: 'BUILD', launchedAt: never, macAddress: null }));
    expect(first.changed).to.equal(true);
    expect(first.context.health).to.include({ phase: 'Building', writtenBy: 'monitor' });
    const same = step(def, after(observed({ status: 'BUILD', launchedAt: never, macAddress: null })), observed({ status: 'BUILD', launchedAt: never, macAddress: null }));
    expect(same.changed).to.equal(false);
  });

  it('latches provisionedAt from launched_at the first time the server is seen booted (write-once)', () => {
    const s = after(observed({ launchedAt: { kind: 'launched', at: '2026-11-01T00:00:00Z' } }));
    expect((s.context as ServerRebuildContext).provisionedAt).to.equal('2026-11-01T00:00:00Z');
    const later = decide(s, observed({ launchedAt: { kind: 'launched', at: '2026-11-20T00:00:00Z' } }));
    expect(later.context.provisionedAt).to.equal('2026-11-01T00:00:00Z');
    const reset = decide(s, observed({ launchedAt: never, status: 'REBUILD', taskState: busy() }));
    expect(reset.context.provisionedAt).to.equal('2026-11-01T00:00:00Z');
  });

  it('records the MAC only once ACTIVE, and never clears it', () => {
    const building = decide(noMarker(), observed({ status: 'BUILD', macAddress: 'fa:16:3e:aa:aa:aa' }));
    expect(building.context.macAddress).to.equal(null);
    const active = decide(noMarker(), observed({ status: 'ACTIVE', macAddress: 'fa:16:3e:aa:aa:aa' }));
    expect(active.context.macAddress).to.equal('fa:16:3e:aa:aa:aa');
    const gone = decide(after(observed({ status: 'ACTIVE', macAddress: 'fa:16:3e:aa:aa:aa' })), observed({ status: 'ACTIVE', macAddress: null }));
    expect(gone.context.macAddress).to.equal('fa:16:3e:aa:aa:aa');
  });

  it('records the addresses Nova shows for an ACTIVE server (the load balancers whose members they are, issue 30), keeps them while unreadable', () => {
    const building = decide(noMarker(), observed({ status: 'BUILD', ipAddresses: ['10.0.0.3'] }));
    expect(building.context.ipAddresses).to.equal(undefined);
    const active = decide(noMarker(), observed({ status: 'ACTIVE', ipAddresses: ['10.0.0.3', '172.24.4.10'] }));
    expect(active.context.ipAddresses).to.deep.equal(['10.0.0.3', '172.24.4.10']);
    const unread = decide(after(observed({ status: 'ACTIVE', ipAddresses: ['10.0.0.3'] })), observed({ status: 'ACTIVE' }));
    expect(unread.context.ipAddresses).to.deep.equal(['10.0.0.3']);
  });
});

describe('server-rebuild: a task_state Nova hides is kept for the status, never read as at rest (R8, M3)', () => {
  // accepted, then Nova shows the rebuilt server ACTIVE on B without OS-EXT-STS:task_state
  const hiddenSeen = () => after(reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), taskState: hidden }));

  it('an observation with task_state hidden under an accepted rebuild is recorded: the context says so, the marker stays Rebuilding', () => {
    const r = decide(rebuilding(), observed({ imageRef: image('B'), taskState: hidden }));
    expect(r.value).to.equal('Rebuilding');
    expect(r.changed).to.equal(true);
    expect(r.context.taskStateUnknown).to.equal('hidden');
    expect(r.effects).to.deep.equal([]);
  });

  it('the field going hidden is recorded even when nothing else changed (the steady poll hands the engine only what changes something)', () => {
    const running = after(reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), status: 'REBUILD', taskState: busy() }));
    const r = decide(running, observed({ imageRef: image('B'), status: 'REBUILD', taskState: hidden }));
    expect(r.changed).to.equal(true);
    expect(r.context.health).to.deep.equal((running.context as ServerRebuildContext).health);
    expect(r.context.taskStateUnknown).to.equal('hidden');
  });

  it('the same hidden observation again changes nothing (the steady poll stores it once), and the pass still only waits', () => {
    expect(step(def, hiddenSeen(), observed({ imageRef: image('B'), taskState: hidden })).changed).to.equal(false);
    const pass = decide(hiddenSeen(), reconcile('B', { imageRef: image('B'), taskState: hidden }));
    expect(pass).to.deep.include({ value: 'Rebuilding', outcome: 'waiting', changed: false });
  });

  it('once the monitor sees task_state again, visible and empty, the rebuild settles as before (M3) and the context says it is visible', () => {
    const seen = decide(hiddenSeen(), observed({ imageRef: image('B') }));
    expect(seen.value).to.equal('Succeeded');
    expect(seen.outcome).to.equal('observedSucceeded');
    expect(seen.context.taskStateUnknown).to.equal(null);
    const clear = decide(step(def, hiddenSeen(), observed({ imageRef: image('B') })).snapshot, reconcile('B', { imageRef: image('B') }));
    expect(clear).to.deep.include({ value: 'noMarker', outcome: 'cleared' });
  });

  it('a pass that reads task_state visible and empty clears (R8) and forgets what was kept; a later marker starts with nothing kept', () => {
    const cleared = decide(hiddenSeen(), reconcile('B', { imageRef: image('B') }));
    expect(cleared).to.deep.include({ value: 'noMarker', outcome: 'cleared' });
    expect(cleared.context.taskStateUnknown).to.equal(null);
    const rearmed = decide(hiddenSeen(), reconcile('C', { imageRef: image('B'), taskState: hidden }));
    expect(rearmed.outcome).to.equal('rearmed');
    expect(rearmed.context.taskStateUnknown).to.equal(null);
  });

  it('present but unreadable is kept as such; a task Nova shows running is visible', () => {
    expect(decide(rebuilding(), observed({ imageRef: image('B'), taskState: { kind: 'unknown', why: 'unreadable' } })).context.taskStateUnknown).to.equal('unreadable');
    expect(decide(hiddenSeen(), observed({ imageRef: image('B'), status: 'REBUILD', taskState: busy('rebuild_spawning') })).context.taskStateUnknown).to.equal(null);
  });

  it('without a marker, or when Nova shows the field, nothing is kept: such contexts are unchanged (histories before it replay alike)', () => {
    expect(decide(noMarker(), observed({ taskState: hidden })).context).to.not.have.property('taskStateUnknown');
    expect(step(def, after(observed({ taskState: hidden })), observed({ taskState: hidden })).changed).to.equal(false);
    const visible = after(reconcile('B'), reconcile('B'), accepted('B'), observed({ imageRef: image('B'), status: 'REBUILD', taskState: busy() }), observed({ imageRef: image('B') }));
    expect(visible.context).to.not.have.property('taskStateUnknown');
  });
});

describe('server-rebuild: the unknown-outcome window outlasts any request', () => {
  it("UNKNOWN_OUTCOME_WINDOW_MS is at least four times the client's timeout (a POST is never retried by the client)", async () => {
    const { DEFAULT_TIMEOUT_MS } = await import('../../src/openstack/http.js');
    const { UNKNOWN_OUTCOME_WINDOW_MS } = await import('../../machines/server-rebuild.js');
    expect(UNKNOWN_OUTCOME_WINDOW_MS).to.be.at.least(4 * DEFAULT_TIMEOUT_MS);
  });
});
