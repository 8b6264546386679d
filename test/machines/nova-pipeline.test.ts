/** What a Nova's pipeline steps last said (machines/nova-pipeline.ts; issue 26). */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { getAdjacencyMap, adjacencyMapToArray } from 'xstate/graph';
import { novaPipelineDefinition as def, novaPipelineStream, type NovaPipelineContext, type NovaPipelineStimulus } from '../../machines/nova-pipeline.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const STREAM = novaPipelineStream('00000000-0000-4000-8000-000000000001');
const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const lane = (seconds: number, conditions: Array<[string, 'True' | 'False' | 'Unknown', string]>, extra: Partial<NovaPipelineStimulus> = {}): NovaPipelineStimulus => ({
  type: 'lane', source: 'reconciler', generation: 1, at: at(seconds), endedAt: null, stamps: {},
  conditions: conditions.map(([type, status, reason]) => ({ type, status, reason, message: `${reason}.` })),
  ...extra,
});
const after = (...stimuli: NovaPipelineStimulus[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));
const context = (s: AnyMachineSnapshot) => s.context as NovaPipelineContext;

describe('novaPipeline machine', () => {
  it('NP1 a pass records what its steps set; a condition it did not reach keeps the earlier record', () => {
    const s = after(lane(0, [['SecretsReady', 'True', 'SecretsAvailable'], ['ConductorReady', 'True', 'ConductorReady']]), lane(5, [['SecretsReady', 'False', 'WaitingForDBCredentials']], { endedAt: 'Secrets' }));
    expect(context(s).conditions.SecretsReady).to.include({ status: 'False', reason: 'WaitingForDBCredentials', since: at(5) });
    expect(context(s).conditions.ConductorReady).to.include({ status: 'True', since: at(0) });
  });

  it('NP2 since moves with the status only: a new reason with the same status keeps it', () => {
    const s = after(lane(0, [['SecretsReady', 'False', 'WaitingForDBCredentials']]), lane(9, [['SecretsReady', 'False', 'WaitingForServiceUserCredentials']]));
    expect(context(s).conditions.SecretsReady).to.include({ reason: 'WaitingForServiceUserCredentials', since: at(0) });
  });

  it('NP3 the same conditions again store nothing; a new generation is noted; stamps are recorded and cleared', () => {
    const first = after(lane(0, [['SecretsReady', 'True', 'SecretsAvailable']]));
    expect(step(def, first, lane(30, [['SecretsReady', 'True', 'SecretsAvailable']])).changed).to.equal(false);
    expect(context(step(def, first, lane(30, [['SecretsReady', 'True', 'SecretsAvailable']], { generation: 2 })).snapshot).decidedGeneration).to.equal(2);
    const stamped = step(def, first, lane(31, [], { stamps: { endpoint: 'http://127.0.0.1:8774' } }));
    expect(stamped.changed).to.equal(true);
    expect(context(stamped.snapshot).stamps.endpoint).to.equal('http://127.0.0.1:8774');
    expect(context(step(def, stamped.snapshot, lane(32, [], { stamps: { endpoint: null } })).snapshot).stamps.endpoint).to.equal(null);
  });

  it('over its reachable graph: no effect, and a recorded condition always carries the status it was given', () => {
    const edges = adjacencyMapToArray(getAdjacencyMap(def.machine, { input: { stream: STREAM }, events: (def.audit?.alphabet() ?? []) as never, serializeState: (x) => (def.audit?.stateKey ?? JSON.stringify)(x as AnyMachineSnapshot) }));
    expect(edges.length).to.be.greaterThan(3);
    for (const { state, event } of edges) {
      const next = step(def, state as AnyMachineSnapshot, event as NovaPipelineStimulus);
      expect(next.effects).to.deep.equal([]);
      for (const c of (event as NovaPipelineStimulus).conditions) expect(context(next.snapshot).conditions[c.type]?.status).to.equal(c.status);
    }
  });
});
