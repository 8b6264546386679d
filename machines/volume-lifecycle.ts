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
 * Cinder create may still land. What is shared: the write-ahead delete (machines/write-ahead-delete.ts: arm,
 * read back, submit for the id observed then, absence is success, a dropped or refused delete re-sent after the
 * backoff, the ledger and its actions), the unknown-outcome window of the rebuild machine (UNKNOWN_OUTCOME_WINDOW_MS,
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
 *   a delete is re-sent after the write-ahead delete's backoff (W4) while the same volume remains; an absence
 *   while a create may still land (V6 window) is not yet proof.
 *
 * Stimuli: `reconcile` from the reconciler only (a monitor observation is never authorization: the codec
 * accepts no monitor stimulus); effect results from the engine (`source: 'effect'`).
 *
 * Driven by the Volume controller (src/controllers/volume/); provider src/provider/volumes.ts; status rendered by
 * projections/volume-status.ts; reference docs/volume.md. Files (machines/volume-lifecycle/): stimuli.ts the codecs,
 * cinder.ts the names and Cinder's status vocabulary, context.ts what the machine keeps, pass.ts what one pass
 * reads and the effects' params, transitions.ts the transition lists states share, audit.ts what `regent check`
 * explores. This file is the machine: its actions, guards and states.
 */
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineDefinition } from './definition.js';
import { UNKNOWN_OUTCOME_WINDOW_MS } from './server-rebuild.js';
import { atLeastAfter } from './time.js';
import { volumeAudit } from './volume-lifecycle/audit.js';
import {
  ATTACHMENT_TRANSITION_STATUSES,
  EXTENDABLE_STATUSES,
  MAX_CREATE_ATTEMPTS,
  VOLUME_EFFECTS,
  VOLUME_ERRORED_MESSAGE,
  VOLUME_STREAM_PREFIX,
  isErrorStatus,
  isSettledStatus,
  volumeCloudName,
} from './volume-lifecycle/cinder.js';
import type { VolumeContext, VolumeRefusal } from './volume-lifecycle/context.js';
import {
  attached,
  createEffect,
  createMayStillLand,
  deletable,
  deleteEffect,
  errorNotDeletable,
  extendEffect,
  lookup,
  observedAbsent,
  pass,
  presentIn,
  realized,
  recorded,
  sameVolume,
} from './volume-lifecycle/pass.js';
import { VolumeStimulus } from './volume-lifecycle/stimuli.js';
import { DELETION, DUPLICATE, LIVE, THROUGH_ATTACHMENT, VANISHED, WITHDRAWN, classify, to } from './volume-lifecycle/transitions.js';
import { NO_DELETE, arm, confirm, deleteResults, flatLedger, flatLedgerActions, inProgress, resend, resendDue, submit } from './write-ahead-delete.js';

// What moved into machines/volume-lifecycle/, re-exported so importers of this file need not change.
export {
  ATTACHMENT_TRANSITION_STATUSES,
  DELETABLE_STATUSES,
  EXTENDABLE_STATUSES,
  MAX_CREATE_ATTEMPTS,
  SETTLED_STATUSES,
  VOLUME_EFFECTS,
  VOLUME_ERRORED_MESSAGE,
  VOLUME_STREAM_PREFIX,
  isErrorStatus,
  isSettledStatus,
  volumeCloudName,
  volumeLifecycleStream,
} from './volume-lifecycle/cinder.js';
export { IdentityScope, VolumeDesired, VolumeLookup, VolumeStimulus } from './volume-lifecycle/stimuli.js';
export type { VolumeContext, VolumeRefusal } from './volume-lifecycle/context.js';
export { AUDIT_TIMES, auditLookups, volumeAuditAlphabet } from './volume-lifecycle/audit.js';

/** V12: the write-ahead ledger (W5), kept flat in the context. */
const ledger = flatLedgerActions<VolumeContext, VolumeStimulus, VolumeRefusal>({
  at: (event) => (event.type === 'reconcile' ? event.at : undefined),
  refusalOf: (event) => (event.type === 'deleteRejected' ? { status: event.status, reason: event.reason } : null),
});

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
          // arming for another volume starts a new delete (W5)
          ...(again ? {} : { ...NO_DELETE, extend: null }),
        };
      }),
      forget: assign({ volumeId: null, observed: null, create: null, createAttempts: 0, extend: null, duplicates: null, errored: null, ...NO_DELETE }),
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
      // V12: the write-ahead ledger (W5): startDelete, repeatDelete, clearDeleteIntent, the refusals
      ...ledger,
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
      // — except a 409: Cinder was busy with the volume and did nothing, so the extend is decided again once the volume
      // is seen extendable (chaos seed volume:800036 parked a Volume forever on one transient conflict, its status
      // still saying "growing")
      growDue: ({ context, event }) => {
        const p = presentIn(event);
        const e = pass(event);
        if (!p || !EXTENDABLE_STATUSES.includes(p.status) || e.desired.size <= p.size) return false;
        const refused = context.extendRefusal;
        return !(refused && refused.status !== 409 && refused.size === e.desired.size && e.generation <= refused.generation);
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
      deleteRetryDue: resendDue<VolumeContext, VolumeStimulus>({ seenAgain: (context, event) => pass(event).deletionRequested && sameVolume(context, event) && deletable(event), ledger: flatLedger, at: (event) => pass(event).at }),
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
                confirm({ guard: 'withoutProject', target: to('deleted'), actions: ['notePass', 'forget', 'noteDeletedWithoutProject'] }, 'deletedWithoutProject'), // V11
                { guard: 'notObserved', actions: ['notePass', outcome('notObserved')] },
                { guard: 'absentCreateMayStillLand', target: 'waiting', actions: ['notePass', 'waitForCreate', outcome('awaitingCreate')] },
                confirm({ guard: 'observedAbsent', target: to('deleted'), actions: ['notePass', 'forget'] }), // V12: missing is success
                { guard: 'observedAttached', target: 'waiting', actions: ['notePass', 'adopt', 'waitForDetach', outcome('waitingForDetach')] }, // V12: disarmed
                arm({ guard: 'observedAnother', target: 'armed', reenter: true, actions: ['notePass', 'adopt'] }), // write-ahead for the volume found now
                { guard: 'observedErrorNotDeletable', target: to('errored'), actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8
                { guard: 'observedNotDeletable', actions: ['notePass', 'adopt', 'waitForDeletableStatus', outcome('deleteWaitsForStatus')] },
                submit({ target: 'submitted', actions: ['notePass', 'adopt', 'startDelete', deleteEffect] }), // V12: read back
              ],
            },
          },
          // V12: the delete was sent; yield until a later lookup confirms absence.
          submitted: {
            // L8's count and clock belong to this delete; arming again starts a new one
            exit: 'clearDeleteIntent',
            on: {
              reconcile: [
                confirm({ guard: 'withoutProject', target: to('deleted'), actions: ['notePass', 'forget', 'noteDeletedWithoutProject'] }, 'deletedWithoutProject'), // V11
                { guard: 'notObserved', actions: ['notePass', outcome('notObserved')] },
                { guard: 'observedDuplicate', target: to('inconsistent'), actions: ['notePass', 'recordDuplicates', outcome('duplicateVolumes')] }, // V3
                confirm({ guard: 'observedAbsent', target: to('deleted'), actions: ['notePass', 'forget'] }), // V12
                arm({ guard: 'observedAnother', target: 'armed', actions: ['notePass', 'adopt'] }), // write-ahead for the volume found now
                { guard: 'observedAttached', target: 'waiting', actions: ['notePass', 'adopt', 'waitForDetach', outcome('waitingForDetach')] }, // V12
                { guard: 'observedErrorNotDeletable', target: to('errored'), actions: ['notePass', 'adopt', 'recordErrored', outcome('errored')] }, // V8 (error_deleting)
                inProgress({ guard: 'observedDeleting', actions: ['notePass', 'adopt'] }),
                resend({ guard: 'deleteRetryDue', actions: ['notePass', 'adopt', 'repeatDelete', deleteEffect] }), // W4 (L8's backoff)
                inProgress({ actions: ['notePass', 'adopt'] }),
              ],
              ...deleteResults('deleteAnswerForTarget'),
            },
          },
        },
      },
      deleted: { type: 'final' },
    },
  });

export const volumeLifecycleDefinition: MachineDefinition<VolumeContext> = {
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
