/** The Nova pipeline's lane (src/controllers/nova/lane.ts; nova-operator.md "Pipeline"; issue 26). */
import { expect } from 'chai';
import { runLane, continueLane, requeue, type NovaStep } from '../../src/controllers/nova/lane.js';

type Pass = { ran: string[] };
const stepOf = (name: string, owns: string[], outcome: 'continue' | 'requeue' | 'error' | 'throw', set: Array<[string, 'True' | 'False']> = []): NovaStep<Pass> => ({
  name,
  conditions: owns,
  run: async (pass) => {
    pass.ran.push(name);
    if (outcome === 'throw') throw new Error(`${name} failed`);
    const conditions = set.map(([type, status]) => ({ type, status, reason: `${type}${status}`, message: '' }));
    return { conditions, outcome: outcome === 'continue' ? continueLane : outcome === 'requeue' ? requeue(15_000, `${name} waits`) : { kind: 'error', error: new Error(name) } };
  },
});

describe('the Nova lane', () => {
  it('runs every step in order while each continues, and collects what they set', async () => {
    const pass = { ran: [] as string[] };
    const result = await runLane([stepOf('Secrets', ['SecretsReady'], 'continue', [['SecretsReady', 'True']]), stepOf('Conductor', ['ConductorReady'], 'continue', [['ConductorReady', 'False']])], pass);
    expect(pass.ran).to.deep.equal(['Secrets', 'Conductor']);
    expect(result.endedAt).to.equal(null);
    expect(result.conditions.map((c) => `${c.type}=${c.status}`)).to.deep.equal(['SecretsReady=True', 'ConductorReady=False']);
    expect(result.timings.map((t) => t.step)).to.deep.equal(['Secrets', 'Conductor']);
  });

  it('the first requeue ends the lane, and the conditions set so far are kept (written on every exit path)', async () => {
    const pass = { ran: [] as string[] };
    const result = await runLane([stepOf('Secrets', ['SecretsReady'], 'requeue', [['SecretsReady', 'False']]), stepOf('Conductor', ['ConductorReady'], 'continue')], pass);
    expect(pass.ran).to.deep.equal(['Secrets']);
    expect(result).to.deep.include({ endedAt: 'Secrets' });
    expect(result.outcome).to.deep.equal({ kind: 'requeue', afterMs: 15_000, why: 'Secrets waits' });
    expect(result.conditions.map((c) => c.type)).to.deep.equal(['SecretsReady']);
  });

  it('a step that throws ends the lane as an error; what earlier steps set is kept', async () => {
    const pass = { ran: [] as string[] };
    const result = await runLane([stepOf('Secrets', ['SecretsReady'], 'continue', [['SecretsReady', 'True']]), stepOf('Config', ['ExtraConfigHealthy'], 'throw'), stepOf('Conductor', ['ConductorReady'], 'continue')], pass);
    expect(pass.ran).to.deep.equal(['Secrets', 'Config']);
    expect(result.endedAt).to.equal('Config');
    expect(result.outcome.kind).to.equal('error');
    expect(result.conditions.map((c) => c.type)).to.deep.equal(['SecretsReady']);
  });

  it('a step that sets a condition it does not own is a bug of the table, refused loudly', async () => {
    await runLane([stepOf('Conductor', ['ConductorReady'], 'continue', [['SecretsReady', 'True']])], { ran: [] }).then(
      () => expect.fail('expected a refusal'),
      (error: Error) => expect(error.message).to.match(/Conductor set SecretsReady, which it does not own/),
    );
  });
});
