import { condition, IMAGE_ID, objectOf, variant, type AgreementCase, type Json } from './case.js';

const base = objectOf('Network', { identityRef: { name: 'acme-web' }, prefix: '10.0.0.0/24', dnsNameservers: ['8.8.8.8', '1.1.1.1'], routes: [{ prefix: '192.168.0.0/16', nexthop: '10.0.0.254' }] });
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));

export const networkCases: AgreementCase[] = [
  { title: 'a network with a prefix, nameservers and a route is valid', object: base, expect: 'valid' },
  { title: 'the prefix is a CIDR', object: s((x) => (x.prefix = '10.0.0.0')), expect: ['spec.prefix'] },
  { title: 'an IPv4 prefix length is at most 32', object: s((x) => (x.prefix = '10.0.0.0/33')), expect: ['spec.prefix'] },
  { title: 'nameservers are IPv4 addresses', object: s((x) => (x.dnsNameservers = ['dns.example.com'])), expect: ['spec.dnsNameservers[0]'] },
  { title: 'nameservers are a set', object: s((x) => (x.dnsNameservers = ['8.8.8.8', '8.8.8.8'])), expect: ['spec.dnsNameservers[1]'] },
  { title: 'routes are unique by prefix', object: s((x) => (x.routes = [{ prefix: '10.1.0.0/16', nexthop: '10.0.0.1' }, { prefix: '10.1.0.0/16', nexthop: '10.0.0.2' }])), expect: ['spec.routes[1]'] },
  { title: 'a route needs a next hop', object: s((x) => (x.routes = [{ prefix: '10.1.0.0/16' }])), expect: ['spec.routes[0].nexthop'] },
  { title: 'the identity is required', object: s((x) => delete x.identityRef), expect: ['spec.identityRef'] },
  { title: 'nameservers may change', object: s((x) => (x.dnsNameservers = ['9.9.9.9'])), old: base, expect: 'valid' },
  { title: 'the prefix is immutable', object: s((x) => (x.prefix = '10.0.1.0/24')), old: base, expect: ['spec.prefix'] },
  { title: 'the identity is immutable', object: s((x) => (x.identityRef = { name: 'other' })), old: base, expect: ['spec.identityRef'] },
  { title: 'a VLAN ID in status is between 1 and 4094', object: { ...base, status: { networkID: IMAGE_ID, vlanID: 5000 } }, expect: ['status.vlanID'] },
  { title: 'a full status is valid', object: { ...base, status: { networkID: IMAGE_ID, subnetID: IMAGE_ID, vlanID: 100, conditions: [condition('Available')] } }, expect: 'valid' },
];
