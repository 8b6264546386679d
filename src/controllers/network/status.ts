/** A Network's status (docs/network.md): its lifecycle, the VLAN segment its last decided request carried, whether it can be observed. */
import { networkLifecycleDefinition, networkLifecycleStream } from '../../../machines/network-lifecycle.js';
import { networkVlanIdOf, renderNetworkResource } from '../../../projections/network-status.js';
import { withScopeReachability, type StatusRenderer } from '../../status/renderer.js';

export const networkStatus: StatusRenderer = {
  ownedKeys: ['networkID', 'vlanID'],
  render: async (env, object) => {
    const stream = networkLifecycleStream(object.metadata.uid);
    const lifecycle = await env.engine.load(networkLifecycleDefinition, stream);
    // status.vlanID: the segment the last decided request carried (a few events: a network's stream is short)
    const vlanID = lifecycle.revision === undefined ? undefined : networkVlanIdOf(await env.store.readStream(stream, { direction: 'backwards' }));
    const at = lifecycle.last?.metadata.recordedAt ?? env.now();
    const status = renderNetworkResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: lifecycle.state, context: lifecycle.context },
      vlanID,
      generation: object.metadata.generation ?? 1,
      at,
      previous: object.status as never,
    });
    return (await withScopeReachability(env, object.metadata.uid, status, { what: 'Neutron network', at, previous: object.status })) as unknown as Record<string, unknown>;
  },
};
