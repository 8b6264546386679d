/**
 * The Nova pipeline as a model (nova-operator.md, "Pipeline"; issue 26), explored exhaustively rather than by
 * example: every assignment of outcomes to a lane of four steps and to a group of three, and the real step table.
 *
 *   P1 the lane runs its steps in order and stops at the first step that does not continue; what ran is exactly
 *      the prefix up to it, and the conditions of every step that ran are kept on every exit path (a requeue, an
 *      error, a throw);
 *   P2 the group runs every member whatever the others answer; an error wins, else the shortest requeue, and
 *      every member's condition is kept;
 *   P3 the real table: the lane's order is the spec's (Secrets … Deployment, then DBArchive), the five workload
 *      steps sit behind Database in the upgrade order, the group holds the seven members, and no two steps of the
 *      table own the same condition except the four that share SecretsReady.
 */
import { expect } from 'chai';
import { continueLane, requeue, runLane, type NovaStep, type StepOutcome } from '../../src/controllers/nova/lane.js';
import { NOVA_GROUP, NOVA_LANE, runGroup } from '../../src/controllers/nova/pipeline.js';

type Kind = 'continue' | 'requeue' | 'error' | 'throw';
const KINDS: readonly Kind[] = ['continue', 'requeue', 'error', 'throw'];
type Pass = { ran: string[] };

const step = (name: string, kind: Kind, afterMs = 15_000): NovaStep<Pass> => ({
  name,
  conditions: [`${name}Ready`],
  run: async (pass) => {
    pass.ran.push(name);
    if (kind === 'throw') throw new Error(`${name} threw`);
    const outcome: StepOutcome = kind === 'continue' ? continueLane : kind === 'requeue' ? requeue(afterMs, `${name} waits`) : { kind: 'error', error: new Error(name) };
    return { conditions: [{ type: `${name}Ready`, status: kind === 'continue' ? 'True' : 'False', reason: kind, message: '' }], outcome };
  },
});

/** Every sequence of `n` outcomes. */
const assignments = (n: number): Kind[][] => (n === 0 ? [[]] : assignments(n - 1).flatMap((rest) => KINDS.map((k) => [k, ...rest])));

describe('the Nova pipeline as a model', () => {
  it('P1: over all 256 lanes of four steps, the lane is the prefix up to the first step that does not continue, with every condition set so far kept', async () => {
    for (const kinds of assignments(4)) {
      const names = kinds.map((_, i) => `S${i}`);
      const pass: Pass = { ran: [] };
      const result = await runLane(kinds.map((k, i) => step(names[i]!, k)), pass);
      const stop = kinds.findIndex((k) => k !== 'continue');
      const expectedRan = stop === -1 ? names : names.slice(0, stop + 1);
      const label = kinds.join(',');
      expect(pass.ran, label).to.deep.equal(expectedRan);
      expect(result.endedAt, label).to.equal(stop === -1 ? null : names[stop]);
      expect(result.outcome.kind, label).to.equal(stop === -1 ? 'continue' : kinds[stop] === 'throw' ? 'error' : kinds[stop]);
      // a throwing step records nothing of its own; every step before it keeps its condition
      const expectedConditions = expectedRan.filter((_, i) => kinds[i] !== 'throw').map((n) => `${n}Ready`);
      expect(result.conditions.map((c) => c.type), label).to.deep.equal(expectedConditions);
      expect(result.timings.map((t) => t.step), label).to.deep.equal(expectedRan);
    }
  });

  it('P2: over all 64 groups of three members, every member runs; an error wins, else the shortest requeue, and each member that answered keeps its condition', async () => {
    for (const kinds of assignments(3)) {
      const pass: Pass = { ran: [] };
      const members = kinds.map((k, i) => step(`G${i}`, k, 10_000 * (3 - i)));
      const result = await runGroup(members, pass);
      const label = kinds.join(',');
      expect([...pass.ran].sort(), label).to.deep.equal(['G0', 'G1', 'G2']);
      const failed = kinds.findIndex((k) => k === 'error' || k === 'throw');
      const requeues = kinds.map((k, i) => (k === 'requeue' ? 10_000 * (3 - i) : Infinity));
      if (failed !== -1) expect(result.outcome.kind, label).to.equal('error');
      else if (requeues.some(Number.isFinite)) expect(result.outcome, label).to.deep.include({ kind: 'requeue', afterMs: Math.min(...requeues) });
      else expect(result.outcome.kind, label).to.equal('continue');
      expect(result.conditions.map((c) => c.type).sort(), label).to.deep.equal(kinds.map((k, i) => (k === 'throw' ? null : `G${i}Ready`)).filter((x): x is string => x !== null).sort());
    }
  });

  it('P3: the real table is the spec\'s: the lane in order, the roles behind Database in the upgrade order, the seven group members, SecretsReady shared by the four steps that report under it', () => {
    expect(NOVA_LANE.map((s) => s.name)).to.deep.equal(['Secrets', 'DBConnectionSecrets', 'TransportURLSecret', 'Config', 'ComputeConfig', 'SecretsAvailable', 'Database', 'Conductor', 'Scheduler', 'Metadata', 'ConsoleProxy', 'Deployment', 'DBArchive']);
    expect(NOVA_GROUP.map((s) => s.name).sort()).to.deep.equal(['ConsoleHTTPRoute', 'HPA', 'HTTPRoute', 'HealthCheck', 'MetadataHTTPRoute', 'NetworkPolicy', 'VPA']);
    const owners = new Map<string, string[]>();
    for (const s of [...NOVA_LANE, ...NOVA_GROUP]) for (const c of s.conditions) owners.set(c, [...(owners.get(c) ?? []), s.name]);
    for (const [condition, steps] of owners) {
      if (condition === 'SecretsReady') expect(steps.sort()).to.deep.equal(['Config', 'DBConnectionSecrets', 'Secrets', 'SecretsAvailable', 'TransportURLSecret']);
      else expect(steps, condition).to.have.length(1);
    }
    for (const s of NOVA_GROUP) expect(s.conditions, `${s.name} sets exactly one condition`).to.have.length(1);
  });
});
