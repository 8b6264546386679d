import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { NotFound } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { connectAs, rejectionOf, start } from './support/sim.js';

describe('placement and ironic over HTTP (simulator)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let admin: OpenStackSession;

  before(async () => {
    sim = await start();
    admin = await connectAs(sim, 'admin');
  });
  after(async () => {
    await sim.close();
  });

  it('resource providers, inventories and traits at placement 1.6', async () => {
    const providers = await admin.placement.listResourceProviders();
    expect(providers.length).to.be.greaterThan(0);
    const rp = providers[0];
    if (rp === undefined) throw new Error('no provider');
    expect((await admin.placement.findResourceProviderByName(rp.name)).uuid).to.equal(rp.uuid);
    const inventories = await admin.placement.getInventories(rp.uuid);
    expect(Object.keys(inventories)).to.include('VCPU');
    expect(await admin.placement.getProviderTraits(rp.uuid)).to.be.an('array');
    const response = await admin.http('placement').get(`/resource_providers/${rp.uuid}/traits`, undefined, { 'OpenStack-API-Version': 'placement 1.6' });
    expect(response.headers['openstack-api-version']).to.equal('placement 1.6');
    expect(await rejectionOf(admin.placement.getResourceProvider('00000000-0000-0000-0000-000000000000'))).to.be.instanceOf(NotFound);
  });

  it('allocation candidates honour resources, required and forbidden traits', async () => {
    const some = await admin.placement.listAllocationCandidates({ resources: { VCPU: 1, MEMORY_MB: 256 } });
    expect(some.allocationRequests.length).to.be.greaterThan(0);
    expect(some.providerUuids.length).to.be.greaterThan(0);
    const none = await admin.placement.listAllocationCandidates({ resources: { VCPU: 1 }, required: ['CUSTOM_NO_SUCH_TRAIT'] });
    expect(none.allocationRequests).to.have.length(0);
    const sent = sim.calls({ method: 'GET', pathIncludes: '/allocation_candidates' }).at(-1);
    expect(decodeURIComponent(sent?.query ?? '')).to.contain('required=CUSTOM_NO_SUCH_TRAIT');
  });

  it('ironic: a node looked up by instance uuid, or none', async () => {
    expect(await admin.ironic.findNodeByInstance('11111111-2222-3333-4444-555555555555')).to.equal(undefined);
    const raw = await admin.http('baremetal').get('/nodes');
    const nodes = (raw.data as { nodes: Array<{ uuid: string }> }).nodes;
    expect(nodes.length).to.be.greaterThan(0);
    const node = await admin.ironic.getNode(nodes[0]?.uuid ?? '');
    expect(node.provisionState.kind).to.equal('value');
  });
});
