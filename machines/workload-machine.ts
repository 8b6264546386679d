/**
 * A WorkloadMachine's Nova server on its Neutron port (openstack-cluster-modules.md, the machine role: "one Nova server
 * per `Machine` on a Neutron port of that subnet", control-plane servers in the API pools "before they boot"; issue
 * 29). One stream per WorkloadMachine (`workload-machine-<uid>`). The contract — the desired machine, the observation,
 * the effects and their params — is machines/workload-machine/observation.ts; the answers are the workload handlers'
 * four outcomes (machines/workload-cluster/observation.ts). The plan of one pass is machines/workload-machine/plan.ts.
 *
 *   pending ─► provisioning ⟲ port, then (register before boot) server, one create per pass ─ACTIVE─► running
 *                 │ ▲                                                                       └─ERROR─► errored
 *                 │ └─ inconsistent (duplicate, name taken) · failed (a refused create) · invalid (spec)
 *                 └─deletionRequested─► deleting: waiting (leave the pools) ─► armed ─► deletingServer ─► deletingPort ─► released
 *
 * WM1  Only the reconciler decides: a `reconcile` pass from the reconciler is the only stimulus that declares an effect
 *      or arms; an effect's answer records its result (and parks a refused create, WM8) and declares nothing; a
 *      stimulus of another source changes nothing (the codec pins each stimulus to its source, and the machine refuses
 *      the others too). A pass that observes what the last one did stores nothing.
 * WM2  No exports yet (desired null): the machine waits (WaitingForCluster) and decides nothing — unless deleting
 *      (WM10–WM15 proceed from what is observed).
 * WM3  Nothing is created for a machine that cannot boot: while no server of Regent's is observed, an image not found
 *      waits (ImageNotFound), a flavor not found waits (FlavorNotFound). A server already there is not affected.
 * WM4  A duplicate lookup (two ports under `wm-<uid>`, two servers under the name) is a consistency problem
 *      (DuplicatePort / DuplicateServer, the ids named): nothing is decided, nothing is picked from, in a deletion too.
 * WM5  A `foreign` server (the machine's name, another or no `regent.dev:uid`) is ServerNameTaken: never adopted,
 *      never deleted; a deletion treats the name as holding no server of Regent's.
 * WM6  The port first: port absent → `createPort` (its name, the cluster's network and subnet, the role's security
 *      groups, the allowed address CIDRs, the tags). A port without an address on the subnet yet waits (WaitingForAddress).
 * WM7  Register before boot: a control plane with desired pools creates its server only when the observation shows it
 *      a member of every desired pool (an entry for each, member true); otherwise it waits (WaitingForPoolMembership,
 *      naming the pools missing). The cluster adds the members, not this machine. A worker never waits for pools.
 * WM8  The server: the port with its address, no server → `createServer` (name, uid, image, flavor, the port, the user
 *      data's digest, zone, server group, metadata). A create decided, not refused, whose object a fresh lookup does
 *      not show is decided again only once CREATE_GRACE_MS (60 s) has passed on the passes' clocks (CreateMayStillLand):
 *      an unanswered create (outcomeUnknown, or no answer) is settled by evidence, never re-sent on the next pass. A
 *      refused create (`rejected`) is recorded (failure) and parks in `failed` until a new generation.
 * WM9  Regent's server decides the state: ACTIVE → running, ERROR → errored (named; never deleted automatically), any
 *      other status waits (ServerNotActive). The desired image is never compared with the server's: an image change is
 *      the rebuild protocol's (its own stream), this machine never recreates a server for it.
 * WM10 Leave before delete: a deletion first waits while any observed membership entry shows the machine a member
 *      (LeavingPools: the cluster removes the members of a machine being deleted); nothing is armed or deleted then.
 * WM11 Write-ahead (machines/write-ahead-delete.ts W1): a deletion pass that observes Regent's server arms its id
 *      (deleteArmed: an event, no effect); a pass that observes another id arms that one instead.
 * WM12 W2–W4: only a later pass that observes the armed id again decides `deleteServer` (destructive) for it; then the
 *      machine waits for the server to be observed absent; a server still observed once the backoff since the last
 *      request has passed (DELETE_RETRY_BACKOFF) is deleted again. Refusals and unknown answers are recorded (W5).
 * WM13 With no server of Regent's observed: the port is deleted (`deletePort`, not destructive: nothing runs on it),
 *      but only a port whose device is none or the server this machine deleted; a port bound elsewhere is PortInUse
 *      and waits. Its delete is re-sent on the same backoff while the port is still observed.
 * WM14 Released: port and server (of Regent's) both observed absent → `released`, final; nothing more is decided. A
 *      deletion of a machine that never created anything releases on its first pass.
 * WM15 A deletion never releases under a create that may still land (WM8's grace): it waits for the evidence.
 * WM16 A spec that does not decode (specRejected) is recorded and parks in `invalid` (nothing decided); a deletion
 *      still proceeds and the next decodable pass continues.
 * WM17 A deletion pass without the deletion request (withdrawn) drops the arm and decides nothing; the next pass
 *      decides live.
 */
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';
import { arm, confirm, inProgress, resend, submit, withdraw } from './write-ahead-delete.js';
import { WORKLOAD_MACHINE_EFFECTS as E, WorkloadMachineStimulus } from './workload-machine/observation.js';
import {
  answersCreate,
  answersDelete,
  deletion,
  isReconcile,
  live,
  portNameOf,
  serverSubject,
  WORKLOAD_MACHINE_STREAM_PREFIX,
  type Args,
  type CreatePortParams,
  type CreateServerParams,
  type DeletionProgress,
  type Event,
  type Reconcile,
  type WorkloadMachineContext,
} from './workload-machine/plan.js';
import { workloadMachineAlphabet } from './workload-machine/audit.js';

export { CREATE_GRACE_MS, type WaitReason, type ProblemKind, type CreateMemory, type DeletionProgress, type WorkloadMachineContext } from './workload-machine/plan.js';
export { WORKLOAD_MACHINE_EFFECTS, WorkloadMachineStimulus } from './workload-machine/observation.js';

export const workloadMachineStream = (uid: string): string => `${WORKLOAD_MACHINE_STREAM_PREFIX}${uid}`;

const rec = (event: Event): Reconcile => event as Reconcile;
const liveKind = ({ context, event }: Args) => live(context, event)?.kind ?? null;
const deletionKind = ({ context, event }: Args) => (isReconcile(event) && event.deletionRequested ? (deletion(context, event)?.kind ?? null) : null);

/** WM1: a decision's stimulus from anywhere but the reconciler changes nothing. */
const notByReconciler = { guard: 'notByReconciler', actions: [] } as const;
/** WM1: only an effect answers. */
const notByEffect = { guard: 'notByEffect', actions: [] } as const;

const createPortEffect = {
  type: E.createPort,
  params: ({ context, event }: Args) => {
    const s = live(context, event);
    return s?.kind === 'createPort' ? s.params : ({} as CreatePortParams);
  },
};
const createServerEffect = {
  type: E.createServer,
  params: ({ context, event }: Args) => {
    const s = live(context, event);
    return s?.kind === 'createServer' ? s.params : ({} as CreateServerParams);
  },
};
const deleteServerEffect = {
  type: E.deleteServer,
  params: ({ context, event }: Args) => {
    const s = deletion(context, event);
    const id = s && 'serverId' in s ? s.serverId : '';
    return { subject: serverSubject(context, id), id };
  },
};
const deletePortEffect = {
  type: E.deletePort,
  params: ({ context, event }: Args) => {
    const s = deletion(context, event);
    return { subject: context.portName, id: s && 'portId' in s ? s.portId : '' };
  },
};

const ANSWER_WORD = { accepted: 'accepted', conflict: 'conflict', rejected: 'rejected', outcomeUnknown: 'unknown' } as const;

/** WM2–WM9: a pass without a deletion request (its order is the rules'). */
const LIVE = [
  { guard: 'liveProblem', target: '#workloadMachine.inconsistent', actions: ['notePass', 'recordProblem', outcome('consistencyProblem')] }, // WM4, WM5
  { guard: 'portDue', target: '#workloadMachine.provisioning', actions: ['notePass', createPortEffect, 'rememberCreate', outcome('portCreateDecided')] }, // WM6
  { guard: 'serverDue', target: '#workloadMachine.provisioning', actions: ['notePass', createServerEffect, 'rememberCreate', outcome('serverCreateDecided')] }, // WM7, WM8
  { guard: 'serverActive', target: '#workloadMachine.running', actions: ['notePass', outcome('running')] }, // WM9
  { guard: 'serverErrored', target: '#workloadMachine.errored', actions: ['notePass', outcome('errored')] }, // WM9
  { target: '#workloadMachine.provisioning', actions: ['notePass', 'recordWait', outcome('waiting')] }, // WM2, WM3, WM6–WM9: a wait
] as const;

/** WM10–WM15: a pass with the deletion request, from any state. */
const DELETION = [
  { guard: 'deletionBlocked', target: '#workloadMachine.deleting.blocked', actions: ['notePass', 'recordDeletionProblem', 'deletionBlocked', outcome('deletionBlocked')] }, // WM4, WM13
  { guard: 'deletionLeavingPools', target: '#workloadMachine.deleting.waiting', actions: ['notePass', 'recordDeletionWait', 'deletionWaits', outcome('leavingPools')] }, // WM10
  { guard: 'deletionAwaitsCreate', target: '#workloadMachine.deleting.waiting', actions: ['notePass', 'recordDeletionWait', 'deletionWaits', outcome('deletionAwaitsCreate')] }, // WM15
  arm({ guard: 'serverToArm', target: '#workloadMachine.deleting.armed', actions: ['notePass', 'armServer'] }), // WM11
  submit({ guard: 'armedServerSeenAgain', target: '#workloadMachine.deleting.deletingServer', actions: ['notePass', deleteServerEffect, 'startServerDelete'] }), // WM12
  resend({ guard: 'serverDeleteDueAgain', actions: ['notePass', deleteServerEffect, 'repeatDelete'] }), // WM12 (W4)
  inProgress({ guard: 'serverDeleteInProgress', actions: ['notePass', 'recordDeletionWait'] }), // WM12 (W3)
  { guard: 'portToDelete', target: '#workloadMachine.deleting.deletingPort', actions: ['notePass', deletePortEffect, 'startPortDelete', outcome('portDeleteDecided')] }, // WM13
  resend({ guard: 'portDeleteDueAgain', actions: ['notePass', deletePortEffect, 'repeatDelete'] }, 'portDeleteResubmitted'), // WM13
  inProgress({ guard: 'portDeleteInProgress', actions: ['notePass', 'recordDeletionWait'] }, 'portDeleteInProgress'), // WM13
  confirm({ guard: 'nothingLeft', target: '#workloadMachine.released', actions: ['notePass', 'markReleased'] }, 'released'), // WM14
] as const;

const SPEC_REJECTED = [notByReconciler, { target: '#workloadMachine.invalid', actions: ['recordSpecRejected', outcome('specRejected')] }] as const; // WM16

const liveState = { on: { reconcile: [notByReconciler, ...DELETION, ...LIVE], specRejected: SPEC_REJECTED } } as const;

/** WM12/WM13: the ledger of the delete standing (W5). */
const ledger = (d: DeletionProgress | null, patch: Partial<DeletionProgress>): DeletionProgress => ({
  step: 'waiting',
  serverId: null,
  deletedServerId: null,
  portId: null,
  attempts: 0,
  lastAt: null,
  refusal: null,
  ...d,
  ...patch,
});

export const buildWorkloadMachine = () =>
  setup({
    types: {} as { context: WorkloadMachineContext; events: Event; input: { stream: string } },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      [E.createPort]: declaredAction<CreatePortParams>(),
      [E.createServer]: declaredAction<CreateServerParams>(),
      [E.deleteServer]: declaredAction<{ subject: string; id: string }>(),
      [E.deletePort]: declaredAction<{ subject: string; id: string }>(),
      // every pass: what it observed (status only; decides nothing), its generation; a live pass holds no deletion
      notePass: assign(({ context, event }) => {
        const e = rec(event);
        const port = e.observed.port.kind === 'present' ? e.observed.port : null;
        const server = e.observed.server.kind === 'present' && !e.observed.server.foreign ? e.observed.server : null;
        return {
          name: e.desired?.name ?? context.name,
          portName: e.desired?.portName ?? context.portName,
          role: e.desired?.role ?? context.role,
          portId: port?.id ?? null,
          address: port?.address ?? null,
          serverId: server?.id ?? null,
          serverStatus: server?.status ?? null,
          imageId: server?.imageId ?? null,
          membership: e.observed.membership.map((m) => ({ name: m.name, poolId: m.poolId, member: m.member, provisioningStatus: m.provisioningStatus })),
          waiting: null,
          problem: null,
          decidedGeneration: e.generation,
          deletion: e.deletionRequested ? context.deletion : null,
          // WM8: a create whose object is observed has landed: settled by the evidence
          create: context.create !== null && (context.create.effect === E.createPort ? port !== null : server !== null) ? null : context.create,
        };
      }),
      recordProblem: assign(({ context, event }) => {
        const s = live(context, event);
        return { problem: s?.kind === 'problem' ? s.problem : null };
      }),
      recordWait: assign(({ context, event }) => {
        const s = live(context, event);
        return { waiting: s?.kind === 'wait' ? { reason: s.reason, detail: s.detail } : null };
      }),
      rememberCreate: assign(({ context, event }) => {
        const s = live(context, event);
        const e = rec(event);
        if (s?.kind !== 'createPort' && s?.kind !== 'createServer') return {};
        return { create: { effect: s.kind === 'createPort' ? E.createPort : E.createServer, subject: s.params.subject, generation: e.generation, decidedAt: e.at, answer: 'pending' as const } };
      }),
      recordDeletionProblem: assign(({ context, event }) => {
        const s = deletion(context, event);
        return { problem: s?.kind === 'problem' ? s.problem : null };
      }),
      recordDeletionWait: assign(({ context, event }) => {
        const s = deletion(context, event);
        if (s?.kind === 'leaving') return { waiting: { reason: 'LeavingPools' as const, detail: `still a member of ${s.pools.join(', ')}` } };
        if (s?.kind === 'awaitingCreate') return { waiting: { reason: 'CreateMayStillLand' as const, detail: s.subject } };
        if (s?.kind === 'serverInProgress') return { waiting: { reason: 'ServerDeleting' as const, detail: `server ${s.serverId}` } };
        if (s?.kind === 'portInProgress') return { waiting: { reason: 'PortDeleting' as const, detail: `port ${s.portId}` } };
        return {};
      }),
      deletionBlocked: assign(({ context }) => ({ deletion: ledger(context.deletion, { step: 'blocked', serverId: null, attempts: 0, lastAt: null, refusal: null }) })),
      deletionWaits: assign(({ context }) => ({ deletion: ledger(context.deletion, { step: 'waiting', serverId: null, attempts: 0, lastAt: null, refusal: null }) })),
      armServer: assign(({ context, event }) => {
        const s = deletion(context, event);
        return { deletion: ledger(context.deletion, { step: 'armed', serverId: s?.kind === 'arm' ? s.serverId : null, attempts: 0, lastAt: null, refusal: null }) };
      }),
      startServerDelete: assign(({ context, event }) => {
        const s = deletion(context, event);
        const id = s?.kind === 'deleteServer' ? s.serverId : null;
        return { deletion: ledger(context.deletion, { step: 'server', serverId: id, deletedServerId: id, attempts: 1, lastAt: rec(event).at, refusal: null }) };
      }),
      startPortDelete: assign(({ context, event }) => {
        const s = deletion(context, event);
        return { deletion: ledger(context.deletion, { step: 'port', portId: s?.kind === 'deletePort' ? s.portId : null, attempts: 1, lastAt: rec(event).at, refusal: null }) };
      }),
      repeatDelete: assign(({ context, event }) => ({ deletion: ledger(context.deletion, { attempts: (context.deletion?.attempts ?? 0) + 1, lastAt: rec(event).at }) })),
      disarm: assign({ deletion: null }),
      markReleased: assign({ released: true, deletion: null, waiting: null, problem: null }),
      recordSpecRejected: assign(({ event }) => (event.type === 'specRejected' ? { invalidSpec: { generation: event.generation, problems: [...event.problems] } } : {})),
      recordCreateAnswer: assign(({ context, event }) => {
        if (!('effect' in event) || context.create === null) return {};
        const word = ANSWER_WORD[event.type as keyof typeof ANSWER_WORD];
        const id = event.type === 'accepted' ? event.ids?.id : undefined;
        const ids = id === undefined ? {} : context.create.effect === E.createPort ? { portId: id } : { serverId: id };
        return { ...ids, lastAnswer: { effect: event.effect, answer: word }, create: { ...context.create, answer: word === 'rejected' ? context.create.answer : word } };
      }),
      recordCreateRefused: assign(({ context, event }) => {
        if (event.type !== 'rejected' || context.create === null) return {};
        return {
          lastAnswer: { effect: event.effect, answer: 'rejected' as const },
          failure: { effect: event.effect, subject: event.subject, status: event.status, reason: event.reason, generation: context.create.generation },
          create: null,
        };
      }),
      // a create refused while deleting: nothing to park (the deletion goes on), nothing of it may still land
      forgetRefusedCreate: assign(({ event }) => (event.type === 'rejected' ? { lastAnswer: { effect: event.effect, answer: 'rejected' as const }, create: null } : {})),
      recordDeleteAnswer: assign(({ context, event }) => {
        if (!('effect' in event) || context.deletion === null) return {};
        const word = ANSWER_WORD[event.type as keyof typeof ANSWER_WORD];
        const refusal =
          event.type === 'rejected' ? { effect: event.effect, status: event.status, reason: event.reason } : event.type === 'conflict' ? { effect: event.effect, status: 409, reason: 'conflict' } : event.type === 'accepted' ? null : context.deletion.refusal;
        return { lastAnswer: { effect: event.effect, answer: word }, deletion: { ...context.deletion, refusal } };
      }),
      clearFailure: assign({ failure: null }),
    },
    guards: {
      notByReconciler: ({ event }) => event.source !== 'reconciler',
      notByEffect: ({ event }) => event.source !== 'effect',
      // WM4, WM5
      liveProblem: (args) => liveKind(args) === 'problem',
      // WM6: "port absent → decide createPort"
      portDue: (args) => liveKind(args) === 'createPort',
      // WM7, WM8: "the port with its address, every desired pool a member (control plane), no server → createServer"
      serverDue: (args) => liveKind(args) === 'createServer',
      // WM9
      serverActive: (args) => liveKind(args) === 'running',
      serverErrored: (args) => liveKind(args) === 'errored',
      // WM8: "a refused create parks until a new generation"
      failedStands: ({ context, event }) => isReconcile(event) && !event.deletionRequested && context.failure !== null && event.generation <= context.failure.generation,
      // WM17
      deletionWithdrawn: ({ event }) => isReconcile(event) && !event.deletionRequested,
      // WM4, WM13
      deletionBlocked: (args) => deletionKind(args) === 'problem',
      // WM10: "wait until every observed membership entry shows member false"
      deletionLeavingPools: (args) => deletionKind(args) === 'leaving',
      // WM15
      deletionAwaitsCreate: (args) => deletionKind(args) === 'awaitingCreate',
      // WM11: "a pass arms the server id observed"
      serverToArm: (args) => deletionKind(args) === 'arm',
      // WM12: "a later pass that observes the same server id again decides deleteServer"
      armedServerSeenAgain: (args) => deletionKind(args) === 'deleteServer',
      serverDeleteDueAgain: (args) => deletionKind(args) === 'resendServer',
      serverDeleteInProgress: (args) => deletionKind(args) === 'serverInProgress',
      // WM13: "only a port whose deviceId is null or the deleted server's id"
      portToDelete: (args) => deletionKind(args) === 'deletePort',
      portDeleteDueAgain: (args) => deletionKind(args) === 'resendPort',
      portDeleteInProgress: (args) => deletionKind(args) === 'portInProgress',
      // WM14: "port and server both observed absent"
      nothingLeft: (args) => deletionKind(args) === 'released',
      // WM1, WM8: answers are recorded against the decision they answer only
      answersCreate: ({ context, event }) => answersCreate(context, event),
      answersDelete: ({ context, event }) => answersDelete(context, event),
    },
  }).createMachine({
    id: 'workloadMachine',
    context: ({ input }) => {
      const uid = input.stream.startsWith(WORKLOAD_MACHINE_STREAM_PREFIX) ? input.stream.slice(WORKLOAD_MACHINE_STREAM_PREFIX.length) : input.stream;
      return {
        uid,
        name: null,
        portName: portNameOf(uid),
        role: null,
        portId: null,
        address: null,
        serverId: null,
        serverStatus: null,
        imageId: null,
        membership: [],
        waiting: null,
        problem: null,
        failure: null,
        invalidSpec: null,
        lastAnswer: null,
        create: null,
        decidedGeneration: null,
        deletion: null,
        released: false,
      };
    },
    // WM1/WM8/WM12: answers anywhere, recorded against the decision they answer (a late or foreign one is not stored)
    on: {
      accepted: [notByEffect, { guard: 'answersCreate', actions: ['recordCreateAnswer', outcome('createAccepted')] }, { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteAccepted')] }],
      conflict: [notByEffect, { guard: 'answersCreate', actions: ['recordCreateAnswer', outcome('createConflict')] }, { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteConflict')] }],
      rejected: [
        notByEffect,
        { guard: 'answersCreate', target: '#workloadMachine.failed', actions: ['recordCreateRefused', outcome('createRejected')] }, // WM8: parked
        { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteRejected')] },
      ],
      outcomeUnknown: [notByEffect, { guard: 'answersCreate', actions: ['recordCreateAnswer', outcome('createOutcomeUnknown')] }, { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteOutcomeUnknown')] }],
    },
    initial: 'pending',
    states: {
      // Nothing decided yet.
      pending: liveState,
      // WM2, WM3, WM6–WM9: a create decided, or a wait (context.waiting says for what).
      provisioning: liveState,
      // WM9: Regent's server ACTIVE.
      running: liveState,
      // WM9: Regent's server in ERROR: named, never deleted automatically.
      errored: liveState,
      // WM4, WM5: a consistency problem stands (context.problem); a clean pass continues.
      inconsistent: liveState,
      // WM16: the spec did not decode; the next decodable pass continues.
      invalid: liveState,
      // WM8: a create refused: parked until a new generation (a deletion proceeds).
      failed: {
        exit: 'clearFailure',
        on: {
          reconcile: [notByReconciler, ...DELETION, { guard: 'failedStands', actions: ['notePass', outcome('failedStands')] }, ...LIVE],
          specRejected: SPEC_REJECTED,
        },
      },
      deleting: {
        initial: 'waiting',
        on: {
          reconcile: [notByReconciler, withdraw({ guard: 'deletionWithdrawn', target: '#workloadMachine.provisioning', actions: ['notePass', 'disarm'] }), ...DELETION], // WM17
          // WM16: recorded; the deletion proceeds
          specRejected: [notByReconciler, { actions: ['recordSpecRejected', outcome('specRejected')] }],
          // WM8 while deleting: a refused create is recorded in lastAnswer only, the deletion goes on
          rejected: [
            notByEffect,
            { guard: 'answersCreate', actions: ['forgetRefusedCreate', outcome('createRejected')] },
            { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteRejected')] },
          ],
        },
        states: {
          // WM10, WM15: waiting for the pools to drop the members, or for a create that may still land.
          waiting: {},
          // WM11: the server id armed; a later pass reads it back.
          armed: {},
          // WM12: the server's delete decided; absence confirms.
          deletingServer: {},
          // WM13: the port's delete decided; absence releases.
          deletingPort: {},
          // WM4, WM13: a duplicate, or a port bound elsewhere: nothing decided while it stands.
          blocked: {},
        },
      },
      // WM14
      released: { type: 'final' },
    },
  });

const audit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => workloadMachineAlphabet(),
  // Only what a later decision reads (plan.ts): the create memory, the deletion's target and ledger, the failure's
  // generation and the names answers are matched by; what was observed, waited for and answered is status only.
  stateKey: (snapshot) => {
    const c = snapshot.context as WorkloadMachineContext;
    const d = c.deletion;
    return JSON.stringify([
      snapshot.value,
      c.name,
      c.portName,
      c.create && [c.create.effect, c.create.subject, c.create.generation, c.create.decidedAt],
      c.failure?.generation ?? null,
      d && [d.step, d.serverId, d.deletedServerId, d.portId, d.attempts, d.lastAt],
    ]);
  },
  // WM11/WM12: the write-ahead intent deleteServer needs: the server id armed (rank 1) or whose delete was decided (2)
  intentOf: (snapshot) => {
    const d = (snapshot.context as WorkloadMachineContext).deletion;
    return d !== null && d.serverId !== null && (d.step === 'armed' || d.step === 'server') ? { target: d.serverId, state: d.step } : null;
  },
  rank: (snapshot) => {
    const d = (snapshot.context as WorkloadMachineContext).deletion;
    return d?.step === 'server' ? 2 : d?.step === 'armed' ? 1 : 0;
  },
  parked: (snapshot) => snapshot.value === 'failed' || snapshot.value === 'invalid',
});

export const workloadMachineDefinition: MachineDefinition<WorkloadMachineContext> = {
  id: 'workloadMachine',
  version: 1,
  schemaVersion: 1,
  streamPrefix: WORKLOAD_MACHINE_STREAM_PREFIX,
  machine: buildWorkloadMachine(),
  stimulus: WorkloadMachineStimulus,
  effects: Object.values(E),
  destructiveEffects: [E.deleteServer],
  input: (stream) => ({ stream }),
  description:
    "A WorkloadMachine's Nova server on its Neutron port wm-<uid> (openstack-cluster-modules.md, the machine role; issue 29): the port first, a control plane registered in every API pool before its server is created, a create whose answer was lost settled by a fresh lookup and a grace, ERROR named and never deleted, a foreign server of the same name never adopted or deleted; deletion leaves the pools, then write-ahead deletes the server, then the port.",
  audit: audit(),
};
