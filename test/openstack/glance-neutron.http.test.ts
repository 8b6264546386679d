import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { ConsistencyError, Conflict, NotFound } from '../../src/openstack/errors.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import { uniqueName } from './support/fixtures.js';
import { connectAs, rejectionOf, start } from './support/sim.js';

describe('glance and neutron over HTTP (simulator)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let admin: OpenStackSession;
  let demo: OpenStackSession;

  before(async () => {
    sim = await start();
    admin = await connectAs(sim, 'admin');
    demo = await connectAs(sim, 'demo');
  });
  after(async () => {
    await sim.close();
  });

  describe('glance', () => {
    it('creates, uploads, finds by exact name, sets properties and deletes an image', async () => {
      const name = uniqueName('img');
      const image = await admin.glance.createImage({ name, diskFormat: 'raw', containerFormat: 'bare', properties: { architecture: 'x86_64' } });
      expect(image.status).to.deep.equal({ kind: 'value', value: 'queued' });
      await admin.glance.uploadImageData(image.id, Buffer.from('bytes'));
      const found = await admin.glance.findImageByName(name);
      expect(found.id).to.equal(image.id);
      expect(found.status).to.deep.equal({ kind: 'value', value: 'active' });
      expect(found.properties).to.include({ architecture: 'x86_64' });
      const patched = await admin.glance.setImageProperties(image.id, { hw_firmware_type: 'uefi' });
      expect(patched.properties).to.include({ hw_firmware_type: 'uefi', architecture: 'x86_64' });
      await admin.glance.deleteImage(image.id);
      expect(await rejectionOf(admin.glance.getImage(image.id))).to.be.instanceOf(NotFound);
    });

    it('pages through images via next, keeping the filters', async () => {
      const tag = uniqueName('tag');
      for (let i = 0; i < 5; i++) await admin.glance.createImage({ name: uniqueName('pimg'), diskFormat: 'raw', containerFormat: 'bare', tags: [tag] });
      const before = sim.calls({ method: 'GET', pathIncludes: '/images' }).length;
      const images = await admin.glance.listImages({ tag }, { pageSize: 2 });
      expect(images).to.have.length(5);
      const calls = sim.calls({ method: 'GET', pathIncludes: '/images' }).slice(before);
      expect(calls.length).to.be.within(3, 4);
      expect(calls.every((c) => c.query.includes(`tag=${tag}`))).to.equal(true);
    });

    it('duplicate image names are a ConsistencyError', async () => {
      const name = uniqueName('twin');
      await admin.glance.createImage({ name, diskFormat: 'raw', containerFormat: 'bare' });
      await admin.glance.createImage({ name, diskFormat: 'raw', containerFormat: 'bare' });
      expect(await rejectionOf(admin.glance.findImageByName(name))).to.be.instanceOf(ConsistencyError);
    });
  });

  describe('neutron', () => {
    it('networks, subnets and ports, found by exact name', async () => {
      const net = await demo.neutron.createNetwork({ name: uniqueName('net') });
      const subnet = await demo.neutron.createSubnet({ name: uniqueName('subnet'), network_id: net.id, cidr: '198.51.100.0/24', ip_version: 4 });
      const port = await demo.neutron.createPort({ name: uniqueName('port'), network_id: net.id, fixed_ips: [{ subnet_id: subnet.id }] });
      expect(port.mac_address).to.match(/^[0-9a-f:]{17}$/);
      expect((await demo.neutron.findNetworkByName(net.name)).id).to.equal(net.id);
      expect((await demo.neutron.findSubnetByName(subnet.name)).id).to.equal(subnet.id);
      expect((await demo.neutron.findPortByName(port.name)).id).to.equal(port.id);
      expect(await rejectionOf(demo.neutron.deleteNetwork(net.id))).to.be.instanceOf(Conflict);
      await demo.neutron.deletePort(port.id);
      await demo.neutron.deleteSubnet(subnet.id);
      await demo.neutron.deleteNetwork(net.id);
      expect(await rejectionOf(demo.neutron.getNetwork(net.id))).to.be.instanceOf(NotFound);
    });

    it('tags: replace, add, list, remove', async () => {
      const net = await demo.neutron.createNetwork({ name: uniqueName('tagged') });
      expect(await demo.neutron.replaceTags('networks', net.id, ['a', 'b'])).to.have.members(['a', 'b']);
      await demo.neutron.addTag('networks', net.id, 'c');
      await demo.neutron.removeTag('networks', net.id, 'a');
      expect(await demo.neutron.listTags('networks', net.id)).to.have.members(['b', 'c']);
      expect((await demo.neutron.listNetworks({ tags: 'c' })).map((n) => n.id)).to.include(net.id);
    });

    it('security groups and rules', async () => {
      const sg = await demo.neutron.createSecurityGroup({ name: uniqueName('sg') });
      const rule = await demo.neutron.createSecurityGroupRule({ security_group_id: sg.id, direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 22, port_range_max: 22, remote_ip_prefix: '203.0.113.0/24' });
      const found = await demo.neutron.findSecurityGroupByName(sg.name);
      expect(found.security_group_rules?.map((r) => r.id)).to.include(rule.id);
      await demo.neutron.deleteSecurityGroupRule(rule.id);
      await demo.neutron.deleteSecurityGroup(sg.id);
    });

    it('floating IPs: create on an external network, associate with a port, disassociate, delete', async () => {
      const external = (await admin.neutron.listNetworks({ 'router:external': true }))[0];
      expect(external, 'the simulator seeds an external network').to.not.equal(undefined);
      const net = await demo.neutron.createNetwork({ name: uniqueName('fipnet') });
      const subnet = await demo.neutron.createSubnet({ name: uniqueName('fipsub'), network_id: net.id, cidr: '192.0.2.0/24', ip_version: 4 });
      const router = await demo.neutron.createRouter({ name: uniqueName('router'), external_gateway_info: { network_id: external?.id ?? '' } });
      await demo.neutron.addRouterInterface(router.id, { subnet_id: subnet.id });
      const port = await demo.neutron.createPort({ network_id: net.id, name: uniqueName('fipport') });
      const fip = await demo.neutron.createFloatingIp({ floating_network_id: external?.id ?? '' });
      const associated = await demo.neutron.associateFloatingIp(fip.id, port.id);
      expect(associated.port_id).to.equal(port.id);
      expect((await demo.neutron.associateFloatingIp(fip.id, null)).port_id).to.equal(null);
      await demo.neutron.deleteFloatingIp(fip.id);
    });
  });
});
