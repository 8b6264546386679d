/**
 * The NovaCompute controller's pass (nova-operator.md, "NovaCompute", "Requeue and teardown"; issue 28).
 *
 *   - The finalizer nova.openstack.c5c3.io/compute-drain goes on before the pipeline runs (1 s).
 *   - A live pool runs the eight steps of ./pipeline.ts; what they said is appended to `nova-compute-pipeline-<uid>`
 *     (machines/nova-pipeline.ts, the pool's definition) on every exit path; the node phases and the trait ledger are
 *     the pool machine's (`nova-compute-pool-<uid>`, machines/nova-compute-pool.ts).
 *   - A deleting pool runs the whole pipeline with every held node leaving until a pass that began with no node held
 *     completed the Aggregates step and left no created trait: the pass that releases the last node keeps the
 *     finalizer (deleting its service empties the aggregates the host sat in after that pass's Aggregates step ran).
 *     Once it holds no node only NovaRef, Aggregates and Traits run. A failing Placement or Nova call holds the
 *     finalizer. When the Nova is gone that part is skipped, and so it is for a pool no pass of which ever got past
 *     NovaRef (its Nova never became usable, so nothing was created in Nova or Placement). Then the pool's objects are swept (the DaemonSet, its
 *     ConfigMaps, the VerticalPodAutoscaler) and the finalizer is released.
 * The pass's computeapi client is opened once, on first use, and the effects the pool machine decides run with it
 * (./effects.ts).
 */
import type { Stimulus } from '../../../machines/definition.js';
import { novaComputePipelineDefinition, novaComputePipelineStream, type NovaPipelineStimulus } from '../../../machines/nova-pipeline.js';
import { contextOf } from '../../engine/engine.js';
import { novaComputePoolStream } from '../../../machines/nova-compute-pool.js';
import { isDeleting } from '../../kube/object.js';
import type { NovaCompute } from '../../resources/nova-compute.js';
import { done, yieldFor, type Disposition } from '../disposition.js';
import { runLane, type LaneResult } from '../nova/lane.js';
import { NOVA_COMPUTE_REQUEUE_MS, type NovaComputeDeps } from './deps.js';
import { withPassClient } from './effects.js';
import { passApi, type NovaComputePass, type PoolRef } from './pass.js';
import { NOVA_COMPUTE_LANE, TEARDOWN_LANE } from './pipeline.js';
import { dispatchPool, loadPool } from './steps/nodes.js';

export const COMPUTE_DRAIN_FINALIZER = 'nova.openstack.c5c3.io/compute-drain';
const actor = 'reconciler/nova-compute';

/** The condition each step reports under (the nova_operator_* error counter's condition_type). */
const CONDITION_OF: Readonly<Record<string, string>> = { NovaRef: 'NovaReady', Nodes: 'NodesReady', PoolConfig: 'ConfigReady', DaemonSet: 'DaemonSetReady', ComputeVPA: 'VPAReady', Aggregates: 'AggregatesReady', Services: 'ServicesReady', Traits: 'TraitsReady' };

const record = async (deps: NovaComputeDeps, pass: NovaComputePass, lane: LaneResult): Promise<void> => {
  const stimulus: NovaPipelineStimulus = {
    type: 'lane',
    source: 'reconciler',
    generation: pass.object.metadata.generation ?? 1,
    at: pass.now().toISOString(),
    conditions: lane.conditions.map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message })),
    endedAt: lane.endedAt,
    stamps: pass.values.stamps,
  };
  await deps.engine.dispatch(novaComputePipelineStream(pass.ref.uid), { stimulus: stimulus as unknown as Stimulus, actor });
  for (const t of lane.timings) deps.metrics?.stepFinished(t.step, CONDITION_OF[t.step] ?? t.step, t.ms / 1000, t.outcome === 'error');
};

const dispositionOf = (lane: LaneResult): Disposition => {
  const { outcome } = lane;
  if (outcome.kind === 'error') throw outcome.error;
  if (outcome.kind === 'requeue') return yieldFor(outcome.afterMs, `${lane.endedAt}: ${outcome.why}`);
  return yieldFor(NOVA_COMPUTE_REQUEUE_MS.servicePolling, 'every step passed');
};

/** Whether any pass of the pool ever reached the Aggregates step (its pipeline record holds AggregatesReady). */
const reachedAggregates = async (deps: NovaComputeDeps, ref: PoolRef): Promise<boolean> => {
  const { snapshot } = await deps.engine.load(novaComputePipelineDefinition, novaComputePipelineStream(ref.uid));
  return contextOf(novaComputePipelineDefinition, snapshot).conditions.AggregatesReady !== undefined;
};

/** Sweeps what the pool has on its cluster and releases the finalizer. */
const release = async (deps: NovaComputeDeps, object: NovaCompute, ref: PoolRef, why: string): Promise<Disposition> => {
  const removed = await deps.cluster.workloads.removeAll(ref.namespace, ref.name);
  await deps.source.removeFinalizer('NovaCompute', ref.namespace, ref.name, COMPUTE_DRAIN_FINALIZER);
  deps.logger.info('NovaCompute released', { pool: `${ref.namespace}/${ref.name}`, why, removed: removed.join(', ') || 'nothing' });
  return done(`released: ${why}`);
};

export const reconcileNovaCompute = async (deps: NovaComputeDeps, namespace: string, name: string, now: () => Date = () => new Date()): Promise<Disposition> => {
  const object = (await deps.source.get('NovaCompute', namespace, name)) as NovaCompute | undefined;
  if (!object) return done('gone');
  const ref: PoolRef = { namespace, name, uid: object.metadata.uid };
  const finalizers = object.metadata.finalizers ?? [];
  const deleting = isDeleting(object);
  if (deleting && !finalizers.includes(COMPUTE_DRAIN_FINALIZER)) return done("being deleted without Regent's finalizer: its teardown is done");
  if (!deleting) {
    if (!finalizers.includes(COMPUTE_DRAIN_FINALIZER)) {
      await deps.source.addFinalizer('NovaCompute', namespace, name, COMPUTE_DRAIN_FINALIZER);
      return yieldFor(NOVA_COMPUTE_REQUEUE_MS.nextPass, `the finalizer ${COMPUTE_DRAIN_FINALIZER} was added; the pipeline runs on the next pass`);
    }
  }
  const values: NovaComputePass['values'] = { stamps: {} };
  const pass: NovaComputePass = { object, ref, deps, deleting, values, now, api: passApi(deps, values) };
  const refused = deps.namespaceRefused?.(namespace) ?? null;
  if (refused && !deleting) {
    // nothing in this namespace may be read or written: the pass records only why
    await record(deps, pass, { conditions: [{ type: 'NovaReady', status: 'False', reason: 'NamespaceNotServed', message: refused }], endedAt: 'NovaRef', outcome: { kind: 'continue' }, timings: [] });
    return done(refused);
  }
  return withPassClient(novaComputePoolStream(ref.uid), pass.api, async () => {
    const entry = await loadPool(pass);
    values.pool = entry;
    if (deleting) {
      // a pool drains only while the Nova exists: without it there is no service to disable nor aggregate to empty
      if (!(await deps.source.get('Nova', namespace, object.spec.novaRef.name))) return release(deps, object, ref, `Nova ${object.spec.novaRef.name} is gone: nothing to drain`);
      if (Object.keys(entry.nodes).length === 0) {
        const lane = await runLane(TEARDOWN_LANE, pass);
        await record(deps, pass, lane);
        const ledger = values.pool!;
        const noTraits = ledger.createdTraits.length === 0 && ledger.claimedTraits.length === 0;
        const clean = values.aggregatesCompleted === true && noTraits;
        if (lane.outcome.kind !== 'error' && clean) {
          await dispatchPool(pass, { type: 'released', source: 'reconciler' });
          return release(deps, object, ref, 'no node held, the aggregates settled and no created trait left');
        }
        // a pool that never got past NovaRef (its Nova never became usable) created nothing in Nova or Placement:
        // waiting for that Nova would keep it Terminating for nothing
        if (lane.endedAt === 'NovaRef' && noTraits && !(await reachedAggregates(deps, ref))) {
          await dispatchPool(pass, { type: 'released', source: 'reconciler' });
          return release(deps, object, ref, 'its Nova was never usable: no pass reached the Aggregates step, nothing was created in Nova or Placement');
        }
        return dispositionOf(lane);
      }
    }
    const lane = await runLane(NOVA_COMPUTE_LANE, pass);
    await record(deps, pass, lane);
    return dispositionOf(lane);
  });
};
