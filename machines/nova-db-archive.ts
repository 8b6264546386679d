/**
 * The Nova DBArchive step — nova-operator.md, "DBArchive"; issue 14. The step projects the `{name}-db-archive`
 * CronJob on every pass and takes its run visibility from the Jobs the CronJob spawned, not from the CronJob
 * object: it reports on the newest of them that reached a terminal state.
 *
 *   A1 the CronJob is absent or was rendered from another spec (its pod-template hash) → ensure it (effect,
 *      after this decision is stored); nothing else waits on it.
 *   A2 suspended → DBArchiveReady=True / DBArchiveSuspended. The suspend arm outranks the failed arm: a
 *      suspended CronJob spawns no successor to supersede a failed run, so a failed arm winning here would pin
 *      the condition False for good. The failure is still named in the message.
 *   A3 the newest terminal run failed (including one killed by activeDeadlineSeconds) → False / DBArchiveJobFailed.
 *   A4 otherwise (the newest terminal run succeeded, or none has run yet) → True / DBArchiveScheduled; a later
 *      successful run flips A3 back.
 *
 * A pass that observes what the last one did decides nothing and is not stored (polling emits no events).
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';

const Run = t.intersection([t.type({ name: t.string, state: t.keyof({ succeeded: null, failed: null }) }), t.partial({ finishedAt: t.string, message: t.string })]);
export type ArchiveRun = t.TypeOf<typeof Run>;

export const NovaDBArchiveStimulus = t.union([
  t.type({
    type: t.literal('archiveObserved'),
    source: t.literal('reconciler'),
    generation: t.number,
    schedule: t.string,
    /** The pod-template hash the CronJob would be rendered with now. */
    desiredHash: t.string,
    /** Whether the CronJob exists. */
    exists: t.boolean,
    suspended: t.boolean,
    /** The newest terminal Job the CronJob controls, or null when none has finished. */
    newest: t.union([Run, t.null]),
  }),
  t.type({ type: t.literal('cronJobEnsured'), source: t.literal('effect'), hash: t.string }),
]);
export type NovaDBArchiveStimulus = t.TypeOf<typeof NovaDBArchiveStimulus>;
type Observed = Extract<NovaDBArchiveStimulus, { type: 'archiveObserved' }>;

export interface ArchiveCondition {
  status: 'True' | 'False';
  reason: 'DBArchiveScheduled' | 'DBArchiveSuspended' | 'DBArchiveJobFailed';
  message: string;
}

export interface NovaDBArchiveContext {
  decidedGeneration: number | null;
  /** The hash of the CronJob this machine last had ensured. */
  ensuredHash: string | null;
  condition: ArchiveCondition | null;
  newest: ArchiveRun | null;
}

type Args = { context: NovaDBArchiveContext; event: NovaDBArchiveStimulus };
const observed = (event: NovaDBArchiveStimulus): Observed | null => (event.type === 'archiveObserved' ? event : null);

const describeRun = (run: ArchiveRun): string => `${run.name} ${run.state}${run.finishedAt ? ` at ${run.finishedAt}` : ''}${run.message ? `: ${run.message}` : ''}`;

export const archiveCondition = (o: Observed): ArchiveCondition => {
  if (o.suspended) {
    return { status: 'True', reason: 'DBArchiveSuspended', message: `the archive is suspended${o.newest?.state === 'failed' ? `; the last run failed (${describeRun(o.newest)})` : ''}` };
  }
  if (o.newest?.state === 'failed') return { status: 'False', reason: 'DBArchiveJobFailed', message: `the newest archive run failed: ${describeRun(o.newest)}` };
  return { status: 'True', reason: 'DBArchiveScheduled', message: `scheduled "${o.schedule}"; ${o.newest ? `the newest run: ${describeRun(o.newest)}` : 'no run has finished yet'}` };
};

const cronJobOutOfDate = ({ context, event }: Args): boolean => {
  const o = observed(event);
  return o !== null && (!o.exists || o.desiredHash !== context.ensuredHash);
};

export const buildNovaDBArchiveMachine = () =>
  setup({
    types: {} as { context: NovaDBArchiveContext; events: NovaDBArchiveStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      'nova.ensureArchiveCronJob': declaredAction<{ hash: string }>(),
      record: assign(({ event }) => {
        const o = observed(event);
        return o ? { decidedGeneration: o.generation, condition: archiveCondition(o), newest: o.newest } : {};
      }),
      recordEnsured: assign(({ event }) => (event.type === 'cronJobEnsured' ? { ensuredHash: event.hash } : {})),
    },
    guards: {
      cronJobOutOfDate,
      runFailed: ({ event }: Args) => {
        const o = observed(event);
        return o !== null && !o.suspended && o.newest?.state === 'failed';
      },
    },
  }).createMachine({
    id: 'novaDBArchive',
    context: { decidedGeneration: null, ensuredHash: null, condition: null, newest: null },
    on: {
      archiveObserved: [
        { guard: 'cronJobOutOfDate', actions: ['record', { type: 'nova.ensureArchiveCronJob', params: ({ event }) => ({ hash: (event as Observed).desiredHash }) }, outcome('cronJobEnsuring')] }, // A1
        { guard: 'runFailed', actions: ['record', outcome('runFailed')] }, // A3
        { actions: ['record', outcome('observed')] }, // A2, A4
      ],
      cronJobEnsured: { actions: ['recordEnsured', outcome('cronJobEnsured')] },
    },
  });

export const novaDBArchiveStream = (novaUid: string): string => `nova-db-archive-${novaUid}`;

const audit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => {
    const base = { type: 'archiveObserved', source: 'reconciler', generation: 1, schedule: '0 2 * * *', desiredHash: 'h1' } as const;
    const runs = [null, { name: 'nova-db-archive-1', state: 'succeeded' }, { name: 'nova-db-archive-2', state: 'failed', message: 'DeadlineExceeded' }] as const;
    return [
      ...[true, false].flatMap((exists) => [true, false].flatMap((suspended) => runs.map((newest) => ({ ...base, exists, suspended, newest })))),
      { ...base, desiredHash: 'h2', exists: true, suspended: false, newest: null },
      { type: 'cronJobEnsured', source: 'effect', hash: 'h1' },
      { type: 'cronJobEnsured', source: 'effect', hash: 'h2' },
    ];
  },
  stateKey: (snapshot) => JSON.stringify([(snapshot.context as NovaDBArchiveContext).ensuredHash, (snapshot.context as NovaDBArchiveContext).condition?.reason ?? null]),
  // the archive records no write-ahead intent (it ensures a CronJob; nothing it decides destroys): no intent to guard
  intentOf: () => null,
  rank: () => 0,
});

export const novaDBArchiveDefinition: MachineDefinition<NovaDBArchiveContext> = {
  id: 'novaDBArchive',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'nova-db-archive-',
  machine: buildNovaDBArchiveMachine(),
  stimulus: NovaDBArchiveStimulus,
  effects: ['nova.ensureArchiveCronJob'],
  input: () => ({}),
  description: "A Nova's DBArchive step (nova-operator.md, \"DBArchive\"; issue 14): the {name}-db-archive CronJob kept at the spec, and DBArchiveReady from the newest terminal run it controls (suspend outranks failed).",
  audit: audit(),
};
