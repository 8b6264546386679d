/**
 * The Nova finalizer's database cleanup (nova-operator.md, "Rotation and deletion"; issue 27), and the ledger of
 * what Regent created that the cleanup may remove.
 *
 *   NF1 ownership is claimed before creation: the Database step names the schemas and SQL users of a plan that do
 *       not exist yet, and they are recorded here before the provisioner creates them (write-ahead). Only what is
 *       claimed is ever dropped by the embedded default, so a schema Regent did not create is never touched (the
 *       mariadb-operator adapter deletes its own named, labelled CRs and claims nothing). A Nova being deleted
 *       claims nothing more.
 *   NF2 write-ahead: a deletion seen by the reconciler (the Nova carries a deletion timestamp and Regent's
 *       finalizer) first arms the cleanup (`cleanupArmed`, no effect); the next deletionSeen reads that arm back and
 *       decides the cleanup: `nova.deprovisionDatabases` with the claimed objects. Both are stored before any Delete
 *       is issued (the controller sends the two in one pass).
 *   NF3 the cleanup answers what was still live *before* it issued its Deletes (a Delete flips the deletion
 *       timestamp, so a check after it would always read none-live). Something was live → the finalizer is held for
 *       one more pass (FinalizingDatabase); nothing was → DatabaseFinalized, and the finalizer may be released.
 *   NF4 a pass while held decides the cleanup again (the Deletes are idempotent; an answer lost in a crash is asked
 *       for again rather than assumed).
 *   NF5 released is final: nothing more is decided for this Nova.
 *
 * Only the reconciler may decide a cleanup; only an effect result may release. Nothing here reads a clock.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';

/** A schema or SQL user Regent created, and the database block (nova_api: `api`; the cell block and cell0: `cell`) it was created for. */
export const OwnedObject = t.type({ kind: t.keyof({ database: null, user: null }), name: t.string, block: t.keyof({ api: null, cell: null }) });
export type OwnedObject = t.TypeOf<typeof OwnedObject>;

export const NovaFinalizerStimulus = t.union([
  /** NF1: these did not exist and are about to be created by Regent. */
  t.type({ type: t.literal('claimed'), source: t.literal('reconciler'), objects: t.array(OwnedObject) }),
  /** NF2, NF4: the reconciler saw the Nova being deleted with Regent's finalizer on it. */
  t.type({ type: t.literal('deletionSeen'), source: t.literal('reconciler'), generation: t.number }),
  /** NF3: what the cleanup found live before it issued its Deletes (empty: nothing was). */
  t.type({ type: t.literal('cleanupAnswered'), source: t.literal('effect'), live: t.array(t.string), message: t.string }),
]);
export type NovaFinalizerStimulus = t.TypeOf<typeof NovaFinalizerStimulus>;

export interface NovaFinalizerContext {
  /** What Regent created (NF1), in claim order. */
  owned: OwnedObject[];
  /** What the last cleanup found live (NF3); null before the first answer. */
  live: string[] | null;
  message: string | null;
  /** Cleanups decided so far (NF2, NF4). */
  attempts: number;
}

const key = (o: OwnedObject): string => `${o.kind}:${o.name}`;

/** NF1: the claims not recorded yet (pure). */
export const newClaims = (owned: readonly OwnedObject[], objects: readonly OwnedObject[]): OwnedObject[] => {
  const seen = new Set(owned.map(key));
  const fresh: OwnedObject[] = [];
  for (const o of objects) {
    if (seen.has(key(o))) continue;
    seen.add(key(o));
    fresh.push(o);
  }
  return fresh;
};

type Args = { context: NovaFinalizerContext; event: NovaFinalizerStimulus };
const claimsOf = (event: NovaFinalizerStimulus): readonly OwnedObject[] => (event.type === 'claimed' ? event.objects : []);
const liveOf = (event: NovaFinalizerStimulus): readonly string[] => (event.type === 'cleanupAnswered' ? event.live : []);

const cleanup = { type: 'nova.deprovisionDatabases', params: ({ context }: Args) => ({ owned: context.owned }) } as const;

export const buildNovaFinalizerMachine = () =>
  setup({
    types: {} as { context: NovaFinalizerContext; events: NovaFinalizerStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      'nova.deprovisionDatabases': declaredAction<{ owned: OwnedObject[] }>(),
      claim: assign(({ context, event }) => ({ owned: [...context.owned, ...newClaims(context.owned, claimsOf(event))] })),
      countAttempt: assign(({ context }) => ({ attempts: context.attempts + 1 })),
      noteAnswer: assign(({ event }) => (event.type === 'cleanupAnswered' ? { live: [...event.live], message: event.message } : {})),
    },
    guards: {
      /** NF1: something not claimed before. */
      unclaimed: ({ context, event }) => newClaims(context.owned, claimsOf(event)).length > 0,
      /** NF3: something was live before the Deletes. */
      somethingWasLive: ({ event }) => liveOf(event).length > 0,
    },
  }).createMachine({
    id: 'novaFinalizer',
    context: { owned: [], live: null, message: null, attempts: 0 },
    initial: 'serving',
    states: {
      serving: {
        on: {
          claimed: { guard: 'unclaimed', actions: ['claim', outcome('claimed')] }, // NF1
          deletionSeen: { target: 'cleanupArmed', actions: [outcome('cleanupArmed')] }, // NF2: the arm
        },
      },
      cleanupArmed: {
        on: {
          // NF1: a Nova being deleted claims nothing more
          deletionSeen: { target: 'finalizing', actions: ['countAttempt', cleanup, outcome('cleanupDecided')] }, // NF2: the arm read back
        },
      },
      finalizing: {
        on: {
          // NF1: a Nova being deleted claims nothing more
          deletionSeen: { actions: ['countAttempt', cleanup, outcome('cleanupDecidedAgain')] }, // NF4
          cleanupAnswered: [
            { guard: 'somethingWasLive', actions: ['noteAnswer', outcome('finalizingDatabase')] }, // NF3: hold one more pass
            { target: 'released', actions: ['noteAnswer', outcome('databaseFinalized')] }, // NF3: release
          ],
        },
      },
      released: { type: 'final' }, // NF5
    },
  });

export const novaFinalizerStream = (novaUid: string): string => `nova-finalizer-${novaUid}`;

const audit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => [
    { type: 'claimed', source: 'reconciler', objects: [{ kind: 'database', name: 'nova_api', block: 'api' }, { kind: 'user', name: 'nova_api', block: 'api' }] },
    { type: 'deletionSeen', source: 'reconciler', generation: 1 },
    { type: 'cleanupAnswered', source: 'effect', live: ['database nova_api'], message: 'dropped database nova_api' },
    { type: 'cleanupAnswered', source: 'effect', live: [], message: 'nothing was left' },
  ],
  stateKey: (snapshot) => {
    const c = snapshot.context as NovaFinalizerContext;
    return JSON.stringify([snapshot.value, c.owned.length, c.live?.length ?? null]);
  },
  // the write-ahead intent of the cleanup: the stored deletion decision (NF2)
  intentOf: (snapshot) => (snapshot.value === 'cleanupArmed' || snapshot.value === 'finalizing' ? { target: 'databases', state: String(snapshot.value) } : null),
  rank: (snapshot) => ({ serving: 0, cleanupArmed: 1, finalizing: 2, released: 3 })[String(snapshot.value)] ?? 0,
  parked: (snapshot) => snapshot.value === 'released',
});

export const novaFinalizerDefinition: MachineDefinition<NovaFinalizerContext> = {
  id: 'novaFinalizer',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'nova-finalizer-',
  machine: buildNovaFinalizerMachine(),
  stimulus: NovaFinalizerStimulus,
  effects: ['nova.deprovisionDatabases'],
  destructiveEffects: ['nova.deprovisionDatabases'],
  input: () => ({}),
  description: "The Nova finalizer's database cleanup (nova-operator.md, \"Rotation and deletion\"; issue 27): the schemas and users Regent claimed before creating them, dropped (or their MariaDB CRs deleted) once the Nova is deleted, held one more pass while anything was live.",
  audit: audit(),
};
