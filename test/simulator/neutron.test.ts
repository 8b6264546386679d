import { expect } from 'chai';
import { harness, http, networkId } from './helpers.js';
import type { Harness } from './helpers.js';

describe('simulator: Neutron v2.0', () => {
  let hs: Harness;
  beforeEach(async () => { hs = await harness(); });
  afterEach(async () => { await hs.sim.close(); });
  const n = (p: string) => `${hs.sim.url}/network/v2.0${p}`;

  it('creates a network, a subnet and a port with a fa:16:3e MAC and an allocated fixed IP', async () => {
    const h = await hs.h('demo');
    const net = await http.post(n('/networks'), { network: { name: 'app-net' } }, { headers: h });
    expect(net.status).to.equal(201);
    const sub = await http.post(n('/subnets'), { subnet: { network_id: net.data.network.id, cidr: '192.0.2.0/24', ip_version: 4, name: 'app-sub' } }, { headers: h });
    expect(sub.data.subnet).to.include({ gateway_ip: '192.0.2.1', cidr: '192.0.2.0/24' });
    expect(sub.data.subnet.allocation_pools).to.deep.equal([{ start: '192.0.2.2', end: '192.0.2.254' }]);
    const port = await http.post(n('/ports'), { port: { network_id: net.data.network.id, name: 'p1', device_id: 'dev-1' } }, { headers: h });
    expect(port.status).to.equal(201);
    expect(port.data.port.mac_address).to.match(/^fa:16:3e(:[0-9a-f]{2}){3}$/);
    expect(port.data.port.fixed_ips).to.deep.equal([{ subnet_id: sub.data.subnet.id, ip_address: '192.0.2.2' }]);
    expect(port.data.port.security_groups).to.have.length(1);
    const taken = await http.post(n('/ports'), { port: { network_id: net.data.network.id, fixed_ips: [{ ip_address: '192.0.2.2' }] } }, { headers: h });
    expect(taken.status).to.equal(409);
    expect(taken.data.NeutronError.type).to.equal('IpAddressAlreadyAllocated');
    const inUse = await http.delete(n(`/networks/${net.data.network.id}`), { headers: h });
    expect(inUse.status).to.equal(409);
    expect(inUse.data.NeutronError).to.include({ type: 'NetworkInUse' });
    expect(inUse.data.NeutronError.detail).to.equal('');
    expect((await http.get(n(`/ports?device_id=dev-1`), { headers: h })).data.ports).to.have.length(1);
    expect((await http.get(n(`/ports?fixed_ips=ip_address%3D192.0.2.2`), { headers: h })).data.ports).to.have.length(1);
  });

  it('filters names exactly, validates filter attributes, and pages by id with networks_links', async () => {
    const h = await hs.h('demo');
    for (const name of ['net', 'net-2', 'network']) await http.post(n('/networks'), { network: { name } }, { headers: h });
    expect((await http.get(n('/networks?name=net'), { headers: h })).data.networks.map((x: { name: string }) => x.name)).to.deep.equal(['net']);
    const bad = await http.get(n('/networks?colour=blue'), { headers: h });
    expect(bad.status).to.equal(400);
    expect(bad.data.NeutronError.message).to.equal('[colour] is invalid attribute for filtering');
    const p1 = await http.get(n('/networks?limit=2'), { headers: h });
    expect(p1.data.networks).to.have.length(2);
    const ids = p1.data.networks.map((x: { id: string }) => x.id);
    expect([...ids].sort()).to.deep.equal(ids);
    const next = p1.data.networks_links.find((l: { rel: string }) => l.rel === 'next');
    const p2 = await http.get(next.href, { headers: h });
    expect(p2.data.networks.length).to.be.greaterThan(0);
    const fields = await http.get(n('/networks?fields=id&fields=name'), { headers: h });
    expect(Object.keys(fields.data.networks[0]).sort()).to.deep.equal(['id', 'name']);
  });

  it('manages security groups (default group per project) and rules, refusing duplicates', async () => {
    const h = await hs.h('demo');
    const groups = (await http.get(n('/security-groups'), { headers: h })).data.security_groups;
    expect(groups.map((g: { name: string }) => g.name)).to.deep.equal(['default']);
    const sg = await http.post(n('/security-groups'), { security_group: { name: 'web', description: 'http' } }, { headers: h });
    expect(sg.data.security_group.security_group_rules).to.have.length(2);
    const rule = { security_group_id: sg.data.security_group.id, direction: 'ingress', protocol: 'tcp', port_range_min: 80, port_range_max: 80, remote_ip_prefix: '0.0.0.0/0' };
    expect((await http.post(n('/security-group-rules'), { security_group_rule: rule }, { headers: h })).status).to.equal(201);
    const dup = await http.post(n('/security-group-rules'), { security_group_rule: rule }, { headers: h });
    expect(dup.status).to.equal(409);
    expect(dup.data.NeutronError.type).to.equal('SecurityGroupRuleExists');
    expect((await http.get(n(`/security-groups/${sg.data.security_group.id}`), { headers: await hs.h('other') })).status).to.equal(404);
  });

  it('associates floating IPs through port_id and tags resources with PUT /{resource}/{id}/tags/{tag}', async () => {
    const h = await hs.h('demo');
    const pub = await networkId(hs, 'demo', 'public');
    const net = await networkId(hs, 'demo', 'demo-net');
    const port = (await http.post(n('/ports'), { port: { network_id: net } }, { headers: h })).data.port;
    const fip = await http.post(n('/floatingips'), { floatingip: { floating_network_id: pub, port_id: port.id } }, { headers: h });
    expect(fip.status).to.equal(201);
    expect(fip.data.floatingip).to.include({ port_id: port.id, fixed_ip_address: port.fixed_ips[0].ip_address, status: 'DOWN' });
    expect(fip.data.floatingip.floating_ip_address).to.match(/^172\.24\.4\./);
    expect((await http.post(n('/floatingips'), { floatingip: { floating_network_id: net } }, { headers: h })).status).to.equal(400);
    const dis = await http.put(n(`/floatingips/${fip.data.floatingip.id}`), { floatingip: { port_id: null } }, { headers: h });
    expect(dis.data.floatingip.port_id).to.equal(null);
    expect((await http.put(n(`/networks/${net}/tags/owner-regent`), undefined, { headers: h })).status).to.equal(201);
    expect((await http.get(n(`/networks/${net}/tags/owner-regent`), { headers: h })).status).to.equal(204);
    expect((await http.get(n('/networks?tags=owner-regent'), { headers: h })).data.networks.map((x: { id: string }) => x.id)).to.deep.equal([net]);
    expect((await http.put(n(`/ports/${port.id}/tags`), { tags: ['a', 'b'] }, { headers: h })).data.tags).to.deep.equal(['a', 'b']);
    expect((await http.delete(n(`/ports/${port.id}/tags/zzz`), { headers: h })).status).to.equal(404);
  });

  it('hides other projects\' networks and ports (404) but shows the external network to everyone', async () => {
    const net = await networkId(hs, 'demo', 'demo-net');
    expect((await http.get(n(`/networks/${net}`), { headers: await hs.h('other') })).status).to.equal(404);
    const names = (await http.get(n('/networks'), { headers: await hs.h('other') })).data.networks.map((x: { name: string }) => x.name).sort();
    expect(names).to.deep.equal(['other-net', 'public']);
    const all = (await http.get(n('/networks'), { headers: await hs.h('admin') })).data.networks;
    expect(all.length).to.equal(4);
    expect(all[0]).to.have.property('provider:network_type');
  });

  // docs/simulator-differences.md §18: what the sandbox's real Neutron (ML2, physnet1:100:199) answered
  it("VLAN provider networks: an admin creates one into another project (project_id + provider attributes, read back on GET); a member is refused them (403); a VLAN id already used on the physical network is a 409 VlanIdInUse", async () => {
    const adminH = await hs.h('admin');
    const demoProject = hs.sim.credentials.demo.projectId;
    const segment = { 'provider:network_type': 'vlan', 'provider:physical_network': 'physnet1', 'provider:segmentation_id': 150 };
    const created = await http.post(n('/networks'), { network: { name: 'vlan-150', project_id: demoProject, ...segment } }, { headers: adminH });
    expect(created.status).to.equal(201);
    const read = (await http.get(n(`/networks/${created.data.network.id}`), { headers: adminH })).data.network;
    expect(read).to.include({ project_id: demoProject, ...segment });
    // the member of that project sees it (its own project), without the provider attributes
    const asMember = (await http.get(n(`/networks/${created.data.network.id}`), { headers: await hs.h('demo') })).data.network;
    expect(asMember).to.include({ project_id: demoProject });
    expect(asMember).to.not.have.property('provider:segmentation_id');
    // an admin's subnet on it lands in the project it names
    const subnet = await http.post(n('/subnets'), { subnet: { network_id: created.data.network.id, cidr: '192.0.2.0/24', ip_version: 4, project_id: demoProject } }, { headers: adminH });
    expect(subnet.data.subnet).to.include({ project_id: demoProject });
    const member = await http.post(n('/networks'), { network: { name: 'vlan-151', ...segment, 'provider:segmentation_id': 151 } }, { headers: await hs.h('demo') });
    expect(member.status).to.equal(403);
    expect(member.data.NeutronError.type).to.equal('PolicyNotAuthorized');
    const clash = await http.post(n('/networks'), { network: { name: 'vlan-150-again', ...segment } }, { headers: adminH });
    expect(clash.status).to.equal(409);
    expect(clash.data.NeutronError).to.include({ type: 'VlanIdInUse', message: 'Unable to create the network. The VLAN 150 on physical network physnet1 is in use.' });
    // the same id on another physical network is another segment
    expect((await http.post(n('/networks'), { network: { name: 'vlan-150-physnet2', ...segment, 'provider:physical_network': 'physnet2' } }, { headers: adminH })).status).to.equal(201);
    // a deleted network frees its segment
    expect((await http.delete(n(`/networks/${created.data.network.id}`), { headers: adminH })).status).to.equal(204);
    expect((await http.post(n('/networks'), { network: { name: 'vlan-150-reused', ...segment } }, { headers: adminH })).status).to.equal(201);
  });
});
