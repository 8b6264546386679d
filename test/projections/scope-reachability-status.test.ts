/** What a status says while Regent cannot see the resource (projections/scope-reachability-status.ts; issue 24, item 2). */
import { expect } from 'chai';
import { withReachability, type ReachabilityView } from '../../projections/scope-reachability-status.js';
import type { Condition } from '../../projections/conditions.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:05:00.000Z';
const provisioned = (): { observedGeneration: number; conditions: Condition[]; serverID: string } => ({
  observedGeneration: 2,
  serverID: 'srv-1',
  conditions: [
    { type: 'Available', status: 'True', reason: 'Provisioned', message: 'the server runs', observedGeneration: 2, lastTransitionTime: T0 },
    { type: 'Healthy', status: 'True', reason: 'Healthy', message: 'ok', observedGeneration: 2, lastTransitionTime: T0 },
  ],
});
const unreachable: ReachabilityView = {
  state: 'unreachable',
  context: { since: T1, blocked: { dependency: { kind: 'Region', name: 'default/region-one' }, problem: 'RegionUnusable', message: 'Keystone refused the credentials in Secret default/region-one-credentials' } },
};
const of = (conditions: Condition[], type: string) => conditions.find((c) => c.type === type);

describe('status while the resource cannot be observed', () => {
  it('unreachable: Available True becomes Unknown/DependencyUnavailable, dated, naming the dependency; the facts stay', () => {
    const out = withReachability(provisioned(), unreachable, { what: 'Nova server', at: T1 });
    expect(of(out.conditions, 'Available')).to.include({ status: 'Unknown', reason: 'DependencyUnavailable', lastTransitionTime: T1 });
    expect(of(out.conditions, 'Available')?.message).to.equal(
      `the Nova server cannot be observed since ${T1} (Region default/region-one: Keystone refused the credentials in Secret default/region-one-credentials); what this status shows was observed before then (it last read Provisioned)`,
    );
    expect(of(out.conditions, 'DependenciesReady')).to.include({ status: 'False', reason: 'RegionUnusable', message: 'Region default/region-one: Keystone refused the credentials in Secret default/region-one-credentials' });
    expect(out.serverID).to.equal('srv-1');
    expect(of(out.conditions, 'Healthy'), 'other conditions are the kind\'s').to.include({ status: 'True' });
  });

  it('unreachable: an Available that claims nothing (False) stays as the kind rendered it', () => {
    const status = provisioned();
    status.conditions[0] = { ...status.conditions[0], status: 'False', reason: 'Provisioning' } as Condition;
    const out = withReachability(status, unreachable, { what: 'Nova server', at: T1 });
    expect(of(out.conditions, 'Available')).to.include({ status: 'False', reason: 'Provisioning' });
    expect(of(out.conditions, 'DependenciesReady')).to.include({ status: 'False' });
  });

  it('reachable: Available is the kind\'s, DependenciesReady True; no verdict yet: Unknown/NotYetObserved', () => {
    const reach: ReachabilityView = { state: 'reachable', context: { since: T1, blocked: null } };
    const out = withReachability(provisioned(), reach, { what: 'Nova server', at: T1 });
    expect(of(out.conditions, 'Available')).to.include({ status: 'True', reason: 'Provisioned' });
    expect(of(out.conditions, 'DependenciesReady')).to.include({ status: 'True', reason: 'Reachable' });
    expect(of(withReachability(provisioned(), undefined, { what: 'Nova server', at: T1 }).conditions, 'DependenciesReady')).to.include({ status: 'Unknown', reason: 'NotYetObserved' });
  });

  it('an unchanged verdict keeps its lastTransitionTime on the next render', () => {
    const first = withReachability(provisioned(), unreachable, { what: 'Nova server', at: T1 });
    const again = withReachability(provisioned(), unreachable, { what: 'Nova server', at: '2026-01-01T01:00:00.000Z', previous: first.conditions });
    expect(of(again.conditions, 'Available')?.lastTransitionTime).to.equal(T1);
    expect(of(again.conditions, 'DependenciesReady')?.lastTransitionTime).to.equal(T1);
  });
});
