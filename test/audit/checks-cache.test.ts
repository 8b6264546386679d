/**
 * Issue 30, "Fast and linked": a machine page never waits for the static checks (src/audit/checks/cache.ts).
 * What it shows is known (explored by this process, or kept on the shelf by an earlier one) or said to be
 * running — never passed; a kept report is used only for the machine it was made for (its fingerprint), and a
 * torn or foreign file on the shelf is ignored. No timings: explorations are counted (rules.ts
 * explorationsStarted), and a running exploration is held still by faking setTimeout (its pause between slices).
 */
import { expect } from 'chai';
import sinon from 'sinon';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryEventStore } from '../../src/store/memory.js';
import { MachineRegistry } from '../../machines/registry.js';
import type { MachineDefinition } from '../../machines/definition.js';
import { identityLifecycleDefinition } from '../../machines/identity-lifecycle.js';
import { regionConnectionDefinition } from '../../machines/region-connection.js';
import { serverLifecycleDefinition } from '../../machines/server-lifecycle.js';
import { serverRebuildDefinition, serverRebuildMachine } from '../../machines/server-rebuild.js';
import { serverRebuildAudit, serverRebuildCoreAlphabet } from '../../machines/server-rebuild/audit.js';
import { monitorRetreats } from './fixtures/broken-machines.js';
import { createAuditRoutes, type AuditHandler } from '../../src/audit/web/routes.js';
import { checksKey, createMachineChecks, parseChecks, serializeChecks, type ChecksState } from '../../src/audit/checks/cache.js';
import { explorationsStarted, type MachineCheckReport } from '../../src/audit/checks/rules.js';
import { directoryShelf, memoryShelf } from '../../src/audit/history/shelf.js';
import { createSvgCache, svgKey } from '../../src/audit/graph/svg-cache.js';
import { toDot } from '../../src/audit/graph/dot.js';
import { statechartOfDefinition } from '../../src/audit/graph/statechart.js';

/** A copy: another object (nothing this process cached for it by identity), the same machine (the same fingerprint). */
const fresh = (definition: MachineDefinition): MachineDefinition => ({ ...definition });

/** serverRebuild v93 as the product has it (every check passes), and the fixture that breaks it under the same id and version. */
const sound93 = (): MachineDefinition => ({ ...serverRebuildDefinition, audit: { ...serverRebuildAudit, alphabet: serverRebuildCoreAlphabet }, version: 93, machine: serverRebuildMachine, description: 'v93 as the product has it' });

/** One GET through the audit handler, without a socket. */
const get = async (handler: AuditHandler, path: string): Promise<{ status: number; type: string; body: string }> => {
  const reply = { status: 0, type: '', body: '' };
  const res = {
    writeHead: (status: number, headers: Record<string, string>) => Object.assign(reply, { status, type: headers['content-type'] ?? '' }),
    end: (body?: string) => void (reply.body = body ?? ''),
  } as unknown as ServerResponse;
  const handled = await handler({ url: path, method: 'GET' } as IncomingMessage, res);
  expect(handled, path).to.equal(true);
  return reply;
};

const until = async (what: string, done: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`not done: ${what}`);
};

const statuses = (report: MachineCheckReport) => Object.fromEntries(report.results.map((r) => [r.id, r.status]));

describe('audit checks: kept across restarts, keyed by the machine, running said so (issue 30)', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-checks-cache-'));
  });
  afterEach(() => {
    sinon.restore();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a kept report is keyed by the machine\'s fingerprint: a changed machine under the same id and version is checked afresh', async () => {
    const shelf = directoryShelf(dir);
    const sound = sound93();
    const broken = fresh(monitorRetreats);
    expect(broken.id).to.equal(sound.id);
    expect(broken.version).to.equal(sound.version);

    const first = createMachineChecks({ shelf });
    const passed = await first.report(sound);
    expect(Object.values(statuses(passed))).to.deep.equal(['pass', 'pass', 'pass', 'pass', 'pass']);

    // a restarted server whose machine changed: the kept "pass" is not its report
    const restarted = createMachineChecks({ shelf });
    const before = explorationsStarted();
    expect((await restarted.state(broken)).status).to.equal('running');
    const changed = await restarted.report(broken);
    expect(explorationsStarted() - before, 'explored afresh').to.equal(1);
    expect(statuses(changed)['no-rank-retreat']).to.equal('fail');
    // and the sound machine still reads its own report back, unexplored
    const again = explorationsStarted();
    expect(JSON.stringify(await createMachineChecks({ shelf }).state(fresh(sound)))).to.equal(JSON.stringify({ status: 'done', report: passed }));
    expect(explorationsStarted()).to.equal(again);
    expect(checksKey(broken)).to.not.equal(checksKey(sound));
  });

  it('a torn, foreign or forged file on the shelf is ignored and the machine explored', async () => {
    const shelf = memoryShelf();
    const identity = fresh(identityLifecycleDefinition);
    const key = checksKey(identity);
    const report = await createMachineChecks().report(identity);
    const text = serializeChecks(key, report);
    expect(JSON.stringify(parseChecks(text, key, identity))).to.equal(JSON.stringify(report));

    const region = fresh(regionConnectionDefinition);
    const forgedPass: MachineCheckReport = { ...report, machine: region.id, version: region.version };
    const cases: Array<[string, string]> = [
      ['torn', text.slice(0, Math.floor(text.length / 2))],
      ['not JSON at all', '\u0000\u0001garbage'],
      ['another format', JSON.stringify({ ...JSON.parse(text), format: 0 })],
      ["another machine's file (identity's report where regionConnection's is kept)", text],
      ["a report filed under regionConnection's key but naming identity", serializeChecks(checksKey(region), report)],
      ['a report of regionConnection written under another fingerprint (a copied file, or a machine that changed)', serializeChecks(checksKey(region).replace(/[0-9a-f]+$/, '000000000000000000000000'), forgedPass)],
      ['a report under the right key with a result that is not a check', serializeChecks(checksKey(region), { ...forgedPass, results: [{ ...(forgedPass.results[0] as MachineCheckReport['results'][number]), status: 'maybe' as never }] })],
      ['a report with no results', serializeChecks(checksKey(region), { ...forgedPass, results: [] })],
    ];
    for (const [what, bad] of cases) {
      await shelf.write(checksKey(region), bad);
      const checks = createMachineChecks({ shelf });
      const before = explorationsStarted();
      const definition = fresh(region);
      expect(await checks.state(definition), what).to.deep.equal({ status: 'running' });
      expect(explorationsStarted() - before, `${what}: explored`).to.equal(1);
      expect((await checks.report(definition)).machine, what).to.equal('regionConnection');
    }

    // and a well-formed file under that key is read back (the control: each case above spoils one thing)
    await shelf.write(checksKey(region), serializeChecks(checksKey(region), forgedPass));
    expect((await createMachineChecks({ shelf }).state(fresh(region))).status).to.equal('done');

    // the same on disk: a torn file where the directory shelf keeps the key
    const disk = directoryShelf(dir);
    await disk.write(key, text);
    const [file] = readdirSync(dir);
    writeFileSync(join(dir, file as string), text.slice(0, 40));
    const fromDisk = createMachineChecks({ shelf: disk });
    expect(await fromDisk.state(fresh(identity))).to.deep.equal({ status: 'running' });
    await fromDisk.report(fresh(identity)); // explored again (and kept) before the directory goes
  });

  it('a machine page served while its checks run says so, lists every check as running and none as passed; then shows them', async () => {
    // the exploration pauses on setTimeout between slices (explore.ts backgroundTurn): faked, it holds still
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const lifecycle = fresh(serverLifecycleDefinition);
    const audit = createAuditRoutes({ store: new MemoryEventStore(), registry: new MachineRegistry([lifecycle]), warmChecks: false });
    const before = explorationsStarted();

    const page = await get(audit, '/machines/serverLifecycle');
    expect(page.status).to.equal(200);
    expect(explorationsStarted() - before, 'the page started the exploration').to.equal(1);
    expect(page.body).to.include('data-checks="running"');
    expect(page.body).to.include('checks running…');
    expect(page.body).to.include(`data-src="/api/machines/serverLifecycle/checks?version=${lifecycle.version}"`);
    expect(page.body.match(/class="verdict running muted">running…</g) ?? []).to.have.length(5);
    expect(page.body).to.not.match(/>pass</);
    expect(page.body).to.not.include('verdict ok');
    expect(page.body).to.include('<svg');

    const running = JSON.parse((await get(audit, '/api/machines/serverLifecycle/checks')).body) as ChecksState & { html: string };
    expect(running.status).to.equal('running');
    expect(running).to.not.have.property('report');
    expect(running.html).to.include('data-checks="running"').and.not.match(/>pass</);
    expect(explorationsStarted() - before, 'one exploration for both').to.equal(1);

    // let it run to its end
    for (let i = 0; i < 10_000 && JSON.parse((await get(audit, '/api/machines/serverLifecycle/checks')).body).status === 'running'; i++) await clock.tickAsync(1);
    const done = JSON.parse((await get(audit, '/api/machines/serverLifecycle/checks')).body) as { status: string; report: MachineCheckReport; html: string };
    expect(done.status).to.equal('done');
    expect(done.html).to.include('data-checks="done"').and.include(`${done.report.states} states`);
    const after = await get(audit, '/machines/serverLifecycle');
    expect(after.body).to.include('data-checks="done"').and.not.include('checks running');
    expect(explorationsStarted() - before).to.equal(1);
  });

  it('a restarted server reads the kept checks: its first machine page explores nothing and shows the results', async () => {
    const shelf = () => directoryShelf(join(dir, 'regent.db.audit-checkpoints'));
    const first = createAuditRoutes({ store: new MemoryEventStore(), registry: new MachineRegistry([fresh(identityLifecycleDefinition)]), checkpoints: shelf(), warmChecks: false });
    expect(JSON.parse((await get(first, '/api/machines/identityLifecycle/checks')).body).status).to.equal('running');
    await until('the first server checked identityLifecycle', async () => JSON.parse((await get(first, '/api/machines/identityLifecycle/checks')).body).status === 'done');
    const firstPage = await get(first, '/machines/identityLifecycle');

    // "restart": new routes, a new registry of new definition objects, the same directory
    const definition = fresh(identityLifecycleDefinition);
    const restarted = createAuditRoutes({ store: new MemoryEventStore(), registry: new MachineRegistry([definition]), checkpoints: shelf(), warmChecks: false });
    const before = explorationsStarted();
    const page = await get(restarted, '/machines/identityLifecycle');
    expect(explorationsStarted(), 'nothing explored').to.equal(before);
    expect(page.body).to.include('data-checks="done"').and.match(/>pass</).and.not.include('checks running');
    expect(page.body).to.equal(firstPage.body);
    const api = JSON.parse((await get(restarted, '/api/machines/identityLifecycle/checks')).body) as { status: string };
    expect(api.status).to.equal('done');
    expect(explorationsStarted()).to.equal(before);
  });

  it('a statechart layout is kept under its DOT text: read back after a restart, a torn or foreign one laid out again', async () => {
    const shelf = memoryShelf();
    const dot = toDot(statechartOfDefinition(identityLifecycleDefinition));
    const cache = createSvgCache(shelf);
    expect(cache.known(dot)).to.equal(undefined);
    const laidOut = await cache.svg(dot);
    expect(laidOut).to.include('<svg');
    expect(cache.known(dot)).to.equal(laidOut);
    expect(await shelf.read(svgKey(dot))).to.be.a('string');
    // what is kept is what a restarted server answers (a marked copy proves it was read, not laid out again)
    const marked = laidOut.replace('<svg', '<svg data-kept="yes"');
    await shelf.write(svgKey(dot), JSON.stringify({ format: 1, key: svgKey(dot), svg: marked }));
    expect(await createSvgCache(shelf).svg(dot)).to.equal(marked);
    expect(await createSvgCache(shelf).inline(dot)).to.match(/^<svg data-kept="yes"/);
    // another drawing (other DOT text) is another key: never the kept one
    const other = toDot(statechartOfDefinition(serverLifecycleDefinition));
    expect(svgKey(other)).to.not.equal(svgKey(dot));
    for (const bad of [JSON.stringify({ format: 1, key: svgKey(other), svg: marked }), JSON.stringify({ format: 1, key: svgKey(dot), svg: marked.slice(0, 200) }), marked.slice(0, 100)]) {
      await shelf.write(svgKey(dot), bad);
      expect(await createSvgCache(shelf).svg(dot)).to.equal(laidOut);
    }
  });
});
