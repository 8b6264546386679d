/**
 * The WorkloadCluster kind as the control plane runs it (src/controllers/kind.ts; issue 29): passes with the session
 * of its Identity (src/controllers/scopes.ts `workload`), its own streams (the workload-cluster machine's and the API
 * load balancer's `load-balancer-<uid>`, whose Octavia handlers the LoadBalancer kind registers and which run with
 * this cluster's Identity through the stream-owner map), the Neutron and Nova handlers of its machine, and what wakes
 * it: its spec, its Identity, and its machines (a control-plane port's address joins the API pools; the last machine
 * gone lets a deletion go on).
 */
import type { EffectHandler } from '../../engine/engine.js';
import { isDeleting } from '../../kube/object.js';
import { loadBalancerStream } from '../../../machines/load-balancer.js';
import { workloadClusterStream, workloadClusterDefinition } from '../../../machines/workload-cluster.js';
import { WORKLOAD_CLUSTER_EFFECTS } from '../../../machines/workload-cluster/observation.js';
import { workloadClusterHandlers } from '../../provider/workload/cluster.js';
import type { WorkloadMachine } from '../../resources/index.js';
import { keyOf, keyParts, type KindWiring, type PlaneServices } from '../kind.js';
import { reconcileWorkloadCluster } from './reconcile.js';
import { resolveWorkloadScope } from './scope.js';
import { workloadClusterStatus } from './status.js';

const ns = (o: { metadata: { namespace?: string } }): string => o.metadata.namespace ?? 'default';

/** The WorkloadMachines of a cluster, from the informer cache. */
export const machinesOfCluster = (services: Pick<PlaneServices, 'lookups'>, namespace: string, cluster: string): WorkloadMachine[] =>
  services.lookups.list('WorkloadMachine').filter((m) => ns(m) === namespace && (m as WorkloadMachine).spec.clusterRef.name === cluster) as WorkloadMachine[];

export const workloadClusterWiring: KindWiring = {
  kind: 'WorkloadCluster',
  streams: [
    { prefix: workloadClusterStream(''), kind: 'WorkloadCluster', key: 'uid' },
    // the API load balancer: the load-balancer machine's topology, in this cluster's stream of that prefix
    { prefix: loadBalancerStream(''), kind: 'WorkloadCluster', key: 'uid' },
    { prefix: 'scope-reachability-', kind: 'WorkloadCluster', key: 'uid' },
  ],
  status: workloadClusterStatus,
  wakes: [
    { from: 'WorkloadCluster', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    {
      from: 'Identity',
      on: 'any',
      why: 'its Identity became ready: everything is created in its project',
      keys: (identity, lookups) => lookups.list('WorkloadCluster').filter((c) => ns(c) === ns(identity) && (c.spec as { identityRef: { name: string } }).identityRef.name === identity.metadata.name).map(keyOf),
    },
    {
      from: 'WorkloadMachine',
      on: 'any',
      why: "a machine's port address joins the API pools (register before boot); a deleted machine leaves them; the last one gone lets a deletion go on",
      keys: (machine) => [`${ns(machine)}/${(machine.spec as { clusterRef: { name: string } }).clusterRef.name}`],
      signature: (machine) => `${(machine.status as { address?: string } | undefined)?.address ?? ''}|${isDeleting(machine)}`,
    },
    {
      from: 'WorkloadMachine',
      on: 'deleted',
      why: 'the last machine gone lets the deletion go on',
      keys: (machine) => [`${ns(machine)}/${(machine.spec as { clusterRef: { name: string } }).clusterRef.name}`],
    },
  ],
  build: (services) => {
    const { engine, source, logger, scopes, lookups, exports, now } = services;
    const handlers: Record<string, EffectHandler> = {};
    for (const type of Object.values(WORKLOAD_CLUSTER_EFFECTS)) {
      handlers[type] = async (effect, context) => (workloadClusterHandlers((await scopes.forStream(context.stream)).session)[type] as EffectHandler)(effect, context);
    }
    return {
      handlers,
      reconcile: services.reach.track(
        (key) => lookups.get('WorkloadCluster', ...keyParts(key))?.metadata.uid,
        (key, note) =>
          reconcileWorkloadCluster(
            {
              engine,
              source,
              logger,
              exports,
              ...(now ? { now } : {}),
              onPublished: (cluster) => services.renderStatus(cluster),
              machinesOf: (namespace, cluster) => machinesOfCluster(services, namespace, cluster),
              scope: async (cluster) => {
                const r = await resolveWorkloadScope(scopes, note, cluster);
                return r.kind === 'ready' ? { kind: 'ready', session: r.scope.session, identity: r.scope.identity } : r;
              },
            },
            ...keyParts(key),
          ),
      ),
    };
  },
};

export { workloadClusterDefinition };
