/**
 * The Nova upgrade's chaos invariants (./invariants/nova-jobs.ts) and the stand-in nova-manage's log
 * (./fixtures/fake-nova-bin.ts): each rule finds the violation it names in a small hand-made evidence, and nothing in
 * a clean one; the log parser pairs starts with ends per Job run and keeps a call without an end open.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedEvent } from '../../src/events/envelope.js';
import { checkInvariants } from './invariants/index.js';
import type { InvariantInput } from './invariants/types.js';
import type { SettleClaim } from './harness/scenarios/scenario.js';
import { parseNovaToolLog, readNovaToolLog, writeFakeNovaBin, type NovaToolCall } from './fixtures/fake-nova-bin.js';

const emptyCloud = { servers: [], volumes: [], loadBalancers: [], networks: [], securityGroups: [], projects: [] };
const T0 = Date.parse('2026-12-05T00:00:00Z');
const at = (s: number) => T0 + s * 1000;

const decision = (revision: number, s: number, effects: Array<Record<string, unknown>>, type = 'novaUpgrade.jobCreated'): RecordedEvent =>
  ({ id: `e${revision}`, stream: 'nova-database-u', revision, position: revision, type, data: {}, metadata: { machine: 'novaUpgrade', machineVersion: 1, schemaVersion: 1, source: 'reconciler', actor: 'reconciler/nova', correlationId: `c${revision}`, causationId: null, from: null, to: 'steady', effects, recordedAt: new Date(at(s)).toISOString() } }) as unknown as RecordedEvent;
const run = (job: string, uid: string, hash: string, from: number, to: number | undefined, exit = 0): NovaToolCall => ({ job: `nova-db-${job}`, uid, hash, command: 'nova-manage db sync', startedAt: at(from), ...(to === undefined ? {} : { endedAt: at(to), exit }) });
const claim = (s: number, release: string, ready = true): SettleClaim => ({ kind: 'Nova', name: 'nova', generation: 1, uid: 'u', spec: {}, status: { installedRelease: release, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] }, cloud: emptyCloud, at: at(s) });

/** A clean install then upgrade: sync, expand, migrate, contract each decided before it ran, claims after. */
const clean = () => ({
  events: [
    decision(0, 0, [{ type: 'nova.createJob', job: 'sync', hash: 'h1' }]),
    decision(1, 10, [{ type: 'nova.createJob', job: 'expand', hash: 'h2' }]),
    decision(2, 20, [{ type: 'nova.createJob', job: 'migrate', hash: 'h3' }]),
    decision(3, 30, [{ type: 'nova.createJob', job: 'contract', hash: 'h4' }]),
    decision(4, 40, [], 'novaUpgrade.contracted'),
  ],
  calls: [run('sync', 'u1', 'h1', 1, 2), run('expand', 'u2', 'h2', 11, 12), run('migrate', 'u3', 'h3', 21, 22), run('contract', 'u4', 'h4', 31, 32)],
  claims: [claim(5, '2025.1'), claim(45, '2025.2')],
});
const input = (over: { events?: RecordedEvent[]; calls?: NovaToolCall[]; claims?: SettleClaim[]; left?: string[]; jobsLeft?: string[]; deleted?: boolean } = {}): InvariantInput => {
  const base = clean();
  return {
    calls: [], logLines: [], secrets: [], divergences: [], cloud: emptyCloud, stuck: [], unexpectedExits: [], madeUpIds: [],
    events: over.events ?? base.events, claims: over.claims ?? base.claims,
    scenario: { nova: { name: 'nova', calls: over.calls ?? base.calls, left: over.left ?? [], jobsLeft: over.jobsLeft ?? [], deleted: over.deleted ?? false } },
  };
};
const found = (i: InvariantInput) => checkInvariants(i).map((v) => `${v.invariant}: ${v.detail}`);

describe('chaos invariants: the Nova upgrade', () => {
  it('a clean install and upgrade violates nothing', () => {
    expect(found(input())).to.deep.equal([]);
  });

  it('once: a Job of one hash that ran twice (a restart created it again)', () => {
    const { calls } = clean();
    expect(found(input({ calls: [...calls, run('contract', 'u5', 'h4', 33, 34)] }))).to.include.members(['one-destructive-per-decision: Job nova-db-contract h4 ran 2 times (uids u4, u5)']);
  });

  it('arm: a Job that started before the event that decided it was stored, or with no decision at all', () => {
    const { calls } = clean();
    const early = calls.map((c) => (c.job === 'nova-db-contract' ? { ...c, startedAt: at(29) } : c));
    expect(found(input({ calls: early })).some((v) => v.startsWith('destructive-after-arm: Job nova-db-contract h4 (uid u4) started'))).to.equal(true);
    expect(found(input({ calls: [...calls, run('contract', 'u9', 'h9', 50, 51)] }))).to.include('destructive-after-arm: Job nova-db-contract h9 ran 1 times but was decided 0 times');
  });

  it('dup: two runs of one Job name at once', () => {
    const { calls, events } = clean();
    const second = decision(5, 1, [{ type: 'nova.createJob', job: 'sync', hash: 'h0' }]);
    expect(found(input({ events: [...events, second], calls: [...calls, run('sync', 'u0', 'h0', 1.5, 3)] }))).to.include('no-duplicate-name: two runs of Job nova-db-sync at once (uids u1, u0)');
  });

  it('prov: Ready on a new release before its contract (or first db-sync) succeeded, Ready while a phase Job runs, leftovers after a settled delete', () => {
    const { calls } = clean();
    expect(found(input({ claims: [claim(5, '2025.1'), claim(30.5, '2025.2')] }))).to.include('no-false-provisioned: installedRelease 2025.2 claimed with no nova-db-contract that succeeded before it');
    const failed = calls.map((c) => (c.job === 'nova-db-contract' ? { ...c, exit: 1 } : c));
    expect(found(input({ calls: failed }))).to.include('no-false-provisioned: installedRelease 2025.2 claimed with no nova-db-contract that succeeded before it');
    expect(found(input({ claims: [claim(0.5, '2025.1')] }))).to.include('no-false-provisioned: installedRelease 2025.1 claimed with no nova-db-sync that succeeded before it');
    expect(found(input({ claims: [claim(5, '2025.1'), claim(11.5, '2025.1')] }))).to.include('no-false-provisioned: Ready claimed while nova-db-expand still ran');
    expect(found(input({ claims: [claim(5, '2025.1'), claim(11.5, '2025.1', false)] }))).to.deep.equal([]);
    expect(found(input({ deleted: true, left: ['schema regent_c1'] }))).to.include("no-false-provisioned: the Nova's deletion settled but MariaDB still holds schema regent_c1");
    expect(found(input({ deleted: true, jobsLeft: ['CronJob nova-db-archive'] }))).to.include("no-false-provisioned: the Nova's deletion settled but the local runner still holds CronJob nova-db-archive");
    expect(found(input({ deleted: false, left: ['schema regent_c1'], jobsLeft: ['Job nova-db-contract'] }))).to.deep.equal([]);
  });

  it('lost: a stream ending on a Job creation that never ran, or on a deletion of a Job still there; not when the Job did what was decided', () => {
    const { events, calls } = clean();
    const create = decision(5, 50, [{ type: 'nova.createJob', job: 'sync', hash: 'h5' }]);
    expect(found(input({ events: [...events, create] }))).to.include('no-lost-decision: nova-database-u ends on creating Job nova-db-sync (hash h5), which never ran');
    expect(found(input({ events: [...events, create], calls: [...calls, run('sync', 'u6', 'h5', 51, 52)] }))).to.deep.equal([]);
    const remove = decision(5, 50, [{ type: 'nova.deleteJobs', jobs: ['sync'], why: 'rendered from an older spec' }]);
    expect(found(input({ events: [...events, remove], jobsLeft: ['Job nova-db-sync'] }))).to.include('no-lost-decision: nova-database-u ends on deleting Job nova-db-sync, which is still there');
    expect(found(input({ events: [...events, remove] }))).to.deep.equal([]);
  });
});

describe('the stand-in nova-manage log', () => {
  it('pairs each start with its end per Job run and command; a call with no end stays open', () => {
    const text = ['start 1000 nova-db-sync u1 h1 nova-manage api_db sync', 'start 1001 nova-db-expand u2 h2 nova-manage db sync', 'end 1500 nova-db-sync u1 h1 0 nova-manage api_db sync', 'garbage line', ''].join('\n');
    expect(parseNovaToolLog(text)).to.deep.equal([
      { job: 'nova-db-sync', uid: 'u1', hash: 'h1', command: 'nova-manage api_db sync', startedAt: 1000, endedAt: 1500, exit: 0 },
      { job: 'nova-db-expand', uid: 'u2', hash: 'h2', command: 'nova-manage db sync', startedAt: 1001 },
    ]);
  });

  it('the scripts log their Job from $HOME/job.json and answer exit 99 to a command they do not know', () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-fake-nova-'));
    try {
      const { binDir, log } = writeFakeNovaBin(dir);
      const home = join(dir, 'nova-db-contract');
      mkdirSync(home);
      writeFileSync(join(home, 'job.json'), `${JSON.stringify({ version: 1, uid: 'job-uid-1', templateHash: 'abcd', owner: { uid: 'nova-uid' } }, null, 2)}\n`);
      execFileSync(join(binDir, 'nova-manage'), ['--config-file', '/x/nova.conf', 'db', 'online_data_migrations', '--max-count', '50'], { env: { HOME: home, PATH: process.env.PATH } });
      let code = 0;
      try {
        execFileSync(join(binDir, 'nova-manage'), ['cell_v2', 'delete_cell'], { env: { HOME: home, PATH: process.env.PATH } });
      } catch (error) {
        code = (error as { status: number }).status;
      }
      expect(code).to.equal(99);
      const calls = readNovaToolLog(log);
      expect(calls.map((c) => [c.job, c.uid, c.hash, c.command, c.exit])).to.deep.equal([
        ['nova-db-contract', 'job-uid-1', 'abcd', 'nova-manage db online_data_migrations --max-count 50', 0],
        ['nova-db-contract', 'job-uid-1', 'abcd', 'nova-manage cell_v2 delete_cell', 99],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
