/**
 * `regent streams`: every stream with its head revision, current state and the resource it belongs to (the
 * kind, namespace and name its last event recorded: `metadata.subject`, also for a resource since deleted; an
 * API event recorded before API events named their Server: the Server its data names). A Server created through
 * the server API is a UUID; it is shown, and `--resource` finds it, by the name the API was given too
 * (history/api-streams.ts).
 */
import type { Command } from 'commander';
import { openExistingStore, type GlobalOptions } from '../context.js';
import { formatState, table } from '../format.js';
import type { RecordedEvent, StateValue } from '../../events/envelope.js';
import { ApiServers, displayNameOf, recordedSubject } from '../../audit/history/api-streams.js';

interface StreamRow {
  stream: string;
  head: number;
  machine: string | undefined;
  state: StateValue | undefined;
  updatedAt: string | undefined;
  resource?: { kind: string; namespace: string; name: string };
  /** The name the server API was given for that resource, when it is not its name. */
  displayName?: string;
}

export const registerStreams = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('streams')
    .description('list event streams with their head revision and current state')
    .option('--prefix <prefix>', 'only streams starting with this prefix (e.g. server-rebuild-)')
    .option('--resource <name>', 'only streams of resources of this name ([kind/][namespace/]name, as recorded on their last event; a Server created through the API also by the name it was given)')
    .option('--json', 'print JSON')
    .action(async (options: { prefix?: string; json?: boolean; resource?: string }) => {
      const store = await openExistingStore(globals());
      try {
        const streams = await store.listStreams(options.prefix ? { streamPrefixes: [options.prefix] } : undefined);
        const names = await new ApiServers(store).displayNames();
        const rows: StreamRow[] = [];
        for (const info of streams) {
          const [last] = (await store.readStream(info.stream, { direction: 'backwards', maxCount: 1 })) as [RecordedEvent?];
          const subject = recordedSubject(last);
          const displayName = displayNameOf(names, subject);
          rows.push({ stream: info.stream, head: info.head, machine: last?.metadata.machine, state: last?.metadata.to, updatedAt: last?.metadata.recordedAt, ...(subject ? { resource: subject } : {}), ...(displayName !== undefined ? { displayName } : {}) });
        }
        const wanted = options.resource;
        if (wanted !== undefined) rows.splice(0, rows.length, ...rows.filter((r) => r.resource && subjectMatches(r.resource, wanted, r.displayName)));
        if (options.json) return void console.log(JSON.stringify(rows, null, 2));
        if (rows.length === 0) return void console.log(`no streams in ${store.description}`);
        const resource = (r: StreamRow) => (r.resource ? `${r.resource.kind} ${r.resource.namespace}/${r.displayName ?? r.resource.name}${r.displayName === undefined ? '' : ` (id ${r.resource.name})`}` : '');
        console.log(table([['STREAM', 'REVISION', 'MACHINE', 'STATE', 'UPDATED', 'RESOURCE'], ...rows.map((r) => [r.stream, String(r.head), r.machine ?? '', formatState(r.state), r.updatedAt ?? '', resource(r)])]));
      } finally {
        await store.close();
      }
    });

/**
 * `name`, `namespace/name` or `Kind/namespace/name` (kind case-insensitive) against a recorded subject; the name
 * is its resource name or, for a Server created through the API, the name the API was given (`displayName`).
 */
export const subjectMatches = (subject: { kind: string; namespace: string; name: string }, wanted: string, displayName?: string): boolean => {
  const parts = wanted.split('/');
  const named = (name: string | undefined) => name !== undefined && (subject.name === name || (displayName !== undefined && displayName === name));
  if (parts.length === 1) return named(parts[0]);
  if (parts.length === 2) return subject.namespace === parts[0] && named(parts[1]);
  return subject.kind.toLowerCase() === (parts[0] ?? '').toLowerCase() && subject.namespace === parts[1] && named(parts.slice(2).join('/'));
};
