/**
 * The Volume's Cinder lifecycle (openstack-provider.md, "Cinder Volume create/delete is a project-scoped
 * lifecycle slice"): table tests per rule (V1–V12, labels as in machines/volume-lifecycle.ts; M1–M3 in
 * machines/volume-metadata.ts), model-based checks over every reachable edge (xstate/graph) with oracles
 * written from the spec's sentences, and `regent check`'s static checks.
 */
import { expect } from 'chai';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { transition, type AnyMachineSnapshot } from 'xstate';
import {
  buildVolumeMachine,
  MAX_CREATE_ATTEMPTS,
  VOLUME_ERRORED_MESSAGE,
  volumeLifecycleDefinition as def,
  volumeLifecycleStream,
  type VolumeContext,
  type VolumeDesired,
  type VolumeLookup,
  type VolumeStimulus,
} from '../../machines/volume-lifecycle.js';
import { volumeAvailable } from '../../projections/volume-status.js';
import { LINKAGE_KEYS, METADATA_NAMESPACE, tagMetadataKey, volumeMetadata, type VolumeLinkage } from '../../machines/volume-metadata.js';
import { OWNER_KEY } from '../../src/provider/servers.js';
import { checkMachine } from '../../src/audit/checks/rules.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const UID = 'uid-1';
const STREAM = volumeLifecycleStream(UID);
const T0 = '2026-03-01T10:00:00Z';
const T_SOON = '2026-03-01T10:00:30Z'; // within the V6 window (120 s), past L8's first backoff (15 s)
const T_LATER = '2026-03-01T10:05:00Z'; // past the window
const LINKAGE: VolumeLinkage = { identityID: 'ident-7', organizationID: 'org-7', projectID: 'proj-7', regionID: 'region-7', networkID: 'net-7' };

type Reconcile = Extract<VolumeStimulus, { type: 'reconcile' }>;
const desired = (over: Partial<VolumeDesired> = {}): VolumeDesired => ({ size: 10, volumeClassID: 'gold', linkage: LINKAGE, tags: { team: 'storage' }, ...over });
const absent: VolumeLookup = { kind: 'absent' };
const present = (status = 'available', over: Partial<Extract<VolumeLookup, { kind: 'present' }>> = {}): VolumeLookup => ({ kind: 'present', id: 'cinder-1', status, size: 10, attachments: [], ...over });
const duplicate: VolumeLookup = { kind: 'duplicate', ids: ['cinder-1', 'cinder-2'] };
const reconcile = (observed: VolumeLookup | undefined, extra: Partial<Reconcile> = {}): VolumeStimulus => ({
  type: 'reconcile',
  source: 'reconciler',
  generation: 1,
  deletionRequested: false,
  at: T0,
  identity: { kind: 'realized', projectId: 'os-project-7' },
  desired: desired(),
  exportedClasses: ['gold', 'silver'],
  ...(observed ? { observed } : {}),
  ...extra,
});
const deleting = (observed: VolumeLookup | undefined, extra: Partial<Reconcile> = {}) => reconcile(observed, { deletionRequested: true, ...extra });
const unrealized = { identity: { kind: 'unrealized' } } as const;

const after = (...stimuli: VolumeStimulus[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));
const decide = (from: AnyMachineSnapshot, stimulus: VolumeStimulus) => {
  const r = step(def, from, stimulus);
  return { value: r.snapshot.value, outcome: r.outcome, effects: r.effects, types: r.effects.map((e) => e.type), context: r.snapshot.context as VolumeContext, snapshot: r.snapshot };
};
const ctx = (s: AnyMachineSnapshot) => s.context as VolumeContext;

describe('volume lifecycle: create, adopt, converge (V1–V7, V11)', () => {
  it('V1/V5 a fresh absence decides one create: exactly volume-{uid}, spec size and class as the Cinder volume type, in the identity project', () => {
    const r = decide(after(), reconcile(absent));
    expect(r.value).to.equal('creating');
    expect(r.outcome).to.equal('createSubmitted');
    expect(r.effects).to.deep.equal([
      { type: 'cinder.createVolume', name: 'volume-uid-1', size: 10, volumeType: 'gold', projectId: 'os-project-7', metadata: volumeMetadata({ volumeUid: UID, linkage: LINKAGE, tags: { team: 'storage' } }) },
    ]);
  });

  it('V1 the name is derived from the stream, never from the stimulus', () => {
    const other = step(def, initialSnapshot(def, volumeLifecycleStream('uid-2')), reconcile(absent));
    expect(other.effects[0]).to.include({ name: 'volume-uid-2' });
    expect(def.stimulus.decode({ ...reconcile(absent), desired: { ...desired(), name: 'volume-evil' } })._tag).to.equal('Right');
    expect(step(def, initialSnapshot(def, STREAM), { ...reconcile(absent), desired: { ...desired(), name: 'volume-evil' } } as unknown as VolumeStimulus).effects[0]).to.include({ name: 'volume-uid-1' });
  });

  it('V2 adopt on retry: a create whose answer was lost is adopted by the next exact-name match, never created again', () => {
    const r = decide(after(reconcile(absent)), reconcile(present('available'), { at: T_LATER }));
    expect(r.types).to.deep.equal([]);
    expect(r.value).to.equal('available');
    expect(r.context.volumeId).to.equal('cinder-1');
    expect(r.context.create).to.equal(null);
  });

  it('V2 a first pass that finds the volume adopts it: no create', () => {
    const r = decide(after(), reconcile(present('available')));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['available', 'adopted', []]);
  });

  it('V3 two exact matches are a consistency error: parked, nothing created, and a later single match resolves it', () => {
    const r = decide(after(), reconcile(duplicate));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['inconsistent', 'duplicateVolumes', []]);
    expect(r.context.duplicates).to.deep.equal(['cinder-1', 'cinder-2']);
    expect(volumeAvailable(r.snapshot)).to.deep.include({ status: 'False', reason: 'ConsistencyError' });
    expect(decide(r.snapshot, reconcile(duplicate, { generation: 2, at: T_LATER })).types).to.deep.equal([]);
    expect(decide(r.snapshot, reconcile(present('available'))).value).to.equal('available');
  });

  it('V3 duplicates found after a create are parked too (two creates landed): nothing is created again', () => {
    const r = decide(after(reconcile(absent)), reconcile(duplicate, { at: T_LATER }));
    expect([r.value, r.types]).to.deep.equal(['inconsistent', []]);
    expect(decide(r.snapshot, reconcile(absent, { at: T_LATER })).types).to.deep.equal([]);
  });

  it('V4 an unexported class: InvalidSpec naming it, and no Cinder call', () => {
    const r = decide(after(), reconcile(absent, { desired: desired({ volumeClassID: 'platinum' }) }));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['absent', 'volumeClassNotExported', []]);
    expect(r.context.invalidSpec).to.deep.include({ reason: 'VolumeClassNotExported' });
    expect(volumeAvailable(r.snapshot)).to.deep.equal({ status: 'False', reason: 'InvalidSpec', message: 'volume class platinum is not exported by the Region' });
  });

  it('V4 no Region export at all exports no class: nothing is created', () => {
    expect(decide(after(), reconcile(absent, { exportedClasses: [] })).types).to.deep.equal([]);
  });

  it('V4 once the Region exports the class, the next pass creates', () => {
    const s = after(reconcile(absent, { desired: desired({ volumeClassID: 'platinum' }) }));
    const r = decide(s, reconcile(absent, { desired: desired({ volumeClassID: 'platinum' }), exportedClasses: ['platinum'] }));
    expect(r.types).to.deep.equal(['cinder.createVolume']);
    expect(r.context.invalidSpec).to.equal(null);
  });

  it('V7 creating yields: an accepted create is partial progress, not success', () => {
    const s = after(reconcile(absent));
    const accepted = decide(s, { type: 'createAccepted', source: 'effect', id: 'cinder-1' });
    expect([accepted.value, accepted.outcome]).to.deep.equal(['creating', 'createAccepted']);
    expect(volumeAvailable(accepted.snapshot)).to.deep.include({ status: 'False', reason: 'Provisioning' });
  });

  it('V7 rediscovery yields until Cinder reports available', () => {
    const seen = decide(after(reconcile(absent)), reconcile(present('creating'), { at: T_SOON }));
    expect([seen.value, seen.outcome, seen.types]).to.deep.equal(['pending', 'createInProgress', []]);
    const again = decide(seen.snapshot, reconcile(present('creating'), { at: T_LATER }));
    expect([again.value, again.types]).to.deep.equal(['pending', []]);
    const done = decide(again.snapshot, reconcile(present('available'), { at: T_LATER }));
    expect([done.value, done.outcome]).to.deep.equal(['available', 'available']);
    expect(volumeAvailable(done.snapshot)).to.deep.include({ status: 'True', reason: 'Provisioned' });
  });

  const unknownStatuses = ['maintenance', 'reserved', 'attaching', 'retyping', 'downloading', 'awaiting-transfer', 'some-status-cinder-adds-later', ''];
  for (const status of unknownStatuses) {
    it(`V7 an unrecognized non-error status yields, never converges: '${status}'`, () => {
      const r = decide(after(reconcile(absent)), reconcile(present(status), { at: T_SOON }));
      expect([r.value, r.types]).to.deep.equal(['pending', []]);
      expect(volumeAvailable(r.snapshot).status).to.equal('False');
    });
  }

  for (const status of ['reserved', 'attaching', 'detaching']) {
    it(`V7 a settled volume passing through an attach or detach ('${status}') stays converged: the attachment slice's status, not provisioning`, () => {
      const settled = after(reconcile(absent), { type: 'createAccepted', source: 'effect', id: 'cinder-1' }, reconcile(present('available'), { at: T_SOON }));
      expect(settled.value).to.equal('available');
      const r = decide(settled, reconcile(present(status, { attachments: ['web-1'] }), { at: T_SOON }));
      expect([r.value, r.types]).to.deep.equal(['available', []]);
      expect(volumeAvailable(r.snapshot).status).to.equal('True');
      // but never for a volume not yet converged (V7 above: it yields), nor for another volume than the tracked one
      expect(decide(settled, reconcile(present(status, { id: 'cinder-9' }), { at: T_SOON })).value).to.not.equal('available');
    });
  }

  it('V7 in-use counts as settled (a volume is attached only once it was available)', () => {
    expect(decide(after(reconcile(absent)), reconcile(present('in-use', { attachments: ['web-1'] }))).value).to.equal('available');
  });

  it('V6 an unanswered create is never resubmitted blindly: a fresh absence within the window waits', () => {
    const r = decide(after(reconcile(absent)), reconcile(absent, { at: T_SOON }));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['creating', 'awaitingCreate', []]);
    const unknown = after(reconcile(absent), { type: 'createOutcomeUnknown', source: 'effect', reason: 'timeout' });
    expect(decide(unknown, reconcile(absent, { at: T_SOON })).types).to.deep.equal([]);
  });

  it('V6 after the window a fresh absence sends the create again, at most MAX_CREATE_ATTEMPTS times, then parks', () => {
    let s = after(reconcile(absent));
    const times = ['2026-03-01T10:05:00Z', '2026-03-01T10:10:00Z', '2026-03-01T10:15:00Z'];
    const outcomes: string[] = [];
    for (const at of times) {
      const r = decide(s, reconcile(absent, { at }));
      outcomes.push(`${r.outcome}:${r.types.join(',')}`);
      s = r.snapshot;
    }
    expect(outcomes).to.deep.equal(['createResubmitted:cinder.createVolume', 'createResubmitted:cinder.createVolume', 'createExhausted:']);
    expect(MAX_CREATE_ATTEMPTS).to.equal(3);
    expect(s.value).to.equal('failed');
    // attempted, not sent: a create decided and then cut off by a crash may never have been sent
    expect(volumeAvailable(s)).to.deep.equal({ status: 'False', reason: 'Errored', message: '3 creates were attempted, but the volume never appeared' });
  });

  it('V6 a refused create parks (failed) until a new generation; the same generation sends nothing', () => {
    const parked = after(reconcile(absent), { type: 'createRejected', source: 'effect', status: 413, reason: 'overLimit' });
    expect(parked.value).to.equal('failed');
    expect(volumeAvailable(parked)).to.deep.include({ status: 'False', reason: 'QuotaExceeded' });
    expect(decide(parked, reconcile(absent, { at: T_LATER })).types).to.deep.equal([]);
    expect(decide(parked, reconcile(absent, { generation: 2, at: T_LATER })).types).to.deep.equal(['cinder.createVolume']);
  });

  it('V2 a volume that appears while creation is parked (failed) is adopted', () => {
    const parked = after(reconcile(absent), { type: 'createRejected', source: 'effect', status: 400, reason: 'badRequest' });
    const r = decide(parked, reconcile(present('available')));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['available', 'adopted', []]);
  });

  it('V11 nothing is created before the identity has a project', () => {
    const r = decide(after(), reconcile(undefined, unrealized));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['absent', 'waitingForIdentity', []]);
  });

  it('a pass whose lookup could not be made decides nothing', () => {
    expect(decide(after(), reconcile(undefined)).types).to.deep.equal([]);
  });
});

describe('volume lifecycle: errored (V8)', () => {
  for (const status of ['error', 'error_extending', 'error_restoring', 'error_managing', 'error_backing-up', 'error_something_new']) {
    it(`V8 '${status}' is the typed terminal outcome: Available=False, Reason=Errored, the exact message`, () => {
      const r = decide(after(reconcile(absent)), reconcile(present(status), { at: T_SOON }));
      expect([r.value, r.outcome, r.types]).to.deep.equal(['errored', 'errored', []]);
      expect(volumeAvailable(r.snapshot)).to.deep.equal({ status: 'False', reason: 'Errored', message: 'provider volume entered an error state' });
      expect(VOLUME_ERRORED_MESSAGE).to.equal('provider volume entered an error state');
    });
  }

  it('V8 raw Cinder diagnostics never reach the context, even when a controller sends them', () => {
    const noisy = { ...present('error'), fault: 'No valid backend was found. host=cinder-vol-3@lvm#pool', host: 'cinder-vol-3', scheduler: 'CapacityFilter' } as unknown as VolumeLookup;
    const r = decide(after(reconcile(absent)), reconcile(noisy, { at: T_SOON }));
    const text = JSON.stringify(r.context);
    for (const leak of ['No valid backend', 'cinder-vol-3', 'CapacityFilter']) expect(text).to.not.include(leak);
    expect(r.context.errored).to.deep.equal({ message: VOLUME_ERRORED_MESSAGE });
  });

  it('V8 errored is parked: further passes send nothing; a fresh non-error status (an operator reset) leaves it', () => {
    const s = after(reconcile(present('error')));
    expect(decide(s, reconcile(present('error'), { generation: 2, desired: desired({ size: 20 }) })).types).to.deep.equal([]);
    expect(decide(s, reconcile(present('available'))).value).to.equal('available');
  });
});

describe('volume lifecycle: growth (V10)', () => {
  const available = () => after(reconcile(present('available')));
  it('V10 extend on grow: a larger spec.size on a settled volume decides one Cinder extend to it', () => {
    const r = decide(available(), reconcile(present('available'), { desired: desired({ size: 20 }), generation: 2 }));
    expect([r.value, r.outcome]).to.deep.equal(['extending', 'extendSubmitted']);
    expect(r.effects).to.deep.equal([{ type: 'cinder.extendVolume', volumeId: 'cinder-1', name: 'volume-uid-1', size: 20, projectId: 'os-project-7' }]);
  });

  it('V10 extending yields until available again at the new size', () => {
    const s = after(reconcile(present('available')), reconcile(present('available'), { desired: desired({ size: 20 }) }));
    const busy = decide(s, reconcile(present('extending'), { desired: desired({ size: 20 }), at: T_SOON }));
    expect([busy.value, busy.outcome, busy.types]).to.deep.equal(['extending', 'extendInProgress', []]);
    expect(volumeAvailable(busy.snapshot)).to.deep.include({ status: 'False', reason: 'Provisioning' });
    const done = decide(busy.snapshot, reconcile(present('available', { size: 20 }), { desired: desired({ size: 20 }), at: T_SOON }));
    expect([done.value, done.outcome, done.types]).to.deep.equal(['available', 'extended', []]);
  });

  it('V10 error_extending is the Errored outcome', () => {
    const s = after(reconcile(present('available')), reconcile(present('available'), { desired: desired({ size: 20 }) }));
    const r = decide(s, reconcile(present('error_extending'), { desired: desired({ size: 20 }), at: T_SOON }));
    expect(r.value).to.equal('errored');
    expect(volumeAvailable(r.snapshot).message).to.equal(VOLUME_ERRORED_MESSAGE);
  });

  it('V10 never on shrink: a spec.size below the volume sends nothing (recorded)', () => {
    const r = decide(after(reconcile(present('available', { size: 20 }))), reconcile(present('available', { size: 20 }), { desired: desired({ size: 10 }), generation: 2 }));
    expect([r.value, r.types]).to.deep.equal(['available', []]);
    expect(r.context.shrinkRefused).to.deep.equal({ desired: 10, observed: 20 });
  });

  it('V10 an unanswered extend is sent again only after the window, still for the spec size', () => {
    const s = after(reconcile(present('available')), reconcile(present('available'), { desired: desired({ size: 20 }) }));
    expect(decide(s, reconcile(present('available'), { desired: desired({ size: 20 }), at: T_SOON })).types).to.deep.equal([]);
    const r = decide(s, reconcile(present('available'), { desired: desired({ size: 20 }), at: T_LATER }));
    expect([r.outcome, r.effects]).to.deep.equal(['extendResubmitted', [{ type: 'cinder.extendVolume', volumeId: 'cinder-1', name: 'volume-uid-1', size: 20, projectId: 'os-project-7' }]]);
  });

  it('V10 an extend Cinder refused is not sent again for that generation; a new generation may', () => {
    const s = after(
      reconcile(present('available')),
      reconcile(present('available'), { desired: desired({ size: 20 }) }),
      { type: 'extendRejected', source: 'effect', volumeId: 'cinder-1', size: 20, status: 413, reason: 'overLimit' },
    );
    expect(s.value).to.equal('available');
    expect(decide(s, reconcile(present('available'), { desired: desired({ size: 20 }), at: T_LATER })).types).to.deep.equal([]);
    expect(decide(s, reconcile(present('available'), { desired: desired({ size: 20 }), generation: 2, at: T_LATER })).types).to.deep.equal(['cinder.extendVolume']);
  });

  it('V10 an extend Cinder answered 409 (busy, nothing done) is decided again on the next pass that sees the volume extendable (chaos volume:800036)', () => {
    const s = after(
      reconcile(present('available')),
      reconcile(present('available'), { desired: desired({ size: 20 }) }),
      { type: 'extendRejected', source: 'effect', volumeId: 'cinder-1', size: 20, status: 409, reason: 'conflict' },
    );
    expect(s.value).to.equal('available');
    expect(decide(s, reconcile(present('extending'), { desired: desired({ size: 20 }), at: T_SOON })).types).to.deep.equal([]);
    expect(decide(s, reconcile(present('available'), { desired: desired({ size: 20 }), at: T_SOON })).types).to.deep.equal(['cinder.extendVolume']);
  });

  it('V10 a volume not yet settled is extended only once it is', () => {
    const s = after(reconcile(present('creating')));
    expect(decide(s, reconcile(present('creating'), { desired: desired({ size: 20 }) })).types).to.deep.equal([]);
    expect(decide(s, reconcile(present('available'), { desired: desired({ size: 20 }) })).types).to.deep.equal(['cinder.extendVolume']);
  });
});

describe('volume lifecycle: deletion (V11, V12)', () => {
  const live = () => after(reconcile(present('available')));

  it('V12 delete missing = success', () => {
    const r = decide(live(), deleting(absent));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['deleted', 'nothingToDelete', []]);
  });

  it('V12 write-ahead: the first deletion pass arms and deletes nothing; the next deletes the volume it observes', () => {
    const armed = decide(live(), deleting(present('available')));
    expect([armed.value, armed.outcome, armed.types]).to.deep.equal([{ deleting: 'armed' }, 'deleteArmed', []]);
    const sent = decide(armed.snapshot, deleting(present('available')));
    expect([sent.value, sent.outcome]).to.deep.equal([{ deleting: 'submitted' }, 'deleteSubmitted']);
    expect(sent.effects).to.deep.equal([{ type: 'cinder.deleteVolume', volumeId: 'cinder-1', name: 'volume-uid-1', projectId: 'os-project-7' }]);
  });

  it('V12 delete yields until absence: after Cinder accepts, only a later lookup that finds nothing ends it', () => {
    const sent = after(reconcile(present('available')), deleting(present('available')), deleting(present('available')));
    const accepted = decide(sent, { type: 'deleteAccepted', source: 'effect', volumeId: 'cinder-1' });
    expect(accepted.value).to.deep.equal({ deleting: 'submitted' });
    const still = decide(accepted.snapshot, deleting(present('deleting'), { at: T0 }));
    expect([still.value, still.outcome, still.types]).to.deep.equal([{ deleting: 'submitted' }, 'deleteInProgress', []]);
    const gone = decide(still.snapshot, deleting(absent));
    expect([gone.value, gone.outcome]).to.deep.equal(['deleted', 'deleted']);
  });

  it('V12/L8 a dropped delete is sent again after the backoff while the same volume remains', () => {
    const sent = after(reconcile(present('available')), deleting(present('available')), deleting(present('available')));
    expect(decide(sent, deleting(present('available'), { at: '2026-03-01T10:00:05Z' })).types).to.deep.equal([]);
    expect(decide(sent, deleting(present('available'), { at: T_SOON })).outcome).to.equal('deleteResubmitted');
  });

  it('V11 a never-realized identity (no project) is proof that no volume exists: deleted at once', () => {
    const r = decide(after(), deleting(undefined, unrealized));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['deleted', 'nothingToDelete', []]);
  });

  it('V11 an identity without a project still proves it after a volume was recorded (deleted at once, flagged)', () => {
    const r = decide(live(), deleting(undefined, unrealized));
    expect([r.value, r.outcome, r.types]).to.deep.equal(['deleted', 'deletedWithoutProject', []]);
    expect(r.context.deletedWithoutProject).to.equal(true);
  });

  it('V12 attached: the deletion waits naming the server and deletes nothing', () => {
    const r = decide(live(), deleting(present('in-use', { attachments: ['web-1'] })));
    expect([r.value, r.outcome, r.types]).to.deep.equal([{ deleting: 'waiting' }, 'waitingForDetach', []]);
    expect(r.context.waiting).to.deep.equal({ reason: 'Attached', servers: ['web-1'] });
    expect(volumeAvailable(r.snapshot).message).to.equal('waiting for the volume to be detached from web-1');
    const detached = decide(r.snapshot, deleting(present('available')));
    expect([detached.value, detached.types]).to.deep.equal([{ deleting: 'armed' }, []]);
  });

  it('V12 an attachment that appears after the arm disarms it: nothing is deleted', () => {
    const armed = after(reconcile(present('available')), deleting(present('available')));
    const r = decide(armed, deleting(present('in-use', { attachments: ['db-2', 'web-1'] })));
    expect([r.value, r.types]).to.deep.equal([{ deleting: 'waiting' }, []]);
    expect(r.context.waiting).to.deep.equal({ reason: 'Attached', servers: ['db-2', 'web-1'] });
  });

  it('V12 the delete targets the volume observed on the deciding pass; another id found after the arm is armed first', () => {
    const armed = after(reconcile(present('available')), deleting(present('available')));
    const r = decide(armed, deleting(present('available', { id: 'cinder-9' })));
    expect([r.value, r.types]).to.deep.equal([{ deleting: 'armed' }, []]);
    expect(decide(r.snapshot, deleting(present('available', { id: 'cinder-9' }))).effects[0]).to.include({ volumeId: 'cinder-9' });
  });

  it('V12 a status Cinder refuses to delete in waits; error_deleting parks as Errored', () => {
    const armed = after(reconcile(present('available')), deleting(present('available')));
    expect(decide(armed, deleting(present('creating'))).outcome).to.equal('deleteWaitsForStatus');
    expect(decide(armed, deleting(present('creating'))).types).to.deep.equal([]);
    const errored = decide(armed, deleting(present('error_deleting')));
    expect(errored.value).to.equal('errored');
    expect(decide(errored.snapshot, deleting(present('error_deleting'))).types).to.deep.equal([]);
    const reset = decide(errored.snapshot, deleting(present('error')));
    expect(reset.value).to.deep.equal({ deleting: 'armed' });
  });

  it('V12 an errored volume (status error) is deleted, write-ahead', () => {
    const s = after(reconcile(present('error')), deleting(present('error')));
    expect(decide(s, deleting(present('error'))).types).to.deep.equal(['cinder.deleteVolume']);
  });

  it('V12/V6 an absence while a decided create may still land is not yet proof: deletion waits out the window', () => {
    const creating = after(reconcile(absent));
    const r = decide(creating, deleting(absent, { at: T_SOON }));
    expect([r.value, r.outcome]).to.deep.equal([{ deleting: 'waiting' }, 'awaitingCreate']);
    expect(decide(r.snapshot, deleting(absent, { at: T_LATER })).value).to.equal('deleted');
  });

  it('V3 duplicates during deletion: nothing is deleted', () => {
    const r = decide(live(), deleting(duplicate));
    expect([r.value, r.types]).to.deep.equal(['inconsistent', []]);
  });
});

describe('volume metadata (V9; M1–M3)', () => {
  const linkageValue: Record<keyof typeof LINKAGE_KEYS, string> = {
    identity: LINKAGE.identityID,
    organization: LINKAGE.organizationID,
    project: LINKAGE.projectID,
    region: LINKAGE.regionID,
    network: LINKAGE.networkID,
    volume: UID,
    owner: UID,
  };
  for (const [what, key] of Object.entries(LINKAGE_KEYS) as Array<[keyof typeof LINKAGE_KEYS, string]>) {
    const bare = key.slice(METADATA_NAMESPACE.length);
    it(`M2 linkage keys cannot be overridden: a user tag '${bare}' or '${key}' loses to the ${what} id`, () => {
      const metadata = volumeMetadata({ volumeUid: UID, linkage: LINKAGE, tags: { [bare]: 'attacker', [key]: 'attacker' } });
      expect(metadata[key]).to.equal(linkageValue[what]);
      expect(Object.values(metadata)).to.not.include('attacker');
    });
  }

  it('M1 user tags are written under the namespace; a namespaced tag key is kept as it is', () => {
    const metadata = volumeMetadata({ volumeUid: UID, linkage: LINKAGE, tags: { team: 'storage', 'regent.dev:cost-centre': '42' } });
    expect(metadata).to.deep.include({ 'regent.dev:team': 'storage', 'regent.dev:cost-centre': '42' });
    expect(tagMetadataKey('regent.dev:x')).to.equal('regent.dev:x');
  });

  it('M3 every key is namespaced and no legacy camelCase key is emitted', () => {
    const metadata = volumeMetadata({ volumeUid: UID, linkage: LINKAGE, tags: { identityID: 'x', organizationID: 'y' } });
    for (const key of Object.keys(metadata)) expect(key.startsWith(METADATA_NAMESPACE), key).to.equal(true);
    for (const legacy of ['identityID', 'organizationID', 'projectID', 'regionID', 'networkID', 'volumeID']) expect(metadata).to.not.have.property(legacy);
  });

  it("M2 the owner key is the servers' ownership key (one convention)", () => {
    expect(LINKAGE_KEYS.owner).to.equal(OWNER_KEY);
  });

  it('V9 the create decision carries exactly this metadata (linkage from the spec, volume id from the stream)', () => {
    const r = decide(after(), reconcile(absent, { desired: desired({ tags: { 'volume-id': 'other-volume', team: 't' } }) }));
    expect((r.effects[0] as unknown as { metadata: Record<string, string> }).metadata).to.deep.equal({
      'regent.dev:team': 't',
      'regent.dev:identity-id': 'ident-7',
      'regent.dev:organization-id': 'org-7',
      'regent.dev:project-id': 'proj-7',
      'regent.dev:region-id': 'region-7',
      'regent.dev:network-id': 'net-7',
      'regent.dev:volume-id': UID,
      'regent.dev:uid': UID,
    });
  });
});

describe('volume lifecycle: stimuli', () => {
  it('a reconcile from the monitor does not decode: observation is stimulus, never authorization', () => {
    expect(def.stimulus.is({ ...reconcile(absent), source: 'monitor' })).to.equal(false);
    expect(def.stimulus.decode({ ...reconcile(absent), source: 'monitor' })._tag).to.equal('Left');
    expect(def.stimulus.is(reconcile(absent))).to.equal(true);
  });
  it('effect results decode only from the effect source', () => {
    expect(def.stimulus.is({ type: 'deleteAccepted', source: 'reconciler', volumeId: 'x' })).to.equal(false);
    expect(def.stimulus.is({ type: 'deleteAccepted', source: 'effect', volumeId: 'x' })).to.equal(true);
  });
  it('every pass needs its clock (at): a pass without one does not decode', () => {
    const { at: _at, ...noClock } = reconcile(absent) as Reconcile;
    expect(def.stimulus.is(noClock)).to.equal(false);
  });
});

describe('volume lifecycle: model-based, every reachable edge', function () {
  this.timeout(120_000);
  type Action = { type: string; params?: Record<string, unknown> };
  type Edge = { state: AnyMachineSnapshot; event: VolumeStimulus; nextState: AnyMachineSnapshot; actions: Action[] };
  let edges: Edge[];
  before(() => {
    const machine = buildVolumeMachine();
    const map = getAdjacencyMap(machine, {
      input: { stream: STREAM },
      events: def.audit?.alphabet() as never,
      serializeState: (s) => def.audit?.stateKey?.(s as AnyMachineSnapshot) ?? '',
      serializeEvent: (e) => JSON.stringify(e),
      // ~80k (state, stimulus) visits today: a machine whose graph runs away fails here instead of exhausting memory
      limit: 1_000_000,
    });
    edges = (adjacencyMapToArray(map) as unknown as Edge[]).map((e) => ({ ...e, actions: (transition(machine, e.state as never, e.event as never) as unknown as [unknown, Action[]])[1] }));
  });
  const effectsOf = (e: Edge) => e.actions.filter((a) => a.type.startsWith('cinder.'));
  const of = (e: Edge, type: string) => effectsOf(e).filter((a) => a.type === type);
  const rec = (e: Edge) => e.event as Reconcile;
  const single = (e: Edge) => (rec(e).observed?.kind === 'present' ? (rec(e).observed as Extract<VolumeLookup, { kind: 'present' }>) : null);
  // oracle: "a window longer than any request's lifetime" (30 s client timeout, four times over)
  const windowPassed = (from: string, at: string) => Date.parse(at) - Date.parse(from) >= 120_000;
  const DELETABLE = ['available', 'error', 'error_restoring', 'error_extending', 'error_managing'];

  it('explores every state', () => {
    const values = new Set(edges.map((e) => JSON.stringify(e.nextState.value)));
    for (const v of ['absent', 'creating', 'pending', 'available', 'extending', 'errored', 'inconsistent', 'failed', 'deleted'].map((x) => JSON.stringify(x))) expect(values, v).to.include(v);
    for (const sub of ['waiting', 'armed', 'submitted']) expect(values).to.include(JSON.stringify({ deleting: sub }));
    expect(edges.length).to.be.greaterThan(20_000);
  });

  it('at most one Cinder effect per event, and only reconciler passes decide one', () => {
    for (const e of edges) {
      expect(effectsOf(e).length, JSON.stringify(e.event)).to.be.at.most(1);
      if (effectsOf(e).length > 0) expect(e.event.source).to.equal('reconciler');
    }
  });

  it('V12 no delete without its preconditions: a deletion read back from an earlier arm, the same volume, realized identity, not attached, a deletable status', () => {
    let deletes = 0;
    for (const e of edges) {
      const [del] = of(e, 'cinder.deleteVolume');
      if (!del) continue;
      deletes++;
      const p = single(e);
      expect(rec(e).deletionRequested).to.equal(true);
      expect(['{"deleting":"armed"}', '{"deleting":"submitted"}']).to.include(JSON.stringify(e.state.value));
      expect(rec(e).identity.kind).to.equal('realized');
      expect(p, JSON.stringify(e.event)).to.not.equal(null);
      expect(p?.id).to.equal(ctx(e.state).volumeId);
      expect(del.params?.volumeId).to.equal(p?.id);
      expect(p?.attachments).to.deep.equal([]);
      expect(DELETABLE).to.include(p?.status);
    }
    expect(deletes).to.be.greaterThan(0);
  });

  it('V4/V5/V6 no create without its preconditions: not deleting, realized identity, a fresh absence, an exported class, and never within the window of an unanswered create', () => {
    let creates = 0;
    for (const e of edges) {
      const [create] = of(e, 'cinder.createVolume');
      if (!create) continue;
      creates++;
      const r = rec(e);
      expect(r.deletionRequested).to.equal(false);
      expect(r.identity.kind).to.equal('realized');
      expect(r.observed?.kind).to.equal('absent');
      expect(r.exportedClasses).to.include(r.desired.volumeClassID);
      const before = ctx(e.state).create;
      if (before && before.answer !== 'accepted') expect(windowPassed(before.decidedAt, r.at), JSON.stringify([before, r.at])).to.equal(true);
      expect(create.params).to.deep.include({ name: `volume-${UID}`, size: r.desired.size, volumeType: r.desired.volumeClassID });
      expect(create.params?.metadata).to.deep.equal(volumeMetadata({ volumeUid: UID, linkage: r.desired.linkage, tags: r.desired.tags }));
      // the bound is per generation: a new generation after `failed` is the designed retry
      if (e.state.value !== 'failed') expect(ctx(e.state).createAttempts).to.be.lessThan(MAX_CREATE_ATTEMPTS);
    }
    expect(creates).to.be.greaterThan(0);
  });

  it('V10 no extend without growth: a settled-status volume below spec.size, outside deletion; never a shrink', () => {
    let extends_ = 0;
    for (const e of edges) {
      const [extend] = of(e, 'cinder.extendVolume');
      if (!extend) continue;
      extends_++;
      const p = single(e);
      expect(rec(e).deletionRequested).to.equal(false);
      expect(['available', 'in-use']).to.include(p?.status);
      expect(extend.params?.size).to.equal(rec(e).desired.size);
      expect(Number(extend.params?.size)).to.be.greaterThan(p?.size ?? Infinity);
    }
    expect(extends_).to.be.greaterThan(0);
  });

  it('V3 a duplicate lookup never leads to an effect, and parks in inconsistent', () => {
    let checked = 0;
    for (const e of edges) {
      if (e.event.type !== 'reconcile' || rec(e).observed?.kind !== 'duplicate' || rec(e).identity.kind !== 'realized') continue;
      if (JSON.stringify(e.state.value) === '"deleted"') continue;
      checked++;
      expect(effectsOf(e)).to.deep.equal([]);
      expect(e.nextState.value).to.equal('inconsistent');
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('V4 an unexported class never leads to a create', () => {
    for (const e of edges) {
      if (e.event.type === 'reconcile' && !rec(e).exportedClasses.includes(rec(e).desired.volumeClassID)) expect(of(e, 'cinder.createVolume')).to.deep.equal([]);
    }
  });

  it('V8 outside deletion, a fresh status beginning with error is Errored with the exact message, in every state', () => {
    let checked = 0;
    for (const e of edges) {
      const p = single(e);
      if (!p || !p.status.startsWith('error') || rec(e).deletionRequested || rec(e).identity.kind !== 'realized' || JSON.stringify(e.state.value) === '"deleted"') continue;
      if (JSON.stringify(e.state.value).includes('deleting')) continue;
      checked++;
      expect(e.nextState.value, JSON.stringify([e.state.value, p])).to.equal('errored');
      expect(volumeAvailable(e.nextState)).to.deep.equal({ status: 'False', reason: 'Errored', message: VOLUME_ERRORED_MESSAGE });
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('V7 a transition into available happens only on a settled status (available or in-use)', () => {
    for (const e of edges) {
      if (e.nextState.value !== 'available' || e.state.value === 'available' || e.event.type !== 'reconcile') continue;
      expect(['available', 'in-use']).to.include(single(e)?.status);
    }
  });

  it('V11/V12 deleted only on a fresh absence (with no create that may still land) or an identity without a project', () => {
    let checked = 0;
    for (const e of edges) {
      if (e.nextState.value !== 'deleted' || e.state.value === 'deleted' || e.event.type !== 'reconcile') continue;
      checked++;
      const r = rec(e);
      if (r.identity.kind === 'unrealized') continue;
      expect(r.observed?.kind).to.equal('absent');
      const create = ctx(e.state).create;
      if (create && create.answer !== 'accepted') expect(windowPassed(create.decidedAt, r.at)).to.equal(true);
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('V12 an attached volume is never deleted, and the waiting deletion names its servers', () => {
    let checked = 0;
    for (const e of edges) {
      const p = single(e);
      if (!p || p.attachments.length === 0 || !rec(e).deletionRequested) continue;
      checked++;
      expect(of(e, 'cinder.deleteVolume')).to.deep.equal([]);
      if (JSON.stringify(e.nextState.value) === '{"deleting":"waiting"}') expect(ctx(e.nextState).waiting).to.deep.equal({ reason: 'Attached', servers: [...p.attachments].sort() });
    }
    expect(checked).to.be.greaterThan(0);
  });

  it('V8 no Cinder status text but the fixed message is user-visible in an errored context', () => {
    for (const e of edges) if (e.nextState.value === 'errored') expect(ctx(e.nextState).errored).to.deep.equal({ message: VOLUME_ERRORED_MESSAGE });
  });
});

describe('volume lifecycle: regent check', function () {
  this.timeout(120_000);
  it('checkMachine(volumeLifecycleDefinition) passes every check, none skipped, and covers the Cinder delete', () => {
    // ~300 states today; a runaway graph is reported truncated (a failure) instead of exhausting memory
    const report = checkMachine(def, { maxStates: 5_000 });
    expect(report.results.map((r) => [r.id, r.status])).to.deep.equal([
      ['destructive-needs-arm', 'pass'],
      ['destructive-by-reconciler', 'pass'],
      ['monitor-never-authorises', 'pass'],
      ['every-state-reachable', 'pass'],
      ['no-rank-retreat', 'pass'],
    ]);
    expect(def.destructiveEffects).to.deep.equal(['cinder.deleteVolume']);
    expect(report.results.find((r) => r.id === 'destructive-needs-arm')?.detail).to.match(/^[1-9]\d* destructive transition/);
    expect(report.truncated).to.equal(false);
  });
});
