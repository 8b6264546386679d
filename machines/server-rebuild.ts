/**
 * Server image rebuild — openstack-provider.md, "A desired server image change…", "Rebuild intent is
 * write-ahead", "Nova rebuild retains…"; server-api.md, "changing a v2 server's imageId".
 *
 * The marker is {targetImageID, state}; the state is ranked Initiated(1) < Rebuilding(2) <
 * Succeeded(3) = Failed(3). The machine's states ARE the marker's states (noMarker when there is none);
 * Failed has two phases: `stamped` (decided) and `parked` (read back by a later pass: the terminal
 * user-action-required outcome).
 *
 * Three kinds of stimulus, each pinned to its source by the codec (stimuli.ts):
 * - `reconcile` (reconciler): the pass, in the spec's fixed order — R0 defer before first boot,
 *   R1 re-arm, R2/R3 arm, R5/R6 classify a park, R7 yield on an unreadable ref, R8–R11 converge or
 *   submit. Only the reconciler creates, replaces, clears the marker or parks.
 * - `observed` (monitor): M1–M5, rank-advance only, by attribution on the image ref. Also records
 *   observed health, latches provisionedAt, records the MAC and, under a marker, whether Nova showed task_state
 *   (for the status only: a hidden task_state keeps a rebuild from being seen to settle, R8).
 * - `rebuild.*` (effect): Nova's answer to the one destructive step (E1–E4).
 *
 * A submission whose answer never came (E4: timeout, reset, 5xx, cancelled; or a crash, which leaves
 * no answer at all) is an unknown outcome, not a refusal (U1–U4): nothing is submitted again until
 * the image ref shows the rebuild was accepted, or Nova's instance-action record shows no rebuild since
 * the decision once a window longer than any request's lifetime has passed.
 *
 * Each transition names its outcome; the reconciler maps outcomes to dispositions
 * (src/controllers/server-rebuild/disposition.ts). Labels (R0…, M1…, E1…) are used in test titles.
 */
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineDefinition } from './definition.js';
import { ServerRebuildStimulus, type RebuildActions } from './server-rebuild/stimuli.js';
import { atLeastAfter } from './time.js';
import { ACCEPTED_STAMP, healthFromStatus, type Health } from './server-rebuild/health.js';
import {
  convergedOn,
  hasBooted,
  isError,
  quiescentForSubmit,
  refIs,
  refOff,
  refReadable,
  taskActive,
  taskIdle,
  type ServerFacts,
} from './server-rebuild/observation.js';

export type MarkerState = 'Initiated' | 'Rebuilding' | 'Succeeded' | 'Failed';
export const RANK: Record<MarkerState, number> = { Initiated: 1, Rebuilding: 2, Succeeded: 3, Failed: 3 };

export interface Marker {
  targetImageID: string;
  state: MarkerState;
}

/**
 * "A window longer than any request's lifetime": Regent's OpenStack client gives up on a request
 * after 30 s (src/openstack/http.ts DEFAULT_TIMEOUT_MS) and never retries a POST; four times that
 * leaves room for a request held in a proxy in front of Nova after the client gave up.
 */
export const UNKNOWN_OUTCOME_WINDOW_MS = 120_000;

/** A decided rebuild whose answer is not (yet) known. */
export interface OutstandingSubmission {
  imageId: string;
  /** The deciding pass's clock; null when that pass carried none (events recorded before it did). */
  decidedAt: string | null;
  /** Request ids of the rebuild actions Nova had recorded when it was decided; null when unreadable. */
  baseline: string[] | null;
  /** pending: decided, no answer recorded (a crash leaves it so); unknown: the answer never came. */
  answer: 'pending' | 'unknown';
  /** Why the answer is unknown (timeout, HTTP 503, cancelled, …); null while pending. */
  reason: string | null;
  /** When a pass first found it unanswered: recorded once, the window's start when decidedAt is null. */
  waitingSince: string | null;
  /** Why no evidence can settle it (user action required); null while evidence may still come. */
  unresolvable: string | null;
}

export interface ServerRebuildContext {
  serverId: string;
  /** The write-ahead rebuild intent; null when none stands. */
  marker: Marker | null;
  /** The park was read back and issued: Available=Errored until a new image or a replacement. */
  parked: boolean;
  /** Nova rebuild requests decided for the standing target (reset on arm). */
  submissions: number;
  /** Nova's answer to the last submission for the standing target. */
  lastSubmission: 'accepted' | 'conflict' | 'rejected' | 'unknown' | null;
  /**
   * A submission with no definitive answer: while it stands nothing is submitted blindly (U1–U4).
   * It survives a re-arm from Initiated, because the unanswered request may still land.
   */
  outstanding: OutstandingSubmission | null;
  /** The spec generation the last reconciler pass decided from (server-api.md: provisioned means settled). */
  decidedGeneration: number | null;
  /** Observed health (phase, Healthy, Active); written by the monitor, or by the reconciler on accept/park. */
  health: Health | null;
  /** Nova launched_at the first time the server was seen booted: write-once, never cleared. */
  provisionedAt: string | null;
  /** Port MAC recorded once ACTIVE: only ever written, never cleared. */
  macAddress: string | null;
  /** The addresses Nova showed the last time it showed the server ACTIVE (absent until then; histories before issue 30 lack it). */
  ipAddresses?: readonly string[];
  /**
   * Why the monitor's last observation of the standing marker could not read `OS-EXT-STS:task_state`: `hidden` (the
   * field is absent from Nova's answer, policy-restricted) or `unreadable`. R8's "task_state empty" cannot hold then, so
   * the rebuild is never seen to settle; the status says why. null once an observation shows the field again, and when
   * a marker is armed or cleared (nothing observed of it yet); absent while nothing ever hid it (and in histories before
   * it was kept). Status only: no guard reads it (convergence reads the stimulus's own task_state).
   */
  taskStateUnknown?: 'hidden' | 'unreadable' | null;
}

type Event = ServerRebuildStimulus;
type Reconcile = Extract<Event, { type: 'reconcile' }>;

const serverOf = (event: Event): ServerFacts | undefined => ('server' in event ? event.server : undefined);
const target = (context: ServerRebuildContext): string => context.marker?.targetImageID ?? '';
const rankOf = (context: ServerRebuildContext): number => (context.marker ? RANK[context.marker.state] : 0);
const desired = (event: Event): string => (event.type === 'reconcile' ? event.desiredImage : '');

const reconcileServer = (event: Event): ServerFacts => (event as Reconcile).server;
const passTime = (event: Event): string | null => (event.type === 'reconcile' ? (event.at ?? null) : null);
const actionsOf = (event: Event): RebuildActions | undefined => (event.type === 'reconcile' ? event.rebuildActions : undefined);
const imageOf = (event: Event): string => ('imageId' in event ? event.imageId : '');

/** The window of an outstanding submission has passed on this pass's clock (unknown times never pass). */
const windowElapsed = (context: ServerRebuildContext, event: Event): boolean => {
  const o = context.outstanding;
  return o !== null && atLeastAfter(o.decidedAt ?? o.waitingSince, passTime(event), UNKNOWN_OUTCOME_WINDOW_MS);
};

/** Rebuild actions Nova recorded since the decision (ids not in the baseline); null when there is no evidence. */
const rebuildsSinceDecision = (context: ServerRebuildContext, event: Event): string[] | null => {
  const actions = actionsOf(event);
  const baseline = context.outstanding?.baseline;
  if (!actions || actions.kind !== 'read' || !baseline) return null;
  return actions.requestIds.filter((id) => !baseline.includes(id));
};

/** Why an outstanding submission for the standing target can never be settled by evidence. */
const unresolvableWhy = (context: ServerRebuildContext, event: Event): string => {
  const actions = actionsOf(event);
  if (!context.outstanding?.baseline) return "Nova's instance-action record was not readable when the rebuild was decided";
  if (!actions || actions.kind !== 'read') return `Nova's instance-action record is not readable${actions ? ` (${actions.why})` : ''}`;
  return 'Nova recorded a rebuild since the decision, but the server is not on the target image';
};

/**
 * R8/M3 need "task_state empty", which a hidden field never reads as: while a marker stands the monitor keeps whether
 * Nova showed it, for the status to say why the rebuild is not seen to settle. Written only when it changes, so the
 * steady poll (known-streams.ts: an observation that changes nothing is not stepped) records a hidden field once, and
 * its return once.
 */
const taskStateWrites = (context: ServerRebuildContext, server: ServerFacts): Partial<ServerRebuildContext> => {
  if (context.marker === null) return {};
  const why = server.taskState.kind === 'unknown' ? server.taskState.why : null;
  return why === (context.taskStateUnknown ?? null) ? {} : { taskStateUnknown: why };
};

/** A new or cleared marker has no observation yet: what was kept for the last one is forgotten (changes only). */
const forgetTaskState = (context: ServerRebuildContext): Partial<ServerRebuildContext> => (context.taskStateUnknown ? { taskStateUnknown: null } : {});

/** The monitor's writes: observed health, the provisionedAt latch, the MAC once ACTIVE, task_state's visibility under a marker. */
const observedWrites = (context: ServerRebuildContext, server: ServerFacts): Partial<ServerRebuildContext> => ({
  health: healthFromStatus(server, 'monitor'),
  provisionedAt: context.provisionedAt ?? (server.launchedAt.kind === 'launched' ? server.launchedAt.at : null),
  macAddress: server.status === 'ACTIVE' && server.macAddress ? server.macAddress : context.macAddress,
  ...(server.status === 'ACTIVE' && server.ipAddresses && server.ipAddresses.length > 0 ? { ipAddresses: server.ipAddresses } : {}),
  ...taskStateWrites(context, server),
});

/** Results that arrive after the marker moved past Initiated: recorded, never a retreat or a stamp. */
const LATE_RESULTS = {
  'rebuild.accepted': { guard: 'resultForTarget', actions: { type: 'recordSubmissionResult', params: { result: 'accepted' } } },
  'rebuild.outcomeUnknown': { guard: 'resultForTarget', actions: { type: 'recordSubmissionResult', params: { result: 'unknown' } } },
} as const;

export const serverRebuildMachine = setup({
  types: {} as { context: ServerRebuildContext; events: Event; input: { stream: string } },
  actions: {
    // The only places the marker changes: arm/re-arm and clear (reconciler), setMarker (rank advance or park).
    arm: assign(({ context, event }) => ({
      marker: { targetImageID: desired(event), state: 'Initiated' as const },
      parked: false,
      submissions: 0,
      lastSubmission: null,
      // U3: an unanswered submission may still land: the new target waits for it too.
      outstanding: context.outstanding,
      ...forgetTaskState(context),
    })),
    // Convergence on the target settles an unanswered submission for it (accepted); one for a superseded
    // image stays until it is settled (U3), so a late landing is never met by a blind re-arm and submit.
    clearMarker: assign(({ context }) => ({
      marker: null,
      parked: false,
      submissions: 0,
      lastSubmission: null,
      outstanding: context.outstanding && context.outstanding.imageId !== target(context) ? context.outstanding : null,
      ...forgetTaskState(context),
    })),
    // Past Initiated an unanswered submission for the target is settled: the marker only got there on
    // evidence of acceptance (the ref on the target). One for a superseded image stays (U3).
    setMarker: assign(({ context }, params: { state: MarkerState }) => ({
      marker: { targetImageID: target(context), state: params.state },
      ...(params.state !== 'Initiated' && context.outstanding?.imageId === target(context) ? { outstanding: null } : {}),
    })),
    countSubmission: assign(({ context, event }) => {
      const actions = actionsOf(event);
      return {
        submissions: context.submissions + 1,
        lastSubmission: null,
        outstanding: {
          imageId: target(context),
          decidedAt: passTime(event),
          baseline: actions?.kind === 'read' ? [...actions.requestIds] : null,
          answer: 'pending' as const,
          reason: null,
          waitingSince: null,
          unresolvable: null,
        },
      };
    }),
    // A definitive answer settles the unanswered submission it answers, never another image's.
    recordSubmissionResult: assign(({ context, event }, params: { result: 'accepted' | 'conflict' | 'rejected' | 'unknown' }) => ({
      lastSubmission: params.result,
      outstanding: params.result !== 'unknown' && context.outstanding?.imageId === imageOf(event) ? null : context.outstanding,
    })),
    recordOutcomeUnknown: assign(({ context, event }) => ({
      lastSubmission: 'unknown' as const,
      outstanding: context.outstanding && event.type === 'rebuild.outcomeUnknown' ? { ...context.outstanding, answer: 'unknown' as const, reason: event.reason } : context.outstanding,
    })),
    settleOutstanding: assign({ outstanding: null }),
    recordWaiting: assign(({ context, event }) => ({
      outstanding: context.outstanding && context.outstanding.waitingSince === null ? { ...context.outstanding, waitingSince: passTime(event) } : context.outstanding,
    })),
    recordUnresolvable: assign(({ context, event }) => ({
      outstanding: context.outstanding ? { ...context.outstanding, waitingSince: context.outstanding.waitingSince ?? passTime(event), unresolvable: unresolvableWhy(context, event) } : null,
    })),
    noteGeneration: assign(({ context, event }) => ({ decidedGeneration: event.type === 'reconcile' && event.generation !== undefined ? event.generation : context.decidedGeneration })),
    // The fixed accepted stamp, never derived from the rebuild response body.
    writeAcceptedStamp: assign({ health: ACCEPTED_STAMP }),
    // A park records the fresh-read health (the reconciler decides).
    recordParkHealth: assign(({ event }) => ({ health: healthFromStatus(reconcileServer(event), 'reconciler') })),
    markParked: assign({ parked: true }),
    recordObservation: assign(({ context, event }) => (serverOf(event) ? observedWrites(context, serverOf(event) as ServerFacts) : {})),
    outcome: declaredAction<{ name: string }>(),
    /** The single destructive step: Nova rebuild with only the image (no key_name, no user_data). */
    'nova.rebuild': declaredAction<{ serverId: string; imageId: string }>(),
  },
  guards: {
    // R0: "a pending image change on a server Nova reports with a zero launched_at defers" — authorised
    // only from launched_at read fresh on this GET, never from the monitor's latch.
    imageChangeBeforeFirstBoot: ({ event }) => {
      const s = reconcileServer(event);
      return refOff(s, desired(event)) && !hasBooted(s);
    },
    // R1: "replaces a marker whose target differs from the desired image (… even over a parked Failed)".
    markerTargetIsNotDesired: ({ context, event }) => context.marker !== null && context.marker.targetImageID !== desired(event),
    // R2/R7: "a fresh read whose image ref is missing or unparseable" yields silently.
    refUnreadable: ({ event }) => !refReadable(reconcileServer(event)),
    // R3: no marker and Nova's ref differs from the desired image: arm.
    desiredDiffersFromRef: ({ event }) => refOff(reconcileServer(event), desired(event)),
    // R6: attribution of a failure to this rebuild (same rules as the monitor's, plus Succeeded).
    attributableFailure: ({ context, event }) => {
      const s = reconcileServer(event);
      const accepted = rankOf(context) >= RANK.Rebuilding;
      return (
        (refIs(s, target(context)) && isError(s)) ||
        (accepted && refOff(s, target(context)) && (isError(s) || taskIdle(s))) ||
        (accepted && !refReadable(s) && isError(s))
      );
    },
    // R8: "Convergence = ref == target ∧ stable non-ERROR status ∧ task_state empty".
    converged: ({ context, event }) => convergedOn(reconcileServer(event), target(context)),
    // R9: ref on target with a task running: an accepted rebuild in flight.
    acceptedAndRunning: ({ context, event }) => refIs(reconcileServer(event), target(context)) && taskActive(reconcileServer(event)),
    // R10: "a foreign or blocking op holding the task busy while the marker is still Initiated".
    foreignTaskBusy: ({ event }) => taskActive(reconcileServer(event)),
    // R11: "gated on an Initiated marker read back durable plus a quiescent server" and ref ≠ target,
    // and no earlier submission whose answer never came (U1).
    quiescentOffTargetNothingOutstanding: ({ context, event }) =>
      context.outstanding === null && refOff(reconcileServer(event), target(context)) && quiescentForSubmit(reconcileServer(event)),
    // U2: evidence that the unanswered submission did not take effect: the window has passed, the ref is
    // still off target and Nova recorded no rebuild since the decision. Only then may it be submitted again.
    noRebuildSinceDecision: ({ context, event }) => {
      const s = reconcileServer(event);
      return (
        context.outstanding?.imageId === target(context) &&
        windowElapsed(context, event) &&
        refOff(s, target(context)) &&
        quiescentForSubmit(s) &&
        rebuildsSinceDecision(context, event)?.length === 0
      );
    },
    // U3: an unanswered submission for a superseded target can no longer land once the window has
    // passed, or it visibly landed (the ref shows its image): the new target proceeds.
    staleSubmissionSettled: ({ context, event }) =>
      context.outstanding !== null && context.outstanding.imageId !== target(context) && (windowElapsed(context, event) || refIs(reconcileServer(event), context.outstanding.imageId)),
    // U4: the window has passed and no evidence can show the submission did not take effect: never resubmit.
    outcomeUnresolvable: ({ context, event }) =>
      context.outstanding?.imageId === target(context) && windowElapsed(context, event) && rebuildsSinceDecision(context, event)?.length !== 0,
    submissionOutstanding: ({ context }) => context.outstanding !== null,

    // M1: "with ref == target, ERROR → Failed".
    observedRefOnTargetErrored: ({ context, event }) => refIs(serverOf(event) as ServerFacts, target(context)) && isError(serverOf(event) as ServerFacts),
    // M2: "an active task → Rebuilding".
    observedRefOnTargetTaskActive: ({ context, event }) => refIs(serverOf(event) as ServerFacts, target(context)) && taskActive(serverOf(event) as ServerFacts),
    // M3: "otherwise quiescent → Succeeded" (convergence).
    observedConverged: ({ context, event }) => convergedOn(serverOf(event) as ServerFacts, target(context)),
    // M4: "a readable off-target ref and the marker already durably >= Rebuilding: an ERROR or a quiesced task → Failed".
    observedSuperseded: ({ context, event }) => {
      const s = serverOf(event) as ServerFacts;
      return refOff(s, target(context)) && (isError(s) || taskIdle(s));
    },
    // M5: "with an unreadable ref, only durable acceptance plus ERROR → Failed".
    observedUnreadableRefErrored: ({ event }) => !refReadable(serverOf(event) as ServerFacts) && isError(serverOf(event) as ServerFacts),

    // E1–E4: results about the standing target only.
    resultForTarget: ({ context, event }) => 'imageId' in event && event.imageId === target(context),
    // U3: a definitive answer about a superseded target's outstanding submission settles it.
    resultForOutstanding: ({ context, event }) => context.outstanding !== null && imageOf(event) === context.outstanding.imageId,
  },
}).createMachine({
  id: 'serverRebuild',
  context: ({ input }) => ({
    serverId: input.stream.replace(/^server-rebuild-/, ''),
    marker: null,
    parked: false,
    submissions: 0,
    lastSubmission: null,
    outstanding: null,
    decidedGeneration: null,
    health: null,
    provisionedAt: null,
    macAddress: null,
  }),
  initial: 'noMarker',
  // Monitor observations that advance nothing still record observed health (changes only).
  // Every reconciler pass records the spec generation it decided from ('noteGeneration', first on each
  // reconcile transition): status reports observedGeneration from the stream, never from the object.
  on: { observed: { actions: 'recordObservation' } },
  states: {
    noMarker: {
      on: {
        reconcile: [
          { guard: 'imageChangeBeforeFirstBoot', actions: ['noteGeneration', outcome('deferred')] }, // R0
          { guard: 'refUnreadable', actions: ['noteGeneration', outcome('refUnreadable')] }, // R2: no success over a dropped image change
          { guard: 'desiredDiffersFromRef', target: 'Initiated', actions: ['noteGeneration', 'arm', outcome('armed')] }, // R3: the yield after is the durable commit point
          { guard: 'staleSubmissionSettled', actions: ['noteGeneration', 'settleOutstanding', outcome('staleSubmissionSettled')] }, // U3
          { guard: 'submissionOutstanding', actions: ['noteGeneration', 'recordWaiting', outcome('awaitingEvidence')] }, // U3: in sync, but a request for another image may still land
          { actions: ['noteGeneration', outcome('inSync')] }, // R4: a marker-less ERROR never becomes a rebuild
        ],
      },
    },
    Initiated: {
      on: {
        reconcile: [
          { guard: 'imageChangeBeforeFirstBoot', actions: ['noteGeneration', outcome('deferred')] }, // R0
          { guard: 'markerTargetIsNotDesired', target: 'Initiated', reenter: true, actions: ['noteGeneration', 'arm', outcome('rearmed')] }, // R1
          { guard: 'attributableFailure', target: 'Failed', actions: ['noteGeneration', { type: 'setMarker', params: { state: 'Failed' } }, 'recordParkHealth', outcome('failureStamped')] }, // R6
          { guard: 'refUnreadable', actions: ['noteGeneration', outcome('refUnreadable')] }, // R7
          { guard: 'converged', target: 'noMarker', actions: ['noteGeneration', 'clearMarker', outcome('cleared')] }, // R8
          { guard: 'acceptedAndRunning', target: 'Rebuilding', actions: ['noteGeneration', { type: 'setMarker', params: { state: 'Rebuilding' } }, outcome('acceptanceRecorded')] }, // R9 (also U1's evidence of acceptance)
          { guard: 'foreignTaskBusy', actions: ['noteGeneration', outcome('foreignTaskBusy')] }, // R10
          {
            guard: 'quiescentOffTargetNothingOutstanding', // R11: the single destructive step
            target: 'Initiated',
            reenter: true,
            actions: ['noteGeneration', 'countSubmission', { type: 'nova.rebuild', params: ({ context }) => ({ serverId: context.serverId, imageId: target(context) }) }, outcome('submitted')],
          },
          {
            guard: 'noRebuildSinceDecision', // U2: submitted again only on evidence, recorded in this event
            target: 'Initiated',
            reenter: true,
            actions: ['noteGeneration', 'countSubmission', { type: 'nova.rebuild', params: ({ context }) => ({ serverId: context.serverId, imageId: target(context) }) }, outcome('resubmittedOnEvidence')],
          },
          { guard: 'staleSubmissionSettled', actions: ['noteGeneration', 'settleOutstanding', outcome('staleSubmissionSettled')] }, // U3
          { guard: 'outcomeUnresolvable', actions: ['noteGeneration', 'recordUnresolvable', outcome('outcomeUnresolvable')] }, // U4
          { guard: 'submissionOutstanding', actions: ['noteGeneration', 'recordWaiting', outcome('awaitingEvidence')] }, // U1: the wait is recorded once
          { actions: ['noteGeneration', outcome('waiting')] }, // R12: e.g. ref on target, task unknown or status unsettled
        ],
        observed: [
          { guard: 'observedRefOnTargetErrored', target: 'Failed', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Failed' } }, outcome('observedFailed')] }, // M1
          { guard: 'observedRefOnTargetTaskActive', target: 'Rebuilding', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Rebuilding' } }, outcome('observedRebuilding')] }, // M2
          { guard: 'observedConverged', target: 'Succeeded', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Succeeded' } }, outcome('observedSucceeded')] }, // M3
          { actions: 'recordObservation' }, // "Initiated with ref ≠ target advances nothing"
        ],
        'rebuild.accepted': [
          // E1: on 2xx advance to Rebuilding and write the fixed accepted stamp
          { guard: 'resultForTarget', target: 'Rebuilding', actions: [{ type: 'setMarker', params: { state: 'Rebuilding' } }, { type: 'recordSubmissionResult', params: { result: 'accepted' } }, 'writeAcceptedStamp', outcome('accepted')] },
          { guard: 'resultForOutstanding', actions: ['settleOutstanding', outcome('staleSubmissionSettled')] }, // U3
        ],
        // E2: a 409 is pre-acceptance: the marker stays Initiated
        'rebuild.conflict': [
          { guard: 'resultForTarget', actions: [{ type: 'recordSubmissionResult', params: { result: 'conflict' } }, outcome('conflict')] },
          { guard: 'resultForOutstanding', actions: ['settleOutstanding', outcome('staleSubmissionSettled')] }, // U3
        ],
        // E3: refused outright: stays Initiated; the controller backs off
        'rebuild.rejected': [
          { guard: 'resultForTarget', actions: [{ type: 'recordSubmissionResult', params: { result: 'rejected' } }, outcome('rejected')] },
          { guard: 'resultForOutstanding', actions: ['settleOutstanding', outcome('staleSubmissionSettled')] }, // U3
        ],
        // E4: the answer never came: an unknown outcome, not a refusal (U1)
        'rebuild.outcomeUnknown': { guard: 'resultForOutstanding', actions: ['recordOutcomeUnknown', outcome('outcomeUnknown')] },
      },
    },
    Rebuilding: {
      on: {
        reconcile: [
          { guard: 'markerTargetIsNotDesired', target: 'Initiated', actions: ['noteGeneration', 'arm', outcome('rearmed')] }, // R1
          { guard: 'attributableFailure', target: 'Failed', actions: ['noteGeneration', { type: 'setMarker', params: { state: 'Failed' } }, 'recordParkHealth', outcome('failureStamped')] }, // R6
          { guard: 'refUnreadable', actions: ['noteGeneration', outcome('refUnreadable')] }, // R7
          { guard: 'converged', target: 'noMarker', actions: ['noteGeneration', 'clearMarker', outcome('cleared')] }, // R8
          { guard: 'acceptedAndRunning', actions: ['noteGeneration', outcome('rebuildInProgress')] }, // R9: complete; the monitor's terminal advance wakes the next pass
          { actions: ['noteGeneration', outcome('waiting')] }, // R12
        ],
        observed: [
          { guard: 'observedRefOnTargetErrored', target: 'Failed', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Failed' } }, outcome('observedFailed')] }, // M1
          { guard: 'observedConverged', target: 'Succeeded', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Succeeded' } }, outcome('observedSucceeded')] }, // M3
          { guard: 'observedSuperseded', target: 'Failed', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Failed' } }, outcome('observedSuperseded')] }, // M4
          { guard: 'observedUnreadableRefErrored', target: 'Failed', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Failed' } }, outcome('observedFailed')] }, // M5
          { actions: 'recordObservation' },
        ],
        ...LATE_RESULTS, // E1/E4 after the monitor: no retreat, no stamp over a newer observation
      },
    },
    Succeeded: {
      on: {
        reconcile: [
          { guard: 'markerTargetIsNotDesired', target: 'Initiated', actions: ['noteGeneration', 'arm', outcome('rearmed')] }, // R1
          // R6: the reconciler's park may overwrite a Succeeded stamped moments before an ERROR arrived
          { guard: 'attributableFailure', target: 'Failed', actions: ['noteGeneration', { type: 'setMarker', params: { state: 'Failed' } }, 'recordParkHealth', outcome('failureStamped')] },
          { guard: 'refUnreadable', actions: ['noteGeneration', outcome('refUnreadable')] }, // R7
          { guard: 'converged', target: 'noMarker', actions: ['noteGeneration', 'clearMarker', outcome('cleared')] }, // R8
          { actions: ['noteGeneration', outcome('terminalUnsettled')] }, // a terminal marker can never rank-advance again: yield, carrying liveness
        ],
        ...LATE_RESULTS,
      },
    },
    Failed: {
      initial: 'stamped',
      on: { ...LATE_RESULTS },
      states: {
        stamped: {
          on: {
            reconcile: [
              { guard: 'markerTargetIsNotDesired', target: '#serverRebuild.Initiated', actions: ['noteGeneration', 'arm', outcome('rearmed')] }, // R1: a different image is the designed recovery
              // R5: "only a pass that reads Failed back issues the terminal user-action-required outcome";
              // "the park records the fresh-read health and retains the marker"
              { target: 'parked', actions: ['noteGeneration', 'markParked', 'recordParkHealth', outcome('parked')] },
            ],
          },
        },
        parked: {
          on: {
            reconcile: [
              { guard: 'markerTargetIsNotDesired', target: '#serverRebuild.Initiated', actions: ['noteGeneration', 'arm', outcome('rearmed')] }, // R1, also over a parked Failed
              // stays parked: recovery is a new image or a replacement, never an automatic retry; each
              // pass that issues the park records its own fresh read (R5)
              { actions: ['noteGeneration', 'recordParkHealth', outcome('parked')] },
            ],
          },
        },
      },
    },
  },
});

/** The definition the engine and the registry use. */
export const serverRebuildDefinition: MachineDefinition<ServerRebuildContext> = {
  id: 'serverRebuild',
  // v2: unknown outcomes (U1–U4), the park's fresh-read health (R5), the decided generation.
  version: 2,
  schemaVersion: 1,
  streamPrefix: 'server-rebuild-',
  machine: serverRebuildMachine,
  stimulus: ServerRebuildStimulus,
  effects: ['nova.rebuild'],
  destructiveEffects: ['nova.rebuild'],
  input: (stream) => ({ stream }),
  description: 'Destructive in-place Nova rebuild toward a desired image, write-ahead (openstack-provider.md, "Rebuild intent is write-ahead").',
};

export const serverRebuildStream = (serverId: string): string => `server-rebuild-${serverId}`;
