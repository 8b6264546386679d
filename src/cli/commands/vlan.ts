/**
 * `regent vlan leaks [--resources <url>] [-o table|json]`: the VLAN ids the allocator holds
 * (machines/vlan-allocation.ts ledgers in the event store, `--store`) for networks that no longer exist
 * (no Network resource with that uid in the resource source). A leak is reported, never released here:
 * releasing belongs to the Network's delete (src/provider/inventory/vlan.ts `release`).
 *
 * Exit status: 0 without leaks, 1 with leaks (so a cron job or CI step can alert on it).
 *
 * To wire it (src/cli/main.ts, not edited here):
 *   import { registerVlanCommands } from './commands/vlan.js';   …   registerVlanCommands(program, globals);
 */
import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';
import { UsageError } from '../errors.js';
import type { VlanLeak } from '../../provider/inventory/vlan.js';

/** A table (PHYSICAL NETWORK, VLAN, NETWORK UID, NETWORK, STREAM) or JSON of the leaks. */
export const formatVlanLeaks = (leaks: readonly VlanLeak[], format: 'table' | 'json'): string => {
  if (format === 'json') return JSON.stringify(leaks, null, 2);
  if (leaks.length === 0) return 'no VLAN leaks: every held id belongs to an existing network';
  const rows = [['PHYSICAL NETWORK', 'VLAN', 'NETWORK UID', 'NETWORK', 'STREAM'], ...leaks.map((l) => [l.physicalNetwork ?? '<unknown>', String(l.segmentationId), l.network, l.networkName ?? '<none>', l.stream])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('   ')).join('\n');
};

export const registerVlanCommands = (program: Command, globals: () => GlobalOptions) => {
  const vlan = program.command('vlan').description("the VLAN allocator's ledgers (provider networks' segmentation ids)");
  vlan
    .command('leaks')
    .description('VLAN ids held for networks that no longer exist (exit 1 when there are any)')
    .option('-o, --output <format>', 'table | json', 'table')
    .option('--resources <url>', 'resource source: embedded:<path> (default embedded:./data/resources.db, or $REGENT_RESOURCES) | kubernetes[:<context>]')
    .action(async (options: { output: string; resources?: string }) => {
      if (!['table', 'json'].includes(options.output)) throw new UsageError(`-o ${options.output}: expected table or json`);
      const [{ openExistingStore, buildRegistry }, { Engine }, { VlanAllocator, vlanLeaks }, { openResourceSource, parseSourceSpec }, { resourcesUrlOf }, { existsSync }] = await Promise.all([
        import('../context.js'), import('../../engine/engine.js'), import('../../provider/inventory/vlan.js'), import('../../kube/open.js'), import('./resources.js'), import('node:fs'),
      ]);
      // a missing resource store would read as "no network exists" and report every allocation as a leak
      const spec = resourcesUrlOf(options);
      const location = parseSourceSpec(spec);
      if (location.kind === 'embedded' && location.path !== ':memory:' && !existsSync(location.path)) throw new UsageError(`no resource store at ${location.path} (pass --resources embedded:<path> or kubernetes)`);
      const store = await openExistingStore(globals());
      try {
        const allocator = new VlanAllocator(new Engine({ store, registry: await buildRegistry(globals()) }));
        const ledgers = await allocator.ledgers();
        const source = await openResourceSource(spec);
        let existing: string[];
        try {
          existing = (await source.list('Network')).items.map((n) => n.metadata.uid);
        } finally {
          await source.close();
        }
        const leaks = vlanLeaks(ledgers, existing);
        console.log(formatVlanLeaks(leaks, options.output as 'table' | 'json'));
        if (leaks.length > 0) process.exitCode = 1;
      } finally {
        await store.close();
      }
    });
};
