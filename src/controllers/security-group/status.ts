/** A SecurityGroup's status (docs/security-group.md): its lifecycle, and whether it can be observed. */
import { securityGroupLifecycleDefinition, securityGroupLifecycleStream } from '../../../machines/security-group-lifecycle.js';
import { renderSecurityGroupResource } from '../../../projections/security-group-status.js';
import { withScopeReachability, type StatusRenderer } from '../../status/renderer.js';

export const securityGroupStatus: StatusRenderer = {
  ownedKeys: ['securityGroupID'],
  render: async (env, object) => {
    const lifecycle = await env.engine.load(securityGroupLifecycleDefinition, securityGroupLifecycleStream(object.metadata.uid));
    const at = lifecycle.last?.metadata.recordedAt ?? env.now();
    const status = renderSecurityGroupResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: lifecycle.state, context: lifecycle.context },
      generation: object.metadata.generation ?? 1,
      at,
      previous: object.status as never,
    });
    return (await withScopeReachability(env, object.metadata.uid, status, { what: 'Neutron security group', at, previous: object.status })) as unknown as Record<string, unknown>;
  },
};
