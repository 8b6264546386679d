/**
 * When a chaos step counts as settled (test/chaos/harness/scenarios/scenario.ts): the visible end of the bounded create
 * (machines/lifecycle.ts L2, volume V6) is accepted only when the run's kills and lost answers account for every attempt
 * (`server:2200136`: two kills after the create's append, then a 503 — by design the Server is parked Errored until a
 * new generation, which the next step gives it).
 */
import { expect } from 'chai';
import { availableOrCreateExhausted, type ScenarioContext } from './harness/scenarios/scenario.js';

const withStatus = (available: { status: string; reason: string; message: string }, kills: number, faults: Array<{ cls: string; landed: boolean }>): ScenarioContext =>
  ({
    source: { get: async () => ({ metadata: { uid: 'u', generation: 1 }, spec: {}, status: { observedGeneration: 1, conditions: [{ type: 'Available', ...available }] } }) },
    kills: Array.from({ length: kills }, () => ({ point: 'appended-before-effect', stream: 'server-lifecycle-u' })),
    faults,
  }) as unknown as ScenarioContext;

const exhausted = { status: 'False', reason: 'Errored', message: '3 creates were attempted, but the Nova server never appeared' };
const settled = (ctx: ScenarioContext) => availableOrCreateExhausted('Server', 'web-1')(ctx);

describe('chaos: a step settled by the visible end of the bounded create', () => {
  it('is accepted when kills and lost answers (5xx, timeout) account for every attempt', async () => {
    expect(await settled(withStatus(exhausted, 2, [{ cls: '5xx', landed: true }]))).to.equal(true);
    expect(await settled(withStatus(exhausted, 0, [{ cls: 'timeout', landed: true }, { cls: '5xx', landed: true }, { cls: 'timeout', landed: true }]))).to.equal(true);
  });

  it('is a lost decision when the run cannot account for the attempts (fewer interruptions, an unlanded or other fault)', async () => {
    expect(await settled(withStatus(exhausted, 2, []))).to.equal(false);
    expect(await settled(withStatus(exhausted, 2, [{ cls: '5xx', landed: false }]))).to.equal(false);
    expect(await settled(withStatus(exhausted, 2, [{ cls: 'latency', landed: true }]))).to.equal(false);
  });

  it('any other Errored reason is not the bounded create', async () => {
    expect(await settled(withStatus({ status: 'False', reason: 'Errored', message: 'Nova reports the server in ERROR' }, 3, []))).to.equal(false);
    expect(await settled(withStatus({ status: 'False', reason: 'Provisioning', message: '3 creates were attempted, but the Nova server never appeared' }, 3, []))).to.equal(false);
  });

  it('Available=True is settled as before', async () => {
    expect(await settled(withStatus({ status: 'True', reason: 'Provisioned', message: '' }, 0, []))).to.equal(true);
  });
});
