/**
 * The WorkloadMachine's provider (src/provider/workload/machine.ts; issue 29) against the simulator over HTTP: the
 * port, server and API-pool membership lookups (absent, present, duplicate, foreign) and each handler's answers,
 * including the user-data digest check (refused by Regent, nothing sent, when the data changed since the decision).
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { OpenStackSession } from '../../src/openstack/session.js';
import type { EffectContext } from '../../src/engine/engine.js';
import type { EffectAnswer } from '../../machines/workload-cluster/observation.js';
import { WORKLOAD_MACHINE_EFFECTS as E } from '../../machines/workload-machine/observation.js';
import { observeMachine, UID_METADATA_KEY, workloadMachineHandlers } from '../../src/provider/workload/machine.js';
import { createFixtures, settle, type Fixtures } from '../openstack/support/fixtures.js';
import { captureLogs, connectAs, fault, simApi, start } from '../openstack/support/sim.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

describe('workload machine provider (simulator over HTTP)', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let demo: OpenStackSession;
  let fx: Fixtures;
  let counter = 0;
  const userData = new Map<string, string>();
  const logs = captureLogs();
  const context = { logger: logs.logger } as unknown as EffectContext;
  const unique = () => `${process.pid}-${++counter}`;

  before(async () => {
    sim = await start();
    demo = await connectAs(sim, 'demo');
    fx = await createFixtures(await connectAs(sim, 'admin'), demo);
  });
  after(async () => sim.close());
  afterEach(async () => {
    await simApi(sim, 'DELETE', '/faults');
  });

  const run = async (type: string, params: Record<string, unknown>): Promise<EffectAnswer> =>
    (await workloadMachineHandlers(demo, (uid) => userData.get(uid))[type]!({ type, subject: String(params.subject ?? 'subject'), ...params }, context)) as EffectAnswer;
  const idOf = (a: EffectAnswer): string => (a as unknown as { ids: { id: string } }).ids.id;
  const sinceSeq = () => {
    const seq = sim.calls().at(-1)?.seq ?? 0;
    return () => sim.calls().filter((c) => c.seq > seq && c.method !== 'GET' && !c.path.includes('/_sim') && !c.path.includes('/auth/tokens'));
  };

  const portParams = (uid: string, over: Record<string, unknown> = {}) => ({
    subject: `wm-${uid}`, name: `wm-${uid}`, networkId: fx.networkId, subnetId: fx.subnetId, securityGroupIds: [] as string[],
    allowedAddressCIDRs: ['10.244.0.0/16'], tags: ['captf.io:cluster=demo'], ...over,
  });
  const serverParams = (uid: string, portId: string, over: Record<string, unknown> = {}) => ({
    subject: `node-${uid}`, uid, name: `node-${uid}`, imageId: fx.imageId, flavorId: fx.flavorId, portId, userDataDigest: null,
    availabilityZone: null, serverGroupId: null, metadata: { [UID_METADATA_KEY]: uid, 'captf.io:cluster': 'demo' }, ...over,
  });
  const lookup = (uid: string, pools: Array<{ name: string; poolId: string; port: number }> = []) => ({ portName: `wm-${uid}`, serverName: `node-${uid}`, uid, pools });

  it('nothing there: port and server absent, no membership for a worker', async () => {
    const uid = unique();
    expect(await observeMachine(demo, lookup(uid))).to.deep.equal({ port: { kind: 'absent' }, server: { kind: 'absent' }, membership: [] });
  });

  it('createPort: accepted with its id, allowed address pairs as CIDRs, tags through the tags sub-resource; observed present with its address', async () => {
    const uid = unique();
    const sg = await demo.neutron.createSecurityGroup({ name: `wc-${uid}-node` });
    const sent = sinceSeq();
    const answer = await run(E.createPort, portParams(uid, { securityGroupIds: [sg.id] }));
    expect(answer).to.deep.include({ type: 'accepted', source: 'effect', effect: E.createPort, subject: `wm-${uid}` });
    const calls = sent();
    expect(calls.map((c) => `${c.method} ${c.path.replace(/^.*\/v2\.0/, '').replace(/[0-9a-f-]{36}/g, 'ID')}`)).to.deep.equal(['POST /ports', 'PUT /ports/ID/tags']);
    expect(calls[0]!.body).to.deep.equal({
      port: { name: `wm-${uid}`, network_id: fx.networkId, fixed_ips: [{ subnet_id: fx.subnetId }], security_groups: [sg.id], allowed_address_pairs: [{ ip_address: '10.244.0.0/16' }] },
    });
    const port = await demo.neutron.getPort(idOf(answer));
    expect(port.tags).to.deep.equal(['captf.io:cluster=demo']);
    expect(port.allowed_address_pairs?.map((p) => p.ip_address)).to.deep.equal(['10.244.0.0/16']);
    const observed = await observeMachine(demo, { ...lookup(uid), subnetId: fx.subnetId });
    expect(observed.port).to.deep.equal({ kind: 'present', id: port.id, address: port.fixed_ips![0]!.ip_address, status: 'DOWN', deviceId: null, securityGroupIds: [sg.id] });
  });

  it('createServer: on the port, with metadata, the user data (base64) whose digest the decision carried, the zone and the server-group hint; observed present, ours, then ACTIVE with its image', async () => {
    const uid = unique();
    const portId = idOf(await run(E.createPort, portParams(uid)));
    const group = await demo.nova.createServerGroup(`wc-${uid}-control-plane`, 'soft-anti-affinity');
    const data = '#cloud-config\nhostname: node\n';
    userData.set(uid, data);
    const sent = sinceSeq();
    const answer = await run(E.createServer, serverParams(uid, portId, { userDataDigest: sha256(data), availabilityZone: 'nova', serverGroupId: group.id }));
    expect(answer).to.deep.include({ type: 'accepted', effect: E.createServer, subject: `node-${uid}` });
    const post = sent().find((c) => c.method === 'POST' && c.path.endsWith('/servers'))!;
    const body = post.body as { server: Record<string, unknown>; [hints: string]: unknown };
    expect(body.server).to.deep.include({ name: `node-${uid}`, imageRef: fx.imageId, flavorRef: fx.flavorId, networks: [{ port: portId }], availability_zone: 'nova' });
    expect(Buffer.from(String(body.server.user_data), 'base64').toString('utf8')).to.equal(data);
    expect(body['OS-SCH-HNT:scheduler_hints']).to.deep.equal({ group: group.id });
    expect((await demo.nova.getServerGroup(group.id)).members).to.deep.equal([idOf(answer)]);
    const building = await observeMachine(demo, lookup(uid));
    expect(building.server).to.deep.include({ kind: 'present', id: idOf(answer), foreign: false, imageId: fx.imageId });
    await settle(sim, 30_000);
    const active = await observeMachine(demo, lookup(uid));
    expect(active.server).to.deep.equal({ kind: 'present', id: idOf(answer), status: 'ACTIVE', imageId: fx.imageId, taskState: null, foreign: false });
    expect(active.port).to.deep.include({ kind: 'present', status: 'ACTIVE', deviceId: idOf(answer) });
  });

  it('createServer refuses user data that changed since the decision (or appeared, or went): rejected userDataChanged, nothing sent', async () => {
    const uid = unique();
    const portId = idOf(await run(E.createPort, portParams(uid)));
    userData.set(uid, 'new data');
    const sent = sinceSeq();
    for (const digest of [sha256('old data'), null]) {
      expect(await run(E.createServer, serverParams(uid, portId, { userDataDigest: digest })))
        .to.deep.equal({ type: 'rejected', source: 'effect', effect: E.createServer, subject: `node-${uid}`, status: 0, reason: 'userDataChanged' });
    }
    userData.delete(uid);
    expect(await run(E.createServer, serverParams(uid, portId, { userDataDigest: sha256('new data') }))).to.deep.include({ type: 'rejected', reason: 'userDataChanged' });
    expect(sent()).to.deep.equal([]);
    expect(logs.text()).to.not.include('new data');
    // no user data decided and none now: created without user_data
    const ok = await run(E.createServer, serverParams(uid, portId));
    expect(ok.type).to.equal('accepted');
    expect((sent().find((c) => c.path.endsWith('/servers'))!.body as { server: object }).server).to.not.have.property('user_data');
  });

  it('a server of the name without our uid is foreign; two of the exact name are a duplicate; a name Nova\'s regex would also match is not', async () => {
    const uid = unique();
    const portA = await demo.neutron.createPort({ network_id: fx.networkId, name: `a-${uid}` });
    const first = await demo.nova.createServer({ name: `node-${uid}`, imageRef: fx.imageId, flavorRef: fx.flavorId, networks: [{ port: portA.id }], metadata: { [UID_METADATA_KEY]: 'someone-else' } });
    await demo.nova.createServer({ name: `node-${uid}0`, imageRef: fx.imageId, flavorRef: fx.flavorId, networks: 'none' });
    expect((await observeMachine(demo, lookup(uid))).server).to.deep.include({ kind: 'present', id: first.id, foreign: true });
    const second = await demo.nova.createServer({ name: `node-${uid}`, imageRef: fx.imageId, flavorRef: fx.flavorId, networks: 'none' });
    expect((await observeMachine(demo, lookup(uid))).server).to.deep.equal({ kind: 'duplicate', ids: [first.id, second.id].sort() });
    await demo.neutron.createPort({ network_id: fx.networkId, name: `wm-${uid}` });
    await demo.neutron.createPort({ network_id: fx.networkId, name: `wm-${uid}` });
    expect((await observeMachine(demo, lookup(uid))).port.kind).to.equal('duplicate');
  });

  it('membership per pool once the port has an address: its address on the pool\'s port is a member with its status; another port, another pool or a gone pool is not', async () => {
    const uid = unique();
    const portId = idOf(await run(E.createPort, portParams(uid)));
    const address = (await demo.neutron.getPort(portId)).fixed_ips![0]!.ip_address;
    const lb = await demo.octavia.createLoadBalancer({ name: `lb-${uid}`, vipSubnetId: fx.subnetId });
    await settle(sim, 2_000);
    const api = await demo.octavia.createPool({ name: `lb-${uid}-kube-apiserver-pool`, protocol: 'TCP', lbAlgorithm: 'ROUND_ROBIN', loadbalancerId: lb.id });
    await settle(sim, 2_000);
    const rke2 = await demo.octavia.createPool({ name: `lb-${uid}-rke2-supervisor-pool`, protocol: 'TCP', lbAlgorithm: 'ROUND_ROBIN', loadbalancerId: lb.id });
    await settle(sim, 2_000);
    await demo.octavia.replaceMembers(api.id, [{ address, protocolPort: 6443 }, { address: '192.0.2.250', protocolPort: 6443 }]);
    await settle(sim, 2_000);
    await demo.octavia.replaceMembers(rke2.id, [{ address, protocolPort: 6443 }]);
    await settle(sim, 2_000);
    const pools = [
      { name: 'kube_apiserver', poolId: api.id, port: 6443 },
      { name: 'rke2_supervisor', poolId: rke2.id, port: 9345 },
      { name: 'gone', poolId: '00000000-0000-4000-8000-000000000404', port: 6443 },
    ];
    expect((await observeMachine(demo, lookup(uid, pools))).membership).to.deep.equal([
      { name: 'kube_apiserver', poolId: api.id, member: true, provisioningStatus: 'ACTIVE' },
      { name: 'rke2_supervisor', poolId: rke2.id, member: false, provisioningStatus: null },
      { name: 'gone', poolId: pools[2]!.poolId, member: false, provisioningStatus: null },
    ]);
    // no port: no address, no member can be named, no member list is read
    const other = unique();
    const sent = sim.calls().at(-1)!.seq;
    expect((await observeMachine(demo, lookup(other, pools.slice(0, 1)))).membership).to.deep.equal([{ name: 'kube_apiserver', poolId: api.id, member: false, provisioningStatus: null }]);
    expect(sim.calls().filter((c) => c.seq > sent && c.path.includes('/members'))).to.deep.equal([]);
  });

  it('deletes: the server and the port accepted, 404 accepted; a port delete refused 409 is a conflict; no answer outcomeUnknown', async () => {
    const uid = unique();
    const portId = idOf(await run(E.createPort, portParams(uid)));
    const serverId = idOf(await run(E.createServer, serverParams(uid, portId)));
    await fault(sim, { method: 'DELETE', path: '/servers/', status: 504, count: 1 });
    expect(await run(E.deleteServer, { subject: 'srv', id: serverId })).to.deep.equal({ type: 'outcomeUnknown', source: 'effect', effect: E.deleteServer, subject: 'srv', reason: 'Nova answered HTTP 504' });
    expect((await run(E.deleteServer, { subject: 'srv', id: serverId })).type).to.equal('accepted');
    await settle(sim, 30_000);
    expect(await run(E.deleteServer, { subject: 'srv', id: serverId })).to.deep.equal({ type: 'accepted', source: 'effect', effect: E.deleteServer, subject: 'srv' });
    await fault(sim, { method: 'DELETE', path: '/ports/', status: 409, count: 1 });
    expect(await run(E.deletePort, { subject: 'p', id: portId })).to.deep.equal({ type: 'conflict', source: 'effect', effect: E.deletePort, subject: 'p' });
    expect((await run(E.deletePort, { subject: 'p', id: portId })).type).to.equal('accepted');
    expect((await run(E.deletePort, { subject: 'p', id: portId })).type).to.equal('accepted');
    expect((await observeMachine(demo, lookup(uid))).port).to.deep.equal({ kind: 'absent' });
    expect(await run(E.createPort, portParams(uid, { networkId: '00000000-0000-4000-8000-000000000404' }))).to.deep.include({ type: 'rejected', status: 404, reason: 'notFound' });
    expect(await run(E.createPort, portParams(uid, { tags: 'not a list' }))).to.deep.include({ type: 'rejected', status: 0, reason: 'invalidEffect' });
    expect(Object.keys(workloadMachineHandlers(demo, () => undefined)).sort()).to.deep.equal(Object.values(E).sort());
  });
});
