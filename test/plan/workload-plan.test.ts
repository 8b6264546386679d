/**
 * `regent plan` of the workload kinds (issue 32 over issue 29's WorkloadCluster and WorkloadMachine), over the
 * simulator: a new cluster plans its node security group (WC5) with Neutron's request; a cluster whose parts are
 * ready plans its endpoint's load balancer (the load-balancer machine's LB3); a new machine plans its port (WM6), and
 * with its port there its server (WM8, user data as a digest); an unchanged one decides nothing; a change `apply`
 * refuses is shown with apply's message; a machine removed arms (WM11) and then deletes its server (WM12,
 * DESTRUCTIVE), a cluster removed waits for its machines (WC10), then its load balancer goes (LB14, DESTRUCTIVE), then
 * its own parts (W1, W2, DESTRUCTIVE). A plan only reads: the simulator sees GETs (and Keystone token issues), no
 * store moves, the exports ConfigMap a pass would publish is recorded, never written — on Kubernetes too, where the
 * exports are read from the cluster's core API (a GET) and the later passes, a machine's included, read what was
 * recorded; an unchanged cluster records no ConfigMap write, and its real pass does not publish exports it finds
 * published in another key order. The plan's clock is the passes' (a create's 30 s or 60 s grace passes between two
 * passes).
 *
 * And the coverage's labels are the sources': each row's label is one that machines/workload-cluster.ts or
 * machines/workload-machine.ts gives a transition with that outcome (in its comments, or its guard's).
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { applyManifestFiles, applyManifests } from '../../src/kube/cli/manifests.js';
import { HttpSession, type RequestSpec } from '../../src/openstack/http.js';
import type { EventStore } from '../../src/store/port.js';
import type { ResourceSource } from '../../src/kube/port.js';
import { KIND_NAMES, type ClusterExports } from '../../src/resources/index.js';
import { exitCodeOf, type Plan } from '../../src/plan/report.js';
import { isDestructive } from '../../src/plan/destructive.js';
import { workloadClusterDefinition, workloadClusterStream } from '../../machines/workload-cluster.js';
import { workloadMachineDefinition, workloadMachineStream } from '../../machines/workload-machine.js';
import { exportsPublisherFor, exportsConfigMapName, kubernetesExportsPublisher, type ExportsPublisher } from '../../src/workload/exports-publisher.js';
import { workloadClusterWiring } from '../../src/controllers/workload-cluster/wiring.js';
import type { Disposition } from '../../src/controllers/disposition.js';
import { kindTable } from '../../src/app/kinds.js';
import { FakeApiServer } from '../kube/support/fake-apiserver.js';
import { WRITE_AHEAD_OUTCOMES } from '../../machines/write-ahead-delete.js';
import { WORKLOAD_CLUSTER_RULES, WORKLOAD_MACHINE_RULES, WORKLOAD } from '../../src/plan/coverage/workload.js';
import type { RuleRow } from '../../src/plan/rules.js';
import { explore } from '../../src/audit/checks/explore.js';
import { auditOf } from '../../src/audit/profile.js';
import { IMAGES, clusterManifest, kubernetesLike, machineManifest, startWorkloadRig, type WorkloadRig } from './support/workload-rig.js';

const USER_DATA = '#cloud-config\nbootstrap_token: s3cr3t-hunter2\n';
const base64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const UUID = '[0-9a-f-]{36}';

/** Each decision as [pass, event, rule, destructive]. */
const decided = (p: Plan, i = 0) => (p.resources[i]?.decisions ?? []).map((d) => [d.pass, d.event, d.rule?.id ?? null, d.destructive]);

describe('plan: the workload kinds', function () {
  this.timeout(120_000);
  let w: WorkloadRig;
  let worker: string;

  before(async () => {
    w = await startWorkloadRig();
    await w.bringUpCluster('demo');
    worker = await w.bringUpMachine('w-0', 'demo', { image: IMAGES.A, userData: USER_DATA });
    await w.bringUpMachine('cp-0', 'demo', { image: IMAGES.A, role: 'ControlPlane' });
  });
  after(async () => w?.close());

  it('a new WorkloadCluster: its node security group first (WC5), with the request Neutron would get; nothing is created', async () => {
    const plan = await w.plan(clusterManifest('fresh', w.subnetId));
    const [cluster] = plan.resources;
    expect(cluster).to.include({ kind: 'WorkloadCluster', verdict: 'planned', apply: 'created', destructive: false });
    expect(decided(plan)).to.deep.equal([
      [1, 'workloadCluster.securityGroupCreateDecided', 'WC5', false],
      [1, 'scopeReachability.reachable', 'R1', false],
    ]);
    const create = cluster?.decisions[0];
    expect([create?.from, create?.to]).to.deep.equal(['∅', 'live']);
    const effect = create?.effects[0];
    expect(effect?.type).to.equal('workloadCluster.createSecurityGroup');
    const name = String(effect?.params.name);
    expect(name).to.match(new RegExp(`^wc-${UUID}-node$`));
    expect(effect?.params.tags).to.deep.equal(['captf.io:cluster=fresh', 'captf.io:namespace=default']);
    expect(effect?.calls).to.deep.equal([{ service: 'network', method: 'POST', path: '/security-groups', body: { security_group: { name, description: effect?.params.description } } }]);
    expect(cluster?.stops).to.equal('after Neutron accepts the security group: the next pass observes it, then creates the other group or the rules');
    expect(cluster?.writes.map((x) => `${x.op} ${x.detail ?? ''}`)).to.include('addFinalizer regent.dev/workload-cluster');
    expect(exitCodeOf(plan)).to.equal(0);
    expect(await w.source.get('WorkloadCluster', 'default', 'fresh')).to.equal(undefined);
    expect((await w.os.neutron.listSecurityGroups()).filter((g) => g.name === name)).to.deep.equal([]);
  });

  it("the endpoint's load balancer: with the parts ready, the API load balancer's create (LB3) on the cluster's subnet, then Octavia's wait", async () => {
    // the real passes create the parts; Octavia answers the load balancer's create 409 once (a yield: nothing made)
    await applyManifests(w.source, clusterManifest('edge', w.subnetId));
    w.sim.control.addFault({ method: 'POST', path: '/lbaas/loadbalancers$', status: 409, count: 1 });
    for (let i = 0; i < 10 && (await w.cluster('edge')).lb === undefined; i++) {
      await w.pass('WorkloadCluster', 'edge');
      w.sim.clock.advance(1_500);
    }
    const { uid, partsReady, lb } = await w.cluster('edge');
    expect([partsReady, lb]).to.deep.equal([true, 'provisioning']);
    const plan = await w.plan(clusterManifest('edge', w.subnetId));
    const [cluster] = plan.resources;
    expect(decided(plan)).to.deep.equal([[1, 'loadBalancer.loadBalancerCreateSubmitted', 'LB3', false]]);
    const effect = cluster?.decisions[0]?.effects[0];
    expect(effect?.type).to.equal('octavia.createLoadBalancer');
    expect(effect?.params).to.deep.include({ name: `lb-${uid}`, vipSubnetId: w.subnetId, provider: 'amphora', listeners: [] });
    expect(cluster?.stops).to.match(/^after Octavia accepts the create: waits for provisioning_status to leave PENDING_CREATE/);
    expect((await w.os.octavia.listLoadBalancers()).filter((l) => l.name === `lb-${uid}`)).to.deep.equal([]);
  });

  // The request is learnt from the handler of the resource's own kind only (src/plan/planner.ts): the endpoint's
  // Octavia handlers are the LoadBalancer kind's, so the plan shows the effect and its params but no request yet.
  it("the endpoint's load balancer: the Octavia request it would send (needs the planner to find a handler registered by another kind)", async () => {
    const { uid } = await w.cluster('edge');
    const plan = await w.plan(clusterManifest('edge', w.subnetId));
    expect(plan.resources[0]?.decisions[0]?.effects[0]?.calls.map((c) => `${c.method} ${c.path} ${JSON.stringify(c.body)}`)[0]).to.include('POST /lbaas/loadbalancers').and.include(`lb-${uid}`);
  });

  it('the rules: every missing rule in one decision (WC6), each effect with its own rule', async () => {
    // rke2 wants the supervisor port too: two rules the ready cluster does not have yet
    const plan = await w.plan(clusterManifest('demo', w.subnetId, '  distribution: rke2\n'));
    expect(decided(plan)).to.deep.equal([[1, 'workloadCluster.rulesCreateDecided', 'WC6', false]]);
    const effects = plan.resources[0]?.decisions[0]?.effects ?? [];
    expect(effects.map((e) => [e.type, (e.params.rule as { port_range_min: number }).port_range_min, (e.params.rule as { remote_group_id: string | null }).remote_group_id === null])).to.deep.equal([
      ['workloadCluster.createSecurityGroupRule', 9345, true],
      ['workloadCluster.createSecurityGroupRule', 9345, false],
    ]);
  });

  // The request of an effect is learnt for the first effect of its type in the decision (src/plan/planner.ts finds
  // the declared effect by type): the second rule shows the first rule's request.
  it('the rules: each effect shows its own request (needs the planner to describe each declared effect, not the first of its type)', async () => {
    const plan = await w.plan(clusterManifest('demo', w.subnetId, '  distribution: rke2\n'));
    for (const effect of plan.resources[0]?.decisions[0]?.effects ?? []) {
      const rule = effect.params.rule as { description: string; remote_group_id: string | null };
      const sent = (effect.calls[0]?.body as { security_group_rule: { description: string; remote_group_id: string | null } }).security_group_rule;
      expect([sent.description, sent.remote_group_id]).to.deep.equal([rule.description, rule.remote_group_id]);
    }
  });

  it('a new WorkloadMachine: its port first (WM6) as Neutron would get it; with the port there, its server (WM8) whose user data is only a digest', async () => {
    const exports = await exportsPublisherFor(w.source).read('default', 'demo');
    const fresh = await w.plan(machineManifest('w-new', 'demo', { image: IMAGES.B, userData: USER_DATA }));
    expect(fresh.resources[0]).to.include({ apply: 'created', destructive: false });
    expect(decided(fresh)).to.deep.equal([
      [1, 'workloadMachine.portCreateDecided', 'WM6', false],
      [1, 'scopeReachability.reachable', 'R1', false],
    ]);
    const port = fresh.resources[0]?.decisions[0]?.effects[0];
    expect(port?.calls).to.deep.equal([
      {
        service: 'network',
        method: 'POST',
        path: '/ports',
        body: {
          port: {
            name: port?.params.name,
            network_id: exports?.network_id,
            fixed_ips: [{ subnet_id: w.subnetId }],
            security_groups: exports?.security_group_ids.worker,
            allowed_address_pairs: [{ ip_address: '10.244.0.0/16' }],
          },
        },
      },
    ]);
    expect(fresh.resources[0]?.stops).to.equal('after Neutron accepts the port: waits for its address on the subnet');

    // one real pass creates the port; the plan's next step is the server, on that port
    await applyManifests(w.source, machineManifest('w-1', 'demo', { image: IMAGES.B, userData: USER_DATA }));
    await w.pass('WorkloadMachine', 'w-1');
    const plan = await w.plan(machineManifest('w-1', 'demo', { image: IMAGES.B, userData: USER_DATA }));
    expect(decided(plan)).to.deep.equal([[1, 'workloadMachine.serverCreateDecided', 'WM8', false]]);
    const server = plan.resources[0]?.decisions[0]?.effects[0];
    expect(server?.params).to.deep.include({ name: 'w-1', imageId: IMAGES.B, userDataDigest: sha256(USER_DATA) });
    const body = server?.calls[0]?.body as { server: { user_data: string; imageRef: string; networks: unknown } };
    expect([server?.calls[0]?.method, server?.calls[0]?.path, body.server.imageRef]).to.deep.equal(['POST', '/servers', IMAGES.B]);
    expect(body.server.user_data).to.equal(`sha256:${sha256(base64(USER_DATA))}`);
    expect(plan.resources[0]?.stops).to.equal("after Nova accepts the machine's server: waits for it to become ACTIVE");
    // no secret value anywhere in the plan
    const json = JSON.stringify(plan);
    expect(json).to.not.include(base64(USER_DATA)).and.not.include('s3cr3t-hunter2');
    expect((await w.os.nova.listServers()).filter((s) => s.name === 'w-1')).to.deep.equal([]);
  });

  it('a new control plane with its port: it waits to be in every API pool before its server (WM7: register before boot)', async () => {
    await applyManifests(w.source, machineManifest('cp-new', 'demo', { image: IMAGES.A, role: 'ControlPlane' }));
    await w.pass('WorkloadMachine', 'cp-new');
    const plan = await w.plan(machineManifest('cp-new', 'demo', { image: IMAGES.A, role: 'ControlPlane' }));
    expect(decided(plan)).to.deep.equal([[1, 'workloadMachine.waiting', 'WM7', false]]);
    expect(plan.resources[0]?.passes).to.deep.equal(['next pass in 3 s: WaitingForPoolMembership', 'next pass in 3 s: WaitingForPoolMembership']);
    expect(plan.resources[0]?.stops).to.include('WaitingForPoolMembership');
  });

  it('unchanged: a running machine and a ready cluster decide nothing; exit 0', async () => {
    const machine = await w.plan(machineManifest('w-0', 'demo', { image: IMAGES.A, userData: USER_DATA }));
    expect(machine.resources[0]).to.include({ apply: 'unchanged', verdict: 'planned' });
    expect(machine.resources[0]?.decisions).to.deep.equal([]);
    expect(machine.resources[0]?.stops).to.equal('nothing to decide (next pass in 60 s: running the desired image)');
    const cluster = await w.plan(clusterManifest('demo', w.subnetId));
    expect(cluster.resources[0]?.decisions).to.deep.equal([]);
    expect(cluster.resources[0]?.stops).to.equal('nothing to decide (next pass in 60 s: ready)');
    expect([exitCodeOf(machine), exitCodeOf(cluster)]).to.deep.equal([0, 0]);
    // the exports it would publish are those published: no ConfigMap write (nor with the kind table's own wirings,
    // whose publisher is the plane's default, over the plan's read-only source)
    const configMapWrites = (p: Plan) => (p.resources[0]?.writes ?? []).filter((x) => x.kind === 'ConfigMap');
    expect(configMapWrites(cluster)).to.deep.equal([]);
    expect(configMapWrites(await w.plan(clusterManifest('demo', w.subnetId), { table: kindTable() }))).to.deep.equal([]);
  });

  it("a ready cluster's real pass: exports found published (in another key order, or as published) are not published again, nor its status rendered", async () => {
    const reordered = <T>(value: T): T =>
      (Array.isArray(value) ? value.map(reordered) : typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)])) : value) as T;
    for (const order of [reordered, <T>(value: T) => value]) {
      const calls: string[] = [];
      const stored = w.services.exports;
      const exports: ExportsPublisher = {
        read: async (namespace, name) => order(await stored.read(namespace, name)),
        publish: async (namespace, name, value: ClusterExports, options) => (calls.push(`publish ${name}`), stored.publish(namespace, name, value, options)),
        remove: async (namespace, name) => (calls.push(`remove ${name}`), stored.remove(namespace, name)),
      };
      const runtime = workloadClusterWiring.build!({ ...w.services, exports, renderStatus: async (o) => void calls.push(`render ${o.metadata.name}`) });
      const disposition = (await runtime.reconcile!('default/demo')) as Disposition & { why?: string };
      expect(disposition.why).to.equal('ready');
      expect(calls, order === reordered ? 'in another key order' : 'as published').to.deep.equal([]);
    }
  });

  it("the plan's clock is the passes': a create whose answer never came waits out its 30 s grace, and the pass after it creates again (WC9, then WC5)", async () => {
    // the node group's create is answered 503: its outcome unknown, it may still land for 30 s from its decision
    await applyManifests(w.source, clusterManifest('late', w.subnetId));
    w.sim.control.addFault({ method: 'POST', path: '/v2.0/security-groups$', status: 503, count: 1 });
    await w.pass('WorkloadCluster', 'late');
    const { uid } = await w.cluster('late');
    const [pending] = (await w.engine.load(workloadClusterDefinition, workloadClusterStream(uid))).context.pending;
    expect(pending).to.include({ effect: 'workloadCluster.createSecurityGroup', answer: 'unknown' });
    const decidedAt = Date.parse(pending?.decidedAt ?? '');
    // 29.5 s after it: the first pass waits; it yields 1 s, and the plan's next pass, 30.5 s after, creates again
    const plan = await w.plan(clusterManifest('late', w.subnetId), { now: () => new Date(decidedAt + 29_500) });
    expect(decided(plan)).to.deep.equal([
      [1, 'workloadCluster.createMayStillLand', 'WC9', false],
      [2, 'workloadCluster.securityGroupCreateDecided', 'WC5', false],
    ]);
    expect(plan.resources[0]?.passes[0]).to.equal('next pass in 1 s: createMayStillLand: the next pass observes the result');
    // 31 s after it: the first pass creates again
    const later = await w.plan(clusterManifest('late', w.subnetId), { now: () => new Date(decidedAt + 31_000) });
    expect(decided(later)).to.deep.equal([[1, 'workloadCluster.securityGroupCreateDecided', 'WC5', false]]);
  });

  it("the plan's clock is a machine's passes' too: a port create whose answer never came is created again once its 60 s grace has passed", async () => {
    // the port's create is answered 503: it may still land for 60 s from its decision
    await applyManifests(w.source, machineManifest('w-late', 'demo', { image: IMAGES.A }));
    w.sim.control.addFault({ method: 'POST', path: '/v2.0/ports$', status: 503, count: 1 });
    await w.pass('WorkloadMachine', 'w-late');
    const { uid } = await w.machine('w-late');
    const { create } = (await w.engine.load(workloadMachineDefinition, workloadMachineStream(uid))).context;
    expect(create).to.include({ effect: 'workloadMachine.createPort' });
    const decidedAt = Date.parse(create?.decidedAt ?? '');
    const plan = async (afterMs: number) => decided(await w.plan(machineManifest('w-late', 'demo', { image: IMAGES.A }), { now: () => new Date(decidedAt + afterMs) }));
    // 59 s after it: the first pass waits (WM8); its yield takes the plan's clock past the grace, and the next creates
    expect(await plan(59_000)).to.deep.equal([
      [1, 'workloadMachine.waiting', 'WM8', false],
      [2, 'workloadMachine.portCreateDecided', 'WM6', false],
    ]);
    expect(await plan(61_000)).to.deep.equal([[1, 'workloadMachine.portCreateDecided', 'WM6', false]]);
  });

  it("changes apply refuses (an immutable role, cluster, Identity; a supplied endpoint added) are shown with apply's own message; exit 1", async () => {
    const refused = [
      machineManifest('w-0', 'demo', { image: IMAGES.A, userData: USER_DATA, role: 'ControlPlane' }),
      machineManifest('w-0', 'edge', { image: IMAGES.A, userData: USER_DATA }),
      clusterManifest('demo', w.subnetId).replace('identityRef: { name: acme }', 'identityRef: { name: other }'),
      clusterManifest('demo', w.subnetId, '  controlPlaneEndpoint: { host: api.example.com, port: 6443 }\n'),
    ];
    for (const text of refused) {
      let applied: string | undefined;
      try {
        await applyManifestFiles(w.source, [{ file: 'refused.yaml', text }]);
      } catch (error) {
        applied = (error as Error).message;
      }
      expect(applied, text).to.match(/^refused\.yaml: document 1: .*immutable|^refused\.yaml: document 1: .*cannot be added or removed/);
      const plan = await w.plan(text);
      expect(plan.resources[0]?.verdict).to.equal('refused');
      expect(plan.resources[0]?.refusal).to.equal(applied?.replace(/^refused\.yaml/, 'plan.yaml'));
      expect(exitCodeOf(plan)).to.equal(1);
    }
  });

  it('a guarded endpoint field changed: refused by the machine (WC4), never applied; a server group policy changed: inconsistent (WC7)', async () => {
    const port = await w.plan(clusterManifest('demo', w.subnetId, '  apiServerPort: 7443\n'));
    expect(decided(port)).to.deep.equal([[1, 'workloadCluster.guardViolated', 'WC4', false]]);
    expect(port.resources[0]?.decisions[0]?.then).to.equal('waits for the guarded endpoint fields to go back to the record (a change is never applied)');
    const policy = await w.plan(clusterManifest('demo', w.subnetId, '  serverGroupPolicy: soft-anti-affinity\n'));
    expect(decided(policy)).to.deep.equal([[1, 'workloadCluster.inconsistent', 'WC7', false]]);
  });

  it('a machine removed: a worker arms (WM11), then deletes its server (WM12) DESTRUCTIVE, exit 2; a control plane first leaves the pools (WM10)', async () => {
    const plan = await w.plan(machineManifest('w-0', 'demo', { image: IMAGES.A, userData: USER_DATA }), { deleting: true });
    const [machine] = plan.resources;
    expect(machine).to.include({ apply: 'deleted', destructive: true });
    expect(decided(plan)).to.deep.equal([
      [1, 'workloadMachine.deleteArmed', 'WM11', false],
      [2, 'workloadMachine.deleteSubmitted', 'WM12', true],
    ]);
    expect(machine?.decisions[1]?.effects).to.deep.equal([
      { type: 'workloadMachine.deleteServer', params: { subject: 'w-0', id: worker }, destructive: true, calls: [{ service: 'compute', method: 'DELETE', path: `/servers/${worker}` }] },
    ]);
    expect(machine?.stops).to.equal("after Nova accepts the server's delete: waits for it to be gone, then deletes the port");
    expect(exitCodeOf(plan)).to.equal(2);
    expect((await w.os.nova.getServer(worker)).id).to.equal(worker);
    expect((await w.source.get('WorkloadMachine', 'default', 'w-0'))?.metadata.deletionTimestamp).to.equal(undefined);

    const cp = await w.plan(machineManifest('cp-0', 'demo', { image: IMAGES.A, role: 'ControlPlane' }), { deleting: true });
    expect(decided(cp)).to.deep.equal([[1, 'workloadMachine.leavingPools', 'WM10', false]]);
    expect(exitCodeOf(cp)).to.equal(0);
  });

  it('a cluster removed: it waits for its machines (WC10); without machines its load balancer goes first (LB14, DESTRUCTIVE), then its own parts (W1, W2, DESTRUCTIVE)', async () => {
    const waiting = await w.plan(clusterManifest('demo', w.subnetId), { deleting: true });
    expect(decided(waiting).filter(([, event]) => String(event).startsWith('workloadCluster.'))).to.deep.equal([[1, 'workloadCluster.waitingForMachines', 'WC10', false]]);
    expect(waiting.destructive).to.equal(false);

    await w.bringUpCluster('gone');
    const { uid } = await w.cluster('gone');
    const lbFirst = await w.plan(clusterManifest('gone', w.subnetId), { deleting: true });
    expect(decided(lbFirst)).to.deep.equal([
      [1, 'workloadCluster.waitingForLoadBalancer', 'WC10', false],
      [1, 'loadBalancer.deleteArmed', 'LB14', false],
      [2, 'loadBalancer.deleteSubmitted', 'LB14', true],
    ]);
    expect(lbFirst.resources[0]?.decisions[2]?.effects.map((e) => [e.type, e.params.name, e.params.cascade, e.destructive])).to.deep.equal([['octavia.deleteLoadBalancer', `lb-${uid}`, true, true]]);
    expect(exitCodeOf(lbFirst)).to.equal(2);

    // the real deletion until Octavia no longer has the load balancer: the next pass starts on the cluster's own
    // parts, server group first
    await w.source.delete('WorkloadCluster', 'default', 'gone');
    const lbSeen = async () => (await w.os.octavia.listLoadBalancers()).some((l) => l.name === `lb-${uid}`);
    for (let i = 0; i < 20 && (await lbSeen()); i++) {
      await w.pass('WorkloadCluster', 'gone');
      w.sim.clock.advance(1_500);
    }
    expect(await lbSeen()).to.equal(false);
    const parts = await w.plan(clusterManifest('gone', w.subnetId), { deleting: true });
    const [cluster] = parts.resources;
    expect(decided(parts)).to.deep.equal([
      [1, 'workloadCluster.deleteArmed', 'W1', false],
      [1, 'loadBalancer.deleted', 'LB14', false],
      [2, 'workloadCluster.deleteSubmitted', 'W2', true],
    ]);
    const group = (await w.os.nova.listServerGroups()).find((g) => g.name === `wc-${uid}-control-plane`);
    expect(cluster?.decisions[2]?.effects).to.deep.equal([
      { type: 'workloadCluster.deleteServerGroup', params: { subject: `wc-${uid}-control-plane`, id: group?.id }, destructive: true, calls: [{ service: 'compute', method: 'DELETE', path: `/os-server-groups/${group?.id}` }] },
    ]);
    expect(cluster?.stops).to.equal('after Nova (the server group) or Neutron (a security group) accepts the delete: waits for the part to be gone, then arms the next');
  });

  it("destructive: the deletes of a machine's server and of the cluster's groups; not the creates, nor a port's delete (WM13: nothing runs on it)", () => {
    const flags = (definition: typeof workloadMachineDefinition | typeof workloadClusterDefinition) => Object.fromEntries(definition.effects.map((type) => [type, isDestructive(type, definition)]));
    expect(flags(workloadMachineDefinition)).to.deep.equal({
      'workloadMachine.createPort': false,
      'workloadMachine.createServer': false,
      'workloadMachine.deleteServer': true,
      'workloadMachine.deletePort': false,
    });
    expect(flags(workloadClusterDefinition)).to.deep.equal({
      'workloadCluster.createSecurityGroup': false,
      'workloadCluster.createSecurityGroupRule': false,
      'workloadCluster.createServerGroup': false,
      'workloadCluster.deleteSecurityGroup': true,
      'workloadCluster.deleteServerGroup': true,
    });
  });

  describe('read-only', () => {
    /** Every mutating request any HttpSession of this process sends is refused and counted (Keystone token issue aside). */
    const plantHttpTripwire = () => {
      const trips: string[] = [];
      const original = Object.getOwnPropertyDescriptor(HttpSession.prototype, 'request')?.value as HttpSession['request'];
      HttpSession.prototype.request = function (this: HttpSession, spec: RequestSpec) {
        if (spec.method !== 'GET' && spec.method !== 'HEAD' && !spec.path.endsWith('/auth/tokens')) {
          trips.push(`${spec.method} ${spec.path}`);
          return Promise.reject(new Error(`tripwire: ${spec.method} ${spec.path}`));
        }
        return original.call(this, spec);
      };
      return { trips, remove: () => void (HttpSession.prototype.request = original) };
    };
    const WRITES = ['create', 'apply', 'update', 'patchStatus', 'addFinalizer', 'removeFinalizer', 'delete', 'recordEvent'];
    const tripwired = <T extends object>(target: T, refused: readonly string[], trips: string[], extra: Record<string, unknown> = {}): T =>
      new Proxy(target, {
        get: (t, property) => {
          if (property in extra) return extra[property as string];
          if (refused.includes(String(property)))
            return async () => {
              trips.push(String(property));
              throw new Error(`tripwire: ${String(property)}`);
            };
          const value: unknown = Reflect.get(t, property, t);
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
        },
      });
    const snapshotOf = async () => ({
      last: await w.store.lastPosition(),
      heads: await w.store.listStreams(),
      resources: await Promise.all([...KIND_NAMES, 'ConfigMap' as never].map(async (kind) => JSON.stringify((await w.source.list(kind)).items))),
      events: await w.source.listEvents(),
    });

    it('new, changed and removed machines and clusters: only GETs (and token issues) reach the simulator, no store or stream moves, the writes are recorded', async () => {
      // a ready cluster whose exports ConfigMap is gone: its pass would publish it again
      await w.bringUpCluster('ro');
      await w.source.delete('ConfigMap' as never, 'default', exportsConfigMapName('ro'));
      const documents = [
        clusterManifest('ro', w.subnetId),
        clusterManifest('fresh-2', w.subnetId),
        machineManifest('w-2', 'demo', { image: IMAGES.A, userData: USER_DATA }),
        machineManifest('w-0', 'demo', { image: IMAGES.C, userData: USER_DATA }), // the image: the rebuild, destructive
      ].join('---\n');
      const before = await snapshotOf();
      const firstCall = w.sim.calls().length;
      const http = plantHttpTripwire();
      const trips: string[] = [];
      const store = tripwired(w.store, ['append'], trips) as EventStore;
      const secrets = tripwired(w.source.secrets, ['put', 'delete'], trips);
      const source = tripwired(w.source, WRITES, trips, { secrets }) as ResourceSource;
      let applied: Plan;
      let deleted: Plan;
      try {
        applied = await w.plan(documents, { store, source });
        deleted = await w.plan([machineManifest('w-0', 'demo', { image: IMAGES.A }), clusterManifest('demo', w.subnetId)].join('---\n'), { store, source, deleting: true });
      } finally {
        http.remove();
      }
      expect(http.trips, 'a mutating request under the guard').to.deep.equal([]);
      expect(trips, 'a write to the stores').to.deep.equal([]);
      // the passes ran and decided: creates, the rebuild, the deletes
      expect(applied.resources.map((r) => [r.name, r.verdict, r.decisions.length > 0])).to.deep.equal([
        ['ro', 'planned', false],
        ['fresh-2', 'planned', true],
        ['w-2', 'planned', true],
        ['w-0', 'planned', true],
      ]);
      expect([applied.destructive, deleted.destructive]).to.deep.equal([true, true]);
      const calls = w.sim.calls().slice(firstCall);
      expect(calls.filter((c) => c.method === 'GET').length).to.be.greaterThan(0);
      expect(calls.filter((c) => c.method !== 'GET' && c.path !== '/identity/v3/auth/tokens').map((c) => `${c.method} ${c.path}`)).to.deep.equal([]);
      expect(await snapshotOf()).to.deep.equal(before);
      // what the passes would have written is recorded instead: the exports, finalizers, Kubernetes events
      expect(applied.resources[0]?.writes.map((x) => `${x.op} ${x.kind} ${x.name}`)).to.include(`apply ConfigMap ${exportsConfigMapName('ro')}`);
      expect(await w.source.get('ConfigMap' as never, 'default', exportsConfigMapName('ro'))).to.equal(undefined);
      expect(applied.resources[1]?.writes.map((x) => `${x.op} ${x.detail ?? ''}`)).to.include('addFinalizer regent.dev/workload-cluster');
      expect(JSON.stringify([applied, deleted])).to.not.include(base64(USER_DATA)).and.not.include('s3cr3t-hunter2');
    });

    it("on Kubernetes: the exports are read from the cluster's core API (GETs only), the passes plan, a publish is recorded and the machine's pass reads it; published, no write", async () => {
      // the Kubernetes resource source refuses a ConfigMap: the exports are the core API's (the fake API server)
      const fake = await FakeApiServer.start();
      try {
        const cluster = kubernetesLike(w.source, fake.kubeConfig());
        const documents = [clusterManifest('demo', w.subnetId), machineManifest('w-kube', 'demo', { image: IMAGES.B })].join('---\n');
        // none published in the cluster yet: the cluster's pass would publish them, the machine's reads them
        const first = await w.plan(documents, { source: cluster });
        expect(first.resources.map((r) => [r.name, r.verdict, r.message])).to.deep.equal([
          ['demo', 'planned', undefined],
          ['w-kube', 'planned', undefined],
        ]);
        expect(first.resources[0]?.writes.map((x) => `${x.op} ${x.kind} ${x.name}`)).to.deep.equal([`apply ConfigMap ${exportsConfigMapName('demo')}`]);
        expect(decided(first, 1)).to.deep.equal([
          [1, 'workloadMachine.portCreateDecided', 'WM6', false],
          [1, 'scopeReachability.reachable', 'R1', false],
        ]);
        const read = fake.requests.map((r) => `${r.method} ${r.path}`);
        expect(read).to.include(`GET /api/v1/namespaces/default/configmaps/${exportsConfigMapName('demo')}`);
        expect(read.filter((r) => !r.startsWith('GET '))).to.deep.equal([]);
        expect(fake.objects.get(fake.objects.path('configmaps', 'default', exportsConfigMapName('demo')))).to.equal(undefined);

        // published as the control plane publishes them: the same plan writes nothing, and still plans the port
        const published = await exportsPublisherFor(w.source).read('default', 'demo');
        await kubernetesExportsPublisher(fake.kubeConfig()).publish('default', 'demo', published as ClusterExports, { owner: { uid: (await w.cluster('demo')).uid } });
        fake.clearRequests();
        const second = await w.plan(documents, { source: cluster });
        expect(second.resources.map((r) => [r.name, r.verdict, r.writes.filter((x) => x.kind === 'ConfigMap')])).to.deep.equal([
          ['demo', 'planned', []],
          ['w-kube', 'planned', []],
        ]);
        expect(decided(second, 1)).to.deep.equal(decided(first, 1));
        expect(fake.requests.filter((r) => r.method !== 'GET')).to.deep.equal([]);
      } finally {
        await fake.close();
      }
    });
  });
});

// ─── the labels are the sources' ────────────────────────────────────────────────────────────────────

/** The labels a source's comments name (WC4, WM6–WM9 expanded, W1): machine prefix and the write-ahead delete's W. */
const labelsIn = (comment: string, prefix: 'WC' | 'WM'): string[] => {
  const out: string[] = [];
  for (const m of comment.matchAll(new RegExp(`\\b(${prefix}|W)(\\d+)(?:\\s*[–-]\\s*(?:${prefix}|W)?(\\d+))?`, 'g'))) {
    const from = Number(m[2]);
    const to = m[3] === undefined ? from : Number(m[3]);
    for (let n = from; n <= to; n++) out.push(`${m[1] as string}${n}`);
  }
  return out;
};

/** A source's lines: each line's code (its comment cut off), its comment, its indentation. */
const linesOf = (text: string) => {
  let inBlock = false;
  const split = (line: string): { code: string; comment: string } => {
    if (inBlock) {
      const end = line.indexOf('*/');
      if (end < 0) return { code: '', comment: line };
      inBlock = false;
      return { code: ' '.repeat(end + 2) + line.slice(end + 2), comment: line.slice(0, end) };
    }
    const start = line.indexOf('/*');
    const slashes = line.search(/(?<!:)\/\//);
    if (start >= 0 && (slashes < 0 || start < slashes)) {
      const end = line.indexOf('*/', start + 2);
      if (end < 0) {
        inBlock = true;
        return { code: line.slice(0, start), comment: line.slice(start) };
      }
      return { code: line.slice(0, start) + line.slice(end + 2), comment: line.slice(start, end) };
    }
    return slashes < 0 ? { code: line, comment: '' } : { code: line.slice(0, slashes), comment: line.slice(slashes) };
  };
  return text.split('\n').map((line) => ({ ...split(line), indent: line.search(/\S/) }));
};

const OPEN = '([{';
const CLOSE = ')]}';
const HELPERS: Record<string, string> = { arm: WRITE_AHEAD_OUTCOMES.armed, submit: WRITE_AHEAD_OUTCOMES.submitted, resend: WRITE_AHEAD_OUTCOMES.resubmitted, inProgress: WRITE_AHEAD_OUTCOMES.inProgress, confirm: WRITE_AHEAD_OUTCOMES.deleted, withdraw: WRITE_AHEAD_OUTCOMES.withdrawn };

/**
 * Per outcome, the labels the source gives the transitions that name it: the comments on the transition's own lines
 * (from its `{` to its `}` and the rest of that line) and the comment lines right above it; when those name none, the
 * comment that heads its run of transitions (the nearest comment-only line above at its indentation, in its block)
 * and the comment lines right above each block that encloses it (`on: {` of the answers, a state); and always its
 * guard's (the comment lines above the guard's definition, or the one heading its run of guards).
 */
const sourceLabels = (file: string, prefix: 'WC' | 'WM'): Map<string, Set<string>> => {
  const lines = linesOf(readFileSync(file, 'utf8'));
  const code = lines.map((l) => l.code).join('\n');
  const lineAt: number[] = [];
  lines.forEach((l, i) => {
    for (let k = 0; k <= l.code.length; k++) lineAt.push(i);
  });
  const indent = (i: number) => lines[i]?.indent ?? 0;
  const commentOnly = (i: number) => (lines[i]?.code.trim() ?? '') === '' && (lines[i]?.comment.trim() ?? '') !== '';
  const commentsAbove = (i: number): string[] => {
    const out: string[] = [];
    for (let k = i - 1; k >= 0 && commentOnly(k); k--) out.push(lines[k]?.comment ?? '');
    return out;
  };
  /** The comment heading the run line `i` is in: the nearest comment-only line above at its indentation, in its block. */
  const heading = (i: number): string[] => {
    const at = indent(i);
    for (let k = i - 1; k >= 0; k--) {
      if (lines[k]?.code.trim() === '' && lines[k]?.comment.trim() === '') continue;
      if (indent(k) < at) return [];
      if (commentOnly(k) && indent(k) === at) return [lines[k]?.comment ?? ''];
    }
    return [];
  };
  /** The unmatched opener before `pos` (walking out), or -1. */
  const openerBefore = (pos: number): number => {
    let depth = 0;
    for (let k = pos - 1; k >= 0; k--) {
      const c = code[k] as string;
      if (CLOSE.includes(c)) depth++;
      else if (OPEN.includes(c)) {
        if (depth === 0) return k;
        depth--;
      }
    }
    return -1;
  };
  const closerOf = (open: number): number => {
    let depth = 0;
    for (let k = open; k < code.length; k++) {
      const c = code[k] as string;
      if (OPEN.includes(c)) depth++;
      else if (CLOSE.includes(c) && --depth === 0) return k;
    }
    return code.length - 1;
  };
  const guardsBlock = lines.findIndex((l) => /^\s*guards: \{/.test(l.code));
  const guardLabels = (name: string): string[] => {
    const at = lines.findIndex((l, i) => i > guardsBlock && new RegExp(`^\\s*${name}:`).test(l.code));
    if (at < 0) return [];
    const own = [lines[at]?.comment ?? '', ...commentsAbove(at)].flatMap((c) => labelsIn(c, prefix));
    return own.length > 0 ? own : heading(at).flatMap((c) => labelsIn(c, prefix));
  };

  const found = new Map<string, Set<string>>();
  const transitions: Array<{ outcome: string; at: number }> = [];
  for (const m of code.matchAll(/outcome\('(\w+)'\)/g)) transitions.push({ outcome: m[1] as string, at: m.index ?? 0 });
  for (const m of code.matchAll(/\b(arm|submit|resend|inProgress|confirm|withdraw)\(\{/g)) {
    const open = (m.index ?? 0) + m[0].length - 1;
    const named = /^\s*,\s*'(\w+)'\s*\)/.exec(code.slice(closerOf(open) + 1));
    transitions.push({ outcome: named ? (named[1] as string) : (HELPERS[m[1] as string] as string), at: open + 1 });
  }
  for (const { outcome: name, at } of transitions) {
    // the transition: the `{` that encloses its actions (or the helper's config)
    let open = openerBefore(at);
    while (open >= 0 && code[open] !== '{') open = openerBefore(open);
    const first = lineAt[open] ?? 0;
    const last = lineAt[closerOf(open)] ?? first;
    const text = code.slice(open, closerOf(open) + 1);
    const comments = [...Array.from({ length: last - first + 1 }, (_, k) => lines[first + k]?.comment ?? ''), ...commentsAbove(first)];
    const labels = comments.flatMap((c) => labelsIn(c, prefix));
    if (labels.length === 0) {
      labels.push(...heading(first).flatMap((c) => labelsIn(c, prefix)));
      for (let outer = openerBefore(open); outer >= 0; outer = openerBefore(outer)) labels.push(...commentsAbove(lineAt[outer] ?? 0).flatMap((c) => labelsIn(c, prefix)));
    }
    const guard = /guard: '(\w+)'/.exec(text)?.[1];
    if (guard) labels.push(...guardLabels(guard));
    const set = found.get(name) ?? new Set<string>();
    for (const l of labels) set.add(l);
    found.set(name, set);
  }
  return found;
};

describe('plan: the workload rule tables are the sources\' labels', () => {
  const check = (file: string, prefix: 'WC' | 'WM', rows: readonly RuleRow[]) => {
    const labels = sourceLabels(file, prefix);
    const wrong = rows.filter((row) => !(labels.get(row.outcome) ?? new Set()).has(row.rule.id)).map((row) => `${row.outcome}: table ${row.rule.id}, source ${[...(labels.get(row.outcome) ?? [])].join('/') || 'none'}`);
    expect(wrong).to.deep.equal([]);
    // and every outcome the source names has a row (the explored graphs check the same from the other side)
    expect([...labels.keys()].filter((outcome) => !rows.some((row) => row.outcome === outcome))).to.deep.equal([]);
    return labels;
  };

  it("workloadCluster: each row's label is one machines/workload-cluster.ts gives a transition with that outcome", () => {
    const labels = check('machines/workload-cluster.ts', 'WC', WORKLOAD_CLUSTER_RULES);
    // the extraction reads what the comments say (spot checks of each way a label is given)
    expect([...(labels.get('securityGroupCreateDecided') ?? [])]).to.deep.equal(['WC5']); // on the transition's closing line
    expect([...(labels.get('waitingForLoadBalancer') ?? [])]).to.include('WC10'); // the comment heading its run
    expect([...(labels.get('deleteArmed') ?? [])]).to.include('W1'); // on the helper's line
    expect([...(labels.get('deleteAccepted') ?? [])]).to.include('WC10'); // its guard's run: "WC9, WC10: answers"
  });

  it("workloadMachine: each row's label is one machines/workload-machine.ts gives a transition with that outcome", () => {
    const labels = check('machines/workload-machine.ts', 'WM', WORKLOAD_MACHINE_RULES);
    expect([...(labels.get('waiting') ?? [])].sort()).to.include.members(['WM2', 'WM3', 'WM6', 'WM7', 'WM8', 'WM9']); // "WM2, WM3, WM6–WM9"
    expect([...(labels.get('createAccepted') ?? [])]).to.include('WM1'); // "WM1/WM8/WM12: answers anywhere" above `on: {`
    expect([...(labels.get('failedStands') ?? [])]).to.include('WM8'); // the `failed` state's comment, and its guard's
  });

  it('a label that is not the source\'s fails the check (the check itself)', () => {
    const labels = sourceLabels('machines/workload-machine.ts', 'WM');
    expect([...(labels.get('portCreateDecided') ?? [])]).to.not.include('WM8');
    expect([...(labels.get('running') ?? [])]).to.deep.equal(['WM9']);
  });

  it('every decision that declares an effect (where a plan stops) says what the machine waits for after it', () => {
    for (const definition of [workloadClusterDefinition, workloadMachineDefinition]) {
      const audit = auditOf(definition);
      if (!audit) throw new Error(`${definition.id} has no audit alphabet`);
      const effectful = new Set<string>();
      explore(definition, audit, (edge) => {
        if (edge.step.effects.length > 0) effectful.add(edge.step.outcome ?? edge.event.type);
      });
      const waits = WORKLOAD.waits[definition.id] ?? {};
      expect(effectful.size, definition.id).to.be.greaterThan(0);
      expect([...effectful].filter((outcome) => waits[outcome] === undefined), definition.id).to.deep.equal([]);
    }
  });

  it('the coverage names no unlabelled decision: every one of both machines carries its source\'s label', () => {
    expect(WORKLOAD.unlabelled).to.deep.equal({});
  });
});
