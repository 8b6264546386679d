/**
 * The WorkloadCluster's provider (src/provider/workload/cluster.ts; issue 29) against the simulator over HTTP: the
 * observation's mapping of each lookup (absent, present, duplicate), the subnet's 404, and each handler's four
 * answers (accepted with ids, conflict, rejected, outcomeUnknown), as the sandbox showed Neutron and Nova answer them
 * (docs/simulator-differences.md §22).
 */
import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { EffectContext } from '../../src/engine/engine.js';
import { Forbidden } from '../../src/openstack/errors.js';
import { WORKLOAD_CLUSTER_EFFECTS as E, type EffectAnswer, type RuleParams } from '../../machines/workload-cluster/observation.js';
import { controlPlaneGroupName, nodeGroupName, observeCluster, serverGroupName, workloadClusterHandlers } from '../../src/provider/workload/cluster.js';
import { lookupFlavor, lookupImage, resolveFlavor, resolveImage } from '../../src/provider/workload/images.js';
import { createFixtures, settle, type Fixtures } from '../openstack/support/fixtures.js';
import { captureLogs, connectAs, fault, rejectionOf, simApi, start } from '../openstack/support/sim.js';

describe('workload cluster provider (simulator over HTTP)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let demo: OpenStackSession;
  let admin: OpenStackSession;
  let fx: Fixtures;
  let counter = 0;
  const logs = captureLogs();
  const context = { logger: logs.logger } as unknown as EffectContext;
  const unique = () => `wc-${process.pid}-${++counter}`;

  before(async () => {
    sim = await start();
    demo = await connectAs(sim, 'demo');
    admin = await connectAs(sim, 'admin');
    fx = await createFixtures(admin, demo);
  });
  after(async () => sim.close());
  afterEach(async () => {
    await simApi(sim, 'DELETE', '/faults');
  });

  const run = async (type: string, params: Record<string, unknown>): Promise<EffectAnswer> =>
    (await workloadClusterHandlers(demo)[type]!({ type, subject: String(params.subject ?? 'subject'), ...params }, context)) as EffectAnswer;
  const lookup = (name: string) => ({ name, subnetId: fx.subnetId, wantServerGroup: true, loadBalancerName: `lb-${name.slice(3)}` });
  const rule = (groupId: string, over: Partial<RuleParams> = {}): RuleParams => ({
    security_group_id: groupId, direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', port_range_min: 6443, port_range_max: 6443,
    remote_ip_prefix: '192.0.2.0/24', remote_group_id: null, description: 'kube-apiserver', ...over,
  });

  it('nothing there: the subnet present, every lookup absent, the available zones', async () => {
    const name = unique();
    const observed = await observeCluster(demo, lookup(name));
    expect(observed).to.deep.equal({
      subnet: { kind: 'present', id: fx.subnetId, networkId: fx.networkId, cidr: '192.0.2.0/24', ipVersion: 4 },
      securityGroups: { controlPlane: { kind: 'absent' }, node: { kind: 'absent' } },
      serverGroup: { kind: 'absent' },
      availabilityZones: ['nova'],
      loadBalancer: { kind: 'absent' },
    });
  });

  it('a subnet Neutron does not have (404) is absent; any other refusal fails the observation with the typed error', async () => {
    const observed = await observeCluster(demo, { ...lookup(unique()), subnetId: '00000000-0000-4000-8000-000000000404' });
    expect(observed.subnet).to.deep.equal({ kind: 'absent' });
    await fault(sim, { method: 'GET', path: '/subnets/', status: 403, count: 1 });
    expect(await rejectionOf(observeCluster(demo, lookup(unique())))).to.be.instanceOf(Forbidden);
  });

  it('createSecurityGroup: accepted with its id, tagged through the tags sub-resource (Neutron refuses tags in the POST); observed present with its tags and rules', async () => {
    const name = unique();
    const tags = ['captf.io:cluster=demo', 'captf.io:namespace=team-a'];
    const answer = await run(E.createSecurityGroup, { subject: controlPlaneGroupName(name), name: controlPlaneGroupName(name), description: 'control plane', tags });
    expect(answer).to.deep.include({ type: 'accepted', source: 'effect', effect: E.createSecurityGroup, subject: controlPlaneGroupName(name) });
    const id = (answer as unknown as { ids: { id: string } }).ids.id;
    const post = sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/security-groups')).at(-1)!;
    expect(post.body).to.deep.equal({ security_group: { name: controlPlaneGroupName(name), description: 'control plane' } });
    const observed = await observeCluster(demo, lookup(name));
    const cp = observed.securityGroups.controlPlane;
    expect(cp).to.deep.include({ kind: 'present', id, tags });
    // Neutron's two default egress rules, verbatim: nothing was deleted
    expect((cp as { rules: unknown[] }).rules.map((r) => ({ ...(r as object), id: 'x' }))).to.deep.equal(
      ['IPv4', 'IPv6'].map((ethertype) => ({ id: 'x', direction: 'egress', ethertype, protocol: null, portMin: null, portMax: null, remoteIpPrefix: null, remoteGroupId: null })),
    );
    expect(observed.securityGroups.node).to.deep.equal({ kind: 'absent' });
  });

  it('the simulator refuses tags in a security group POST as Neutron Zed does (400)', async () => {
    const error = await rejectionOf(demo.neutron.createSecurityGroup({ name: unique(), tags: ['a=b'] }));
    expect(error).to.have.property('status', 400);
    expect(error).to.have.property('fault', "Attribute 'tags' not allowed in POST");
  });

  it('createSecurityGroupRule: accepted with its id and observed mapped; the same rule again is a conflict (409 SecurityGroupRuleExists); an invalid one rejected 400', async () => {
    const name = unique();
    const created = await run(E.createSecurityGroup, { subject: nodeGroupName(name), name: nodeGroupName(name), description: 'nodes', tags: [] });
    const groupId = (created as unknown as { ids: { id: string } }).ids.id;
    const first = await run(E.createSecurityGroupRule, { subject: `${nodeGroupName(name)}/api`, rule: rule(groupId) });
    expect(first).to.deep.include({ type: 'accepted' });
    const ruleId = (first as unknown as { ids: { id: string } }).ids.id;
    const byGroup = await run(E.createSecurityGroupRule, { subject: `${nodeGroupName(name)}/all`, rule: rule(groupId, { protocol: null, port_range_min: null, port_range_max: null, remote_ip_prefix: null, remote_group_id: groupId }) });
    expect(byGroup.type).to.equal('accepted');
    const observed = (await observeCluster(demo, lookup(name))).securityGroups.node as { kind: string; rules: Array<Record<string, unknown>> };
    expect(observed.rules).to.deep.include({ id: ruleId, direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', portMin: 6443, portMax: 6443, remoteIpPrefix: '192.0.2.0/24', remoteGroupId: null });
    expect(observed.rules.filter((r) => r.remoteGroupId === groupId)).to.have.length(1);
    expect(await run(E.createSecurityGroupRule, { subject: 'again', rule: rule(groupId, { description: 'other words' }) })).to.deep.equal({ type: 'conflict', source: 'effect', effect: E.createSecurityGroupRule, subject: 'again' });
    expect(await run(E.createSecurityGroupRule, { subject: 'bad', rule: rule(groupId, { protocol: 'tcp', port_range_min: 7000, port_range_max: 6000 }) }))
      .to.deep.equal({ type: 'rejected', source: 'effect', effect: E.createSecurityGroupRule, subject: 'bad', status: 400, reason: 'badRequest' });
    expect(logs.text()).to.include('Security group rule already exists');
  });

  it('two security groups of one exact name are a duplicate (ids sorted); a name that only starts alike is not matched', async () => {
    const name = unique();
    const a = await demo.neutron.createSecurityGroup({ name: controlPlaneGroupName(name) });
    const b = await demo.neutron.createSecurityGroup({ name: controlPlaneGroupName(name) });
    await demo.neutron.createSecurityGroup({ name: `${nodeGroupName(name)}-x` });
    const observed = await observeCluster(demo, lookup(name));
    expect(observed.securityGroups.controlPlane).to.deep.equal({ kind: 'duplicate', ids: [a.id, b.id].sort() });
    expect(observed.securityGroups.node).to.deep.equal({ kind: 'absent' });
  });

  it('createServerGroup: accepted with its id, policy sent as 2.64+ `policy`; observed present with policy and members; two of the name a duplicate; the list is sent without a name filter', async () => {
    const name = unique();
    const answer = await run(E.createServerGroup, { subject: serverGroupName(name), name: serverGroupName(name), policy: 'soft-anti-affinity' });
    expect(answer.type).to.equal('accepted');
    const id = (answer as unknown as { ids: { id: string } }).ids.id;
    const post = sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/os-server-groups')).at(-1)!;
    expect(post.body).to.deep.equal({ server_group: { name: serverGroupName(name), policy: 'soft-anti-affinity' } });
    const seq = sim.calls().at(-1)!.seq;
    expect((await observeCluster(demo, lookup(name))).serverGroup).to.deep.equal({ kind: 'present', id, policy: 'soft-anti-affinity', members: [] });
    const lists = sim.calls().filter((c) => c.seq > seq && c.path.endsWith('/os-server-groups'));
    expect(lists.map((c) => c.query ?? '')).to.deep.equal(['']);
    const other = await demo.nova.createServerGroup(serverGroupName(name), 'anti-affinity');
    expect((await observeCluster(demo, lookup(name))).serverGroup).to.deep.equal({ kind: 'duplicate', ids: [id, other.id].sort() });
    expect(await run(E.createServerGroup, { subject: 'bad', name: 'bad', policy: 'spread-out' })).to.deep.include({ type: 'rejected', status: 0, reason: 'invalidEffect' });
  });

  it('the simulator refuses a name filter on the server-group list as Nova does (400)', async () => {
    const error = await rejectionOf(demo.http('compute').get('/os-server-groups', { name: 'x' }));
    expect(error).to.have.property('status', 400);
  });

  it('the load balancer lb-<uid>: absent, present with Octavia\'s provider and provisioning status, duplicate', async () => {
    const name = unique();
    const lbName = `lb-${name.slice(3)}`;
    expect((await observeCluster(demo, lookup(name))).loadBalancer).to.deep.equal({ kind: 'absent' });
    const lb = await demo.octavia.createLoadBalancer({ name: lbName, vipSubnetId: fx.subnetId });
    expect((await observeCluster(demo, lookup(name))).loadBalancer).to.deep.equal({ kind: 'present', id: lb.id, provider: 'amphora', provisioningStatus: 'PENDING_CREATE' });
    await settle(sim, 2_000);
    expect((await observeCluster(demo, lookup(name))).loadBalancer).to.deep.include({ provisioningStatus: 'ACTIVE' });
    const other = await demo.octavia.createLoadBalancer({ name: lbName, vipSubnetId: fx.subnetId });
    expect((await observeCluster(demo, lookup(name))).loadBalancer).to.deep.equal({ kind: 'duplicate', ids: [lb.id, other.id].sort() });
  });

  it('deletes: accepted, 404 accepted (already gone), a security group in use is a conflict (409), no answer outcomeUnknown', async () => {
    const name = unique();
    const sg = await demo.neutron.createSecurityGroup({ name: controlPlaneGroupName(name) });
    const port = await demo.neutron.createPort({ network_id: fx.networkId, name: `${name}-port`, security_groups: [sg.id] });
    expect(await run(E.deleteSecurityGroup, { subject: 'sg', id: sg.id })).to.deep.equal({ type: 'conflict', source: 'effect', effect: E.deleteSecurityGroup, subject: 'sg' });
    await demo.neutron.deletePort(port.id);
    expect(await run(E.deleteSecurityGroup, { subject: 'sg', id: sg.id })).to.deep.equal({ type: 'accepted', source: 'effect', effect: E.deleteSecurityGroup, subject: 'sg' });
    expect((await run(E.deleteSecurityGroup, { subject: 'sg', id: sg.id })).type).to.equal('accepted');
    const group = await demo.nova.createServerGroup(serverGroupName(name), 'anti-affinity');
    await fault(sim, { method: 'DELETE', path: '/os-server-groups/', status: 503, count: 1 });
    expect(await run(E.deleteServerGroup, { subject: 'g', id: group.id })).to.deep.equal({ type: 'outcomeUnknown', source: 'effect', effect: E.deleteServerGroup, subject: 'g', reason: 'Nova answered HTTP 503' });
    expect((await run(E.deleteServerGroup, { subject: 'g', id: group.id })).type).to.equal('accepted');
    expect((await run(E.deleteServerGroup, { subject: 'g', id: group.id })).type).to.equal('accepted');
    expect(await run(E.deleteServerGroup, { subject: 'g' })).to.deep.include({ type: 'rejected', status: 0, reason: 'invalidEffect' });
  });

  it('a create that goes unanswered is outcomeUnknown; a refused one rejected with the status and Regent\'s reason only', async () => {
    await fault(sim, { method: 'POST', path: '/security-groups$', status: 500, count: 1 });
    expect(await run(E.createSecurityGroup, { subject: 's', name: unique(), description: '', tags: [] })).to.deep.equal({ type: 'outcomeUnknown', source: 'effect', effect: E.createSecurityGroup, subject: 's', reason: 'Neutron answered HTTP 500' });
    await fault(sim, { method: 'POST', path: '/security-groups$', status: 403, count: 1 });
    expect(await run(E.createSecurityGroup, { subject: 's', name: unique(), description: '', tags: [] })).to.deep.equal({ type: 'rejected', source: 'effect', effect: E.createSecurityGroup, subject: 's', status: 403, reason: 'forbidden' });
    expect(Object.keys(workloadClusterHandlers(demo)).sort()).to.deep.equal(Object.values(E).sort());
  });

  it('images and flavors: by id or exact name to an id, null when none (or several images of the name)', async () => {
    expect(await resolveImage(demo, { id: fx.imageId })).to.equal(fx.imageId);
    expect(await resolveImage(demo, { id: '00000000-0000-4000-8000-000000000404' })).to.equal(null);
    const image = await demo.glance.getImage(fx.imageId);
    expect(await resolveImage(demo, { name: image.name! })).to.equal(fx.imageId);
    expect(await resolveImage(demo, { name: `${image.name!}-nope` })).to.equal(null);
    const flavor = await demo.nova.getFlavor(fx.flavorId);
    expect(await resolveFlavor(demo, flavor.name)).to.equal(fx.flavorId);
    expect(await resolveFlavor(demo, flavor.name.slice(0, -1))).to.equal(null);
    expect(await lookupFlavor(demo, flavor.name)).to.deep.equal({ kind: 'present', id: fx.flavorId });
    // Glance allows two images of one name (Nova refuses a second flavor of a name): none to pick from
    const twin = await admin.glance.createImage({ name: image.name!, diskFormat: 'raw', containerFormat: 'bare', visibility: 'public' });
    expect(await lookupImage(demo, { name: image.name! })).to.deep.equal({ kind: 'duplicate', ids: [fx.imageId, twin.id].sort() });
    expect(await resolveImage(demo, { name: image.name! })).to.equal(null);
  });
});
