/**
 * `regent timeline`: one incident timeline across resources (issue 30; src/audit/incident/). Every event of a
 * resource (and with --related of everything related to it), or of every stream, in a window, in time order: time,
 * resource, source, author or actor, type, from → to, summary. `-o json` prints the timeline as JSON; `--export
 * file.json` writes the redacted export for an incident report (the same file as GET /api/incidents/export).
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { buildRegistry, openExistingStore, type GlobalOptions } from '../context.js';
import { table } from '../format.js';
import { UsageError } from '../errors.js';
import { incidentTimeline, type IncidentRow } from '../../audit/incident/timeline.js';
import { incidentExport } from '../../audit/incident/export.js';
import { subjectText } from '../../audit/incident/query.js';

interface TimelineOptions {
  resource?: string;
  related?: boolean;
  since?: string;
  until?: string;
  kind?: string[];
  source?: string[];
  output?: string;
  export?: string;
  limit?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

const WIDTH = { author: 56, summary: 100 };
const clip = (text: string, width: number): string => (text.length > width ? `${text.slice(0, width - 1)}…` : text);

const resourceText = (r: IncidentRow): string => (r.resource ? `${r.resource.kind} ${r.resource.namespace}/${r.displayName ?? r.resource.name}` : '—');

export const timelineTable = (rows: readonly IncidentRow[]): string =>
  table([
    ['TIME', 'RESOURCE', 'SOURCE', 'AUTHOR/ACTOR', 'TYPE', 'FROM → TO', 'SUMMARY'],
    ...rows.map((r) => [
      r.time,
      resourceText(r),
      r.source,
      clip(r.author ?? r.actor, WIDTH.author),
      `${r.type}${r.effects.length > 0 ? ` ${r.effects.map((e) => `${e.destructive ? '⚠' : '!'}${e.type}`).join(',')}` : ''}`,
      `${r.from === null ? '' : `${r.from} → `}${r.to}`,
      clip(r.summary, WIDTH.summary),
    ]),
  ]);

export const registerTimeline = (program: Command, globals: () => GlobalOptions) =>
  program
    .command('timeline')
    .description('one incident timeline: every event of a resource (and what is related to it), or of every stream, in a window, in time order')
    .option('--resource <Kind/ns/name>', 'the resource (e.g. Server/default/web-2); absent: every stream')
    .option('--related', 'also every resource related to it (its network, identity, region, volumes, security groups, load balancers by member address, what references it)')
    .option('--since <time>', 'window start, inclusive: an ISO time (2026-12-01T10:00Z) or a duration back from now (30m, 2h, 1d)')
    .option('--until <time>', 'window end, exclusive: an ISO time or a duration back from now')
    .option('--kind <kind>', 'only streams of resources of this kind (repeatable)', collect)
    .option('--source <source>', 'only events of this source: reconciler, monitor, effect, api, operator (repeatable)', collect)
    .option('--limit <n>', 'at most this many rows, the earliest first (default 500)')
    .option('-o, --output <format>', 'table or json', 'table')
    .option('--export <file>', 'write the redacted export for an incident report to this file (JSON)')
    .action(async (options: TimelineOptions) => {
      if (options.output !== 'table' && options.output !== 'json') throw new UsageError(`-o ${options.output ?? ''}: use table or json`);
      const input = { resource: options.resource, related: options.related, from: options.since, to: options.until, kinds: options.kind, sources: options.source, limit: options.limit };
      const registry = await buildRegistry(globals());
      const store = await openExistingStore(globals());
      try {
        if (options.export !== undefined) {
          const file = await incidentExport(store, input, { registry });
          await writeFile(options.export, `${JSON.stringify(file, null, 2)}\n`);
          console.log(`wrote ${options.export}: ${file.counts.rows} event(s) from ${file.counts.streams} stream(s)${file.related ? `, ${file.related.length} related resource(s)` : ''}, ${file.redaction.paths.length} member(s) redacted${file.truncated ? ' (truncated: more events lie in the window)' : ''}`);
          return;
        }
        const timeline = await incidentTimeline(store, input, { registry });
        if (options.output === 'json') return void console.log(JSON.stringify(timeline, null, 2));
        const q = timeline.query;
        if (timeline.subject) console.log(`${subjectText(timeline.subject)}: ${timeline.subject.streams.length} stream(s)`);
        for (const r of timeline.related ?? []) console.log(`  related: ${subjectText(r)} (${r.relation}${r.via ? `, via ${r.via}` : ''})${r.recorded ? '' : ' — no history recorded'}`);
        console.log(`window: ${q.from ?? 'the first event'} (inclusive) to ${q.to ?? 'now'} (exclusive)`);
        if (timeline.rows.length === 0) return void console.log('no events in the window');
        console.log(timelineTable(timeline.rows));
        if (timeline.truncated) console.log(`… more events lie in the window: continue with --since ${timeline.nextFrom ?? ''}, narrow it, or raise --limit`);
      } finally {
        await store.close();
      }
    });
