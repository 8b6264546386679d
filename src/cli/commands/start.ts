/** `regent start`: Regent's main job on its embedded defaults. */
import type { Command } from 'commander';
import { buildRegistry, storeUrlOf, type GlobalOptions } from '../context.js';
import { openStore } from '../../store/open.js';
import { Engine } from '../../engine/engine.js';
import { createLogger } from '../../log/logger.js';
import { formatState, table } from '../format.js';

export const registerStart = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('start')
    .description('start Regent on its embedded defaults (sqlite event store under ./data/)')
    .action(async () => {
      const logger = createLogger();
      const store = await openStore(storeUrlOf(globals()));
      try {
        const registry = await buildRegistry(globals());
        const engine = new Engine({ store, registry, logger });
        logger.info('regent started', { store: store.description, machines: registry.current().map((d) => `${d.id}@${d.version}`) });
        const streams = await store.listStreams();
        console.log(`Regent: event store ${store.description}, ${streams.length} stream(s), machines: ${registry.current().map((d) => `${d.id} v${d.version}`).join(', ') || 'none yet'}`);
        const rows = [];
        for (const info of streams) {
          const loaded = await engine.load(info.stream);
          rows.push([info.stream, String(info.head), formatState(loaded.snapshot.value)]);
        }
        if (rows.length > 0) console.log(table([['STREAM', 'REVISION', 'STATE'], ...rows]));
      } finally {
        await store.close();
      }
    });
