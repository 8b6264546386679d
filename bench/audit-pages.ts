/**
 * `npm run bench:audit-pages` (issue 30, "Fast and linked"): how long the first load of every kind of audit page
 * takes on a control plane started as `npm start` starts it — the built-in simulator and the examples, here in a
 * temp dir on 127.0.0.1 with free ports — and again after that control plane is stopped and started on the same
 * data directory (what was folded or checked is then on the shelf beside the sqlite store, src/audit/history/shelf.ts).
 *
 * Pages: `/`, `/fleet/<Kind>` for every kind the index links, `/machines/<id>?version=N` for every registered
 * machine version, `/streams/<s>` for one stream of each machine, `/resources/<Kind>/<ns>/<name>` for one resource
 * of each kind, and `/incidents` when that route answers (noted as skipped when it does not). Each is fetched by a
 * spawned `curl -s -o /dev/null -w %{time_total}`, so the time is what a client waits, HTTP included.
 *
 * Printed: a table (page, first load, first load after the restart, a second load after the restart as the
 * baseline) and the same as JSON; the table is also written to /tmp/issue30-first-load.md (or `--md <file>`).
 * A machine page served before its static checks finished says so ("checks running…") and fetches them from
 * /api/machines/<id>/checks; the table marks such a page with `(running)`.
 *
 * Measurements on a shared 2-core machine are noisy: run it twice. The tests assert no times.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const MD = argValue('--md') ?? '/tmp/issue30-first-load.md';
const SETTLE_QUIET_MS = Number(argValue('--settle-quiet-ms') ?? 8_000);
const SETTLE_MAX_MS = Number(argValue('--settle-max-ms') ?? 120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

interface Plane {
  child: ChildProcess;
  origin: string;
}

/** `npm start` (`node --import tsx src/cli/entry.ts serve`) on `dir`, without any cloud in its environment. */
const startPlane = async (dir: string, log: string): Promise<Plane> => {
  const [port, apiPort, auditPort] = [await freePort(), await freePort(), await freePort()];
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('OS_') && key !== 'REGENT_STORE'));
  const out = openSync(log, 'a');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/entry.ts', '--store', `sqlite:${join(dir, 'regent.db')}`, 'serve', '--resources', `embedded:${join(dir, 'resources.db')}`, '--host', '127.0.0.1', '--port', String(port), '--api-port', String(apiPort), '--audit-port', String(auditPort)],
    { cwd: new URL('..', import.meta.url).pathname, env, stdio: ['ignore', out, out] },
  );
  closeSync(out);
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the control plane exited (${child.exitCode}); see ${log}`);
    try {
      if ((await fetch(`${origin}/readyz`)).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the control plane was not ready in 120 s; see ${log}`);
    await sleep(250);
  }
  return { child, origin };
};

const stopPlane = async (plane: Plane): Promise<void> => {
  if (plane.child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => plane.child.once('exit', () => resolve()));
  plane.child.kill('SIGTERM');
  const late = setTimeout(() => plane.child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(late);
};

interface StreamRow {
  stream: string;
  head: number;
  machine?: string;
  subject?: { kind: string; namespace: string; name: string };
}

const streams = async (origin: string): Promise<StreamRow[]> => (await (await fetch(`${origin}/api/streams`)).json()) as StreamRow[];

/** Until no stream has grown for SETTLE_QUIET_MS (at most SETTLE_MAX_MS): the examples are created and settled. */
const settle = async (plane: Plane, log: string): Promise<number> => {
  const start = Date.now();
  let last = '';
  let quietSince = Date.now();
  while (Date.now() - start < SETTLE_MAX_MS) {
    if (plane.child.exitCode !== null) throw new Error(`the control plane exited (${plane.child.exitCode}); see ${log}`);
    const rows = await streams(plane.origin).catch(() => undefined);
    if (!rows) {
      await sleep(1_000);
      continue;
    }
    const signature = rows.map((r) => `${r.stream}:${r.head}`).sort().join(',');
    if (signature !== last) {
      last = signature;
      quietSince = Date.now();
    } else if (Date.now() - quietSince >= SETTLE_QUIET_MS && rows.length > 0) break;
    await sleep(1_000);
  }
  return (Date.now() - start) / 1000;
};

interface Load {
  status: number;
  seconds: number;
  running: boolean;
}

/** One fetch by a spawned curl, and whether a machine page said its checks were still running. */
const load = async (url: string): Promise<Load> => {
  const body = join(tmpdir(), `regent-bench-page-${process.pid}.html`);
  const { stdout } = await run('curl', ['-s', '-o', body, '-w', '%{http_code} %{time_total}', url]);
  const [status, seconds] = stdout.trim().split(' ');
  let running = false;
  if (url.includes('/machines/')) {
    const { readFileSync } = await import('node:fs');
    running = readFileSync(body, 'utf8').includes('data-checks="running"');
  }
  rmSync(body, { force: true });
  return { status: Number(status), seconds: Number(seconds), running };
};

const linksOf = (html: string, pattern: RegExp): string[] => [...new Set([...html.matchAll(pattern)].map((m) => (m[1] as string).replace(/&amp;/g, '&')))];

/** The pages to load, from what the index links and the streams the store holds. */
const pagesOf = async (origin: string): Promise<string[]> => {
  const index = await (await fetch(`${origin}/`)).text();
  const fleets = linksOf(index, /href="(\/fleet\/[^"#]+)"/g);
  const machines = linksOf(index, /href="(\/machines\/[^"#]+)"/g);
  const rows = await streams(origin);
  const oneStreamPerMachine = new Map<string, string>();
  const oneResourcePerKind = new Map<string, string>();
  for (const row of rows) {
    if (row.machine && !oneStreamPerMachine.has(row.machine)) oneStreamPerMachine.set(row.machine, `/streams/${encodeURIComponent(row.stream)}`);
    const s = row.subject;
    if (s && !oneResourcePerKind.has(s.kind)) oneResourcePerKind.set(s.kind, `/resources/${encodeURIComponent(s.kind)}/${encodeURIComponent(s.namespace)}/${encodeURIComponent(s.name)}`);
  }
  return ['/', ...fleets, ...machines, ...oneStreamPerMachine.values(), ...oneResourcePerKind.values(), '/incidents'];
};

interface Row {
  page: string;
  first?: Load;
  afterRestart?: Load;
  second?: Load;
}

const dir = mkdtempSync(join(tmpdir(), 'regent-bench-pages-'));
const log = join(dir, 'control-plane.log');
const rows = new Map<string, Row>();
const notes: string[] = [];
let plane: Plane | undefined;
try {
  plane = await startPlane(dir, log);
  console.error(`started ${plane.origin} in ${dir}; settling…`);
  console.error(`settled after ${(await settle(plane, log)).toFixed(0)} s`);
  // the index first, before anything below reads it for its links
  rows.set('/', { page: '/', first: await load(`${plane.origin}/`) });
  const pages = await pagesOf(plane.origin);
  console.error(`${pages.length} pages`);
  for (const page of pages) {
    if (rows.has(page)) continue;
    const first = await load(`${plane.origin}${page}`);
    rows.set(page, { page, first });
    console.error(`first  ${first.seconds.toFixed(3)} s  ${first.status}${first.running ? ' (running)' : ''}  ${page}`);
  }

  await stopPlane(plane);
  plane = await startPlane(dir, log);
  console.error(`restarted ${plane.origin}; settling…`);
  console.error(`settled after ${(await settle(plane, log)).toFixed(0)} s`);
  for (const page of pages) {
    const afterRestart = await load(`${plane.origin}${page}`);
    (rows.get(page) as Row).afterRestart = afterRestart;
    console.error(`after restart  ${afterRestart.seconds.toFixed(3)} s  ${afterRestart.status}${afterRestart.running ? ' (running)' : ''}  ${page}`);
  }
  for (const page of pages) (rows.get(page) as Row).second = await load(`${plane.origin}${page}`);
} finally {
  if (plane) await stopPlane(plane);
}

const incidents = rows.get('/incidents');
if (incidents && incidents.first?.status === 404 && incidents.afterRestart?.status === 404) {
  rows.delete('/incidents');
  notes.push('/incidents answered 404 (the route is not there yet): skipped.');
}
const cell = (l: Load | undefined) => (l ? `${l.seconds.toFixed(3)}${l.status === 200 ? '' : ` (${l.status})`}${l.running ? ' (running)' : ''}` : '—');
const table = [
  '| page | first load s | after-restart first load s | second load s (baseline) |',
  '|---|---:|---:|---:|',
  ...[...rows.values()].map((r) => `| \`${decodeURIComponent(r.page)}\` | ${cell(r.first)} | ${cell(r.afterRestart)} | ${cell(r.second)} |`),
];
const worst = (pick: (r: Row) => Load | undefined) => Math.max(...[...rows.values()].map((r) => pick(r)?.seconds ?? 0));
const summary = `worst first load ${worst((r) => r.first).toFixed(3)} s; worst after restart ${worst((r) => r.afterRestart).toFixed(3)} s; worst second load ${worst((r) => r.second).toFixed(3)} s. "(running)": a machine page served before its static checks finished (it says "checks running…" and fetches them).`;
const markdown = `# Audit pages: first load (issue 30)\n\n${new Date().toISOString()}, ${rows.size} pages, control plane as \`npm start\` (built-in simulator, examples) in a temp dir.\n\n${table.join('\n')}\n\n${summary}\n${notes.map((n) => `\n${n}`).join('')}\n`;
writeFileSync(MD, markdown);
console.log(markdown);
console.log(JSON.stringify({ pages: [...rows.values()], notes, table: MD }, null, 2));
rmSync(dir, { recursive: true, force: true });
