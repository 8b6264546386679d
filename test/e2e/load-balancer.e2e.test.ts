/**
 * The LoadBalancer controller end to end (issue 13): the whole control plane on the embedded stores
 * against the simulator over HTTP (whose Octavia follows Zed's answers, docs/simulator-differences.md §16).
 * The example's two-listener topology (TCP 443 with PROXY v2 and a health monitor, UDP 53) with a
 * floating IP from nothing to Provisioned, an in-place change, a listener removed (pruned), and the
 * deletion (floating IP first, then the cascade), all seen through the LoadBalancer's status.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type RunningSimulator } from '../../src/simulator/index.js';
import { connect, type OpenStackSession } from '../../src/openstack/session.js';
import { cloudFromYaml } from '../../src/openstack/keystone/clouds-config.js';
import { startControlPlane, type ControlPlane } from '../../src/app/control-plane.js';
import { applyManifests } from '../../src/kube/cli/manifests.js';
import { LOAD_BALANCER_FINALIZER } from '../../src/controllers/load-balancer/reconcile.js';
import { loadBalancerName } from '../../machines/load-balancer.js';
import { planeOptions, until } from './support/plane.js';

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface LbStatus {
  phase?: string;
  conditions?: Condition[];
  loadBalancerID?: string;
  vipAddress?: string;
  publicIP?: string;
  provisioningStatus?: string;
  observedGeneration?: number;
  listeners?: Array<{ name: string; state: string; listenerID?: string; poolID?: string; healthMonitorID?: string }>;
}

const foundation = (sim: RunningSimulator, externalNetworkId: string) => `apiVersion: regent.dev/v1alpha1
kind: Region
metadata: { name: region-one }
spec:
  provider: openstack
  openstack:
    endpoint: ${sim.url}/identity/v3
    region: RegionOne
    credentialsSecretRef: { name: region-one-credentials }
    network: { externalNetworkID: ${externalNetworkId} }
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
`;

describe('e2e: the LoadBalancer controller (issue 13)', function () {
  this.timeout(120_000);
  let sim: RunningSimulator;
  let dir: string;
  let plane: ControlPlane;
  let demo: OpenStackSession;
  const example = readFileSync('examples/loadbalancer.yaml', 'utf8');

  const status = async (name = 'web-lb') => (await plane.source.get('LoadBalancer', 'default', name))?.status as LbStatus | undefined;
  const available = async (name = 'web-lb') => (await status(name))?.conditions?.find((c) => c.type === 'Available');
  const provisioned = (what: string, generation = 1) =>
    until(what, async () => {
      const s = await status();
      return s?.conditions?.find((c) => c.type === 'Available')?.status === 'True' && s.observedGeneration === generation ? s : undefined;
    }, 90_000);
  const mutations = () => sim.calls().filter((c) => c.method !== 'GET' && (c.path.includes('/lbaas/') || c.path.includes('/floatingips')));

  beforeEach(async () => {
    sim = await startSimulator({ clock: 'real', delays: { lbCreate: 100, lbUpdate: 100, lbDelete: 100 } });
    dir = mkdtempSync(join(tmpdir(), 'regent-lb-'));
    demo = await connect(cloudFromYaml(sim.cloudsYaml(), 'sim-demo'));
    const publicId = (await demo.neutron.listNetworks({ name: 'public' }))[0]!.id;
    plane = await startControlPlane(planeOptions(dir, sim));
    await until('leadership', () => plane.isLeader());
    await plane.source.secrets.put('default', 'region-one-credentials', { 'clouds.yaml': sim.cloudsYaml(), cloud: 'sim-demo' });
    await applyManifests(plane.source, foundation(sim, publicId));
    await until('net-a ready', async () => ((await plane.source.get('Network', 'default', 'net-a'))?.status as { phase?: string } | undefined)?.phase === 'Ready', 30_000);
  });
  afterEach(async () => {
    await plane.stop().catch(() => undefined);
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the example web-lb (TCP 443 PROXY v2 + monitor, UDP 53, a floating IP) from nothing to Provisioned: VIP, public IP and both listeners in status', async () => {
    const before = mutations().length;
    await applyManifests(plane.source, example);
    const s = await provisioned('web-lb Provisioned');
    expect(s.phase).to.equal('Ready');
    expect(s.vipAddress, 'the requested VIP').to.equal('10.0.0.100');
    expect(s.publicIP).to.match(/^172\.24\.4\./);
    expect(s.provisioningStatus).to.equal('ACTIVE');
    expect(s.listeners?.map((l) => [l.name, l.state])).to.deep.equal([['https', 'Provisioned'], ['dns', 'Provisioned']]);
    const uid = (await plane.source.get('LoadBalancer', 'default', 'web-lb'))!.metadata.uid;
    expect((await plane.source.get('LoadBalancer', 'default', 'web-lb'))?.metadata.finalizers).to.include(LOAD_BALANCER_FINALIZER);
    const lbs = (await demo.octavia.listLoadBalancers()).filter((lb) => lb.name === loadBalancerName(uid));
    expect(lbs.map((lb) => lb.id)).to.deep.equal([s.loadBalancerID]);
    const pools = await demo.octavia.listPools();
    expect(pools.find((p) => p.name === `${loadBalancerName(uid)}-https-pool`)?.protocol).to.deep.equal({ kind: 'value', value: 'PROXYV2' });
    // one mutation per part: the LB, per listener the listener, pool and members (and https's monitor; the
    // example's dns listener has none), then the floating IP — nine in all, never a second of any
    const made = mutations().slice(before);
    expect(made.map((c) => `${c.method} ${c.path.replace(/^.*\/(lbaas|v2\.0)\//, '').replace(/\/[0-9a-f-]{36}\//, '/{id}/')}`), made.map((c) => `${c.method} ${c.path}`).join('\n')).to.deep.equal([
      'POST loadbalancers', 'POST listeners', 'POST pools', 'PUT pools/{id}/members', 'POST healthmonitors', 'POST listeners', 'POST pools', 'PUT pools/{id}/members', 'POST floatingips',
    ]);
  });

  it('in place: allowed CIDRs and a member changed converge to Provisioned at the new generation, with no create of anything', async () => {
    await applyManifests(plane.source, example);
    await provisioned('web-lb Provisioned');
    const creates = () => sim.calls().filter((c) => c.method === 'POST' && c.path.includes('/lbaas/')).length;
    const before = creates();
    await applyManifests(plane.source, example.replace('allowedCIDRs: [0.0.0.0/0]', 'allowedCIDRs: [10.0.0.0/8]').replace('address: 10.0.0.3\n            port: 8443', 'address: 10.0.0.12\n            port: 8443'));
    await provisioned('web-lb Provisioned at generation 2', 2);
    expect(creates() - before, 'nothing created').to.equal(0);
    const uid = (await plane.source.get('LoadBalancer', 'default', 'web-lb'))!.metadata.uid;
    const listener = (await demo.octavia.listListeners()).find((l) => l.name === `${loadBalancerName(uid)}-https-listener`);
    expect(listener?.allowedCidrs).to.deep.equal({ kind: 'value', value: ['10.0.0.0/8'] });
  });

  it('a listener removed from the spec is pruned (listener and pool), the rest kept', async () => {
    await applyManifests(plane.source, example);
    await provisioned('web-lb Provisioned');
    const uid = (await plane.source.get('LoadBalancer', 'default', 'web-lb'))!.metadata.uid;
    const dnsAt = example.indexOf('    - name: dns');
    await applyManifests(plane.source, example.slice(0, dnsAt));
    const s = await provisioned('pruned', 2);
    expect(s.listeners?.map((l) => l.name)).to.deep.equal(['https']);
    const names = (await demo.octavia.listListeners()).map((l) => l.name);
    expect(names).to.include(`${loadBalancerName(uid)}-https-listener`).and.not.include(`${loadBalancerName(uid)}-dns-listener`);
    expect((await demo.octavia.listPools()).map((p) => p.name)).to.not.include(`${loadBalancerName(uid)}-dns-pool`);
  });

  it('delete: the floating IP is released first, then the cascade delete; the finalizer goes once Octavia has no load balancer', async () => {
    await applyManifests(plane.source, example);
    const s = await provisioned('web-lb Provisioned');
    await plane.source.delete('LoadBalancer', 'default', 'web-lb');
    await until('Deleting', async () => (await available())?.reason === 'Deleting' || (await plane.source.get('LoadBalancer', 'default', 'web-lb')) === undefined);
    await until('web-lb gone', async () => (await plane.source.get('LoadBalancer', 'default', 'web-lb')) === undefined, 60_000);
    const fipDelete = sim.calls().findIndex((c) => c.method === 'DELETE' && c.path.includes('/floatingips/'));
    const lbDelete = sim.calls().findIndex((c) => c.method === 'DELETE' && c.path.includes(`/lbaas/loadbalancers/${s.loadBalancerID}`));
    expect(fipDelete, 'the floating IP released').to.be.greaterThan(-1);
    expect(lbDelete, 'then the cascade delete').to.be.greaterThan(fipDelete);
    expect(sim.calls()[lbDelete]?.query).to.include('cascade=true');
    expect((await demo.octavia.listLoadBalancers()).some((lb) => lb.id === s.loadBalancerID)).to.equal(false);
  });

  it('a floating IP asked for in a Region with no external network: InvalidSpec naming the Region setting, and nothing sent to Octavia', async () => {
    await applyManifests(plane.source, foundation(sim, '00000000-0000-4000-8000-000000000000').replace(/ {4}network: \{ externalNetworkID: [^}]+\}\n/, ''));
    const before = mutations().length;
    await applyManifests(plane.source, example);
    const c = await until('InvalidSpec', async () => {
      const found = await available();
      return found?.reason === 'InvalidSpec' ? found : undefined;
    });
    expect(c.message).to.include('externalNetworkID');
    expect(mutations().length - before).to.equal(0);
  });
});
