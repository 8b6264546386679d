/**
 * The engine's crash guarantee, proven with real processes and a real sqlite file: a process killed
 * between the append of a decision and its effect loses no decision (the pending effect is visible in
 * the stream), and no effect is ever executed twice without a fresh decision in between.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/open.js';

const child = 'test/fixtures/crash-child.ts';

/** Runs the child until it prints `waitFor` (then SIGKILLs it) or exits; returns its output. */
const runChild = (args: string[], waitFor?: string): Promise<{ out: string; killed: boolean }> =>
  new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let killed = false;
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (waitFor && !killed && out.includes(waitFor)) {
        killed = true;
        proc.kill('SIGKILL');
      }
    });
    proc.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (waitFor && !killed) return reject(new Error(`child exited (${code}) before printing ${waitFor}: ${out}${err}`));
      if (!waitFor && code !== 0) return reject(new Error(`child failed (${code ?? signal}): ${out}${err}`));
      resolve({ out, killed });
    });
  });

const ledgerLines = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { decidedBy: string }) : []);

describe('engine: crash between append and effect (real processes, sqlite)', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'regent-crash-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a kill after the decision is appended but before the effect loses no decision, and the restart executes it once, only after a fresh decision', async () => {
    const db = join(dir, 'regent.db');
    const ledger = join(dir, 'ledger');
    const first = await runChild([db, ledger, 'hang-before-effect', '2'], 'effect-entered');
    expect(first.killed).to.equal(true);
    expect(ledgerLines(ledger)).to.have.length(0);

    // the decision is durable and its effect visibly pending
    const store = await openStore(`sqlite:${db}`);
    const afterKill = await store.readStream('toy-crash');
    await store.close();
    expect(afterKill.map((e) => e.type)).to.deep.equal(['toy.armed', 'toy.submitted']);
    const killedDecision = afterKill[1];
    expect(killedDecision?.metadata.effects.map((e) => e.type)).to.deep.equal(['toy.create']);
    expect(first.out).to.include(`effect-entered ${killedDecision?.id}`);

    // restarting runs nothing by itself
    const loadOnly = await runChild([db, ledger, 'load-only']);
    expect(loadOnly.out).to.match(/state "submitting" pending \[\{"name":"lamp","attempt":1,"type":"toy.create"\}\]|state "submitting" pending \[\{.*"toy.create".*\}\]/);
    expect(ledgerLines(ledger)).to.have.length(0);

    // the next pass re-decides from a fresh observation and executes exactly once
    const second = await runChild([db, ledger, 'normal', '2']);
    expect(second.out).to.include('pass 0 toy.resubmitted,toy.created');
    expect(second.out).to.include('pass 1 unchanged');
    const lines = ledgerLines(ledger);
    expect(lines).to.have.length(1);
    const reopened = await openStore(`sqlite:${db}`);
    const events = await reopened.readStream('toy-crash');
    await reopened.close();
    expect(events.map((e) => e.type)).to.deep.equal(['toy.armed', 'toy.submitted', 'toy.resubmitted', 'toy.created']);
    expect(lines[0]?.decidedBy).to.equal(events[2]?.id);
    expect(lines[0]?.decidedBy).to.not.equal(killedDecision?.id);
  });

  it('a kill after the effect acted but before its result was recorded never repeats the effect: the fresh observation sees it done', async () => {
    const db = join(dir, 'regent.db');
    const ledger = join(dir, 'ledger');
    const first = await runChild([db, ledger, 'hang-after-effect', '2'], 'effect-performed');
    expect(first.killed).to.equal(true);
    expect(ledgerLines(ledger)).to.have.length(1);

    const second = await runChild([db, ledger, 'normal', '3']);
    expect(second.out).to.include('pass 0 toy.confirmedPresent');
    expect(ledgerLines(ledger)).to.have.length(1);
    const store = await openStore(`sqlite:${db}`);
    const events = await store.readStream('toy-crash');
    await store.close();
    expect(events.map((e) => e.type)).to.deep.equal(['toy.armed', 'toy.submitted', 'toy.confirmedPresent']);
  });
});
