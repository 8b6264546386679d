/**
 * A NovaCompute's status from its two streams: `nova-compute-pipeline-<uid>` (machines/nova-pipeline.ts, the pool's
 * definition: what each pass's eight steps said, and the stamps installedImage, desiredNumberScheduled, numberReady)
 * and `nova-compute-pool-<uid>` (machines/nova-compute-pool.ts: the nodes and their phases, the created traits; via
 * ./nova-compute-status.ts). The reference is docs/novacompute.md.
 *
 * | condition | from |
 * |---|---|
 * | NovaReady … TraitsReady | what the step that owns it last recorded; Unknown / NotReached while no pass reached it |
 * | Ready | True / AllReady exactly when the eight are True; otherwise False / NotAllReady listing those that are not |
 * | ExtraConfigHealthy | the PoolConfig step's record, outside Ready |
 */
import type { NovaComputePoolContext } from '../machines/nova-compute-pool.js';
import type { NovaPipelineContext } from '../machines/nova-pipeline.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';
import { poolNodesStatus } from './nova-compute-status.js';
import { NOVA_COMPUTE_READY_SUBCONDITIONS } from '../src/resources/nova-compute.js';

type NovaComputeReadySubcondition = (typeof NOVA_COMPUTE_READY_SUBCONDITIONS)[number];

/** The step that sets each of the eight conditions (nova-operator.md, "NovaCompute pipeline"), for NotReached messages. */
const STEP_OF: Readonly<Record<NovaComputeReadySubcondition | 'ExtraConfigHealthy', string>> = {
  NovaReady: 'NovaRef',
  NodesReady: 'Nodes',
  ConfigReady: 'PoolConfig',
  DaemonSetReady: 'DaemonSet',
  VPAReady: 'ComputeVPA',
  AggregatesReady: 'Aggregates',
  ServicesReady: 'Services',
  TraitsReady: 'Traits',
  ExtraConfigHealthy: 'PoolConfig',
};

export interface NovaComputeResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  nodes?: ReturnType<typeof poolNodesStatus>['nodes'];
  createdTraits?: string[];
  installedImage?: string;
  desiredNumberScheduled?: number;
  numberReady?: number;
}

const recorded = (type: keyof typeof STEP_OF, p: NovaPipelineContext | undefined): ConditionInput => {
  const r = p?.conditions[type];
  if (r) return { type, status: r.status, reason: r.reason, message: r.message };
  const where = p === undefined ? 'no pass of the pipeline has been recorded yet' : p.endedAt ? `the pipeline ends at the ${p.endedAt} step for now` : 'no pass has reached it yet';
  return { type, status: 'Unknown', reason: 'NotReached', message: `the ${STEP_OF[type]} step has not set it: ${where}` };
};

export const renderNovaComputeResource = (input: { pipeline: NovaPipelineContext | undefined; pool: NovaComputePoolContext | undefined; at: string; previous?: { conditions?: Condition[] } }): NovaComputeResourceStatus => {
  const p = input.pipeline;
  const subconditions = NOVA_COMPUTE_READY_SUBCONDITIONS.map((type) => recorded(type, p));
  const notTrue = subconditions.filter((s) => s.status !== 'True').map((s) => s.type);
  const ready: ConditionInput = notTrue.length === 0
    ? { type: 'Ready', status: 'True', reason: 'AllReady', message: 'every sub-condition is True' }
    : { type: 'Ready', status: 'False', reason: 'NotAllReady', message: `not True: ${notTrue.join(', ')}` };
  const observedGeneration = Math.max(p?.decidedGeneration ?? 0, input.pool?.generation ?? 0);
  const extra = recorded('ExtraConfigHealthy', p);
  const status: NovaComputeResourceStatus = {
    observedGeneration,
    phase: notTrue.length === 0 ? 'Ready' : 'Provisioning',
    conditions: mergeConditions(input.previous?.conditions, [ready, ...subconditions, extra], observedGeneration, input.at),
  };
  if (input.pool) {
    const { nodes, createdTraits } = poolNodesStatus(input.pool);
    status.nodes = nodes;
    status.createdTraits = createdTraits;
  }
  const stamps = p?.stamps ?? {};
  if (typeof stamps.installedImage === 'string') status.installedImage = stamps.installedImage;
  if (typeof stamps.desiredNumberScheduled === 'number') status.desiredNumberScheduled = stamps.desiredNumberScheduled;
  if (typeof stamps.numberReady === 'number') status.numberReady = stamps.numberReady;
  return status;
};
