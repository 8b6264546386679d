/**
 * The audit commands (visualizer, static checks, authorization chains, evidence export, the audit web
 * pages). Registered into the `regent` program by src/cli/main.ts; `regent replay` is
 * src/cli/commands/replay.ts.
 *
 *   regent viz <machine[@version]> [--out file.svg] [--format svg|dot|json]
 *   regent viz --stream <stream> [--out file.html] [--max-events N]
 *   regent check [machine[@version]] [--json]              exit 3 when a check fails
 *   regent chain <stream> [--json]                         who authorised each destructive effect
 *   regent export <stream> --out evidence.json             redacted, hash-chained, replayable offline
 *   (the pages are served by `regent serve`, mounted into the control plane; `--audit-only` serves
 *   just them over an existing store — src/cli/commands/start.ts)
 */
import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { openExistingStore, storeUrlOf, type StoreSelection } from '../store/open-existing.js';
import { shelfForStoreUrl } from './history/shelf.js';
import { buildRegistry, type MachineModuleSelection } from '../machine-registry/build.js';
import { UsageError } from '../errors/usage.js';
import type { MachineDefinition } from '../../machines/definition.js';
import type { MachineRegistry } from '../../machines/registry.js';
import { statechartOfDefinition } from './graph/statechart.js';
import { toDot } from './graph/dot.js';
import { renderSvg } from './graph/render.js';
import { checkMachine } from './checks/rules.js';
import { formatCheckReport } from './checks/format.js';
import { AuditViews, rowOf } from './history/views.js';
import { formatChain, resolveChain } from './history/chain.js';
import { exportEvidence } from './evidence/evidence.js';
import { streamPage } from './web/pages.js';
import { assetText } from './web/routes.js';
import { startAuditServer } from './web/server.js';
import { streamEvents } from '../engine/pages.js';

/** The `regent` program's global options these commands read (src/cli/context.ts's GlobalOptions is this shape). */
export type AuditGlobals = StoreSelection & MachineModuleSelection;

/** `serverRebuild` → current version; `serverRebuild@2` → that version. */
export const machineArg = (registry: MachineRegistry, arg: string): MachineDefinition => {
  const m = /^(.+?)(?:@(\d+))?$/.exec(arg);
  return registry.get(m?.[1] ?? arg, m?.[2] === undefined ? undefined : Number(m[2]));
};

const emit = async (out: string | undefined, text: string, what: string) => {
  if (!out) return void process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  await writeFile(out, text);
  console.log(`wrote ${out} (${what})`);
};

const withStore = async <T>(globals: () => AuditGlobals, work: (store: Awaited<ReturnType<typeof openExistingStore>>) => Promise<T>): Promise<T> => {
  const store = await openExistingStore(globals());
  try {
    return await work(store);
  } finally {
    await store.close();
  }
};

const requireStream = async (store: Awaited<ReturnType<typeof openExistingStore>>, stream: string) => {
  if ((await store.streamHead(stream)) === undefined) throw new UsageError(`no stream ${stream} in ${store.description}`);
};

/** The resource page as one self-contained HTML file (assets inlined, the last `maxEvents` events embedded). */
const streamHtml = async (views: AuditViews, store: Awaited<ReturnType<typeof openExistingStore>>, stream: string, maxEvents: number): Promise<string> => {
  const overview = await views.overview(stream);
  const index = await views.index(stream);
  const from = Math.max(0, overview.head + 1 - maxEvents);
  const rows = [];
  for await (const event of streamEvents(store, stream, from)) rows.push(rowOf(event, index));
  const chains = await views.chains(stream, 200);
  return streamPage({ overview, chains, pageSize: 200, rows, omitted: from }, { base: '', assets: { css: assetText('app.css'), js: assetText('app.js') } });
};

export const registerAuditCommands = (program: Command, globals: () => AuditGlobals): void => {
  program
    .command('viz [machine]')
    .description("draw a machine's statechart as SVG (offline Graphviz), or with --stream overlay one resource's history as an HTML page")
    .option('--stream <stream>', "overlay this stream's history: visited states, fired transitions, timeline, authorization chains")
    .option('--out <file>', 'write to this file instead of stdout (.svg for a machine, .html with --stream)')
    .option('--format <format>', 'for a machine: svg (default), dot or json (the statechart as data)', 'svg')
    .option('--max-events <n>', 'with --stream: embed at most this many (latest) events in the timeline', '5000')
    .action(async (machine: string | undefined, options: { stream?: string; out?: string; format: string; maxEvents: string }) => {
      const registry = await buildRegistry(globals());
      if (options.stream) {
        const stream = options.stream;
        const maxEvents = Number(options.maxEvents);
        if (!Number.isInteger(maxEvents) || maxEvents < 1) throw new UsageError('--max-events must be a positive integer');
        await withStore(globals, async (store) => {
          await requireStream(store, stream);
          const views = new AuditViews(store, registry);
          if (machine !== undefined && machineArg(registry, machine).id !== registry.forStream(stream).id) throw new UsageError(`${stream} is not a ${machine} stream`);
          const html = await streamHtml(views, store, stream, maxEvents);
          const overview = await views.overview(stream);
          await emit(options.out, html, `${overview.head + 1} events, ${overview.fired.length} transitions fired, ${overview.destructiveDecisions} destructive decision(s)`);
        });
        return;
      }
      if (machine === undefined) throw new UsageError(`viz needs a machine (one of ${registry.current().map((d) => d.id).join(', ')}) or --stream <stream>`);
      const definition = machineArg(registry, machine);
      const chart = statechartOfDefinition(definition);
      const what = `${definition.id} v${definition.version}: ${chart.nodes.length} states, ${chart.edges.length} transitions`;
      if (options.format === 'json') return emit(options.out, JSON.stringify(chart, null, 2), what);
      if (options.format === 'dot') return emit(options.out, toDot(chart), what);
      if (options.format !== 'svg') throw new UsageError(`--format ${options.format}: expected svg, dot or json`);
      await emit(options.out, await renderSvg(toDot(chart)), what);
    });

  program
    .command('check [machine]')
    .description("static checks over each machine's reachable graph; prints a counterexample path when one fails (exit 3)")
    .option('--json', 'print JSON')
    .action(async (machine: string | undefined, options: { json?: boolean }) => {
      const registry = await buildRegistry(globals());
      const definitions = machine === undefined ? registry.list() : [machineArg(registry, machine)];
      const reports = definitions.map((d) => checkMachine(d));
      if (options.json) console.log(JSON.stringify(reports, null, 2));
      else console.log(reports.map(formatCheckReport).join('\n\n'));
      const failed = reports.flatMap((r) => r.results.filter((c) => c.status === 'fail').map((c) => `${r.machine} v${r.version}: ${c.id}`));
      if (!options.json) console.log(failed.length === 0 ? `\nall checks passed (${reports.length} machine version(s))` : `\n${failed.length} check(s) failed: ${failed.join('; ')}`);
      if (failed.length > 0) process.exitCode = 3;
    });

  program
    .command('chain <stream>')
    .description('for every destructive effect in a stream, the chain of events that authorised it (the change of desired state and its author, arm, read-back, decision, results, settle)')
    .option('--json', 'print JSON')
    .action(async (stream: string, options: { json?: boolean }) => {
      const registry = await buildRegistry(globals());
      await withStore(globals, async (store) => {
        await requireStream(store, stream);
        const views = new AuditViews(store, registry);
        const index = await views.index(stream);
        const chains = [];
        for (const chain of index.chains) chains.push(await resolveChain(store, stream, chain, views.resources));
        if (options.json) return void console.log(JSON.stringify(chains, null, 2));
        if (chains.length === 0) return void console.log(`${stream}: no destructive effect (${index.definition.destructiveEffects?.join(', ') || 'the machine declares none'})`);
        console.log(chains.map(formatChain).join('\n\n'));
        const bad = chains.filter((c) => !c.authorised).length;
        console.log(`\n${chains.length} destructive decision(s), ${bad} not authorised`);
        if (bad > 0) process.exitCode = 3;
      });
    });

  program
    .command('export <stream>')
    .description('write a self-contained, redacted evidence file (machine, statechart, events, SHA-256 hash chain) that `regent replay --file` verifies and replays offline')
    .requiredOption('--out <file>', 'the evidence file to write (e.g. evidence.json)')
    .action(async (stream: string, options: { out: string }) => {
      const registry = await buildRegistry(globals());
      await withStore(globals, async (store) => {
        await requireStream(store, stream);
        const definition = await new AuditViews(store, registry).definitionFor(stream);
        const written = await exportEvidence(store, stream, definition, options.out);
        console.log(`wrote ${options.out}: ${stream}, ${written.events} events, ${definition.id} v${definition.version} (recorded by v${written.versions.join(', v')}), ${written.redacted} value(s) redacted, chain head ${written.head}`);
      });
    });
};

/** `regent serve --audit-only`: the audit pages alone, over an existing store, until interrupted. */
export const serveAuditPagesOnly = async (globals: () => AuditGlobals, host: string, port: number): Promise<void> => {
  const registry = await buildRegistry(globals());
  await withStore(globals, async (store) => {
    const server = await startAuditServer({ port, host, store, registry, checkpoints: shelfForStoreUrl(storeUrlOf(globals())) });
    console.log(`Regent audit pages on ${server.url} (store ${store.description}); Ctrl-C to stop`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await server.close();
  });
};
