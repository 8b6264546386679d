/** The `regent` command as a user runs it: a real process, a real sqlite file. */
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { Engine } from '../../src/engine/engine.js';
import { MachineRegistry } from '../../machines/registry.js';
import { toyDefinition } from '../fixtures/toy-machine.js';
import { newEventId } from '../../src/events/ids.js';

const regent = (args: string[], env: Record<string, string> = {}) => {
  const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn', ...env } });
  return { code: result.status, out: result.stdout, err: result.stderr };
};

describe('the regent command', function () {
  this.timeout(30_000);
  let dir: string;
  let db: string;
  let toy: string[];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-cli-'));
    db = join(dir, 'regent.db');
    toy = ['--store', `sqlite:${db}`, '--machines', 'test/fixtures/toy-registry.ts'];
    const store = await openStore(`sqlite:${db}`);
    let tick = Date.parse('2026-11-29T10:00:00Z');
    const engine = new Engine({ store, registry: new MachineRegistry([toyDefinition()]), now: () => new Date((tick += 60_000)), handlers: { 'toy.create': async () => undefined } });
    const reconcile = { stimulus: { type: 'reconcile', source: 'reconciler', desired: 'lamp', exists: false }, actor: 'reconciler/toy' } as const;
    await engine.dispatch('toy-a', reconcile);
    await engine.dispatch('toy-a', reconcile);
    await engine.dispatch('toy-a', { stimulus: { type: 'observed', source: 'monitor', exists: true }, actor: 'monitor/toy' });
    await engine.dispatch('toy-b', reconcile);
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('streams lists each stream with its head and state', () => {
    const { code, out } = regent([...toy, 'streams']);
    expect(code).to.equal(0);
    expect(out).to.match(/toy-a\s+2\s+toy\s+present/);
    expect(out).to.match(/toy-b\s+0\s+toy\s+armed/);
  });

  it('history shows revision, time, type, source and from → to', () => {
    const { code, out } = regent([...toy, 'history', 'toy-a']);
    expect(code).to.equal(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).to.match(/^REV\s+TIME\s+TYPE\s+SOURCE\s+FROM → TO/);
    expect(lines[1]).to.match(/^0\s+2026-11-29T10:01:00.000Z\s+toy\.armed\s+reconciler\s+∅ → armed/);
    expect(lines[2]).to.match(/^1\s+.*toy\.submitted\s+reconciler\s+armed → submitting\s+toy\.create/);
    expect(lines[3]).to.match(/^2\s+.*toy\.observedPresent\s+monitor\s+submitting → present/);
  });

  it('history --json prints one full event per line', () => {
    const { code, out } = regent([...toy, 'history', 'toy-a', '--json']);
    expect(code).to.equal(0);
    const events = out.trim().split('\n').map((l) => JSON.parse(l) as { revision: number; metadata: { source: string } });
    expect(events.map((e) => e.revision)).to.deep.equal([0, 1, 2]);
    expect(events[2]?.metadata.source).to.equal('monitor');
  });

  it('replay --at a revision shows the state then, the last observation and the last decision', () => {
    const { code, out } = regent([...toy, 'replay', 'toy-a', '--at', '1']);
    expect(code).to.equal(0);
    expect(out).to.match(/state:\s+submitting/);
    expect(out).to.match(/last observation:\s+none/);
    expect(out).to.match(/last decision:\s+revision 1 toy\.submitted/);
  });

  it('replay --at an ISO time picks the last event at or before it', () => {
    const { code, out } = regent([...toy, 'replay', 'toy-a', '--at', '2026-11-29T10:01:30Z', '--json']);
    expect(code).to.equal(0);
    expect((JSON.parse(out) as { state: string }).state).to.equal('armed');
  });

  it('replay --verify passes on the recorded machine', () => {
    const { code, out } = regent([...toy, 'replay', 'toy-a', '--verify']);
    expect(code).to.equal(0);
    expect(out).to.include('3 events re-decided by toy v1: no divergence');
  });

  it('replay --verify against a changed machine names the first divergent event and exits 3', () => {
    const { code, out } = regent([...toy, 'replay', 'toy-a', '--verify', '--machine-version', 'test/fixtures/toy-candidate.ts']);
    expect(code).to.equal(3);
    expect(out).to.match(/first divergence at revision 2 \(toy\.observedPresent/);
    expect(out).to.match(/recorded:\s+to present/);
    expect(out).to.match(/recomputed:\s+to failed/);
  });

  it('migrate verify decodes every event and lists the ones that fail', async () => {
    const clean = regent([...toy, 'migrate', 'verify']);
    expect(clean.code).to.equal(0);
    expect(clean.out).to.include('4 events checked');
    const store = await openStore(`sqlite:${db}`);
    await store.append('toy-c', [{ id: newEventId(), type: 'toy.armed', data: { type: 'reconcile', source: 'reconciler', desired: 7 }, metadata: { machine: 'toy', machineVersion: 1, schemaVersion: 1, source: 'reconciler', actor: 'x', correlationId: 'c', causationId: null, from: null, to: 'armed', effects: [], recordedAt: '2026-11-29T11:00:00Z' } }], { expectedRevision: 'no_stream' });
    await store.close();
    const broken = regent([...toy, 'migrate', 'verify']);
    expect(broken.code).to.equal(3);
    expect(broken.out).to.include('1 cannot be read');
    expect(broken.out).to.match(/toy-c\s+0\s+toy\.armed\s+desired/);
  });

  it('logs JSON lines on a non-TTY stderr at the level REGENT_LOG_LEVEL names, and stops cleanly on SIGINT', async () => {
    const run = (level: string) =>
      new Promise<{ code: number | null; err: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['bin/regent.js', '--store', `sqlite:${join(dir, `start-${level}.db`)}`, 'start', '--port', '0', '--api-port', '0', '--no-examples', '--resources', `embedded:${join(dir, `res-${level}.db`)}`], {
          env: { ...process.env, REGENT_LOG_LEVEL: level, OS_CLOUD: '', OS_AUTH_URL: '' },
        });
        let err = '';
        let out = '';
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('Regent is running.')) setTimeout(() => child.kill('SIGINT'), 300);
        });
        child.on('error', reject);
        child.on('exit', (code) => resolve({ code, err }));
      });
    const info = await run('info');
    expect(info.code).to.equal(0);
    const lines = info.err.trim().split('\n').map((l) => JSON.parse(l) as { level: string; message: string });
    expect(lines.map((l) => l.message)).to.include('stopped cleanly');
    expect(lines.every((l) => typeof l.level === 'string')).to.equal(true);
    const quiet = await run('error');
    expect(quiet.code).to.equal(0);
    expect(quiet.err).to.not.include('stopped cleanly');
  });

  it('start serves a path nothing else serves with the audit 404 page (links back), and a favicon', async () => {
    const child = spawn(process.execPath, ['bin/regent.js', '--store', `sqlite:${join(dir, 'start-404.db')}`, 'start', '--port', '0', '--api-port', '0', '--no-examples', '--resources', `embedded:${join(dir, 'res-404.db')}`], {
      env: { ...process.env, REGENT_LOG_LEVEL: 'error', OS_CLOUD: '', OS_AUTH_URL: '' },
    });
    try {
      let printed = '';
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          printed = out;
          const found = /http:\/\/127\.0\.0\.1:\d+/.exec(out);
          if (out.includes('Ctrl-C stops Regent') && found) resolve(found[0]);
        });
        child.on('error', reject);
        child.on('exit', (code) => reject(new Error(`regent start exited ${code}: ${out}`)));
      });
      const missing = await fetch(`${url}/no/such/page`);
      expect(missing.status).to.equal(404);
      expect(missing.headers.get('content-type')).to.match(/^text\/html/);
      const html = await missing.text();
      expect(html).to.include('Not found').and.include('id="link-home"').and.include('/no/such/page');
      expect((await fetch(`${url}/favicon.ico`)).status).to.equal(200);
      expect((await fetch(`${url}/healthz`)).status).to.equal(200);
      // the server API (issue 17) with the printed demo token from the token file next to the store
      const api = /server API:\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] as string;
      const tokenPath = /API demo token:\s+(\S+)/.exec(printed)?.[1] as string;
      expect(tokenPath).to.equal(join(dir, 'api', 'demo-token'));
      const token = readFileSync(tokenPath, 'utf8').trim();
      expect(printed).to.include(token);
      expect((await fetch(`${api}/api/v2/servers`)).status).to.equal(401);
      const listed = await fetch(`${api}/api/v2/servers`, { headers: { authorization: `Bearer ${token}` } });
      expect(listed.status).to.equal(200);
      expect(await listed.json()).to.deep.equal([]);
      expect((await fetch(`${api}/openapi.yaml`)).status).to.equal(200);
    } finally {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGINT');
        await exited;
      }
    }
  });

  for (const [title, args, message] of [
    ['a missing store', ['--store', 'sqlite:/nonexistent/dir/regent.db', 'streams'], /^regent: no store at \/nonexistent\/dir\/regent\.db/],
    ['an unsupported store URL', ['--store', 'mysql://x', 'streams'], /^regent: unsupported store URL "mysql:\/\/x"/],
    ['a PostgreSQL store URL without a host and database', ['--store', 'postgres://x', 'streams'], /^regent: store URL "postgres:\/\/x" needs a host and a database/],
    ['a bad --at', ['--store', 'sqlite:DB', '--machines', 'test/fixtures/toy-registry.ts', 'replay', 'toy-a', '--at', 'yesterday'], /^regent: --at "yesterday" is neither a revision number nor an ISO time/],
    ['an unknown stream', ['--store', 'sqlite:DB', 'history', 'toy-zzz'], /^regent: no stream toy-zzz/],
    ['an unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
  ] as const) {
    it(`${title} prints one clear line and exits non-zero, never a stack trace`, () => {
      const { code, err } = regent(args.map((a) => a.replace('sqlite:DB', `sqlite:${db}`)));
      expect(code).to.not.equal(0);
      expect(err).to.match(message);
      expect(err).to.not.match(/\n\s+at /);
    });
  }

  it('a reader that stops early (`| head -1`) ends the command quietly: no EPIPE stack trace', () => {
    const result = spawnSync('sh', ['-c', `node bin/regent.js ${toy.join(' ')} history toy-a --json | head -c 1 > /dev/null`], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
    expect(result.stderr).to.not.match(/EPIPE|Unhandled/);
    expect(result.status).to.equal(0);
  });
});
