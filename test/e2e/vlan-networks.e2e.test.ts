/**
 * VLAN provider networks end to end (issue 16, "VLAN allocation"; docs/network.md, docs/vlan.md): the whole
 * control plane on the embedded stores against the simulator over HTTP. A Region with a managed domain and
 * `network.providerNetworks {physnet1, 100-103}`, an Identity on it, and Networks: each gets the lowest free
 * VLAN id from the Region's ledger, decided (and stored) before the lifecycle decides the create, and Neutron
 * receives the segment and the physical network in a create sent with the Region's credentials into the
 * Identity's project. A Region without providerNetworks keeps the plain path (the Identity's session, no
 * provider attributes).
 *
 * The tests share one control plane and run in order: the ledger they read is the one the earlier tests filled.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { VlanAllocator } from '../../src/provider/inventory/vlan.js';
import { networkName } from '../../src/provider/networks.js';
import { networkLifecycleStream } from '../../machines/network-lifecycle.js';
import { vlanAllocationStream } from '../../machines/vlan-allocation.js';
import { planeOptions, until } from './support/plane.js';

const PHYSNET = 'physnet1';

const region = (name: string, url: string, domain: string, providerNetworks: boolean) => `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: ${name} }
spec:
  provider: openstack
  openstack:
    endpoint: ${url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-credentials }
    domainID: ${domain}
${providerNetworks ? `    network: { providerNetworks: { physicalNetwork: ${PHYSNET}, vlan: { minID: 100, maxID: 103 } } }\n` : ''}`;

const identity = (name: string, regionName: string) => `apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: ${name} }
spec: { regionRef: { name: ${regionName} }, organizationID: acme, projectID: ${name} }
`;

const networkOf = (name: string, identityName: string, prefix: string, annotation = '') => `apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: ${name}${annotation ? `, annotations: { touched: "${annotation}" }` : ''} }
spec: { identityRef: { name: ${identityName} }, prefix: ${prefix} }
`;

interface NetworkStatusView {
  phase?: string;
  networkID?: string;
  vlanID?: number;
  conditions?: Array<{ type: string; status: string; reason: string; message: string }>;
}

describe('e2e: VLAN provider networks (issue 16: the allocator wired into the Network controller)', function () {
  this.timeout(120_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane;
  let admin: OpenStackSession;
  let regionUid: string;
  let projectA: string;

  const status = async (name: string) => (await plane.source.get('Network', 'default', name))?.status as NetworkStatusView | undefined;
  const uidOf = async (name: string) => (await plane.source.get('Network', 'default', name))?.metadata.uid as string;
  const available = (s: NetworkStatusView | undefined) => s?.conditions?.find((c) => c.type === 'Available');
  const holdings = () => new VlanAllocator(plane.engine).holdings(regionUid, PHYSNET);
  const createPosts = (uid: string) => sim.calls({ method: 'POST', pathIncludes: '/networks' }).filter((c) => (c.body as { network?: { name?: string } } | undefined)?.network?.name === networkName(uid));

  before(async () => {
    sim = await startSimulator({ clock: 'real', delays: { serverBuild: 100, rebuildStep: 100, serverDelete: 100, serverAction: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-vlan-e2e-'));
    admin = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-admin'));
    const domain = await admin.identityAdmin.createDomain({ name: 'regent-vlan' });
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane.isLeader());
    await plane.source.secrets.put('default', 'region-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-admin' });
    await applyManifests(plane.source, [region('region-vlan', sim.url, domain.id, true), region('region-plain', sim.url, domain.id, false), identity('tenant-a', 'region-vlan'), identity('tenant-p', 'region-plain')].join('---\n'));
    regionUid = (await plane.source.get('Region', 'default', 'region-vlan'))?.metadata.uid as string;
    projectA = await until('tenant-a realized', async () => ((await plane.source.get('Identity', 'default', 'tenant-a'))?.status as { openstack?: { projectID?: string } } | undefined)?.openstack?.projectID, 60_000);
  });
  after(async () => {
    await plane?.stop().catch(() => undefined);
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("a Network on a Region with providerNetworks is created in Neutron with the allocated VLAN id and physical network, in the Identity's project, by the Region's credentials; status.vlanID shows it", async () => {
    await applyManifests(plane.source, networkOf('net-1', 'tenant-a', '10.1.0.0/24'));
    const s = await until('net-1 ready', async () => ((await status('net-1'))?.phase === 'Ready' ? status('net-1') : undefined), 60_000);
    expect(s?.vlanID).to.equal(100);
    const network = await admin.neutron.getNetwork(s?.networkID as string);
    expect({ type: network['provider:network_type'], physnet: network['provider:physical_network'], id: network['provider:segmentation_id'], project: network.project_id }).to.deep.equal({ type: 'vlan', physnet: PHYSNET, id: 100, project: projectA });
    // the subnet is in the Identity's project too
    const [subnet] = await admin.neutron.listSubnets({ network_id: network.id });
    expect(subnet?.project_id).to.equal(projectA);
    // one create, with the segment and the project named: a member token is refused provider attributes (403), so this 201 was the Region's admin session
    const [post, ...more] = createPosts(await uidOf('net-1'));
    expect(more).to.have.length(0);
    expect(post?.status).to.equal(201);
    expect((post?.body as { network: Record<string, unknown> }).network).to.include({ project_id: projectA, 'provider:network_type': 'vlan', 'provider:physical_network': PHYSNET, 'provider:segmentation_id': 100 });
  });

  it('the allocation event precedes the decision to create, which carries the segment', async () => {
    const uid = await uidOf('net-1');
    const [allocated] = (await plane.store.readStream(vlanAllocationStream(regionUid, PHYSNET))).filter((e) => (e.data as { network?: string }).network === uid);
    const lifecycle = await plane.store.readStream(networkLifecycleStream(uid));
    const create = lifecycle.find((e) => e.type === 'networkLifecycle.createSubmitted');
    expect(allocated?.type).to.equal('vlanAllocation.allocated');
    expect(create, 'the create decision').to.not.equal(undefined);
    expect(allocated!.position).to.be.lessThan(create!.position);
    expect((create!.data as unknown as { desired: Record<string, unknown> }).desired).to.include({ physicalNetwork: PHYSNET, segmentationId: 100 });
    // nothing of the lifecycle was decided before the allocation
    expect(lifecycle.every((e) => e.position > allocated!.position)).to.equal(true);
    // and Neutron's POST arrived after both were stored (the simulator's real clock)
    const [post] = createPosts(uid);
    expect(post!.at).to.be.at.least(Date.parse(create!.metadata.recordedAt));
    expect(Date.parse(create!.metadata.recordedAt)).to.be.at.least(Date.parse(allocated!.metadata.recordedAt));
  });

  it('two Networks get distinct VLAN ids', async () => {
    await applyManifests(plane.source, networkOf('net-2', 'tenant-a', '10.2.0.0/24'));
    const s = await until('net-2 ready', async () => ((await status('net-2'))?.phase === 'Ready' ? status('net-2') : undefined), 60_000);
    expect(s?.vlanID).to.equal(101);
    expect((await admin.neutron.getNetwork(s?.networkID as string))['provider:segmentation_id']).to.equal(101);
    expect((await holdings()).map((h) => h.id)).to.deep.equal([100, 101]);
  });

  it("Neutron refusing the create (409: the VLAN is taken outside Regent) keeps the id on that Network, which parks; the next Network gets another", async () => {
    // a network on physnet1 / VLAN 102 that Regent's ledger knows nothing of
    const foreign = await admin.neutron.createNetwork({ name: 'foreign-vlan-102', 'provider:network_type': 'vlan', 'provider:physical_network': PHYSNET, 'provider:segmentation_id': 102 });
    await applyManifests(plane.source, networkOf('net-3', 'tenant-a', '10.3.0.0/24'));
    const s = await until('net-3 parked', async () => (available(await status('net-3'))?.reason === 'CreateRejected' ? status('net-3') : undefined), 60_000);
    expect(available(s)?.message).to.match(/409/).and.match(/VLAN 102 on physical network physnet1 is in use/);
    expect(s?.vlanID).to.equal(102);
    const uid3 = await uidOf('net-3');
    expect(createPosts(uid3).map((c) => c.status)).to.deep.equal([409]);
    const held = (await holdings()).find((h) => h.network === uid3);
    expect(held).to.include({ id: 102, createFailures: 1 });
    expect(held?.lastFailure).to.match(/409/);
    // the next Network is not handed 102 (V4), though Neutron would now accept it
    await admin.neutron.deleteNetwork(foreign.id);
    await applyManifests(plane.source, networkOf('net-4', 'tenant-a', '10.4.0.0/24'));
    const s4 = await until('net-4 ready', async () => ((await status('net-4'))?.phase === 'Ready' ? status('net-4') : undefined), 60_000);
    expect(s4?.vlanID).to.equal(103);
    expect((await holdings()).map((h) => [h.id, h.network])).to.deep.include([102, uid3]);
  });

  it('an exhausted range is the condition VlanRangeExhausted with the allocator\'s message, and nothing is sent to Neutron', async () => {
    await applyManifests(plane.source, networkOf('net-5', 'tenant-a', '10.5.0.0/24'));
    const s = await until('net-5 exhausted', async () => (available(await status('net-5'))?.reason === 'VlanRangeExhausted' ? status('net-5') : undefined), 60_000);
    expect(available(s)).to.include({ status: 'False' });
    expect(available(s)?.message).to.include('no free VLAN id on physical network physnet1: the range 100-103 is exhausted (4 of 4 ids held)');
    expect(s?.vlanID).to.equal(undefined);
    const uid5 = await uidOf('net-5');
    expect(createPosts(uid5)).to.have.length(0);
    expect((await plane.store.readStream(networkLifecycleStream(uid5))).map((e) => e.type)).to.not.include('networkLifecycle.createSubmitted');
  });

  it('deleting a Network releases its VLAN id once Neutron has no network left, and the waiting Network then gets it', async () => {
    const uid1 = await uidOf('net-1');
    const networkId = (await status('net-1'))?.networkID as string;
    await plane.source.delete('Network', 'default', 'net-1');
    await until('net-1 gone', async () => (await plane.source.get('Network', 'default', 'net-1')) === undefined, 60_000);
    // released only after the Neutron network was gone
    expect(await admin.neutron.listNetworks({ id: networkId })).to.have.length(0);
    const ledger = await plane.store.readStream(vlanAllocationStream(regionUid, PHYSNET));
    const released = ledger.find((e) => e.type === 'vlanAllocation.released' && (e.data as unknown as { network: string }).network === uid1);
    const deleted = (await plane.store.readStream(networkLifecycleStream(uid1))).find((e) => e.type === 'networkLifecycle.deleted' || e.type === 'networkLifecycle.nothingToDelete');
    expect(released, 'the release').to.not.equal(undefined);
    expect(deleted!.position).to.be.lessThan(released!.position);
    expect((await holdings()).map((h) => h.id)).to.not.include(100);
    // the waiting net-5 goes on its next pass (its 30 s recheck; an update wakes it now) and takes the freed id
    await applyManifests(plane.source, networkOf('net-5', 'tenant-a', '10.5.0.0/24', 'wake'));
    const s5 = await until('net-5 ready', async () => ((await status('net-5'))?.phase === 'Ready' ? status('net-5') : undefined), 60_000);
    expect(s5?.vlanID).to.equal(100);
    expect((await admin.neutron.getNetwork(s5?.networkID as string))['provider:segmentation_id']).to.equal(100);
  });

  it("a Network on a Region without providerNetworks sends no provider attributes, with the Identity's own session", async () => {
    const projectP = await until('tenant-p realized', async () => ((await plane.source.get('Identity', 'default', 'tenant-p'))?.status as { openstack?: { projectID?: string } } | undefined)?.openstack?.projectID, 60_000);
    await applyManifests(plane.source, networkOf('net-p', 'tenant-p', '10.9.0.0/24'));
    const s = await until('net-p ready', async () => ((await status('net-p'))?.phase === 'Ready' ? status('net-p') : undefined), 60_000);
    expect(s?.vlanID).to.equal(undefined);
    const [post] = createPosts(await uidOf('net-p'));
    const body = (post?.body as { network: Record<string, unknown> }).network;
    expect(Object.keys(body).filter((k) => k.startsWith('provider:') || k === 'project_id' || k === 'tenant_id')).to.deep.equal([]);
    // no project named, yet the network is in the Identity's project: the token was the Identity's own
    const network = await admin.neutron.getNetwork(s?.networkID as string);
    expect(network.project_id).to.equal(projectP);
    expect(network['provider:network_type']).to.not.equal('vlan');
  });
});
