/**
 * What the Nova pipeline's steps last said (nova-operator.md, "Pipeline", "Conditions"; issue 26): every pass of
 * the lane (src/controllers/nova/lane.ts) records the conditions its steps set, so status is rendered from events
 * like every other kind's, and history shows when a gate closed, a role rolled out or the API stopped answering.
 *
 *   NP1 a pass records each condition its steps set; one it did not reach keeps what an earlier pass recorded
 *       (a lane that ends at a gate says nothing new about the steps behind it).
 *   NP2 a condition's `since` moves only when its status changes (its lastTransitionTime); a new reason or message
 *       with the same status is recorded without moving it.
 *   NP3 the same conditions again change nothing and are not stored: the stream holds transitions, not passes.
 *       Where the lane ends is part of what a pass says: a pass ending at another step is recorded.
 *
 * The upgrade machine (machines/nova-upgrade.ts) stays the authority for the Database step and the phases, the
 * archive machine for DBArchive; this one decides nothing and declares no effect.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';

const ConditionStatus = t.keyof({ True: null, False: null, Unknown: null });

export const LaneCondition = t.type({ type: t.string, status: ConditionStatus, reason: t.string, message: t.string });
export type LaneCondition = t.TypeOf<typeof LaneCondition>;

export const novaPipelineStimulus = () =>
  t.type({
    type: t.literal('lane'),
    source: t.literal('reconciler'),
    generation: t.number,
    /** The pass's clock (RFC 3339). */
    at: t.string,
    conditions: t.array(LaneCondition),
    /** The step that ended the lane (requeue or error), or null when every step ran. */
    endedAt: t.union([t.string, t.null]),
    /**
     * Status fields the steps stamp (nova-operator.md: status.endpoint from the Deployment step,
     * status.computeConfigSecretRef and remoteComputeConfigSecretRef from ComputeConfig): a value to stamp, null to
     * clear, absent when the step did not run this pass (the last stamp stays).
     */
    stamps: t.partial({
      endpoint: t.union([t.string, t.null]),
      computeConfigSecretRef: t.union([t.string, t.null]),
      remoteComputeConfigSecretRef: t.union([t.string, t.null]),
      // a NovaCompute pool's (issue 28): status.installedImage, and the DaemonSet's counts it mirrors
      installedImage: t.union([t.string, t.null]),
      desiredNumberScheduled: t.number,
      numberReady: t.number,
    }),
  });
export type NovaPipelineStimulus = t.TypeOf<ReturnType<typeof novaPipelineStimulus>>;

export interface RecordedCondition extends LaneCondition {
  /** When its status last changed (NP2). */
  since: string;
}

export type PipelineStamps = NovaPipelineStimulus['stamps'];

export interface NovaPipelineContext {
  decidedGeneration: number | null;
  /** By condition type. */
  conditions: Record<string, RecordedCondition>;
  /** The status fields last stamped (null: cleared). */
  stamps: PipelineStamps;
  /** The step that ended the last recorded pass (null: every step ran); undefined before the first record. */
  endedAt?: string | null;
}

/** NP1, NP2: the recorded conditions after a pass (pure; the machine's `record` action). */
export const mergeLane = (recorded: Readonly<Record<string, RecordedCondition>>, event: NovaPipelineStimulus): Record<string, RecordedCondition> => {
  const next: Record<string, RecordedCondition> = { ...recorded };
  for (const c of event.conditions) {
    const before = recorded[c.type];
    next[c.type] = { type: c.type, status: c.status, reason: c.reason, message: c.message, since: before && before.status === c.status ? before.since : event.at };
  }
  return next;
};

/** NP3: whether a pass says anything the record does not (the `since` of an unchanged status aside). */
const saysSomethingNew = (context: NovaPipelineContext, event: NovaPipelineStimulus): boolean =>
  event.conditions.some((c) => {
    const before = context.conditions[c.type];
    return !before || before.status !== c.status || before.reason !== c.reason || before.message !== c.message;
  }) || (Object.keys(event.stamps) as Array<keyof PipelineStamps>).some((k) => context.stamps[k] !== event.stamps[k]) || context.endedAt !== event.endedAt;

export const buildNovaPipelineMachine = (id = 'novaPipeline') =>
  setup({
    types: {} as { context: NovaPipelineContext; events: NovaPipelineStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      record: assign(({ context, event }) => ({ decidedGeneration: event.generation, conditions: mergeLane(context.conditions, event), stamps: { ...context.stamps, ...event.stamps }, endedAt: event.endedAt })),
      noteGeneration: assign(({ event }) => ({ decidedGeneration: event.generation })),
    },
    guards: {
      /** NP3: something new to record. */
      news: ({ context, event }) => saysSomethingNew(context, event),
      /** A new spec generation reached the lane (observedGeneration follows it even when nothing else changed). */
      newGeneration: ({ context, event }) => context.decidedGeneration !== event.generation,
    },
  }).createMachine({
    id,
    context: { decidedGeneration: null, conditions: {}, stamps: {} },
    initial: 'recording',
    states: {
      recording: {
        on: {
          lane: [
            { guard: 'news', actions: ['record', outcome('recorded')] }, // NP1, NP2
            { guard: 'newGeneration', actions: ['noteGeneration', outcome('generationNoted')] },
            { actions: [] }, // NP3
          ],
        },
      },
    },
  });

export const novaPipelineStream = (novaUid: string): string => `nova-pipeline-${novaUid}`;

const audit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => {
    const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
    const secrets = (status: 'True' | 'False', reason: string) => ({ type: 'SecretsReady', status, reason, message: reason });
    return [
      { type: 'lane', source: 'reconciler', generation: 1, at: at(0), conditions: [secrets('False', 'WaitingForDBCredentials')], endedAt: 'Secrets', stamps: {} },
      { type: 'lane', source: 'reconciler', generation: 1, at: at(10), conditions: [secrets('True', 'SecretsAvailable')], endedAt: null, stamps: { endpoint: 'http://127.0.0.1:8774' } },
      { type: 'lane', source: 'reconciler', generation: 2, at: at(20), conditions: [secrets('True', 'SecretsAvailable')], endedAt: null, stamps: {} },
    ];
  },
  stateKey: (snapshot) => {
    const c = snapshot.context as NovaPipelineContext;
    return JSON.stringify([c.decidedGeneration, c.endedAt ?? null, Object.values(c.conditions).map((x) => [x.type, x.status, x.reason])]);
  },
  // a record of what the steps said, never an intent: nothing here arms, clears or parks
  intentOf: () => null,
  rank: () => 0,
});

export const novaPipelineDefinition: MachineDefinition<NovaPipelineContext> = {
  id: 'novaPipeline',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'nova-pipeline-',
  machine: buildNovaPipelineMachine(),
  stimulus: novaPipelineStimulus(),
  effects: [],
  input: () => ({}),
  description: "What a Nova's pipeline steps last said (nova-operator.md, \"Pipeline\"; issue 26): the conditions each pass of the lane set, transitions only.",
  audit: audit(),
};

/**
 * The same record for a NovaCompute pool's eight steps (nova-operator.md, "NovaCompute pipeline"; issue 28): the
 * conditions each pass set, where the lane ended, and the stamps installedImage, desiredNumberScheduled and
 * numberReady. NP1 to NP3 hold as above.
 */
export const novaComputePipelineStream = (poolUid: string): string => `nova-compute-pipeline-${poolUid}`;

export const novaComputePipelineDefinition: MachineDefinition<NovaPipelineContext> = {
  ...novaPipelineDefinition,
  id: 'novaComputePipeline',
  streamPrefix: 'nova-compute-pipeline-',
  machine: buildNovaPipelineMachine('novaComputePipeline'),
  description: "What a NovaCompute pool's steps last said (nova-operator.md, \"NovaCompute\"; issue 28): the conditions each pass set, transitions only.",
};
