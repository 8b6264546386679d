/** A Nova's status (docs/nova.md): its Database step and its archive, from their two streams. */
import { novaDatabaseStream, type NovaUpgradeContext } from '../../../machines/nova-upgrade.js';
import { novaDBArchiveStream, type NovaDBArchiveContext } from '../../../machines/nova-db-archive.js';
import { renderNovaResource } from '../../../projections/nova-status.js';
import type { StatusRenderer } from '../../status/renderer.js';

export const novaStatus: StatusRenderer = {
  ownedKeys: ['installedRelease', 'upgradePhase', 'cells'],
  render: async (env, object) => {
    const database = await env.engine.load(novaDatabaseStream(object.metadata.uid));
    const archive = await env.engine.load(novaDBArchiveStream(object.metadata.uid));
    const last = [database.last, archive.last].filter((e) => e !== undefined).sort((a, b) => a.position - b.position).at(-1);
    return renderNovaResource({
      database: database.revision === undefined ? undefined : { state: database.snapshot.value, context: database.snapshot.context as NovaUpgradeContext },
      archive: archive.revision === undefined ? undefined : (archive.snapshot.context as NovaDBArchiveContext),
      at: last?.metadata.recordedAt ?? env.now(),
      previous: object.status as never,
    }) as unknown as Record<string, unknown>;
  },
};
