/**
 * The create/delete lifecycle of a cloud resource Regent provisions under a deterministic name
 * (openstack-provider.md: "create lists by the stable generated name and exact-matches the result
 * before submitting a create, so controller retries adopt an existing [resource] rather than
 * duplicating it"; "delete uses the same rediscovery path, treats a missing [resource] as success,
 * yields after [OpenStack] accepts an asynchronous delete until a later rediscovery confirms absence").
 *
 * One factory, one machine per kind (Server, Network, …): the states and rules are the same, only the
 * effect names differ. Every pass brings a fresh exact-name observation (`absent` | `present`) and the
 * pass's clock (`at`, RFC 3339; machines never read one).
 *
 *   absent ──create──► creating ──created / observed──► present ──deletion──► deleteArmed ──read back──► deleting ──absent──► deleted
 *                          │ rejected, or attempts exhausted  │ L6                                ▲          ⟲ L8 re-sent
 *                          └────────────► failed ◄─────────────┘ (park; a new generation retries) ─┘ (deletion)
 *
 * L1 adopt: an observed resource is adopted, never duplicated. L2 create at most once per decision;
 * re-decided only on a fresh observation of absence, and at most `maxCreateAttempts` times. L3 delete
 * only under a deletion request, write-ahead: one pass arms the deletion (deleteArmed), a later pass
 * reads it back and submits the delete for the resource it observes then. L4 absence during deletion
 * is success.
 * L5 (servers) a resource that ended in ERROR without ever booting is deleted and created again from the
 * current spec, within the same bound of create attempts ("the bounded provider-create
 * delete-and-retry flow"); one that has booted is never destroyed and recreated.
 * L6 the bounded retry ends visibly: a fresh never-booted ERROR once the bound is spent is `failed`
 * (createRetriesExhausted, with the last fault the cloud reported), never left looking provisioned.
 * L7 `failed` never re-adopts a never-booted ERROR (that would restart L5 forever); a new spec
 * generation is the designed retry: delete-and-recreate from the current spec, write-ahead as L5.
 * L8 a dropped delete is sent again: while deleting (or recreating), a fresh observation of the same
 * resource after the decided delete's backoff (DELETE_RETRY_BACKOFF) decides the delete again. The
 * deletion was armed and read back before the first delete, so the re-sent one is still write-ahead.
 * L3, L4, L5's delete and L8 are the write-ahead delete of machines/write-ahead-delete.ts (W1–W5: the transitions'
 * steps, the ledger, the backoff): the target is the exact name, and the delete names the id observed then.
 * L9 a desired request that cannot be resolved (no image or flavor by that name, or two; no free VLAN id; a Server's
 * provider-create gates not all satisfied) is recorded
 * (desiredUnresolvable) and nothing else happens; the next pass that resolves it clears the record.
 * L10 (servers) the boot latch: once a resource has been seen booted — launched read fresh on a pass, or the
 * monitor's provisionedAt latch for that id carried on the observation — it is booted forever for that id
 * (`bootedIds`), so L5–L7 never treat a later ERROR with an empty launched_at as a never-booted create failure:
 * it is never deleted and recreated, it stays the same server (openstack-provider.md: the provisionedAt latch
 * "the controller's bounded provider-create delete-and-retry guard relies on (so a server that has booted is
 * never destroyed and recreated)"). Kinds that do not boot never carry the evidence and never latch.
 *
 * Over 500 lines: one factory with its stimulus codec, context and audit alphabet, which every kind built from it
 * shares; the rules above are what the tests cite.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import type { AnyMachineSnapshot } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';
import {
  NO_DELETE,
  arm,
  clockUnset,
  confirm,
  deleteResults,
  flatLedger,
  flatLedgerActions,
  inProgress,
  resend,
  resendDue,
  retryDueAt,
  submit,
  withdraw,
} from './write-ahead-delete.js';

// L8's backoff is the write-ahead delete's (W4); re-exported for the importers of this file.
export { DELETE_RETRY_BACKOFF, deleteRetryBackoffMs } from './write-ahead-delete.js';

export const Observed = t.union([
  t.type({ kind: t.literal('absent') }),
  /**
   * `launched`: the resource has ever booted (servers: Nova launched_at, read fresh); absent for kinds that
   * do not boot. `fault`: the message of the fault the cloud reports on it (Nova's `fault.message`, which
   * Nova shows to the project), read on the same lookup. `provisionedAt` (servers, L10): the monitor's
   * write-once latch for this id (the server-rebuild stream's provisionedAt), when it has one — evidence the
   * server booted even when this read's launched_at is empty. Optional: events stored before it decode as before.
   */
  t.intersection([t.type({ kind: t.literal('present'), id: t.string }), t.partial({ status: t.string, launched: t.boolean, fault: t.string, provisionedAt: t.string })]),
]);
export type Observed = t.TypeOf<typeof Observed>;

/**
 * Why the desired request could not be resolved (L9): a name that matches nothing, or more than one; or
 * (Networks, issue 16) no VLAN id is free in the Region's provider-network range, so nothing can be created
 * until one is freed or the range widened.
 */
export const UnresolvableReason = t.keyof({
  ImageNotFound: null,
  ImageAmbiguous: null,
  FlavorNotFound: null,
  FlavorAmbiguous: null,
  VlanRangeExhausted: null,
  /** Servers, issue 16: the pinned provider cannot take the flavor now (Placement preflight); retried. */
  PlacementPreflightMiss: null,
  /** Servers, issue 16: the pinned create cannot be sent (region credentials not bindable, no provider). */
  PinnedCreateUnavailable: null,
  /**
   * Servers, issue 17: spec.providerCreateGates declares gates its stored status does not record as satisfied;
   * nothing is created until every one is (asked only before the first create is decided). The message names them.
   */
  ProviderCreateGatesPending: null,
  /**
   * Servers, issue 17: sshInjection ca names an SSHCertificateAuthority that does not exist, is not of the
   * server's organization and project, or the user data is gzip (it cannot carry the CA); re-checked.
   */
  SshCertificateAuthorityUnusable: null,
});
export type UnresolvableReason = t.TypeOf<typeof UnresolvableReason>;

/** A refusal the cloud answered to a create or delete: its HTTP status, Regent's closed reason, and the fault message (redacted). */
const refusalFields = { status: t.number, reason: t.string };

export const lifecycleStimulus = () =>
  t.union([
    t.intersection([
      t.type({
        type: t.literal('reconcile'),
        source: t.literal('reconciler'),
        generation: t.number,
        deletionRequested: t.boolean,
        observed: Observed,
        /** What to create: the resolved request (ids, names, sizes). Never secrets. */
        desired: t.UnknownRecord,
      }),
      /** `at`: the pass's clock (RFC 3339). Optional so events stored before it existed still decode. */
      t.partial({ at: t.string }),
    ]),
    /** The resource's spec does not decode: nothing is done until a valid generation arrives. */
    t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
    /** L9: the spec decodes but names something the cloud does not have exactly once; `message` is user-safe. */
    t.type({ type: t.literal('desiredUnresolvable'), source: t.literal('reconciler'), generation: t.number, reason: UnresolvableReason, message: t.string }),
    t.type({ type: t.literal('created'), source: t.literal('effect'), id: t.string }),
    t.intersection([t.type({ type: t.literal('createRejected'), source: t.literal('effect'), ...refusalFields }), t.partial({ fault: t.string })]),
    t.type({ type: t.literal('deleteAccepted'), source: t.literal('effect') }),
    t.intersection([t.type({ type: t.literal('deleteRejected'), source: t.literal('effect'), ...refusalFields }), t.partial({ fault: t.string })]),
  ]);
export type LifecycleStimulus = t.TypeOf<ReturnType<typeof lifecycleStimulus>>;

export interface Refusal {
  status: number;
  reason: string;
  /** The cloud's own message (OpenStackError.fault: redacted, truncated); null when it sent none. */
  fault: string | null;
}

/** Why creation ended in `failed`, for status and the park message. */
export type CreateFailure =
  /** The cloud refused the create request (400, 403 quota or policy, 413, …). */
  | ({ kind: 'rejected' } & Refusal)
  /** L2: creates were decided `attempts` times and none ever appeared. */
  | { kind: 'attemptsExhausted'; attempts: number }
  /** L6: the resource ended in ERROR before it ever booted, on each of `attempts` creates. */
  | { kind: 'retriesExhausted'; attempts: number; fault: string | null };

export interface LifecycleContext {
  /** The OpenStack id, once known (created or adopted). */
  resourceId: string | null;
  createAttempts: number;
  /** Generation of the spec the last create was decided for. */
  createdForGeneration: number | null;
  /** Generation at which creation failed; a newer generation retries. */
  failedGeneration: number | null;
  lastError: string | null;
  /** Why creation failed, while `failed`; null otherwise. */
  createFailure: CreateFailure | null;
  /** Why the current spec was refused (which fields are wrong); null when the spec decodes. */
  specProblems: { generation: number; problems: string[] } | null;
  /** L9: why the desired request could not be resolved; null once a pass resolves it. */
  unresolvable: { generation: number; reason: UnresolvableReason; message: string } | null;
  /** Generation of the spec the last reconciler stimulus was decided from (reconcile, specRejected, desiredUnresolvable). */
  decidedGeneration: number | null;
  /** Delete requests decided for the current delete (1: the first; more: re-sent by L8). */
  deleteAttempts: number;
  /** The pass clock (`at`) of the last decided delete request; null when unknown (a pass without `at`). */
  lastDeleteAt: string | null;
  /** The last refusal of a delete request; cleared when the cloud accepts one. */
  deleteRefusal: Refusal | null;
  /**
   * L10: the ids of every resource seen booted under this name (launched read fresh, or the monitor's
   * provisionedAt latch on the observation), sorted; never cleared — a different id is a different server, which
   * has to boot on its own. A set, not the last id: remembering only the last let a server seen booted before
   * another one be destroyed when the name found it again (the model test's history exploration found that path).
   * It stays small: a booted server is never recreated, so a new id is only ever created after one vanished.
   * The machine always sets it (empty at first); optional only so contexts built by hand (projection tests) need
   * not name it.
   */
  bootedIds?: string[];
}

export interface LifecycleOptions {
  id: string;
  streamPrefix: string;
  createEffect: string;
  deleteEffect: string;
  maxCreateAttempts?: number;
  description: string;
  /**
   * The resource boots (servers: Nova's launched_at, the monitor's provisionedAt latch), so L5–L7 and L10 apply.
   * Only the audit alphabet reads it: kinds that do not boot never carry that evidence, and exploring it for them
   * doubled `regent check`'s graphs for nothing.
   */
  boots?: boolean;
}

/** When (epoch ms) L8 may send the delete again; null without a decided delete or a known time. */
export const deleteRetryDueAt = (context: Pick<LifecycleContext, 'deleteAttempts' | 'lastDeleteAt'>): number | null =>
  retryDueAt({ attempts: context.deleteAttempts, lastAt: context.lastDeleteAt });

type Reconcile = Extract<LifecycleStimulus, { type: 'reconcile' }>;
const asReconcile = (e: LifecycleStimulus): Reconcile => e as Reconcile;
const refusalOf = (e: LifecycleStimulus): Refusal | null =>
  e.type === 'createRejected' || e.type === 'deleteRejected' ? { status: e.status, reason: e.reason, fault: e.fault ?? null } : null;
const describeRefusal = (r: Refusal): string => `${r.reason} (${r.status})${r.fault ? `: ${r.fault}` : ''}`;
/** L10: this pass's evidence that the observed resource has booted (fresh launched_at, or the monitor's latch). */
const bootEvidenceIn = (e: LifecycleStimulus): string | null => {
  const observed = asReconcile(e).observed;
  return observed.kind === 'present' && (observed.launched === true || observed.provisionedAt !== undefined) ? observed.id : null;
};
/** L10: the latch with `id` added (sorted, once); the same array when there is nothing new, so nothing is stored. */
const latchBoot = (ids: string[], id: string | null): string[] => (id === null || ids.includes(id) ? ids : [...ids, id].sort());

/**
 * L5's evidence: a fresh read of ERROR with an empty launched_at, for a resource never seen booted (L10). Keying
 * off the fresh launched_at alone woke a server that had booted and was later read ERROR with launched_at empty
 * as a never-booted create failure, and destroyed and recreated it.
 */
const neverBootedErrorIn = (context: LifecycleContext, e: LifecycleStimulus): boolean => {
  const observed = asReconcile(e).observed;
  return observed.kind === 'present' && observed.status === 'ERROR' && observed.launched === false && bootEvidenceIn(e) === null && !(context.bootedIds ?? []).includes(observed.id);
};

/** The pass's clock (a result carries none). */
const passClock = (e: LifecycleStimulus): string | undefined => (e.type === 'reconcile' ? e.at : undefined);
/** The resource this pass observes is the one the standing delete is for (L8: the same id). */
const sameResourceIn = (context: LifecycleContext, e: LifecycleStimulus): boolean => {
  const observed = asReconcile(e).observed;
  return observed.kind === 'present' && observed.id === context.resourceId;
};
/** The write-ahead ledger (W5), kept flat in the context; a refusal is recorded for status as the last error too. */
const ledger = flatLedgerActions<LifecycleContext, LifecycleStimulus, Refusal>({
  at: passClock,
  refusalOf: (e) => (e.type === 'deleteRejected' ? refusalOf(e) : null),
  alsoOnRefusal: (refusal) => ({ lastError: describeRefusal(refusal) }),
});

export const buildLifecycleMachine = (options: LifecycleOptions) => {
  const maxAttempts = options.maxCreateAttempts ?? 3;
  const create = { type: 'createResource' as const, params: ({ event }: { event: LifecycleStimulus }) => ({ desired: asReconcile(event).desired }) };
  const remove = {
    type: 'deleteResource' as const,
    params: ({ context, event }: { context: LifecycleContext; event: LifecycleStimulus }) => {
      const observed = asReconcile(event).observed;
      return { id: observed.kind === 'present' ? observed.id : (context.resourceId ?? '') };
    },
  };
  return setup({
    types: {} as { context: LifecycleContext; events: LifecycleStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      // effects, renamed per kind by the definition (effectNames)
      createResource: declaredAction<{ desired: Record<string, unknown> }>(),
      deleteResource: declaredAction<{ id: string }>(),
      // first on every reconcile transition: the spec decoded and resolved at this generation (item 13: a pass on a new generation is stored)
      // L10 too: the boot latch is written on every pass that brings the evidence, whatever else it decides
      notePass: assign(({ context, event }) => ({ specProblems: null, unresolvable: null, decidedGeneration: asReconcile(event).generation, bootedIds: latchBoot(context.bootedIds ?? [], bootEvidenceIn(event)) })),
      countAttempt: assign(({ context, event }) => ({ createAttempts: context.createAttempts + 1, createdForGeneration: asReconcile(event).generation })),
      adopt: assign(({ event }) => {
        const observed = asReconcile(event).observed;
        return observed.kind === 'present' ? { resourceId: observed.id, lastError: null } : {};
      }),
      recordCreated: assign(({ event }) => ({ resourceId: (event as { id: string }).id, lastError: null })),
      // L2: the creates never landed
      recordAttemptsExhausted: assign(({ context, event }) => ({
        failedGeneration: asReconcile(event).generation,
        lastError: 'create attempts exhausted',
        createFailure: { kind: 'attemptsExhausted' as const, attempts: context.createAttempts },
      })),
      recordRejection: assign(({ context, event }) => {
        const refusal = refusalOf(event);
        return refusal
          ? { failedGeneration: context.createdForGeneration, lastError: describeRefusal(refusal), createFailure: { kind: 'rejected' as const, ...refusal } }
          : {};
      }),
      // L6: the bound is spent on a fresh never-booted ERROR
      recordRetriesExhausted: assign(({ context, event }) => {
        const observed = asReconcile(event).observed;
        const fault = observed.kind === 'present' ? (observed.fault ?? null) : null;
        return {
          failedGeneration: asReconcile(event).generation,
          lastError: `in ERROR before it ever booted, ${context.createAttempts} times${fault ? `: ${fault}` : ''}`,
          createFailure: { kind: 'retriesExhausted' as const, attempts: context.createAttempts, fault },
        };
      }),
      // L3/L5 the first delete request, L8 the delete sent again (and, for a delete decided by a pass without a
      // clock — stored before `at` existed — the backoff starts now), the cloud's answers: the write-ahead ledger (W5)
      ...ledger,
      recordSpecProblems: assign(({ event }) =>
        event.type === 'specRejected' ? { specProblems: { generation: event.generation, problems: event.problems }, unresolvable: null, decidedGeneration: event.generation } : {},
      ),
      recordUnresolvable: assign(({ event }) =>
        event.type === 'desiredUnresolvable'
          ? { unresolvable: { generation: event.generation, reason: event.reason, message: event.message }, specProblems: null, decidedGeneration: event.generation }
          : {},
      ),
      resetAttempts: assign({ createAttempts: 0, createdForGeneration: null, failedGeneration: null, lastError: null, createFailure: null }),
      forget: assign({ resourceId: null, ...NO_DELETE }),
    },
    guards: {
      deletionRequested: ({ event }) => asReconcile(event).deletionRequested,
      // L4: nothing to delete is success
      deletionRequestedAndAbsent: ({ event }) => asReconcile(event).deletionRequested && asReconcile(event).observed.kind === 'absent',
      observedPresent: ({ event }) => asReconcile(event).observed.kind === 'present',
      observedAbsent: ({ event }) => asReconcile(event).observed.kind === 'absent',
      // a resource other than the one the standing delete is for (the name now finds another id)
      observedAnother: ({ context, event }) => {
        const observed = asReconcile(event).observed;
        return observed.kind === 'present' && observed.id !== context.resourceId;
      },
      attemptsExhausted: ({ context }) => context.createAttempts >= maxAttempts,
      // L5: only a never-booted ERROR, read fresh on this pass and never latched booted (L10), and only while attempts remain
      erroredBeforeFirstBoot: ({ context, event }) => neverBootedErrorIn(context, event) && context.createAttempts < maxAttempts,
      // L6: the same fresh evidence once the create bound is spent
      erroredBeforeFirstBootAndRetriesExhausted: ({ context, event }) => neverBootedErrorIn(context, event) && context.createAttempts >= maxAttempts,
      // L7: failed never re-adopts a never-booted ERROR into the retries
      erroredBeforeFirstBootFresh: ({ context, event }) => neverBootedErrorIn(context, event),
      // L7: a newer spec generation is the designed retry of a server left in ERROR before it booted
      newGenerationOnErroredBeforeFirstBoot: ({ context, event }) =>
        neverBootedErrorIn(context, event) && context.failedGeneration !== null && asReconcile(event).generation > context.failedGeneration,
      newGeneration: ({ context, event }) => context.failedGeneration !== null && asReconcile(event).generation > context.failedGeneration,
      // L8 (deletion): still there, the same resource, the backoff since the last request elapsed (W4)
      deleteRetryDue: resendDue<LifecycleContext, LifecycleStimulus>({ seenAgain: (context, event) => asReconcile(event).deletionRequested && sameResourceIn(context, event), ledger: flatLedger, at: passClock }),
      // L8 (L5's delete): the same, and still the never-booted ERROR it was decided for
      recreateDeleteRetryDue: resendDue<LifecycleContext, LifecycleStimulus>({ seenAgain: (context, event) => neverBootedErrorIn(context, event) && sameResourceIn(context, event), ledger: flatLedger, at: passClock }),
      deleteClockUnset: ({ context, event }) => clockUnset(flatLedger(context), passClock(event)),
    },
  }).createMachine({
    id: options.id,
    context: {
      resourceId: null,
      createAttempts: 0,
      createdForGeneration: null,
      failedGeneration: null,
      lastError: null,
      createFailure: null,
      specProblems: null,
      unresolvable: null,
      decidedGeneration: null,
      deleteAttempts: 0,
      lastDeleteAt: null,
      deleteRefusal: null,
      bootedIds: [],
    },
    on: {
      // Any state: a spec that does not decode is recorded, and nothing else happens to the resource.
      specRejected: { actions: ['recordSpecProblems', outcome('specRejected')] },
      // L9, any state: a desired request that cannot be resolved is recorded, and nothing else happens.
      desiredUnresolvable: { actions: ['recordUnresolvable', outcome('desiredUnresolvable')] },
    },
    initial: 'absent',
    states: {
      absent: {
        on: {
          reconcile: [
            confirm({ guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['notePass'] }, 'nothingToDelete'), // L4: nothing to delete
            arm({ guard: 'deletionRequested', target: 'deleteArmed', actions: ['notePass', 'adopt'] }),
            { guard: 'observedPresent', target: 'present', actions: ['notePass', 'adopt', outcome('adopted')] }, // L1
            { target: 'creating', actions: ['notePass', 'countAttempt', create, outcome('createSubmitted')] }, // L2
          ],
        },
      },
      creating: {
        on: {
          reconcile: [
            confirm({ guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['notePass'] }, 'nothingToDelete'), // L4: nothing to delete
            arm({ guard: 'deletionRequested', target: 'deleteArmed', actions: ['notePass', 'adopt'] }),
            { guard: 'observedPresent', target: 'present', actions: ['notePass', 'adopt', outcome('observedCreated')] }, // L1
            { guard: 'attemptsExhausted', target: 'failed', actions: ['notePass', 'recordAttemptsExhausted', outcome('createExhausted')] }, // L2: the create attempts are spent
            // L2: a fresh observation of absence after a decided create: the create never landed
            { target: 'creating', reenter: true, actions: ['notePass', 'countAttempt', create, outcome('createResubmitted')] },
          ],
          created: { target: 'present', actions: ['recordCreated', outcome('created')] },
          createRejected: { target: 'failed', actions: ['recordRejection', outcome('createRejected')] },
        },
      },
      present: {
        on: {
          reconcile: [
            confirm({ guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['notePass', 'forget'] }, 'nothingToDelete'), // L4: nothing to delete
            arm({ guard: 'deletionRequested', target: 'deleteArmed', actions: ['notePass', 'adopt'] }), // L3: write-ahead
            { guard: 'observedAbsent', target: 'absent', actions: ['notePass', 'forget', 'resetAttempts', outcome('vanished')] },
            arm({ guard: 'erroredBeforeFirstBoot', target: 'recreateArmed', actions: ['notePass', 'adopt'] }, 'recreateArmed'), // L5: write-ahead
            { guard: 'erroredBeforeFirstBootAndRetriesExhausted', target: 'failed', actions: ['notePass', 'adopt', 'recordRetriesExhausted', outcome('createRetriesExhausted')] }, // L6
            { actions: ['notePass', 'adopt', outcome('present')] },
          ],
          created: { actions: 'recordCreated' },
        },
      },
      // L3, read back: the armed deletion is submitted on a later pass, for the resource observed now.
      deleteArmed: {
        on: {
          reconcile: [
            confirm({ guard: 'observedAbsent', target: 'deleted', actions: ['notePass', 'forget'] }), // L4
            submit({ guard: 'deletionRequested', target: 'deleting', actions: ['notePass', 'adopt', 'startDelete', remove] }),
            withdraw({ target: 'present', actions: ['notePass', 'adopt'] }),
          ],
        },
      },
      // L5, read back: still a never-booted ERROR on this fresh read → delete it; booted meanwhile → keep it.
      recreateArmed: {
        on: {
          reconcile: [
            confirm({ guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['notePass', 'forget'] }, 'nothingToDelete'), // L4: nothing to delete
            arm({ guard: 'deletionRequested', target: 'deleteArmed', actions: ['notePass', 'adopt'] }),
            { guard: 'observedAbsent', target: 'creating', actions: ['notePass', 'forget', 'countAttempt', create, outcome('recreateSubmitted')] },
            submit({ guard: 'erroredBeforeFirstBoot', target: 'recreating', actions: ['notePass', 'adopt', 'startDelete', remove] }, 'recreateDeleteSubmitted'),
            withdraw({ target: 'present', actions: ['notePass', 'adopt'] }, 'recreateCancelled'),
          ],
        },
      },
      // L5: the errored never-booted resource is being deleted; once gone, create it again.
      recreating: {
        on: {
          reconcile: [
            confirm({ guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['notePass', 'forget'] }, 'nothingToDelete'), // L4: nothing to delete
            // the delete already in flight serves the deletion too
            inProgress({ guard: 'deletionRequested', target: 'deleting', actions: ['notePass'] }),
            { guard: 'observedAbsent', target: 'creating', actions: ['notePass', 'forget', 'countAttempt', create, outcome('recreateSubmitted')] },
            // the name finds another of this resource's servers: the errored one is gone; adopt it (L1)
            { guard: 'observedAnother', target: 'present', actions: ['notePass', 'forget', 'adopt', outcome('recreateSuperseded')] },
            resend({ guard: 'recreateDeleteRetryDue', actions: ['notePass', 'repeatDelete', remove] }, 'recreateDeleteResubmitted'), // L8
            inProgress({ guard: 'deleteClockUnset', actions: ['notePass', 'startDeleteClock'] }, 'recreateDeleteInProgress'),
            inProgress({ actions: ['notePass'] }, 'recreateDeleteInProgress'),
          ],
          ...deleteResults(),
        },
      },
      deleting: {
        on: {
          reconcile: [
            confirm({ guard: 'observedAbsent', target: 'deleted', actions: ['notePass', 'forget'] }), // L4
            // the name finds another of this resource's servers: arm its deletion (write-ahead, L3)
            arm({ guard: 'observedAnother', target: 'deleteArmed', actions: ['notePass', 'forget', 'adopt'] }),
            resend({ guard: 'deleteRetryDue', actions: ['notePass', 'repeatDelete', remove] }), // L8
            inProgress({ guard: 'deleteClockUnset', actions: ['notePass', 'startDeleteClock'] }),
            inProgress({ actions: ['notePass'] }),
          ],
          ...deleteResults(),
        },
      },
      failed: {
        on: {
          reconcile: [
            confirm({ guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['notePass'] }, 'nothingToDelete'), // L4: nothing to delete
            arm({ guard: 'deletionRequested', target: 'deleteArmed', actions: ['notePass', 'adopt'] }),
            // L7: a new generation deletes the errored server (write-ahead) and creates it from the current spec
            arm({ guard: 'newGenerationOnErroredBeforeFirstBoot', target: 'recreateArmed', actions: ['notePass', 'adopt', 'resetAttempts'] }, 'recreateArmed'),
            // L7: never re-adopted into the retries
            { guard: 'erroredBeforeFirstBootFresh', actions: ['notePass', outcome('createFailed')] },
            { guard: 'observedPresent', target: 'present', actions: ['notePass', 'adopt', 'resetAttempts', outcome('adopted')] },
            { guard: 'newGeneration', target: 'creating', actions: ['notePass', 'resetAttempts', 'countAttempt', create, outcome('createSubmitted')] },
            { actions: ['notePass', outcome('createFailed')] },
          ],
        },
      },
      deleted: { type: 'final' },
    },
  });
};

/** Intent states: a destructive delete is armed (rank 1) or submitted (rank 2) for the resource id. */
const INTENT_RANK: Record<string, number> = { deleteArmed: 1, deleting: 2, recreateArmed: 1, recreating: 2 };

/** Pass clocks of the audit alphabet: a start, after L8's first backoff, and after any backoff. */
const AUDIT_TIMES = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:20Z', '2026-01-01T00:10:00Z'];

/** Audit hooks (machines/definition.ts MachineAudit): every decision-relevant pass and effect result. */
const lifecycleAudit = (boots: boolean): MachineAudit => ({
  alphabet: () => {
    const observations: Observed[] = boots
      ? [
          { kind: 'absent' },
          { kind: 'present', id: 'a', status: 'ACTIVE', launched: true },
          { kind: 'present', id: 'a', status: 'ERROR', launched: false, fault: 'No valid host was found.' },
          { kind: 'present', id: 'a', status: 'ERROR', launched: true },
          // L10: the monitor's latch on an ERROR whose launched_at reads empty
          { kind: 'present', id: 'a', status: 'ERROR', launched: false, provisionedAt: '2026-01-01T00:00:00Z' },
          { kind: 'present', id: 'b' },
        ]
      : // a kind that does not boot never carries boot evidence (no launched: true, no monitor latch); the never-booted
        // ERROR stays, since the machine accepts it (L5's recreate states would otherwise go unexplored)
        [{ kind: 'absent' }, { kind: 'present', id: 'a', status: 'ACTIVE' }, { kind: 'present', id: 'a', status: 'ERROR', launched: false }, { kind: 'present', id: 'b' }];
    const passes: Stimulus[] = [];
    for (const observed of observations)
      for (const deletionRequested of [false, true])
        for (const generation of [1, 2])
          for (const at of AUDIT_TIMES) passes.push({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, observed, desired: { name: 'x' }, at });
    // passes without a clock, as stored before `at` existed (L8 then starts the backoff on the next clocked pass)
    for (const observed of observations.slice(1, 3)) passes.push({ type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested: true, observed, desired: { name: 'x' } });
    return [
      ...passes,
      { type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.x: invalid'] },
      { type: 'desiredUnresolvable', source: 'reconciler', generation: 2, reason: 'ImageNotFound', message: "no Glance image is named exactly 'x'" },
      { type: 'created', source: 'effect', id: 'a' },
      { type: 'createRejected', source: 'effect', status: 403, reason: 'forbidden', fault: 'Quota exceeded for instances' },
      { type: 'deleteAccepted', source: 'effect' },
      { type: 'deleteRejected', source: 'effect', status: 409, reason: 'conflict', fault: 'Cannot delete while locked' },
    ];
  },
  // Only what guards read: the records kept for status (lastError, createFailure, deleteRefusal,
  // specProblems, unresolvable, decidedGeneration) never change a decision, and keeping them in the key
  // multiplied the explored graph tenfold without a single new edge kind.
  stateKey: (snapshot: AnyMachineSnapshot) => {
    const c = snapshot.context as LifecycleContext;
    return JSON.stringify([snapshot.value, c.resourceId, c.createAttempts, c.createdForGeneration, c.failedGeneration, c.deleteAttempts, c.lastDeleteAt, c.bootedIds ?? []]);
  },
  intentOf: (snapshot: AnyMachineSnapshot) => {
    const state = String(snapshot.value);
    return state in INTENT_RANK ? { target: (snapshot.context as LifecycleContext).resourceId ?? '', state } : null;
  },
  rank: (snapshot: AnyMachineSnapshot) => INTENT_RANK[String(snapshot.value)] ?? 0,
  parked: (snapshot: AnyMachineSnapshot) => snapshot.value === 'failed',
});

export const lifecycleDefinition = (options: LifecycleOptions): MachineDefinition<LifecycleContext> => ({
  audit: lifecycleAudit(options.boots ?? false),
  id: options.id,
  // v2: L6–L9 (retries end visibly, failed never re-adopts a never-booted ERROR, dropped deletes are sent again, unresolvable requests are recorded)
  // v3: L10 the boot latch — a server seen booted is never deleted and recreated on a later ERROR with launched_at
  // empty (v2 decided recreateArmed there). The stimulus only gained an optional field: no schema change, no upcaster.
  // Kinds that do not boot decide exactly as v2.
  version: 3,
  schemaVersion: 1,
  streamPrefix: options.streamPrefix,
  machine: buildLifecycleMachine(options),
  stimulus: lifecycleStimulus(),
  effects: ['createResource', 'deleteResource'],
  effectNames: { createResource: options.createEffect, deleteResource: options.deleteEffect },
  destructiveEffects: [options.deleteEffect],
  description: options.description,
});
