/**
 * One existing Volume attached to one Server — openstack-provider.md, "Existing-volume server
 * attachments are a separate, project-scoped write path" and "Attachment behavior is deliberately
 * asymmetric". One machine per (server, volume) pair, stream `volume-attachment-<serverUid>-<volumeUid>`.
 *
 * Cinder's attachment rows are the observation (every reconciler pass brings them, read fresh with the
 * Nova server and the exact-name Cinder volume); Nova's volume-attachment API is the action:
 *
 *   A1 attach, identity never realized, server or volume missing → notFound (ErrResourceNotFound)
 *   A2 a Cinder attachment already on this server → attached, with its observed device, no Nova read
 *   A3 attached to another server → conflict, even when the volume is multiattach-capable
 *   A4 no attachment → Nova create (attaching)
 *   A5 the create answered 409 → exactly one Nova attachment read (readingAfterConflict)
 *   A6 the read: ours now present → attached; otherwise, or no answer → conflict (unresolved)
 *   A7 the create accepted → attached, with the device Nova answered
 *   A8 the create answered 404 → notFound; another refusal → failed (typed: status and reason preserved)
 *   D1 detach under an identity never realized → detached (no-op success)
 *   D2 server missing, volume missing, or no attachment to this server (also when the volume is attached
 *      only elsewhere) → detached: detached already holds
 *   D3 an attachment to this server → detaching.armed (write-ahead: no Nova call in this pass)
 *   D4 armed and read back, Cinder still shows it on this server → Nova delete (detaching.requested)
 *   D5 the delete answered 404 → detached; accepted → wait until Cinder no longer shows it (D2)
 *   D6 the delete answered 409 → conflict
 *   D7 another refusal → failed (typed, preserved); no answer → still requested (D8 settles it)
 *   D8 requested, Cinder still shows it on this server: within the window → wait; past it → Nova delete
 *      again, decided on this fresh observation under the intent read back (a DELETE is idempotent)
 *   D9 the volume is wanted again (an attach pass) while detaching: armed → the attach rules; requested →
 *      wait while the delete may still be in flight, then the attach rules
 *   M1 a monitor observation only refreshes the device of an attachment already attached; it never
 *      decides, settles, arms or clears anything (observation is stimulus, never authorization)
 *
 * Never resent blindly (P1–P4). Real Cinder answers a second attach of an attached volume with 400
 * "already attached" (docs/simulator-differences.md §2), so a create is decided only on an observation
 * showing no attachment at all (A4), and:
 *   P1 a pending create is not decided again: while `attaching`, a pass with no attachment of ours waits.
 *      Two passes attaching concurrently therefore make exactly one Nova create; the other reads back
 *      success from Cinder on its next pass. This is structural: `attaching` declares no create.
 *   P2 a create whose answer never came (none recorded: a crash; or `attach.outcomeUnknown`: a timeout, a
 *      reset, a 5xx) is settled by the next Cinder observation, never by resubmitting: ours → attached,
 *      another server → conflict, server or volume gone → notFound, and no attachment once a window
 *      longer than any request's lifetime has passed → detached (attachNotLanded), from where a LATER pass
 *      decides a new create (A4). Nova reserves the Cinder attachment row before it answers the POST, so a
 *      create Nova took shows a row on every observation after it.
 *   P3 after an accepted create (or a 409 read back as ours), an observation with no attachment inside the
 *      same window is taken as stale (read before the create) and waits; past it, A4 applies again.
 *   P4 a read whose answer never came is never repeated: the next pass settles by Cinder (A1–A3), and with
 *      no attachment the 409 stays unresolved → conflict. At most one read per create.
 *
 * The one read after a 409 is a declared effect (`nova.readVolumeAttachment`), decided on the
 * `attach.conflict` result, not a stimulus the controller feeds back: "exactly one read" is then a
 * property of this graph that the model tests and `regent check` explore, the stream records why a 409
 * became success (create → 409 → read → answer, one causation chain), and a crash between the 409 and the
 * read cannot make a second one happen (P4). It is the only effect an effect result declares; it is
 * read-only, and it continues the create the reconciler decided. Creates and deletes are declared only
 * on reconciler passes (the codec pins every stimulus type to its one source).
 *
 * Only the guest device name crosses the provider-neutral boundary: the context keeps the Nova server id
 * and Cinder volume id for the effects, but what a projection renders is `volumeAttachmentStatus` (state,
 * device, a closed reason and a user-safe message; no ids).
 *
 * Outcomes (the stored event is `volumeAttachment.<outcome>`) and the disposition a controller maps them to:
 *   done:  attached, attachAccepted, readBackAttached, detached, identityNeverRealized, detachNotFound
 *   yield: attachPending, attachSettling, attachOutcomeUnknown, attachNotLanded (soon: the next pass
 *          creates), detachArmed (soon: the next pass reads the arm back), detachAccepted,
 *          detachInProgress, detachOutcomeUnknown, deviceObserved (monitor)
 *   fail (ErrResourceNotFound): identityNotRealized, serverNotFound, volumeNotFound, attachNotFound
 *   fail (ErrConflict): attachedElsewhere, conflictUnresolved, detachConflict
 *   fail (typed, preserved): attachRejected, detachRejected
 * attachRequested, attachConflict, detachRequested and detachResubmitted are followed, in the same
 * dispatch, by the effect's result; the last outcome of the chain is the pass's.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import type { AnyMachineSnapshot } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';
import { atLeastAfter } from './time.js';

/** A Cinder attachment row of the volume: the server (Nova instance) it is on and the guest device, when Cinder knows it. */
export const AttachmentRow = t.type({ serverId: t.string, device: t.union([t.string, t.null]) });
export type AttachmentRow = t.TypeOf<typeof AttachmentRow>;

/** What one pass found: whether the identity's project exists, the Nova server, and the exact-name Cinder volume with its rows. */
export const VolumeAttachmentObservation = t.type({
  /** neverRealized: the backing OpenStack identity was never realized, so neither server nor volume can exist (both absent). */
  identity: t.keyof({ realized: null, neverRealized: null }),
  server: t.union([t.type({ kind: t.literal('absent') }), t.type({ kind: t.literal('present'), id: t.string })]),
  /** A duplicate exact-name match fails closed (ErrConsistency) in the controller: no stimulus is sent. */
  volume: t.union([
    t.type({ kind: t.literal('absent') }),
    /** `multiattach`: the volume type allows it. Recorded to show it changes nothing (A3). */
    t.type({ kind: t.literal('present'), id: t.string, multiattach: t.boolean, attachments: t.array(AttachmentRow) }),
  ]),
});
export type VolumeAttachmentObservation = t.TypeOf<typeof VolumeAttachmentObservation>;

/** A reconciler pass: the spec generation it decided from, its clock (RFC 3339) and the fresh observation. */
const passFields = { source: t.literal('reconciler'), generation: t.number, at: t.string, observed: VolumeAttachmentObservation };
const refusal = { status: t.number, reason: t.string };
const unknown = { reason: t.string };
const result = <T extends string, P extends t.Props>(type: T, props: P) => t.type({ type: t.literal(type), source: t.literal('effect'), ...props });

export const VolumeAttachmentStimulus = t.union([
  /** The volume is in Server.spec.volumes; `device` is the spec's optional device hint. */
  t.intersection([t.type({ type: t.literal('attach'), ...passFields }), t.partial({ device: t.string })]),
  /** The volume was removed from Server.spec.volumes, or the server is being deleted. */
  t.type({ type: t.literal('detach'), ...passFields, why: t.keyof({ removedFromSpec: null, serverDeleted: null }) }),
  /** A monitor poll of the same rows (M1). */
  t.type({ type: t.literal('observed'), source: t.literal('monitor'), at: t.string, observed: VolumeAttachmentObservation }),
  // nova.attachVolume: 2xx, 409, 404, another refusal, no answer (timeout, reset, 5xx, cancelled)
  result('attach.accepted', { device: t.union([t.string, t.null]) }),
  result('attach.conflict', {}),
  result('attach.notFound', {}),
  result('attach.rejected', refusal),
  result('attach.outcomeUnknown', unknown),
  // nova.readVolumeAttachment: 200 (ours), 404 (not ours), anything else
  result('read.found', { device: t.union([t.string, t.null]) }),
  result('read.notFound', {}),
  result('read.failed', unknown),
  // nova.detachVolume: 2xx, 404, 409, another refusal, no answer
  result('detach.accepted', {}),
  result('detach.notFound', {}),
  result('detach.conflict', {}),
  result('detach.rejected', refusal),
  result('detach.outcomeUnknown', unknown),
]);
export type VolumeAttachmentStimulus = t.TypeOf<typeof VolumeAttachmentStimulus>;

/** "A window longer than any request's lifetime": the client gives up after 30 s (src/openstack/http.ts) and never retries a POST; four times that. */
export const ATTACHMENT_REQUEST_WINDOW_MS = 120_000;

/** The Nova call decided last and what is known of its answer. */
export interface AttachmentRequest {
  call: 'attach' | 'read' | 'detach';
  /** The deciding pass's clock (a read inherits its create's). */
  decidedAt: string;
  /** pending: no answer recorded (a crash leaves it so); unknown: the answer never came; accepted: 2xx. */
  answer: 'pending' | 'unknown' | 'accepted';
  reason: string | null;
}

export type AttachmentProblem =
  | { kind: 'NotFound'; missing: 'identity' | 'server' | 'volume' | 'serverOrVolume' }
  | { kind: 'Conflict'; reason: 'AttachedElsewhere' | 'CreateConflict' | 'DetachConflict' }
  | { kind: 'Failed'; call: 'attach' | 'detach'; status: number; reason: string };

export interface VolumeAttachmentContext {
  /** Nova server and Cinder volume ids as last observed: for the effects only, never rendered. */
  serverId: string | null;
  volumeId: string | null;
  /** The guest device while attached or detaching: the one thing that crosses the provider-neutral boundary. */
  device: string | null;
  request: AttachmentRequest | null;
  problem: AttachmentProblem | null;
  decidedGeneration: number | null;
}

type Event = VolumeAttachmentStimulus;
type Pass = Extract<Event, { type: 'attach' | 'detach' }>;
const observedOf = (event: Event): VolumeAttachmentObservation => (event as Extract<Event, { observed: unknown }>).observed;
const passOf = (event: Event): Pass => event as Pass;
const rowsOf = (o: VolumeAttachmentObservation): AttachmentRow[] => (o.volume.kind === 'present' ? o.volume.attachments : []);
/** The row on this server (the server observed on this pass), if Cinder shows one. */
const oursIn = (o: VolumeAttachmentObservation): AttachmentRow | undefined => (o.server.kind === 'present' ? rowsOf(o).find((r) => r.serverId === (o.server as { id: string }).id) : undefined);
const bothPresent = (o: VolumeAttachmentObservation): boolean => o.identity === 'realized' && o.server.kind === 'present' && o.volume.kind === 'present';
const windowElapsed = (context: VolumeAttachmentContext, event: Event): boolean =>
  context.request !== null && atLeastAfter(context.request.decidedAt, passOf(event).at, ATTACHMENT_REQUEST_WINDOW_MS);
const idsOf = (o: VolumeAttachmentObservation) => ({ serverId: o.server.kind === 'present' ? o.server.id : '', volumeId: o.volume.kind === 'present' ? o.volume.id : '' });

const N = '#volumeAttachment';
const attachEffect = { type: 'nova.attachVolume', params: ({ event }: { event: Event }) => ({ ...idsOf(observedOf(event)), device: event.type === 'attach' ? (event.device ?? null) : null }) } as const;
const readEffect = { type: 'nova.readVolumeAttachment', params: ({ context }: { context: VolumeAttachmentContext }) => ({ serverId: context.serverId ?? '', volumeId: context.volumeId ?? '' }) } as const;
const detachEffect = { type: 'nova.detachVolume', params: ({ event }: { event: Event }) => idsOf(observedOf(event)) } as const;
const conflict = (reason: 'AttachedElsewhere' | 'CreateConflict' | 'DetachConflict') => ({ type: 'recordConflict', params: { reason } }) as const;
const start = (call: 'attach' | 'detach') => ({ type: 'startRequest', params: { call } }) as const;
const answer = (value: 'unknown' | 'accepted') => ({ type: 'markAnswer', params: { answer: value } }) as const;

/** A1–A3: what the observation alone settles (also a pending create, P2, or an unanswered read, P4): no Nova call, no Nova read. */
const ATTACH_OBSERVED = [
  { guard: 'identityNeverRealized', target: `${N}.notFound`, actions: ['notePass', 'clearRequest', 'forgetDevice', 'recordNotFound', outcome('identityNotRealized')] }, // A1
  { guard: 'serverMissing', target: `${N}.notFound`, actions: ['notePass', 'clearRequest', 'forgetDevice', 'recordNotFound', outcome('serverNotFound')] }, // A1
  { guard: 'volumeMissing', target: `${N}.notFound`, actions: ['notePass', 'clearRequest', 'forgetDevice', 'recordNotFound', outcome('volumeNotFound')] }, // A1
  { guard: 'attachedToThisServer', target: `${N}.attached`, actions: ['notePass', 'clearRequest', 'clearProblem', 'recordObservedDevice', outcome('attached')] }, // A2
  { guard: 'attachedElsewhere', target: `${N}.conflict`, actions: ['notePass', 'clearRequest', 'forgetDevice', conflict('AttachedElsewhere'), outcome('attachedElsewhere')] }, // A3
] as const;

/** A4: the only transition that declares a Nova create. */
const ATTACH_CREATE = { guard: 'unattached', target: `${N}.attaching`, actions: ['notePass', 'clearProblem', 'forgetDevice', start('attach'), attachEffect, outcome('attachRequested')] } as const;

/** D1/D2: detached already holds. */
const DETACH_HOLDS = [
  { guard: 'identityNeverRealized', target: `${N}.detached`, actions: ['notePass', 'clearRequest', 'clearProblem', 'forgetDevice', outcome('identityNeverRealized')] }, // D1
  { guard: 'notAttachedToThisServer', target: `${N}.detached`, actions: ['notePass', 'clearRequest', 'clearProblem', 'forgetDevice', outcome('detached')] }, // D2
] as const;

/** D3: write-ahead — the arm is recorded, and a later pass reads it back before any Nova delete. */
const DETACH_ARM = { guard: 'attachedToThisServer', target: `${N}.detaching.armed`, actions: ['notePass', 'clearRequest', 'clearProblem', 'recordObservedDevice', outcome('detachArmed')] } as const;

/** The states from which every pass decides afresh: no Nova call is outstanding. */
const SETTLED = { attach: [...ATTACH_OBSERVED, ATTACH_CREATE], detach: [...DETACH_HOLDS, DETACH_ARM] } as const;

export const buildVolumeAttachmentMachine = () =>
  setup({
    types: {} as { context: VolumeAttachmentContext; events: Event },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      'nova.attachVolume': declaredAction<{ serverId: string; volumeId: string; device: string | null }>(),
      'nova.readVolumeAttachment': declaredAction<{ serverId: string; volumeId: string }>(),
      'nova.detachVolume': declaredAction<{ serverId: string; volumeId: string }>(),
      // every reconciler pass records the generation it decided from and the ids it saw (for the effects)
      notePass: assign(({ context, event }) => {
        const o = observedOf(event);
        return {
          decidedGeneration: passOf(event).generation,
          serverId: o.server.kind === 'present' ? o.server.id : context.serverId,
          volumeId: o.volume.kind === 'present' ? o.volume.id : context.volumeId,
        };
      }),
      // the observed device; Cinder may not know it yet (a reserved row): keep the one Nova answered
      recordObservedDevice: assign(({ context, event }) => ({ device: oursIn(observedOf(event))?.device ?? context.device })),
      recordAnsweredDevice: assign(({ context, event }) => ({ device: event.type === 'attach.accepted' || event.type === 'read.found' ? (event.device ?? context.device) : context.device })),
      forgetDevice: assign({ device: null }),
      startRequest: assign(({ event }, params: { call: 'attach' | 'detach' }) => ({ request: { call: params.call, decidedAt: passOf(event).at, answer: 'pending' as const, reason: null } })),
      startRead: assign(({ context }) => ({ request: { call: 'read' as const, decidedAt: context.request?.decidedAt ?? '', answer: 'pending' as const, reason: null } })),
      markAnswer: assign(({ context, event }, params: { answer: 'unknown' | 'accepted' }) => ({
        request: context.request ? { ...context.request, answer: params.answer, reason: 'reason' in event ? event.reason : null } : null,
      })),
      // P3: an accepted create (or a 409 read back as ours) is remembered for the window, answered
      keepAcceptedCreate: assign(({ context }) => ({ request: context.request ? { call: 'attach' as const, decidedAt: context.request.decidedAt, answer: 'accepted' as const, reason: null } : null })),
      clearRequest: assign({ request: null }),
      recordNotFound: assign(({ event }) => {
        if (event.type === 'attach.notFound') return { problem: { kind: 'NotFound' as const, missing: 'serverOrVolume' as const } };
        const o = observedOf(event);
        const missing = o.identity === 'neverRealized' ? 'identity' : o.server.kind === 'absent' ? 'server' : 'volume';
        return { problem: { kind: 'NotFound' as const, missing } };
      }),
      recordConflict: assign((_, params: { reason: 'AttachedElsewhere' | 'CreateConflict' | 'DetachConflict' }) => ({ problem: { kind: 'Conflict' as const, reason: params.reason } })),
      recordFailure: assign(({ event }) =>
        event.type === 'attach.rejected' || event.type === 'detach.rejected'
          ? { problem: { kind: 'Failed' as const, call: event.type === 'attach.rejected' ? ('attach' as const) : ('detach' as const), status: event.status, reason: event.reason } }
          : {},
      ),
      clearProblem: assign({ problem: null }),
    },
    guards: {
      // D1: "detach also no-ops when the backing OpenStack identity was never realized"
      identityNeverRealized: ({ event }) => observedOf(event).identity === 'neverRealized',
      // A1: "attach requires both the server and volume; either missing resource maps to ErrResourceNotFound"
      serverMissing: ({ event }) => observedOf(event).server.kind === 'absent',
      volumeMissing: ({ event }) => observedOf(event).volume.kind === 'absent',
      // A2/D3: "a Cinder attachment already present on the requested server"
      attachedToThisServer: ({ event }) => oursIn(observedOf(event)) !== undefined,
      // D2: "a missing server, volume, requested-server attachment … is success", "including when the volume remains attached only to another server"
      notAttachedToThisServer: ({ event }) => oursIn(observedOf(event)) === undefined,
      // A3: "an attachment to any other server maps to ErrConflict; Region does not support multi-attach"
      attachedElsewhere: ({ event }) => {
        const o = observedOf(event);
        return rowsOf(o).some((r) => o.server.kind !== 'present' || r.serverId !== o.server.id);
      },
      // A4: "when Cinder reports no attachment, attach calls Nova create directly" — no row for any server
      unattached: ({ event }) => bothPresent(observedOf(event)) && rowsOf(observedOf(event)).length === 0,
      // P2: the unanswered create can no longer be in flight
      requestWindowElapsed: ({ context, event }) => windowElapsed(context, event),
      // P1 (detach while attaching): a create that may still land is not abandoned as detached
      attachmentMayStillLand: ({ context, event }) => bothPresent(observedOf(event)) && oursIn(observedOf(event)) === undefined && !windowElapsed(context, event),
      // P3: an observation without our row inside the window of an accepted create predates it
      createRecentlyAccepted: ({ context, event }) => context.request?.call === 'attach' && context.request.answer === 'accepted' && !windowElapsed(context, event),
      // D9: the delete may still be in flight: an attachment still shown is not yet a withdrawn detach
      detachMayBeInFlight: ({ context, event }) => oursIn(observedOf(event)) !== undefined && !windowElapsed(context, event),
      // M1: the monitor sees our row with a device
      observedDeviceOnThisServer: ({ context, event }) => {
        const device = oursIn(observedOf(event))?.device;
        return device !== undefined && device !== null && device !== context.device;
      },
    },
  }).createMachine({
    id: 'volumeAttachment',
    context: { serverId: null, volumeId: null, device: null, request: null, problem: null, decidedGeneration: null },
    initial: 'detached',
    states: {
      detached: { on: { ...SETTLED } },
      attaching: {
        on: {
          attach: [
            ...ATTACH_OBSERVED, // P2
            { guard: 'requestWindowElapsed', target: 'detached', actions: ['notePass', 'clearRequest', outcome('attachNotLanded')] }, // P2
            { actions: ['notePass', outcome('attachPending')] }, // P1
          ],
          detach: [
            DETACH_HOLDS[0], // D1
            { guard: 'attachmentMayStillLand', actions: ['notePass', outcome('attachPending')] }, // P1
            DETACH_HOLDS[1], // D2
            DETACH_ARM, // D3
          ],
          'attach.accepted': { target: 'attached', actions: ['keepAcceptedCreate', 'clearProblem', 'recordAnsweredDevice', outcome('attachAccepted')] }, // A7
          'attach.conflict': { target: 'readingAfterConflict', actions: ['startRead', readEffect, outcome('attachConflict')] }, // A5
          'attach.notFound': { target: 'notFound', actions: ['clearRequest', 'recordNotFound', outcome('attachNotFound')] }, // A8
          'attach.rejected': { target: 'failed', actions: ['clearRequest', 'recordFailure', outcome('attachRejected')] }, // A8
          'attach.outcomeUnknown': { actions: [answer('unknown'), outcome('attachOutcomeUnknown')] }, // P2: settled by the next observation
        },
      },
      readingAfterConflict: {
        on: {
          attach: [...ATTACH_OBSERVED, { target: 'conflict', actions: ['notePass', 'clearRequest', conflict('CreateConflict'), outcome('conflictUnresolved')] }], // P4
          detach: [...DETACH_HOLDS, DETACH_ARM],
          'read.found': { target: 'attached', actions: ['keepAcceptedCreate', 'clearProblem', 'recordAnsweredDevice', outcome('readBackAttached')] }, // A6
          'read.notFound': { target: 'conflict', actions: ['clearRequest', conflict('CreateConflict'), outcome('conflictUnresolved')] }, // A6
          'read.failed': { target: 'conflict', actions: ['clearRequest', conflict('CreateConflict'), outcome('conflictUnresolved')] }, // A6, P4
        },
      },
      attached: {
        on: {
          attach: [...ATTACH_OBSERVED, { guard: 'createRecentlyAccepted', actions: ['notePass', outcome('attachSettling')] }, ATTACH_CREATE], // P3, A4
          detach: SETTLED.detach,
          observed: { guard: 'observedDeviceOnThisServer', actions: ['recordObservedDevice', outcome('deviceObserved')] }, // M1
        },
      },
      conflict: { on: { ...SETTLED } },
      notFound: { on: { ...SETTLED } },
      failed: { on: { ...SETTLED } },
      detaching: {
        initial: 'armed',
        states: {
          armed: {
            on: {
              detach: [...DETACH_HOLDS, { guard: 'attachedToThisServer', target: 'requested', actions: ['notePass', 'recordObservedDevice', start('detach'), detachEffect, outcome('detachRequested')] }], // D2, D4
              attach: SETTLED.attach, // D9
            },
          },
          requested: {
            on: {
              detach: [
                ...DETACH_HOLDS, // D5: Cinder no longer shows it on this server
                { guard: 'requestWindowElapsed', actions: ['notePass', start('detach'), detachEffect, outcome('detachResubmitted')] }, // D8
                { actions: ['notePass', outcome('detachInProgress')] }, // D8
              ],
              attach: [{ guard: 'detachMayBeInFlight', actions: ['notePass', outcome('detachInProgress')] }, ...SETTLED.attach], // D9
              'detach.accepted': { actions: [answer('accepted'), outcome('detachAccepted')] }, // D5
              'detach.notFound': { target: `${N}.detached`, actions: ['clearRequest', 'forgetDevice', outcome('detachNotFound')] }, // D5
              'detach.conflict': { target: `${N}.conflict`, actions: ['clearRequest', conflict('DetachConflict'), outcome('detachConflict')] }, // D6
              'detach.rejected': { target: `${N}.failed`, actions: ['clearRequest', 'recordFailure', outcome('detachRejected')] }, // D7
              'detach.outcomeUnknown': { actions: [answer('unknown'), outcome('detachOutcomeUnknown')] }, // D7
            },
          },
        },
      },
    },
  });

export const volumeAttachmentStream = (serverUid: string, volumeUid: string): string => `volume-attachment-${serverUid}-${volumeUid}`;

/** What a projection renders for the pair (Server.status.volumes[]): no row when detached holds; never an id. */
export interface VolumeAttachmentStatus {
  state: 'Attaching' | 'Attached' | 'Detaching' | 'Error';
  device: string | null;
  /** Closed reason while Error: NotFound, Conflict, or the typed refusal's reason (BadRequest, Forbidden, …). */
  reason: string | null;
  /** User-safe. */
  message: string | null;
}

const PROBLEM_MESSAGES = {
  identity: 'the server\'s identity is not provisioned yet',
  server: 'the server was not found',
  volume: 'the volume was not found',
  serverOrVolume: 'the server or the volume was not found',
  AttachedElsewhere: 'the volume is attached to another server',
  CreateConflict: 'the attachment conflicted with another request and was not found afterwards',
  DetachConflict: 'the volume cannot be detached right now (conflict)',
} as const;

export const volumeAttachmentStatus = (snapshot: Pick<AnyMachineSnapshot, 'value' | 'context'>): VolumeAttachmentStatus | null => {
  const c = snapshot.context as VolumeAttachmentContext;
  const value = snapshot.value as unknown;
  if (typeof value === 'object') return { state: 'Detaching', device: c.device, reason: null, message: null };
  switch (value) {
    case 'attaching':
    case 'readingAfterConflict':
      return { state: 'Attaching', device: null, reason: null, message: null };
    case 'attached':
      return { state: 'Attached', device: c.device, reason: null, message: null };
    case 'conflict':
    case 'notFound':
    case 'failed': {
      const p = c.problem;
      if (!p) return { state: 'Error', device: null, reason: null, message: null };
      if (p.kind === 'Failed') return { state: 'Error', device: null, reason: p.reason, message: `the cloud refused to ${p.call} the volume (${p.status})` };
      return { state: 'Error', device: null, reason: p.kind, message: PROBLEM_MESSAGES[p.kind === 'NotFound' ? p.missing : p.reason] };
    }
    default:
      return null;
  }
};

/** The detach intent: armed (1), a Nova delete decided (2). */
const DETACH_RANK: Record<string, number> = { armed: 1, requested: 2 };
const detachState = (snapshot: AnyMachineSnapshot): string | null => {
  const value = snapshot.value as unknown;
  return typeof value === 'object' && value !== null ? ((value as { detaching?: string }).detaching ?? null) : null;
};

/** Pass clocks: a start, one window later, two windows later. */
const AUDIT_TIMES = ['2026-01-01T00:00:00Z', '2026-01-01T00:02:00Z', '2026-01-01T00:04:00Z'];

/** Every observation a guard distinguishes: identity, server, volume, and rows none/ours/ours without a device/another's/both, multiattach or not. */
export const volumeAttachmentObservations = (): VolumeAttachmentObservation[] => {
  const rowSets: AttachmentRow[][] = [[], [{ serverId: 'srv', device: '/dev/vdb' }], [{ serverId: 'srv', device: null }], [{ serverId: 'other', device: '/dev/vdc' }], [{ serverId: 'srv', device: '/dev/vdb' }, { serverId: 'other', device: '/dev/vdc' }]];
  const out: VolumeAttachmentObservation[] = [{ identity: 'neverRealized', server: { kind: 'absent' }, volume: { kind: 'absent' } }];
  for (const server of [{ kind: 'absent' } as const, { kind: 'present', id: 'srv' } as const]) {
    out.push({ identity: 'realized', server, volume: { kind: 'absent' } });
    for (const attachments of rowSets) for (const multiattach of [false, true]) out.push({ identity: 'realized', server, volume: { kind: 'present', id: 'vol', multiattach, attachments } });
  }
  return out;
};

const volumeAttachmentAudit = (): MachineAudit => ({
  alphabet: () => {
    const events: VolumeAttachmentStimulus[] = [];
    for (const observed of volumeAttachmentObservations()) {
      for (const at of AUDIT_TIMES) {
        events.push({ type: 'attach', source: 'reconciler', generation: 1, at, observed, device: '/dev/vdb' });
        events.push({ type: 'detach', source: 'reconciler', generation: 2, at, observed, why: 'removedFromSpec' });
      }
      events.push({ type: 'detach', source: 'reconciler', generation: 2, at: AUDIT_TIMES[0] as string, observed, why: 'serverDeleted' });
      events.push({ type: 'observed', source: 'monitor', at: AUDIT_TIMES[0] as string, observed });
    }
    events.push(
      { type: 'attach.accepted', source: 'effect', device: '/dev/vdb' },
      { type: 'attach.conflict', source: 'effect' },
      { type: 'attach.notFound', source: 'effect' },
      { type: 'attach.rejected', source: 'effect', status: 403, reason: 'Forbidden' },
      { type: 'attach.outcomeUnknown', source: 'effect', reason: 'no answer within the client timeout' },
      { type: 'read.found', source: 'effect', device: '/dev/vdb' },
      { type: 'read.notFound', source: 'effect' },
      { type: 'read.failed', source: 'effect', reason: 'Nova answered HTTP 503' },
      { type: 'detach.accepted', source: 'effect' },
      { type: 'detach.notFound', source: 'effect' },
      { type: 'detach.conflict', source: 'effect' },
      { type: 'detach.rejected', source: 'effect', status: 400, reason: 'BadRequest' },
      { type: 'detach.outcomeUnknown', source: 'effect', reason: 'the connection failed (ECONNRESET)' },
    );
    return events as Stimulus[];
  },
  // guards read the state and the outstanding call (its kind, clock and answer); ids, device, problem and generation are data
  stateKey: (snapshot) => {
    const r = (snapshot.context as VolumeAttachmentContext).request;
    return JSON.stringify([snapshot.value, r && [r.call, r.decidedAt, r.answer]]);
  },
  intentOf: (snapshot) => {
    const state = detachState(snapshot);
    return state ? { target: 'detach', state } : null;
  },
  rank: (snapshot) => DETACH_RANK[detachState(snapshot) ?? ''] ?? 0,
  evidenceOf: (before, stimulus) => {
    if (stimulus.type !== 'detach') return undefined;
    const o = observedOf(stimulus as VolumeAttachmentStimulus);
    const row = oursIn(o);
    if (!row || o.server.kind !== 'present' || o.volume.kind !== 'present') return undefined;
    const c = before.context as VolumeAttachmentContext;
    const armed = detachState(before) === 'requested' ? `a Nova delete decided at ${c.request?.decidedAt ?? '?'} had not taken effect (answer ${c.request?.answer ?? '?'})` : 'the detach was armed by an earlier reconciler pass';
    return `Cinder showed volume ${o.volume.id} attached to server ${o.server.id}${row.device ? ` as ${row.device}` : ''} on this pass; ${armed}`;
  },
});

export const volumeAttachmentDefinition: MachineDefinition<VolumeAttachmentContext> = {
  id: 'volumeAttachment',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'volume-attachment-',
  machine: buildVolumeAttachmentMachine(),
  stimulus: VolumeAttachmentStimulus,
  effects: ['nova.attachVolume', 'nova.readVolumeAttachment', 'nova.detachVolume'],
  destructiveEffects: ['nova.detachVolume'],
  input: () => ({}),
  description: 'One existing Volume attached to one Server through Nova, observed through Cinder attachment rows (openstack-provider.md, "Existing-volume server attachments").',
  audit: volumeAttachmentAudit(),
};
