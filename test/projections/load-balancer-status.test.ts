/**
 * A LoadBalancer's status (projections/load-balancer-status.ts) from its machine's state: LB15, the endpoint
 * published only while the last pass found it usable — never a value that is not an IP address, and never the
 * one a previous (good) status carried.
 */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { renderLoadBalancerResource, type LoadBalancerResourceStatus } from '../../projections/load-balancer-status.js';
import { loadBalancerDefinition as def, loadBalancerStream, type LoadBalancerContext, type LoadBalancerStimulus } from '../../machines/load-balancer.js';
import type { DesiredTopology, TopologyObservation } from '../../machines/load-balancer/observation.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const LB = 'lb-web';
const desired: DesiredTopology = { name: LB, vipSubnetId: 'subnet-7', floatingIP: { wanted: true, networkId: 'public' }, listeners: [] };
const lb = (over: Record<string, unknown> = {}) => ({ kind: 'present' as const, id: 'lb-1', provisioningStatus: 'ACTIVE', vipAddress: '10.0.0.5', vipPortId: 'port-1', ...over });
const observed = (over: Partial<TopologyObservation> = {}): TopologyObservation => ({
  loadBalancer: lb(), listeners: {}, pools: {}, monitors: {}, orphans: [], floatingIP: { kind: 'present', id: 'fip-1', address: '203.0.113.7' }, ...over,
});
const reconcile = (o: TopologyObservation): LoadBalancerStimulus => ({ type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested: false, at: '2026-03-01T10:00:00Z', desired, observed: o });
const after = (...stimuli: LoadBalancerStimulus[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, loadBalancerStream('uid-1')));
const render = (s: AnyMachineSnapshot, previous?: LoadBalancerResourceStatus) =>
  renderLoadBalancerResource({ lifecycle: { state: s.value, context: s.context as LoadBalancerContext }, generation: 1, at: '2026-03-01T10:00:01Z', ...(previous ? { previous } : {}) });

describe('LoadBalancer status: the endpoint (LB15)', () => {
  it('a usable endpoint is published: vipAddress and publicIP, Ready', () => {
    const s = render(after(reconcile(observed())));
    expect(s).to.deep.include({ phase: 'Ready', vipAddress: '10.0.0.5', publicIP: '203.0.113.7', loadBalancerID: 'lb-1', provisioningStatus: 'ACTIVE' });
  });

  const unusable: Array<[string, TopologyObservation]> = [
    ["VIP address ''", observed({ loadBalancer: lb({ vipAddress: '' }) })],
    ['a VIP address that is not an IP address', observed({ loadBalancer: lb({ vipAddress: 'vip.example' }) })],
    ["VIP port id ''", { ...observed({ loadBalancer: lb({ vipPortId: '' }) }), floatingIP: undefined } as TopologyObservation],
    ['two floating IPs on the VIP port', observed({ floatingIP: { kind: 'duplicate', floatingIPs: [{ id: 'fip-1', address: '203.0.113.7' }, { id: 'fip-2', address: '203.0.113.8' }] } })],
    ["a floating IP with address ''", observed({ floatingIP: { kind: 'present', id: 'fip-1', address: '' } })],
  ];
  for (const [what, o] of unusable) {
    it(`LB15 ${what}: ConsistencyError, and neither vipAddress nor publicIP — not even the previous status's`, () => {
      const good = render(after(reconcile(observed())));
      const s = render(after(reconcile(observed()), reconcile(o)), good);
      expect(s.conditions.find((c) => c.type === 'Available')).to.deep.include({ status: 'False', reason: 'ConsistencyError' });
      expect(s.phase).to.equal('Error');
      expect(s).to.not.have.any.keys('vipAddress', 'publicIP');
      expect(s).to.include({ loadBalancerID: 'lb-1', provisioningStatus: 'ACTIVE' });
    });
  }
});
