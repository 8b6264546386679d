/**
 * A load balancer's history recorded by the engine with the product machine, for the statechart's
 * readability test (test/audit/statechart-readability-browser.test.ts): one listener with a member and a
 * monitor, and a floating IP.
 *
 *   rev 0  reconcile (Octavia has nothing)             absent → provisioning    loadBalancerCreateSubmitted ! octavia.createLoadBalancer
 *   rev 1  accepted (effect, caused by 0)              provisioning
 *   rev 2  reconcile (everything ACTIVE, floating IP)  provisioning → provisioned  converged
 */
import { Engine } from '../../../src/engine/engine.js';
import type { EventStore } from '../../../src/store/port.js';
import { createProductRegistry } from '../../../machines/index.js';
import { loadBalancerStream, type LoadBalancerStimulus } from '../../../machines/load-balancer.js';
import type { DesiredTopology, TopologyObservation } from '../../../machines/load-balancer/observation.js';

export const LB_STREAM = loadBalancerStream('uid-statechart');
const LB = 'lb-web';

const desired: DesiredTopology = {
  name: LB,
  vipSubnetId: 'subnet-7',
  floatingIP: { wanted: true, networkId: 'public' },
  listeners: [
    {
      name: 'http',
      protocol: 'TCP',
      port: 80,
      allowedCIDRs: ['10.0.0.0/8'],
      proxyProtocolV2: false,
      idleTimeouts: { clientDataSeconds: 60, memberDataSeconds: 120 },
      pool: { members: [{ address: '10.0.1.11', port: 8080 }], healthMonitor: { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } },
    },
  ],
};

const converged: TopologyObservation = {
  loadBalancer: { kind: 'present', id: 'lb-1', provisioningStatus: 'ACTIVE', vipAddress: '10.0.0.5', vipPortId: 'port-1' },
  listeners: {
    [`${LB}-http-listener`]: { kind: 'present', id: 'listener-http', provisioningStatus: 'ACTIVE', protocol: 'TCP', port: 80, allowedCidrs: ['10.0.0.0/8'], timeoutClientData: 60_000, timeoutMemberData: 120_000, defaultPoolId: 'pool-http' },
  },
  pools: { [`${LB}-http-pool`]: { kind: 'present', id: 'pool-http', provisioningStatus: 'ACTIVE', protocol: 'TCP', members: [{ id: 'm-1', address: '10.0.1.11', port: 8080 }] } },
  monitors: { [`${LB}-http-monitor`]: { kind: 'present', id: 'hm-http', provisioningStatus: 'ACTIVE', type: 'TCP', delay: 5, timeout: 3, maxRetries: 3, maxRetriesDown: 3 } },
  orphans: [],
  floatingIP: { kind: 'present', id: 'fip-1', address: '203.0.113.7' },
} as TopologyObservation;

/** The resource its events name (metadata.subject): its resource page is /resources/LoadBalancer/default/web. */
export const LB_SUBJECT = { kind: 'LoadBalancer', namespace: 'default', name: 'web' };

export const recordLoadBalancerHistory = async (store: EventStore, stream = LB_STREAM): Promise<void> => {
  let tick = Date.parse('2026-03-01T10:00:00Z');
  const engine = new Engine({
    store,
    registry: createProductRegistry(),
    subjectOf: () => LB_SUBJECT,
    now: () => new Date((tick += 60_000)),
    handlers: {
      'octavia.createLoadBalancer': async (effect) => ({ type: 'accepted', effect: effect.type, subject: effect.subject, ids: { [String(effect.name)]: 'lb-1' } }),
    },
  });
  const reconcile = (observed: TopologyObservation): LoadBalancerStimulus => ({ type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested: false, at: new Date(tick).toISOString(), desired, observed });
  await engine.dispatch(stream, { stimulus: reconcile({ loadBalancer: { kind: 'absent' } } as TopologyObservation), actor: 'reconciler/load-balancer' });
  await engine.dispatch(stream, { stimulus: reconcile(converged), actor: 'reconciler/load-balancer' });
};
