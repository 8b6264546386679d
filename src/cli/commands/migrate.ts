/** `regent migrate verify`: every stored event must decode with today's codecs and upcasters. */
import type { Command } from 'commander';
import { buildRegistry, openExistingStore, type GlobalOptions } from '../context.js';
import { verifyStoredEvents } from '../../engine/verify-stored.js';
import { table } from '../format.js';

export const registerMigrate = (program: Command, globals: () => GlobalOptions) => {
  const migrate = program.command('migrate').description('event schema migrations');
  migrate
    .command('verify')
    .description('decode every stored event with the current codecs and upcasters; list the ones that fail (exit 3)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const store = await openExistingStore(globals());
      try {
        const report = await verifyStoredEvents(store, await buildRegistry(globals()));
        if (options.json) console.log(JSON.stringify(report, null, 2));
        else {
          console.log(`${report.checked} events checked in ${store.description}: ${report.failures.length} cannot be read`);
          if (report.failures.length > 0) {
            console.log(table([['STREAM', 'REV', 'TYPE', 'PROBLEM'], ...report.failures.map((f) => [f.stream, String(f.revision), f.type, f.problem])]));
          }
        }
        if (report.failures.length > 0) process.exitCode = 3;
      } finally {
        await store.close();
      }
    });
};
