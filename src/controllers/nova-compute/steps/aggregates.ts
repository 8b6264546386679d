/**
 * Aggregates (nova-operator.md, "reconcileNovaComputeAggregates"; condition AggregatesReady). Lists the host
 * aggregates, ensures one per zone of the pool's Pending and Active nodes (named after the zone, its availability
 * zone the zone) and, while the pool is not being deleted, `tenant_filter_tests`, and marks what it creates with
 * `c5c3.io:nova=<namespace>/<nova>`; an aggregate it could not mark is deleted again. The set still needed is the
 * union over every NovaCompute of the Nova that is not being deleted; a pass that skipped the Nodes step lists those
 * NovaComputes itself (NovaComputeListError when that fails). A marked aggregate outside the set is deleted once it
 * holds no host, unless it carries metadata beyond the marker and its availability zone: then it is kept, with a
 * Warning AggregateKept. From the list it already read, the step reports every Active node in no aggregate of its
 * zone under NodesOutsideZoneAggregate and keeps AggregatesReady True: putting a host into an aggregate is the
 * operator's (the spec names no add_host).
 *
 * False without stopping the lane: NodesWithoutZone (a node without the topology.kubernetes.io/zone label),
 * AggregateZoneMismatch (an aggregate of the zone's name serves another availability zone). A failed call:
 * ComputeAPIError, 30 s, no error. An aggregate another pass created at the same moment (409): 10 s. Only a completed
 * pass lets a deleting pool release its finalizer (`values.aggregatesCompleted`).
 */
import { isDeleting } from '../../../kube/object.js';
import type { NovaCompute } from '../../../resources/nova-compute.js';
import type { AggregateRow, ComputeApi } from '../../../nova/compute/compute-api.js';
import { ComputeApiError } from '../../../nova/compute/compute-api.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../../nova/lane.js';
import { NOVA_COMPUTE_REQUEUE_MS } from '../deps.js';
import type { NovaComputePass } from '../pass.js';
import { poolsOfNova } from './nodes.js';

const CONDITION = 'AggregatesReady';
export const AGGREGATE_MARKER = 'c5c3.io:nova';
export const TENANT_FILTER_AGGREGATE = 'tenant_filter_tests';

export const markerOf = (namespace: string, nova: string): string => `${namespace}/${nova}`;

const apiFailure = (what: string, error: unknown): StepReport => ({
  conditions: [{ type: CONDITION, status: 'False', reason: 'ComputeAPIError', message: `${what}: ${(error as Error).message}` }],
  outcome: requeue(NOVA_COMPUTE_REQUEUE_MS.drainPolling, `${CONDITION} ComputeAPIError`),
});

/** The zones a pool needs an aggregate for: those of its Pending and Active nodes. */
const zonesOf = (nodes: ReadonlyArray<{ phase: string; zone?: string | null }>): string[] =>
  nodes.filter((n) => (n.phase === 'Pending' || n.phase === 'Active') && n.zone).map((n) => n.zone!);

/** The aggregates the Nova's live pools still need (pure): each zone of theirs, and tenant_filter_tests while any is live. */
export const neededAggregates = (live: ReadonlyArray<{ zones: readonly string[] }>): Set<string> => {
  const needed = new Set(live.flatMap((p) => p.zones));
  if (live.length > 0) needed.add(TENANT_FILTER_AGGREGATE);
  return needed;
};

/** Metadata beyond the marker and the availability zone: someone else configured the aggregate. */
const foreignMetadata = (aggregate: AggregateRow): string[] => Object.keys(aggregate.metadata).filter((k) => k !== AGGREGATE_MARKER && k !== 'availability_zone');

export const aggregatesStep: NovaStep<NovaComputePass> = {
  name: 'Aggregates',
  conditions: [CONDITION],
  async run(pass) {
    const { deps, ref, object, values } = pass;
    const marker = markerOf(ref.namespace, object.spec.novaRef.name);
    let pools: NovaCompute[];
    try {
      pools = await poolsOfNova(pass);
    } catch (error) {
      return { conditions: [{ type: CONDITION, status: 'False', reason: 'NovaComputeListError', message: `listing the NovaComputes of Nova ${object.spec.novaRef.name} failed: ${(error as Error).message}` }], outcome: { kind: 'error', error } };
    }
    const own = Object.entries(values.pool?.nodes ?? {}).map(([name, n]) => ({ name, ...n }));
    const mine = pass.deleting ? [] : own;
    const live = [
      ...(pass.deleting ? [] : [{ zones: zonesOf(mine) }]),
      ...pools.filter((p) => p.metadata.uid !== ref.uid && !isDeleting(p)).map((p) => ({ zones: zonesOf(p.status?.nodes ?? []) })),
    ];
    const needed = neededAggregates(live);
    const wanted = [...new Set(zonesOf(mine))].sort();
    const withoutZone = mine.filter((n) => (n.phase === 'Pending' || n.phase === 'Active') && !n.zone).map((n) => n.name);
    let api: ComputeApi;
    let aggregates: AggregateRow[];
    try {
      api = await pass.api();
      aggregates = await api.listAggregates();
    } catch (error) {
      return apiFailure('listing the host aggregates failed', error);
    }
    const byName = new Map(aggregates.map((a) => [a.name, a]));
    const mismatched: string[] = [];
    const created: string[] = [];
    const ensure = async (name: string, zone: string | null): Promise<StepReport | null> => {
      const existing = byName.get(name);
      if (existing) {
        if (zone !== null && existing.zone !== zone) mismatched.push(`${name} (availability zone ${existing.zone ?? 'none'})`);
        return null;
      }
      let aggregate: AggregateRow;
      try {
        aggregate = await api.createAggregate(name, zone);
      } catch (error) {
        if (error instanceof ComputeApiError && error.conflict) {
          return { conditions: [{ type: CONDITION, status: 'False', reason: 'AggregateCreatedConcurrently', message: `aggregate ${name} was created by someone else at the same moment; read again shortly` }], outcome: requeue(NOVA_COMPUTE_REQUEUE_MS.deploymentPolling, `${CONDITION} AggregateCreatedConcurrently`) };
        }
        return apiFailure(`creating aggregate ${name} failed`, error);
      }
      try {
        aggregate = await api.setAggregateMetadata(aggregate.id, { [AGGREGATE_MARKER]: marker });
      } catch (error) {
        // an aggregate it could not mark is deleted again: unmarked, nothing would ever clean it up
        await api.deleteAggregate(aggregate.id).catch(() => undefined);
        return apiFailure(`marking aggregate ${name} failed (it was deleted again)`, error);
      }
      byName.set(name, aggregate);
      created.push(name);
      return null;
    };
    for (const zone of wanted) {
      const stop = await ensure(zone, zone);
      if (stop) return stop;
    }
    if (!pass.deleting) {
      const stop = await ensure(TENANT_FILTER_AGGREGATE, null);
      if (stop) return stop;
    }
    const deleted: string[] = [];
    const kept: string[] = [];
    for (const aggregate of byName.values()) {
      if (aggregate.metadata[AGGREGATE_MARKER] !== marker || needed.has(aggregate.name) || aggregate.hosts.length > 0) continue;
      const foreign = foreignMetadata(aggregate);
      if (foreign.length > 0) {
        kept.push(aggregate.name);
        await deps.source.recordEvent(object as never, 'Warning', 'AggregateKept', `aggregate ${aggregate.name} is no longer needed but carries metadata Regent did not set (${foreign.join(', ')}): it is kept`).catch(() => undefined);
        continue;
      }
      try {
        await api.deleteAggregate(aggregate.id);
        deleted.push(aggregate.name);
      } catch (error) {
        return apiFailure(`deleting aggregate ${aggregate.name} failed`, error);
      }
    }
    values.aggregatesCompleted = true;
    const done = [created.length ? `created ${created.join(', ')}` : '', deleted.length ? `deleted ${deleted.join(', ')}` : '', kept.length ? `kept ${kept.join(', ')}` : ''].filter(Boolean).join('; ');
    const tail = done ? ` (${done})` : '';
    const report = (status: 'True' | 'False', reason: string, message: string): StepReport => ({ conditions: [{ type: CONDITION, status, reason, message: message + tail }], outcome: continueLane });
    if (mismatched.length > 0) return report('False', 'AggregateZoneMismatch', `an aggregate named after a zone serves another availability zone: ${mismatched.join(', ')}`);
    if (withoutZone.length > 0) return report('False', 'NodesWithoutZone', `${withoutZone.join(', ')} ${withoutZone.length === 1 ? 'has' : 'have'} no topology.kubernetes.io/zone label`);
    const outside = mine.filter((n) => n.phase === 'Active' && n.zone && ![...byName.values()].some((a) => a.zone === n.zone && a.hosts.includes(n.name))).map((n) => n.name);
    if (outside.length > 0) return report('True', 'NodesOutsideZoneAggregate', `${outside.join(', ')} ${outside.length === 1 ? 'is' : 'are'} in no aggregate of ${outside.length === 1 ? 'its' : 'their'} zone`);
    return report('True', 'AggregatesReady', wanted.length > 0 ? `an aggregate per zone: ${wanted.join(', ')}` : pass.deleting ? 'the pool is being deleted: it needs no aggregate' : 'no node with a zone yet: no zone aggregate needed');
  },
};
