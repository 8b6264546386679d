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
 *   observed health, latches provisionedAt and records the MAC.
 * - `rebuild.*` (effect): Nova's answer to the one destructive step (E1–E3).
 *
 * Each transition names its outcome; the reconciler maps outcomes to dispositions
 * (src/controllers/server-rebuild/disposition.ts). Labels (R0…, M1…, E1…) are used in test titles.
 */
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineDefinition } from './definition.js';
import { ServerRebuildStimulus } from './server-rebuild/stimuli.js';
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

export interface ServerRebuildContext {
  serverId: string;
  /** The write-ahead rebuild intent; null when none stands. */
  marker: Marker | null;
  /** The park was read back and issued: Available=Errored until a new image or a replacement. */
  parked: boolean;
  /** Nova rebuild requests decided for the standing target (reset on arm). */
  submissions: number;
  /** Nova's answer to the last submission for the standing target. */
  lastSubmission: 'accepted' | 'conflict' | 'rejected' | null;
  /** Observed health (phase, Healthy, Active); written by the monitor, or by the reconciler on accept/park. */
  health: Health | null;
  /** Nova launched_at the first time the server was seen booted: write-once, never cleared. */
  provisionedAt: string | null;
  /** Port MAC recorded once ACTIVE: only ever written, never cleared. */
  macAddress: string | null;
}

type Event = ServerRebuildStimulus;
type Reconcile = Extract<Event, { type: 'reconcile' }>;

const serverOf = (event: Event): ServerFacts | undefined => ('server' in event ? event.server : undefined);
const target = (context: ServerRebuildContext): string => context.marker?.targetImageID ?? '';
const rankOf = (context: ServerRebuildContext): number => (context.marker ? RANK[context.marker.state] : 0);
const desired = (event: Event): string => (event.type === 'reconcile' ? event.desiredImage : '');

const reconcileServer = (event: Event): ServerFacts => (event as Reconcile).server;

/** The monitor's writes: observed health, the provisionedAt latch, the MAC once ACTIVE. */
const observedWrites = (context: ServerRebuildContext, server: ServerFacts): Partial<ServerRebuildContext> => ({
  health: healthFromStatus(server, 'monitor'),
  provisionedAt: context.provisionedAt ?? (server.launchedAt.kind === 'launched' ? server.launchedAt.at : null),
  macAddress: server.status === 'ACTIVE' && server.macAddress ? server.macAddress : context.macAddress,
});

export const serverRebuildMachine = setup({
  types: {} as { context: ServerRebuildContext; events: Event; input: { stream: string } },
  actions: {
    // The only places the marker changes: arm/re-arm and clear (reconciler), setMarker (rank advance or park).
    arm: assign(({ event }) => ({
      marker: { targetImageID: desired(event), state: 'Initiated' as const },
      parked: false,
      submissions: 0,
      lastSubmission: null,
    })),
    clearMarker: assign({ marker: null, parked: false, submissions: 0, lastSubmission: null }),
    setMarker: assign(({ context }, params: { state: MarkerState }) => ({ marker: { targetImageID: target(context), state: params.state } })),
    countSubmission: assign(({ context }) => ({ submissions: context.submissions + 1, lastSubmission: null })),
    recordSubmissionResult: assign((_, params: { result: 'accepted' | 'conflict' | 'rejected' }) => ({ lastSubmission: params.result })),
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
    // R11: "gated on an Initiated marker read back durable plus a quiescent server" and ref ≠ target.
    quiescentOffTarget: ({ context, event }) => refOff(reconcileServer(event), target(context)) && quiescentForSubmit(reconcileServer(event)),

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

    // E1–E3: results about the standing target only.
    resultForTarget: ({ context, event }) => 'imageId' in event && event.imageId === target(context),
  },
}).createMachine({
  id: 'serverRebuild',
  context: ({ input }) => ({
    serverId: input.stream.replace(/^server-rebuild-/, ''),
    marker: null,
    parked: false,
    submissions: 0,
    lastSubmission: null,
    health: null,
    provisionedAt: null,
    macAddress: null,
  }),
  initial: 'noMarker',
  // Monitor observations that advance nothing still record observed health (changes only).
  on: { observed: { actions: 'recordObservation' } },
  states: {
    noMarker: {
      on: {
        reconcile: [
          { guard: 'imageChangeBeforeFirstBoot', actions: outcome('deferred') }, // R0
          { guard: 'refUnreadable', actions: outcome('refUnreadable') }, // R2: no success over a dropped image change
          { guard: 'desiredDiffersFromRef', target: 'Initiated', actions: ['arm', outcome('armed')] }, // R3: the yield after is the durable commit point
          { actions: outcome('inSync') }, // R4: a marker-less ERROR never becomes a rebuild
        ],
      },
    },
    Initiated: {
      on: {
        reconcile: [
          { guard: 'imageChangeBeforeFirstBoot', actions: outcome('deferred') }, // R0
          { guard: 'markerTargetIsNotDesired', target: 'Initiated', reenter: true, actions: ['arm', outcome('rearmed')] }, // R1
          { guard: 'attributableFailure', target: 'Failed', actions: [{ type: 'setMarker', params: { state: 'Failed' } }, 'recordParkHealth', outcome('failureStamped')] }, // R6
          { guard: 'refUnreadable', actions: outcome('refUnreadable') }, // R7
          { guard: 'converged', target: 'noMarker', actions: ['clearMarker', outcome('cleared')] }, // R8
          { guard: 'acceptedAndRunning', target: 'Rebuilding', actions: [{ type: 'setMarker', params: { state: 'Rebuilding' } }, outcome('acceptanceRecorded')] }, // R9
          { guard: 'foreignTaskBusy', actions: outcome('foreignTaskBusy') }, // R10
          {
            guard: 'quiescentOffTarget', // R11: the single destructive step
            target: 'Initiated',
            reenter: true,
            actions: [
              'countSubmission',
              { type: 'nova.rebuild', params: ({ context }) => ({ serverId: context.serverId, imageId: target(context) }) },
              outcome('submitted'),
            ],
          },
          { actions: outcome('waiting') }, // R12: e.g. ref on target, task unknown or status unsettled
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
        ],
        // E2: a 409 is pre-acceptance: the marker stays Initiated
        'rebuild.conflict': { guard: 'resultForTarget', actions: [{ type: 'recordSubmissionResult', params: { result: 'conflict' } }, outcome('conflict')] },
        // E3: refused outright: stays Initiated; the controller backs off
        'rebuild.rejected': { guard: 'resultForTarget', actions: [{ type: 'recordSubmissionResult', params: { result: 'rejected' } }, outcome('rejected')] },
      },
    },
    Rebuilding: {
      on: {
        reconcile: [
          { guard: 'markerTargetIsNotDesired', target: 'Initiated', actions: ['arm', outcome('rearmed')] }, // R1
          { guard: 'attributableFailure', target: 'Failed', actions: [{ type: 'setMarker', params: { state: 'Failed' } }, 'recordParkHealth', outcome('failureStamped')] }, // R6
          { guard: 'refUnreadable', actions: outcome('refUnreadable') }, // R7
          { guard: 'converged', target: 'noMarker', actions: ['clearMarker', outcome('cleared')] }, // R8
          { guard: 'acceptedAndRunning', actions: outcome('rebuildInProgress') }, // R9: complete; the monitor's terminal advance wakes the next pass
          { actions: outcome('waiting') }, // R12
        ],
        observed: [
          { guard: 'observedRefOnTargetErrored', target: 'Failed', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Failed' } }, outcome('observedFailed')] }, // M1
          { guard: 'observedConverged', target: 'Succeeded', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Succeeded' } }, outcome('observedSucceeded')] }, // M3
          { guard: 'observedSuperseded', target: 'Failed', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Failed' } }, outcome('observedSuperseded')] }, // M4
          { guard: 'observedUnreadableRefErrored', target: 'Failed', actions: ['recordObservation', { type: 'setMarker', params: { state: 'Failed' } }, outcome('observedFailed')] }, // M5
          { actions: 'recordObservation' },
        ],
        'rebuild.accepted': { guard: 'resultForTarget', actions: { type: 'recordSubmissionResult', params: { result: 'accepted' } } }, // E1 after the monitor: no retreat, no stamp over a newer observation
      },
    },
    Succeeded: {
      on: {
        reconcile: [
          { guard: 'markerTargetIsNotDesired', target: 'Initiated', actions: ['arm', outcome('rearmed')] }, // R1
          // R6: the reconciler's park may overwrite a Succeeded stamped moments before an ERROR arrived
          { guard: 'attributableFailure', target: 'Failed', actions: [{ type: 'setMarker', params: { state: 'Failed' } }, 'recordParkHealth', outcome('failureStamped')] },
          { guard: 'refUnreadable', actions: outcome('refUnreadable') }, // R7
          { guard: 'converged', target: 'noMarker', actions: ['clearMarker', outcome('cleared')] }, // R8
          { actions: outcome('terminalUnsettled') }, // a terminal marker can never rank-advance again: yield, carrying liveness
        ],
        'rebuild.accepted': { guard: 'resultForTarget', actions: { type: 'recordSubmissionResult', params: { result: 'accepted' } } },
      },
    },
    Failed: {
      initial: 'stamped',
      on: { 'rebuild.accepted': { guard: 'resultForTarget', actions: { type: 'recordSubmissionResult', params: { result: 'accepted' } } } },
      states: {
        stamped: {
          on: {
            reconcile: [
              { guard: 'markerTargetIsNotDesired', target: '#serverRebuild.Initiated', actions: ['arm', outcome('rearmed')] }, // R1: a different image is the designed recovery
              // R5: "only a pass that reads Failed back issues the terminal user-action-required outcome"
              { target: 'parked', actions: ['markParked', outcome('parked')] },
            ],
          },
        },
        parked: {
          on: {
            reconcile: [
              { guard: 'markerTargetIsNotDesired', target: '#serverRebuild.Initiated', actions: ['arm', outcome('rearmed')] }, // R1, also over a parked Failed
              { actions: outcome('parked') }, // stays parked: recovery is a new image or a replacement, never an automatic retry
            ],
          },
        },
      },
    },
  },
});

/** The definition the engine and the registry use. */
export const serverRebuildDefinition: MachineDefinition = {
  id: 'serverRebuild',
  version: 1,
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
