/**
 * The Nova Database step's release tracking (machines/nova-upgrade.ts; nova-operator.md "Database", "The cells
 * sequence", "Release upgrade"; issue 14): one test per rule (NU1–NU10, labels as in the machine), then
 * model-based checks over every edge reachable with the machine's alphabet (xstate/graph), with oracles
 * written from the spec's sentences.
 */
import { expect } from 'chai';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { transition, type AnyMachineSnapshot } from 'xstate';
import { novaUpgradeDefinition as def, novaUpgradeAlphabet, upgradePhaseOf, type NovaPass, type NovaUpgradeContext, type NovaUpgradeStimulus } from '../../machines/nova-upgrade.js';
import { checkMachine } from '../../src/audit/checks/rules.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = 'nova-database-uid-1';
const hashes = { sync: 'hs', expand: 'he', migrate: 'hm', contract: 'hc' };
const none = { sync: null, expand: null, migrate: null, contract: null };
type Jobs = Partial<NovaPass['jobs']>;
const running = (hash: string) => ({ hash, state: 'running' as const });
const succeeded = (hash: string) => ({ hash, state: 'succeeded' as const });
const failed = (hash: string, message = 'exit code 2') => ({ hash, state: 'failed' as const, message });
const cells = [
  { name: 'cell0', uuid: '00000000-0000-0000-0000-000000000000' },
  { name: 'cell1', uuid: '2b6e3f4c-1111-4000-8000-000000000001' },
];

const pass = (release: string, jobs: Jobs = {}, extra: Partial<NovaPass> = {}): NovaPass => ({
  type: 'pass',
  source: 'reconciler',
  generation: 1,
  release,
  image: `ghcr.io/c5c3/nova:${release}`,
  blocked: null,
  hashes,
  jobs: { ...none, ...jobs },
  report: jobs.sync?.state === 'succeeded' ? { kind: 'cells', cells } : null,
  rollout: null,
  ...extra,
});
const rolled = (...states: boolean[]) => states.map((rolledOut, i) => ({ role: ['conductor', 'scheduler', 'metadata', 'novncproxy', 'api'][i]!, rolledOut, detail: rolledOut ? 'rolled out' : '1 of 2 replicas updated' }));

const run = (...stimuli: NovaUpgradeStimulus[]): AnyMachineSnapshot => {
  let s = initialSnapshot(def, STREAM);
  for (const stimulus of stimuli) s = step(def, s, stimulus).snapshot;
  return s;
};
const decide = (from: AnyMachineSnapshot, stimulus: NovaUpgradeStimulus) => {
  const r = step(def, from, stimulus);
  const context = r.snapshot.context as NovaUpgradeContext;
  return { value: r.snapshot.value, outcome: r.outcome, changed: r.changed, effects: r.effects, reason: context.condition?.reason, context, snapshot: r.snapshot };
};

/** Installed at 2025.1, cells published. */
const installed = () => run(pass('2025.1'), pass('2025.1', { sync: succeeded('hs') }));
/** An upgrade to 2025.2 in the given phase. */
const inPhase = (phase: 'expanding' | 'migrating' | 'rollingUpdate' | 'contracting'): AnyMachineSnapshot => {
  const steps: NovaUpgradeStimulus[] = [pass('2025.2')];
  if (phase !== 'expanding') steps.push(pass('2025.2', { expand: succeeded('he') }));
  if (phase === 'rollingUpdate' || phase === 'contracting') steps.push(pass('2025.2', { migrate: succeeded('hm') }));
  if (phase === 'contracting') steps.push(pass('2025.2', {}, { rollout: rolled(true, true, true, true, true) }));
  let s = installed();
  for (const stimulus of steps) s = step(def, s, stimulus).snapshot;
  expect(s.value).to.equal(phase);
  return s;
};

describe('nova upgrade machine (issue 14)', () => {
  describe('NU10 steady: the db-sync Job', () => {
    it('a fresh Nova creates the db-sync Job with the hash it would render now', () => {
      const d = decide(initialSnapshot(def, STREAM), pass('2025.1'));
      expect(d.effects).to.deep.equal([{ type: 'nova.createJob', job: 'sync', hash: 'hs' }]);
      expect(d.reason).to.equal('DBSyncInProgress');
      expect(d.context.installedRelease).to.equal(null);
    });
    it('its success promotes installedRelease and publishes the cells from its report: DatabaseSynced', () => {
      const d = decide(run(pass('2025.1')), pass('2025.1', { sync: succeeded('hs') }));
      expect(d.context.installedRelease).to.equal('2025.1');
      expect(d.context.cells).to.deep.equal(cells);
      expect(d.context.condition).to.include({ status: 'True', reason: 'DatabaseSynced' });
    });
    it('an unreadable report keeps the published cells and says so (CellsReportUnavailable)', () => {
      const d = decide(installed(), pass('2025.1', { sync: succeeded('hs2') }, { hashes: { ...hashes, sync: 'hs2' }, report: { kind: 'unreadable', message: 'no pod of this Job left a message' } }));
      expect(d.context.cells).to.deep.equal(cells);
      expect(d.context.reportUnavailable).to.equal('no pod of this Job left a message');
      expect(d.reason).to.equal('DatabaseSynced');
    });
    it('a later pass that does not read the report again keeps the cells and decides nothing', () => {
      const s = installed();
      const again = decide(s, pass('2025.1', { sync: succeeded('hs') }, { report: null }));
      expect(again.changed).to.equal(false);
      expect(again.context.cells).to.deep.equal(cells);
    });
    it('failed with the same hash is permanent until the spec changes: DBSyncFailed, no Job created', () => {
      const s = run(pass('2025.1'));
      const d = decide(s, pass('2025.1', { sync: failed('hs', 'exit code 1: nova-manage api_db sync failed') }));
      expect(d.reason).to.equal('DBSyncFailed');
      expect(d.context.condition?.message).to.contain('exit code 1');
      expect(d.effects).to.deep.equal([]);
      expect(decide(d.snapshot, pass('2025.1', { sync: failed('hs', 'exit code 1: nova-manage api_db sync failed') })).changed, 'polling stores nothing').to.equal(false);
    });
    it('failed or complete with a changed hash is deleted (and re-created on the next pass)', () => {
      for (const observed of [failed('old'), succeeded('old')]) {
        const d = decide(installed(), pass('2025.1', { sync: observed }));
        expect(d.effects).to.deep.equal([{ type: 'nova.deleteJobs', jobs: ['sync'], why: 'rendered from an older spec' }]);
      }
    });
    it('a synced release stays DatabaseSynced while the db-sync Job runs again for a changed spec; its failure is DBSyncFailed', () => {
      const changed = { hashes: { ...hashes, sync: 'hs2' } };
      const replaced = decide(installed(), pass('2025.1', { sync: succeeded('hs') }, changed));
      expect(replaced.context.condition).to.include({ status: 'True', reason: 'DatabaseSynced' });
      const created = decide(replaced.snapshot, pass('2025.1', {}, changed));
      expect(created.effects).to.deep.equal([{ type: 'nova.createJob', job: 'sync', hash: 'hs2' }]);
      expect(created.context.condition).to.include({ status: 'True' });
      expect(decide(created.snapshot, pass('2025.1', { sync: failed('hs2') }, changed)).context.condition).to.include({ status: 'False', reason: 'DBSyncFailed' });
    });
    it('a first install is DBSyncInProgress until its db-sync completes', () => {
      expect(decide(run(pass('2025.1')), pass('2025.1', { sync: running('hs') })).context.condition).to.include({ status: 'False', reason: 'DBSyncInProgress' });
    });
    it('a running Job of an older spec is not killed: it finishes first', () => {
      const d = decide(run(pass('2025.1')), pass('2025.1', { sync: running('old') }));
      expect(d.effects).to.deep.equal([]);
      expect(d.reason).to.equal('DBSyncInProgress');
    });
  });

  describe('initiation', () => {
    it('NU5 a sequential bump with the image in lockstep: target := spec release, Expanding, ExpandInProgress', () => {
      const d = decide(installed(), pass('2025.2', { sync: succeeded('hs') }));
      expect(d.value).to.equal('expanding');
      expect(d.context.target).to.equal('2025.2');
      expect(d.context.installedRelease).to.equal('2025.1');
      expect(d.reason).to.equal('ExpandInProgress');
      expect(d.outcome).to.equal('upgradeStarted');
    });
    for (const [release, reason] of [
      ['2024.2', 'DowngradeNotSupported'],
      ['2026.2', 'UpgradePathInvalid'],
      ['2026.1', 'UpgradePathInvalid'],
    ] as const) {
      it(`NU4 ${release} from 2025.1 is refused with ${reason}; the upgrade state stays untouched`, () => {
        const d = decide(installed(), pass(release));
        expect(d.value).to.equal('steady');
        expect(d.context.target).to.equal(null);
        expect(d.context.installedRelease).to.equal('2025.1');
        expect(d.context.condition).to.include({ status: 'False', reason });
        expect(d.effects).to.deep.equal([]);
      });
    }
    it('NU4 an unparseable installed release is a VersionParseError', () => {
      const s = installed();
      (s.context as NovaUpgradeContext).installedRelease = 'zed';
      const d = decide(s, pass('2025.2'));
      expect(d.reason).to.equal('VersionParseError');
      expect(d.value).to.equal('steady');
    });
    it('NU3 a release bump whose image tag names another release is ImageReleaseMismatch: no Job, no upgrade', () => {
      const d = decide(installed(), pass('2025.2', {}, { image: 'ghcr.io/c5c3/nova:2025.1' }));
      expect(d.reason).to.equal('ImageReleaseMismatch');
      expect(d.value).to.equal('steady');
      expect(d.effects).to.deep.equal([]);
    });
    it('NU3 a digest-pinned image carries no comparable release and is left to spec.openStackRelease', () => {
      const d = decide(installed(), pass('2025.2', {}, { image: 'ghcr.io/c5c3/nova@sha256:' + 'a'.repeat(64) }));
      expect(d.value).to.equal('expanding');
    });
    it('NU3 a patch suffix still matches its release', () => {
      expect(decide(installed(), pass('2025.2', {}, { image: 'ghcr.io/c5c3/nova:2025.2-p1' })).value).to.equal('expanding');
    });
    it('NU2 a missing prerequisite blocks before lockstep and release tracking', () => {
      const d = decide(installed(), pass('2025.2', {}, { blocked: { reason: 'WaitingForConfig', message: 'no transport URL' }, image: 'x/nova:2025.1' }));
      expect(d.context.condition).to.deep.equal({ status: 'False', reason: 'WaitingForConfig', message: 'no transport URL' });
      expect(d.value).to.equal('steady');
      expect(d.effects).to.deep.equal([]);
    });
  });

  describe('the phases', () => {
    it('NU7 Expanding creates {name}-db-expand, Migrating {name}-db-migrate, Contracting {name}-db-contract', () => {
      expect(decide(inPhase('expanding'), pass('2025.2')).effects).to.deep.equal([{ type: 'nova.createJob', job: 'expand', hash: 'he' }]);
      expect(decide(inPhase('migrating'), pass('2025.2')).effects).to.deep.equal([{ type: 'nova.createJob', job: 'migrate', hash: 'hm' }]);
      expect(decide(inPhase('contracting'), pass('2025.2')).effects).to.deep.equal([{ type: 'nova.createJob', job: 'contract', hash: 'hc' }]);
    });
    it('NU7 in-progress and failed reasons come from the phase; a failed Job keeps the phase', () => {
      for (const [phase, job, inProgress, failure] of [
        ['expanding', 'expand', 'ExpandInProgress', 'ExpandFailed'],
        ['migrating', 'migrate', 'MigrateInProgress', 'MigrateFailed'],
        ['contracting', 'contract', 'ContractInProgress', 'ContractFailed'],
      ] as const) {
        const s = inPhase(phase);
        expect(decide(s, pass('2025.2', { [job]: running(hashes[job]) })).reason).to.equal(inProgress);
        const f = decide(s, pass('2025.2', { [job]: failed(hashes[job]) }));
        expect(f.reason, phase).to.equal(failure);
        expect(f.value).to.equal(phase);
        expect(f.effects).to.deep.equal([]);
        expect(f.outcome).to.equal(`${job}Failed`);
        // polling the same failure decides nothing new
        expect(decide(f.snapshot, pass('2025.2', { [job]: failed(hashes[job]) })).changed).to.equal(false);
        // a changed spec (new hash) replaces the failed Job
        expect(decide(f.snapshot, pass('2025.2', { [job]: failed(hashes[job]) }, { hashes: { ...hashes, [job]: 'new' } })).effects[0]).to.include({ type: 'nova.deleteJobs' });
      }
    });
    it('NU8 RollingUpdate runs no Job and waits while any rendered role has not rolled out', () => {
      const s = inPhase('rollingUpdate');
      const d = decide(s, pass('2025.2', {}, { rollout: rolled(true, true, true, false, true) }));
      expect(d.value).to.equal('rollingUpdate');
      expect(d.effects).to.deep.equal([]);
      expect(d.reason).to.equal('UpgradeRollingUpdate');
      expect(d.context.condition?.message).to.contain('novncproxy');
      expect(decide(s, pass('2025.2')).value, 'no rollout read: not rolled out').to.equal('rollingUpdate');
    });
    it('NU8 flips to Contracting once every rendered role rolled out', () => {
      const d = decide(inPhase('rollingUpdate'), pass('2025.2', {}, { rollout: rolled(true, true, true, true) }));
      expect(d.value).to.equal('contracting');
      expect(d.reason).to.equal('ContractInProgress');
    });
    it('NU9 the contract done promotes installedRelease, DatabaseSynced, and stamps the non-API roles', () => {
      const d = decide(inPhase('contracting'), pass('2025.2', { contract: succeeded('hc') }));
      expect(d.value).to.equal('steady');
      expect(d.context.installedRelease).to.equal('2025.2');
      expect(d.context.target).to.equal(null);
      expect(d.context.condition).to.include({ status: 'True', reason: 'DatabaseSynced' });
      expect(d.effects).to.deep.equal([{ type: 'nova.stampInstalledRelease', release: '2025.2' }]);
      const stamped = decide(d.snapshot, { type: 'rolesStamped', source: 'effect', release: '2025.2', roles: ['conductor'] });
      expect(stamped.context.stampPending).to.equal(null);
    });
    it('NU9 a stamp whose result was lost is declared again by a later pass', () => {
      const s = decide(inPhase('contracting'), pass('2025.2', { contract: succeeded('hc') })).snapshot;
      const again = decide(s, pass('2025.2', { sync: succeeded('hs') }));
      expect(again.effects).to.deep.equal([{ type: 'nova.stampInstalledRelease', release: '2025.2' }]);
    });
    it('NU6 a third release mid-upgrade: UpgradeTargetChanged and nothing else; going back continues', () => {
      const s = inPhase('migrating');
      const d = decide(s, pass('2026.1'));
      expect(d.reason).to.equal('UpgradeTargetChanged');
      expect(d.value).to.equal('migrating');
      expect(d.context.target).to.equal('2025.2');
      expect(d.effects).to.deep.equal([]);
      const back = decide(d.snapshot, pass('2025.2'));
      expect(back.effects).to.deep.equal([{ type: 'nova.createJob', job: 'migrate', hash: 'hm' }]);
    });
    it('NU3 lockstep freezes the phase mid-upgrade', () => {
      const d = decide(inPhase('expanding'), pass('2025.2', {}, { image: 'ghcr.io/c5c3/nova:2025.1' }));
      expect(d.reason).to.equal('ImageReleaseMismatch');
      expect(d.value).to.equal('expanding');
      expect(d.effects).to.deep.equal([]);
    });
  });

  describe('NU1 abort', () => {
    for (const phase of ['expanding', 'migrating', 'rollingUpdate', 'contracting'] as const) {
      it(`from ${phase}: the phase Jobs are deleted, then phase and target cleared`, () => {
        const s = inPhase(phase);
        const present = { expand: succeeded('he'), migrate: running('hm') };
        const d = decide(s, pass('2025.1', present));
        expect(d.effects).to.deep.equal([{ type: 'nova.deleteJobs', jobs: ['expand', 'migrate'], why: 'the upgrade is aborted' }]);
        expect(d.value, 'kept until the deletes are seen').to.equal(phase);
        expect(d.context.target).to.equal('2025.2');
        // a failed delete leaves the Jobs: the next pass deletes again
        expect(decide(d.snapshot, pass('2025.1', present)).effects[0]).to.include({ type: 'nova.deleteJobs' });
        const gone = decide(d.snapshot, pass('2025.1'));
        expect(gone.value).to.equal('steady');
        expect(gone.context.target).to.equal(null);
        expect(gone.context.installedRelease).to.equal('2025.1');
      });
    }
    it('stays reachable while the image is mismatched or a prerequisite is missing', () => {
      const s = inPhase('migrating');
      expect(decide(s, pass('2025.1', {}, { image: 'ghcr.io/c5c3/nova:2025.2' })).value).to.equal('steady');
      expect(decide(s, pass('2025.1', {}, { blocked: { reason: 'ClusterNotReady', message: 'down' } })).value).to.equal('steady');
    });
  });

  describe('model-based, over every reachable edge', () => {
    type Edge = { state: AnyMachineSnapshot; event: NovaUpgradeStimulus; nextState: AnyMachineSnapshot; actions: Array<{ type: string; params?: unknown }> };
    let edges: Edge[] = [];
    before(() => {
      const machine = def.machine;
      const map = getAdjacencyMap(machine, { events: novaUpgradeAlphabet() as never, serializeState: (s) => def.audit?.stateKey?.(s as AnyMachineSnapshot) ?? '', serializeEvent: (e) => JSON.stringify(e) });
      edges = (adjacencyMapToArray(map) as unknown as Edge[]).map((e) => ({ ...e, actions: (transition(machine, e.state as never, e.event as never) as unknown as [unknown, Edge['actions']])[1] }));
    });
    const ctx = (s: AnyMachineSnapshot) => s.context as NovaUpgradeContext;
    const jobsCreated = (e: Edge) => e.actions.filter((a) => a.type === 'nova.createJob').map((a) => (a.params as { job: string }).job);

    it('explores every phase, the promotion and an abort', () => {
      const values = new Set(edges.map((e) => e.nextState.value));
      for (const v of ['steady', 'expanding', 'migrating', 'rollingUpdate', 'contracting']) expect([...values]).to.include(v);
      expect(edges.some((e) => e.state.value === 'contracting' && e.nextState.value === 'steady')).to.equal(true);
      expect(edges.some((e) => e.state.value !== 'steady' && e.nextState.value === 'steady' && ctx(e.nextState).installedRelease === ctx(e.state).installedRelease)).to.equal(true);
    });
    it('no path runs Contracting before every role rolled out', () => {
      for (const e of edges) {
        if (e.nextState.value === 'contracting' && e.state.value !== 'contracting') {
          expect(e.state.value).to.equal('rollingUpdate');
          const p = e.event as NovaPass;
          expect(p.rollout && p.rollout.length > 0 && p.rollout.every((r) => r.rolledOut), JSON.stringify(p.rollout)).to.equal(true);
        }
        if (jobsCreated(e).includes('contract')) expect(e.state.value).to.equal('contracting');
      }
    });
    it('no path promotes installedRelease mid-upgrade without a completed contract', () => {
      let promotions = 0;
      for (const e of edges) {
        const before = ctx(e.state).installedRelease;
        const after = ctx(e.nextState).installedRelease;
        if (before === null || before === after) continue;
        promotions++;
        const p = e.event as NovaPass;
        if (e.state.value === 'steady') {
          // a steady promotion is the db-sync of the same release line: never a release bump past an upgrade
          expect(p.jobs.sync).to.deep.include({ state: 'succeeded', hash: p.hashes.sync });
          expect(after).to.equal(before, 'steady never changes an installed release');
        } else {
          expect(e.state.value).to.equal('contracting');
          expect(p.jobs.contract).to.deep.include({ state: 'succeeded', hash: p.hashes.contract });
          expect(after).to.equal(ctx(e.state).target);
        }
      }
      expect(promotions).to.be.greaterThan(0);
    });
    it('abort is reachable from every state: reverting the spec to the installed release ends the upgrade', () => {
      const states = new Map<string, AnyMachineSnapshot>();
      for (const e of edges) states.set(def.audit!.stateKey!(e.nextState), e.nextState);
      let checked = 0;
      for (const s of states.values()) {
        const c = ctx(s);
        if (c.target === null || c.installedRelease === null) continue;
        checked++;
        const back = step(def, s, pass(c.installedRelease, {}, { image: 'ghcr.io/c5c3/nova@sha256:' + 'b'.repeat(64) })).snapshot;
        expect(back.value, JSON.stringify(s.value)).to.equal('steady');
        expect(ctx(back).target).to.equal(null);
      }
      expect(checked).to.be.greaterThan(3);
    });
    it('a mismatched image or a missing prerequisite never creates a Job', () => {
      for (const e of edges) {
        const p = e.event as NovaPass;
        if (p.type !== 'pass') continue;
        const mismatched = !p.image.endsWith(`:${p.release}`);
        if (p.blocked !== null || mismatched) expect(jobsCreated(e), JSON.stringify(p)).to.deep.equal([]);
      }
    });
    it('at most one Job decision per pass, and only reconciler passes decide one', () => {
      for (const e of edges) {
        const jobs = e.actions.filter((a) => a.type === 'nova.createJob' || a.type === 'nova.deleteJobs');
        expect(jobs.length).to.be.at.most(1);
        if (jobs.length > 0) expect(e.event.source).to.equal('reconciler');
      }
    });
    it('every phase reads upgradePhase from its state', () => {
      expect(upgradePhaseOf('steady')).to.equal(null);
      expect(upgradePhaseOf('rollingUpdate')).to.equal('RollingUpdate');
    });
    it("passes regent check's static checks", () => {
      const report = checkMachine(def);
      const failedChecks = report.results.filter((r) => r.status === 'fail');
      expect(failedChecks, JSON.stringify(failedChecks)).to.deep.equal([]);
    });
  });
});
