/** A Region's status (docs/region.md): each pass's verdict on its connection. */
import { regionConnectionDefinition, regionConnectionStream } from '../../../machines/region-connection.js';
import { renderRegionResource } from '../../../projections/region-status.js';
import type { Region } from '../../resources/region.js';
import type { StatusRenderer } from '../../status/renderer.js';

export const regionStatus: StatusRenderer = {
  ownedKeys: [],
  render: async (env, object) => {
    const region = object as Region;
    const record = await env.engine.load(regionConnectionDefinition, regionConnectionStream(region.metadata.uid));
    return renderRegionResource({
      context: record.revision === undefined ? undefined : record.context,
      endpoint: region.spec?.openstack?.endpoint ?? '?',
      openstack: region.spec?.openstack as Readonly<Record<string, unknown>> | undefined,
      at: record.last?.metadata.recordedAt ?? env.now(),
      previous: region.status as never,
    }) as unknown as Record<string, unknown>;
  },
};
