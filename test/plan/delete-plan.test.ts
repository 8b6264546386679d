/**
 * `regent plan --delete` (issue 32: "for every resource the manifests would create, change or delete"): the plan of
 * `regent delete` of each document's resource. The stored object is marked for deletion in the plan's source only, as
 * the resource source would mark it, and the kind's real passes show the finalizer's decisions: the write-ahead arm
 * (L3), then the delete it reads back (L3, nova.deleteServer, DESTRUCTIVE) — nothing deleted, nothing stored. Then
 * the real deletion's first pass decides what the plan's first pass showed.
 */
import { expect } from 'chai';
import { deleteResource } from '../../src/kube/cli/manifests.js';
import { SEED } from '../../src/simulator/index.js';
import { exitCodeOf } from '../../src/plan/report.js';
import { planText } from '../../src/plan/text.js';
import { stateText, ruleOf } from '../../src/plan/rules.js';
import { IMAGES, serverManifest, startPlanRig, type PlanRig } from './support/rig.js';

describe('plan: a deletion (regent plan --delete)', function () {
  this.timeout(120_000);
  let rig: PlanRig;
  before(async () => {
    rig = await startPlanRig();
  });
  after(async () => rig?.close());

  it("a Server's deletion: the arm (L3), then the delete of the server Nova shows (L3, destructive); nothing is deleted or stored", async () => {
    const id = await rig.bringUp('gone-1', IMAGES.A);
    const head = await rig.store.lastPosition();
    const before = await rig.source.get('Server', 'default', 'gone-1');
    const calls = rig.sim.calls().length;

    const plan = await rig.plan(serverManifest('gone-1', IMAGES.A), { deleting: true });
    const [resource] = plan.resources;
    expect(resource?.verdict).to.equal('planned');
    expect(resource?.apply).to.equal('deleted');
    const decisions = resource?.decisions.map((d) => `${d.pass} ${d.event} ${d.rule?.id ?? '—'}${d.destructive ? ' DESTRUCTIVE' : ''}`);
    expect(decisions).to.deep.equal(['1 serverLifecycle.deleteArmed L3', '2 serverLifecycle.deleteSubmitted L3 DESTRUCTIVE']);
    const del = resource?.decisions[1]?.effects[0];
    expect(del?.type).to.equal('nova.deleteServer');
    expect(del?.calls.map((c) => `${c.method} ${c.path}`)).to.deep.equal([`DELETE /servers/${id}`]);
    expect(resource?.stops).to.match(/waits for the server to be gone/);
    expect(exitCodeOf(plan)).to.equal(2);
    expect(planText(plan)).to.match(/^Server default\/gone-1 \(plan.yaml[^)]*\): deleted$/m);

    // read-only: the server is there, the object is not marked, the store's head has not moved, Nova saw only reads
    expect((await rig.os.nova.getServer(id)).status).to.deep.include({ kind: 'value', value: 'ACTIVE' });
    const after = await rig.source.get('Server', 'default', 'gone-1');
    expect(after?.metadata.deletionTimestamp).to.equal(undefined);
    expect(after?.metadata.resourceVersion).to.equal(before?.metadata.resourceVersion);
    expect(await rig.store.lastPosition()).to.equal(head);
    const mutations = rig.sim.calls().slice(calls).filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path}`);
    expect(mutations).to.deep.equal([]);

    // faithful: the real deletion's first pass decides what the plan's first pass showed
    await deleteResource(rig.source, 'Server', 'gone-1');
    const from = await rig.store.lastPosition();
    await rig.pass('gone-1');
    const real = (await rig.store.readAll({ after: from })).filter((e) => e.metadata.source !== 'monitor' && e.metadata.source !== 'effect');
    expect(real.map((e) => `${e.type} ${stateText(e.metadata.from)} → ${stateText(e.metadata.to)} ${ruleOf(e)?.id ?? '—'}`)).to.deep.equal(
      resource?.decisions.filter((d) => d.pass === 1).map((d) => `${d.event} ${d.from} → ${d.to} ${d.rule?.id ?? '—'}`),
    );
  });

  it('a resource that is not stored: refused with the message delete gives; exit 1', async () => {
    const plan = await rig.plan(serverManifest('never-was', SEED.images.cirros), { deleting: true });
    expect(plan.resources[0]).to.deep.include({ verdict: 'refused', refusal: 'Server "default/never-was" not found' });
    expect(exitCodeOf(plan)).to.equal(1);
  });
});
