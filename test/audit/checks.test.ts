/**
 * Static checks over each machine's reachable graph: the product machine passes every check, and each
 * deliberately broken version fails exactly the check for the rule it breaks, with a shortest
 * counterexample whose stimuli really lead there when replayed.
 *
 * `regent check` as a command over the whole product registry is in checks.scale.ts (`npm run test:scale`).
 */
import { expect } from 'chai';
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import { checkMachine, type CheckId, type MachineCheckReport } from '../../src/audit/checks/rules.js';
import { formatCheckReport } from '../../src/audit/checks/format.js';
import { productMachines } from '../../machines/index.js';
import { serverRebuildDefinition } from '../../machines/server-rebuild.js';
import type { MachineDefinition } from '../../machines/definition.js';
import { armAndSubmitTogether, monitorArms, monitorRetreats, monitorSubmits, orphanState } from './fixtures/broken-machines.js';
import { toyDefinition } from '../fixtures/toy-machine.js';

const result = (report: MachineCheckReport, id: CheckId) => report.results.find((r) => r.id === id);
const failing = (report: MachineCheckReport) => report.results.filter((r) => r.status === 'fail').map((r) => r.id);

/** Replays a counterexample's stimuli from the initial state and returns the last step's before/after snapshots. */
const replayPath = (definition: MachineDefinition, events: readonly { type: string }[]) => {
  let [snapshot] = initialTransition(definition.machine, { stream: `${definition.streamPrefix}audit` }) as [AnyMachineSnapshot, unknown];
  let before = snapshot;
  let actions: Array<{ type: string }> = [];
  for (const event of events) {
    before = snapshot;
    [snapshot, actions] = transition(definition.machine, snapshot, event) as unknown as [AnyMachineSnapshot, Array<{ type: string }>];
  }
  return { before, after: snapshot, actions };
};

describe('audit: static checks', function () {
  // whole-graph explorations: 'no product machine fails a check' is 20 s alone and was 38 s beside another file
  // on a busy 2-core machine (npm test runs two at once), so 60 s left too little room
  this.timeout(180_000);

  // each product machine's graph is explored once for the three tests that read it (one exploration of the whole
  // registry is ~30 s of a worker: it ran three times before)
  const reports = new Map<string, ReturnType<typeof checkMachine>>();
  const reportOf = (definition: (typeof productMachines)[number]) => {
    let report = reports.get(definition.id);
    if (!report) reports.set(definition.id, (report = checkMachine(definition)));
    return report;
  };

  it('the server-rebuild machine passes every check, none skipped', () => {
    const report = reportOf(serverRebuildDefinition);
    expect(report.results.map((r) => [r.id, r.status])).to.deep.equal([
      ['destructive-needs-arm', 'pass'],
      ['destructive-by-reconciler', 'pass'],
      ['monitor-never-authorises', 'pass'],
      ['every-state-reachable', 'pass'],
      ['no-rank-retreat', 'pass'],
    ]);
    expect(report.states).to.be.greaterThan(30);
    expect(report.edges).to.be.greaterThan(10_000);
  });

  it('no product machine fails a check', () => {
    for (const definition of productMachines) expect(failing(reportOf(definition)), definition.id).to.deep.equal([]);
  });

  it('issue 25: every product machine runs every check — none is skipped (a machine without an intent says so: intentOf null)', () => {
    for (const definition of productMachines) expect(reportOf(definition).results.filter((r) => r.status === 'skipped').map((r) => r.id), definition.id).to.deep.equal([]);
  });

  it('a monitor observation that arms is a counterexample to monitor-never-authorises (1 event)', () => {
    const report = checkMachine(monitorArms);
    expect(failing(report)).to.deep.equal(['monitor-never-authorises']);
    const example = result(report, 'monitor-never-authorises')?.counterexample;
    expect(example?.problem).to.match(/monitor observation created the intent/);
    expect(example?.path.map((s) => `${s.event.type}/${s.event.source}`)).to.deep.equal(['observed/monitor']);
    const { after } = replayPath(monitorArms, example?.path.map((s) => s.event) ?? []);
    expect(after.value).to.equal('Initiated');
  });

  it('an arm and a rebuild submit in one event is a counterexample to destructive-needs-arm (not write-ahead)', () => {
    const report = checkMachine(armAndSubmitTogether);
    expect(failing(report)).to.deep.equal(['destructive-needs-arm']);
    const example = result(report, 'destructive-needs-arm')?.counterexample;
    expect(example?.problem).to.equal('nova.rebuild declared with no intent recorded before this event');
    expect(example?.path).to.have.length(1);
    expect(example?.path[0]?.effects).to.deep.equal(['nova.rebuild']);
    expect(replayPath(armAndSubmitTogether, [example?.path[0]?.event as never]).actions.map((a) => a.type)).to.include('nova.rebuild');
  });

  it('a monitor retreat from Rebuilding to Initiated is a counterexample to no-rank-retreat, with the path that gets there', () => {
    const report = checkMachine(monitorRetreats);
    expect(failing(report)).to.deep.equal(['no-rank-retreat']);
    const example = result(report, 'no-rank-retreat')?.counterexample;
    const path = example?.path ?? [];
    expect(path.map((s) => s.event.source)).to.deep.equal(['reconciler', 'reconciler', 'monitor']);
    expect(path[path.length - 1]).to.include({ from: 'Rebuilding', to: 'Initiated' });
    const { before, after } = replayPath(monitorRetreats, path.map((s) => s.event));
    expect([before.value, after.value]).to.deep.equal(['Rebuilding', 'Initiated']);
  });

  it('a state nothing enters fails every-state-reachable and is named', () => {
    const report = checkMachine(orphanState);
    expect(failing(report)).to.deep.equal(['every-state-reachable']);
    expect(result(report, 'every-state-reachable')?.unreachable).to.deep.equal(['serverRebuild.Orphaned']);
  });

  it('a rebuild declared on a monitor stimulus fails destructive-by-reconciler', () => {
    const report = checkMachine(monitorSubmits);
    expect(failing(report)).to.deep.equal(['destructive-by-reconciler']);
    expect(result(report, 'destructive-by-reconciler')?.counterexample?.path.at(-1)?.event.source).to.equal('monitor');
  });

  it('the text report prints the counterexample path step by step', () => {
    const text = formatCheckReport(checkMachine(monitorRetreats));
    expect(text).to.match(/✗ no rank retreat for one intent target {2}\[no-rank-retreat\]/);
    expect(text).to.match(/1\. reconcile \(reconciler\) {2}noMarker → Initiated {2}\/ armed/);
    expect(text).to.match(/3\. observed \(monitor\) {2}Rebuilding → Initiated {2}\/ observedRetreat/);
  });

  it('a machine without audit hooks is reported as skipped, never as passed', () => {
    const report = checkMachine(toyDefinition());
    expect(report.results.every((r) => r.status === 'skipped')).to.equal(true);
  });

  it('an exploration that never ends (counters in the state key) is stopped and fails', () => {
    const toy = toyDefinition();
    const unbounded = { ...toy, audit: { alphabet: () => [{ type: 'reconcile', source: 'reconciler' as const, desired: 'lamp', exists: false }] } };
    const report = checkMachine(unbounded, { maxStates: 50 });
    expect(report.truncated).to.equal(true);
    expect(report.results.some((r) => r.status === 'fail' && /exploration stopped at 50 states/.test(r.detail))).to.equal(true);
  });

});
