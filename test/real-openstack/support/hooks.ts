/**
 * Root hooks of `npm run test:openstack` (loaded by .mocharc.openstack.json `require`):
 * - before all: open the run (connect, name prefix) and say which cloud it is; sweep what earlier runs
 *   left when they were killed before their cleanup (their pid is gone); with the admin cloud, wait until
 *   Cinder's scheduler knows a backend pool (support/cinder-ready.ts: a cold-started Cinder fails creates
 *   until cinder-volume's first capability report);
 * - after each: fault-control files back to `{}` (also after a failed test), the test's duration noted;
 * - after all: delete everything registered (newest first), sweep the prefix, print the timing summary.
 * Cleanup failures fail the run: a suite that leaks into a user's cloud is broken.
 */
import type { Context } from 'mocha';
import { openedRun, realRun, type TimingRecord } from './run.js';
import { stalePrefixes, sweepPrefix } from './sweep.js';
import { waitForCinderPools } from './cinder-ready.js';

const startedAt = Date.now();
/** Wall time is attributed to the test that ends it, so a file's figure includes its before-hooks. */
let lastMark = Date.now();

const fmt = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export const mochaHooks = {
  async beforeAll(this: Context) {
    this.timeout(600_000);
    const run = await realRun();
    console.log(`  real OpenStack: ${run.target.description}`);
    console.log(`  run prefix ${run.prefix}; client log ${run.logPath}`);
    if (!run.target.keep) {
      for (const prefix of await stalePrefixes(run.prefix, run.tenant, run.admin)) {
        const swept = await sweepPrefix(prefix, run.tenant, run.admin);
        console.log(`  swept what killed run ${prefix} left: ${swept.found.length} resources${swept.failed.length ? `; could not delete: ${swept.failed.join('; ')}` : ''}`);
      }
    }
    if (run.admin) {
      const cinder = await waitForCinderPools(run.admin);
      if (cinder.waitedMs > 1_000) console.log(`  waited ${(cinder.waitedMs / 1000).toFixed(1)} s for Cinder's scheduler to know a backend (${cinder.pools.join(', ')})`);
    }
    lastMark = Date.now();
  },

  afterEach(this: Context) {
    const run = openedRun();
    if (!run) return;
    run.faults?.reset();
    const test = this.currentTest;
    const now = Date.now();
    if (test) run.timings.push({ file: (test.file ?? '').replace(/^.*\/test\//, 'test/'), title: test.fullTitle(), ms: test.duration ?? 0, wallMs: now - lastMark, state: test.state ?? 'skipped' });
    lastMark = now;
  },

  async afterAll(this: Context) {
    this.timeout(600_000);
    const run = openedRun();
    if (!run) return;
    run.faults?.reset();
    if (run.target.keep) {
      console.log(`  REGENT_OS_KEEP=1: leaving ${run.cleanup.pending} registered resources under ${run.prefix}`);
      return;
    }
    const t0 = Date.now();
    const failures = await run.cleanup.runAll();
    const sweep = await sweepPrefix(run.prefix, run.tenant, run.admin);
    run.phases.cleanup = Date.now() - t0;
    printSummary(run.timings, run.phases, Date.now() - startedAt, run.cleanup.done.length, sweep.found);
    const problems = [...failures.map((f) => `${f.label}: ${f.error}`), ...sweep.failed];
    if (problems.length > 0) throw new Error(`cleanup left resources behind under ${run.prefix}:\n  ${problems.join('\n  ')}`);
  },
};

const printSummary = (timings: ReadonlyArray<TimingRecord>, phases: Record<string, number>, totalMs: number, deleted: number, swept: string[]): void => {
  const byFile = new Map<string, { ms: number; tests: number; passed: number; failed: number; skipped: number }>();
  for (const t of timings) {
    const entry = byFile.get(t.file) ?? { ms: 0, tests: 0, passed: 0, failed: 0, skipped: 0 };
    entry.ms += t.wallMs;
    entry.tests++;
    if (t.state === 'passed') entry.passed++;
    else if (t.state === 'failed') entry.failed++;
    else entry.skipped++;
    byFile.set(t.file, entry);
  }
  const lines = ['', '  real-OpenStack suite timings (wall time per file, hooks included)', '  ─────────────────────────────────────────────────────────────────'];
  for (const [file, e] of [...byFile.entries()].sort()) {
    lines.push(`  ${fmt(e.ms).padStart(8)}  ${file}  (${e.passed} passed${e.failed ? `, ${e.failed} failed` : ''}${e.skipped ? `, ${e.skipped} skipped` : ''})`);
  }
  lines.push(`  ${fmt(phases.connect ?? 0).padStart(8)}  connect (tokens for the tenant and admin clouds)`);
  lines.push(`  ${fmt(phases.fixtures ?? 0).padStart(8)}  fixtures (flavor, two images, network, subnet)`);
  lines.push(`  ${fmt(phases.cleanup ?? 0).padStart(8)}  cleanup (${deleted} registered deletions; sweep found ${swept.length} more${swept.length ? `: ${swept.join(', ')}` : ''})`);
  lines.push(`  ${fmt(totalMs).padStart(8)}  total`);
  const slowest = [...timings].sort((a, b) => b.ms - a.ms).slice(0, 5);
  lines.push('  slowest:');
  for (const t of slowest) lines.push(`  ${fmt(t.ms).padStart(8)}  ${t.title}`);
  console.log(lines.join('\n'));
};
