import { condition, IMAGE_ID, objectOf, variant, type AgreementCase, type Json } from './case.js';

const base = objectOf('SecurityGroup', {
  networkID: 'acme-web',
  description: 'web tier',
  rules: [
    { direction: 'ingress', protocol: 'tcp', portRangeMin: 443, portRangeMax: 443, remoteIPPrefix: '0.0.0.0/0' },
    { direction: 'ingress', protocol: 'icmp' },
    { direction: 'egress', protocol: 'any' },
  ],
});
const s = (edit: (spec: Json) => void): Json => variant(base, (o) => edit(o.spec as Json));
const rule0 = (edit: (rule: Json) => void) => s((x) => edit((x.rules as Json[])[0]!));

export const securityGroupCases: AgreementCase[] = [
  { title: 'a security group with tcp, icmp and any rules is valid', object: base, expect: 'valid' },
  { title: 'a security group without rules is valid', object: objectOf('SecurityGroup', { networkID: 'acme-web' }), expect: 'valid' },
  { title: 'the network is required', object: s((x) => delete x.networkID), expect: ['spec.networkID'] },
  { title: 'the network is an object name', object: s((x) => (x.networkID = 'Acme_Web')), expect: ['spec.networkID'] },
  { title: 'a direction is ingress or egress', object: rule0((r) => (r.direction = 'inbound')), expect: ['spec.rules[0].direction'] },
  { title: 'a protocol is tcp, udp, icmp or any', object: rule0((r) => (r.protocol = 'sctp')), expect: ['spec.rules[0].protocol'] },
  { title: 'a rule needs a direction', object: rule0((r) => delete r.direction), expect: ['spec.rules[0].direction'] },
  { title: 'ports are at most 65535', object: rule0((r) => (r.portRangeMax = 70000)), expect: ['spec.rules[0].portRangeMax'] },
  { title: 'portRangeMax is at least portRangeMin', object: rule0((r) => ((r.portRangeMin = 8080), (r.portRangeMax = 80))), expect: ['spec.rules[0].portRangeMax'] },
  { title: 'port ranges need tcp or udp', object: rule0((r) => (r.protocol = 'icmp')), expect: ['spec.rules[0].portRangeMin'] },
  { title: 'the remote prefix is a CIDR', object: rule0((r) => (r.remoteIPPrefix = '10.0.0.1')), expect: ['spec.rules[0].remoteIPPrefix'] },
  { title: 'at most 64 rules', object: s((x) => (x.rules = Array.from({ length: 65 }, () => ({ direction: 'egress', protocol: 'any' })))), expect: ['spec.rules'] },
  { title: 'rules may change', object: s((x) => (x.rules = [{ direction: 'ingress', protocol: 'udp', portRangeMin: 53, portRangeMax: 53 }])), old: base, expect: 'valid' },
  { title: 'the network is immutable', object: s((x) => (x.networkID = 'acme-db')), old: base, expect: ['spec.networkID'] },
  { title: 'a security group ID in status is a UUID', object: { ...base, status: { securityGroupID: 'sg-1' } }, expect: ['status.securityGroupID'] },
  { title: 'a full status is valid', object: { ...base, status: { securityGroupID: IMAGE_ID, observedGeneration: 1, phase: 'Available', conditions: [condition('Available')] } }, expect: 'valid' },
];
