/**
 * `regent kinds [--wakes] [-o table|json]`: the kind table (src/app/kinds.ts) as the control plane runs it — each
 * kind, whether it has a controller, the streams its resources own, what wakes its passes, and whether it renders its
 * own status; `--wakes` prints the wake graph as Graphviz DOT (`regent kinds --wakes | dot -Tsvg > wakes.svg`).
 * Reads no store: it is the code's own declaration.
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { table } from '../format.js';

export const registerKinds = (program: Command) =>
  program
    .command('kinds')
    .description('the kinds the control plane serves: controller, streams, what wakes them, status (--wakes: the wake graph as DOT)')
    .option('--wakes', 'print the wake graph as Graphviz DOT')
    .option('-o, --output <format>', 'table | json', 'table')
    .action(async (options: { wakes?: boolean; output: string }) => {
      if (!['table', 'json'].includes(options.output)) throw new UsageError(`-o ${options.output}: expected table or json`);
      const [{ kindTable }, { WakeGraph, wakeGraphDot }] = await Promise.all([import('../../app/kinds.js'), import('../../controllers/wake-graph.js')]);
      const kinds = kindTable();
      const graph = new WakeGraph(kinds, { list: () => [], get: () => undefined });
      if (options.wakes) return void process.stdout.write(wakeGraphDot(graph.edges()));
      const rows = kinds.map((w) => ({
        kind: w.kind,
        controller: w.build !== undefined,
        streams: w.streams.map((s) => `${s.prefix}<${s.key === 'nova-server' ? 'nova id' : 'uid'}>`),
        wokenBy: [...new Set(w.wakes.map((r) => `${r.from}:${r.on}`))],
        status: w.status !== undefined,
      }));
      if (options.output === 'json') return void process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      process.stdout.write(`${table([['KIND', 'CONTROLLER', 'STATUS', 'STREAMS', 'WOKEN BY'], ...rows.map((r) => [r.kind, r.controller ? 'yes' : 'no', r.status ? 'own' : 'NoController', r.streams.join(' ') || '-', r.wokenBy.join(' ') || '-'])])}\n`);
    });
