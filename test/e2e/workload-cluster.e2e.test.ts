/**
 * Workload clusters end to end (issue 29; openstack-cluster-modules.md): the whole control plane on embedded stores
 * against the simulator over HTTP. A cluster of three control-plane and two worker machines on a network and subnet
 * the test brings, from nothing to every machine ACTIVE, the exports published (status and ConfigMap), and the
 * recorded call order showing each control-plane address in every API pool before its server's create (register
 * before boot); then the deletion in reverse order, leaving nothing behind. Also: a guarded field change refused and
 * never applied, the ovn precondition, a public endpoint with its floating IP and allowed CIDRs, and a supplied one.
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
import { exportsPublisherFor } from '../../src/workload/exports-publisher.js';
import { networkManifest, passesOf, planeOptions, until } from './support/plane.js';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
type Status = { phase?: string; conditions?: Condition[]; observedGeneration?: number; exports?: Record<string, unknown>; endpoint?: { host: string; port: number } } & Record<string, unknown>;

const cluster = (subnetId: string, extra = '') => `apiVersion: regent.dev/v1alpha1
kind: WorkloadCluster
metadata: { name: demo }
spec:
  identityRef: { name: acme }
  subnetID: ${subnetId}
  distribution: kubeadm
  nodeAllowedAddressCIDRs: [10.244.0.0/16]
  additionalTags: { team.example/owner: alice }
${extra}`;

const machine = (name: string, role: 'ControlPlane' | 'Worker', image: string) => `apiVersion: regent.dev/v1alpha1
kind: WorkloadMachine
metadata: { name: ${name} }
spec:
  clusterRef: { name: demo }
  role: ${role}
  image: { id: ${image} }
  flavorName: m1.small
  userData: "#cloud-config\\nhostname: ${name}\\n"
`;

describe('e2e: workload clusters (issue 29)', function () {
  this.timeout(180_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane;
  let demo: OpenStackSession;
  let subnetId: string;
  let subnetCidr: string;
  let image: string;

  const status = async (kind: 'WorkloadCluster' | 'WorkloadMachine', name: string) => (await plane.source.get(kind, 'default', name))?.status as Status | undefined;
  const condition = (s: Status | undefined, type: string) => s?.conditions?.find((c) => c.type === type);
  const available = async (kind: 'WorkloadCluster' | 'WorkloadMachine', name: string, timeoutMs = 60_000) => {
    try {
      return await until(`${kind} ${name} Available`, async () => {
        const s = await status(kind, name);
        return condition(s, 'Available')?.status === 'True' ? s : undefined;
      }, timeoutMs, 100);
    } catch (error) {
      throw new Error(`${(error as Error).message}; its status: ${JSON.stringify(await status(kind, name))}; the cluster: ${JSON.stringify(await status("WorkloadCluster", "demo"))}`, { cause: error });
    }
  };

  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { lbCreate: 100, lbUpdate: 100, lbDelete: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-wc-'));
    demo = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-demo'));
    const network = await demo.neutron.createNetwork({ name: 'workload-net' });
    subnetCidr = '10.20.0.0/24';
    const subnet = await demo.neutron.createSubnet({ name: 'workload-subnet', network_id: network.id, cidr: subnetCidr, ip_version: 4 });
    subnetId = subnet.id;
    image = (await demo.glance.listImages())[0]!.id;
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane.isLeader());
    await applyManifests(plane.source, networkManifest.slice(0, networkManifest.indexOf('---')));
  });
  afterEach(async () => {
    await plane.stop().catch(() => undefined);
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('three control-plane and two worker machines from nothing to ACTIVE: exports published, each control-plane address in every API pool before its server is created; deletion in reverse order leaves nothing', async () => {
    const started = Date.now();
    const callsBefore = sim.calls().length;
    await applyManifests(plane.source, [cluster(subnetId), ...['cp-0', 'cp-1', 'cp-2'].map((n) => machine(n, 'ControlPlane', image)), ...['worker-0', 'worker-1'].map((n) => machine(n, 'Worker', image))].join('---\n'));
    for (const name of ['cp-0', 'cp-1', 'cp-2', 'worker-0', 'worker-1']) await available('WorkloadMachine', name);
    const s = await available('WorkloadCluster', 'demo');
    const wall = Date.now() - started;
    const made = sim.calls().slice(callsBefore);
    // the exports: the schema's keys, exactly
    const exports = s.exports as Record<string, unknown> & { api: { host: string; port: number; pools: Record<string, { id: string; port: number } | null> }; security_group_ids: { control_plane: string[]; worker: string[] } };
    expect(Object.keys(exports).sort()).to.deep.equal(['api', 'control_plane_server_group_id', 'distribution', 'failure_domains', 'network_id', 'node_allowed_address_cidrs', 'provider_id_format', 'region', 'schema', 'security_group_ids', 'subnet_id'].sort());
    expect(exports.schema).to.equal('captf.io/openstack-cluster/v1');
    expect(exports.subnet_id).to.equal(subnetId);
    expect(exports.distribution).to.equal('kubeadm');
    expect(exports.node_allowed_address_cidrs).to.deep.equal(['10.244.0.0/16']);
    expect(exports.failure_domains).to.deep.equal({ nova: {} });
    expect(exports.security_group_ids.control_plane).to.have.length(2);
    expect(exports.security_group_ids.worker).to.deep.equal([exports.security_group_ids.control_plane[1]]);
    expect(exports.api.port).to.equal(6443);
    expect(exports.api.pools.kube_apiserver?.port).to.equal(6443);
    expect(exports.api.pools.rke2_supervisor).to.equal(null);
    expect(s.endpoint?.host).to.equal(exports.api.host);
    // the ConfigMap the machines read says the same
    expect(await exportsPublisherFor(plane.source).read('default', 'demo')).to.deep.equal(exports);
    // the server group holds the control plane
    const group = await demo.nova.getServerGroup(exports.control_plane_server_group_id as string);
    expect(group.members).to.have.length(3);

    // register before boot: each control-plane address is in the members of every pool before its server's POST
    const poolId = exports.api.pools.kube_apiserver!.id;
    for (const name of ['cp-0', 'cp-1', 'cp-2']) {
      const m = await status('WorkloadMachine', name);
      const address = m?.address as string;
      const memberSet = made.find((c) => c.method === 'PUT' && c.path.endsWith(`/pools/${poolId}/members`) && JSON.stringify(c.body).includes(`"${address}"`));
      const create = made.find((c) => c.method === 'POST' && /\/servers$/.test(c.path) && JSON.stringify(c.body).includes(`"name":"${name}"`));
      expect(memberSet, `${name}'s address ${address} put in the pool`).to.not.equal(undefined);
      expect(create, `${name}'s server created`).to.not.equal(undefined);
      expect(memberSet!.seq, `${name}: member before server`).to.be.lessThan(create!.seq);
      // port first, on the cluster's subnet, with the control plane's two groups
      const port = made.find((c) => c.method === 'POST' && c.path.endsWith('/ports') && JSON.stringify(c.body).includes(m?.portID as string ?? 'none'));
      void port;
      const server = (create!.body as { server: { networks: Array<{ port: string }>; metadata: Record<string, string> } }).server;
      expect(server.networks).to.deep.equal([{ port: m?.portID }]);
      expect(server.metadata['captf.io:cluster']).to.equal('demo');
      expect(server.metadata['team.example:owner']).to.equal('alice');
    }
    // the workers are in no pool
    for (const name of ['worker-0', 'worker-1']) {
      const m = await status('WorkloadMachine', name);
      expect(made.some((c) => c.method === 'PUT' && c.path.includes('/members') && JSON.stringify(c.body).includes(`"${m?.address as string}"`))).to.equal(false);
    }
    // listeners: one hour idle timeouts, tagged with the mapped keys
    const listeners = (await demo.octavia.listListeners()).filter((l) => (l.name ?? '').startsWith('lb-'));
    expect(listeners).to.have.length(1);
    const posted = made.find((c) => c.method === 'POST' && c.path.endsWith('/lbaas/listeners'))?.body as { listener: Record<string, unknown> };
    expect(posted.listener.timeout_client_data).to.equal(3_600_000);
    expect(posted.listener.timeout_member_data).to.equal(3_600_000);
    expect(posted.listener.tags).to.include('captf.io:cluster=demo');
    const lbPost = made.find((c) => c.method === 'POST' && c.path.endsWith('/lbaas/loadbalancers'))?.body as { loadbalancer: Record<string, unknown> };
    expect(lbPost.loadbalancer.provider).to.equal('amphora');
    expect(lbPost.loadbalancer.vip_subnet_id).to.equal(subnetId);
    const passes = await passesOf(plane, 'WorkloadCluster');
    console.log(`      simulator: nothing → 5 machines ACTIVE and the endpoint ready in ${wall} ms, ${passes} cluster passes, ${made.length} calls (${made.filter((c) => c.method !== 'GET').length} mutations)`);

    // deletion in reverse order
    const deletedAt = sim.calls().length;
    // the cluster first (the order of `regent delete -f` on a file that lists it first): it waits for its machines,
    // and still takes each departing control plane's address out of the pools, which the machine waits for
    await plane.source.delete('WorkloadCluster', 'default', 'demo');
    await new Promise((r) => setTimeout(r, 300));
    for (const name of ['cp-0', 'cp-1', 'cp-2', 'worker-0', 'worker-1']) await plane.source.delete('WorkloadMachine', 'default', name);
    await until('the cluster gone', async () => (await plane.source.get('WorkloadCluster', 'default', 'demo')) === undefined, 120_000, 100);
    const deletes = sim.calls().slice(deletedAt).filter((c) => c.method === 'DELETE' || (c.method === 'PUT' && c.path.includes('/members')));
    const firstLbDelete = deletes.findIndex((c) => c.path.includes('/lbaas/loadbalancers/'));
    const lastServerDelete = deletes.map((c, i) => (/\/servers\/[^/]+$/.test(c.path) ? i : -1)).reduce((a, b) => Math.max(a, b), -1);
    expect(lastServerDelete).to.be.greaterThan(-1);
    expect(firstLbDelete, 'the load balancer after every server').to.be.greaterThan(lastServerDelete);
    const sgDeletes = deletes.map((c, i) => (c.path.includes('/security-groups/') ? i : -1)).filter((i) => i >= 0);
    expect(Math.min(...sgDeletes), 'the security groups after the load balancer').to.be.greaterThan(firstLbDelete);
    expect((await demo.nova.listServers()).filter((x) => ['cp-0', 'cp-1', 'cp-2', 'worker-0', 'worker-1'].includes(x.name))).to.deep.equal([]);
    expect((await demo.octavia.listLoadBalancers()).filter((lb) => (lb.name ?? '').startsWith('lb-'))).to.deep.equal([]);
    expect((await demo.neutron.listSecurityGroups()).filter((g) => g.name.startsWith('wc-'))).to.deep.equal([]);
    expect((await demo.neutron.listPorts()).filter((p) => p.name.startsWith('wm-'))).to.deep.equal([]);
    expect((await demo.nova.listServerGroups()).filter((g) => g.name.startsWith('wc-'))).to.deep.equal([]);
    expect(await exportsPublisherFor(plane.source).read('default', 'demo')).to.equal(undefined);
  });

  it('a guarded endpoint field changed (the API server port) is refused with EndpointGuard False and never applied', async () => {
    await applyManifests(plane.source, cluster(subnetId));
    await available('WorkloadCluster', 'demo');
    const listenerPosts = () => sim.calls().filter((c) => c.method === 'POST' && c.path.endsWith('/lbaas/listeners')).length;
    const before = listenerPosts();
    await applyManifests(plane.source, cluster(subnetId, '  apiServerPort: 7443\n'));
    const s = await until('EndpointChangeRefused', async () => {
      const x = await status('WorkloadCluster', 'demo');
      return condition(x, 'EndpointGuard')?.reason === 'EndpointChangeRefused' ? x : undefined;
    }, 30_000, 100);
    expect(condition(s, 'EndpointGuard')?.message).to.include('apiServerPort').and.include('6443').and.include('7443');
    expect(condition(s, 'Available')?.status).to.equal('False');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(listenerPosts() - before, 'no listener created for the new port').to.equal(0);
    expect((s.exports as { api: { port: number } } | undefined)?.api.port ?? 6443).to.equal(6443);
  });

  it('the ovn provider with allowed CIDRs fails its precondition before anything is created', async () => {
    const before = sim.calls().filter((c) => c.method !== 'GET').length;
    await applyManifests(plane.source, cluster(subnetId, '  apiEndpoint: { provider: ovn, allowedCIDRs: [203.0.113.0/24] }\n'));
    const s = await until('PreconditionFailed', async () => {
      const x = await status('WorkloadCluster', 'demo');
      return condition(x, 'Available')?.reason === 'PreconditionFailed' ? x : undefined;
    }, 30_000, 100);
    expect(condition(s, 'Available')?.message).to.match(/ovn/);
    expect(sim.calls().filter((c) => c.method !== 'GET').length - before, 'nothing created').to.equal(0);
  });

  it('a public endpoint: a floating IP from the pool on the VIP port is the endpoint host, and the subnet is added to the allowed CIDRs', async () => {
    const router = await demo.neutron.createRouter({ name: 'workload-router', external_gateway_info: { network_id: (await demo.neutron.listNetworks({ name: 'public' }))[0]!.id } });
    await demo.neutron.addRouterInterface(router.id, { subnet_id: subnetId });
    await applyManifests(plane.source, cluster(subnetId, '  apiEndpoint: { public: true, floatingIPPool: public, allowedCIDRs: [203.0.113.0/24] }\n').replace('distribution: kubeadm', 'distribution: rke2'));
    const s = await available('WorkloadCluster', 'demo');
    const exports = s.exports as { api: { host: string; pools: { rke2_supervisor: { port: number } | null } } };
    expect(exports.api.host).to.match(/^172\.24\.4\./);
    expect(exports.api.pools.rke2_supervisor?.port).to.equal(9345);
    const listeners = (await demo.octavia.listListeners()).filter((l) => (l.name ?? '').startsWith('lb-'));
    expect(listeners.map((l) => (l.protocolPort.kind === 'value' ? l.protocolPort.value : null)).sort()).to.deep.equal([6443, 9345]);
    for (const l of listeners) expect(l.allowedCidrs).to.deep.equal({ kind: 'value', value: ['10.20.0.0/24', '203.0.113.0/24'] });
  });

  it('a supplied endpoint: no load balancer, api exports null', async () => {
    await applyManifests(plane.source, cluster(subnetId, '  controlPlaneEndpoint: { host: api.example.test, port: 6443 }\n'));
    const s = await available('WorkloadCluster', 'demo');
    expect((s.exports as { api: unknown }).api).to.equal(null);
    expect(sim.calls().some((c) => c.path.includes('/lbaas/loadbalancers') && c.method === 'POST')).to.equal(false);
  });
  it('an image change on a running machine is rebuilt in place through the rebuild protocol: one rebuild action, never a delete or a second create', async () => {
    const other = (await demo.glance.listImages()).find((i) => i.id !== image)!.id;
    await applyManifests(plane.source, [cluster(subnetId, '  controlPlaneEndpoint: { host: api.example.test, port: 6443 }\n'), machine('worker-0', 'Worker', image)].join('---\n'));
    const before = await available('WorkloadMachine', 'worker-0');
    const serverId = before.serverID as string;
    const from = sim.calls().length;
    await applyManifests(plane.source, machine('worker-0', 'Worker', other));
    await until('worker-0 runs the new image', async () => {
      const s = await status('WorkloadMachine', 'worker-0');
      return condition(s, 'ImageReady')?.status === 'True' && s?.imageID === other && s.observedGeneration === 2 ? s : undefined;
    }, 60_000, 100);
    const calls = sim.calls().slice(from);
    expect(calls.filter((c) => c.method === 'POST' && c.action === 'rebuild').map((c) => c.path), 'exactly one rebuild, of that server').to.deep.equal([`/compute/v2.1/servers/${serverId}/action`]);
    expect(calls.filter((c) => c.method === 'DELETE' && c.path.includes('/servers/')), 'no server deleted').to.deep.equal([]);
    expect(calls.filter((c) => c.method === 'POST' && /\/servers$/.test(c.path)), 'no server created').to.deep.equal([]);
    const history = (await plane.store.readStream(`server-rebuild-${serverId}`)).map((e) => e.type);
    expect(history.indexOf('serverRebuild.armed'), history.join(', ')).to.be.greaterThan(-1);
    expect(history.indexOf('serverRebuild.submitted')).to.be.greaterThan(history.indexOf('serverRebuild.armed'));
    expect(history).to.include('serverRebuild.cleared');
  });
});
