/**
 * Evidence files: `regent export` writes a redacted, hash-chained file; `regent replay --file`
 * verifies the chain offline, names the first broken link when tampered, and replays with the machine
 * version the file names (or says clearly that this build does not have it).
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';
import { Engine } from '../../src/engine/engine.js';
import { MachineRegistry } from '../../machines/registry.js';
import { canonicalJson, nextLink, sha256 } from '../../src/audit/evidence/canonical.js';
import { redact, REDACTED } from '../../src/audit/evidence/redact.js';
import { genesisOf, type EvidenceFile } from '../../src/audit/evidence/evidence.js';
import { toyDefinition } from '../fixtures/toy-machine.js';
import { recordRebuildHistory, REBUILD_STREAM } from './support/rebuild-history.js';

const regent = (args: string[]) => {
  const result = spawnSync(process.execPath, ['bin/regent.js', ...args], { encoding: 'utf8', env: { ...process.env, REGENT_LOG_LEVEL: 'warn' } });
  return { code: result.status, out: result.stdout, err: result.stderr };
};

describe('audit: evidence export', function () {
  this.timeout(60_000);
  let dir: string;
  let db: string;
  let evidence: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-evidence-'));
    db = join(dir, 'regent.db');
    evidence = join(dir, 'evidence.json');
    const store = await openStore(`sqlite:${db}`);
    await recordRebuildHistory(store);
    // A toy stream whose stimuli carry secrets the machine never looks at (extra members decode).
    let tick = Date.parse('2026-11-29T12:00:00Z');
    const engine = new Engine({ store, registry: new MachineRegistry([toyDefinition()]), now: () => new Date((tick += 1000)), handlers: { 'toy.create': async () => undefined } });
    const stimulus = { type: 'reconcile', source: 'reconciler' as const, desired: 'lamp', exists: false, credentials: { user: 'u', password: 'hunter2' }, apiKey: 'k-123', note: 'Bearer abcdefghijklmnop' };
    await engine.dispatch('toy-secret', { stimulus, actor: 'reconciler/toy' });
    await engine.dispatch('toy-secret', { stimulus, actor: 'reconciler/toy' });
    await store.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('canonical JSON sorts keys at every depth, so the hash does not depend on member order', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null }, u: undefined })).to.equal('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(nextLink('x', { b: 1, a: 2 })).to.equal(sha256('x{"a":2,"b":1}'));
  });

  it('redacts secret-shaped keys and values recursively and lists the paths, never the values', () => {
    const { value, paths } = redact({ data: { adminPass: 'p', nested: [{ token: 't', keep: 1 }], auth: { kind: 'x' }, header: '-----BEGIN RSA PRIVATE KEY-----\nabc' }, metadata: { actor: 'a' } });
    expect(value).to.deep.equal({ data: { adminPass: REDACTED, nested: [{ token: REDACTED, keep: 1 }], auth: REDACTED, header: REDACTED }, metadata: { actor: 'a' } });
    expect(paths).to.deep.equal(['data.adminPass', 'data.nested[0].token', 'data.auth', 'data.header']);
  });

  it('exports the machine, its statechart, the events and a hash chain; replay --file verifies it and re-decides offline', () => {
    const exported = regent(['--store', `sqlite:${db}`, 'export', REBUILD_STREAM, '--out', evidence]);
    expect(exported.code, exported.err).to.equal(0);
    expect(exported.out).to.match(/9 events, serverRebuild v2 \(recorded by v2\), 0 value\(s\) redacted, chain head [0-9a-f]{64}/);
    const file = JSON.parse(readFileSync(evidence, 'utf8')) as EvidenceFile;
    expect(file.format).to.equal('regent-evidence/1');
    expect(file.machine).to.include({ id: 'serverRebuild', version: 2 });
    expect(file.machine.statechart.edges).to.have.length(57);
    expect(file.machine.dot).to.match(/^digraph/);
    expect(file.events.map((e) => e.revision)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(file.chain.genesis).to.equal(genesisOf(file.stream, file.machine));
    expect(file.chain.links[0]).to.equal(nextLink(file.chain.genesis, file.events[0]));
    expect(file.chain.head).to.equal(file.chain.links[8]);

    // Offline: no --store at all.
    const replayed = regent(['replay', '--file', evidence, '--at', '4']);
    expect(replayed.code, replayed.err).to.equal(0);
    expect(replayed.out).to.match(/hash chain: 9 links verified/);
    expect(replayed.out).to.match(/replaying with serverRebuild v2\n/);
    expect(replayed.out).to.include('re-decided: 9 events, no divergence');
    expect(replayed.out).to.match(/as of: +revision 4 serverRebuild\.submitted/);
    const json = JSON.parse(regent(['replay', '--file', evidence, '--json']).out) as { chain: { ok: boolean }; state: { state: string } };
    expect(json.chain.ok).to.equal(true);
    expect(json.state.state).to.equal('noMarker');
  });

  it('redacts secrets in the exported events; the redacted file still replays', () => {
    const out = join(dir, 'secret.json');
    const exported = regent(['--store', `sqlite:${db}`, '--machines', 'test/fixtures/toy-registry.ts', 'export', 'toy-secret', '--out', out]);
    expect(exported.code, exported.err).to.equal(0);
    expect(exported.out).to.include('6 value(s) redacted');
    const text = readFileSync(out, 'utf8');
    expect(text).to.not.include('hunter2');
    expect(text).to.not.include('k-123');
    expect(text).to.not.include('abcdefghijklmnop');
    const file = JSON.parse(text) as EvidenceFile;
    expect(file.redaction.paths.filter((p) => p.revision === 0).map((p) => p.path)).to.deep.equal(['data.credentials', 'data.apiKey', 'data.note']);
    const replayed = regent(['--machines', 'test/fixtures/toy-registry.ts', 'replay', '--file', out]);
    expect(replayed.code, replayed.err).to.equal(0);
    expect(replayed.out).to.include('no divergence');
  });

  it('a tampered event breaks the chain at its link: replay --file names it and exits 3', () => {
    const file = JSON.parse(readFileSync(evidence, 'utf8')) as EvidenceFile;
    (file.events[3]?.data as unknown as { server: { status: string } }).server.status = 'ERROR';
    const tampered = join(dir, 'tampered.json');
    writeFileSync(tampered, JSON.stringify(file));
    const replayed = regent(['replay', '--file', tampered]);
    expect(replayed.code).to.equal(3);
    expect(replayed.out).to.match(/hash chain BROKEN/);
    expect(replayed.out).to.match(new RegExp(`hash chain broken at link 3 \\(revision 3, event ${file.events[3]?.id}\\)`));
    expect(replayed.out).to.not.match(/link 4/);
  });

  it('a tampered header (the machine version) breaks the genesis', () => {
    const file = JSON.parse(readFileSync(evidence, 'utf8')) as EvidenceFile;
    file.machine.version = 1;
    const tampered = join(dir, 'header.json');
    writeFileSync(tampered, JSON.stringify(file));
    const replayed = regent(['replay', '--file', tampered]);
    expect(replayed.code).to.equal(3);
    expect(replayed.out).to.include('the header (stream or machine) does not match the chain genesis');
  });

  it('a file made with a machine version this build lacks is refused with a clear message', () => {
    const file = JSON.parse(readFileSync(evidence, 'utf8')) as EvidenceFile;
    file.machine.version = 7;
    // Re-sign honestly: the file is intact, only the version is one this build does not have.
    file.chain.genesis = genesisOf(file.stream, file.machine);
    let link = file.chain.genesis;
    file.chain.links = file.events.map((e) => (link = nextLink(link, e)));
    file.chain.head = link;
    const other = join(dir, 'v7.json');
    writeFileSync(other, JSON.stringify(file));
    const replayed = regent(['replay', '--file', other]);
    expect(replayed.code).to.equal(1);
    expect(replayed.err.trim()).to.equal(`regent: ${other} was exported with serverRebuild v7, which is not registered (this build has v2); load it with --machines <module>`);
  });

  it('replay --file with a candidate machine shows the first divergent event', () => {
    const replayed = regent(['replay', '--file', evidence, '--machine-version', 'test/audit/fixtures/server-rebuild-candidate.ts']);
    expect(replayed.code).to.equal(3);
    expect(replayed.out).to.match(/replaying with serverRebuild v3/);
    expect(replayed.out).to.match(/first divergence at revision 4 \(serverRebuild\.submitted, event [0-9a-f-]+\): ignored/);
  });
});
