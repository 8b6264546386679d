/** A LoadBalancer's status (docs/loadbalancer.md): its Octavia topology as its machine recorded it, and whether it can be observed. */
import { loadBalancerDefinition, loadBalancerStream } from '../../../machines/load-balancer.js';
import { renderLoadBalancerResource } from '../../../projections/load-balancer-status.js';
import { withScopeReachability, type StatusRenderer } from '../../status/renderer.js';

export const loadBalancerStatus: StatusRenderer = {
  ownedKeys: ['loadBalancerID', 'vipAddress', 'publicIP', 'provisioningStatus', 'listeners'],
  render: async (env, object) => {
    const record = await env.engine.load(loadBalancerDefinition, loadBalancerStream(object.metadata.uid));
    const at = record.last?.metadata.recordedAt ?? env.now();
    const status = renderLoadBalancerResource({
      lifecycle: record.revision === undefined ? undefined : { state: record.value, context: record.context },
      generation: object.metadata.generation ?? 1,
      at,
      previous: object.status as never,
    });
    return (await withScopeReachability(env, object.metadata.uid, status, { what: 'Octavia load balancer', at, previous: object.status })) as unknown as Record<string, unknown>;
  },
};
