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
 * A Nova whose children were projected onto a target cluster (spec.targetClusterRef; it carries the second
 * finalizer `openstack.c5c3.io/remote-children`, and its deletionSeen says `remote`) has two more steps, and one
 * way out when the cluster is gone ("Rotation and deletion", second paragraph):
 *   NF6 the named cleanup first: its release (NF3, nothing live) is `databasesReleased`, not the end.
 *   NF7 only then the sweep, write-ahead: a deletionSeen arms it (`sweepArmed`), the next one reads the arm back and
 *       decides `nova.sweepRemoteChildren` (every child on the target labelled `regent.dev/nova-uid=<uid>`); a pass
 *       while sweeping decides it again (as NF4). The sweep's answer `remoteChildrenSwept` ends it: `swept`, final.
 *   NF8 a target that does not resolve while the Nova is deleted: the first `targetUnresolved` records its `at`
 *       (the pass's clock, on the stimulus); a later one within the abandon window (five minutes) changes nothing;
 *       one at or past `since + 5 min` abandons: `abandoned`, final (the controller records RemoteChildrenAbandoned
 *       naming what stays behind, and releases both finalizers). Abandoning deletes nothing.
 *   NF9 a target that resolves again before the window ends continues the cleanup where it was: the next
 *       deletionSeen clears `unresolvedSince` (a later outage starts a new window).
 *
 * Only the reconciler may decide a cleanup or a sweep; only an effect result may release or end a sweep. Nothing
 * here reads a clock: time arrives on the stimulus.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';
import { atLeastAfter } from './time.js';

/** A schema or SQL user Regent created, and the database block (nova_api: `api`; the cell block and cell0: `cell`) it was created for. */
export const OwnedObject = t.type({ kind: t.keyof({ database: null, user: null }), name: t.string, block: t.keyof({ api: null, cell: null }) });
export type OwnedObject = t.TypeOf<typeof OwnedObject>;

export const NovaFinalizerStimulus = t.union([
  /** NF1: these did not exist and are about to be created by Regent. */
  t.type({ type: t.literal('claimed'), source: t.literal('reconciler'), objects: t.array(OwnedObject) }),
  /**
   * NF2, NF4: the reconciler saw the Nova being deleted with Regent's finalizer on it; `remote` (NF6): it carries
   * the remote-children finalizer and its target cluster resolved in this pass (NF9).
   */
  t.intersection([t.type({ type: t.literal('deletionSeen'), source: t.literal('reconciler'), generation: t.number }), t.partial({ remote: t.boolean })]),
  /** NF3: what the cleanup found live before it issued its Deletes (empty: nothing was). */
  t.type({ type: t.literal('cleanupAnswered'), source: t.literal('effect'), live: t.array(t.string), message: t.string }),
  /** NF8: the Nova is being deleted and its target cluster did not resolve in the pass that began at `at`. */
  t.type({ type: t.literal('targetUnresolved'), source: t.literal('reconciler'), cluster: t.string, at: t.string }),
  /** NF7: what the sweep deleted on the target cluster. */
  t.type({ type: t.literal('remoteChildrenSwept'), source: t.literal('effect'), deleted: t.array(t.string) }),
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
  /** NF6: the Nova's children were projected onto a target cluster (absent in a stream from before it: false). */
  remote?: boolean;
  /** NF6: the named cleanup released (nothing of the MariaDB objects was live). */
  databasesFinalized?: boolean;
  /** NF8: when a pass first found the target unresolved (ISO time, from the stimulus); null while it resolves. */
  unresolvedSince?: string | null;
  /** NF8: the cluster that did not resolve. */
  unresolvedCluster?: string | null;
  /** NF7: what the sweep deleted. */
  swept?: string[];
}

/** NF8: how long a target may stay unresolved before its children are abandoned (nova-operator.md: five minutes). */
export const ABANDON_WINDOW_MS = 5 * 60_000;

/** NF8: whether a pass at `at` is at or past the end of the window that began at `since` (pure; no clock). */
export const abandonWindowElapsed = (since: string, at: string): boolean => atLeastAfter(since, at, ABANDON_WINDOW_MS);

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
const sweep = { type: 'nova.sweepRemoteChildren', params: () => ({}) } as const;
/** NF6, NF9: every deletionSeen notes whether the Nova is remote and clears an unresolved window. */
const seen = 'noteSeen' as const;

/** NF8: the first unresolved pass starts the window; one at or past its end abandons; one within it changes nothing. */
const unresolved = [
  { guard: 'firstUnresolved', actions: ['noteUnresolved', outcome('targetUnresolved')] },
  { guard: 'windowElapsed', target: 'abandoned', actions: [outcome('remoteChildrenAbandoned')] },
] as const;

export const buildNovaFinalizerMachine = () =>
  setup({
    types: {} as { context: NovaFinalizerContext; events: NovaFinalizerStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      'nova.deprovisionDatabases': declaredAction<{ owned: OwnedObject[] }>(),
      'nova.sweepRemoteChildren': declaredAction<Record<string, never>>(),
      noteSeen: assign(({ context, event }) => (event.type === 'deletionSeen' ? { remote: context.remote === true || event.remote === true, unresolvedSince: null, unresolvedCluster: null } : {})),
      noteUnresolved: assign(({ event }) => (event.type === 'targetUnresolved' ? { remote: true, unresolvedSince: event.at, unresolvedCluster: event.cluster } : {})),
      noteDatabasesFinalized: assign({ databasesFinalized: true }),
      noteSwept: assign(({ event }) => (event.type === 'remoteChildrenSwept' ? { swept: [...event.deleted] } : {})),
      claim: assign(({ context, event }) => ({ owned: [...context.owned, ...newClaims(context.owned, claimsOf(event))] })),
      countAttempt: assign(({ context }) => ({ attempts: context.attempts + 1 })),
      noteAnswer: assign(({ event }) => (event.type === 'cleanupAnswered' ? { live: [...event.live], message: event.message } : {})),
    },
    guards: {
      /** NF1: something not claimed before. */
      unclaimed: ({ context, event }) => newClaims(context.owned, claimsOf(event)).length > 0,
      /** NF3: something was live before the Deletes. */
      somethingWasLive: ({ event }) => liveOf(event).length > 0,
      /** NF6: "a CR that names a target cluster carries a second finalizer": the named cleanup is not the end. */
      remote: ({ context }) => context.remote === true,
      /** NF8: the first pass that finds the target unresolved starts the window. */
      firstUnresolved: ({ context }) => (context.unresolvedSince ?? null) === null,
      /** NF8: "a cluster that has not resolved for the whole abandon window (five minutes)". */
      windowElapsed: ({ context, event }) => event.type === 'targetUnresolved' && context.unresolvedSince != null && abandonWindowElapsed(context.unresolvedSince, event.at),
    },
  }).createMachine({
    id: 'novaFinalizer',
    context: { owned: [], live: null, message: null, attempts: 0 },
    initial: 'serving',
    states: {
      serving: {
        on: {
          claimed: { guard: 'unclaimed', actions: ['claim', outcome('claimed')] }, // NF1
          deletionSeen: { target: 'cleanupArmed', actions: [seen, outcome('cleanupArmed')] }, // NF2: the arm
          targetUnresolved: unresolved, // NF8
        },
      },
      cleanupArmed: {
        on: {
          // NF1: a Nova being deleted claims nothing more
          deletionSeen: { target: 'finalizing', actions: [seen, 'countAttempt', cleanup, outcome('cleanupDecided')] }, // NF2: the arm read back
          targetUnresolved: unresolved, // NF8
        },
      },
      finalizing: {
        on: {
          // NF1: a Nova being deleted claims nothing more
          deletionSeen: { actions: [seen, 'countAttempt', cleanup, outcome('cleanupDecidedAgain')] }, // NF4
          cleanupAnswered: [
            { guard: 'somethingWasLive', actions: ['noteAnswer', outcome('finalizingDatabase')] }, // NF3: hold one more pass
            { guard: 'remote', target: 'databasesReleased', actions: ['noteAnswer', 'noteDatabasesFinalized', outcome('databaseFinalized')] }, // NF6: then the sweep
            { target: 'released', actions: ['noteAnswer', 'noteDatabasesFinalized', outcome('databaseFinalized')] }, // NF3: release
          ],
          targetUnresolved: unresolved, // NF8
        },
      },
      databasesReleased: {
        on: {
          deletionSeen: { target: 'sweepArmed', actions: [seen, outcome('sweepArmed')] }, // NF7: the arm
          targetUnresolved: unresolved, // NF8
        },
      },
      sweepArmed: {
        on: {
          deletionSeen: { target: 'sweeping', actions: [seen, sweep, outcome('sweepDecided')] }, // NF7: the arm read back
          targetUnresolved: unresolved, // NF8
        },
      },
      sweeping: {
        on: {
          deletionSeen: { actions: [seen, sweep, outcome('sweepDecidedAgain')] }, // NF7 (as NF4)
          remoteChildrenSwept: { target: 'swept', actions: ['noteSwept', outcome('remoteChildrenSwept')] }, // NF7
          targetUnresolved: unresolved, // NF8
        },
      },
      released: { type: 'final' }, // NF5
      swept: { type: 'final' }, // NF7, NF5
      abandoned: { type: 'final' }, // NF8, NF5
    },
  });

export const novaFinalizerStream = (novaUid: string): string => `nova-finalizer-${novaUid}`;

const audit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => [
    { type: 'claimed', source: 'reconciler', objects: [{ kind: 'database', name: 'nova_api', block: 'api' }, { kind: 'user', name: 'nova_api', block: 'api' }] },
    { type: 'deletionSeen', source: 'reconciler', generation: 1 },
    { type: 'deletionSeen', source: 'reconciler', generation: 1, remote: true },
    { type: 'cleanupAnswered', source: 'effect', live: ['database nova_api'], message: 'dropped database nova_api' },
    { type: 'cleanupAnswered', source: 'effect', live: [], message: 'nothing was left' },
    { type: 'targetUnresolved', source: 'reconciler', cluster: 'edge', at: '2026-01-01T00:00:00.000Z' },
    { type: 'targetUnresolved', source: 'reconciler', cluster: 'edge', at: '2026-01-01T00:04:59.000Z' },
    { type: 'targetUnresolved', source: 'reconciler', cluster: 'edge', at: '2026-01-01T00:05:00.000Z' },
    { type: 'remoteChildrenSwept', source: 'effect', deleted: ['Deployment nova-api'] },
  ],
  stateKey: (snapshot) => {
    const c = snapshot.context as NovaFinalizerContext;
    return JSON.stringify([snapshot.value, c.owned.length, c.live?.length ?? null, c.remote === true, c.unresolvedSince ?? null]);
  },
  // the write-ahead intents: the stored deletion decision (NF2), then the sweep's (NF7)
  intentOf: (snapshot) =>
    snapshot.value === 'cleanupArmed' || snapshot.value === 'finalizing'
      ? { target: 'databases', state: String(snapshot.value) }
      : snapshot.value === 'sweepArmed' || snapshot.value === 'sweeping'
        ? { target: 'remoteChildren', state: String(snapshot.value) }
        : null,
  rank: (snapshot) => ({ serving: 0, cleanupArmed: 1, finalizing: 2, databasesReleased: 3, sweepArmed: 4, sweeping: 5, released: 6, swept: 6, abandoned: 6 })[String(snapshot.value)] ?? 0,
  parked: (snapshot) => snapshot.value === 'released' || snapshot.value === 'swept' || snapshot.value === 'abandoned',
});

export const novaFinalizerDefinition: MachineDefinition<NovaFinalizerContext> = {
  id: 'novaFinalizer',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'nova-finalizer-',
  machine: buildNovaFinalizerMachine(),
  stimulus: NovaFinalizerStimulus,
  effects: ['nova.deprovisionDatabases', 'nova.sweepRemoteChildren'],
  destructiveEffects: ['nova.deprovisionDatabases', 'nova.sweepRemoteChildren'],
  input: () => ({}),
  description: "The Nova finalizer's database cleanup (nova-operator.md, \"Rotation and deletion\"; issue 27): the schemas and users Regent claimed before creating them, dropped (or their MariaDB CRs deleted) once the Nova is deleted, held one more pass while anything was live; for a Nova on a target cluster, then the label-selected sweep of its children there, or their abandonment after five minutes unresolved.",
  audit: audit(),
};
