import { expect } from 'chai';
import { SEED } from '../../src/simulator/index.js';
import { harness, http } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Placement and Ironic', () => {
  let hs: Harness;
  before(async () => { hs = await harness(); });
  after(async () => { await hs.sim.close(); });
  const p = (path: string) => `${hs.sim.url}/placement${path}`;

  it('serves resource providers with inventory and traits (1.6), echoing the placement microversion', async () => {
    const h = await hs.h('admin', 'placement 1.14');
    const rps = await http.get(p('/resource_providers?name=sandbox'), { headers: h });
    expect(rps.headers['openstack-api-version']).to.equal('placement 1.14');
    expect(rps.data.resource_providers[0]).to.include({ uuid: SEED.computeRp, root_provider_uuid: SEED.computeRp, parent_provider_uuid: null });
    const inv = await http.get(p(`/resource_providers/${SEED.computeRp}/inventories`), { headers: h });
    expect(inv.data.inventories.VCPU).to.deep.equal({ total: 1000, reserved: 0, min_unit: 1, max_unit: 1000, step_size: 1, allocation_ratio: 16 });
    const traits = await http.get(p(`/resource_providers/${SEED.computeRp}/traits`), { headers: h });
    expect(traits.data.traits).to.include('HW_CPU_X86_AVX2');
    expect((await http.get(p(`/resource_providers/${SEED.computeRp}/traits`), { headers: await hs.h('admin', 'placement 1.5') })).status).to.equal(404);
    expect((await http.get(p('/resource_providers'), { headers: await hs.h('demo') })).status).to.equal(403);
  });

  it('updates inventory with generation checks (409 placement.concurrent_update on a stale generation)', async () => {
    const h = await hs.h('admin', 'placement 1.20');
    const rp = await http.post(p('/resource_providers'), { name: 'extra-host' }, { headers: h });
    expect(rp.status).to.equal(200);
    const put = await http.put(p(`/resource_providers/${rp.data.uuid}/inventories`), { resource_provider_generation: 0, inventories: { VCPU: { total: 8 } } }, { headers: h });
    expect(put.data.resource_provider_generation).to.equal(1);
    const stale = await http.put(p(`/resource_providers/${rp.data.uuid}/inventories`), { resource_provider_generation: 0, inventories: { VCPU: { total: 16 } } }, { headers: h });
    expect(stale.status).to.equal(409);
    expect(stale.data.errors[0]).to.include({ status: 409, code: 'placement.concurrent_update' });
    expect((await http.delete(p(`/resource_providers/${rp.data.uuid}`), { headers: h })).status).to.equal(204);
  });

  it('answers allocation_candidates for resources plus required and forbidden (!) traits', async () => {
    const h = await hs.h('admin', 'placement 1.39');
    const cands = async (q: string) => Object.keys((await http.get(p(`/allocation_candidates?${q}`), { headers: h })).data.provider_summaries ?? {}).sort();
    expect(await cands('resources=VCPU:2,MEMORY_MB:1024')).to.deep.equal([SEED.computeRp]);
    expect(await cands('resources=CUSTOM_BAREMETAL_GOLD:1')).to.deep.equal([SEED.ironicNodes.gold, SEED.ironicNodes.sgx].sort());
    expect(await cands('resources=CUSTOM_BAREMETAL_GOLD:1&required=CUSTOM_RAID1,!HW_CPU_X86_SGX')).to.deep.equal([SEED.ironicNodes.gold]);
    expect(await cands('resources=CUSTOM_BAREMETAL_GOLD:1&required=HW_CPU_X86_SGX')).to.deep.equal([SEED.ironicNodes.sgx]);
    expect(await cands('resources=CUSTOM_BAREMETAL_GOLD:1&required=in:HW_CPU_X86_SGX,COMPUTE_NODE')).to.deep.equal([SEED.ironicNodes.sgx]);
    expect(await cands('resources=MEMORY_MB:900000')).to.deep.equal([]);
    const r = await http.get(p('/allocation_candidates?resources=VCPU:1'), { headers: h });
    expect(r.data.allocation_requests[0].allocations[SEED.computeRp].resources).to.deep.equal({ VCPU: 1 });
    expect(r.data.provider_summaries[SEED.computeRp].resources.VCPU).to.deep.equal({ capacity: 16000, used: 0 });
    const unknown = await http.get(p('/allocation_candidates?resources=VCPU:1&required=CUSTOM_NOPE'), { headers: h });
    expect(unknown.status).to.equal(400);
    expect(unknown.data.errors[0].detail).to.contain('No such trait(s)');
    expect((await http.get(p('/allocation_candidates?resources=VCPU:1&required=!COMPUTE_NODE'), { headers: await hs.h('admin', 'placement 1.21') })).status).to.equal(400);
    expect((await http.get(p('/allocation_candidates?resources=VCPU:1'), { headers: await hs.h('admin', 'placement 1.9') })).status).to.equal(404);
  });

  it('Ironic lists nodes by instance_uuid with provision_state and instance_uuid in the detail view', async () => {
    const h = { ...(await hs.h('admin')), 'X-OpenStack-Ironic-API-Version': '1.60' };
    const all = await http.get(`${hs.sim.url}/baremetal/v1/nodes/detail`, { headers: h });
    expect(all.headers['x-openstack-ironic-api-version']).to.equal('1.60');
    expect(all.data.nodes.map((n: { name: string }) => n.name).sort()).to.deep.equal(['bm-0', 'bm-1']);
    expect(all.data.nodes[0]).to.include({ provision_state: 'available', instance_uuid: null, resource_class: 'baremetal.gold' });
    const none = await http.get(`${hs.sim.url}/baremetal/v1/nodes?instance_uuid=11111111-2222-3333-4444-555555555555`, { headers: h });
    expect(none.data.nodes).to.deep.equal([]);
    const one = await http.get(`${hs.sim.url}/baremetal/v1/nodes/bm-0`, { headers: h });
    expect(one.data.uuid).to.equal(SEED.ironicNodes.gold);
    const missing = await http.get(`${hs.sim.url}/baremetal/v1/nodes/nope`, { headers: h });
    expect(missing.status).to.equal(404);
    expect(JSON.parse(missing.data.error_message).faultstring).to.equal('Node nope could not be found.');
  });
});
