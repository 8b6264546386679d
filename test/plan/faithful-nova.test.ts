/**
 * A plan is faithful (issue 32, "Guarantees: faithful") for the Nova kind: a property-based test drives a Nova on the
 * embedded default's runtime pieces (test/plan/support/nova-rig.ts: the local Job runner running the rendered
 * scripts against a scripted nova-manage, stand-in roles, the local config store, a planted provisioner) to a random
 * reachable state — real passes, spec changes on the way (a release bump starts an upgrade through its phases,
 * replicas, a config change, an image that breaks the lockstep), Jobs that complete or fail — then applies a random
 * spec change, plans it, runs the real pass (the control plane's Nova wiring over the real store and runtime) and
 * compares every decision of the plan's first pass with what the real pass appends, in order: stream, event, state
 * before and after, rule, effects with their parameters, destructive flag.
 *
 * Default 60 runs (PLAN_FAITHFUL_RUNS overrides, PLAN_FAITHFUL_SEED replays one). It prints how many cases it
 * compared, per machine, and the distribution of the upgrade machine's state before → its first decision.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { novaManifest, secretsManifest, startNovaPlanRig, type NovaPlanRig, type NovaShape } from './support/nova-rig.js';
import { shapeOfPlanned, shapeOfStored } from './support/decision-shape.js';
import { faithfulRuns } from './support/faithful-runs.js';
import { recordsShown } from '../../src/plan/planner.js';

type Action = { kind: 'passes'; count: number } | { kind: 'apply'; shape: Omit<NovaShape, 'name'> } | { kind: 'failJobs'; on: boolean };

const RELEASES = ['2025.1', '2025.2', '2026.1', '2026.2'] as const;

const rare = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

const shape: fc.Arbitrary<Omit<NovaShape, 'name'>> = fc
  .record({
    release: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('2025.1', '2025.2') }, { weight: 1, arbitrary: fc.constantFrom(...RELEASES) }),
    replicas: fc.option(fc.constantFrom(1, 2), { nil: undefined }),
    debug: fc.option(fc.boolean(), { nil: undefined }),
    // a tag that names another release than spec.openStackRelease (NU3), now and then
    imageTag: rare(fc.constantFrom('2025.1', '2025.2')),
  })
  .map((s) => Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as Omit<NovaShape, 'name'>);

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 5 }).map((count) => ({ kind: 'passes' as const, count })) },
  { weight: 3, arbitrary: shape.map((s) => ({ kind: 'apply' as const, shape: s })) },
  { weight: 1, arbitrary: fc.boolean().map((on) => ({ kind: 'failJobs' as const, on })) },
);



describe('plan: faithful to the real pass (Nova, property-based)', function () {
  this.timeout(1_800_000);
  let rig: NovaPlanRig;
  before(async () => {
    rig = await startNovaPlanRig();
    await rig.apply(secretsManifest());
  });
  after(async () => rig?.close());

  it("every decision of the plan's first pass is what the real pass appends (stream, event, states, rule, effects, destructive), for random Nova states and spec changes", async () => {
    let cases = 0;
    let nothing = 0;
    const perMachine = new Map<string, number>();
    const seen = new Map<string, number>();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 10 }), shape, async (actions, final) => {
        const name = `nova-f${n++}`;
        rig.failJobs(false);
        try {
          await rig.apply(novaManifest({ release: '2025.1', name }));
          // the finalizer's pass, then the install's first decisions
          await rig.pass(name).catch(() => undefined);
          await rig.pass(name).catch(() => undefined);
          await rig.settle(name);
          for (const a of actions) {
            if (a.kind === 'failJobs') rig.failJobs(a.on);
            else {
              if (a.kind === 'apply') await rig.apply(novaManifest({ ...a.shape, name }));
              for (let i = 0; i < (a.kind === 'passes' ? a.count : 1); i++) {
                await rig.pass(name).catch(() => undefined);
                await rig.settle(name);
              }
            }
          }
          const before = await rig.upgradeContext(name);
          const manifest = novaManifest({ ...final, name });
          const plan = await rig.plan(manifest);
          expect(rig.tripwires.tripped, 'no write during the plan').to.deep.equal([]);
          const resource = plan.resources[0];
          expect(resource?.verdict, resource?.message ?? resource?.refusal).to.equal('planned');
          const planned = resource?.decisions.filter((d) => d.pass === 1) ?? [];

          // the real thing: apply, then the real pass; what it appends, in order (its effects' results aside: a plan
          // never has them, it stops the branch at the effect)
          await rig.apply(manifest);
          const from = await rig.store.lastPosition();
          await rig.pass(name).catch(() => undefined);
          const real = (await rig.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'effect');

          const why = `after ${JSON.stringify(actions)} → ${JSON.stringify(final)} (upgrade machine in ${String(before.state)}, ${before.condition?.reason ?? 'no condition'})`;
          // a step record after an effect quotes its answer: the plan leaves it out, and so does the comparison (recordsShown)
          expect(planned.map(shapeOfPlanned), `the first pass ${why}`).to.deep.equal(recordsShown(real).map(shapeOfStored));
          cases++;
          if (planned.length === 0) nothing++;
          for (const d of planned) perMachine.set(d.machine, (perMachine.get(d.machine) ?? 0) + 1);
          const upgrade = planned.find((d) => d.machine === 'novaUpgrade');
          const key = `${String(before.state)} (${before.condition?.reason ?? 'new'}) → ${upgrade ? `${upgrade.event.slice('novaUpgrade.'.length)} (${upgrade.rule?.id ?? '—'})` : 'no upgrade decision'}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        } finally {
          rig.failJobs(false);
          await rig.release(name);
        }
      }),
      faithfulRuns(60),
    );
    console.log(`      ${cases} cases compared (${nothing} where neither decided anything); decisions compared per machine: ${[...perMachine].map(([m, c]) => `${m} ${c}`).join(', ')}`);
    console.log('      the upgrade machine before (its DatabaseReady reason) → its first decision:');
    for (const [key, count] of [...seen].sort((a, b) => b[1] - a[1])) console.log(`        ${String(count).padStart(3)}  ${key}`);
    expect(cases).to.be.greaterThan(0);
  });
});
