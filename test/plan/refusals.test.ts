/**
 * Refusals a kind's pass gives rather than `apply` (issue 32: "an image that fails validation" is shown as a
 * refusal): a Server whose image or flavor resolves to no object is refused by its pass (L9, desiredUnresolvable) with
 * the message the real pass then records, nothing is created, and the plan exits 1. A reason that is a wait (the
 * provider-create gates) is not a refusal.
 */
import { expect } from 'chai';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { exitCodeOf } from '../../src/plan/report.js';
import { planText } from '../../src/plan/text.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import { serverLifecycleStream } from '../../machines/server-lifecycle.js';
import { IMAGES, serverManifest, startPlanRig, type PlanRig } from './support/rig.js';

const MISSING_IMAGE = '11111111-2222-3333-4444-555555555555';

describe('plan: refusals by the kind’s pass', function () {
  this.timeout(120_000);
  let rig: PlanRig;
  before(async () => {
    rig = await startPlanRig();
  });
  after(async () => rig?.close());

  /** What the real pass records for the same manifest: the lifecycle's unresolvable record. */
  const realRecord = async (name: string, manifest: string) => {
    await applyManifests(rig.source, manifest);
    await rig.pass(name);
    const object = await rig.source.get('Server', 'default', name);
    const context = (await rig.engine.load(serverLifecycleStream(object?.metadata.uid ?? ''))).snapshot.context as LifecycleContext;
    return context.unresolvable;
  };

  it('an image that does not exist: refused (L9, ImageNotFound) with the message the real pass records; exit 1', async () => {
    const manifest = serverManifest('no-image', MISSING_IMAGE);
    const plan = await rig.plan(manifest);
    const [resource] = plan.resources;
    expect(resource?.refusedBy).to.equal('controller');
    expect(resource?.decisions.map((d) => `${d.event} ${d.rule?.id ?? '—'}`)).to.include('serverLifecycle.desiredUnresolvable L9');
    expect(resource?.decisions.flatMap((d) => d.effects)).to.deep.equal([]);
    expect(exitCodeOf(plan)).to.equal(1);
    expect(planText(plan)).to.include(`REFUSED: Server's pass would record it and create nothing: ${resource?.refusal ?? 'missing'}`);
    const recorded = await realRecord('no-image', manifest);
    expect(resource?.refusal).to.equal(`${recorded?.reason}: ${recorded?.message}`);
    expect(recorded?.reason).to.equal('ImageNotFound');
  });

  it('a flavor no Nova flavor is named: refused (FlavorNotFound) as the real pass records it', async () => {
    const manifest = serverManifest('no-flavor', IMAGES.A, 'm1.nonexistent');
    const plan = await rig.plan(manifest);
    const recorded = await realRecord('no-flavor', manifest);
    expect(recorded?.reason).to.equal('FlavorNotFound');
    expect(plan.resources[0]).to.deep.include({ refusedBy: 'controller', refusal: `${recorded?.reason}: ${recorded?.message}` });
    expect(exitCodeOf(plan)).to.equal(1);
  });

  it('a Server the pass can create is no refusal (exit 0, a create L2)', async () => {
    const plan = await rig.plan(serverManifest('fine-1', IMAGES.A));
    expect(plan.resources[0]?.refusedBy).to.equal(undefined);
    expect(plan.resources[0]?.decisions.map((d) => d.rule?.id)).to.include('L2');
    expect(exitCodeOf(plan)).to.equal(0);
  });
});
