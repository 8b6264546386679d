/**
 * The VLAN allocator (src/provider/inventory/vlan.ts) against the sandbox's real Neutron: a VLAN provider
 * network created with the allocated segmentation id on the sandbox's physical network (ML2:
 * `network_vlan_ranges = physnet1:100:199`, provider networks need admin), read back with that id; a second
 * create on the same id refused by Neutron (the case V4 keeps the id for); delete, then release.
 * A tenant (member) create with the same attributes is refused 403: the create needs admin credentials.
 * The Region range used here is a slice of the sandbox's (190-199) so it cannot meet other tests' networks.
 *
 * The Network controller's path (src/provider/networks.ts, issue 16 wiring): the create with the Region's (admin)
 * credentials *into another project* — `project_id` plus the provider attributes on the network, `project_id` on
 * the subnet — reads back with them; the exact-name observation filters on that project.
 */
import { expect } from 'chai';
import type { Context } from 'mocha';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine/engine.js';
import { openStore } from '../../src/store/open.js';
import type { EventStore } from '../../src/store/port.js';
import { createProductRegistry } from '../../machines/index.js';
import { neutronSegmentation, VlanAllocator } from '../../src/provider/inventory/vlan.js';
import { OpenStackError } from '../../src/openstack/errors.js';
import { createNetworkHandler, deleteNetworkHandler, networkName, observeNetwork } from '../../src/provider/networks.js';
import { silentLogger } from '../../src/log/logger.js';
import { realRun, type RealRun } from './support/run.js';

describe('VLAN provider network on real Neutron', function () {
  let run: RealRun;
  let dir: string;
  let store: EventStore;
  let allocator: VlanAllocator;
  const region = '00000000-0000-4000-8000-00000000f1a0';
  const settings = { physicalNetwork: 'physnet1', vlan: { minID: 190, maxID: 199 } };

  before(async function (this: Context) {
    run = await realRun();
    if (!run.admin) this.skip();
    dir = mkdtempSync(join(tmpdir(), 'regent-vlan-real-'));
    store = await openStore(`sqlite:${join(dir, 'regent.db')}`);
    allocator = new VlanAllocator(new Engine({ store, registry: createProductRegistry() }));
  });
  after(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('Neutron accepts the allocated VLAN id on the physical network; a second network on that id is refused; delete releases it', async () => {
    const neutron = run.admin!.neutron;
    // skip ids another network (a leftover of an earlier run) holds on physnet1: the ledger starts empty here
    const taken = new Set((await neutron.listNetworks({ 'provider:physical_network': 'physnet1' })).map((n) => n['provider:segmentation_id']));
    for (let id = settings.vlan.minID; taken.has(id) && id <= settings.vlan.maxID; id++) await allocator.allocate(region, settings, `foreign-${id}`);

    const a = await allocator.allocate(region, settings, 'net-a', 'default/net-a');
    const name = run.name('vlan-a');
    const created = await neutron.createNetwork({ name, ...neutronSegmentation(a) });
    run.cleanup.add(`network ${name}`, () => neutron.deleteNetwork(created.id));
    const read = await neutron.getNetwork(created.id);
    expect({ type: read['provider:network_type'], physnet: read['provider:physical_network'], id: read['provider:segmentation_id'] }).to.deep.equal({ type: 'vlan', physnet: 'physnet1', id: a.segmentationId });

    // the same id for another network (what the allocator never does) is what Neutron refuses
    const clash = await neutron.createNetwork({ name: run.name('vlan-clash'), ...neutronSegmentation(a) }).then(
      (n) => {
        run.cleanup.add('network vlan-clash', () => neutron.deleteNetwork(n.id));
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(clash).to.be.instanceOf(OpenStackError);
    expect((clash as OpenStackError & { status?: number }).status).to.equal(409);

    // a failed create keeps the id (V4): the next network gets the next free one, which Neutron accepts
    await allocator.createFailed(region, 'physnet1', 'net-a', 'simulated: the create was refused');
    const b = await allocator.allocate(region, settings, 'net-b');
    expect(b.segmentationId).to.not.equal(a.segmentationId);
    const nameB = run.name('vlan-b');
    const createdB = await neutron.createNetwork({ name: nameB, ...neutronSegmentation(b) });
    run.cleanup.add(`network ${nameB}`, () => neutron.deleteNetwork(createdB.id));
    expect((await neutron.getNetwork(createdB.id))['provider:segmentation_id']).to.equal(b.segmentationId);

    // delete, then release (V5): the id is free for the next network
    await neutron.deleteNetwork(created.id);
    expect(await allocator.release(region, 'physnet1', 'net-a')).to.equal(a.segmentationId);
    expect((await allocator.allocate(region, settings, 'net-c')).segmentationId).to.equal(a.segmentationId);
  });

  it("a tenant's credentials (the Identity's project) may not set provider attributes: Neutron's default policy refuses them", async () => {
    const a = await allocator.allocate(region, settings, 'net-tenant');
    const refused = await run.tenant.neutron.createNetwork({ name: run.name('vlan-tenant'), ...neutronSegmentation(a) }).then(
      (n) => {
        run.cleanup.add('network vlan-tenant', () => run.admin!.neutron.deleteNetwork(n.id));
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(OpenStackError);
    expect((refused as OpenStackError).status).to.equal(403);
  });

  it("the Network controller's VLAN create: the Region's credentials create the network and subnet into a scratch project with project_id and the segment; both read back in that project; observed and deleted through the same target", async () => {
    const admin = run.admin!;
    const project = await admin.identityAdmin.createProject({ domainId: 'default', name: run.name('vlan-project') });
    run.cleanup.add(`project ${project.name}`, () => admin.identityAdmin.deleteProject(project.id));
    const uid = `${run.prefix}-vlan-uid`;
    const a = await allocator.allocate(region, settings, uid, 'default/vlan-net');
    const target = { neutron: admin.neutron, intoProject: project.id };
    const context = { stream: `network-lifecycle-${uid}`, logger: silentLogger() } as never;
    const desired = { uid, cidr: '198.51.100.0/28', dnsNameservers: [], physicalNetwork: a.physicalNetwork, segmentationId: a.segmentationId };
    expect(await observeNetwork(target, uid)).to.deep.equal({ kind: 'absent' });
    const created = (await createNetworkHandler(target)({ type: 'neutron.createNetwork', desired }, context)) as { type: string; id: string };
    run.cleanup.add(`network ${networkName(uid)}`, () => admin.neutron.deleteNetwork(created.id).catch(() => undefined));
    expect(created.type).to.equal('created');
    const read = await admin.neutron.getNetwork(created.id);
    expect({ project: read.project_id, type: read['provider:network_type'], physnet: read['provider:physical_network'], id: read['provider:segmentation_id'] }).to.deep.equal({
      project: project.id,
      type: 'vlan',
      physnet: 'physnet1',
      id: a.segmentationId,
    });
    const subnets = await admin.neutron.listSubnets({ network_id: created.id });
    expect(subnets.map((s) => s.project_id)).to.deep.equal([project.id]);
    // the admin sees every project's networks: the lookup is in the named project only
    expect(await observeNetwork(target, uid)).to.include({ kind: 'present', id: created.id });
    expect(await observeNetwork({ neutron: admin.neutron, intoProject: run.tenant.projectId as string }, uid)).to.deep.equal({ kind: 'absent' });
    // a repeated create (a retried effect) adopts it: no second network, no 409 on its own segment
    expect(await createNetworkHandler(target)({ type: 'neutron.createNetwork', desired }, context)).to.deep.equal({ type: 'created', id: created.id });
    expect(await deleteNetworkHandler(target)({ type: 'neutron.deleteNetwork', id: created.id }, context)).to.deep.equal({ type: 'deleteAccepted' });
    expect(await observeNetwork(target, uid)).to.deep.equal({ kind: 'absent' });
    expect(await allocator.release(region, 'physnet1', uid)).to.equal(a.segmentationId);
  });
});
