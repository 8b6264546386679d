/**
 * The create/delete lifecycle of a cloud resource Regent provisions under a deterministic name
 * (openstack-provider.md: "create lists by the stable generated name and exact-matches the result
 * before submitting a create, so controller retries adopt an existing [resource] rather than
 * duplicating it"; "delete uses the same rediscovery path, treats a missing [resource] as success,
 * yields after [OpenStack] accepts an asynchronous delete until a later rediscovery confirms absence").
 *
 * One factory, one machine per kind (Server, Network, …): the states and rules are the same, only the
 * effect names differ. Every pass brings a fresh exact-name observation (`absent` | `present`).
 *
 *   absent ──create──► creating ──created / observed──► present ──deletion──► deleteArmed ──read back──► deleting ──absent──► deleted
 *                          │ rejected, or attempts exhausted                                   ▲
 *                          └────────────► failed (park; a new generation retries) ─────────────┘ (deletion)
 *
 * L5 (servers) a resource that ended in ERROR without ever booting is deleted and created again from the
 * current spec, within the same bound of create attempts ("the bounded provider-create
 * delete-and-retry flow"); one that has booted is never destroyed and recreated.
 *
 * L1 adopt: an observed resource is adopted, never duplicated. L2 create at most once per decision;
 * re-decided only on a fresh observation of absence, and at most `maxCreateAttempts` times. L3 delete
 * only under a deletion request, write-ahead: one pass arms the deletion (deleteArmed), a later pass
 * reads it back and submits the delete for the resource it observes then. L4 absence during deletion
 * is success.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import type { AnyMachineSnapshot } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';

export const Observed = t.union([
  t.type({ kind: t.literal('absent') }),
  /** `launched`: the resource has ever booted (servers: Nova launched_at, read fresh); absent for kinds that do not boot. */
  t.intersection([t.type({ kind: t.literal('present'), id: t.string }), t.partial({ status: t.string, launched: t.boolean })]),
]);
export type Observed = t.TypeOf<typeof Observed>;

export const lifecycleStimulus = () =>
  t.union([
    t.type({
      type: t.literal('reconcile'),
      source: t.literal('reconciler'),
      generation: t.number,
      deletionRequested: t.boolean,
      observed: Observed,
      /** What to create: the resolved request (ids, names, sizes). Never secrets. */
      desired: t.UnknownRecord,
    }),
    /** The resource's spec does not decode: nothing is done until a valid generation arrives. */
    t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
    t.type({ type: t.literal('created'), source: t.literal('effect'), id: t.string }),
    t.type({ type: t.literal('createRejected'), source: t.literal('effect'), status: t.number, reason: t.string }),
    t.type({ type: t.literal('deleteAccepted'), source: t.literal('effect') }),
    t.type({ type: t.literal('deleteRejected'), source: t.literal('effect'), status: t.number, reason: t.string }),
  ]);
export type LifecycleStimulus = t.TypeOf<ReturnType<typeof lifecycleStimulus>>;

export interface LifecycleContext {
  /** The OpenStack id, once known (created or adopted). */
  resourceId: string | null;
  createAttempts: number;
  /** Generation of the spec the last create was decided for. */
  createdForGeneration: number | null;
  /** Generation at which creation failed; a newer generation retries. */
  failedGeneration: number | null;
  lastError: string | null;
  /** Why the current spec was refused (which fields are wrong); null when the spec decodes. */
  specProblems: { generation: number; problems: string[] } | null;
}

export interface LifecycleOptions {
  id: string;
  streamPrefix: string;
  createEffect: string;
  deleteEffect: string;
  maxCreateAttempts?: number;
  description: string;
}

type Reconcile = Extract<LifecycleStimulus, { type: 'reconcile' }>;
const asReconcile = (e: LifecycleStimulus): Reconcile => e as Reconcile;

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
      countAttempt: assign(({ context, event }) => ({ createAttempts: context.createAttempts + 1, createdForGeneration: asReconcile(event).generation })),
      adopt: assign(({ event }) => {
        const observed = asReconcile(event).observed;
        return observed.kind === 'present' ? { resourceId: observed.id, lastError: null } : {};
      }),
      recordCreated: assign(({ event }) => ({ resourceId: (event as { id: string }).id, lastError: null })),
      recordFailure: assign(({ event }) => ({
        failedGeneration: 'generation' in event ? event.generation : null,
        lastError: 'reason' in event ? `${event.reason} (${event.status})` : `create attempts exhausted`,
      })),
      recordFailureNow: assign(({ context, event }) => ({
        failedGeneration: context.createdForGeneration,
        lastError: 'reason' in event ? `${event.reason} (${event.status})` : context.lastError,
      })),
      recordDeleteError: assign(({ event }) => ({ lastError: 'reason' in event ? `${event.reason} (${event.status})` : null })),
      recordSpecProblems: assign(({ event }) => (event.type === 'specRejected' ? { specProblems: { generation: event.generation, problems: event.problems } } : {})),
      clearSpecProblems: assign({ specProblems: null }),
      resetAttempts: assign({ createAttempts: 0, createdForGeneration: null, failedGeneration: null, lastError: null }),
      forget: assign({ resourceId: null }),
    },
    guards: {
      deletionRequested: ({ event }) => asReconcile(event).deletionRequested,
      // L4: nothing to delete is success
      deletionRequestedAndAbsent: ({ event }) => asReconcile(event).deletionRequested && asReconcile(event).observed.kind === 'absent',
      observedPresent: ({ event }) => asReconcile(event).observed.kind === 'present',
      observedAbsent: ({ event }) => asReconcile(event).observed.kind === 'absent',
      attemptsExhausted: ({ context }) => context.createAttempts >= maxAttempts,
      // L5: only a never-booted ERROR, read fresh on this pass, and only while attempts remain
      erroredBeforeFirstBoot: ({ context, event }) => {
        const observed = asReconcile(event).observed;
        return observed.kind === 'present' && observed.status === 'ERROR' && observed.launched === false && context.createAttempts < maxAttempts;
      },
      newGeneration: ({ context, event }) => context.failedGeneration !== null && asReconcile(event).generation > context.failedGeneration,
    },
  }).createMachine({
    id: options.id,
    context: { resourceId: null, createAttempts: 0, createdForGeneration: null, failedGeneration: null, lastError: null, specProblems: null },
    on: {
      // Any state: a spec that does not decode is recorded, and nothing else happens to the resource.
      specRejected: { actions: ['recordSpecProblems', outcome('specRejected')] },
    },
    initial: 'absent',
    states: {
      absent: {
        on: {
          reconcile: [
            { guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['clearSpecProblems', outcome('nothingToDelete')] },
            { guard: 'deletionRequested', target: 'deleteArmed', actions: ['clearSpecProblems', 'adopt', outcome('deleteArmed')] },
            { guard: 'observedPresent', target: 'present', actions: ['clearSpecProblems', 'adopt', outcome('adopted')] }, // L1
            { target: 'creating', actions: ['clearSpecProblems', 'countAttempt', create, outcome('createSubmitted')] }, // L2
          ],
        },
      },
      creating: {
        on: {
          reconcile: [
            { guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['clearSpecProblems', outcome('nothingToDelete')] },
            { guard: 'deletionRequested', target: 'deleteArmed', actions: ['clearSpecProblems', 'adopt', outcome('deleteArmed')] },
            { guard: 'observedPresent', target: 'present', actions: ['clearSpecProblems', 'adopt', outcome('observedCreated')] }, // L1
            { guard: 'attemptsExhausted', target: 'failed', actions: ['clearSpecProblems', 'recordFailure', outcome('createExhausted')] },
            // L2: a fresh observation of absence after a decided create: the create never landed
            { target: 'creating', reenter: true, actions: ['clearSpecProblems', 'countAttempt', create, outcome('createResubmitted')] },
          ],
          created: { target: 'present', actions: ['recordCreated', outcome('created')] },
          createRejected: { target: 'failed', actions: ['recordFailureNow', outcome('createRejected')] },
        },
      },
      present: {
        on: {
          reconcile: [
            { guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['clearSpecProblems', 'forget', outcome('nothingToDelete')] },
            { guard: 'deletionRequested', target: 'deleteArmed', actions: ['clearSpecProblems', 'adopt', outcome('deleteArmed')] }, // L3: write-ahead
            { guard: 'observedAbsent', target: 'absent', actions: ['clearSpecProblems', 'forget', 'resetAttempts', outcome('vanished')] },
            { guard: 'erroredBeforeFirstBoot', target: 'recreateArmed', actions: ['clearSpecProblems', 'adopt', outcome('recreateArmed')] }, // L5: write-ahead
            { actions: ['clearSpecProblems', 'adopt', outcome('present')] },
          ],
          created: { actions: 'recordCreated' },
        },
      },
      // L3, read back: the armed deletion is submitted on a later pass, for the resource observed now.
      deleteArmed: {
        on: {
          reconcile: [
            { guard: 'observedAbsent', target: 'deleted', actions: ['clearSpecProblems', 'forget', outcome('deleted')] }, // L4
            { guard: 'deletionRequested', target: 'deleting', actions: ['clearSpecProblems', 'adopt', remove, outcome('deleteSubmitted')] },
            { target: 'present', actions: ['clearSpecProblems', 'adopt', outcome('deletionWithdrawn')] },
          ],
        },
      },
      // L5, read back: still a never-booted ERROR on this fresh read → delete it; booted meanwhile → keep it.
      recreateArmed: {
        on: {
          reconcile: [
            { guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['clearSpecProblems', 'forget', outcome('nothingToDelete')] },
            { guard: 'deletionRequested', target: 'deleteArmed', actions: ['clearSpecProblems', 'adopt', outcome('deleteArmed')] },
            { guard: 'observedAbsent', target: 'creating', actions: ['clearSpecProblems', 'forget', 'countAttempt', create, outcome('recreateSubmitted')] },
            { guard: 'erroredBeforeFirstBoot', target: 'recreating', actions: ['clearSpecProblems', 'adopt', remove, outcome('recreateDeleteSubmitted')] },
            { target: 'present', actions: ['clearSpecProblems', 'adopt', outcome('recreateCancelled')] },
          ],
        },
      },
      // L5: the errored never-booted resource is being deleted; once gone, create it again.
      recreating: {
        on: {
          reconcile: [
            { guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['clearSpecProblems', 'forget', outcome('nothingToDelete')] },
            // the delete already in flight serves the deletion too
            { guard: 'deletionRequested', target: 'deleting', actions: ['clearSpecProblems', outcome('deleteInProgress')] },
            { guard: 'observedAbsent', target: 'creating', actions: ['clearSpecProblems', 'forget', 'countAttempt', create, outcome('recreateSubmitted')] },
            { actions: ['clearSpecProblems', outcome('recreateDeleteInProgress')] },
          ],
          deleteAccepted: { actions: outcome('deleteAccepted') },
          deleteRejected: { actions: ['recordDeleteError', outcome('deleteRejected')] },
        },
      },
      deleting: {
        on: {
          reconcile: [
            { guard: 'observedAbsent', target: 'deleted', actions: ['clearSpecProblems', 'forget', outcome('deleted')] }, // L4
            { actions: ['clearSpecProblems', outcome('deleteInProgress')] },
          ],
          deleteAccepted: { actions: outcome('deleteAccepted') },
          deleteRejected: { actions: ['recordDeleteError', outcome('deleteRejected')] },
        },
      },
      failed: {
        on: {
          reconcile: [
            { guard: 'deletionRequestedAndAbsent', target: 'deleted', actions: ['clearSpecProblems', outcome('nothingToDelete')] },
            { guard: 'deletionRequested', target: 'deleteArmed', actions: ['clearSpecProblems', 'adopt', outcome('deleteArmed')] },
            { guard: 'observedPresent', target: 'present', actions: ['clearSpecProblems', 'adopt', 'resetAttempts', outcome('adopted')] },
            { guard: 'newGeneration', target: 'creating', actions: ['clearSpecProblems', 'resetAttempts', 'countAttempt', create, outcome('createSubmitted')] },
            { actions: ['clearSpecProblems', outcome('createFailed')] },
          ],
        },
      },
      deleted: { type: 'final' },
    },
  });
};

/** Intent states: a destructive delete is armed (rank 1) or submitted (rank 2) for the resource id. */
const INTENT_RANK: Record<string, number> = { deleteArmed: 1, deleting: 2, recreateArmed: 1, recreating: 2 };

/** Audit hooks (machines/definition.ts MachineAudit): every decision-relevant pass and effect result. */
const lifecycleAudit = (): MachineAudit => ({
  alphabet: () => {
    const observations: Observed[] = [
      { kind: 'absent' },
      { kind: 'present', id: 'a', status: 'ACTIVE', launched: true },
      { kind: 'present', id: 'a', status: 'ERROR', launched: false },
      { kind: 'present', id: 'a', status: 'ERROR', launched: true },
      { kind: 'present', id: 'b' },
    ];
    const passes: Stimulus[] = [];
    for (const observed of observations)
      for (const deletionRequested of [false, true])
        for (const generation of [1, 2]) passes.push({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, observed, desired: { name: 'x' } });
    return [
      ...passes,
      { type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.x: invalid'] },
      { type: 'created', source: 'effect', id: 'a' },
      { type: 'createRejected', source: 'effect', status: 403, reason: 'forbidden' },
      { type: 'deleteAccepted', source: 'effect' },
      { type: 'deleteRejected', source: 'effect', status: 409, reason: 'conflict' },
    ];
  },
  intentOf: (snapshot: AnyMachineSnapshot) => {
    const state = String(snapshot.value);
    return state in INTENT_RANK ? { target: (snapshot.context as LifecycleContext).resourceId ?? '', state } : null;
  },
  rank: (snapshot: AnyMachineSnapshot) => INTENT_RANK[String(snapshot.value)] ?? 0,
  parked: (snapshot: AnyMachineSnapshot) => snapshot.value === 'failed',
});

export const lifecycleDefinition = (options: LifecycleOptions): MachineDefinition => ({
  audit: lifecycleAudit(),
  id: options.id,
  version: 1,
  schemaVersion: 1,
  streamPrefix: options.streamPrefix,
  machine: buildLifecycleMachine(options),
  stimulus: lifecycleStimulus(),
  effects: ['createResource', 'deleteResource'],
  effectNames: { createResource: options.createEffect, deleteResource: options.deleteEffect },
  destructiveEffects: [options.deleteEffect],
  description: options.description,
});
