/**
 * Compares mocha JSON reports by full title: what passed in the "before" run and does not pass in the
 * "after" run(s) — failed, pending, or gone (issue 25: making the suite fast must not lose a test; a test
 * that moved file keeps its full title, so only a rename or a merge shows here, and each must be explained).
 *
 *   node --import tsx test/support/compare-reports.ts <before.json>[,<more before.json>] <after.json> [<after.json>…]
 *
 * Several "after" reports are read as one run (e.g. `npm test` and `npm run test:scale`). Titles are
 * counted, not just collected, so two tests with one title cannot hide a lost one. Prints the counts of each
 * side, then the lost titles with what became of them; exits 1 when any passing test was lost, so CI or a
 * reviewer can run it unattended. Write the reports with
 * `--reporter json --reporter-option output=<file>` (parallel mode included).
 */
import { readFileSync } from 'node:fs';

interface ReportTest { fullTitle: string; file?: string; duration?: number; err?: { message?: string } }
interface Report { stats: { passes: number; pending: number; failures: number; tests: number; duration?: number }; passes: ReportTest[]; pending: ReportTest[]; failures: ReportTest[] }

/** A report's file from `test/` on: the same file in two clones compares equal. */
const shortPath = (file: string) => file.slice(Math.max(0, file.lastIndexOf('/test/') + 1));

const read = (path: string): Report => JSON.parse(readFileSync(path, 'utf8')) as Report;

const tally = (tests: readonly ReportTest[]) => {
  const counts = new Map<string, number>();
  for (const t of tests) counts.set(t.fullTitle, (counts.get(t.fullTitle) ?? 0) + 1);
  return counts;
};

const merge = (reports: readonly Report[]): Report => ({
  stats: {
    passes: reports.reduce((n, r) => n + r.stats.passes, 0),
    pending: reports.reduce((n, r) => n + r.stats.pending, 0),
    failures: reports.reduce((n, r) => n + r.stats.failures, 0),
    tests: reports.reduce((n, r) => n + r.stats.tests, 0),
    duration: reports.reduce((n, r) => n + (r.stats.duration ?? 0), 0),
  },
  passes: reports.flatMap((r) => r.passes),
  pending: reports.flatMap((r) => r.pending),
  failures: reports.flatMap((r) => r.failures),
});

export interface Lost { title: string; file?: string; now: 'failing' | 'pending' | 'missing'; detail?: string }

/** Every passing title of `before` that `after` does not pass as many times. */
export const lostTests = (before: Report, after: Report): Lost[] => {
  const passedAfter = tally(after.passes);
  const failedAfter = new Map(after.failures.map((t) => [t.fullTitle, t]));
  const pendingAfter = new Set(after.pending.map((t) => t.fullTitle));
  const lost: Lost[] = [];
  for (const [title, count] of tally(before.passes)) {
    const missingCount = count - (passedAfter.get(title) ?? 0);
    if (missingCount <= 0) continue;
    const file = before.passes.find((t) => t.fullTitle === title)?.file;
    const failed = failedAfter.get(title);
    const now = failed ? 'failing' : pendingAfter.has(title) ? 'pending' : 'missing';
    for (let i = 0; i < missingCount; i++) lost.push({ title, file, now, detail: failed?.err?.message?.split('\n')[0] });
  }
  return lost;
};

const main = (args: readonly string[]) => {
  if (args.length < 2) {
    console.error('usage: compare-reports.ts <before.json>[,<before.json>…] <after.json> [<after.json>…]');
    return 2;
  }
  const [beforeArg, ...afterArgs] = args as [string, ...string[]];
  const before = merge(beforeArg.split(',').map(read));
  const after = merge(afterArgs.map(read));
  const line = (label: string, r: Report) =>
    `${label}: ${r.stats.passes} passing, ${r.stats.pending} pending, ${r.stats.failures} failing (${r.stats.tests} tests${r.stats.duration ? `, ${(r.stats.duration / 1000).toFixed(0)} s of mocha time` : ''})`;
  console.log(line('before', before));
  console.log(line('after ', after));
  const lost = lostTests(before, after);
  const passedBefore = tally(before.passes);
  const gained = [...tally(after.passes)].filter(([title, n]) => n > (passedBefore.get(title) ?? 0)).length;
  console.log(`passing before and not passing after: ${lost.length}; titles passing after and not before: ${gained}`);
  for (const l of lost) {
    console.log(`  [${l.now}] ${l.title}${l.file ? `  (${shortPath(l.file)})` : ''}${l.detail ? `\n      ${l.detail}` : ''}`);
  }
  return lost.length === 0 ? 0 : 1;
};

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
