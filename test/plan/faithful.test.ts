/**
 * A plan is faithful (issue 32, "Guarantees: faithful") for the server-rebuild machine: a property-based test drives a
 * Server over the simulator to a random reachable state (image changes with real passes, monitor polls, time, a
 * foreign task, a 409 or a 503 on the rebuild, a rebuild that ends in ERROR, task_state hidden), applies a random
 * image, plans, then runs the real pass (the control plane's Server wiring over the real store and cloud) and compares
 * the plan's first decision with the first event the real pass appends — same event, same rule, same effects (type
 * and parameters), same destructive flag — and the same for the first decision of the server-rebuild stream.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { ServerMonitor } from '../../src/controllers/server-monitor/monitor.js';
import { silentLogger } from '../../src/log/logger.js';
import { serverRebuildStream, type ServerRebuildContext } from '../../machines/server-rebuild.js';
import { IMAGES, serverManifest, startPlanRig, type PlanRig } from './support/rig.js';
import { shapeOfPlanned, shapeOfStored } from './support/decision-shape.js';
import { faithfulRuns } from './support/faithful-runs.js';

type Image = keyof typeof IMAGES;
type Action =
  | { kind: 'apply'; image: Image }
  | { kind: 'pass' }
  | { kind: 'poll' }
  | { kind: 'advance'; ms: number }
  | { kind: 'stop' }
  | { kind: 'fault'; status: 409 | 503 }
  | { kind: 'failRebuild' }
  | { kind: 'hideTaskState' }
  | { kind: 'settle' };

const image = fc.constantFrom<Image>('A', 'B', 'C');
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: image.map((i) => ({ kind: 'apply' as const, image: i })) },
  { weight: 4, arbitrary: fc.constant({ kind: 'pass' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'poll' as const }) },
  { weight: 3, arbitrary: fc.integer({ min: 200, max: 3_000 }).map((ms) => ({ kind: 'advance' as const, ms })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'stop' as const }) },
  { weight: 1, arbitrary: fc.constantFrom<409 | 503>(409, 503).map((status) => ({ kind: 'fault' as const, status })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'failRebuild' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'hideTaskState' as const }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'settle' as const }) },
);



describe('plan: faithful to the real pass (server-rebuild, property-based)', function () {
  this.timeout(600_000);
  let rig: PlanRig;
  let monitor: ServerMonitor;
  before(async () => {
    rig = await startPlanRig();
    monitor = new ServerMonitor({ engine: rig.engine, nova: rig.os.nova, logger: silentLogger(), isManaged: () => true });
  });
  after(async () => rig?.close());

  it("the plan's first decision is the real pass's first appended event (rule, effect, destructive), for random states and image changes", async () => {
    let cases = 0;
    let nothing = 0;
    let secondPasses = 0;
    const seen = new Map<string, number>();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 12 }), fc.oneof(image, fc.constant('same' as const)), async (actions, final) => {
        const name = `web-f${n++}`;
        const id = await rig.bringUp(name, IMAGES.A);
        try {
          // 'same': the image last applied (no spec change: the plan shows what the next pass does about the state)
          const applied = [...actions].reverse().find((a): a is Extract<Action, { kind: 'apply' }> => a.kind === 'apply');
          const finalImage: Image = final === 'same' ? (applied?.image ?? 'A') : final;
          for (const a of actions) {
            if (a.kind === 'apply') {
              await applyManifests(rig.source, serverManifest(name, IMAGES[a.image]));
              await rig.pass(name).catch(() => undefined);
            } else if (a.kind === 'pass') await rig.pass(name).catch(() => undefined);
            else if (a.kind === 'poll') await monitor.pollOnce();
            else if (a.kind === 'settle') {
              rig.sim.clock.advance(1_500);
              await monitor.pollOnce();
              await rig.pass(name).catch(() => undefined);
            }
            else if (a.kind === 'advance') rig.sim.clock.advance(a.ms);
            else if (a.kind === 'stop') await rig.os.nova.stopServer(id).catch(() => undefined);
            else if (a.kind === 'fault') rig.sim.control.addFault({ method: 'POST', path: `/servers/${id}/action`, bodyIncludes: 'rebuild', status: a.status, count: 1 });
            else if (a.kind === 'failRebuild') rig.sim.control.configure({ nova: { bootRules: [{ match: `^${name}$`, outcome: 'error', phase: 'rebuild' }] } });
            else rig.sim.control.configure({ nova: { hideTaskState: true } });
          }
          const manifest = serverManifest(name, IMAGES[finalImage]);
          const marker = ((await rig.engine.load(serverRebuildStream(id))).snapshot.context as ServerRebuildContext).marker;
          const plan = await rig.plan(manifest);
          const planned = plan.resources[0]?.decisions.filter((d) => d.pass === 1) ?? [];

          // the real thing: apply, then the real pass; what it appends, in order (its effects' results aside: a plan
          // never has them, it stops the branch at the effect)
          const realPass = async () => {
            const from = await rig.store.lastPosition();
            await rig.pass(name).catch(() => undefined);
            return (await rig.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'monitor' && e.metadata.source !== 'effect');
          };
          await applyManifests(rig.source, manifest);
          const real = await realPass();

          const why = `after ${JSON.stringify(actions)} → ${final}`;
          expect(shapeOfPlanned(planned[0]), `first decision ${why}`).to.deep.equal(shapeOfStored(real[0]));
          const rebuildPlanned = planned.find((d) => d.machine === 'serverRebuild');
          const rebuildReal = real.find((e) => e.metadata.machine === 'serverRebuild');
          expect(shapeOfPlanned(rebuildPlanned), `first rebuild decision ${why}`).to.deep.equal(shapeOfStored(rebuildReal));
          // and every decision of the pass, in order
          expect(planned.map(shapeOfPlanned), `the first pass ${why}`).to.deep.equal(real.map(shapeOfStored));
          // the plan's next pass, when the first declared no effect: the real next pass decides the same
          const second = plan.resources[0]?.decisions.filter((d) => d.pass === 2) ?? [];
          if (second.length > 0 && planned.every((d) => d.effects.length === 0)) {
            const realSecond = await realPass();
            expect(second.map(shapeOfPlanned), `the second pass ${why}`).to.deep.equal(realSecond.map(shapeOfStored));
            secondPasses++;
          }
          cases++;
          if (!planned[0]) nothing++;
          const key = `${marker?.state ?? 'noMarker'} → ${rebuildPlanned ? `${rebuildPlanned.event.slice('serverRebuild.'.length)} (${rebuildPlanned.rule?.id ?? '—'})` : 'no rebuild decision'}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        } finally {
          rig.sim.control.clearFaults();
          rig.sim.control.configure({ nova: { hideTaskState: false, bootRules: [] } });
        }
      }),
      faithfulRuns(150),
    );
    console.log(`      ${cases} cases compared (${nothing} where neither decided anything; ${secondPasses} also on the plan's second pass); marker before → the rebuild machine's first decision:`);
    for (const [key, count] of [...seen].sort((a, b) => b[1] - a[1])) console.log(`        ${String(count).padStart(3)}  ${key}`);
    expect(cases).to.be.greaterThan(0);
  });
});
