/**
 * Traits (nova-operator.md, "reconcileNovaComputeTraits"; condition TraitsReady): the custom Placement traits of the
 * pool's hosts. A Pending or Active node is managed while its desired list (spec.traits merged with its
 * spec.hostTraits entry) or its trait record is not empty; a deleting pool manages none. With no managed node and no
 * created trait the step says NoTraitsDeclared and makes no call. Otherwise, in order:
 *
 *   1. a managed node whose Node carries nova.openstack.cloud.sap/custom-traits is neither read nor written;
 *   2. each other managed node's kvm.cloud.sap/v1 Hypervisor is read (HypervisorOperatorNotInstalled,
 *      HypervisorsForbidden, NodesWithoutHypervisor for a missing one while the others go on);
 *   3. every trait a node desires that its Hypervisor's status does not list yet is created in Placement at 1.6:
 *      observed absent (GET), claimed on the pool's stream (`traitsClaimed`, write-ahead, so a crash between the PUT
 *      and its record cannot leak it), then PUT /traits/{name}; a 201 records it as created (`traitCreated`, Normal
 *      event TraitCreated), a 204 only drops the claim (Regent did not create it and never deletes it). A failed
 *      create writes no Hypervisor in that pass. Where the Hypervisor kind is not installed (the embedded default)
 *      the traits are still created in Placement, and the condition says the Hypervisor half cannot be done;
 *   4. a Hypervisor whose spec.customTraits differs from the desired list is merge-patched with it, sorted, under the
 *      field owner cobaltcore-operator; the node's record becomes the CUSTOM_ subset of its status.traits with the list;
 *   5. a created trait no live NovaCompute of the Nova declares is deleted once no NovaCompute of the Nova records it on
 *      a node (`traitDeleteDecided` → `placement.deleteTrait`, TraitDeleted; a 409 drops it with TraitKept); a
 *      deleting pool drops a trait another pool still declares with TraitKept (`traitDropped`).
 *
 * The step returns the shorter of the Services step's poll and 30 s while a node waits on the hypervisor operator,
 * while a created trait waits for its last carrier, and after any False reason.
 */
import { isDeleting } from '../../../kube/object.js';
import type { NovaCompute } from '../../../resources/nova-compute.js';
import { CUSTOM_TRAITS_ANNOTATION, type HypervisorRead } from '../../../nova/compute/port.js';
import type { ComputeApi } from '../../../nova/compute/compute-api.js';
import { requeue, type NovaStep, type StepReport } from '../../nova/lane.js';
import { NOVA_COMPUTE_REQUEUE_MS } from '../deps.js';
import type { NovaComputePass } from '../pass.js';
import { novaComputePoolDefinition, novaComputePoolStream } from '../../../../machines/nova-compute-pool.js';
import { dispatchPool, poolsOfNova } from './nodes.js';

const CONDITION = 'TraitsReady';

/** spec.traits merged with the node's spec.hostTraits entry, sorted and unique (pure). */
export const desiredTraits = (pool: NovaCompute, node: string): string[] => [...new Set([...(pool.spec.traits ?? []), ...((pool.spec.hostTraits ?? []).find((h) => h.node === node)?.traits ?? [])])].sort();

/** Every trait a pool declares, for any node. */
const declaredBy = (pool: NovaCompute): Set<string> => new Set([...(pool.spec.traits ?? []), ...(pool.spec.hostTraits ?? []).flatMap((h) => h.traits)]);

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/** The event of a decided delete's answer, as stored on the pool's stream: TraitDeleted, or TraitKept on a 409. */
const announceDeleteAnswer = async (pass: NovaComputePass, trait: string): Promise<void> => {
  const { last } = await pass.deps.engine.load(novaComputePoolDefinition, novaComputePoolStream(pass.ref.uid));
  const answer = last?.data as { type?: string; trait?: string; outcome?: string } | undefined;
  if (answer?.type !== 'traitDeleted' || answer.trait !== trait) return;
  const kept = answer.outcome === 'inUse';
  const message = kept ? `Placement refused to delete the trait ${trait}: a resource provider carries it; it is kept` : `deleted the custom trait ${trait} from Placement (${answer.outcome})`;
  await pass.deps.source.recordEvent(pass.object as never, 'Normal', kept ? 'TraitKept' : 'TraitDeleted', message).catch(() => undefined);
};

export const traitsStep: NovaStep<NovaComputePass> = {
  name: 'Traits',
  conditions: [CONDITION],
  async run(pass) {
    const { deps, ref, object, values } = pass;
    const poll = values.servicesPoll ?? { afterMs: NOVA_COMPUTE_REQUEUE_MS.servicePolling, why: 'the periodic poll of Nova' };
    let pool = values.pool!;
    const managed = pass.deleting
      ? []
      : Object.entries(pool.nodes)
          .filter(([name, n]) => (n.phase === 'Pending' || n.phase === 'Active') && (desiredTraits(object, name).length > 0 || n.traits.length > 0))
          .map(([name]) => name)
          .sort();
    if (managed.length === 0 && pool.createdTraits.length === 0 && pool.claimedTraits.length === 0) {
      return { conditions: [{ type: CONDITION, status: 'True', reason: 'NoTraitsDeclared', message: 'no node of the pool declares or records a custom trait, and the pool created none' }], outcome: requeue(poll.afterMs, poll.why) };
    }
    const falses: Array<{ reason: string; message: string }> = [];
    let slow = false;
    const skipped = managed.filter((n) => values.listed?.get(n)?.annotations[CUSTOM_TRAITS_ANNOTATION] !== undefined);
    const reads = new Map<string, HypervisorRead>();
    const without: string[] = [];
    for (const name of managed.filter((n) => !skipped.includes(n))) {
      const read = await deps.cluster.hypervisors.get(name);
      reads.set(name, read);
      if (read.kind === 'missing') without.push(name);
    }
    const notInstalled = [...reads.values()].find((r) => r.kind === 'notInstalled');
    const forbidden = [...reads.values()].find((r) => r.kind === 'forbidden');
    if (notInstalled?.kind === 'notInstalled') {
      falses.push({ reason: 'HypervisorOperatorNotInstalled', message: `${notInstalled.message}: the nodes' Hypervisor objects cannot carry their traits` });
      slow = true;
    }
    if (forbidden?.kind === 'forbidden') falses.push({ reason: 'HypervisorsForbidden', message: `Regent may not read Hypervisors: ${forbidden.message}` });
    if (without.length > 0) falses.push({ reason: 'NodesWithoutHypervisor', message: `${without.join(', ')} ${without.length === 1 ? 'has' : 'have'} no Hypervisor object` });

    let api: ComputeApi | undefined;
    const client = async (): Promise<ComputeApi> => (api ??= await pass.api());
    // 3. create what the read nodes desire
    let createFailed = false;
    const creatable = [...reads.entries()].filter(([, r]) => r.kind === 'found' || r.kind === 'notInstalled');
    const wanted = new Set<string>();
    for (const [name, read] of creatable) {
      const listed = read.kind === 'found' ? read.hypervisor.statusTraits : [];
      for (const trait of desiredTraits(object, name)) if (!listed.includes(trait) && !pool.createdTraits.includes(trait)) wanted.add(trait);
    }
    for (const trait of [...wanted].sort()) {
      try {
        const placement = await client();
        if (!pool.claimedTraits.includes(trait)) {
          if (await placement.traitExists(trait)) continue;
          pool = await dispatchPool(pass, { type: 'traitsClaimed', source: 'reconciler', traits: [trait] });
        }
        const result = await placement.createTrait(trait);
        pool = await dispatchPool(pass, { type: 'traitCreated', source: 'effect', trait, created: result === 'created' });
        if (result === 'created') await deps.source.recordEvent(object as never, 'Normal', 'TraitCreated', `created the custom trait ${trait} in Placement`).catch(() => undefined);
      } catch (error) {
        createFailed = true;
        falses.push({ reason: 'PlacementAPIError', message: `creating the trait ${trait} failed: ${(error as Error).message}` });
      }
    }
    // 4. the Hypervisors, and each node's record
    if (!createFailed) {
      for (const [name, read] of reads) {
        if (read.kind !== 'found') continue;
        const desired = desiredTraits(object, name);
        try {
          if (!sameList(read.hypervisor.customTraits, desired)) await deps.cluster.hypervisors.setCustomTraits(name, desired);
        } catch (error) {
          falses.push({ reason: 'HypervisorPatchFailed', message: `writing the traits of Hypervisor ${name} failed: ${(error as Error).message}` });
          continue;
        }
        const record = [...new Set([...read.hypervisor.statusTraits.filter((t) => t.startsWith('CUSTOM_')), ...desired])].sort();
        if (!sameList(pool.nodes[name]?.traits ?? [], record)) pool = await dispatchPool(pass, { type: 'nodeTraitsRecorded', source: 'reconciler', node: name, traits: record });
      }
    }
    // 5. created traits nobody declares any more
    const pools = await poolsOfNova(pass);
    const others = pools.filter((p) => p.metadata.uid !== ref.uid);
    const declared = new Set([...(pass.deleting ? [] : [...declaredBy(object)]), ...others.filter((p) => !isDeleting(p)).flatMap((p) => [...declaredBy(p)])]);
    const declaredByOthers = new Set(others.filter((p) => !isDeleting(p)).flatMap((p) => [...declaredBy(p)]));
    const carried = new Set([...Object.values(pool.nodes).flatMap((n) => n.traits), ...others.flatMap((p) => (p.status?.nodes ?? []).flatMap((n) => n.traits ?? []))]);
    const waiting: string[] = [];
    for (const trait of [...pool.createdTraits]) {
      if (pass.deleting && declaredByOthers.has(trait)) {
        pool = await dispatchPool(pass, { type: 'traitDropped', source: 'reconciler', trait, reason: 'TraitKept' });
        await deps.source.recordEvent(object as never, 'Normal', 'TraitKept', `the trait ${trait} is still declared by another NovaCompute of Nova ${object.spec.novaRef.name}: it is kept`).catch(() => undefined);
        continue;
      }
      if (declared.has(trait)) continue;
      if (carried.has(trait)) {
        waiting.push(trait);
        continue;
      }
      // the engine runs placement.deleteTrait after the decision is stored (./effects.ts), with this pass's client
      await client().catch(() => undefined);
      pool = await dispatchPool(pass, { type: 'traitDeleteDecided', source: 'reconciler', trait });
      if (pool.createdTraits.includes(trait)) falses.push({ reason: 'PlacementAPIError', message: `deleting the trait ${trait} failed; it is tried again` });
      else await announceDeleteAnswer(pass, trait);
    }
    if (waiting.length > 0) slow = true;
    const afterMs = slow || falses.length > 0 ? Math.min(poll.afterMs, NOVA_COMPUTE_REQUEUE_MS.drainPolling) : poll.afterMs;
    const first = falses[0];
    const tail = skipped.length > 0 ? `; ${skipped.join(', ')} carry ${CUSTOM_TRAITS_ANNOTATION} and are left alone` : '';
    const condition = first
      ? { type: CONDITION, status: 'False' as const, reason: first.reason, message: falses.map((f) => f.message).join('; ') + tail }
      : { type: CONDITION, status: 'True' as const, reason: 'TraitsReady', message: `${managed.length} node${managed.length === 1 ? '' : 's'} carry their custom traits; created ${pool.createdTraits.length}${waiting.length ? `; ${waiting.join(', ')} wait for their last carrier` : ''}${tail}` };
    return { conditions: [condition], outcome: requeue(afterMs, afterMs === poll.afterMs ? poll.why : `${CONDITION} ${first?.reason ?? 'a created trait waits for its last carrier'}`) } satisfies StepReport;
  },
};
