import { condition, IMAGE_ID, objectOf, variant, type AgreementCase, type Json } from './case.js';

const base = objectOf('LoadBalancer', {
  networkID: 'net-a',
  floatingIP: true,
  listeners: [
    {
      name: 'https',
      protocol: 'TCP',
      port: 443,
      allowedCIDRs: ['0.0.0.0/0'],
      idleTimeouts: { clientDataSeconds: 300, memberDataSeconds: 300 },
      proxyProtocolV2: true,
      pool: { members: [{ address: '10.0.0.10', port: 8443 }, { address: '10.0.0.11', port: 8443 }], healthMonitor: { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } },
    },
    { name: 'dns', protocol: 'UDP', port: 53, pool: { members: [{ address: '10.0.0.20', port: 53 }] } },
  ],
});
const l = (i: number, edit: (listener: Json) => void): Json => variant(base, (o) => edit(((o.spec as Json).listeners as Json[])[i] as Json));

export const loadBalancerCases: AgreementCase[] = [
  { title: 'TCP and UDP listeners with pools and a monitor are valid', object: base, expect: 'valid' },
  { title: 'at least one listener', object: variant(base, (o) => ((o.spec as Json).listeners = [])), expect: ['spec.listeners'] },
  { title: 'a listener port is at most 65535', object: l(1, (x) => (x.port = 70000)), expect: ['spec.listeners[1].port'] },
  { title: 'a listener port is at least 1', object: l(0, (x) => (x.port = 0)), expect: ['spec.listeners[0].port'] },
  { title: 'the protocol is TCP or UDP', object: l(0, (x) => (x.protocol = 'SCTP')), expect: ['spec.listeners[0].protocol'] },
  { title: 'listener names are unique', object: l(1, (x) => (x.name = 'https')), expect: ['spec.listeners[1]'] },
  { title: 'UDP listeners take no idle timeouts', object: l(1, (x) => (x.idleTimeouts = { clientDataSeconds: 10 })), expect: ['spec.listeners[1].idleTimeouts'] },
  { title: 'UDP listeners take no PROXY v2', object: l(1, (x) => (x.proxyProtocolV2 = true)), expect: ['spec.listeners[1].proxyProtocolV2'] },
  { title: 'UDP with proxyProtocolV2 false is fine', object: l(1, (x) => (x.proxyProtocolV2 = false)), expect: 'valid' },
  { title: 'allowed CIDRs are CIDRs', object: l(0, (x) => (x.allowedCIDRs = ['10.0.0.0/8', 'anywhere'])), expect: ['spec.listeners[0].allowedCIDRs[1]'] },
  { title: 'IPv6 CIDRs are allowed', object: l(0, (x) => (x.allowedCIDRs = ['2001:db8::/32'])), expect: 'valid' },
  { title: 'an idle timeout is at most a day', object: l(0, (x) => (x.idleTimeouts = { clientDataSeconds: 86401 })), expect: ['spec.listeners[0].idleTimeouts.clientDataSeconds'] },
  { title: 'members are unique by address and port', object: l(0, (x) => ((x.pool as Json).members = [{ address: '10.0.0.10', port: 1 }, { address: '10.0.0.10', port: 1 }])), expect: ['spec.listeners[0].pool.members[1]'] },
  { title: 'the same address on two ports is two members', object: l(0, (x) => ((x.pool as Json).members = [{ address: '10.0.0.10', port: 1 }, { address: '10.0.0.10', port: 2 }])), expect: 'valid' },
  { title: 'a member address is IPv4', object: l(0, (x) => ((x.pool as Json).members = [{ address: '10.0.0.300', port: 1 }])), expect: ['spec.listeners[0].pool.members[0].address'] },
  { title: 'a monitor timeout does not exceed its delay', object: l(0, (x) => ((x.pool as Json).healthMonitor = { delaySeconds: 5, timeoutSeconds: 10, maxRetries: 3 })), expect: ['spec.listeners[0].pool.healthMonitor.timeoutSeconds'] },
  { title: 'a monitor timeout is strictly less than its delay (issue 13: timeout < interval)', object: l(0, (x) => ((x.pool as Json).healthMonitor = { delaySeconds: 5, timeoutSeconds: 5, maxRetries: 3 })), expect: ['spec.listeners[0].pool.healthMonitor.timeoutSeconds'] },
  { title: 'maxRetries is between 1 and 10', object: l(0, (x) => ((x.pool as Json).healthMonitor = { delaySeconds: 5, timeoutSeconds: 1, maxRetries: 11 })), expect: ['spec.listeners[0].pool.healthMonitor.maxRetries'] },
  // Transition rules, per listener name.
  { title: 'a requested VIP address is an IPv4 address', object: { ...base, spec: { ...(base as Json).spec as Json, vipAddress: 'not-an-ip' } } as Json, expect: ['spec.vipAddress'] },
  { title: 'the VIP address is immutable once set', object: { ...base, spec: { ...(base as Json).spec as Json, vipAddress: '10.0.0.101' } } as Json, old: { ...base, spec: { ...(base as Json).spec as Json, vipAddress: '10.0.0.100' } } as Json, expect: ['spec.vipAddress'] },
  { title: 'a VIP address cannot be added to an existing load balancer', object: { ...base, spec: { ...(base as Json).spec as Json, vipAddress: '10.0.0.100' } } as Json, old: base, expect: ['spec.vipAddress'] },
  { title: 'allowed CIDRs, timeouts and members may change', object: l(0, (x) => ((x.allowedCIDRs = ['10.0.0.0/8']), ((x.pool as Json).members = []))), old: base, expect: 'valid' },
  { title: 'a listener port is immutable', object: l(1, (x) => (x.port = 5353)), old: base, expect: ['spec.listeners[1].port'] },
  { title: 'a listener protocol is immutable', object: l(1, (x) => (x.protocol = 'TCP')), old: base, expect: ['spec.listeners[1].protocol'] },
  { title: 'proxyProtocolV2 is immutable for an existing listener', object: l(0, (x) => delete x.proxyProtocolV2), old: base, expect: ['spec.listeners[0].proxyProtocolV2'] },
  {
    title: 'listeners correlate by name, not position: reordering is no change',
    object: variant(base, (o) => ((o.spec as Json).listeners = [...((o.spec as Json).listeners as Json[])].reverse())),
    old: base,
    expect: 'valid',
  },
  { title: 'a new listener may take any protocol and port', object: variant(base, (o) => ((o.spec as Json).listeners as Json[]).push({ name: 'http', protocol: 'TCP', port: 80 })), old: base, expect: 'valid' },
  { title: 'removing a listener and re-adding its name with another port is a change of that listener', object: l(1, (x) => ((x.name = 'dns'), (x.port = 54))), old: base, expect: ['spec.listeners[1].port'] },
  { title: 'the network is immutable', object: variant(base, (o) => ((o.spec as Json).networkID = 'net-b')), old: base, expect: ['spec.networkID'] },
  {
    title: 'a status with Octavia IDs is valid',
    object: { ...base, status: { loadBalancerID: IMAGE_ID, vipAddress: '10.0.0.5', provisioningStatus: 'ACTIVE', listeners: [{ name: 'https', listenerID: IMAGE_ID }], conditions: [condition('Available')] } },
    expect: 'valid',
  },
  { title: 'the Octavia provisioning status is a closed set', object: { ...base, status: { provisioningStatus: 'BUILDING' } }, expect: ['status.provisioningStatus'] },
];
