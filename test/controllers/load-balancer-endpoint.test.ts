/**
 * LB15 at the controller (issue 24, "Load-balancer VIP and floating IP"): the LoadBalancer pass
 * (src/controllers/load-balancer/reconcile.ts) and the status runner, over the simulator's Octavia and
 * Neutron on 127.0.0.1 (manual clock), the embedded resource store and the real engine. One LoadBalancer
 * (examples/loadbalancer.yaml: VIP 10.0.0.100, a floating IP) is brought to Provisioned once; then, case by
 * case, the cloud shows an endpoint the provider cannot act on (openstack-provider.md: "any other state is
 * treated as a consistency error because the provider cannot safely infer a valid next action"), and each
 * case is checked through what a user sees (the rendered status) and what the cloud saw (the simulator's
 * call log), then mended, after which the next pass — the controller's own requeue, no human action on
 * Regent — finds the load balancer Provisioned again.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import type { CallRecord } from '../../src/simulator/calls.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { openEmbeddedSource, type EmbeddedResourceSource } from '../../src/kube/embedded/store.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { MemoryEventStore } from '../../src/store/memory.js';
import { Engine } from '../../src/engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { createNetworkHandler, deleteNetworkHandler } from '../../src/provider/networks.js';
import { loadBalancerHandlers } from '../../src/provider/load-balancers.js';
import { reconcileNetwork } from '../../src/controllers/network/reconcile.js';
import { LOAD_BALANCER_REQUEUE_MS, reconcileLoadBalancer, type LoadBalancerControllerDeps } from '../../src/controllers/load-balancer/reconcile.js';
import { StatusRunner } from '../../src/status/runner.js';
import { MemoryCheckpoint } from '../../src/status/checkpoint.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Disposition } from '../../src/controllers/disposition.js';
import type { LoadBalancerResourceStatus } from '../../projections/load-balancer-status.js';
import { statusRunnerParts } from '../../src/app/kinds.js';

describe('LoadBalancer controller: an unusable endpoint is a consistency error, never Provisioned (LB15)', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let os: OpenStackSession;
  let dir: string;
  let source: EmbeddedResourceSource;
  let runner: StatusRunner;
  let deps: LoadBalancerControllerDeps;
  /** The load balancer as Octavia and Neutron reported it on the last good pass. */
  let good: { id: string; name: string; vipAddress: string; vipPortId: string; fipId: string; publicIP: string };

  const ref = { kind: 'LoadBalancer' as const, namespace: 'default', name: 'web-lb' };
  const pass = (): Promise<Disposition> => reconcileLoadBalancer(deps, 'default', 'web-lb');
  const status = async (): Promise<LoadBalancerResourceStatus> => {
    await runner.render(ref);
    return (await source.get('LoadBalancer', 'default', 'web-lb'))?.status as LoadBalancerResourceStatus;
  };
  const available = (s: LoadBalancerResourceStatus) => s.conditions.find((c) => c.type === 'Available');
  const mark = (): number => sim.calls().at(-1)?.seq ?? 0;
  const since = (seq: number): CallRecord[] => sim.calls().filter((c) => c.seq > seq);
  const mutations = (calls: CallRecord[]) => calls.filter((c) => c.method !== 'GET' && (c.path.includes('/lbaas/') || c.path.includes('/v2.0/')));
  const fipLookups = (calls: CallRecord[]) => calls.filter((c) => c.method === 'GET' && c.path.endsWith('/floatingips'));
  const portIdOf = (c: CallRecord) => new URLSearchParams(c.query).get('port_id');
  const forceLb = (body: Record<string, unknown>) => sim.control.forceLoadBalancer(good.id, body);

  before(async () => {
    sim = await startSimulator({ clock: 'manual' });
    os = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-demo'), { retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 }, timeoutMs: 5_000 });
    dir = mkdtempSync(join(tmpdir(), 'regent-lb-endpoint-'));
    source = openEmbeddedSource({ path: join(dir, 'resources.db') });
    const store = new MemoryEventStore();
    const engine = new Engine({
      store,
      registry: createProductRegistry(),
      handlers: { ...loadBalancerHandlers(os), 'neutron.createNetwork': createNetworkHandler(os), 'neutron.deleteNetwork': deleteNetworkHandler(os) },
    });
    const logger = silentLogger();
    const now = () => new Date(sim.clock.now());
    runner = new StatusRunner({ store, engine, source, checkpoint: new MemoryCheckpoint(), logger, ...statusRunnerParts(['LoadBalancer']), now });
    const publicId = (await os.neutron.listNetworks({ name: 'public' }))[0]!.id;
    await applyManifests(source, `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
    network: { externalNetworkID: ${publicId} }
---
apiVersion: regent.dev/v1alpha1
kind: Identity
metadata: { name: acme }
spec: { regionRef: { name: region-one }, organizationID: acme, projectID: web }
---
apiVersion: regent.dev/v1alpha1
kind: Network
metadata: { name: net-a }
spec: { identityRef: { name: acme }, prefix: 10.0.0.0/24 }
`);
    const network = await reconcileNetwork({ engine, source, os, now }, 'default', 'net-a');
    if (network.kind !== 'done') throw new Error(`net-a did not come up: ${JSON.stringify(network)}`);
    deps = { engine, source, scope: async () => ({ kind: 'ready', session: os }), logger, now };
    await applyManifests(source, readFileSync('examples/loadbalancer.yaml', 'utf8'));
    let s = await status();
    for (let i = 0; i < 30 && available(s)?.status !== 'True'; i++) {
      await pass();
      sim.clock.advance(1_000);
      s = await status();
    }
    expect(available(s), JSON.stringify(s)).to.deep.include({ status: 'True', reason: 'Provisioned' });
    const name = (await os.octavia.getLoadBalancer(s.loadBalancerID as string)).name as string;
    const vipPortId = (await os.octavia.getLoadBalancer(s.loadBalancerID as string)).vipPortId;
    const portId = vipPortId.kind === 'value' ? (vipPortId.value as string) : '';
    const fips = await os.neutron.listFloatingIps({ port_id: portId });
    expect(fips).to.have.length(1);
    good = { id: s.loadBalancerID as string, name, vipAddress: s.vipAddress as string, vipPortId: portId, fipId: fips[0]!.id, publicIP: s.publicIP as string };
    expect(good.vipAddress).to.equal('10.0.0.100');
    expect(good.publicIP).to.match(/^172\.24\.4\./);
  });
  after(async () => {
    await source?.close();
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  interface Case {
    rule: string;
    spoil: () => Promise<unknown> | unknown;
    message: () => string;
    mend: () => Promise<unknown> | unknown;
    /** Floating-IP lookups a pass sends: none without a usable VIP port id, else one (on the VIP port). */
    lookups: 0 | 1;
  }
  let second = '';
  const cases: Case[] = [
    {
      rule: "an ACTIVE load balancer with VIP address ''",
      spoil: () => forceLb({ vip_address: '' }),
      message: () => `Octavia reports load balancer ${good.name} ACTIVE with VIP address ''`,
      mend: () => forceLb({ vip_address: good.vipAddress }),
      lookups: 1,
    },
    {
      rule: 'an ACTIVE load balancer whose VIP address is not an IP address',
      spoil: () => forceLb({ vip_address: 'web-lb.internal' }),
      message: () => `Octavia reports load balancer ${good.name} ACTIVE with VIP address 'web-lb.internal' (not an IP address)`,
      mend: () => forceLb({ vip_address: good.vipAddress }),
      lookups: 1,
    },
    {
      rule: "an ACTIVE load balancer with VIP port id '' (no floating-IP lookup is sent at all)",
      spoil: () => forceLb({ vip_port_id: '' }),
      message: () => `Octavia reports load balancer ${good.name} ACTIVE with VIP port id ''`,
      mend: () => forceLb({ vip_port_id: good.vipPortId }),
      lookups: 0,
    },
    {
      rule: 'two floating IPs on the VIP port',
      spoil: async () => {
        // Neutron takes one floating IP per fixed IP: a second fixed IP on the VIP port carries the second
        const port = await os.neutron.getPort(good.vipPortId);
        const updated = await os.neutron.updatePort(good.vipPortId, { fixed_ips: [...(port.fixed_ips ?? []), { subnet_id: port.fixed_ips?.[0]?.subnet_id }] });
        const extra = (updated.fixed_ips ?? []).find((f) => f.ip_address !== good.vipAddress)!.ip_address;
        second = (await os.neutron.createFloatingIp({ floating_network_id: (await os.neutron.listNetworks({ name: 'public' }))[0]!.id, port_id: good.vipPortId, fixed_ip_address: extra })).id;
      },
      message: () => {
        const fips = [...sim.control.sim.neutron.floatingIps.values()].filter((f) => f.portId === good.vipPortId).sort((a, b) => (a.id < b.id ? -1 : 1));
        expect(fips.map((f) => f.id).sort()).to.deep.equal([good.fipId, second].sort());
        return `Neutron reports 2 floating IPs on VIP port ${good.vipPortId} of load balancer ${good.name}: ${fips.map((f) => `${f.id} ('${f.floatingIpAddress}')`).join(', ')}`;
      },
      mend: () => os.neutron.deleteFloatingIp(second),
      lookups: 1,
    },
    {
      rule: "one floating IP whose address is ''",
      spoil: () => sim.control.forceFloatingIp(good.fipId, { floating_ip_address: '' }),
      message: () => `Neutron reports floating IP ${good.fipId} on VIP port ${good.vipPortId} of load balancer ${good.name} with address ''`,
      mend: () => sim.control.forceFloatingIp(good.fipId, { floating_ip_address: good.publicIP }),
      lookups: 1,
    },
    {
      rule: 'one floating IP whose address is not an IP address',
      spoil: () => sim.control.forceFloatingIp(good.fipId, { floating_ip_address: '172.24.4' }),
      message: () => `Neutron reports floating IP ${good.fipId} on VIP port ${good.vipPortId} of load balancer ${good.name} with address '172.24.4' (not an IP address)`,
      mend: () => sim.control.forceFloatingIp(good.fipId, { floating_ip_address: good.publicIP }),
      lookups: 1,
    },
  ];

  for (const c of cases) {
    it(`LB15 ${c.rule}: ConsistencyError naming what was seen, no vipAddress or publicIP in status (not the last good ones either), nothing sent; the next pass after the cloud is mended is Provisioned again`, async () => {
      expect(await status(), 'starts from the good state').to.deep.include({ vipAddress: good.vipAddress, publicIP: good.publicIP, phase: 'Ready' });
      await c.spoil();
      let mended = false;
      try {
        await spoiled(c);
        await c.mend();
        mended = true;
        await recovers();
      } finally {
        // the next case starts from the good state whatever this one found
        if (!mended) {
          await c.mend();
          await pass();
        }
      }
    });
  }

  /** Two passes over the spoiled cloud (the controller's own requeue between them): what status shows, what was sent. */
  const spoiled = async (c: Case): Promise<void> => {
    const seq = mark();
    for (let i = 0; i < 2; i++) {
      const disposition = await pass();
      expect(disposition).to.deep.include({ kind: 'yield', afterMs: LOAD_BALANCER_REQUEUE_MS.inconsistent });
      sim.clock.advance(LOAD_BALANCER_REQUEUE_MS.inconsistent);
    }
    const s = await status();
    expect(available(s)).to.deep.include({ status: 'False', reason: 'ConsistencyError', message: c.message() });
    expect(s.phase).to.equal('Error');
    expect(s, 'nothing published as the endpoint').to.not.have.any.keys('vipAddress', 'publicIP');
    expect(s).to.include({ loadBalancerID: good.id, provisioningStatus: 'ACTIVE' });
    const calls = since(seq);
    expect(mutations(calls), 'no mutation').to.deep.equal([]);
    expect(fipLookups(calls).map(portIdOf), 'floating-IP lookups, by port_id').to.deep.equal(c.lookups === 0 ? [] : [good.vipPortId, good.vipPortId]);
  };
  /** The cloud mended: the next pass finds the load balancer Provisioned, its endpoint published again, nothing sent. */
  const recovers = async (): Promise<void> => {
    const back = mark();
    expect(await pass()).to.deep.include({ kind: 'yield', afterMs: LOAD_BALANCER_REQUEUE_MS.settled });
    const recovered = await status();
    expect(available(recovered)).to.deep.include({ status: 'True', reason: 'Provisioned' });
    expect(recovered).to.deep.include({ vipAddress: good.vipAddress, publicIP: good.publicIP, phase: 'Ready' });
    expect(mutations(since(back))).to.deep.equal([]);
  };
});
