/**
 * `regent timeline` (issue 30): one incident timeline across resources from a sqlite store the test fills
 * (test/audit/support/incident-history.ts) — the table (time, resource, source, author/actor, type, from → to,
 * summary) with the related set above it, `-o json`, `--export file.json` (redacted), and exit 2 with one line for
 * bad input.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import type { IncidentTimeline } from '../../src/audit/incident/timeline.js';
import type { IncidentExport } from '../../src/audit/incident/export.js';
import { ADMIN_PASS, JWT, PASSWORD, STREAMS, at, recordIncidentHistory } from '../audit/support/incident-history.js';

describe('regent timeline', function () {
  this.timeout(60_000);
  let dir: string;
  let store: string[];
  const regent = (args: string[]) => {
    const result = spawnSync(process.execPath, ['bin/regent.js', ...store, 'timeline', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-timeline-'));
    const db = join(dir, 'regent.db');
    store = ['--store', `sqlite:${db}`];
    const s = await openStore(`sqlite:${db}`);
    await recordIncidentHistory(s);
    await s.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--resource Server/default/web-2 --related: the related set, then one table in time order; nothing of web-9', () => {
    const { code, out, err } = regent(['--resource', 'Server/default/web-2', '--related']);
    expect(code, err).to.equal(0);
    expect(out).to.match(/^Server default\/web-2: 5 stream\(s\)$/m);
    expect(out).to.include('  related: Network default/net-a (network)');
    expect(out).to.include('  related: Region default/region-1 (region, via Network default/net-a → Identity default/ident-a)');
    expect(out).to.include('  related: LoadBalancer default/lb-1 (load balancer (member address))');
    expect(out).to.include('window: the first event (inclusive) to now (exclusive)');
    const lines = out.split('\n');
    const header = lines.find((l) => l.startsWith('TIME')) ?? '';
    expect(header.split(/\s{2,}/)).to.deep.equal(['TIME', 'RESOURCE', 'SOURCE', 'AUTHOR/ACTOR', 'TYPE', 'FROM → TO', 'SUMMARY']);
    const rows = lines.slice(lines.indexOf(header) + 1).filter((l) => /^\d{4}-/.test(l));
    expect(rows.length).to.equal(22);
    expect(rows.map((r) => r.slice(0, 24))).to.deep.equal([...rows.map((r) => r.slice(0, 24))].sort());
    expect(out).to.not.include('web-9');
    expect(out).to.match(/2026-12-01T10:20:00\.000Z\s+Server default\/web-2\s+api\s+bob@acme via REST API\s+resource\.specChanged\s+generation 1 → generation 2\s+generation 2: spec\.image\.name: img-a → img-c/);
    expect(out).to.match(/serverRebuild\.submitted ⚠nova\.rebuild\s+Initiated → Initiated/);
    expect(out).to.not.include(PASSWORD);
  });

  it('--since/--until, --kind, --source and -o json', () => {
    const { code, out, err } = regent(['--resource', 'Server/default/web-2', '--related', '--since', at(12), '--until', at(25), '--source', 'effect', '-o', 'json']);
    expect(code, err).to.equal(0);
    const t = JSON.parse(out) as IncidentTimeline;
    expect(t.rows.map((r) => `${r.time} ${r.type}`)).to.deep.equal([`${at(12)} serverLifecycle.createAccepted`, `${at(15)} volumeAttachment.attachAccepted`, `${at(23)} serverRebuild.accepted`]);
    expect(t.query).to.include({ from: at(12), to: at(25) });
    const kinds = regent(['--kind', 'LoadBalancer', '-o', 'json']);
    expect(kinds.code, kinds.err).to.equal(0);
    expect((JSON.parse(kinds.out) as IncidentTimeline).rows.map((r) => r.stream)).to.deep.equal([STREAMS.lb, STREAMS.lbMachine]);
  });

  it('--export file.json: the redacted export, and a line saying what was written', () => {
    const file = join(dir, 'incident.json');
    const { code, out, err } = regent(['--resource', 'Server/default/web-2', '--related', '--export', file]);
    expect(code, err).to.equal(0);
    expect(out.trim()).to.match(new RegExp(`^wrote ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: 22 event\\(s\\) from 13 stream\\(s\\), 6 related resource\\(s\\), \\d+ member\\(s\\) redacted$`));
    const text = readFileSync(file, 'utf8');
    for (const secret of [PASSWORD, ADMIN_PASS, JWT]) expect(text).to.not.include(secret);
    const exported = JSON.parse(text) as IncidentExport;
    expect(exported.format).to.equal('regent-incident/1');
    expect(exported.store).to.match(/^sqlite:/);
  });

  it('bad input: exit 2 and one line naming what was wrong', () => {
    const since = regent(['--since', 'yesterday']);
    expect(since.code).to.equal(2);
    expect(since.err.trim()).to.equal('regent: from "yesterday" is neither an ISO time (2026-12-01T10:00:00Z) nor a duration back from now (30m, 2h, 1d)');
    const kind = regent(['--kind', 'Spaceship']);
    expect(kind.code).to.equal(2);
    expect(kind.err).to.match(/^regent: unknown kind "Spaceship"/);
    const nobody = regent(['--resource', 'Server/default/nope']);
    expect(nobody.code).to.equal(2);
    expect(nobody.err.trim()).to.equal('regent: no history names Server default/nope (no stream recorded it as its resource)');
    expect(regent(['-o', 'yaml']).code).to.equal(2);
  });
});
