/** A Nova's status (docs/nova.md): its pipeline's record, its Database step and its archive, from their three streams. */
import { novaDatabaseStream, novaUpgradeDefinition } from '../../../machines/nova-upgrade.js';
import { novaDBArchiveDefinition, novaDBArchiveStream } from '../../../machines/nova-db-archive.js';
import { novaPipelineDefinition, novaPipelineStream } from '../../../machines/nova-pipeline.js';
import { renderNovaResource } from '../../../projections/nova-status.js';
import type { StatusRenderer } from '../../status/renderer.js';

export const novaStatus: StatusRenderer = {
  ownedKeys: ['installedRelease', 'upgradePhase', 'cells', 'endpoint', 'computeConfigSecretRef', 'remoteComputeConfigSecretRef'],
  render: async (env, object) => {
    const database = await env.engine.load(novaUpgradeDefinition, novaDatabaseStream(object.metadata.uid));
    const archive = await env.engine.load(novaDBArchiveDefinition, novaDBArchiveStream(object.metadata.uid));
    const pipeline = await env.engine.load(novaPipelineDefinition, novaPipelineStream(object.metadata.uid));
    const last = [database.last, archive.last, pipeline.last].filter((e) => e !== undefined).sort((a, b) => a.position - b.position).at(-1);
    return renderNovaResource({
      pipeline: pipeline.revision === undefined ? undefined : pipeline.context,
      database: database.revision === undefined ? undefined : { state: database.value, context: database.context },
      archive: archive.revision === undefined ? undefined : archive.context,
      at: last?.metadata.recordedAt ?? env.now(),
      previous: object.status as never,
    }) as unknown as Record<string, unknown>;
  },
};
