/**
 * A plan is faithful (issue 32, "Guarantees: faithful") for the Nova finalizer (machines/nova-finalizer.ts: NF1–NF5,
 * the ledger of what Regent created and the write-ahead cleanup of a deleted Nova). A property-based test drives a
 * Nova on the embedded default's runtime pieces (test/plan/support/nova-rig.ts: the planted MariaDB, the local Job
 * runner against a scripted nova-manage, stand-in roles) to a random reachable state of its finalizer stream:
 *   - schemas or users that were there before the Nova (Regent never claims them, NF1);
 *   - real passes (the finalizer's pass, then the install claiming what it is about to create);
 *   - a schema dropped or recreated behind Regent's back;
 *   - a real deletion and its passes (the cleanup armed and decided, NF2), with a MariaDB that fails the cleanup
 *     (NF4: decided again by the next pass) or answers that something was live (NF3: held one more pass);
 * then plans the deletion (`regent plan --delete`: the planner's `deleting`), deletes for real when the Nova is not
 * being deleted yet, runs the real pass (the control plane's Nova wiring over the real stores and runtime), and
 * compares every decision of the plan's first pass with what the real pass appends, in order (stream, event, state
 * before and after, rule, effects with their parameters, destructive flag; the effects' answers aside, which a plan
 * never has). Now and then the final step is a spec change instead of the deletion (the install's claims, NF1).
 *
 * Default 40 runs (PLAN_FAITHFUL_RUNS overrides, PLAN_FAITHFUL_SEED replays one). It prints how many cases it
 * compared, per machine, and the distribution of the finalizer's state before → its decisions in the plan's first pass.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { novaFinalizerDefinition, novaFinalizerStream } from '../../machines/nova-finalizer.js';
import { contextOf } from '../../src/engine/engine.js';
import { isDeleting } from '../../src/kube/object.js';
import { novaManifest, secretsManifest, startNovaPlanRig, type NovaPlanRig, type NovaShape } from './support/nova-rig.js';
import { shapeOfPlanned, shapeOfStored } from './support/decision-shape.js';
import { faithfulRuns } from './support/faithful-runs.js';
import { recordsShown } from '../../src/plan/planner.js';

/** The MariaDB objects a Nova's plan provisions (the planted provisioner's keys). */
const OBJECTS = ['database:nova_api', 'user:nova_api', 'database:nova', 'database:nova_cell0', 'user:nova'] as const;

type Action =
  | { kind: 'passes'; count: number }
  | { kind: 'dropBehindRegent'; object: (typeof OBJECTS)[number] }
  | { kind: 'recreateBehindRegent'; object: (typeof OBJECTS)[number] }
  | { kind: 'delete' }
  | { kind: 'failCleanup'; on: boolean };

const object = fc.constantFrom(...OBJECTS);

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 1, max: 3 }).map((count) => ({ kind: 'passes' as const, count })) },
  { weight: 1, arbitrary: object.map((o) => ({ kind: 'dropBehindRegent' as const, object: o })) },
  { weight: 1, arbitrary: object.map((o) => ({ kind: 'recreateBehindRegent' as const, object: o })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'delete' as const }) },
  { weight: 2, arbitrary: fc.boolean().map((on) => ({ kind: 'failCleanup' as const, on })) },
);

/** The last step: the deletion planned (mostly), or a spec change; and whether MariaDB fails the real cleanup. */
type Final = { kind: 'delete'; failing: boolean } | { kind: 'change'; shape: Omit<NovaShape, 'name'> };
const final: fc.Arbitrary<Final> = fc.oneof(
  { weight: 4, arbitrary: fc.boolean().map((failing) => ({ kind: 'delete' as const, failing })) },
  {
    weight: 1,
    arbitrary: fc.record({ replicas: fc.option(fc.constantFrom(1, 2), { nil: undefined }), debug: fc.option(fc.boolean(), { nil: undefined }) }).map((s) => ({
      kind: 'change' as const,
      shape: { release: '2025.1', ...Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) },
    })),
  },
);

describe('plan: faithful to the real pass (the Nova finalizer and its cleanup, property-based)', function () {
  this.timeout(1_800_000);
  let rig: NovaPlanRig;
  before(async () => {
    rig = await startNovaPlanRig();
    await rig.apply(secretsManifest());
  });
  after(async () => rig?.close());

  const finalizerState = async (name: string) => {
    const uid = (await rig.source.get('Nova', 'default', name))?.metadata.uid;
    if (!uid) return { state: 'gone', attempts: 0 };
    const loaded = await rig.engine.load(novaFinalizerDefinition, novaFinalizerStream(uid));
    return { state: String(loaded.value), attempts: contextOf(novaFinalizerDefinition, loaded.snapshot).attempts };
  };

  it("every decision of the plan's first pass (a deletion, or now and then a spec change) is what the real pass appends, for random states of the finalizer's ledger and cleanup", async () => {
    let cases = 0;
    let nothing = 0;
    const perMachine = new Map<string, number>();
    const seen = new Map<string, number>();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.subarray([...OBJECTS], { maxLength: 2 }), fc.array(action, { maxLength: 8 }), final, async (foreign, actions, last) => {
        const name = `nova-fin${n++}`;
        // the MariaDB as this run begins: what was there before the Nova (never claimed, never dropped by Regent)
        rig.provisioner.existing.clear();
        for (const o of foreign) rig.provisioner.existing.add(o);
        rig.provisioner.failing = false;
        try {
          await rig.apply(novaManifest({ release: '2025.1', name }));
          // the pass that puts the finalizer on (a Nova deleted before it is removed at once: no pass of Regent runs)
          await rig.pass(name);
          for (const a of actions) {
            const stored = await rig.source.get('Nova', 'default', name);
            if (a.kind === 'failCleanup') rig.provisioner.failing = a.on;
            else if (a.kind === 'dropBehindRegent') rig.provisioner.existing.delete(a.object);
            else if (a.kind === 'recreateBehindRegent') rig.provisioner.existing.add(a.object);
            else if (a.kind === 'delete') {
              if (stored && !isDeleting(stored)) await rig.source.delete('Nova', 'default', name);
              await rig.pass(name).catch(() => undefined);
            } else {
              // a deleting Nova takes one pass at a time (two clean ones release it: a gone Nova has nothing left to compare)
              for (let i = 0; i < (stored && isDeleting(stored) ? 1 : a.count); i++) {
                await rig.pass(name).catch(() => undefined);
                await rig.settle(name);
              }
            }
          }
          const before = await finalizerState(name);
          const stored = await rig.source.get('Nova', 'default', name);
          const deleting = last.kind === 'delete' || (stored !== undefined && isDeleting(stored));
          const manifest = novaManifest({ ...(last.kind === 'change' ? last.shape : { release: '2025.1' }), name });
          const plan = await rig.plan(manifest, deleting ? { deleting: true } : {});
          expect(rig.tripwires.tripped, 'no write during the plan').to.deep.equal([]);
          const resource = plan.resources[0];
          const why = `after foreign ${JSON.stringify(foreign)}, ${JSON.stringify(actions)} → ${JSON.stringify(last)} (finalizer in ${before.state}, ${before.attempts} cleanup(s) decided)`;
          if (!stored && deleting) {
            // released and gone: the plan says what delete would (not found); the real pass finds nothing either
            expect(resource?.verdict, why).to.equal('refused');
            const from = await rig.store.lastPosition();
            expect((await rig.pass(name)).kind).to.equal('done');
            expect(await rig.store.readAll({ after: from }), why).to.deep.equal([]);
            seen.set('gone → nothing', (seen.get('gone → nothing') ?? 0) + 1);
            return;
          }
          expect(resource?.verdict, resource?.message ?? resource?.refusal).to.equal('planned');
          const planned = resource?.decisions.filter((d) => d.pass === 1) ?? [];

          // the real thing: delete (or apply), then the real pass; what it appends, in order, its effects' answers aside
          if (!deleting) await rig.apply(manifest);
          else if (stored && !isDeleting(stored)) await rig.source.delete('Nova', 'default', name);
          if (last.kind === 'delete') rig.provisioner.failing = last.failing;
          const from = await rig.store.lastPosition();
          await rig.pass(name).catch(() => undefined);
          const real = (await rig.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'effect');

          // a step record after an effect quotes its answer: the plan leaves it out, and so does the comparison (recordsShown)
          expect(planned.map(shapeOfPlanned), `the first pass ${why}`).to.deep.equal(recordsShown(real).map(shapeOfStored));
          cases++;
          if (planned.length === 0) nothing++;
          for (const d of planned) perMachine.set(d.machine, (perMachine.get(d.machine) ?? 0) + 1);
          const decided = planned.filter((d) => d.machine === 'novaFinalizer').map((d) => `${d.event.slice('novaFinalizer.'.length)} (${d.rule?.id ?? '—'}${d.destructive ? ', destructive' : ''})`);
          const key = `${before.state}${deleting ? ' (deleting)' : ''} → ${decided.join(', ') || 'no finalizer decision'}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        } finally {
          rig.provisioner.failing = false;
          rig.failJobs(false);
          await rig.release(name);
        }
      }),
      faithfulRuns(40),
    );
    console.log(`      ${cases} cases compared (${nothing} where neither decided anything); decisions compared per machine: ${[...perMachine].map(([m, c]) => `${m} ${c}`).join(', ')}`);
    console.log("      the finalizer's state before → its decisions in the plan's first pass:");
    for (const [key, count] of [...seen].sort((a, b) => b[1] - a[1])) console.log(`        ${String(count).padStart(3)}  ${key}`);
    expect(cases).to.be.greaterThan(0);
  });
});
