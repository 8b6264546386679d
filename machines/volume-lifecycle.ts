/**
 * A Volume's Cinder lifecycle (openstack-provider.md, "Cinder Volume create/delete is a project-scoped
 * lifecycle slice", and "Cinder volumes use volume-{Region Volume UUID} inside the service principal's
 * project; create, delete, attach, and detach rediscover that exact name").
 *
 * Why a dedicated machine rather than `lifecycleDefinition` (machines/lifecycle.ts): its hooks do not fit
 * volumes. There a present resource is converged; here presence is only partial progress until Cinder
 * reports the volume available, a status beginning with `error` is a terminal outcome, and the spec may
 * grow (a third effect, Cinder extend). Its observation has no duplicate case (two exact matches must be
 * a parked consistency error here, not a thrown pass), no attachments (an attached volume is never
 * deleted), no Identity scope (an unrealized identity proves there is nothing to delete) and no
 * exported-class check; and it re-sends a create on the very next fresh absence, while an unanswered
 * Cinder create may still land. What is reused: the write-ahead delete of L3/L4 (arm, read back, submit
 * for the id observed then, absence is success), L8's re-send of a dropped delete with its backoff
 * (`deleteRetryBackoffMs`), the unknown-outcome window of the rebuild machine (UNKNOWN_OUTCOME_WINDOW_MS,
 * U1/U2) and the pure time helpers (machines/time.ts).
 *
 *   absent ─create─► creating ─present─► pending ─available─► available ─grow─► extending ─available─► available
 *      │ V4 class not exported: recorded, no call   ⟲ V6 (window)      │ error*            │ error*  ⟲ extending
 *      ▼                                                              ▼                   ▼
 *   (stays absent)        any ─two exact matches─► inconsistent    errored ◄──────────────┘
 *   any ─deletion─► deleting.waiting (attached) ─► deleting.armed ─read back─► deleting.submitted ─absent─► deleted
 *
 * Rules (labels used in the tests):
 * - V1 name: the cloud name is exactly `volume-{Volume UID}`, derived from the stream id, never from a
 *   stimulus; every pass brings a fresh exact-name lookup in the identity's project (post-filtered).
 * - V2 adopt: an exact match is adopted (a controller retry after a lost answer), never duplicated.
 * - V3 duplicate: two or more exact matches are a consistency error: parked (`inconsistent`), nothing
 *   created, extended or deleted until a fresh lookup finds at most one.
 * - V4 class: the VolumeClass id (the Cinder volume type) must be one the Region exports; otherwise the
 *   pass is recorded as InvalidSpec (VolumeClassNotExported, naming the class) and no create is decided.
 * - V5 create: size and volume type from the spec, the metadata of machines/volume-metadata.ts; decided
 *   only on a fresh absence, with the identity realized, outside a deletion.
 * - V6 unknown create outcome: a decided create without an accepting answer (none came, or it was
 *   unknown) is sent again only on a fresh absence once UNKNOWN_OUTCOME_WINDOW_MS has passed since the
 *   decision, at most MAX_CREATE_ATTEMPTS times (then `failed`); a refusal parks (`failed`) until a new
 *   spec generation.
 * - V7 convergence: an accepted create is partial progress: the machine yields (`creating`, `pending`)
 *   after submission and on every rediscovery until Cinder reports `available` (or `in-use`: attached,
 *   so it was available); every other non-error status — `creating`, `extending`, or one it does not
 *   know — yields too.
 * - V8 errored: a status beginning with `error` is the terminal outcome Available=False, Reason=Errored,
 *   message exactly VOLUME_ERRORED_MESSAGE. The stimulus carries no diagnostics and the context keeps
 *   none (the controller logs Cinder's own).
 * - V9 metadata: user tags namespaced, linkage keys written last, no legacy camelCase keys.
 * - V10 growth: spec.size above the observed size of a settled volume decides one Cinder extend to
 *   spec.size; `extending` yields until available again; `error_extending` is V8; a size below the
 *   observed one is never sent (recorded as a refused shrink); an extend refused for a generation is not
 *   sent again for it; an unanswered extend is sent again only after the V6 window.
 * - V11 identity: nothing is created before the identity has a project; an identity without one is
 *   proof that no volume could exist, so a deletion succeeds at once.
 * - V12 delete: write-ahead — one pass arms (for the volume observed then), a later pass reads the arm
 *   back and submits the delete for the volume it observes; a missing volume is success; after Cinder
 *   accepts, yield until a later lookup confirms absence; a volume still attached is not deleted: the
 *   deletion waits naming the servers; a status Cinder would refuse to delete waits (an error one is V8);
 *   a delete is re-sent with L8's backoff while the same volume remains; an absence while a create may
 *   still land (V6 window) is not yet proof.
 *
 * Stimuli: `reconcile` from the reconciler only (a monitor observation is never authorization: the codec
 * accepts no monitor stimulus); effect results from the engine (`source: 'effect'`).
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import type { AnyMachineSnapshot } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';
import { deleteRetryBackoffMs } from './lifecycle.js';
import { UNKNOWN_OUTCOME_WINDOW_MS } from './server-rebuild.js';
import { atLeastAfter } from './time.js';
import { volumeMetadata, type VolumeLinkage } from './volume-metadata.js';

export const VOLUME_STREAM_PREFIX = 'volume-lifecycle-';
export const volumeLifecycleStream = (volumeUid: string): string => `${VOLUME_STREAM_PREFIX}${volumeUid}`;
/** V1: the Cinder name of a Volume. */
export const volumeCloudName = (volumeUid: string): string => `volume-${volumeUid}`;

/** V8: the only user-visible text of an errored volume. */
export const VOLUME_ERRORED_MESSAGE = 'provider volume entered an error state';
/** V6: creates decided for one generation before the machine stops and parks. */
export const MAX_CREATE_ATTEMPTS = 3;

export const VOLUME_EFFECTS = { create: 'cinder.createVolume', delete: 'cinder.deleteVolume', extend: 'cinder.extendVolume' } as const;

/** V7: statuses of a settled volume (converged). */
export const SETTLED_STATUSES: readonly string[] = ['available', 'in-use'];
/** V10: statuses Cinder extends in (in-use: microversion 3.42 and a driver that supports it). */
export const EXTENDABLE_STATUSES: readonly string[] = ['available', 'in-use'];
/** V12: statuses Cinder deletes without force (anything else is refused with 400). */
export const DELETABLE_STATUSES: readonly string[] = ['available', 'error', 'error_restoring', 'error_extending', 'error_managing'];

export const isErrorStatus = (status: string): boolean => status.startsWith('error');
export const isSettledStatus = (status: string): boolean => SETTLED_STATUSES.includes(status);
/** V7: statuses of a volume being attached or detached: Cinder's attachment transitions, not provisioning. */
export const ATTACHMENT_TRANSITION_STATUSES: readonly string[] = ['reserved', 'attaching', 'detaching'];

/** A fresh exact-name lookup (`volume-{uid}`, post-filtered) in the identity's project. */
export const VolumeLookup = t.union([
  t.type({ kind: t.literal('absent') }),
  t.type({
    kind: t.literal('present'),
    id: t.string,
    /** Cinder's status, verbatim. */
    status: t.string,
    /** GiB. */
    size: t.number,
    /** The servers the volume is attached to (from Cinder's attachment rows), named as status should name them. */
    attachments: t.array(t.string),
  }),
  /** V3: more than one volume is named exactly `volume-{uid}`. */
  t.type({ kind: t.literal('duplicate'), ids: t.array(t.string) }),
]);
export type VolumeLookup = t.TypeOf<typeof VolumeLookup>;

/** V11: the identity's realization: without a project there is nowhere a volume could be. */
export const IdentityScope = t.union([t.type({ kind: t.literal('unrealized') }), t.type({ kind: t.literal('realized'), projectId: t.string })]);
export type IdentityScope = t.TypeOf<typeof IdentityScope>;

export const VolumeDesired = t.intersection([
  t.type({
    /** spec.size, GiB. */
    size: t.number,
    /** spec.volumeClassID: the Cinder volume type. */
    volumeClassID: t.string,
    /** Regent's ids the linkage metadata names (V9). */
    linkage: t.type({ identityID: t.string, organizationID: t.string, projectID: t.string, regionID: t.string, networkID: t.string }),
  }),
  t.partial({ tags: t.record(t.string, t.string) }),
]);
export type VolumeDesired = t.TypeOf<typeof VolumeDesired>;

const refusal = { status: t.number, reason: t.string };

export const VolumeStimulus = t.union([
  t.intersection([
    t.type({
      type: t.literal('reconcile'),
      source: t.literal('reconciler'),
      generation: t.number,
      deletionRequested: t.boolean,
      /** The pass's clock (RFC 3339). */
      at: t.string,
      identity: IdentityScope,
      desired: VolumeDesired,
      /** V4: the VolumeClass ids the Region exports now. */
      exportedClasses: t.array(t.string),
    }),
    /** Omitted when the identity has no project (nowhere to look) or the lookup could not be made. */
    t.partial({ observed: VolumeLookup }),
  ]),
  /** The Volume's spec does not decode: recorded, nothing else happens. */
  t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
  t.type({ type: t.literal('createAccepted'), source: t.literal('effect'), id: t.string }),
  t.type({ type: t.literal('createRejected'), source: t.literal('effect'), ...refusal }),
  /** The answer never came (timeout, reset, 5xx): not a refusal (V6). A handler may also just throw. */
  t.type({ type: t.literal('createOutcomeUnknown'), source: t.literal('effect'), reason: t.string }),
  t.type({ type: t.literal('extendAccepted'), source: t.literal('effect'), volumeId: t.string, size: t.number }),
  t.type({ type: t.literal('extendRejected'), source: t.literal('effect'), volumeId: t.string, size: t.number, ...refusal }),
  t.type({ type: t.literal('deleteAccepted'), source: t.literal('effect'), volumeId: t.string }),
  t.type({ type: t.literal('deleteRejected'), source: t.literal('effect'), volumeId: t.string, ...refusal }),
]);
export type VolumeStimulus = t.TypeOf<typeof VolumeStimulus>;
type Reconcile = Extract<VolumeStimulus, { type: 'reconcile' }>;
type Present = Extract<VolumeLookup, { kind: 'present' }>;

/** A Cinder refusal: HTTP status and Regent's closed reason (never Cinder's text). */
export interface VolumeRefusal {
  status: number;
  reason: string;
}

export interface VolumeContext {
  volumeUid: string;
  /** V1: `volume-{uid}`. */
  name: string;
  /** The Cinder id, once accepted or observed. */
  volumeId: string | null;
  /** The last fresh observation of the volume (for status: Cinder's status word, size and the servers it is attached to, nothing else). */
  observed: { status: string; size: number; attachments?: string[] } | null;
  /** V6: the decided create not yet seen in Cinder; null once observed, refused or given up. */
  create: { generation: number; decidedAt: string; answer: 'pending' | 'accepted' | 'unknown' } | null;
  /** Creates decided since the volume was last seen (V6 bound). */
  createAttempts: number;
  /** Why creation is parked (`failed`), for the generation it failed at; a newer one retries. */
  failure: ({ kind: 'rejected'; generation: number } & VolumeRefusal) | { kind: 'attemptsExhausted'; generation: number; attempts: number } | null;
  /** V10: the decided extend not yet seen done. */
  extend: { size: number; decidedAt: string; answer: 'pending' | 'accepted' } | null;
  /** V10: an extend Cinder refused, not sent again for this generation. */
  extendRefusal: ({ generation: number; size: number } & VolumeRefusal) | null;
  /** V10: the spec asked for less than the volume has: never sent. */
  shrinkRefused: { desired: number; observed: number } | null;
  /** V4 (and a spec that does not decode): why nothing is created. */
  invalidSpec: { generation: number; reason: 'VolumeClassNotExported' | 'SpecRejected'; message: string } | null;
  /** V8: set while errored; the message is the only user-visible text. */
  errored: { message: typeof VOLUME_ERRORED_MESSAGE } | null;
  /** V3: the Cinder ids of the duplicates (operator-facing). */
  duplicates: string[] | null;
  /** What a pass is waiting for (identity not realized, servers still attached, a create that may still land). */
  waiting: { reason: 'IdentityNotRealized' } | { reason: 'Attached'; servers: string[] } | { reason: 'CreateMayStillLand' } | { reason: 'DeletableStatus'; status: string } | null;
  /** V12/L8: delete requests decided for the current volume and the clock of the last. */
  deleteAttempts: number;
  lastDeleteAt: string | null;
  deleteRefusal: VolumeRefusal | null;
  /** V11: deleted without a project although this stream had recorded a volume (it may be orphaned). */
  deletedWithoutProject: boolean;
  decidedGeneration: number | null;
}

const pass = (event: VolumeStimulus): Reconcile => event as Reconcile;
const lookup = (event: VolumeStimulus): VolumeLookup | undefined => pass(event).observed;
const presentIn = (event: VolumeStimulus): Present | null => {
  const o = lookup(event);
  return o?.kind === 'present' ? o : null;
};
const realized = (event: VolumeStimulus): boolean => pass(event).identity.kind === 'realized';
const projectOf = (event: VolumeStimulus): string | null => {
  const identity = pass(event).identity;
  return identity.kind === 'realized' ? identity.projectId : null;
};
/** Something in this stream says a volume may exist: an id, or a create decided and not settled. */
const recorded = (context: VolumeContext): boolean => context.volumeId !== null || context.create !== null;
/** V6: a decided create with no accepting answer whose window has not passed on this pass's clock. */
const createMayStillLand = (context: VolumeContext, event: VolumeStimulus): boolean =>
  context.create !== null && context.create.answer !== 'accepted' && !atLeastAfter(context.create.decidedAt, pass(event).at, UNKNOWN_OUTCOME_WINDOW_MS);
const observedAbsent = (event: VolumeStimulus): boolean => lookup(event)?.kind === 'absent';
const attached = (event: VolumeStimulus): boolean => (presentIn(event)?.attachments.length ?? 0) > 0;
const sameVolume = (context: VolumeContext, event: VolumeStimulus): boolean => presentIn(event)?.id === context.volumeId;
const deletable = (event: VolumeStimulus): boolean => DELETABLE_STATUSES.includes(presentIn(event)?.status ?? '');
const errorNotDeletable = (event: VolumeStimulus): boolean => {
  const p = presentIn(event);
  return p !== null && isErrorStatus(p.status) && !DELETABLE_STATUSES.includes(p.status);
};

const createEffect = {
  type: VOLUME_EFFECTS.create,
  params: ({ context, event }: { context: VolumeContext; event: VolumeStimulus }) => {
    const desired = pass(event).desired;
    const linkage: VolumeLinkage = desired.linkage;
    return {
      name: context.name,
      size: desired.size,
      volumeType: desired.volumeClassID,
      projectId: projectOf(event),
      metadata: volumeMetadata({ volumeUid: context.volumeUid, linkage, tags: desired.tags }),
    };
  },
};
const extendEffect = {
  type: VOLUME_EFFECTS.extend,
  params: ({ context, event }: { context: VolumeContext; event: VolumeStimulus }) => ({
    volumeId: presentIn(event)?.id ?? context.volumeId ?? '',
    name: context.name,
    size: pass(event).desired.size,
    projectId: projectOf(event),
  }),
};
const deleteEffect = {
  type: VOLUME_EFFECTS.delete,
  params: ({ context, event }: { context: VolumeContext; event: VolumeStimulus }) => ({
    volumeId: presentIn(event)?.id ?? context.volumeId ?? '',
    name: context.name,
    projectId: projectOf(event),
  }),
};

const ID = '#volumeLifecycle';
const to = (state: string) => `${ID}.${state}`;

/**
 * A single volume observed fresh (V2/V7/V8/V10): adopted, then classified by its status. `settled` and
 * `pending` name the outcome for the state it is used in.
 */
const classify = (names: { settled: string; pending: string }) =>
  [
    { guard: 'observedErrored', target: to('errored'), actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8
    { guard: 'growDue', target: to('extending'), actions: ['notePass', 'adopt', 'startExtend', extendEffect, outcome('extendSubmitted')] }, // V10
    { guard: 'observedSettled', target: to('available'), actions: ['notePass', 'adopt', 'noteShrink', outcome(names.settled)] }, // V7
    { target: to('pending'), actions: ['notePass', 'adopt', outcome(names.pending)] }, // V7: every other non-error status yields
  ] as const;

/** V7: a settled volume passing through an attach or detach (the attachment slice's statuses) is still converged. */
const THROUGH_ATTACHMENT = { guard: 'observedAttachmentTransition', target: to('available'), actions: ['notePass', 'adopt', outcome('attachmentInProgress')] } as const;

/** Entering deletion from a live state, decided on this same pass (V11, V3, V12). */
const DELETION = [
  { guard: 'deletionWithoutProjectNothingRecorded', target: to('deleted'), actions: ['notePass', 'forget', outcome('nothingToDelete')] }, // V11
  { guard: 'deletionWithoutProject', target: to('deleted'), actions: ['notePass', 'forget', 'noteDeletedWithoutProject', outcome('deletedWithoutProject')] }, // V11
  { guard: 'deletionNotObserved', actions: ['notePass', outcome('notObserved')] },
  { guard: 'deletionObservedDuplicate', target: to('inconsistent'), actions: ['notePass', 'recordDuplicates', outcome('duplicateVolumes')] }, // V3
  { guard: 'deletionAbsentCreateMayStillLand', target: to('deleting.waiting'), actions: ['notePass', 'waitForCreate', outcome('awaitingCreate')] }, // V12/V6
  { guard: 'deletionAbsent', target: to('deleted'), actions: ['notePass', 'forget', outcome('nothingToDelete')] }, // V12: missing is success
  { guard: 'deletionAttached', target: to('deleting.waiting'), actions: ['notePass', 'adopt', 'waitForDetach', outcome('waitingForDetach')] }, // V12
  { guard: 'deletionErrorNotDeletable', target: to('errored'), actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8: Cinder would refuse
  { guard: 'deletionRequested', target: to('deleting.armed'), actions: ['notePass', 'adopt', outcome('deleteArmed')] }, // V12: write-ahead
] as const;

/** V3: two or more exact matches park, whatever else the pass says. */
const DUPLICATE = { guard: 'observedDuplicate', target: to('inconsistent'), actions: ['notePass', 'recordDuplicates', outcome('duplicateVolumes')] } as const;

/** A live pass outside deletion that decides nothing about the volume (V11, V3). */
const LIVE = [
  { guard: 'identityUnrealized', actions: ['notePass', 'waitForIdentity', outcome('waitingForIdentity')] }, // V11
  { guard: 'notObserved', actions: ['notePass', outcome('notObserved')] },
  DUPLICATE,
] as const;

/** A settled or pending volume that is no longer found: forgotten; the next pass decides (V5). */
const VANISHED = { guard: 'observedAbsent', target: to('absent'), actions: ['notePass', 'forget', outcome('vanished')] } as const;

/**
 * The deletion was withdrawn before anything was sent: back to a create that may still land (V6), or to
 * nothing known, and the next pass rediscovers.
 */
const WITHDRAWN = [
  { guard: 'deletionWithdrawnCreateOutstanding', target: to('creating'), actions: ['notePass', outcome('deletionWithdrawn')] },
  { guard: 'deletionWithdrawn', target: to('absent'), actions: ['notePass', 'forget', outcome('deletionWithdrawn')] },
] as const;

export const buildVolumeMachine = () =>
  setup({
    types: {} as { context: VolumeContext; events: VolumeStimulus; input: { stream: string } },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      [VOLUME_EFFECTS.create]: declaredAction<Record<string, unknown>>(),
      [VOLUME_EFFECTS.delete]: declaredAction<Record<string, unknown>>(),
      [VOLUME_EFFECTS.extend]: declaredAction<Record<string, unknown>>(),
      // first on every reconcile transition: the generation decided from; per-pass records cleared
      notePass: assign(({ event }) => ({ decidedGeneration: pass(event).generation, invalidSpec: null, waiting: null, shrinkRefused: null })),
      // V2: the volume observed on this pass is the one this stream tracks (its id, status and size only)
      adopt: assign(({ context, event }) => {
        const p = presentIn(event);
        if (!p) return {};
        const again = p.id === context.volumeId;
        return {
          volumeId: p.id,
          observed: { status: p.status, size: p.size, attachments: [...p.attachments] },
          create: null,
          createAttempts: 0,
          duplicates: null,
          errored: null,
          ...(again ? {} : { deleteAttempts: 0, lastDeleteAt: null, deleteRefusal: null, extend: null }),
        };
      }),
      forget: assign({ volumeId: null, observed: null, create: null, createAttempts: 0, extend: null, duplicates: null, errored: null, deleteAttempts: 0, lastDeleteAt: null, deleteRefusal: null }),
      // V3; the creates decided landed (twice): none is outstanding any more
      recordDuplicates: assign(({ event }) => {
        const o = lookup(event);
        return o?.kind === 'duplicate' ? { duplicates: [...o.ids].sort(), create: null, createAttempts: 0 } : {};
      }),
      // V8: the fixed message only — no Cinder text reaches the context
      recordErrored: assign({ errored: { message: VOLUME_ERRORED_MESSAGE } }),
      // V4
      recordClassNotExported: assign(({ event }) => ({
        invalidSpec: {
          generation: pass(event).generation,
          reason: 'VolumeClassNotExported' as const,
          message: `volume class ${pass(event).desired.volumeClassID} is not exported by the Region`,
        },
      })),
      recordSpecRejected: assign(({ event }) =>
        event.type === 'specRejected'
          ? { invalidSpec: { generation: event.generation, reason: 'SpecRejected' as const, message: `the spec is invalid: ${event.problems.join('; ')}` }, decidedGeneration: event.generation }
          : {},
      ),
      // V5/V6: a create decided on this pass
      startCreate: assign(({ context, event }) => ({
        create: { generation: pass(event).generation, decidedAt: pass(event).at, answer: 'pending' as const },
        createAttempts: context.createAttempts + 1,
        failure: null,
      })),
      recordCreateAccepted: assign(({ context, event }) =>
        event.type === 'createAccepted' && context.create ? { create: { ...context.create, answer: 'accepted' as const }, volumeId: event.id } : {},
      ),
      recordCreateUnknown: assign(({ context }) => (context.create ? { create: { ...context.create, answer: 'unknown' as const } } : {})),
      recordCreateRejected: assign(({ context, event }) =>
        event.type === 'createRejected'
          ? { failure: { kind: 'rejected' as const, generation: context.create?.generation ?? context.decidedGeneration ?? 0, status: event.status, reason: event.reason }, create: null }
          : {},
      ),
      recordAttemptsExhausted: assign(({ context, event }) => ({
        failure: { kind: 'attemptsExhausted' as const, generation: pass(event).generation, attempts: context.createAttempts },
        create: null,
      })),
      resetFailure: assign({ failure: null, createAttempts: 0 }),
      clearFailure: assign({ failure: null }),
      // V10
      startExtend: assign(({ event }) => ({ extend: { size: pass(event).desired.size, decidedAt: pass(event).at, answer: 'pending' as const }, extendRefusal: null })),
      recordExtendAccepted: assign(({ context }) => (context.extend ? { extend: { ...context.extend, answer: 'accepted' as const } } : {})),
      recordExtendRejected: assign(({ context, event }) =>
        event.type === 'extendRejected' ? { extend: null, extendRefusal: { generation: context.decidedGeneration ?? 0, size: event.size, status: event.status, reason: event.reason } } : {},
      ),
      finishExtend: assign({ extend: null }),
      noteShrink: assign(({ event }) => {
        const p = presentIn(event);
        const desired = pass(event).desired.size;
        return p && desired < p.size ? { shrinkRefused: { desired, observed: p.size } } : {};
      }),
      // waits
      waitForIdentity: assign({ waiting: { reason: 'IdentityNotRealized' as const } }),
      waitForDetach: assign(({ event }) => ({ waiting: { reason: 'Attached' as const, servers: [...(presentIn(event)?.attachments ?? [])].sort() } })),
      waitForCreate: assign({ waiting: { reason: 'CreateMayStillLand' as const } }),
      waitForDeletableStatus: assign(({ event }) => ({ waiting: { reason: 'DeletableStatus' as const, status: presentIn(event)?.status ?? '' } })),
      // V12
      startDelete: assign(({ event }) => ({ deleteAttempts: 1, lastDeleteAt: pass(event).at, deleteRefusal: null })),
      repeatDelete: assign(({ context, event }) => ({ deleteAttempts: context.deleteAttempts + 1, lastDeleteAt: pass(event).at })),
      clearDeleteIntent: assign({ deleteAttempts: 0, lastDeleteAt: null, deleteRefusal: null }),
      recordDeleteRefusal: assign(({ event }) => (event.type === 'deleteRejected' ? { deleteRefusal: { status: event.status, reason: event.reason } } : {})),
      clearDeleteRefusal: assign({ deleteRefusal: null }),
      noteDeletedWithoutProject: assign({ deletedWithoutProject: true }),
    },
    guards: {
      deletionRequested: ({ event }) => pass(event).deletionRequested,
      deletionWithdrawn: ({ event }) => !pass(event).deletionRequested,
      deletionWithdrawnCreateOutstanding: ({ context, event }) => !pass(event).deletionRequested && context.create !== null,
      // V11: "an absent or not-yet-project-backed OpenstackIdentity as proof that no provider volume could have been created"
      deletionWithoutProjectNothingRecorded: ({ context, event }) => pass(event).deletionRequested && !realized(event) && !recorded(context),
      deletionWithoutProject: ({ event }) => pass(event).deletionRequested && !realized(event),
      withoutProject: ({ event }) => !realized(event),
      deletionNotObserved: ({ event }) => pass(event).deletionRequested && lookup(event) === undefined,
      deletionObservedDuplicate: ({ event }) => pass(event).deletionRequested && lookup(event)?.kind === 'duplicate',
      // V12/V6: an absence is not yet proof while a decided create may still land
      deletionAbsentCreateMayStillLand: ({ context, event }) => pass(event).deletionRequested && observedAbsent(event) && createMayStillLand(context, event),
      deletionAbsent: ({ event }) => pass(event).deletionRequested && observedAbsent(event),
      deletionAttached: ({ event }) => pass(event).deletionRequested && attached(event),
      deletionErrorNotDeletable: ({ event }) => pass(event).deletionRequested && errorNotDeletable(event),
      identityUnrealized: ({ event }) => !realized(event),
      observedAttachmentTransition: ({ context, event }) => sameVolume(context, event) && ATTACHMENT_TRANSITION_STATUSES.includes(presentIn(event)?.status ?? ''),
      notObserved: ({ event }) => lookup(event) === undefined,
      observedDuplicate: ({ event }) => lookup(event)?.kind === 'duplicate',
      observedAbsent: ({ event }) => observedAbsent(event),
      absentCreateMayStillLand: ({ context, event }) => observedAbsent(event) && createMayStillLand(context, event),
      observedAttached: ({ event }) => attached(event),
      observedAnother: ({ context, event }) => presentIn(event) !== null && !sameVolume(context, event),
      // V8: "a Cinder status beginning with error"
      observedErrored: ({ event }) => isErrorStatus(presentIn(event)?.status ?? ''),
      observedErrorNotDeletable: ({ event }) => errorNotDeletable(event),
      // V7: available (or in-use, which it was before it was attached)
      observedSettled: ({ event }) => isSettledStatus(presentIn(event)?.status ?? ''),
      observedDeleting: ({ event }) => presentIn(event)?.status === 'deleting',
      observedNotDeletable: ({ event }) => !deletable(event),
      // V4: a create would be decided, but the class is not one the Region exports
      observedAbsentClassNotExported: ({ event }) => observedAbsent(event) && !pass(event).exportedClasses.includes(pass(event).desired.volumeClassID),
      // V6: the bound on creates that never appeared
      absentAndCreateAttemptsExhausted: ({ context, event }) => observedAbsent(event) && context.createAttempts >= MAX_CREATE_ATTEMPTS,
      // V6: a failed create is not decided again before a new generation (a volume that appears is still adopted, V2)
      absentFailedForThisGeneration: ({ context, event }) => observedAbsent(event) && context.failure !== null && pass(event).generation <= context.failure.generation,
      // V10: grow only, only a settled volume in a status Cinder extends, not again after a refusal for this generation
      growDue: ({ context, event }) => {
        const p = presentIn(event);
        const e = pass(event);
        if (!p || !EXTENDABLE_STATUSES.includes(p.status) || e.desired.size <= p.size) return false;
        const refused = context.extendRefusal;
        return !(refused && refused.size === e.desired.size && e.generation <= refused.generation);
      },
      // V10: Cinder reports extending
      extendInFlight: ({ event }) => presentIn(event)?.status === 'extending',
      // V10: settled at (at least) the size the extend asked for, or at least the spec's size now
      extendDone: ({ context, event }) => {
        const p = presentIn(event);
        return p !== null && isSettledStatus(p.status) && (p.size >= (context.extend?.size ?? 0) || p.size >= pass(event).desired.size);
      },
      // V10/V6: still below the spec in a status Cinder extends in, once the window since the decision has
      // passed: the extend did not take (sent again for the spec's size, never for less than the volume has)
      extendRetryDue: ({ context, event }) => {
        const p = presentIn(event);
        return (
          p !== null &&
          context.extend !== null &&
          EXTENDABLE_STATUSES.includes(p.status) &&
          pass(event).desired.size > p.size &&
          atLeastAfter(context.extend.decidedAt, pass(event).at, UNKNOWN_OUTCOME_WINDOW_MS)
        );
      },
      // L8: still there, the same volume, deletable, the backoff since the last request elapsed
      deleteRetryDue: ({ context, event }) => {
        const e = pass(event);
        return e.deletionRequested && sameVolume(context, event) && deletable(event) && atLeastAfter(context.lastDeleteAt, e.at, deleteRetryBackoffMs(context.deleteAttempts));
      },
      extendAnswerForTarget: ({ context, event }) =>
        (event.type === 'extendAccepted' || event.type === 'extendRejected') && context.extend !== null && event.volumeId === context.volumeId && event.size === context.extend.size,
      deleteAnswerForTarget: ({ context, event }) => (event.type === 'deleteAccepted' || event.type === 'deleteRejected') && event.volumeId === context.volumeId,
      createOutstanding: ({ context }) => context.create !== null,
    },
  }).createMachine({
    id: 'volumeLifecycle',
    context: ({ input }) => {
      const volumeUid = input.stream.startsWith(VOLUME_STREAM_PREFIX) ? input.stream.slice(VOLUME_STREAM_PREFIX.length) : input.stream;
      return {
        volumeUid,
        name: volumeCloudName(volumeUid),
        volumeId: null,
        observed: null,
        create: null,
        createAttempts: 0,
        failure: null,
        extend: null,
        extendRefusal: null,
        shrinkRefused: null,
        invalidSpec: null,
        errored: null,
        duplicates: null,
        waiting: null,
        deleteAttempts: 0,
        lastDeleteAt: null,
        deleteRefusal: null,
        deletedWithoutProject: false,
        decidedGeneration: null,
      };
    },
    on: {
      // Any state: a spec that does not decode is recorded; nothing else happens to the volume.
      specRejected: { actions: ['recordSpecRejected', outcome('specRejected')] },
    },
    initial: 'absent',
    states: {
      // Nothing known in Cinder (initial, vanished, or a withdrawn deletion).
      absent: {
        on: {
          reconcile: [
            ...DELETION,
            ...LIVE,
            { guard: 'observedAbsentClassNotExported', actions: ['notePass', 'recordClassNotExported', outcome('volumeClassNotExported')] }, // V4: no Cinder call
            { guard: 'observedAbsent', target: 'creating', actions: ['notePass', 'startCreate', createEffect, outcome('createSubmitted')] }, // V5
            ...classify({ settled: 'adopted', pending: 'adoptedPending' }), // V2
          ],
        },
      },
      // V5/V6/V7: a create was decided and the volume not yet seen.
      creating: {
        on: {
          reconcile: [
            ...DELETION,
            ...LIVE,
            { guard: 'absentCreateMayStillLand', actions: ['notePass', 'waitForCreate', outcome('awaitingCreate')] }, // V6: never resubmitted blindly
            { guard: 'observedAbsentClassNotExported', actions: ['notePass', 'recordClassNotExported', outcome('volumeClassNotExported')] }, // V4
            { guard: 'absentAndCreateAttemptsExhausted', target: 'failed', actions: ['notePass', 'recordAttemptsExhausted', outcome('createExhausted')] }, // V6
            { guard: 'observedAbsent', target: 'creating', reenter: true, actions: ['notePass', 'startCreate', createEffect, outcome('createResubmitted')] }, // V6
            ...classify({ settled: 'available', pending: 'createInProgress' }), // V2/V7
          ],
          createAccepted: { guard: 'createOutstanding', actions: ['recordCreateAccepted', outcome('createAccepted')] }, // V7: partial progress
          createRejected: { target: 'failed', actions: ['recordCreateRejected', outcome('createRejected')] }, // V6
          createOutcomeUnknown: { guard: 'createOutstanding', actions: ['recordCreateUnknown', outcome('createOutcomeUnknown')] }, // V6
        },
      },
      // V7: the volume exists; Cinder does not report it settled yet (creating, or a status it may not know).
      pending: {
        on: {
          reconcile: [...DELETION, ...LIVE, VANISHED, ...classify({ settled: 'available', pending: 'pending' })],
        },
      },
      // V7: settled (available or in-use).
      available: {
        on: {
          reconcile: [...DELETION, ...LIVE, VANISHED, THROUGH_ATTACHMENT, ...classify({ settled: 'present', pending: 'settling' })],
        },
      },
      // V10: an extend to `context.extend.size` was decided (the record lives only here).
      extending: {
        exit: 'finishExtend',
        on: {
          reconcile: [
            ...DELETION,
            ...LIVE,
            VANISHED,
            { guard: 'observedErrored', target: 'errored', actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8 (error_extending)
            // the name finds another volume: the one being extended is gone; the next pass adopts this one
            { guard: 'observedAnother', target: 'absent', actions: ['notePass', 'forget', outcome('vanished')] },
            { guard: 'extendInFlight', actions: ['notePass', 'adopt', outcome('extendInProgress')] }, // V10: yields
            { guard: 'extendDone', target: 'available', actions: ['notePass', 'adopt', 'finishExtend', outcome('extended')] }, // V10
            { guard: 'extendRetryDue', target: 'extending', reenter: true, actions: ['notePass', 'adopt', 'startExtend', extendEffect, outcome('extendResubmitted')] }, // V10/V6
            { actions: ['notePass', 'adopt', outcome('extendPending')] }, // V10: the answer may still come
          ],
          extendAccepted: { guard: 'extendAnswerForTarget', actions: ['recordExtendAccepted', outcome('extendAccepted')] },
          extendRejected: { guard: 'extendAnswerForTarget', target: 'available', actions: ['recordExtendRejected', outcome('extendRejected')] },
        },
      },
      // V8: parked. Left on a deletion, on a fresh status that is no longer an error (an operator reset
      // it), or when the volume is gone.
      errored: {
        on: {
          reconcile: [
            ...DELETION,
            ...LIVE,
            VANISHED,
            { guard: 'observedErrored', actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] },
            ...classify({ settled: 'recovered', pending: 'recovered' }),
          ],
        },
      },
      // V3: parked while a fresh lookup finds two or more exact matches.
      inconsistent: {
        on: {
          reconcile: [
            ...DELETION,
            ...LIVE,
            { guard: 'observedAbsent', target: 'absent', actions: ['notePass', 'forget', outcome('duplicatesResolved')] },
            ...classify({ settled: 'duplicatesResolved', pending: 'duplicatesResolved' }),
          ],
        },
      },
      // V6: parked until a new generation (a refusal, or creates that never appeared).
      failed: {
        exit: 'clearFailure',
        on: {
          reconcile: [
            ...DELETION,
            ...LIVE,
            { guard: 'absentFailedForThisGeneration', actions: ['notePass', outcome('createFailed')] },
            { guard: 'observedAbsentClassNotExported', actions: ['notePass', 'recordClassNotExported', outcome('volumeClassNotExported')] }, // V4
            { guard: 'observedAbsent', target: 'creating', actions: ['notePass', 'resetFailure', 'startCreate', createEffect, outcome('createSubmitted')] }, // V5: the designed retry
            ...classify({ settled: 'adopted', pending: 'adoptedPending' }), // V2
          ],
        },
      },
      deleting: {
        initial: 'waiting',
        states: {
          // V12: not armed: servers still attached, or a create may still land.
          waiting: {
            on: { reconcile: [DUPLICATE, ...WITHDRAWN, ...DELETION] },
          },
          // V12: armed for `context.volumeId`; read back by a later pass.
          armed: {
            on: {
              reconcile: [
                DUPLICATE,
                ...WITHDRAWN,
                { guard: 'withoutProject', target: to('deleted'), actions: ['notePass', 'forget', 'noteDeletedWithoutProject', outcome('deletedWithoutProject')] }, // V11
                { guard: 'notObserved', actions: ['notePass', outcome('notObserved')] },
                { guard: 'absentCreateMayStillLand', target: 'waiting', actions: ['notePass', 'waitForCreate', outcome('awaitingCreate')] },
                { guard: 'observedAbsent', target: to('deleted'), actions: ['notePass', 'forget', outcome('deleted')] }, // V12: missing is success
                { guard: 'observedAttached', target: 'waiting', actions: ['notePass', 'adopt', 'waitForDetach', outcome('waitingForDetach')] }, // V12: disarmed
                { guard: 'observedAnother', target: 'armed', reenter: true, actions: ['notePass', 'adopt', outcome('deleteArmed')] }, // write-ahead for the volume found now
                { guard: 'observedErrorNotDeletable', target: to('errored'), actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8
                { guard: 'observedNotDeletable', actions: ['notePass', 'adopt', 'waitForDeletableStatus', outcome('deleteWaitsForStatus')] },
                { target: 'submitted', actions: ['notePass', 'adopt', 'startDelete', deleteEffect, outcome('deleteSubmitted')] }, // V12: read back
              ],
            },
          },
          // V12: the delete was sent; yield until a later lookup confirms absence.
          submitted: {
            // L8's count and clock belong to this delete; arming again starts a new one
            exit: 'clearDeleteIntent',
            on: {
              reconcile: [
                { guard: 'withoutProject', target: to('deleted'), actions: ['notePass', 'forget', 'noteDeletedWithoutProject', outcome('deletedWithoutProject')] }, // V11
                { guard: 'notObserved', actions: ['notePass', outcome('notObserved')] },
                { guard: 'observedDuplicate', target: to('inconsistent'), actions: ['notePass', 'recordDuplicates', outcome('duplicateVolumes')] }, // V3
                { guard: 'observedAbsent', target: to('deleted'), actions: ['notePass', 'forget', outcome('deleted')] }, // V12
                { guard: 'observedAnother', target: 'armed', actions: ['notePass', 'adopt', outcome('deleteArmed')] }, // write-ahead for the volume found now
                { guard: 'observedAttached', target: 'waiting', actions: ['notePass', 'adopt', 'waitForDetach', outcome('waitingForDetach')] }, // V12
                { guard: 'observedErrorNotDeletable', target: to('errored'), actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8 (error_deleting)
                { guard: 'observedDeleting', actions: ['notePass', 'adopt', outcome('deleteInProgress')] },
                { guard: 'deleteRetryDue', actions: ['notePass', 'adopt', 'repeatDelete', deleteEffect, outcome('deleteResubmitted')] }, // L8
                { actions: ['notePass', 'adopt', outcome('deleteInProgress')] },
              ],
              deleteAccepted: { guard: 'deleteAnswerForTarget', actions: ['clearDeleteRefusal', outcome('deleteAccepted')] },
              deleteRejected: { guard: 'deleteAnswerForTarget', actions: ['recordDeleteRefusal', outcome('deleteRejected')] },
            },
          },
        },
      },
      deleted: { type: 'final' },
    },
  });

/** The deletion intent: armed (1) and submitted (2), for the Cinder id recorded when it was armed. */
const INTENT_RANK: Record<string, number> = { armed: 1, submitted: 2 };
const deletingSubstate = (snapshot: AnyMachineSnapshot): string | null => {
  const value = snapshot.value as unknown;
  return typeof value === 'object' && value !== null && typeof (value as { deleting?: unknown }).deleting === 'string' ? (value as { deleting: string }).deleting : null;
};
const intentOf = (snapshot: AnyMachineSnapshot) => {
  const sub = deletingSubstate(snapshot);
  return sub !== null && sub in INTENT_RANK ? { target: (snapshot.context as VolumeContext).volumeId ?? '', state: sub === 'armed' ? 'deleteArmed' : 'deleting' } : null;
};

/** Pass clocks of the audit alphabet: a start, after L8's first backoff (not the V6 window), after both. */
export const AUDIT_TIMES = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:20Z', '2026-01-01T00:10:00Z'] as const;

const AUDIT_DESIRED = (size: number): VolumeDesired => ({
  size,
  volumeClassID: 'gold',
  linkage: { identityID: 'ident-1', organizationID: 'org-1', projectID: 'proj-1', regionID: 'region-1', networkID: 'net-1' },
  tags: { team: 'storage' },
});

/** Every decision-relevant lookup: each status class, sizes below/at the grown spec, attached or not, another id, two. */
export const auditLookups = (): Array<VolumeLookup | undefined> => {
  const present = (status: string, size = 10, attachments: string[] = [], id = 'a'): VolumeLookup => ({ kind: 'present', id, status, size, attachments });
  return [
    undefined,
    { kind: 'absent' },
    { kind: 'duplicate', ids: ['a', 'b'] },
    present('creating'),
    present('available'),
    present('available', 20),
    present('available', 10, ['web-1']),
    present('in-use', 10, ['web-1']),
    present('in-use', 20),
    present('extending'),
    present('error'),
    present('error_extending'),
    present('error_deleting'),
    present('deleting'),
    present('maintenance'),
    present('available', 10, [], 'b'),
  ];
};

/** A finite alphabet covering every case the guards distinguish (machines/definition.ts MachineAudit). */
export const volumeAuditAlphabet = (): Stimulus[] => {
  const passes: Stimulus[] = [];
  for (const observed of auditLookups())
    for (const deletionRequested of [false, true])
      for (const generation of [1, 2])
        for (const at of AUDIT_TIMES) {
          const base = { type: 'reconcile', source: 'reconciler', generation, deletionRequested, at, identity: { kind: 'realized', projectId: 'p' }, ...(observed ? { observed } : {}) } as const;
          passes.push({ ...base, desired: AUDIT_DESIRED(20), exportedClasses: ['gold'] });
          // the spec size matters only against a settled size; the class only where a create would be decided
          if (observed?.kind === 'present' && observed.size === 10 && EXTENDABLE_STATUSES.includes(observed.status)) passes.push({ ...base, desired: AUDIT_DESIRED(10), exportedClasses: ['gold'] });
          if (observed?.kind === 'absent') passes.push({ ...base, desired: AUDIT_DESIRED(20), exportedClasses: ['silver'] });
        }
  for (const deletionRequested of [false, true])
    passes.push({ type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested, at: AUDIT_TIMES[0], identity: { kind: 'unrealized' }, desired: AUDIT_DESIRED(20), exportedClasses: ['gold'] });
  return [
    ...passes,
    { type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.size: Invalid value'] },
    { type: 'createAccepted', source: 'effect', id: 'a' },
    { type: 'createRejected', source: 'effect', status: 413, reason: 'overLimit' },
    { type: 'createOutcomeUnknown', source: 'effect', reason: 'timeout' },
    { type: 'extendAccepted', source: 'effect', volumeId: 'a', size: 20 },
    { type: 'extendRejected', source: 'effect', volumeId: 'a', size: 20, status: 400, reason: 'badRequest' },
    { type: 'deleteAccepted', source: 'effect', volumeId: 'a' },
    { type: 'deleteRejected', source: 'effect', volumeId: 'a', status: 400, reason: 'badRequest' },
  ];
};

const volumeAudit = (): MachineAudit => ({
  alphabet: volumeAuditAlphabet,
  // Only what guards read: the per-pass records (observed, waiting, invalidSpec, errored, duplicates,
  // shrinkRefused, refusals' texts, decidedGeneration) never change a decision.
  stateKey: (snapshot: AnyMachineSnapshot) => {
    const c = snapshot.context as VolumeContext;
    return JSON.stringify([
      snapshot.value,
      c.volumeId,
      c.create,
      c.createAttempts,
      c.failure?.generation ?? null,
      c.extend,
      c.extendRefusal ? [c.extendRefusal.generation, c.extendRefusal.size] : null,
      c.deleteAttempts,
      c.lastDeleteAt,
    ]);
  },
  intentOf,
  rank: (snapshot: AnyMachineSnapshot) => INTENT_RANK[deletingSubstate(snapshot) ?? ''] ?? 0,
  parked: (snapshot: AnyMachineSnapshot) => ['errored', 'inconsistent', 'failed'].includes(String(snapshot.value)),
  evidenceOf: (before: AnyMachineSnapshot, stimulus: Stimulus) => {
    if (stimulus.type !== 'reconcile') return undefined;
    const e = stimulus as Reconcile;
    const p = e.observed?.kind === 'present' ? e.observed : null;
    const armedFor = (before.context as VolumeContext).volumeId;
    return p ? `deletion requested; armed for ${armedFor ?? 'nothing'}; this pass found ${p.id} in status ${p.status}, attached to ${p.attachments.length === 0 ? 'no server' : p.attachments.join(', ')}` : undefined;
  },
});

/** The Available condition a Volume's status shows for the machine's state (V8: the exact Errored message). */
export const volumeAvailable = (snapshot: Pick<AnyMachineSnapshot, 'value' | 'context'>): { status: 'True' | 'False'; reason: string; message: string } => {
  const c = snapshot.context as VolumeContext;
  const state = typeof snapshot.value === 'string' ? snapshot.value : 'deleting';
  const no = (reason: string, message: string) => ({ status: 'False' as const, reason, message });
  if (state === 'errored') return no('Errored', VOLUME_ERRORED_MESSAGE);
  if (c.invalidSpec) return no('InvalidSpec', c.invalidSpec.message);
  switch (state) {
    case 'available':
      return { status: 'True', reason: 'Provisioned', message: c.shrinkRefused ? `the volume is ${c.shrinkRefused.observed} GiB; a volume never shrinks` : 'the volume is available' };
    case 'inconsistent':
      return no('ConsistencyError', `more than one Cinder volume is named exactly ${c.name}`);
    case 'failed':
      if (c.failure?.kind === 'rejected') return no(c.failure.status === 413 ? 'QuotaExceeded' : 'CreateRejected', `Cinder refused to create the volume (HTTP ${c.failure.status})`);
      return no('Errored', `${c.failure?.attempts ?? MAX_CREATE_ATTEMPTS} creates were sent, but the volume never appeared`);
    case 'extending':
      return no('Provisioning', `extending the volume to ${c.extend?.size ?? '?'} GiB`);
    case 'deleting':
    case 'deleted':
      if (c.waiting?.reason === 'Attached') return no('Deleting', `waiting for the volume to be detached from ${c.waiting.servers.join(', ')}`);
      return no('Deleting', c.deleteAttempts > 1 || c.deleteRefusal ? `deleting the volume (${c.deleteAttempts} delete requests)` : 'deleting the volume');
    default:
      if (c.waiting?.reason === 'IdentityNotRealized') return no('Provisioning', 'waiting for the identity to be realized');
      return no('Provisioning', state === 'absent' ? 'waiting to create the volume' : 'creating the volume');
  }
};

export const volumeLifecycleDefinition: MachineDefinition = {
  id: 'volumeLifecycle',
  version: 1,
  schemaVersion: 1,
  streamPrefix: VOLUME_STREAM_PREFIX,
  machine: buildVolumeMachine(),
  stimulus: VolumeStimulus,
  effects: Object.values(VOLUME_EFFECTS),
  destructiveEffects: [VOLUME_EFFECTS.delete],
  input: (stream) => ({ stream }),
  description:
    'Cinder volume volume-{uid} in the identity project: adopt by exact name, converge until available (error* parks as Errored), grow by extend, write-ahead delete that waits for detach (openstack-provider.md, "Cinder Volume create/delete").',
  audit: volumeAudit(),
};
