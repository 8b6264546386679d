/**
 * The pinned-create Placement preflight: what it asks for a flavor and the configured requiredTraits, and
 * Placement's answer for the pinned provider, against the simulator's Placement over HTTP (its baremetal
 * nodes carry CUSTOM_BAREMETAL_GOLD; bm-1 has HW_CPU_X86_SGX, which the bm.gold flavor forbids).
 */
import { expect } from 'chai';
import { startSimulator, SEED, type RunningSimulator } from '../../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../../src/openstack/session.js';
import { cloudFromYaml } from '../../../src/openstack/keystone/clouds-config.js';
import { preflightPinnedProvider, preflightRequest } from '../../../src/provider/inventory/placement-preflight.js';

const BM_GOLD_SPECS = {
  'resources:CUSTOM_BAREMETAL_GOLD': '1', 'resources:VCPU': '0', 'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0',
  'trait:CUSTOM_RAID1': 'required', 'trait:HW_CPU_X86_SGX': 'forbidden', 'capabilities:boot_mode': 'uefi',
};

describe('placement preflight for pinned servers', () => {
  describe('the request: positive custom resources, flavor traits unioned with requiredTraits', () => {
    it('only positive resources:CUSTOM_* entries; standard classes, zeroed and malformed amounts are left out', () => {
      expect(preflightRequest({ ...BM_GOLD_SPECS, 'resources:CUSTOM_FPGA': '0', 'resources:CUSTOM_GPU_A100': '2', 'resources:CUSTOM_BAD': 'x', 'resources:CUSTOM_NEG': '-1', 'resources:VGPU': '1' }).resources)
        .to.deep.equal({ CUSTOM_BAREMETAL_GOLD: 1, CUSTOM_GPU_A100: 2 });
    });
    it('granular groups (resources1:, trait1:) count too; amounts of one class add up', () => {
      expect(preflightRequest({ 'resources1:CUSTOM_NIC': '1', 'resources2:CUSTOM_NIC': '1', 'trait1:CUSTOM_SRIOV': 'required' })).to.deep.equal({ resources: { CUSTOM_NIC: 2 }, required: ['CUSTOM_SRIOV'], forbidden: [] });
    });
    it('trait:X=required is a positive entry, trait:X=forbidden a !X entry, requiredTraits join the required ones (deduplicated); other values are ignored', () => {
      const request = preflightRequest({ ...BM_GOLD_SPECS, 'trait:CUSTOM_ODD': 'preferred' }, ['CUSTOM_RAID1', 'CUSTOM_RACK_A']);
      expect(request.required).to.deep.equal(['CUSTOM_RACK_A', 'CUSTOM_RAID1']);
      expect(request.forbidden).to.deep.equal(['HW_CPU_X86_SGX']);
    });
    it('empty inputs: no resources and no trait filter', () => {
      expect(preflightRequest({}, [])).to.deep.equal({ resources: {}, required: [], forbidden: [] });
      expect(preflightRequest({ 'hw:cpu_policy': 'dedicated' })).to.deep.equal({ resources: {}, required: [], forbidden: [] });
    });
  });

  describe('the answer for the pinned provider (simulator Placement over HTTP)', function () {
    this.timeout(20_000);
    let sim: RunningSimulator;
    let admin: OpenStackSession;
    before(async () => {
      sim = await startSimulator({ clock: 'manual' });
      admin = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    });
    after(async () => sim.close());
    const candidateCalls = () => sim.calls({ method: 'GET' }).filter((c) => c.path.endsWith('/allocation_candidates'));

    it('fits: the gold node has CUSTOM_BAREMETAL_GOLD and RAID1 and no SGX; asked with in_tree=<node> at 1.31', async () => {
      const before = candidateCalls().length;
      expect(await preflightPinnedProvider(admin.placement, SEED.ironicNodes.gold, preflightRequest(BM_GOLD_SPECS))).to.deep.equal({ fits: true, asked: 'allocationCandidates' });
      const call = candidateCalls().slice(before)[0];
      expect(call?.query).to.include(`in_tree=${SEED.ironicNodes.gold}`).and.include('resources=CUSTOM_BAREMETAL_GOLD%3A1').and.include('required=CUSTOM_RAID1%2C%21HW_CPU_X86_SGX');
      expect(JSON.stringify(call?.versions)).to.include('1.31');
    });

    it('a miss names the provider and what was asked: the SGX node (a forbidden trait), the compute host (no such inventory), an unknown provider', async () => {
      for (const provider of [SEED.ironicNodes.sgx, SEED.computeRp, '00000000-0000-4000-8000-000000000000']) {
        const result = await preflightPinnedProvider(admin.placement, provider, preflightRequest(BM_GOLD_SPECS));
        expect(result.fits, provider).to.equal(false);
        expect(result).to.deep.include({ asked: 'allocationCandidates' });
        expect((result as { why: string }).why).to.include(provider).and.include('CUSTOM_BAREMETAL_GOLD:1 with traits CUSTOM_RAID1,!HW_CPU_X86_SGX');
      }
    });

    it('a configured requiredTrait the node lacks is a miss (one Placement has never heard of too: its 400 named); one it has fits', async () => {
      expect((await preflightPinnedProvider(admin.placement, SEED.ironicNodes.gold, preflightRequest(BM_GOLD_SPECS, ['CUSTOM_RAID1']))).fits).to.equal(true);
      const unknown = await preflightPinnedProvider(admin.placement, SEED.ironicNodes.gold, preflightRequest(BM_GOLD_SPECS, ['CUSTOM_RACK_B']));
      expect(unknown).to.deep.include({ fits: false, asked: 'allocationCandidates' });
      expect((unknown as { why: string }).why).to.include('Placement refused the query').and.include('No such trait(s): CUSTOM_RACK_B');
      const lacking = await preflightPinnedProvider(admin.placement, SEED.ironicNodes.gold, preflightRequest({ 'resources:CUSTOM_BAREMETAL_GOLD': '1' }, ['HW_CPU_X86_SGX']));
      expect(lacking.fits, 'the gold node has no SGX').to.equal(false);
      expect((await preflightPinnedProvider(admin.placement, SEED.ironicNodes.sgx, preflightRequest({ 'resources:CUSTOM_BAREMETAL_GOLD': '1' }, ['HW_CPU_X86_SGX']))).fits).to.equal(true);
    });

    it('traits without custom resources: the provider\'s traits decide (no allocation-candidates call); nothing at all: fits without asking', async () => {
      const before = candidateCalls().length;
      expect(await preflightPinnedProvider(admin.placement, SEED.ironicNodes.sgx, preflightRequest({ 'trait:HW_CPU_X86_SGX': 'required' }))).to.deep.equal({ fits: true, asked: 'providerTraits' });
      const miss = await preflightPinnedProvider(admin.placement, SEED.ironicNodes.gold, preflightRequest({ 'trait:HW_CPU_X86_SGX': 'required', 'trait:CUSTOM_RAID1': 'forbidden' }));
      expect(miss).to.deep.include({ fits: false, asked: 'providerTraits' });
      expect((miss as { why: string }).why).to.equal(`missing required HW_CPU_X86_SGX; has forbidden CUSTOM_RAID1 on resource provider ${SEED.ironicNodes.gold}`);
      expect(await preflightPinnedProvider(admin.placement, SEED.ironicNodes.gold, preflightRequest({ 'hw:cpu_policy': 'dedicated' }))).to.deep.equal({ fits: true, asked: 'nothing' });
      expect(candidateCalls().length).to.equal(before);
    });

    it('a trait both required (configured) and forbidden (flavor) can never fit: a miss decided without asking', async () => {
      const before = sim.calls({ method: 'GET' }).length;
      const result = await preflightPinnedProvider(admin.placement, SEED.ironicNodes.gold, preflightRequest(BM_GOLD_SPECS, ['HW_CPU_X86_SGX']));
      expect(result).to.deep.equal({ fits: false, asked: 'nothing', why: 'trait HW_CPU_X86_SGX is both required and forbidden' });
      expect(sim.calls({ method: 'GET' }).length).to.equal(before);
    });

    it('the simulator refuses in_tree below 1.31, as Placement does', async () => {
      const raw = await admin.http('placement').get('/allocation_candidates', { resources: 'CUSTOM_BAREMETAL_GOLD:1', in_tree: SEED.ironicNodes.gold }, { 'OpenStack-API-Version': 'placement 1.22' }).then(() => 'accepted', (e: { status?: number }) => e.status);
      expect(raw).to.equal(400);
    });
  });
});
