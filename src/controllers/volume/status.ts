/** A Volume's status (docs/volume.md): its Cinder volume as its lifecycle recorded it, and whether it can be observed. */
import { volumeLifecycleDefinition, volumeLifecycleStream } from '../../../machines/volume-lifecycle.js';
import { renderVolumeResource } from '../../../projections/volume-status.js';
import { withScopeReachability, type StatusRenderer } from '../../status/renderer.js';

export const volumeStatus: StatusRenderer = {
  ownedKeys: ['volumeID', 'size', 'state', 'volumeClassID'],
  render: async (env, object) => {
    const lifecycle = await env.engine.load(volumeLifecycleDefinition, volumeLifecycleStream(object.metadata.uid));
    const at = lifecycle.last?.metadata.recordedAt ?? env.now();
    const status = renderVolumeResource({
      lifecycle: lifecycle.revision === undefined ? undefined : { state: lifecycle.value, context: lifecycle.context },
      generation: object.metadata.generation ?? 1,
      spec: object.spec as { size?: number; volumeClassID?: string },
      at,
      previous: object.status as never,
    });
    return (await withScopeReachability(env, object.metadata.uid, status, { what: 'Cinder volume', at, previous: object.status })) as unknown as Record<string, unknown>;
  },
};
