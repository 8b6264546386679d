/**
 * `regent store copy --from <url> --to <url> [--verify]`: every stream, resumable after a kill, with progress on
 * a terminal, a count and a per-stream head check at the end (src/store/copy.ts).
 * `regent store migrate`: creates or upgrades the store's schema (PostgreSQL's versioned migrations; sqlite
 * upgrades itself when opened; memory and EventStoreDB have no schema), refusing a schema newer than this Regent.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.js';
import { storeUrlOf, type GlobalOptions } from '../context.js';
import { openStore, parseStoreUrl } from '../../store/open.js';
import type { EventStore } from '../../store/port.js';
import { checkResumable, copyStore, verifyCopy, CopyConflict, type CopyProgress } from '../../store/copy.js';

/** A URL for output: any password replaced. */
const redact = (url: string): string => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');

const openSource = async (url: string): Promise<EventStore> => {
  const location = parseStoreUrl(url);
  if (location.kind === 'memory') throw new UsageError('--from memory: is always empty: copy from a store that exists');
  if (location.kind === 'sqlite' && !existsSync(location.path)) throw new UsageError(`--from: no store at ${location.path}`);
  return openStore(url);
};

/** `copying 45% (4,500 of 10,000 events, 3,210 events/s)` on one terminal line. */
const progressLine = (p: CopyProgress, startedAt: number): string => {
  const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
  const percent = p.total === 0 ? 100 : Math.floor((p.done / p.total) * 100);
  return `copying ${percent}% (${p.done.toLocaleString('en')} of ${p.total.toLocaleString('en')} events, ${Math.round(p.done / seconds).toLocaleString('en')} events/s)`;
};

export const registerStore = (program: Command, globals: () => GlobalOptions) => {
  const store = program.command('store').description('event store operations');
  store
    .command('migrate')
    .description("create or upgrade the event store's schema (the --store URL); a schema newer than this Regent is refused")
    .action(async () => {
      const url = storeUrlOf(globals());
      const location = parseStoreUrl(url);
      if (location.kind === 'postgres') {
        const { migratePostgresStore } = await import('../../store/postgres/store.js');
        const { from, to } = await migratePostgresStore(url);
        console.log(from === to ? `${redact(url)}: the schema is at version ${to}; nothing to do` : `${redact(url)}: schema version ${from} → ${to}`);
        return;
      }
      if (location.kind === 'sqlite') {
        const opened = await openStore(url); // the sqlite adapter creates and upgrades its schema on open
        await opened.close();
        console.log(`${location.path}: the sqlite schema is current (sqlite upgrades itself when opened)`);
        return;
      }
      console.log(`${location.kind === 'memory' ? 'memory:' : redact(url)}: this store has no schema to migrate`);
    });
  store
    .command('copy')
    .description('copy every stream (events, ids, metadata, global order) to another store; run again to resume after an interruption')
    .requiredOption('--from <url>', 'source store URL')
    .requiredOption('--to <url>', 'target store URL (created if missing)')
    .option('--verify', 'afterwards compare both sides event by event')
    .option('--batch <n>', 'events read per page', (v) => Number.parseInt(v, 10), 500)
    .action(async (options: { from: string; to: string; verify?: boolean; batch: number }) => {
      if (!Number.isInteger(options.batch) || options.batch < 1) throw new UsageError(`--batch must be a positive integer, got ${options.batch}`);
      if (options.from === options.to) throw new UsageError('--from and --to name the same store');
      const from = await openSource(options.from);
      let to: EventStore | undefined;
      try {
        to = await openStore(options.to);
        await checkResumable(from, to);
        const startedAt = Date.now();
        const tty = process.stderr.isTTY === true;
        let lastPrint = 0;
        const report = await copyStore(from, to, {
          batchSize: options.batch,
          onProgress: (p) => {
            const now = Date.now();
            if (tty) process.stderr.write(`\r${progressLine(p, startedAt)}`);
            else if (now - lastPrint >= 5_000) process.stderr.write(`${progressLine(p, startedAt)}\n`);
            lastPrint = now;
          },
        });
        if (tty) process.stderr.write('\n');
        console.log(`${report.events} events in ${report.streams} streams: ${report.copied} copied, ${report.skipped} already in ${to.description}`);
        if (report.headMismatches.length > 0) {
          for (const m of report.headMismatches) console.log(`head mismatch: ${m.stream}: source ${m.source}, target ${m.target ?? 'absent'}`);
          process.exitCode = 3;
          return;
        }
        console.log(`every stream's head matches (${report.streams} checked)`);
        if (options.verify) {
          const verified = await verifyCopy(from, to);
          if (verified.differences.length > 0) {
            for (const d of verified.differences) console.log(`differs: ${d}`);
            process.exitCode = 3;
          } else console.log(`verified: ${verified.events} events in ${verified.streams} streams are the same on both sides, in the same order`);
        }
      } catch (error) {
        if (error instanceof CopyConflict) throw new Error(`cannot copy into ${redact(options.to)}: ${error.message}`, { cause: error });
        throw error;
      } finally {
        await from.close();
        await to?.close();
      }
    });
};
