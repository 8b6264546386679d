/**
 * The write-ahead delete: the one protocol by which a machine destroys something in the cloud, shared by the
 * lifecycle factory (Server, Network, SecurityGroup: machines/lifecycle.ts), volumeLifecycle, loadBalancer (its
 * prunes and its cascade delete) and identityLifecycle. openstack-provider.md: "delete uses the same rediscovery
 * path, treats a missing [resource] as success, yields after [OpenStack] accepts an asynchronous delete until a
 * later rediscovery confirms absence"; ARCHITECTURE.md, "Write-ahead by construction".
 *
 *   live ──W1 arm──► armed ──W2 read back: the target seen again, one delete──► submitted ──W3 seen absent──► deleted
 *                    ▲   │ another target seen: armed for it (W1)                 │ ⟲ W4 the same target seen again
 *                    └───┘                                                        │   after the backoff: re-sent
 *
 * W1 arm: a reconciler pass that carries the authority to delete — a deletion request, or a rule of the machine's own
 *    (L5's never-booted ERROR, LB8's name the spec no longer implies) — records the intent and deletes nothing. Once
 *    armed, a pass that finds another target under the name arms for that one instead; the pass that deletes it
 *    needs the authority again.
 * W2 read back: only a later pass, finding the arm recorded in an earlier event, decides the delete, and only for a
 *    target that pass observes present: an arm is no authority over what a later pass does not see.
 * W3 confirm by absence: a pass that no longer observes the target ends the delete (deleted, or the next step); an
 *    accepted request is not success.
 * W4 re-send: a delete that did not take is decided again only by a pass that observes the same target again, once
 *    the backoff since the last request has passed (DELETE_RETRY_BACKOFF: 15 s, doubling, at most 5 min). A refusal is
 *    recorded and waits out the same backoff. An answer a machine knows to mean "busy, nothing done" (Octavia's 409)
 *    may be re-sent at once (`atOnce`).
 * W5 the ledger: the requests decided for the current delete, the clock of the last, the last refusal. One delete at
 *    a time: a new arm, a target seen gone, or a delete of another target (the load balancer's cascade after its
 *    floating IP's release) starts a new one.
 *
 * What each machine gives the protocol:
 *
 * | machine | target | authority | absence | W4 |
 * |---|---|---|---|---|
 * | lifecycle factory (L3, L4, L5, L8) | the exact name; the delete names the id observed then | deletionRequested; L5's never-booted ERROR | observed absent | yes |
 * | volumeLifecycle (V11, V12) | the Cinder id observed at the arm (another id is armed first) | deletionRequested, nothing attached, a status Cinder deletes | observed absent; no project (V11) | yes |
 * | loadBalancer deletion (LB14) | the load balancer id observed at the arm; first its floating IP | deletionRequested | absent, or DELETED | yes, at once after a 409 |
 * | loadBalancer prunes (LB8, LB9) | the ids armed (what the spec no longer implies) | the name no longer implied | not observed | a refusal parks until a new generation |
 * | identityLifecycle (D1–D4) | its parts, one per pass: keypair, credential, user, project | deletionRequested, no dependents | nothing Regent created remains | no ledger |
 *
 * Where a machine still differs from W4 (stated, not hidden; changing either changes decisions, so a version bump):
 * - loadBalancer prunes keep no ledger: a prune Octavia dropped is sent again by the next pass that still sees its
 *   target ACTIVE. A refused one parks in `failed` until a new generation — but a spec rejected (its Region's external
 *   network gone) or a deletion requested on the same generation leaves `failed`, and the next pass arms and sends
 *   the refused prune again (LB12).
 * - identityLifecycle keeps no ledger: every armed pass that still sees a part deletes it, a refused delete included,
 *   paced only by its controller's yield (1 s).
 * test/machines/write-ahead-delete.test.ts proves W1–W4 on every path of each machine's audit graph, with an observer
 * that reads only the stream; these two are its pending tests.
 *
 * What this module gives them: the backoff and the ledger (W4, W5) as pure functions, the ledger's actions for the
 * contexts that keep it flat (`deleteAttempts`, `lastDeleteAt`, `deleteRefusal`: lifecycle and volume), the re-send
 * guard, the builders of the protocol's transitions (each names its step and appends the step's outcome, so every
 * machine's stream says `deleteArmed`, `deleteSubmitted`, … alike), the results' handlers, and the deletion substate
 * the audits and status read. No state of its own; the machines keep their own guards, names and state layout (the
 * statecharts did not change when it was extracted).
 */
import { assign, type AnyEventObject, type MachineContext } from 'xstate';
import { outcome } from './definition.js';
import { atLeastAfter, epochMs } from './time.js';

// ─── W4: the backoff ────────────────────────────────────────────────────────────────────────────────

/**
 * W4's backoff between delete requests for one target: 15 s after the first, doubling (30 s, 60 s, …), at most 5 min.
 * Long enough for an accepted asynchronous delete to finish before it is sent again (re-sending a delete the cloud is
 * still carrying out is harmless, but noisy), short enough that a dropped one is noticed within a minute or two.
 */
export const DELETE_RETRY_BACKOFF = { firstMs: 15_000, maxMs: 300_000 } as const;

/** The wait after the `attempts`-th delete request before W4 may send it again. */
export const deleteRetryBackoffMs = (attempts: number): number =>
  Math.min(DELETE_RETRY_BACKOFF.firstMs * 2 ** Math.max(0, attempts - 1), DELETE_RETRY_BACKOFF.maxMs);

// ─── W5: the ledger ─────────────────────────────────────────────────────────────────────────────────

/** W5: the requests decided for the current delete and the pass clock of the last (null: decided without one). */
export interface DeleteLedger {
  attempts: number;
  lastAt: string | null;
}

/** W5: the first request of a delete. A pass without a clock leaves the backoff to start on the next clocked pass. */
export const firstRequest = (at: string | null | undefined): DeleteLedger => ({ attempts: 1, lastAt: at ?? null });

/** W4: one more request of the same delete. */
export const nextRequest = (ledger: DeleteLedger, at: string | null | undefined): DeleteLedger => ({ attempts: ledger.attempts + 1, lastAt: at ?? null });

/** W4: the backoff since the last request has passed on this pass's clock (an unknown clock never has). */
export const backoffElapsed = (ledger: DeleteLedger, at: string | null | undefined): boolean => atLeastAfter(ledger.lastAt, at, deleteRetryBackoffMs(ledger.attempts));

/** W4: a delete decided by a pass without a clock, seen by one with a clock: the backoff can start now. */
export const clockUnset = (ledger: DeleteLedger, at: string | null | undefined): boolean => ledger.lastAt === null && at !== undefined && at !== null;

/** When (epoch ms) W4 may send the delete again; null without a decided delete or a known time. */
export const retryDueAt = (ledger: DeleteLedger): number | null => {
  const last = epochMs(ledger.lastAt);
  return ledger.attempts > 0 && last !== null ? last + deleteRetryBackoffMs(ledger.attempts) : null;
};

/**
 * W4, the guard: this pass observes the same target again (`seenAgain`: the machine's own reading of its
 * observation, its authority included) and the backoff since the last request has passed — or the last answer
 * means nothing was done (`atOnce`). Without a ledger there is nothing to re-send.
 */
export const resendDue =
  <C, E>(o: { seenAgain: (context: C, event: E) => boolean; ledger: (context: C) => DeleteLedger | null; at: (event: E) => string | null | undefined; atOnce?: (context: C) => boolean }) =>
  ({ context, event }: { context: C; event: E }): boolean => {
    if (!o.seenAgain(context, event)) return false;
    const ledger = o.ledger(context);
    return ledger !== null && (o.atOnce?.(context) === true || backoffElapsed(ledger, o.at(event)));
  };

// ─── the ledger kept flat in a context (lifecycle, volume) ──────────────────────────────────────────

/** A context that keeps the ledger as three fields, with the last refusal of `R`'s shape. */
export interface FlatDeleteLedger<R> {
  /** Delete requests decided for the current delete (1: the first; more: re-sent by W4). */
  deleteAttempts: number;
  /** The pass clock of the last decided request; null when unknown (a pass without a clock). */
  lastDeleteAt: string | null;
  /** The last refusal of a request; cleared when the cloud accepts one. */
  deleteRefusal: R | null;
}

/** No delete standing: what forgetting a target, or arming for another, resets the ledger to. */
export const NO_DELETE = { deleteAttempts: 0, lastDeleteAt: null, deleteRefusal: null } as const;

/** The flat ledger read as a DeleteLedger. */
export const flatLedger = (context: FlatDeleteLedger<unknown>): DeleteLedger => ({ attempts: context.deleteAttempts, lastAt: context.lastDeleteAt });

/**
 * The ledger's actions for a flat context, under the names the machines' transitions use: `startDelete` (W2's first
 * request), `repeatDelete` (W4), `startDeleteClock` (the backoff of a delete decided without a clock starts now),
 * `clearDeleteIntent` (the delete is over), `recordDeleteRefusal` and `clearDeleteRefusal` (the cloud's answers).
 * `at`: the pass's clock; `refusalOf`: the refusal a result carries (null for any other event); `alsoOnRefusal`:
 * what else the machine records with a refusal (the lifecycle's lastError).
 */
export const flatLedgerActions = <C extends MachineContext & FlatDeleteLedger<R>, E extends AnyEventObject, R>(o: {
  at: (event: E) => string | null | undefined;
  refusalOf: (event: E) => R | null;
  alsoOnRefusal?: (refusal: R) => Partial<C>;
}) => {
  const write = (ledger: DeleteLedger): Partial<C> => ({ deleteAttempts: ledger.attempts, lastDeleteAt: ledger.lastAt }) as Partial<C>;
  return {
    startDelete: assign<C, E, undefined, E, never>(({ event }) => ({ ...write(firstRequest(o.at(event))), deleteRefusal: null }) as Partial<C>),
    repeatDelete: assign<C, E, undefined, E, never>(({ context, event }) => write(nextRequest(flatLedger(context), o.at(event)))),
    startDeleteClock: assign<C, E, undefined, E, never>(({ event }) => ({ lastDeleteAt: o.at(event) ?? null }) as Partial<C>),
    clearDeleteIntent: assign<C, E, undefined, E, never>(() => ({ ...NO_DELETE }) as Partial<C>),
    recordDeleteRefusal: assign<C, E, undefined, E, never>(({ event }) => {
      const refusal = o.refusalOf(event);
      return refusal === null ? {} : ({ ...o.alsoOnRefusal?.(refusal), deleteRefusal: refusal } as Partial<C>);
    }),
    clearDeleteRefusal: assign<C, E, undefined, E, never>(() => ({ deleteRefusal: null }) as Partial<C>),
  };
};

// ─── the protocol's transitions ─────────────────────────────────────────────────────────────────────

/** The outcomes (stored event types `<machine>.<outcome>`) each step records unless the machine names its own. */
export const WRITE_AHEAD_OUTCOMES = {
  armed: 'deleteArmed',
  submitted: 'deleteSubmitted',
  resubmitted: 'deleteResubmitted',
  inProgress: 'deleteInProgress',
  deleted: 'deleted',
  withdrawn: 'deletionWithdrawn',
  accepted: 'deleteAccepted',
  rejected: 'deleteRejected',
} as const;

type Action = string | { readonly type: string; readonly params?: unknown };
interface StepConfig {
  readonly guard?: string;
  readonly target?: string;
  readonly reenter?: boolean;
  readonly actions: readonly Action[];
}
type Named<T extends StepConfig, N extends string> = Omit<T, 'actions'> & { readonly actions: readonly [...T['actions'], { readonly type: 'outcome'; readonly params: { readonly name: N } }] };

const step =
  <D extends string>(fallback: D) =>
  <const T extends StepConfig, const N extends string = D>(config: T, name?: N): Named<T, N> =>
    ({ ...config, actions: [...config.actions, outcome(name ?? fallback)] }) as unknown as Named<T, N>;

/** W1: the intent is recorded (the pass's own bookkeeping in `actions`, never a delete). */
export const arm = step(WRITE_AHEAD_OUTCOMES.armed);
/** W2: the arm read back and the target seen again: one delete (its effect and the ledger's first request in `actions`). */
export const submit = step(WRITE_AHEAD_OUTCOMES.submitted);
/** W4: the same target seen again after the backoff: the delete again (the effect and `repeatDelete`). */
export const resend = step(WRITE_AHEAD_OUTCOMES.resubmitted);
/** W3/W4: the target still seen, not yet due again: nothing sent. */
export const inProgress = step(WRITE_AHEAD_OUTCOMES.inProgress);
/** W3: absence confirms: the delete is over. */
export const confirm = step(WRITE_AHEAD_OUTCOMES.deleted);
/** W2 read back by a pass without the authority: the arm is dropped, nothing more is deleted. */
export const withdraw = step(WRITE_AHEAD_OUTCOMES.withdrawn);

/**
 * The cloud's answers to a delete, recorded in the flat ledger (`clearDeleteRefusal`, `recordDeleteRefusal`); `guard`:
 * which answers belong to the delete standing (an answer for another target is not stored).
 */
export const deleteResults = <const G extends string | undefined = undefined>(guard?: G) => {
  const only = (guard === undefined ? {} : { guard }) as G extends string ? { readonly guard: G } : Record<never, never>;
  return {
    deleteAccepted: { ...only, actions: ['clearDeleteRefusal', outcome(WRITE_AHEAD_OUTCOMES.accepted)] },
    deleteRejected: { ...only, actions: ['recordDeleteRefusal', outcome(WRITE_AHEAD_OUTCOMES.rejected)] },
  } as const;
};

// ─── reading a snapshot (audits, status) ────────────────────────────────────────────────────────────

/** The substate of a `deleting` compound state (`armed`, `submitted`, …), or null outside one. */
export const deletingSubstate = (snapshot: { value: unknown }): string | null => {
  const value = snapshot.value;
  return typeof value === 'object' && value !== null && typeof (value as { deleting?: unknown }).deleting === 'string' ? (value as { deleting: string }).deleting : null;
};
