/** A WorkloadCluster's status (docs/workload-cluster.md): its parts, guard, endpoint and exports, as its two streams recorded them. */
import { loadBalancerDefinition, loadBalancerStream } from '../../../machines/load-balancer.js';
import { workloadClusterDefinition, workloadClusterStream } from '../../../machines/workload-cluster.js';
import { renderWorkloadClusterResource } from '../../../projections/workload-cluster-status.js';
import { isDeleting } from '../../kube/object.js';
import type { WorkloadCluster } from '../../resources/index.js';
import { latest, withScopeReachability, type StatusRenderer } from '../../status/renderer.js';
import { exportsConfigMapName, exportsPublisherFor } from '../../workload/exports-publisher.js';

export const workloadClusterStatus: StatusRenderer = {
  ownedKeys: ['exports', 'endpoint', 'loadBalancerID', 'securityGroupIDs', 'serverGroupID', 'guard', 'exportsConfigMap'],
  render: async (env, object) => {
    const cluster = object as WorkloadCluster;
    const uid = cluster.metadata.uid;
    const own = await env.engine.load(workloadClusterDefinition, workloadClusterStream(uid));
    const lb = await env.engine.load(loadBalancerDefinition, loadBalancerStream(uid));
    const at = latest(own.last?.metadata.recordedAt, lb.last?.metadata.recordedAt) ?? env.now();
    const namespace = cluster.metadata.namespace ?? 'default';
    const published = await exportsPublisherFor(env.source).read(namespace, cluster.metadata.name).catch(() => undefined);
    const status = renderWorkloadClusterResource({
      cluster: own.revision === undefined ? undefined : { state: own.state, context: own.context },
      loadBalancer: lb.revision === undefined ? undefined : { state: lb.value, context: lb.context },
      generation: cluster.metadata.generation ?? 1,
      deleting: isDeleting(cluster),
      spec: cluster.spec,
      published,
      exportsConfigMap: exportsConfigMapName(cluster.metadata.name),
      at,
      previous: cluster.status as never,
    });
    return (await withScopeReachability(env, uid, status, { what: 'cluster', at, previous: cluster.status })) as unknown as Record<string, unknown>;
  },
};
