/**
 * The NovaCompute controller's rules (nova-operator.md, "NovaCompute" to the end; issue 28), each driven through
 * reconcileNovaCompute over the rig of ./rig.ts: the embedded store, the engine with the pool's effects, the status
 * runner, fakes of the pool's cluster and of the Job runner, and Keystone, Nova and Placement of the simulator reached
 * through the real client.
 */
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { sharedNovaMetrics } from '../../../src/observability/nova-metrics.js';
import type { RunningSimulator } from '../../../src/simulator/index.js';
import { COMPUTE_DRAIN_FINALIZER } from '../../../src/controllers/nova-compute/reconcile.js';
import { connectAs, fault, simApi, start } from '../../openstack/support/sim.js';
import { openNovaComputeRig, RELEASE, seedServiceUser, ZONE, type NovaComputeRig, type PoolStatusView } from './rig.js';

const NS = 'openstack';
const POOL = 'pool-a';
const sel = (value = 'a') => ({ pool: value });
const reasonOf = (status: PoolStatusView, type: string): string | undefined => status.conditions?.find((c) => c.type === type)?.reason;
const statusOf = (status: PoolStatusView, type: string): string | undefined => status.conditions?.find((c) => c.type === type)?.status;
const phases = (status: PoolStatusView): Record<string, string> => Object.fromEntries((status.nodes ?? []).map((n) => [n.name, n.phase]));

describe('NovaCompute controller (simulator)', function () {
  this.timeout(20_000);
  let sim: RunningSimulator;
  let rig: NovaComputeRig;

  const nova = () => sim.control.sim.nova;
  const tokenIssues = (): number => sim.calls({ method: 'POST', pathIncludes: '/auth/tokens' }).length;
  const aggregate = (name: string) => [...nova().aggregates.values()].find((a) => a.name === name);
  const serviceOf = (host: string) => [...nova().services.values()].find((s) => s.binary === 'nova-compute' && s.host === host);
  const placementTraits = () => sim.control.sim.placement.traits;
  /** A pool holding `nodes` as Active in zone az1 (services registered and mapped). */
  const activePool = async (nodes: string[], spec: Record<string, unknown> = {}, pool = POOL, selector = sel()): Promise<void> => {
    for (const n of nodes) {
      await rig.node(n, { ...selector, [ZONE]: 'az1' });
      sim.control.computeHost({ host: n, zone: 'az1' });
    }
    await rig.createPool(pool, { nodeSelector: selector, ...spec });
    await rig.pass(pool);
    await rig.pass(pool);
    expect(phases(await rig.status(pool))).to.deep.equal(Object.fromEntries(nodes.map((n) => [n, 'Active'])));
  };

  before(async () => {
    sim = await start();
  });
  after(async () => {
    await sim.close();
  });
  beforeEach(async () => {
    sim.control.reset();
    await seedServiceUser(sim);
    rig = await openNovaComputeRig(sim, { namespace: NS });
  });
  afterEach(async () => {
    await rig.close();
  });

  describe('the finalizer and NovaRef', () => {
    it('adds the finalizer first and comes back after 1 s, before any step runs', async () => {
      await rig.seedNova();
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      const first = await rig.reconcile(POOL);
      expect(first).to.deep.include({ kind: 'yield', afterMs: 1_000 });
      expect((await rig.get(POOL))?.metadata.finalizers).to.deep.equal([COMPUTE_DRAIN_FINALIZER]);
      expect(rig.cluster.ensured).to.have.length(0);
      expect(rig.apis).to.have.length(0);
      expect(reasonOf(await rig.status(POOL), 'NovaReady')).to.equal('NotReached');
      const second = await rig.reconcile(POOL);
      expect(second.kind).to.equal('yield');
      expect(rig.cluster.ensured).to.have.length(1);
    });

    it('waits in order for the Nova, its installed release, its contract and the service-user password, 15 s each; then hands on the default image', async () => {
      await rig.createPool(POOL, { nodeSelector: sel() });
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      const waits: Array<[string, number]> = [];
      const note = async () => {
        const d = await rig.pass(POOL);
        const s = await rig.status(POOL);
        expect(statusOf(s, 'NovaReady')).to.equal('False');
        expect(reasonOf(s, 'NodesReady')).to.equal('NotReached');
        expect(statusOf(s, 'Ready')).to.equal('False');
        waits.push([reasonOf(s, 'NovaReady')!, d.kind === 'yield' ? d.afterMs : -1]);
      };
      await note();
      await rig.seedNova({ status: {}, serviceUser: false });
      await note();
      await rig.setNovaStatus({ installedRelease: RELEASE });
      await note();
      await rig.setNovaStatus({ computeConfigSecretRef: { name: 'nova-compute-config' }, endpoint: rig.login.novaURL });
      await note();
      expect(waits).to.deep.equal([
        ['NovaNotFound', 15_000],
        ['WaitingForInstalledRelease', 15_000],
        ['ComputeConfigNotPublished', 15_000],
        ['WaitingForServiceUserSecret', 15_000],
      ]);
      expect(rig.cluster.ensured).to.have.length(0);
      await rig.source.secrets.put(NS, 'nova-service-user', { password: 'nova-compute-rig-pw-51c2' });
      await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'NovaReady')).to.equal('NovaReady');
      expect(rig.cluster.ensured.at(-1)?.image).to.equal(`ghcr.io/c5c3/nova-compute:${RELEASE}`);
      expect(s.installedImage).to.equal(`ghcr.io/c5c3/nova-compute:${RELEASE}`);
      // spec.image wins over the default
      await rig.updatePool(POOL, (spec) => (spec.image = 'registry.example/nova-compute:custom'));
      await rig.pass(POOL);
      expect(rig.cluster.ensured.at(-1)?.image).to.equal('registry.example/nova-compute:custom');
    });

    it('is Ready only when all eight conditions are True; ExtraConfigHealthy stays out of it', async () => {
      await rig.seedNova();
      await activePool(['cmp-1'], { extraConfig: { DEFAULT: { host: 'elsewhere' } } });
      let s = await rig.status(POOL);
      for (const type of ['NovaReady', 'NodesReady', 'ConfigReady', 'DaemonSetReady', 'VPAReady', 'AggregatesReady', 'ServicesReady', 'TraitsReady']) expect(statusOf(s, type), type).to.equal('True');
      expect(statusOf(s, 'ExtraConfigHealthy')).to.equal('False');
      expect(statusOf(s, 'Ready')).to.equal('True');
      // one False condition (the VPA opted into where its API is not served) makes Ready False
      await rig.updatePool(POOL, (spec) => (spec.vpa = { enabled: true }));
      await rig.pass(POOL);
      s = await rig.status(POOL);
      expect(reasonOf(s, 'VPAReady')).to.equal('VPANotInstalled');
      expect(statusOf(s, 'TraitsReady')).to.equal('True');
      expect(statusOf(s, 'Ready')).to.equal('False');
    });
  });

  describe('Nodes', () => {
    beforeEach(async () => rig.seedNova());

    it('takes the Nodes whose labels match every pair of the selector, with their zone', async () => {
      await rig.node('cmp-1', { pool: 'a', rack: 'r1', [ZONE]: 'az1' });
      await rig.node('cmp-2', { pool: 'a', rack: 'r2', [ZONE]: 'az2' });
      await rig.node('cmp-3', { pool: 'b', rack: 'r1', [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: { pool: 'a', rack: 'r1' } });
      await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(s.nodes).to.deep.equal([{ name: 'cmp-1', phase: 'Pending', zone: 'az1' }]);
      expect(reasonOf(s, 'NodesReady')).to.equal('NodesSelected');
      expect(rig.cluster.ensured.at(-1)?.nodes).to.deep.equal(['cmp-1']);
    });

    it('NoMatchingNodes is False but the lane goes on to the Traits step', async () => {
      await rig.node('cmp-1', { pool: 'b', [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      const d = await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'NodesReady')).to.equal('NoMatchingNodes');
      for (const type of ['ConfigReady', 'DaemonSetReady', 'AggregatesReady', 'ServicesReady', 'TraitsReady']) expect(statusOf(s, type), type).to.equal('True');
      expect(d).to.deep.include({ kind: 'yield', afterMs: 60_000 });
    });

    it('two pools selecting one node: the second reports NodeConflict (one Warning event), excludes the node and goes on', async () => {
      await activePool(['cmp-1']);
      await rig.createPool('pool-b', { nodeSelector: { [ZONE]: 'az1' } });
      await rig.pass('pool-b');
      await rig.pass('pool-b');
      const s = await rig.status('pool-b');
      expect(reasonOf(s, 'NodesReady')).to.equal('NodeConflict');
      expect(s.nodes ?? []).to.deep.equal([]);
      expect(statusOf(s, 'TraitsReady')).to.equal('True');
      const ds = rig.cluster.ensured.filter((e) => e.pool === 'pool-b').at(-1);
      expect(ds?.affinity.selector?.excluded).to.deep.equal(['cmp-1']);
      const conflicts = (await rig.events('pool-b')).filter((e) => e.reason === 'NodeConflict');
      expect(conflicts).to.have.length(1);
      expect(conflicts[0]).to.deep.include({ type: 'Warning', count: 1 });
      expect(phases(await rig.status(POOL))).to.deep.equal({ 'cmp-1': 'Active' });
    });

    it('a 403 reading Nodes reports NodesForbidden and requeues after 15 s; any other error fails the pass (NodeListError)', async () => {
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      rig.cluster.forbidden = true;
      const d = await rig.pass(POOL);
      expect(d).to.deep.include({ kind: 'yield', afterMs: 15_000 });
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'NodesReady')).to.equal('NodesForbidden');
      expect(reasonOf(s, 'ConfigReady')).to.equal('NotReached');
      expect(rig.cluster.ensured).to.have.length(0);
      rig.cluster.forbidden = false;
      rig.cluster.nodeError = new Error('connection reset');
      let thrown: unknown;
      await rig.pass(POOL).catch((e) => (thrown = e));
      expect((thrown as Error)?.message).to.equal('connection reset');
      expect(reasonOf(await rig.status(POOL), 'NodesReady')).to.equal('NodeListError');
    });
  });

  describe('PoolConfig', () => {
    it('waits for the contract Secret, then for its three keys, 15 s each', async () => {
      await rig.seedNova({ contract: null });
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      expect(await rig.pass(POOL)).to.deep.include({ kind: 'yield', afterMs: 15_000 });
      expect(reasonOf(await rig.status(POOL), 'ConfigReady')).to.equal('WaitingForComputeConfig');
      await rig.source.secrets.put(NS, 'nova-compute-config', { transport_url: 'rabbit://x@y/nova', auth_url: sim.authUrl });
      expect(await rig.pass(POOL)).to.deep.include({ kind: 'yield', afterMs: 15_000 });
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'ConfigReady')).to.equal('ComputeConfigIncomplete');
      expect(s.conditions?.find((c) => c.type === 'ConfigReady')?.message).to.include('compute.conf');
      expect(reasonOf(s, 'DaemonSetReady')).to.equal('NotReached');
      expect(rig.cluster.published).to.have.length(0);
    });

    it('names the config {name}-config-<hash> after its content (extraConfig changes it); [DEFAULT] host makes ExtraConfigHealthy False', async () => {
      await rig.seedNova();
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      await rig.pass(POOL);
      const first = rig.cluster.published.at(-1)!.name;
      expect(first).to.match(/^pool-a-config-[0-9a-f]+$/);
      expect(statusOf(await rig.status(POOL), 'ExtraConfigHealthy')).to.equal('True');
      await rig.pass(POOL);
      expect(rig.cluster.published.at(-1)!.name).to.equal(first);
      await rig.updatePool(POOL, (spec) => (spec.extraConfig = { libvirt: { cpu_mode: 'host-passthrough' } }));
      await rig.pass(POOL);
      const second = rig.cluster.published.at(-1)!;
      expect(second.name).to.match(/^pool-a-config-[0-9a-f]+$/).and.not.equal(first);
      expect(second.files['compute-pool.conf']).to.include('cpu_mode = host-passthrough');
      expect(rig.cluster.ensured.at(-1)?.config.name).to.equal(second.name);
      await rig.updatePool(POOL, (spec) => (spec.extraConfig = { DEFAULT: { host: 'other' } }));
      await rig.pass(POOL);
      const health = (await rig.status(POOL)).conditions?.find((c) => c.type === 'ExtraConfigHealthy');
      expect(health).to.deep.include({ status: 'False', reason: 'OwnedKeyOverridden' });
      expect(health?.message).to.include('host');
    });
  });

  describe('DaemonSet', () => {
    beforeEach(async () => rig.seedNova());

    it('affinity: the selector, minus the nodes a rival holds and the pool releases, plus the Draining nodes it still holds', async () => {
      await activePool(['cmp-1', 'cmp-2']);
      await rig.node('cmp-9', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool('pool-z', { nodeSelector: { rack: 'z' } });
      await rig.node('cmp-9', { ...sel(), rack: 'z', [ZONE]: 'az1' });
      await rig.pass('pool-z'); // pool-z takes cmp-9 first
      await rig.node('cmp-1', { pool: 'gone', [ZONE]: 'az1' }); // leaves: Active → Draining
      nova().services.get(serviceOf('cmp-1')!.id)!.status = 'enabled';
      rig.cluster.pods.add('cmp-1');
      await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(phases(s)).to.deep.include({ 'cmp-1': 'Draining', 'cmp-2': 'Active' });
      const spec = rig.cluster.ensured.filter((e) => e.pool === POOL).at(-1)!;
      expect(spec.affinity).to.deep.equal({ selector: { labels: sel(), excluded: ['cmp-9'] }, held: ['cmp-1'] });
      expect(spec.nodes).to.deep.equal(['cmp-1', 'cmp-2']);
      expect(spec.annotations['nova.c5c3.io/compute-config-hash']).to.match(/^[0-9a-f]{64}$/);
      expect(spec).to.deep.include({ contractSecret: 'nova-compute-config', serviceUserSecret: 'nova-service-user', nova: 'nova' });
    });

    it('DaemonSetProgressing lets the lane go on; installedImage is stamped only once every node runs a ready pod', async () => {
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.node('cmp-2', { ...sel(), [ZONE]: 'az1' });
      sim.control.computeHost({ host: 'cmp-1', zone: 'az1' });
      sim.control.computeHost({ host: 'cmp-2', zone: 'az1' });
      rig.cluster.daemonSetStatus = (spec) => ({ present: true, desiredNumberScheduled: spec.nodes.length, numberReady: spec.nodes.length - 1, rolledOut: false, image: spec.image });
      await rig.createPool(POOL, { nodeSelector: sel() });
      await rig.pass(POOL);
      await rig.pass(POOL);
      let s = await rig.status(POOL);
      expect(reasonOf(s, 'DaemonSetReady')).to.equal('DaemonSetProgressing');
      expect(s).to.deep.include({ desiredNumberScheduled: 2, numberReady: 1 });
      expect(s.installedImage).to.equal(undefined);
      expect(phases(s)).to.deep.equal({ 'cmp-1': 'Active', 'cmp-2': 'Active' }); // Services ran
      expect(statusOf(s, 'TraitsReady')).to.equal('True');
      // every pod ready, but the rollout not finished: still not stamped
      rig.cluster.daemonSetStatus = (spec) => ({ present: true, desiredNumberScheduled: 2, numberReady: 2, rolledOut: false, image: spec.image });
      await rig.pass(POOL);
      expect((await rig.status(POOL)).installedImage).to.equal(undefined);
      rig.cluster.daemonSetStatus = (spec) => ({ present: true, desiredNumberScheduled: 2, numberReady: 2, rolledOut: true, image: spec.image });
      await rig.pass(POOL);
      s = await rig.status(POOL);
      expect(reasonOf(s, 'DaemonSetReady')).to.equal('DaemonSetReady');
      expect(s.installedImage).to.equal(`ghcr.io/c5c3/nova-compute:${RELEASE}`);
    });
  });

  describe('Aggregates', () => {
    beforeEach(async () => rig.seedNova());

    it('one marked aggregate per zone and tenant_filter_tests; a marked empty one no pool needs is deleted, one with foreign metadata kept (AggregateKept)', async () => {
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.node('cmp-2', { ...sel(), [ZONE]: 'az2' });
      const api = await rig.deps.openComputeApi(rig.login);
      const stale = await api.createAggregate('az-old', 'az-old');
      await api.setAggregateMetadata(stale.id, { 'c5c3.io:nova': `${NS}/nova` });
      const foreign = await api.createAggregate('az-foreign', 'az-foreign');
      await api.setAggregateMetadata(foreign.id, { 'c5c3.io:nova': `${NS}/nova`, 'filter_tenant_id': 'p1' });
      const otherNova = await api.createAggregate('az-other', 'az-other');
      await api.setAggregateMetadata(otherNova.id, { 'c5c3.io:nova': `${NS}/another` });
      await rig.createPool(POOL, { nodeSelector: sel() });
      await rig.pass(POOL);
      for (const [name, zone] of [['az1', 'az1'], ['az2', 'az2'], ['tenant_filter_tests', null]] as const) {
        expect(aggregate(name), name).to.deep.include({ az: zone });
        expect(aggregate(name)?.metadata['c5c3.io:nova']).to.equal(`${NS}/nova`);
      }
      expect(aggregate('az-old')).to.equal(undefined);
      expect(aggregate('az-foreign')).to.not.equal(undefined);
      expect(aggregate('az-other')).to.not.equal(undefined);
      const kept = (await rig.events(POOL)).filter((e) => e.reason === 'AggregateKept');
      expect(kept).to.have.length(1);
      expect(kept[0]?.type).to.equal('Warning');
      expect(kept[0]?.message).to.include('filter_tenant_id');
      expect(reasonOf(await rig.status(POOL), 'AggregatesReady')).to.equal('AggregatesReady');
      // a second pass creates nothing again
      const posts = sim.calls({ method: 'POST', pathIncludes: '/os-aggregates' }).length;
      await rig.pass(POOL);
      expect(sim.calls({ method: 'POST', pathIncludes: '/os-aggregates' }).length).to.equal(posts);
    });

    it('an aggregate with a host is not deleted; a zone still needed by another pool of the Nova is kept', async () => {
      await activePool(['cmp-1']);
      await rig.node('cmp-5', { pool: 'b', [ZONE]: 'az5' });
      await rig.createPool('pool-b', { nodeSelector: { pool: 'b' } });
      await rig.pass('pool-b');
      await rig.pass('pool-b');
      expect(aggregate('az5')).to.not.equal(undefined);
      // pool-a moves its node to az2: az1 is no longer needed by anyone, but holds cmp-1 → kept
      aggregate('az1')!.hosts.push('cmp-1');
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az2' });
      await rig.pass(POOL);
      expect(aggregate('az1')).to.not.equal(undefined);
      expect(aggregate('az5')).to.not.equal(undefined);
      aggregate('az1')!.hosts.length = 0;
      await rig.pass(POOL);
      expect(aggregate('az1')).to.equal(undefined);
      expect(aggregate('az5')).to.not.equal(undefined);
    });

    it('NodesOutsideZoneAggregate keeps AggregatesReady True; NodesWithoutZone is False and the lane goes on', async () => {
      await activePool(['cmp-1']);
      // the pass that turned cmp-1 Active read it Pending: the next one reports it
      await rig.pass(POOL);
      const agg = (await rig.status(POOL)).conditions?.find((c) => c.type === 'AggregatesReady');
      expect(agg).to.deep.include({ status: 'True', reason: 'NodesOutsideZoneAggregate' });
      expect(agg?.message).to.include('cmp-1');
      expect(statusOf(await rig.status(POOL), 'Ready')).to.equal('True');
      aggregate('az1')!.hosts.push('cmp-1');
      await rig.pass(POOL);
      expect(reasonOf(await rig.status(POOL), 'AggregatesReady')).to.equal('AggregatesReady');

      await rig.node('cmp-2', { ...sel() }); // no zone label
      await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(s.conditions?.find((c) => c.type === 'AggregatesReady')).to.deep.include({ status: 'False', reason: 'NodesWithoutZone' });
      expect(s.conditions?.find((c) => c.type === 'AggregatesReady')?.message).to.include('cmp-2');
      expect(reasonOf(s, 'ServicesReady')).to.equal('WaitingForComputeService'); // the lane went on
    });

    it('AggregateZoneMismatch: an aggregate named after the zone that serves another availability zone is False, neither marked nor changed, and the lane goes on', async () => {
      await (await connectAs(sim, 'admin')).http('compute').post('/os-aggregates', { aggregate: { name: 'az1', availability_zone: 'elsewhere' } });
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(s.conditions?.find((c) => c.type === 'AggregatesReady')).to.deep.include({ status: 'False', reason: 'AggregateZoneMismatch' });
      expect(aggregate('az1')).to.deep.include({ az: 'elsewhere' });
      expect(aggregate('az1')!.metadata['c5c3.io:nova'], 'not Regent\'s: never marked').to.equal(undefined);
      expect(reasonOf(s, 'ServicesReady'), 'the lane went on').to.not.equal('NotReached');
    });

    it('a failed aggregate call is ComputeAPIError with a 30 s requeue and no error', async () => {
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      await fault(sim, { method: 'GET', path: '/os-aggregates', status: 500, count: 5 });
      const d = await rig.pass(POOL);
      expect(d).to.deep.include({ kind: 'yield', afterMs: 30_000 });
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'AggregatesReady')).to.equal('ComputeAPIError');
      expect(reasonOf(s, 'ServicesReady')).to.equal('NotReached');
      await simApi(sim, 'DELETE', '/faults');
    });
  });

  describe('Services', () => {
    beforeEach(async () => rig.seedNova());

    it('Pending → Active only once the host is mapped; meanwhile the discovery Job runs, a finished one is replaced after 30 s', async () => {
      let now = Date.parse('2026-01-01T00:00:00Z');
      rig.clock.now = () => new Date(now);
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      await rig.pass(POOL);
      expect(reasonOf(await rig.status(POOL), 'ServicesReady')).to.equal('WaitingForComputeService');
      expect(rig.jobs.created).to.have.length(0);
      sim.control.computeHost({ host: 'cmp-1', zone: 'az1', mapped: false });
      const d = await rig.pass(POOL);
      expect(d).to.deep.include({ kind: 'yield', afterMs: 10_000 });
      let s = await rig.status(POOL);
      expect(phases(s)).to.deep.equal({ 'cmp-1': 'Pending' });
      expect(reasonOf(s, 'ServicesReady')).to.equal('WaitingForHostMapping');
      expect(rig.jobs.created.map((j) => `${j.namespace}/${j.name}`)).to.deep.equal([`${NS}/nova-discover-hosts`]);
      await rig.pass(POOL); // running: left alone
      expect(rig.jobs.created).to.have.length(1);
      expect(rig.jobs.deleted).to.have.length(0);
      rig.jobs.finish(NS, 'nova-discover-hosts', 'succeeded', new Date(now - 10_000));
      await rig.pass(POOL); // finished 10 s ago: kept
      expect(rig.jobs.deleted).to.have.length(0);
      now += 21_000;
      await rig.pass(POOL); // finished 31 s ago: deleted
      expect(rig.jobs.deleted).to.deep.equal([`${NS}/nova-discover-hosts`]);
      await rig.pass(POOL); // the next pass creates a fresh one
      expect(rig.jobs.created).to.have.length(2);
      sim.control.computeHost({ host: 'cmp-1', mapped: true });
      await rig.pass(POOL);
      s = await rig.status(POOL);
      expect(phases(s)).to.deep.equal({ 'cmp-1': 'Active' });
      expect(reasonOf(s, 'ServicesReady')).to.equal('ServicesReady');
      // an Active node is not checked for its mapping again
      sim.control.computeHost({ host: 'cmp-1', mapped: false });
      const hypervisorReads = sim.calls({ method: 'GET', pathIncludes: '/os-hypervisors/detail' }).length;
      await rig.pass(POOL);
      expect(phases(await rig.status(POOL))).to.deep.equal({ 'cmp-1': 'Active' });
      expect(sim.calls({ method: 'GET', pathIncludes: '/os-hypervisors/detail' }).length).to.equal(hypervisorReads);
    });

    it('a failed host-discovery call is HostDiscoveryError, logged, with the poll and no error', async () => {
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      sim.control.computeHost({ host: 'cmp-1', zone: 'az1', mapped: false });
      await rig.createPool(POOL, { nodeSelector: sel() });
      rig.jobs.failGet = new Error('jobs.batch is forbidden');
      const d = await rig.pass(POOL);
      expect(d).to.deep.include({ kind: 'yield', afterMs: 10_000 });
      const services = (await rig.status(POOL)).conditions?.find((c) => c.type === 'ServicesReady');
      expect(services).to.deep.include({ status: 'False', reason: 'HostDiscoveryError' });
      expect(services?.message).to.include('jobs.batch is forbidden');
      expect(rig.jobs.created).to.have.length(0);
    });

    it('a cell that does not answer fails the pass with ComputeAPIError', async () => {
      await activePool(['cmp-1']);
      sim.control.computeHost({ host: 'cmp-down', cellDown: true });
      let thrown: unknown;
      await rig.reconcile(POOL).catch((e) => (thrown = e));
      expect((thrown as { cellDown?: boolean })?.cellDown).to.equal(true);
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'ServicesReady')).to.equal('ComputeAPIError');
      expect(phases(s)).to.deep.equal({ 'cmp-1': 'Active' });
    });

    it('the pool\'s pods are listed on the node for one Releasing node, and for the whole pool (once) when more are', async () => {
      await activePool(['cmp-1', 'cmp-2']);
      rig.cluster.pods.add('cmp-1').add('cmp-2');
      await rig.node('cmp-1', { pool: 'elsewhere', [ZONE]: 'az1' });
      await rig.node('cmp-2', { pool: 'elsewhere', [ZONE]: 'az1' });
      for (let i = 0; i < 3 && Object.values(phases(await rig.status(POOL))).some((p) => p !== 'Releasing'); i++) await rig.pass(POOL);
      expect(phases(await rig.status(POOL))).to.deep.equal({ 'cmp-1': 'Releasing', 'cmp-2': 'Releasing' });
      const before = rig.cluster.podsOnCalls.length;
      await rig.pass(POOL);
      expect(rig.cluster.podsOnCalls.slice(before), 'one list of the whole pool').to.deep.equal([undefined]);
    });

    it('a failed read of the mapped hosts keeps the registered Pending nodes Pending and is ComputeAPIError after the walk, while the other nodes still move', async () => {
      await activePool(['cmp-1']);
      rig.cluster.pods.add('cmp-1');
      await rig.node('cmp-2', { ...sel(), [ZONE]: 'az1' });
      sim.control.computeHost({ host: 'cmp-2', zone: 'az1' });
      await rig.node('cmp-1', { pool: 'elsewhere', [ZONE]: 'az1' });
      await fault(sim, { method: 'GET', path: '/os-hypervisors/detail', status: 500, count: 20 });
      const d = await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(phases(s), 'cmp-1 drains while cmp-2 waits for its mapping').to.deep.equal({ 'cmp-1': 'Draining', 'cmp-2': 'Pending' });
      expect(s.conditions?.find((c) => c.type === 'ServicesReady')).to.deep.include({ status: 'False', reason: 'ComputeAPIError' });
      expect(serviceOf('cmp-1')).to.deep.include({ status: 'disabled' });
      expect(d).to.deep.include({ kind: 'yield', afterMs: 30_000 });
      await simApi(sim, 'DELETE', '/faults');
      await rig.pass(POOL);
      expect(phases(await rig.status(POOL))).to.deep.include({ 'cmp-2': 'Active' });
    });

    it('Draining disables the service once and counts the servers; Releasing waits for the pod to go, then deletes the service', async () => {
      await activePool(['cmp-1', 'cmp-2']);
      const ids = sim.control.createServers({ project: 'demo', count: 2, namePrefix: 'on-cmp-1-' });
      for (const id of ids) nova().servers.get(id)!.host = 'cmp-1';
      rig.cluster.pods.add('cmp-1').add('cmp-2');
      await rig.node('cmp-1', { pool: 'elsewhere', [ZONE]: 'az1' });
      const d = await rig.pass(POOL);
      expect(d).to.deep.include({ kind: 'yield', afterMs: 30_000 });
      const s = await rig.status(POOL);
      expect(phases(s)).to.deep.equal({ 'cmp-1': 'Draining', 'cmp-2': 'Active' });
      expect(s.nodes?.find((n) => n.name === 'cmp-1')?.servers).to.equal(2);
      expect(s.conditions?.find((c) => c.type === 'ServicesReady')).to.deep.include({ status: 'False', reason: 'NodesDraining' });
      expect(s.conditions?.find((c) => c.type === 'ServicesReady')?.message).to.include('cmp-1: 2 servers left');
      expect(serviceOf('cmp-1')).to.deep.include({ status: 'disabled' });
      await rig.pass(POOL);
      expect(sim.calls({ method: 'PUT', pathIncludes: '/os-services/' })).to.have.length(1);
      for (const id of ids) nova().servers.delete(id);
      await rig.pass(POOL); // disabled, no server left → Releasing
      expect(phases(await rig.status(POOL))).to.deep.include({ 'cmp-1': 'Releasing' });
      const released = await rig.pass(POOL);
      expect(released).to.deep.include({ kind: 'yield', afterMs: 10_000 });
      expect(rig.cluster.podsOnCalls.at(-1)).to.deep.equal(['cmp-1']);
      expect(serviceOf('cmp-1')).to.not.equal(undefined); // its pod still runs
      rig.cluster.pods.delete('cmp-1');
      await rig.pass(POOL);
      expect(serviceOf('cmp-1')).to.equal(undefined);
      expect(phases(await rig.status(POOL))).to.deep.equal({ 'cmp-2': 'Active' });
      expect(sim.calls({ method: 'DELETE', pathIncludes: '/os-services/' })).to.have.length(1);
      expect(serviceOf('cmp-2')).to.deep.include({ status: 'enabled' });
    });

    it('a node handed over to a rival pool keeps its service: neither disabled nor deleted', async () => {
      await activePool(['cmp-1']);
      await rig.createPool('pool-b', { nodeSelector: { pool: 'b' } });
      await rig.pass('pool-b');
      await rig.node('cmp-1', { pool: 'b', [ZONE]: 'az1' });
      rig.cluster.pods.add('cmp-1');
      await rig.pass(POOL);
      expect(phases(await rig.status(POOL))).to.deep.equal({ 'cmp-1': 'Releasing' });
      rig.cluster.pods.delete('cmp-1');
      await rig.pass(POOL);
      expect(phases(await rig.status(POOL))).to.deep.equal({});
      await rig.pass('pool-b');
      expect(phases(await rig.status('pool-b'))).to.deep.equal({ 'cmp-1': 'Active' });
      expect(serviceOf('cmp-1')).to.deep.include({ status: 'enabled' });
      expect(sim.calls({ method: 'PUT', pathIncludes: '/os-services/' })).to.have.length(0);
      expect(sim.calls({ method: 'DELETE', pathIncludes: '/os-services/' })).to.have.length(0);
    });
  });

  describe('Traits', () => {
    beforeEach(async () => rig.seedNova());

    it('NoTraitsDeclared makes no Placement call and reads no Hypervisor', async () => {
      await activePool(['cmp-1']);
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'TraitsReady')).to.equal('NoTraitsDeclared');
      expect(sim.calls({ pathIncludes: '/traits' })).to.have.length(0);
      expect(rig.apis.flatMap((a) => a.calls).filter((c) => c.service === 'placement')).to.have.length(0);
      expect(rig.cluster.hypervisorGets).to.have.length(0);
    });

    it('creates a declared trait at 1.6 (TraitCreated, status.createdTraits) and merge-patches the Hypervisor with the sorted list', async () => {
      rig.cluster.hypervisorReads.set('cmp-1', { kind: 'found', hypervisor: { name: 'cmp-1', customTraits: [], statusTraits: ['CUSTOM_FROM_HOST', 'HW_CPU_X86_AVX2'] } });
      await activePool(['cmp-1'], { traits: ['CUSTOM_POOL_Z'], hostTraits: [{ node: 'cmp-1', traits: ['CUSTOM_HOST_A'] }] });
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'TraitsReady')).to.equal('TraitsReady');
      expect(s.createdTraits).to.have.members(['CUSTOM_POOL_Z', 'CUSTOM_HOST_A']);
      expect(placementTraits().has('CUSTOM_POOL_Z')).to.equal(true);
      expect(rig.cluster.traitPatches[0]).to.deep.equal({ name: 'cmp-1', traits: ['CUSTOM_HOST_A', 'CUSTOM_POOL_Z'] });
      expect(s.nodes?.[0]?.traits).to.deep.equal(['CUSTOM_FROM_HOST', 'CUSTOM_HOST_A', 'CUSTOM_POOL_Z']);
      const created = (await rig.events(POOL)).filter((e) => e.reason === 'TraitCreated');
      expect(created.map((e) => e.message).sort()).to.deep.equal(['created the custom trait CUSTOM_HOST_A in Placement', 'created the custom trait CUSTOM_POOL_Z in Placement']);
      const puts = sim.calls({ method: 'PUT', pathIncludes: '/traits/' });
      expect(puts).to.have.length(2);
      for (const put of puts) expect(put.versions?.['OpenStack-API-Version']).to.equal('placement 1.6');
      // settled: nothing written again
      await rig.pass(POOL);
      expect(rig.cluster.traitPatches).to.have.length(1);
      expect(sim.calls({ method: 'PUT', pathIncludes: '/traits/' })).to.have.length(2);
    });

    it('a trait that already exists is not recorded as created (never Regent\'s to delete)', async () => {
      await activePool(['cmp-1'], { traits: ['CUSTOM_RAID1'] });
      const s = await rig.status(POOL);
      expect(s.createdTraits).to.deep.equal([]);
      expect(rig.cluster.traitPatches[0]).to.deep.equal({ name: 'cmp-1', traits: ['CUSTOM_RAID1'] });
    });

    it('HypervisorOperatorNotInstalled: traits still created in Placement, TraitsReady False, polled within 30 s', async () => {
      rig.cluster.hypervisorReads.set('cmp-1', { kind: 'notInstalled', message: 'no kvm.cloud.sap/v1 Hypervisor kind' });
      await activePool(['cmp-1'], { traits: ['CUSTOM_POOL_Z'] });
      const d = await rig.pass(POOL);
      expect(d).to.deep.include({ kind: 'yield', afterMs: 30_000 });
      const s = await rig.status(POOL);
      expect(reasonOf(s, 'TraitsReady')).to.equal('HypervisorOperatorNotInstalled');
      expect(s.createdTraits).to.deep.equal(['CUSTOM_POOL_Z']);
      expect(rig.cluster.traitPatches).to.have.length(0);
      expect(statusOf(s, 'Ready')).to.equal('False');
    });

    it('HypervisorsForbidden (a 403) and NodesWithoutHypervisor (a missing one, while the others go on)', async () => {
      await rig.node('cmp-2', { ...sel(), [ZONE]: 'az1' });
      sim.control.computeHost({ host: 'cmp-2', zone: 'az1' });
      rig.cluster.hypervisorReads.set('cmp-2', { kind: 'missing' });
      await activePool(['cmp-1', 'cmp-2'], { traits: ['CUSTOM_POOL_Z'] });
      let traits = (await rig.status(POOL)).conditions?.find((c) => c.type === 'TraitsReady');
      expect(traits).to.deep.include({ status: 'False', reason: 'NodesWithoutHypervisor' });
      expect(traits?.message).to.include('cmp-2');
      expect(rig.cluster.traitPatches.map((p) => p.name), 'the node with a Hypervisor still gets its traits').to.deep.equal(['cmp-1']);
      rig.cluster.hypervisorReads.set('cmp-1', { kind: 'forbidden', message: 'hypervisors.kvm.cloud.sap is forbidden' });
      rig.cluster.hypervisorReads.set('cmp-2', { kind: 'forbidden', message: 'hypervisors.kvm.cloud.sap is forbidden' });
      const d = await rig.pass(POOL);
      traits = (await rig.status(POOL)).conditions?.find((c) => c.type === 'TraitsReady');
      expect(traits).to.deep.include({ status: 'False', reason: 'HypervisorsForbidden' });
      expect(d).to.deep.include({ kind: 'yield', afterMs: 30_000 });
    });

    it('a node carrying nova.openstack.cloud.sap/custom-traits is neither read nor written', async () => {
      await rig.node('cmp-2', { ...sel(), [ZONE]: 'az1' }, { 'nova.openstack.cloud.sap/custom-traits': 'CUSTOM_OTHER' });
      sim.control.computeHost({ host: 'cmp-2', zone: 'az1' });
      await activePool(['cmp-1', 'cmp-2'], { traits: ['CUSTOM_POOL_Z'] });
      expect(rig.cluster.hypervisorGets).to.not.include('cmp-2');
      expect(rig.cluster.hypervisorGets).to.include('cmp-1');
      expect(rig.cluster.traitPatches.map((p) => p.name)).to.deep.equal(['cmp-1']);
      const traits = (await rig.status(POOL)).conditions?.find((c) => c.type === 'TraitsReady');
      expect(traits?.status).to.equal('True');
      expect(traits?.message).to.include('cmp-2 carry nova.openstack.cloud.sap/custom-traits');
    });

    it('a created trait no pool declares any more is deleted (TraitDeleted); one a resource provider carries (409) is dropped as TraitKept', async () => {
      await activePool(['cmp-1'], { traits: ['CUSTOM_GONE', 'CUSTOM_BUSY'] });
      expect((await rig.status(POOL)).createdTraits).to.have.members(['CUSTOM_GONE', 'CUSTOM_BUSY']);
      const provider = [...sim.control.sim.placement.rps.values()][0]!;
      provider.traits.add('CUSTOM_BUSY');
      await rig.updatePool(POOL, (spec) => delete spec.traits);
      await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(rig.cluster.traitPatches.at(-1)).to.deep.equal({ name: 'cmp-1', traits: [] });
      expect(s.createdTraits).to.deep.equal([]);
      expect(placementTraits().has('CUSTOM_GONE')).to.equal(false);
      expect(placementTraits().has('CUSTOM_BUSY')).to.equal(true);
      expect(sim.calls({ method: 'DELETE', pathIncludes: '/traits/' }).map((c) => c.status).sort()).to.deep.equal([204, 409]);
      const reasons = (await rig.events(POOL)).map((e) => e.reason);
      expect(reasons).to.include('TraitDeleted');
      expect(reasons).to.include('TraitKept');
      expect(reasonOf(s, 'TraitsReady')).to.equal('TraitsReady');
      await rig.pass(POOL);
      expect(reasonOf(await rig.status(POOL), 'TraitsReady')).to.equal('NoTraitsDeclared');
    });

    it('a created trait another pool still declares is not deleted', async () => {
      await activePool(['cmp-1'], { traits: ['CUSTOM_SHARED'] });
      await rig.node('cmp-5', { pool: 'b', [ZONE]: 'az1' });
      await rig.createPool('pool-b', { nodeSelector: { pool: 'b' }, traits: ['CUSTOM_SHARED'] });
      await rig.updatePool(POOL, (spec) => delete spec.traits);
      await rig.pass(POOL);
      expect(placementTraits().has('CUSTOM_SHARED')).to.equal(true);
      expect((await rig.status(POOL)).createdTraits).to.deep.equal(['CUSTOM_SHARED']);
      expect(sim.calls({ method: 'DELETE', pathIncludes: '/traits/' })).to.have.length(0);
    });
  });

  describe('teardown', () => {
    beforeEach(async () => rig.seedNova());

    it('drains the nodes; the pass releasing the last node keeps the finalizer; a clean teardown-lane pass sweeps and releases', async () => {
      await activePool(['cmp-1'], { traits: ['CUSTOM_POOL_Z'] });
      rig.cluster.pods.add('cmp-1');
      await rig.deletePool(POOL);
      await rig.pass(POOL);
      const s = await rig.status(POOL);
      expect(phases(s)).to.deep.equal({ 'cmp-1': 'Draining' });
      expect(serviceOf('cmp-1')).to.deep.include({ status: 'disabled' });
      expect(reasonOf(s, 'NodesReady')).to.equal('PoolDeleting');
      expect(rig.cluster.ensured.at(-1)?.affinity).to.deep.equal({ held: ['cmp-1'] });
      await rig.pass(POOL); // no server: Releasing
      expect(phases(await rig.status(POOL))).to.deep.equal({ 'cmp-1': 'Releasing' });
      expect(rig.cluster.deletedDaemonSets).to.deep.equal([]);
      await rig.pass(POOL); // no Draining node left: the DaemonSet goes; the pod still runs, so the service stays
      expect(rig.cluster.deletedDaemonSets).to.deep.equal([`${NS}/${POOL}`]);
      expect(serviceOf('cmp-1')).to.not.equal(undefined);
      expect((await rig.get(POOL))?.metadata.finalizers).to.deep.equal([COMPUTE_DRAIN_FINALIZER]);
      rig.cluster.pods.delete('cmp-1');
      // Placement refuses to delete the pool's trait for now
      await fault(sim, { method: 'DELETE', path: '/traits/CUSTOM_POOL_Z', status: 503, count: 100 });
      const last = await rig.pass(POOL); // deletes the service: the node is released, the finalizer kept
      expect(serviceOf('cmp-1')).to.equal(undefined);
      expect(last.kind).to.equal('yield');
      expect(phases(await rig.status(POOL))).to.deep.equal({});
      expect((await rig.get(POOL))?.metadata.finalizers).to.deep.equal([COMPUTE_DRAIN_FINALIZER]);
      expect(rig.cluster.removedAll).to.have.length(0);
      // a teardown pass that leaves a created trait keeps it
      const ensuredBefore = rig.cluster.ensured.length;
      await rig.pass(POOL);
      expect((await rig.status(POOL)).createdTraits).to.deep.equal(['CUSTOM_POOL_Z']);
      expect(await rig.get(POOL)).to.not.equal(undefined);
      expect(rig.cluster.removedAll).to.have.length(0);
      await simApi(sim, 'DELETE', '/faults');
      // a teardown pass whose Aggregates step fails keeps it too (and ends there)
      await fault(sim, { method: 'GET', path: '/os-aggregates', status: 500, count: 100 });
      await rig.pass(POOL);
      expect(reasonOf(await rig.status(POOL), 'AggregatesReady')).to.equal('ComputeAPIError');
      expect(await rig.get(POOL)).to.not.equal(undefined);
      expect(rig.cluster.removedAll).to.have.length(0);
      await simApi(sim, 'DELETE', '/faults');
      const released = await rig.pass(POOL);
      expect(released.kind).to.equal('done');
      expect(await rig.get(POOL)).to.equal(undefined);
      expect(rig.cluster.removedAll).to.deep.equal([`${NS}/${POOL}`]);
      expect(placementTraits().has('CUSTOM_POOL_Z')).to.equal(false);
      expect(aggregate('az1')).to.equal(undefined);
      expect(aggregate('tenant_filter_tests')).to.equal(undefined);
      // the teardown lane recreated nothing on the cluster
      expect(rig.cluster.ensured.length).to.equal(ensuredBefore);
    });

    it('a deleting pool whose Nova never became usable (no pass got past NovaRef) is released; one that reached the Aggregates step waits for its Nova', async () => {
      await rig.setNovaStatus({ installedRelease: null }); // no installed release: NovaRef waits
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      await rig.pass(POOL);
      expect(reasonOf(await rig.status(POOL), 'NovaReady')).to.equal('WaitingForInstalledRelease');
      await rig.deletePool(POOL);
      const d = await rig.reconcile(POOL);
      expect(d.kind).to.equal('done');
      expect(await rig.get(POOL), 'released: nothing was created in Nova or Placement').to.equal(undefined);

      await rig.setNovaStatus({ installedRelease: RELEASE });
      await rig.createPool('pool-b', { nodeSelector: { pool: 'none' } });
      await rig.pass('pool-b'); // NoMatchingNodes: the lane goes on through Aggregates (tenant_filter_tests created)
      expect(reasonOf(await rig.status('pool-b'), 'AggregatesReady')).to.not.equal('NotReached');
      await rig.setNovaStatus({ installedRelease: null });
      await rig.deletePool('pool-b');
      for (let i = 0; i < 3; i++) expect((await rig.reconcile('pool-b')).kind).to.equal('yield');
      expect(await rig.get('pool-b'), 'it created aggregates: held until its Nova can be called').to.not.equal(undefined);
    });

    it('a deleting pool whose Nova is gone is released at once', async () => {
      await activePool(['cmp-1']);
      await rig.source.removeFinalizer('Nova', NS, 'nova', 'x').catch(() => undefined);
      await rig.source.delete('Nova', NS, 'nova');
      expect(await rig.source.get('Nova', NS, 'nova')).to.equal(undefined);
      await rig.deletePool(POOL);
      const opened = rig.apis.length;
      const d = await rig.reconcile(POOL);
      expect(d.kind).to.equal('done');
      expect(await rig.get(POOL)).to.equal(undefined);
      expect(rig.cluster.removedAll).to.deep.equal([`${NS}/${POOL}`]);
      expect(rig.apis.length).to.equal(opened);
      expect(serviceOf('cmp-1')).to.deep.include({ status: 'enabled' });
    });
  });

  describe('calls', () => {
    beforeEach(async () => rig.seedNova());

    it('every step is timed on the Nova controller\'s vectors (nova_operator_reconcile_duration_seconds by sub_reconciler); a failed step counts under its condition', async () => {
      const registry = new Registry();
      rig.deps.metrics = sharedNovaMetrics(registry);
      expect(sharedNovaMetrics(registry), 'one set of vectors per registry, shared by both controllers').to.equal(rig.deps.metrics);
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel() });
      await rig.reconcile(POOL); // the finalizer
      await rig.reconcile(POOL);
      const text = await registry.metrics();
      for (const step of ['NovaRef', 'Nodes', 'PoolConfig', 'DaemonSet', 'ComputeVPA', 'Aggregates', 'Services', 'Traits']) expect(text, step).to.contain(`nova_operator_reconcile_duration_seconds_count{sub_reconciler="${step}"} 1`);
      rig.cluster.nodeError = new Error('the API server is gone');
      await rig.reconcile(POOL).catch(() => undefined);
      expect(await registry.metrics()).to.contain('nova_operator_reconcile_errors_total{sub_reconciler="Nodes",condition_type="NodesReady"} 1');
    });

    it('one token per pass, every Nova call at 2.69 except os-hypervisors at 2.88, Placement traits at 1.6', async () => {
      rig.cluster.pods.add('cmp-1');
      await rig.node('cmp-1', { ...sel(), [ZONE]: 'az1' });
      await rig.node('cmp-2', { ...sel(), [ZONE]: 'az1' });
      sim.control.computeHost({ host: 'cmp-1', zone: 'az1' });
      sim.control.computeHost({ host: 'cmp-2', zone: 'az1' });
      await rig.createPool(POOL, { nodeSelector: sel(), traits: ['CUSTOM_POOL_Z'] });
      await rig.reconcile(POOL); // the finalizer: no client
      expect(rig.apis).to.have.length(0);
      for (let i = 0; i < 2; i++) {
        const tokens = tokenIssues();
        const opened = rig.apis.length;
        await rig.reconcile(POOL);
        expect(tokenIssues() - tokens).to.equal(1);
        expect(rig.apis.length - opened).to.equal(1);
      }
      await rig.updatePool(POOL, (spec) => delete spec.traits);
      await rig.node('cmp-1', { pool: 'other', [ZONE]: 'az1' });
      for (let i = 0; i < 4; i++) {
        if (i === 2) rig.cluster.pods.delete('cmp-1');
        const tokens = tokenIssues();
        await rig.reconcile(POOL);
        expect(tokenIssues() - tokens).to.equal(1);
      }
      const calls = rig.apis.flatMap((a) => a.calls);
      const compute = calls.filter((c) => c.service === 'compute');
      const paths = new Set(compute.map((c) => `${c.method} ${c.path.replace(/\/[0-9a-f-]{6,}$|\/\d+$/, '/{id}')}`));
      expect([...paths]).to.include.members(['GET /os-services', 'GET /os-hypervisors/detail', 'PUT /os-services/{id}', 'DELETE /os-services/{id}', 'GET /servers/detail', 'GET /os-aggregates', 'POST /os-aggregates']);
      for (const c of compute) expect(c.microversion, `${c.method} ${c.path}`).to.equal(c.path === '/os-hypervisors/detail' ? '2.88' : '2.69');
      const placement = calls.filter((c) => c.service === 'placement');
      expect(placement.map((c) => c.method)).to.include.members(['GET', 'PUT', 'DELETE']);
      for (const c of placement) expect(c.microversion).to.equal('1.6');
      // what the simulator received agrees
      for (const c of sim.calls({ pathIncludes: '/compute/' })) {
        const version = c.versions?.['X-OpenStack-Nova-API-Version'];
        if (version !== undefined) expect(version).to.equal(c.path.includes('/os-hypervisors') ? '2.88' : '2.69');
      }
    });
  });
});
