/** A NovaCompute's status (docs/novacompute.md): its pipeline's record and its pool machine, from their two streams. */
import { novaComputePipelineDefinition, novaComputePipelineStream } from '../../../machines/nova-pipeline.js';
import { novaComputePoolDefinition, novaComputePoolStream } from '../../../machines/nova-compute-pool.js';
import { renderNovaComputeResource } from '../../../projections/nova-compute-resource.js';
import type { StatusRenderer } from '../../status/renderer.js';

export const novaComputeStatus: StatusRenderer = {
  ownedKeys: ['nodes', 'createdTraits', 'installedImage', 'desiredNumberScheduled', 'numberReady'],
  render: async (env, object) => {
    const pipeline = await env.engine.load(novaComputePipelineDefinition, novaComputePipelineStream(object.metadata.uid));
    const pool = await env.engine.load(novaComputePoolDefinition, novaComputePoolStream(object.metadata.uid));
    const last = [pipeline.last, pool.last].filter((e) => e !== undefined).sort((a, b) => a.position - b.position).at(-1);
    return renderNovaComputeResource({
      pipeline: pipeline.revision === undefined ? undefined : pipeline.context,
      pool: pool.revision === undefined ? undefined : pool.context,
      at: last?.metadata.recordedAt ?? env.now(),
      previous: object.status as never,
    }) as unknown as Record<string, unknown>;
  },
};
