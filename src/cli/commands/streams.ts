/** `regent streams`: every stream with its head revision and current state. */
import type { Command } from 'commander';
import { openExistingStore, type GlobalOptions } from '../context.js';
import { formatState, table } from '../format.js';
import type { RecordedEvent } from '../../events/envelope.js';

export const registerStreams = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('streams')
    .description('list event streams with their head revision and current state')
    .option('--prefix <prefix>', 'only streams starting with this prefix (e.g. server-rebuild-)')
    .option('--json', 'print JSON')
    .action(async (options: { prefix?: string; json?: boolean }) => {
      const store = await openExistingStore(globals());
      try {
        const streams = await store.listStreams(options.prefix ? { streamPrefixes: [options.prefix] } : undefined);
        const rows = [];
        for (const info of streams) {
          const [last] = (await store.readStream(info.stream, { direction: 'backwards', maxCount: 1 })) as [RecordedEvent?];
          rows.push({ stream: info.stream, head: info.head, machine: last?.metadata.machine, state: last?.metadata.to, updatedAt: last?.metadata.recordedAt });
        }
        if (options.json) return void console.log(JSON.stringify(rows, null, 2));
        if (rows.length === 0) return void console.log(`no streams in ${store.description}`);
        console.log(table([['STREAM', 'REVISION', 'MACHINE', 'STATE', 'UPDATED'], ...rows.map((r) => [r.stream, String(r.head), r.machine ?? '', formatState(r.state), r.updatedAt ?? ''])]));
      } finally {
        await store.close();
      }
    });
