/** A SecurityGroup's status from its lifecycle (projections/security-group-status.ts). */
import { expect } from 'chai';
import { renderSecurityGroupResource } from '../../projections/security-group-status.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';

const context = (over: Partial<LifecycleContext> = {}): LifecycleContext => ({
  resourceId: 'sg-1', createAttempts: 1, createdForGeneration: 1, failedGeneration: null, lastError: null, createFailure: null, specProblems: null,
  unresolvable: null, decidedGeneration: 1, deleteAttempts: 0, lastDeleteAt: null, deleteRefusal: null, ...over,
});
const render = (generation: number, over: Partial<LifecycleContext> = {}) =>
  renderSecurityGroupResource({ lifecycle: { state: 'present', context: context(over) }, generation, at: '2026-01-02T15:04:05Z' });
const cond = (s: ReturnType<typeof render>, type: string) => s.conditions.find((c) => c.type === type);

describe('projection: SecurityGroup status', () => {
  it('present for the generation it was created for: Ready, Available and SpecRealized True, the Neutron id', () => {
    const s = render(1);
    expect(s).to.deep.include({ phase: 'Ready', securityGroupID: 'sg-1', observedGeneration: 1 });
    expect(cond(s, 'Available')).to.deep.include({ status: 'True', reason: 'Provisioned' });
    expect(cond(s, 'SpecRealized')).to.deep.include({ status: 'True' });
  });
  it('rules changed after the create (a later generation, decided): not claimed — SpecRealized and Available False RulesNotApplied', () => {
    const s = render(2, { decidedGeneration: 2 });
    expect(cond(s, 'SpecRealized')).to.deep.include({ status: 'False', reason: 'RulesNotApplied' });
    expect(cond(s, 'SpecRealized')?.message).to.include('created for generation 1, the spec is at 2');
    expect(cond(s, 'Available')).to.deep.include({ status: 'False', reason: 'RulesNotApplied' });
  });
  it('recreated for the current generation: realized again', () => {
    expect(cond(render(3, { decidedGeneration: 3, createdForGeneration: 3 }), 'SpecRealized')?.status).to.equal('True');
  });
  it('not yet decided on the current generation: Provisioning', () => {
    expect(cond(render(2), 'Available')).to.deep.include({ status: 'False', reason: 'Provisioning' });
  });
});
