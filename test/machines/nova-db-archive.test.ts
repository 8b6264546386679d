/** The Nova DBArchive step (machines/nova-db-archive.ts; nova-operator.md "DBArchive"; issue 14): A1–A4. */
import { expect } from 'chai';
import { novaDBArchiveDefinition as def, type NovaDBArchiveContext, type NovaDBArchiveStimulus } from '../../machines/nova-db-archive.js';
import { checkMachine } from '../../src/audit/checks/rules.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = 'nova-db-archive-uid-1';
type Observed = Extract<NovaDBArchiveStimulus, { type: 'archiveObserved' }>;
const observed = (over: Partial<Observed> = {}): Observed => ({ type: 'archiveObserved', source: 'reconciler', generation: 1, schedule: '0 2 * * *', desiredHash: 'h1', exists: true, suspended: false, newest: null, ...over });
const failedRun = { name: 'nova-db-archive-29', state: 'failed', finishedAt: '2026-12-01T03:00:00Z', message: 'DeadlineExceeded: Job was active longer than specified deadline' } as const;
const okRun = { name: 'nova-db-archive-30', state: 'succeeded', finishedAt: '2026-12-02T03:00:00Z' } as const;
const ensured = (hash = 'h1'): NovaDBArchiveStimulus => ({ type: 'cronJobEnsured', source: 'effect', hash });
const run = (...stimuli: NovaDBArchiveStimulus[]) => {
  let s = initialSnapshot(def, STREAM);
  let last = step(def, s, stimuli[0]!);
  for (const stimulus of stimuli) {
    last = step(def, s, stimulus);
    s = last.snapshot;
  }
  return { ...last, context: s.context as NovaDBArchiveContext };
};

describe('nova DBArchive machine (issue 14)', () => {
  it('A1 an absent CronJob is ensured, after the decision, with the hash it is rendered with', () => {
    const r = run(observed({ exists: false }));
    expect(r.effects).to.deep.equal([{ type: 'nova.ensureArchiveCronJob', hash: 'h1' }]);
  });
  it('A1 once ensured with the current hash, a pass ensures nothing; a changed spec (hash) ensures again', () => {
    expect(run(observed({ exists: false }), ensured(), observed()).effects).to.deep.equal([]);
    expect(run(observed({ exists: false }), ensured(), observed({ desiredHash: 'h2' })).effects).to.deep.equal([{ type: 'nova.ensureArchiveCronJob', hash: 'h2' }]);
  });
  it('A1 a CronJob deleted by hand is ensured again', () => {
    expect(run(observed({ exists: false }), ensured(), observed({ exists: false })).effects).to.have.length(1);
  });
  it('A3 the newest terminal run failed: DBArchiveReady=False / DBArchiveJobFailed, naming the run', () => {
    const r = run(observed({ exists: false }), ensured(), observed({ newest: failedRun }));
    expect(r.context.condition).to.include({ status: 'False', reason: 'DBArchiveJobFailed' });
    expect(r.context.condition?.message).to.contain('nova-db-archive-29').and.contain('DeadlineExceeded');
    expect(r.outcome).to.equal('runFailed');
  });
  it('A4 a later successful run flips it back to True / DBArchiveScheduled', () => {
    const r = run(observed({ exists: false }), ensured(), observed({ newest: failedRun }), observed({ newest: okRun }));
    expect(r.context.condition).to.include({ status: 'True', reason: 'DBArchiveScheduled' });
  });
  it('A4 no run has finished yet: True / DBArchiveScheduled saying so', () => {
    expect(run(observed({ exists: false }), ensured(), observed()).context.condition).to.deep.equal({ status: 'True', reason: 'DBArchiveScheduled', message: 'scheduled "0 2 * * *"; no run has finished yet' });
  });
  it('A2 the suspend arm outranks the failed arm, and the failure is still named in its message', () => {
    const r = run(observed({ exists: false }), ensured(), observed({ suspended: true, newest: failedRun }));
    expect(r.context.condition).to.include({ status: 'True', reason: 'DBArchiveSuspended' });
    expect(r.context.condition?.message).to.contain('nova-db-archive-29');
  });
  it('polling the same observation stores nothing', () => {
    const s = run(observed({ exists: false }), ensured(), observed({ newest: okRun }));
    expect(step(def, s.snapshot, observed({ newest: okRun })).changed).to.equal(false);
  });
  it("passes regent check's static checks", () => {
    expect(checkMachine(def).results.filter((r) => r.status === 'fail')).to.deep.equal([]);
  });
});
