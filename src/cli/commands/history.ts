/** `regent history <stream>`: each event with revision, time, type, source, from → to. */
import type { Command } from 'commander';
import { openExistingStore, type GlobalOptions } from '../context.js';
import { formatState, table } from '../format.js';
import { streamEvents } from '../../engine/pages.js';
import { UsageError } from '../errors.js';
import { resolveStreamName } from '../stream-alias.js';

export const registerHistory = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('history <stream>')
    .description("show a stream's events: revision, time, type, source, from → to, effects")
    .option('--json', 'print the full events as JSON lines')
    .action(async (name: string, options: { json?: boolean }) => {
      const store = await openExistingStore(globals());
      try {
        // `volume-<uid>` is the Volume's lifecycle stream (volume-lifecycle-<uid>); `api-server-<id the API returned>` the API's record of that Server (keyed by its uid)
        const stream = await resolveStreamName(store, name);
        if (stream !== name && !options.json) console.log(`stream ${stream}`);
        if ((await store.streamHead(stream)) === undefined) throw new UsageError(`no stream ${stream} in ${store.description}`);
        if (options.json) {
          for await (const event of streamEvents(store, stream)) console.log(JSON.stringify(event));
          return;
        }
        const rows: string[][] = [['REV', 'TIME', 'TYPE', 'SOURCE', 'FROM → TO', 'EFFECTS']];
        for await (const event of streamEvents(store, stream)) {
          const m = event.metadata;
          rows.push([String(event.revision), m.recordedAt, event.type, m.source, `${formatState(m.from)} → ${formatState(m.to)}`, m.effects.map((e) => e.type).join(',')]);
        }
        console.log(table(rows));
      } finally {
        await store.close();
      }
    });
