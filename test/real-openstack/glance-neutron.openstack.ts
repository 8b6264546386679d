/**
 * Glance and Neutron calls of the client layer against the real services, decoded by Regent's decoders:
 * images (create, upload, show, paged list, exact find, JSON-patch properties, delete; duplicate names),
 * networks, subnets, ports, security groups and rules, tags, routers and interfaces, floating IPs, and the
 * provider's network handlers (create, observe, delete) that the Network controller uses.
 */
import { expect } from 'chai';
import type { Context } from 'mocha';
import { ConsistencyError, Conflict, NotFound } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { createNetworkHandler, deleteNetworkHandler, networkName, observeNetwork, subnetName } from '../../src/provider/networks.js';
import type { EffectContext } from '../../src/engine/engine.js';
import { expectDecoded } from './support/decoded.js';
import { realRun, type Fixtures, type RealRun } from './support/run.js';

const rejectionOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('expected a rejection'); }, (error: unknown) => error);

describe('glance client against real Glance', function () {
  let run: RealRun;
  let glance: OpenStackSession['glance'];

  before(async () => {
    run = await realRun();
    glance = run.tenant.glance;
  });

  it('create (queued) → upload → active, with the fields Regent reads decoded; custom properties are top-level', async () => {
    const name = run.name('glance-img');
    const created = await glance.createImage({ name, diskFormat: 'raw', containerFormat: 'bare', minDisk: 1, tags: ['regent-suite'], properties: { architecture: 'x86_64', hw_firmware_type: 'uefi' } });
    run.cleanup.add(`image ${name}`, () => glance.deleteImage(created.id));
    expect(created.status).to.deep.equal({ kind: 'value', value: 'queued' });
    await glance.uploadImageData(created.id, Buffer.from('regent image bytes'));
    const image = await glance.getImage(created.id);
    expectDecoded(image, 'uploaded image');
    expect(image.status).to.deep.equal({ kind: 'value', value: 'active' });
    expect(image.size).to.deep.equal({ kind: 'value', value: 18 });
    // Glance's default visibility for a new image is `shared` (since Image API 2.5), not `private`.
    expect(image.visibility).to.deep.equal({ kind: 'value', value: 'shared' });
    expect(image.properties).to.deep.include({ architecture: 'x86_64', hw_firmware_type: 'uefi' });
    expect(image.tags).to.deep.equal({ kind: 'value', value: ['regent-suite'] });

    const patched = await glance.setImageProperties(created.id, { 'regent.dev/managed': 'yes', architecture: 'aarch64' });
    expect(patched.properties).to.deep.include({ 'regent.dev/managed': 'yes', architecture: 'aarch64' });
    const removed = await glance.updateImage(created.id, [{ op: 'remove', path: '/hw_firmware_type' }]);
    expect(removed.properties).to.not.have.property('hw_firmware_type');
  });

  it('lists page by page (Glance `next`), finds by exact name, and two images with one name are a ConsistencyError', async () => {
    const name = run.name('glance-twin');
    for (let i = 0; i < 2; i++) {
      const image = await glance.createImage({ name, diskFormat: 'raw', containerFormat: 'bare', tags: [run.prefix] });
      run.cleanup.add(`image ${name} #${i}`, () => glance.deleteImage(image.id));
    }
    const fx = await run.fixtures();
    const paged = await glance.listImages({ tag: run.prefix }, { pageSize: 1 });
    expect(paged.map((i) => i.name)).to.deep.equal([name, name]);
    expect((await glance.findImageByName(run.name('image-a'))).id).to.equal(fx.imageA);
    expect(await rejectionOf(glance.findImageByName(name))).to.be.instanceOf(ConsistencyError);
    expect(await rejectionOf(glance.findImageByName(run.name('glance-none')))).to.be.instanceOf(NotFound);
  });

  it('delete → 404 on show', async () => {
    const image = await glance.createImage({ name: run.name('glance-gone'), diskFormat: 'raw', containerFormat: 'bare' });
    await glance.deleteImage(image.id);
    expect(await rejectionOf(glance.getImage(image.id))).to.be.instanceOf(NotFound);
  });
});

describe('neutron client against real Neutron', function () {
  let run: RealRun;
  let fx: Fixtures;
  let neutron: OpenStackSession['neutron'];

  before(async () => {
    run = await realRun();
    fx = await run.fixtures();
    neutron = run.tenant.neutron;
  });

  const needAdmin = (ctx: Context): OpenStackSession => {
    if (!run.admin) ctx.skip();
    return run.admin as OpenStackSession;
  };

  it('networks and subnets: create, show, exact find/lookup, list by network, update, tags', async () => {
    const network = await neutron.getNetwork(fx.networkId);
    expect(network.name).to.equal(run.name('net'));
    expect(network.project_id).to.equal(run.tenant.projectId);
    expect((await neutron.findNetworkByName(run.name('net'))).id).to.equal(fx.networkId);
    expect(await neutron.lookupNetworkByName(run.name('net-none'))).to.equal(undefined);
    const subnets = await neutron.listSubnets({ network_id: fx.networkId });
    expect(subnets.map((s) => s.id)).to.deep.equal([fx.subnetId]);
    expect(subnets[0]).to.deep.include({ cidr: '192.0.2.0/24', ip_version: 4, enable_dhcp: false, gateway_ip: '192.0.2.1' });
    expect((await neutron.findSubnetByName(run.name('subnet'))).id).to.equal(fx.subnetId);
    expect((await neutron.updateNetwork(fx.networkId, { description: 'regent suite' })).description).to.equal('regent suite');
    expect((await neutron.updateSubnet(fx.subnetId, { dns_nameservers: ['192.0.2.53'] })).dns_nameservers).to.deep.equal(['192.0.2.53']);
    expect(await neutron.replaceTags('networks', fx.networkId, ['b', 'a'])).to.have.members(['a', 'b']);
    await neutron.addTag('networks', fx.networkId, 'c');
    await neutron.removeTag('networks', fx.networkId, 'a');
    expect(await neutron.listTags('networks', fx.networkId)).to.have.members(['b', 'c']);
    expect((await neutron.listNetworks({ tags: 'b,c' })).map((n) => n.id)).to.include(fx.networkId);
  });

  it('ports: create with a fixed IP, find by exact name, update, delete; a taken IP is a 409', async () => {
    const name = run.name('port');
    const port = await neutron.createPort({ network_id: fx.networkId, name, fixed_ips: [{ subnet_id: fx.subnetId, ip_address: '192.0.2.200' }] });
    run.cleanup.add(`port ${name}`, () => neutron.deletePort(port.id));
    expect(port.mac_address).to.match(/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/);
    expect(port.fixed_ips).to.deep.equal([{ subnet_id: fx.subnetId, ip_address: '192.0.2.200' }]);
    expect((await neutron.findPortByName(name)).id).to.equal(port.id);
    expect((await neutron.updatePort(port.id, { description: 'regent' })).description).to.equal('regent');
    const taken = await rejectionOf(neutron.createPort({ network_id: fx.networkId, name: run.name('port-2'), fixed_ips: [{ subnet_id: fx.subnetId, ip_address: '192.0.2.200' }] }));
    expect(taken).to.be.instanceOf(Conflict);
    expect((taken as Conflict).fault).to.match(/192\.0\.2\.200/);
    await neutron.deletePort(port.id);
    expect(await rejectionOf(neutron.getPort(port.id))).to.be.instanceOf(NotFound);
  });

  it('security groups and rules: create, rules list/create/delete, exact find, update, delete', async () => {
    const name = run.name('sg');
    const group = await neutron.createSecurityGroup({ name, description: 'regent suite' });
    run.cleanup.add(`security group ${name}`, () => neutron.deleteSecurityGroup(group.id));
    expect((group.security_group_rules ?? []).every((r) => r.direction === 'egress')).to.equal(true);
    const rule = await neutron.createSecurityGroupRule({ security_group_id: group.id, direction: 'ingress', protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '203.0.113.0/24', ethertype: 'IPv4' });
    expect(rule).to.deep.include({ direction: 'ingress', protocol: 'tcp', port_range_min: 22, remote_ip_prefix: '203.0.113.0/24' });
    expect((await neutron.listSecurityGroupRules({ security_group_id: group.id })).map((r) => r.id)).to.include(rule.id);
    expect((await neutron.findSecurityGroupByName(name)).id).to.equal(group.id);
    expect((await neutron.updateSecurityGroup(group.id, { description: 'changed' })).description).to.equal('changed');
    await neutron.deleteSecurityGroupRule(rule.id);
    expect((await neutron.getSecurityGroup(group.id)).security_group_rules?.map((r) => r.id)).to.not.include(rule.id);
  });

  it('routers, interfaces and floating IPs: a FIP needs a router between its port and the external network, and stays DOWN without an L3 agent', async function () {
    const admin = needAdmin(this);
    const external = await admin.neutron.createNetwork({ name: run.name('ext'), 'router:external': true });
    run.cleanup.add(`network ${run.name('ext')}`, () => admin.neutron.deleteNetwork(external.id));
    await admin.neutron.createSubnet({ name: run.name('ext-subnet'), network_id: external.id, cidr: '203.0.113.0/24', ip_version: 4, enable_dhcp: false });

    const port = await neutron.createPort({ network_id: fx.networkId, name: run.name('fip-port') });
    run.cleanup.add(`port ${run.name('fip-port')}`, () => neutron.deletePort(port.id));
    // Without a router: Neutron refuses the association (the simulator allows it, deliberately: src/simulator/README.md).
    const noRouter = await rejectionOf(neutron.createFloatingIp({ floating_network_id: external.id, port_id: port.id, description: run.name('fip') }));
    expect(noRouter).to.be.instanceOf(NotFound);
    expect((noRouter as NotFound).fault).to.match(/External network .* is not reachable from subnet/);

    const router = await neutron.createRouter({ name: run.name('router'), external_gateway_info: { network_id: external.id } });
    run.cleanup.add(`router ${run.name('router')}`, () => neutron.deleteRouter(router.id));
    expect(router.external_gateway_info?.network_id).to.equal(external.id);
    const attached = await neutron.addRouterInterface(router.id, { subnet_id: fx.subnetId });
    run.cleanup.add(`router interface ${run.name('router')}`, () => neutron.removeRouterInterface(router.id, { subnet_id: fx.subnetId }));
    expect(attached.portId).to.be.a('string');
    expect((await neutron.findRouterByName(run.name('router'))).id).to.equal(router.id);
    expect((await neutron.updateRouter(router.id, { description: 'regent' })).description).to.equal('regent');

    const fip = await neutron.createFloatingIp({ floating_network_id: external.id, port_id: port.id, description: run.name('fip') });
    run.cleanup.add(`floating ip ${fip.floating_ip_address}`, () => neutron.deleteFloatingIp(fip.id));
    expect(fip.floating_ip_address).to.match(/^203\.0\.113\./);
    expect(fip.port_id).to.equal(port.id);
    expect((await neutron.getFloatingIp(fip.id)).status).to.equal('DOWN');
    expect((await neutron.associateFloatingIp(fip.id, null)).port_id).to.equal(null);
    expect((await neutron.listFloatingIps({ floating_network_id: external.id })).map((f) => f.id)).to.include(fip.id);
  });

  it("the provider's network handlers: create ensures network + subnet under deterministic names, observe re-finds them, delete removes them (404 is success)", async () => {
    const uid = `${run.prefix}-uid`;
    const context = { logger: run.logger } as unknown as EffectContext;
    expect(await observeNetwork(run.tenant, uid)).to.deep.equal({ kind: 'absent' });
    const created = (await createNetworkHandler(run.tenant)({ type: 'neutron.createNetwork', desired: { uid, cidr: '198.51.100.0/24', dnsNameservers: ['198.51.100.2'] } }, context)) as { type: string; id: string };
    run.cleanup.add(`network ${networkName(uid)}`, () => neutron.deleteNetwork(created.id));
    expect(created.type).to.equal('created');
    const observed = await observeNetwork(run.tenant, uid);
    expect(observed).to.deep.include({ kind: 'present', id: created.id });
    expect((await neutron.findSubnetByName(subnetName(uid))).dns_nameservers).to.deep.equal(['198.51.100.2']);
    // Idempotent: a second create keeps both.
    expect(await createNetworkHandler(run.tenant)({ type: 'neutron.createNetwork', desired: { uid, cidr: '198.51.100.0/24', dnsNameservers: [] } }, context)).to.deep.equal({ type: 'created', id: created.id });
    expect(await deleteNetworkHandler(run.tenant)({ type: 'neutron.deleteNetwork', id: created.id }, context)).to.deep.equal({ type: 'deleteAccepted' });
    expect(await observeNetwork(run.tenant, uid)).to.deep.equal({ kind: 'absent' });
    expect(await deleteNetworkHandler(run.tenant)({ type: 'neutron.deleteNetwork', id: created.id }, context)).to.deep.equal({ type: 'deleteAccepted' });
  });
});
