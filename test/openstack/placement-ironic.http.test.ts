import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { BadRequest, NotFound } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { connectAs, rejectionOf, simApi, start } from './support/sim.js';

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
    const required = await admin.placement.listAllocationCandidates({ resources: { VCPU: 1 }, required: ['HW_CPU_X86_AVX2'] });
    expect(required.allocationRequests.length).to.be.greaterThan(0);
    const missing = await admin.placement.listAllocationCandidates({ resources: { VCPU: 1 }, required: ['HW_CPU_X86_SGX'] });
    expect(missing.allocationRequests).to.have.length(0);
    const forbidden = await admin.placement.listAllocationCandidates({ resources: { VCPU: 1 }, forbidden: ['HW_CPU_X86_AVX2'] });
    expect(forbidden.allocationRequests).to.have.length(0);
    const sent = sim.calls({ method: 'GET', pathIncludes: '/allocation_candidates' }).at(-1);
    expect(decodeURIComponent(sent?.query ?? '')).to.contain('required=!HW_CPU_X86_AVX2');
    // Placement resolves trait names first: an unknown one is a 400, not an empty answer.
    expect(await rejectionOf(admin.placement.listAllocationCandidates({ resources: { VCPU: 1 }, required: ['CUSTOM_NO_SUCH_TRAIT'] }))).to.be.instanceOf(BadRequest);
  });

  it('ironic: a node looked up by instance uuid, or none', async () => {
    expect(await admin.ironic.findNodeByInstance('11111111-2222-3333-4444-555555555555')).to.equal(undefined);
    const raw = await admin.http('baremetal').get('/nodes');
    const nodes = (raw.data as { nodes: Array<{ uuid: string }> }).nodes;
    expect(nodes.length).to.be.greaterThan(0);
    const node = await admin.ironic.getNode(nodes[0]?.uuid ?? '');
    expect(node.provisionState.kind).to.equal('value');
  });

  it('ironic: the node behind a baremetal server is found by its instance uuid', async () => {
    const demo = await connectAs(sim, 'demo');
    const image = await demo.glance.findImageByName('cirros-0.6.2-x86_64-disk');
    const network = await demo.neutron.findNetworkByName('demo-net');
    const flavor = await demo.nova.findFlavorByName('bm.gold');
    const { id } = await demo.nova.createServer({ name: 'bm-server', flavorRef: flavor.id, imageRef: image.id, networks: [{ uuid: network.id }] });
    await simApi(sim, 'POST', '/clock/advance', { ms: 1_000 });
    const node = await admin.ironic.findNodeByInstance(id);
    expect(node).to.not.equal(undefined);
    expect(node?.provisionState.kind).to.equal('value');
    expect(sim.calls({ method: 'GET', pathIncludes: '/baremetal/v1/nodes/detail' }).at(-1)?.query).to.equal(`instance_uuid=${id}`);
  });
});
