import { expect } from 'chai';
import { BUILDING_STATES, QUEUED_STATES, baremetalProgress } from '../../../src/provider/inventory/baremetal-progress.js';
import { healthFromStatus } from '../../../machines/server-rebuild/health.js';
import type { ServerFacts } from '../../../machines/server-rebuild/observation.js';

/**
 * Every provision state the Bare Metal API documents (ironic/common/states.py), with what a BUILD server on
 * it reads: Queued before the deploy starts, Building from the deploy on — the post-deploy `error` and the
 * transient `* failed` states included (the failure signal belongs on Healthy, not on Active).
 */
const IRONIC_STATES: ReadonlyArray<[string, 'Queued' | 'Building']> = [
  ['enroll', 'Queued'], ['verifying', 'Queued'], ['manageable', 'Queued'], ['inspecting', 'Queued'], ['inspect wait', 'Queued'],
  ['available', 'Queued'], ['cleaning', 'Queued'], ['clean wait', 'Queued'], ['clean hold', 'Queued'], ['adopting', 'Queued'],
  ['deploying', 'Building'], ['wait call-back', 'Building'], ['deploy hold', 'Building'], ['active', 'Building'], ['rebuild', 'Building'],
  ['error', 'Building'], ['deploy failed', 'Building'], ['clean failed', 'Building'], ['inspect failed', 'Building'], ['adopt failed', 'Building'],
  ['rescue failed', 'Building'], ['unrescue failed', 'Building'], ['service failed', 'Building'],
  ['deleting', 'Building'], ['deleted', 'Building'], ['rescuing', 'Building'], ['rescue wait', 'Building'], ['rescue', 'Building'],
  ['unrescuing', 'Building'], ['servicing', 'Building'], ['service wait', 'Building'], ['service hold', 'Building'],
];

describe('baremetal progress: Ironic provision state → Queued or Building', () => {
  for (const [state, expected] of IRONIC_STATES) {
    it(`"${state}" → ${expected}`, () => expect(baremetalProgress(state)).to.equal(expected));
  }

  it('the two tables together are exactly the documented states, each once', () => {
    const tables = [...QUEUED_STATES, ...BUILDING_STATES];
    expect(new Set(tables).size).to.equal(tables.length);
    expect([...tables].sort()).to.deep.equal(IRONIC_STATES.map(([s]) => s).sort());
  });

  it('no node bound to the instance yet is Queued (not yet picked up); a state Ironic does not document falls back to Building', () => {
    expect(baremetalProgress(undefined)).to.equal('Queued');
    expect(baremetalProgress('some future state')).to.equal('Building');
    expect(baremetalProgress('AVAILABLE'), 'states are compared exactly').to.equal('Building');
  });

  describe('the observed Active condition of a BUILD server', () => {
    const build: ServerFacts = { id: 's', status: 'BUILD', taskState: { kind: 'active', name: 'spawning' }, imageRef: { kind: 'image', id: 'i' }, launchedAt: { kind: 'never' }, macAddress: null };
    it('Queued or Building as Ironic says; a virtual flavor (no baremetal fact) stays Building; Healthy is Provisioning either way', () => {
      expect(healthFromStatus({ ...build, baremetal: 'Queued' }).active).to.deep.equal({ status: 'False', reason: 'Queued' });
      expect(healthFromStatus({ ...build, baremetal: 'Building' }).active).to.deep.equal({ status: 'False', reason: 'Building' });
      expect(healthFromStatus(build).active).to.deep.equal({ status: 'False', reason: 'Building' });
      for (const facts of [build, { ...build, baremetal: 'Queued' as const }]) expect(healthFromStatus(facts).healthy).to.deep.equal({ status: 'False', reason: 'Provisioning' });
    });
    it('the fact only matters in BUILD: ACTIVE reads Running, REBUILD Building', () => {
      expect(healthFromStatus({ ...build, status: 'ACTIVE', baremetal: 'Queued' }).active.reason).to.equal('Running');
      expect(healthFromStatus({ ...build, status: 'REBUILD', baremetal: 'Queued' }).active.reason).to.equal('Building');
    });
  });
});
