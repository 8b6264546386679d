/**
 * Where a Nova's children live (nova-operator.md, "Conditions" TargetClusterUnavailable; "Watches and indexes",
 * last paragraph; issue 27): on the management cluster, or, when spec.targetClusterRef names a registered cluster
 * that resolves, on that target cluster through the runtime's `forTarget` ports (src/nova/target-ports.ts).
 *
 * The pass, the effect handlers and the finalizer all place a Nova through `placeNova`, so a Job decided in one pass
 * and created by its effect lands on the same cluster as the Deployments, and the finalizer's named cleanup deletes
 * the MariaDB CRs where they were created. The registry caches each answer for 15 s, so the repeated resolution is
 * one probe per window.
 */
import type { Nova } from '../../resources/nova.js';
import type { TargetCluster } from '../../nova/target-clusters.js';
import type { NovaControllerDeps, TargetPorts } from './deps.js';

/** The second finalizer of a Nova with a target cluster: its children there are swept before it goes. */
export const REMOTE_CHILDREN_FINALIZER = 'openstack.c5c3.io/remote-children';

type Placing = Partial<Pick<NovaControllerDeps, 'targetClusters' | 'forTarget'>>;

export type Placement<D extends Placing = NovaControllerDeps> =
  /** No spec.targetClusterRef: the management cluster's ports. */
  | { kind: 'local'; deps: D }
  /** The target resolved: the deps with the target's ports in place of the management cluster's. */
  | { kind: 'remote'; cluster: TargetCluster; deps: D & TargetPorts }
  /** The target resolves, but this runtime cannot project onto it (no forTarget: the embedded default). */
  | { kind: 'notSupported'; cluster: TargetCluster; message: string }
  /** Not registered, or it does not resolve (TargetClusterUnavailable). */
  | { kind: 'unavailable'; cluster: string; message: string };

export const placeNova = async <D extends Placing>(deps: D, nova: Nova): Promise<Placement<D>> => {
  const target = nova.spec.targetClusterRef?.name;
  if (!target) return { kind: 'local', deps };
  const resolution = deps.targetClusters
    ? await deps.targetClusters.resolve(nova.metadata.namespace ?? 'default', target)
    : { kind: 'unregistered' as const, message: `the target cluster ${target} is not registered: this runtime has no registry of target clusters (the embedded default runs on one host)` };
  if (resolution.kind !== 'resolved') return { kind: 'unavailable', cluster: target, message: resolution.message };
  const { cluster } = resolution;
  if (!deps.forTarget) return { kind: 'notSupported', cluster, message: `the target cluster ${target} resolves (${cluster.server}), but this runtime cannot project a Nova's children onto another cluster: nothing is created on either cluster` };
  return { kind: 'remote', cluster, deps: { ...deps, ...deps.forTarget(cluster) } };
};

/** The deps an effect runs with for this Nova; throws when its target cluster does not resolve now (the next pass decides again). */
export const portsFor = async <D extends Placing>(deps: D, nova: Nova): Promise<D> => {
  const placement = await placeNova(deps, nova);
  if (placement.kind === 'local' || placement.kind === 'remote') return placement.deps;
  throw new Error(placement.message);
};
