/**
 * Nodes (nova-operator.md, "reconcileNovaComputeNodes"; condition NodesReady). Lists the selected Nodes through the
 * pool cluster's uncached reader (metadata only: a node's name, labels and annotations are all the rules use); a
 * deleting pool lists nothing. Held nodes the list no longer returns are read one by one, and a gone node counts as
 * leaving. The rivals are the other NovaComputes of the same Nova in the namespace. What the pool observed goes to
 * the pool machine (machines/nova-compute-pool.ts, `nodesObserved`), which holds the phase rules: a selected node no
 * rival selects or holds is taken as Pending, a held node that leaves drains (Active) or is released (Pending), a
 * node a rival takes over is handed over.
 *
 * Reasons: NodesSelected (True); NoMatchingNodes and NodeConflict (False, the lane goes on: an empty selection still
 * drains what the pool held); NodesForbidden (a 403: 15 s); NodeListError (any other read error: the pass fails).
 * A new conflict records one Warning NodeConflict event (once per pool and node while this process runs, per resource
 * source: a plan's announcements do not use up the real pass's).
 */
import type { Stimulus } from '../../../../machines/definition.js';
import { novaComputePoolDefinition, novaComputePoolStream, type NovaComputePoolContext } from '../../../../machines/nova-compute-pool.js';
import { contextOf } from '../../../engine/engine.js';
import { isDeleting } from '../../../kube/object.js';
import type { NovaCompute } from '../../../resources/nova-compute.js';
import { ComputeClusterError, ZONE_LABEL, type NodeMeta } from '../../../nova/compute/port.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../../nova/lane.js';
import { NOVA_COMPUTE_REQUEUE_MS } from '../deps.js';
import type { NovaComputePass } from '../pass.js';

const CONDITION = 'NodesReady';
const actor = 'reconciler/nova-compute';

const report = (status: 'True' | 'False', reason: string, message: string): StepReport => ({ conditions: [{ type: CONDITION, status, reason, message }], outcome: continueLane });

/** Whether every pair of `selector` is among `labels` (an empty selector selects nothing here: the codec refuses it). */
export const selects = (selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>>): boolean => {
  const pairs = Object.entries(selector);
  return pairs.length > 0 && pairs.every(([k, v]) => labels[k] === v);
};

/** The other live-or-deleting NovaComputes of the same Nova in the namespace (this one excluded). */
export const poolsOfNova = async (pass: NovaComputePass): Promise<NovaCompute[]> => {
  if (pass.values.pools) return pass.values.pools;
  const { items } = await pass.deps.source.list('NovaCompute', pass.ref.namespace);
  const pools = (items as NovaCompute[]).filter((p) => p.spec.novaRef.name === pass.object.spec.novaRef.name);
  pass.values.pools = pools;
  return pools;
};

/** The nodes a pool holds, as its status lists them. */
const heldBy = (pool: NovaCompute): string[] => (pool.status?.nodes ?? []).map((n) => n.name);

/** Loads the pool machine's context (what it holds, the trait ledger). */
export const loadPool = async (pass: NovaComputePass): Promise<NovaComputePoolContext> => {
  const { snapshot } = await pass.deps.engine.load(novaComputePoolDefinition, novaComputePoolStream(pass.ref.uid));
  return contextOf(novaComputePoolDefinition, snapshot);
};

/** Sends a stimulus to the pool's stream and keeps the context it leaves in the pass. */
export const dispatchPool = async (pass: NovaComputePass, stimulus: Record<string, unknown>): Promise<NovaComputePoolContext> => {
  const decisions = await pass.deps.engine.dispatch(novaComputePoolStream(pass.ref.uid), { stimulus: stimulus as unknown as Stimulus, actor });
  const last = decisions.at(-1);
  const context = last ? contextOf(novaComputePoolDefinition, last.snapshot) : await loadPool(pass);
  pass.values.pool = context;
  return context;
};

/**
 * Conflicts already announced with a Warning event, by the resource source they were recorded to: `<pool uid>/<node>`.
 * Per source, so a plan (its own read-only source, in the control plane's process: the audit view, the dry run) never
 * uses up the announcement the real pass makes.
 */
const announcedTo = new WeakMap<object, Set<string>>();
const announcedOn = (source: object): Set<string> => {
  let set = announcedTo.get(source);
  if (!set) announcedTo.set(source, (set = new Set()));
  return set;
};

export const nodesStep: NovaStep<NovaComputePass> = {
  name: 'Nodes',
  conditions: [CONDITION],
  async run(pass) {
    const { deps, object, ref } = pass;
    const before = pass.values.pool ?? (await loadPool(pass));
    const listed = new Map<string, NodeMeta>();
    try {
      if (!pass.deleting) for (const node of await deps.cluster.nodes.list(object.spec.nodeSelector)) listed.set(node.name, node);
      // held nodes the list no longer returns are read one by one (gone: leaving)
      for (const name of Object.keys(before.nodes)) {
        if (listed.has(name)) continue;
        const node = await deps.cluster.nodes.get(name);
        if (node) listed.set(name, node);
      }
    } catch (error) {
      if (error instanceof ComputeClusterError && error.status === 403) {
        return { conditions: [{ type: CONDITION, status: 'False', reason: 'NodesForbidden', message: `Regent may not read Nodes: ${error.message}` }], outcome: requeue(NOVA_COMPUTE_REQUEUE_MS.secretPolling, `${CONDITION} NodesForbidden`) };
      }
      return { conditions: [{ type: CONDITION, status: 'False', reason: 'NodeListError', message: `listing the Nodes failed: ${(error as Error).message}` }], outcome: { kind: 'error', error } };
    }
    const selected = pass.deleting ? [] : [...listed.values()].filter((n) => selects(object.spec.nodeSelector, n.labels));
    const rivals = (await poolsOfNova(pass)).filter((p) => p.metadata.uid !== ref.uid);
    // a node a rival selects (while that rival is not being deleted) or holds
    const rivalSelected = [...listed.values()]
      .filter((n) => rivals.some((r) => heldBy(r).includes(n.name) || (!isDeleting(r) && selects(r.spec.nodeSelector, n.labels))))
      .map((n) => n.name)
      .sort();
    const after = await dispatchPool(pass, {
      type: 'nodesObserved',
      source: 'reconciler',
      generation: object.metadata.generation ?? 1,
      deleting: pass.deleting,
      selected: selected.map((n) => ({ name: n.name, zone: n.labels[ZONE_LABEL] ?? null })),
      rivalSelected,
    });
    pass.values.listed = listed;
    const conflicts = selected.filter((n) => !after.nodes[n.name]).map((n) => n.name);
    pass.values.excluded = [...conflicts, ...selected.filter((n) => after.nodes[n.name]?.phase === 'Releasing').map((n) => n.name)].sort();
    const announced = announcedOn(deps.source);
    for (const node of conflicts) {
      const key = `${ref.uid}/${node}`;
      if (announced.has(key)) continue;
      announced.add(key);
      await deps.source.recordEvent(object as never, 'Warning', 'NodeConflict', `node ${node} is selected or held by another NovaCompute of Nova ${object.spec.novaRef.name}; this pool does not take it`).catch(() => undefined);
    }
    const held = Object.entries(after.nodes);
    const count = (phase: string) => held.filter(([, n]) => n.phase === phase).length;
    const summary = `${held.length} held (${count('Pending')} Pending, ${count('Active')} Active, ${count('Draining')} Draining, ${count('Releasing')} Releasing)`;
    if (pass.deleting) return report('True', 'PoolDeleting', `the pool is being deleted and selects nothing; ${summary}`);
    if (conflicts.length > 0) return report('False', 'NodeConflict', `${conflicts.join(', ')} ${conflicts.length === 1 ? 'is' : 'are'} selected or held by another NovaCompute of Nova ${object.spec.novaRef.name}; ${summary}`);
    if (selected.length === 0) return report('False', 'NoMatchingNodes', `no Node matches the selector ${Object.entries(object.spec.nodeSelector).map(([k, v]) => `${k}=${v}`).join(',')}; ${summary}`);
    return report('True', 'NodesSelected', `${selected.length} selected; ${summary}`);
  },
};
