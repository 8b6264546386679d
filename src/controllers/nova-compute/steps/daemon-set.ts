/**
 * DaemonSet (nova-operator.md, "reconcileNovaComputeDaemonSet"; condition DaemonSetReady). Builds the node affinity
 * from the selector and the nodes the Nodes step excluded and held, and applies `{name}-nova-compute`. With no
 * affinity term (a deleting pool holding no Draining node) it deletes the DaemonSet instead, which releases the last
 * pod. It mirrors desiredNumberScheduled and numberReady, reports DaemonSetProgressing while a rollout is in flight
 * without stopping the lane, and stamps status.installedImage once every node runs a ready pod.
 *
 * Which node runs a pod: the selected nodes the pool holds as Pending or Active (a node a rival holds, and the
 * pool's own Releasing ones, are `excluded`: their pod goes, so Releasing can see it gone), plus the Draining nodes,
 * whose pod stays while their servers leave (`held`, also when the selector no longer matches them).
 */
import { CONTRACT_HASH_ANNOTATION, type PoolAffinity } from '../../../nova/compute/port.js';
import { continueLane, type NovaStep, type StepReport } from '../../nova/lane.js';
import type { NovaComputePass } from '../pass.js';

const CONDITION = 'DaemonSetReady';

/** The affinity and the nodes it resolves to, from the pool machine's record (pure). */
export const poolAffinity = (input: {
  deleting: boolean;
  selector: Readonly<Record<string, string>>;
  nodes: Readonly<Record<string, { phase: string }>>;
  excluded: readonly string[];
}): { affinity: PoolAffinity | null; nodes: string[] } => {
  const held = Object.entries(input.nodes).filter(([, n]) => n.phase === 'Draining').map(([name]) => name).sort();
  const running = Object.entries(input.nodes).filter(([, n]) => n.phase === 'Pending' || n.phase === 'Active' || n.phase === 'Draining').map(([name]) => name).sort();
  if (input.deleting && held.length === 0) return { affinity: null, nodes: [] };
  const affinity: PoolAffinity = { ...(input.deleting ? {} : { selector: { labels: input.selector, excluded: [...input.excluded].sort() } }), held };
  return { affinity, nodes: running };
};

export const daemonSetStep: NovaStep<NovaComputePass> = {
  name: 'DaemonSet',
  conditions: [CONDITION],
  async run(pass) {
    const { deps, ref, object, values } = pass;
    const pool = values.pool!;
    const { affinity, nodes } = poolAffinity({ deleting: pass.deleting, selector: object.spec.nodeSelector, nodes: pool.nodes, excluded: values.excluded ?? [] });
    const report = (status: 'True' | 'False', reason: string, message: string): StepReport => ({ conditions: [{ type: CONDITION, status, reason, message }], outcome: continueLane });
    try {
      if (!affinity) {
        const deleted = await deps.cluster.workloads.deleteDaemonSet(ref.namespace, ref.name);
        values.stamps = { ...values.stamps, desiredNumberScheduled: 0, numberReady: 0 };
        return report('True', 'DaemonSetRemoved', deleted ? 'the pool holds no node that drains: its DaemonSet was deleted' : 'the pool holds no node that drains: no DaemonSet');
      }
      const status = await deps.cluster.workloads.ensureDaemonSet({
        namespace: ref.namespace,
        pool: ref.name,
        owner: { name: ref.name, uid: ref.uid },
        nova: object.spec.novaRef.name,
        image: values.image!,
        config: values.config!,
        contractSecret: values.contractSecret!,
        serviceUserSecret: values.nova!.spec.serviceUser.secretRef.name,
        annotations: { [CONTRACT_HASH_ANNOTATION]: values.contractHash! },
        affinity,
        nodes,
      });
      values.stamps = { ...values.stamps, desiredNumberScheduled: status.desiredNumberScheduled, numberReady: status.numberReady };
      const everyNodeReady = status.rolledOut && status.desiredNumberScheduled > 0 && status.numberReady === status.desiredNumberScheduled;
      if (everyNodeReady) {
        values.stamps.installedImage = values.image!;
        return report('True', 'DaemonSetReady', `${status.numberReady} of ${status.desiredNumberScheduled} nodes run a ready pod of ${values.image}`);
      }
      if (status.desiredNumberScheduled === 0 && nodes.length === 0) return report('True', 'DaemonSetReady', 'no node is selected: the DaemonSet schedules no pod');
      return report('False', 'DaemonSetProgressing', `${status.numberReady} of ${status.desiredNumberScheduled} pods ready${status.rolledOut ? '' : ', rollout in progress'}`);
    } catch (error) {
      return { conditions: [{ type: CONDITION, status: 'False', reason: 'DaemonSetError', message: `applying the DaemonSet failed: ${(error as Error).message}` }], outcome: { kind: 'error', error } };
    }
  },
};
