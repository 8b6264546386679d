/**
 * `regent streams`: every stream with its head revision, current state and the resource it belongs to (the
 * kind, namespace and name its last event recorded: `metadata.subject`, also for a resource since deleted).
 */
import type { Command } from 'commander';
import { openExistingStore, type GlobalOptions } from '../context.js';
import { formatState, table } from '../format.js';
import type { RecordedEvent, StateValue } from '../../events/envelope.js';

interface StreamRow {
  stream: string;
  head: number;
  machine: string | undefined;
  state: StateValue | undefined;
  updatedAt: string | undefined;
  resource?: { kind: string; namespace: string; name: string };
}

export const registerStreams = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('streams')
    .description('list event streams with their head revision and current state')
    .option('--prefix <prefix>', 'only streams starting with this prefix (e.g. server-rebuild-)')
    .option('--resource <name>', 'only streams of resources of this name ([kind/][namespace/]name, as recorded on their last event)')
    .option('--json', 'print JSON')
    .action(async (options: { prefix?: string; json?: boolean; resource?: string }) => {
      const store = await openExistingStore(globals());
      try {
        const streams = await store.listStreams(options.prefix ? { streamPrefixes: [options.prefix] } : undefined);
        const rows: StreamRow[] = [];
        for (const info of streams) {
          const [last] = (await store.readStream(info.stream, { direction: 'backwards', maxCount: 1 })) as [RecordedEvent?];
          const subject = last?.metadata.subject;
          rows.push({ stream: info.stream, head: info.head, machine: last?.metadata.machine, state: last?.metadata.to, updatedAt: last?.metadata.recordedAt, ...(subject ? { resource: subject } : {}) });
        }
        const wanted = options.resource;
        if (wanted !== undefined) rows.splice(0, rows.length, ...rows.filter((r) => r.resource && subjectMatches(r.resource, wanted)));
        if (options.json) return void console.log(JSON.stringify(rows, null, 2));
        if (rows.length === 0) return void console.log(`no streams in ${store.description}`);
        const resource = (r: StreamRow) => (r.resource ? `${r.resource.kind} ${r.resource.namespace}/${r.resource.name}` : '');
        console.log(table([['STREAM', 'REVISION', 'MACHINE', 'STATE', 'UPDATED', 'RESOURCE'], ...rows.map((r) => [r.stream, String(r.head), r.machine ?? '', formatState(r.state), r.updatedAt ?? '', resource(r)])]));
      } finally {
        await store.close();
      }
    });

/** `name`, `namespace/name` or `Kind/namespace/name` (kind case-insensitive) against a recorded subject. */
export const subjectMatches = (subject: { kind: string; namespace: string; name: string }, wanted: string): boolean => {
  const parts = wanted.split('/');
  if (parts.length === 1) return subject.name === parts[0];
  if (parts.length === 2) return subject.namespace === parts[0] && subject.name === parts[1];
  return subject.kind.toLowerCase() === (parts[0] ?? '').toLowerCase() && subject.namespace === parts[1] && subject.name === parts.slice(2).join('/');
};
