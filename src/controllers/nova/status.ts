/** A Nova's status (docs/nova.md): its Database step and its archive, from their two streams. */
import { novaDatabaseStream, novaUpgradeDefinition } from '../../../machines/nova-upgrade.js';
import { novaDBArchiveDefinition, novaDBArchiveStream } from '../../../machines/nova-db-archive.js';
import { renderNovaResource } from '../../../projections/nova-status.js';
import type { StatusRenderer } from '../../status/renderer.js';

export const novaStatus: StatusRenderer = {
  ownedKeys: ['installedRelease', 'upgradePhase', 'cells'],
  render: async (env, object) => {
    const database = await env.engine.load(novaUpgradeDefinition, novaDatabaseStream(object.metadata.uid));
    const archive = await env.engine.load(novaDBArchiveDefinition, novaDBArchiveStream(object.metadata.uid));
    const last = [database.last, archive.last].filter((e) => e !== undefined).sort((a, b) => a.position - b.position).at(-1);
    return renderNovaResource({
      database: database.revision === undefined ? undefined : { state: database.value, context: database.context },
      archive: archive.revision === undefined ? undefined : archive.context,
      at: last?.metadata.recordedAt ?? env.now(),
      previous: object.status as never,
    }) as unknown as Record<string, unknown>;
  },
};
