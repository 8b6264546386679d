/**
 * Network: a Neutron network, subnet and router in an Identity's project. Servers, Volumes and
 * LoadBalancers name the Network they belong to (`networkID`); a Server is owned by its Network for
 * cascading deletion. The identity and the subnet prefix are fixed at creation.
 */
import type * as t from 'io-ts';
import { AuditURL, Cidr, Conditions, Generation, Ipv4, LocalObjectReference, Phase, Uuid } from './codec/common.js';
import { int } from './codec/primitives.js';
import { list, struct } from './codec/structure.js';
import { deepEqual, ruleError } from './codec/transitions.js';
import { defineKind, standardColumns, type ResourceObject, type TransitionRule } from './kind.js';

export const Route = struct('Route', { prefix: Cidr, nexthop: Ipv4 }, {});

export const NetworkSpec = struct(
  'NetworkSpec',
  { identityRef: LocalObjectReference, prefix: Cidr },
  {
    dnsNameservers: list('DnsNameservers', Ipv4, { maxItems: 8, listType: 'set' }),
    routes: list('Routes', Route, { maxItems: 32, listType: 'map', mapKeys: ['prefix'] }),
  },
);
export type NetworkSpec = t.TypeOf<typeof NetworkSpec>;

export const NetworkStatus = struct(
  'NetworkStatus',
  {},
  {
    observedGeneration: Generation,
    auditURL: AuditURL,
    phase: Phase,
    conditions: Conditions,
    networkID: Uuid,
    subnetID: Uuid,
    routerID: Uuid,
    vlanID: int('VlanID', { minimum: 1, maximum: 4094 }),
  },
);
export type NetworkStatus = t.TypeOf<typeof NetworkStatus>;

const immutable = (key: 'identityRef' | 'prefix'): TransitionRule<NetworkSpec, NetworkStatus> => (self, old) =>
  deepEqual(self.spec[key], old.spec[key]) ? [] : [ruleError(`spec.${key}`, self.spec[key], `${key} is immutable`)];

export const NetworkKind = defineKind({
  kind: 'Network',
  plural: 'networks',
  shortNames: ['net'],
  spec: NetworkSpec,
  status: NetworkStatus,
  columns: standardColumns('Available'),
  transitions: [immutable('identityRef'), immutable('prefix')],
});
export type Network = ResourceObject<'Network', NetworkSpec, NetworkStatus>;
export const validateNetwork = NetworkKind.validate;
