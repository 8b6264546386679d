/**
 * The pinned-create Placement preflight (issue 16) against the sandbox's real Placement: a scratch resource
 * provider with a custom resource class and a custom trait stands for a pinned baremetal host (nothing
 * schedules on it: no Nova host maps to it); the preflight asks Placement's real allocation candidates with
 * in_tree at 1.31 and reads fits / miss as src/provider/inventory/placement-preflight.ts says.
 */
import { expect } from 'chai';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { preflightPinnedProvider, preflightRequest } from '../../src/provider/inventory/placement-preflight.js';
import { realRun, type RealRun } from './support/run.js';

describe('placement preflight against real Placement (issue 16)', function () {
  let run: RealRun;
  let admin: OpenStackSession;
  let rp: string;
  let computeRp: string;
  const tag = () => run.prefix.replace(/[^a-z0-9]/gi, '_').toUpperCase();
  const rc = () => `CUSTOM_${tag()}_GOLD`;
  const trait = () => `CUSTOM_${tag()}_RAID`;
  const V = { 'OpenStack-API-Version': 'placement 1.31' };

  before(async function () {
    run = await realRun();
    if (!run.admin) this.skip();
    admin = run.admin as OpenStackSession;
    const placement = admin.http('placement');
    computeRp = (await admin.placement.listResourceProviders())[0]?.uuid as string;
    await placement.put(`/resource_classes/${rc()}`, undefined, V);
    run.cleanup.add(`resource class ${rc()}`, async () => void (await placement.delete(`/resource_classes/${rc()}`, undefined, V)));
    await placement.put(`/traits/${trait()}`, undefined, V);
    run.cleanup.add(`trait ${trait()}`, async () => void (await placement.delete(`/traits/${trait()}`, undefined, V)));
    const created = await placement.post('/resource_providers', { name: run.name('pinned-host') }, V);
    rp = (created.data as { uuid: string }).uuid;
    run.cleanup.add(`resource provider ${rp}`, async () => void (await placement.delete(`/resource_providers/${rp}`, undefined, V)));
    const generation = (await admin.placement.getResourceProvider(rp)).generation;
    const inv = await placement.put(`/resource_providers/${rp}/inventories`, { resource_provider_generation: generation, inventories: { [rc()]: { total: 1, max_unit: 1 } } }, V);
    await placement.put(`/resource_providers/${rp}/traits`, { resource_provider_generation: (inv.data as { resource_provider_generation: number }).resource_provider_generation, traits: [trait()] }, V);
  });

  const specs = () => ({ [`resources:${rc()}`]: '1', 'resources:VCPU': '0', [`trait:${trait()}`]: 'required', 'trait:HW_CPU_X86_SGX': 'forbidden' });

  it('the pinned provider with the inventory and the trait fits; the compute host (no such inventory) is a miss naming it', async () => {
    expect(preflightRequest(specs())).to.deep.equal({ resources: { [rc()]: 1 }, required: [trait()], forbidden: ['HW_CPU_X86_SGX'] });
    expect(await preflightPinnedProvider(admin.placement, rp, preflightRequest(specs()))).to.deep.equal({ fits: true, asked: 'allocationCandidates' });
    const miss = await preflightPinnedProvider(admin.placement, computeRp, preflightRequest(specs()));
    expect(miss).to.deep.include({ fits: false, asked: 'allocationCandidates' });
    expect((miss as { why: string }).why).to.include(computeRp);
  });

  it('a forbidden trait the provider has, a configured requiredTrait it lacks, and one Placement does not know are misses; an unknown provider answers no candidate', async () => {
    const forbidden = { ...specs(), [`trait:${trait()}`]: 'forbidden' };
    delete (forbidden as Record<string, string>)['trait:HW_CPU_X86_SGX'];
    expect((await preflightPinnedProvider(admin.placement, rp, preflightRequest(forbidden))).fits).to.equal(false);
    expect((await preflightPinnedProvider(admin.placement, rp, preflightRequest(specs(), ['COMPUTE_NODE']))).fits, 'COMPUTE_NODE: the scratch provider lacks it').to.equal(false);
    const unknown = await preflightPinnedProvider(admin.placement, rp, preflightRequest(specs(), [`CUSTOM_${tag()}_NEVER_CREATED`]));
    expect(unknown.fits).to.equal(false);
    expect((unknown as { why: string }).why).to.match(/Placement refused the query/);
    expect((await preflightPinnedProvider(admin.placement, '00000000-0000-4000-8000-000000000000', preflightRequest(specs()))).fits).to.equal(false);
  });

  it('traits only (no custom resource): the provider\'s own traits decide', async () => {
    expect(await preflightPinnedProvider(admin.placement, rp, preflightRequest({ [`trait:${trait()}`]: 'required' }))).to.deep.equal({ fits: true, asked: 'providerTraits' });
    expect((await preflightPinnedProvider(admin.placement, computeRp, preflightRequest({ [`trait:${trait()}`]: 'required' }))).fits).to.equal(false);
  });
});
