/**
 * LoadBalancer: an Octavia load balancer with listeners, pools, members, health monitors and an
 * optional floating IP (openstack-provider.md, "Octavia Load Balancers"). Per listener name, the
 * protocol, the port and proxyProtocolV2 are immutable: Octavia cannot change them (or the pool
 * protocol proxyProtocolV2 derives) in place. UDP listeners take neither idle timeouts nor PROXY v2.
 */
import type * as t from 'io-ts';
import { AuditURL, Cidr, Conditions, DnsLabel, Generation, Ipv4, ObjectName, Phase, Uuid } from './codec/common.js';
import { bool, enumOf, int, str } from './codec/primitives.js';
import { list, struct } from './codec/structure.js';
import type { FieldError } from './codec/report.js';
import { ruleError } from './codec/transitions.js';
import { defineKind, standardColumns, type ResourceObject, type TransitionRule } from './kind.js';

const Port = int('Port', { minimum: 1, maximum: 65535 });
const Seconds = (name: string, maximum: number) => int(name, { minimum: 1, maximum });

export const Member = struct('Member', { address: Ipv4, port: Port }, {});

export const HealthMonitor = struct(
  'HealthMonitor',
  { delaySeconds: Seconds('DelaySeconds', 3600), timeoutSeconds: Seconds('TimeoutSeconds', 3600), maxRetries: int('MaxRetries', { minimum: 1, maximum: 10 }) },
  { maxRetriesDown: int('MaxRetriesDown', { minimum: 1, maximum: 10 }) },
  { rules: [{ fieldPath: '.timeoutSeconds', message: 'timeoutSeconds must be less than delaySeconds', check: (m) => m.timeoutSeconds < m.delaySeconds }] },
);

export const Pool = struct(
  'Pool',
  {},
  { members: list('Members', Member, { maxItems: 64, listType: 'map', mapKeys: ['address', 'port'] }), healthMonitor: HealthMonitor },
);

/** TCP idle timeouts in seconds (Octavia's timeout_client_data and timeout_member_data). */
export const IdleTimeouts = struct('IdleTimeouts', {}, { clientDataSeconds: Seconds('ClientDataSeconds', 86400), memberDataSeconds: Seconds('MemberDataSeconds', 86400) });

export const ListenerProtocol = enumOf('ListenerProtocol', ['TCP', 'UDP']);
export type ListenerProtocol = t.TypeOf<typeof ListenerProtocol>;

export const Listener = struct(
  'Listener',
  { name: DnsLabel, protocol: ListenerProtocol, port: Port },
  {
    allowedCIDRs: list('AllowedCIDRs', Cidr, { maxItems: 32, listType: 'set' }),
    idleTimeouts: IdleTimeouts,
    proxyProtocolV2: bool,
    pool: Pool,
  },
  {
    rules: [
      { fieldPath: '.idleTimeouts', message: 'UDP listeners do not support idle timeouts', check: (l) => l.protocol !== 'UDP' || l.idleTimeouts === undefined },
      { fieldPath: '.proxyProtocolV2', message: 'UDP listeners do not support proxyProtocolV2', check: (l) => l.protocol !== 'UDP' || l.proxyProtocolV2 !== true },
    ],
  },
);
export type Listener = t.TypeOf<typeof Listener>;

export const LoadBalancerSpec = struct(
  'LoadBalancerSpec',
  { networkID: ObjectName, listeners: list('Listeners', Listener, { minItems: 1, maxItems: 16, listType: 'map', mapKeys: ['name'] }) },
  { floatingIP: bool, vipAddress: Ipv4 },
);
export type LoadBalancerSpec = t.TypeOf<typeof LoadBalancerSpec>;

export const OctaviaProvisioningStatus = enumOf('OctaviaProvisioningStatus', ['ACTIVE', 'PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE', 'DELETED', 'ERROR']);

export const ListenerStatus = struct('ListenerStatus', { name: DnsLabel }, { listenerID: Uuid, poolID: Uuid, healthMonitorID: Uuid, state: enumOf('ListenerState', ['Provisioning', 'Provisioned', 'Errored', 'ConsistencyError', 'Deleting']) });

export const LoadBalancerStatus = struct(
  'LoadBalancerStatus',
  {},
  {
    observedGeneration: Generation,
    auditURL: AuditURL,
    phase: Phase,
    conditions: Conditions,
    loadBalancerID: Uuid,
    vipAddress: str('IpAddress', { maxLength: 45 }),
    publicIP: str('IpAddress', { maxLength: 45 }),
    provisioningStatus: OctaviaProvisioningStatus,
    operatingStatus: str('OperatingStatus', { maxLength: 64 }),
    listeners: list('ListenerStatuses', ListenerStatus, { maxItems: 16, listType: 'map', mapKeys: ['name'] }),
  },
);
export type LoadBalancerStatus = t.TypeOf<typeof LoadBalancerStatus>;

/** Listeners correlate with their stored selves by name, as CEL correlates list-map items. */
const listenerImmutability: TransitionRule<LoadBalancerSpec, LoadBalancerStatus> = (self, old) =>
  self.spec.listeners.flatMap((listener, i): FieldError[] => {
    const before = old.spec.listeners.find((o) => o.name === listener.name);
    if (before === undefined) return [];
    const at = `spec.listeners[${i}]`;
    const errors: FieldError[] = [];
    if (listener.protocol !== before.protocol) errors.push(ruleError(`${at}.protocol`, listener, 'protocol is immutable for an existing listener'));
    if (listener.port !== before.port) errors.push(ruleError(`${at}.port`, listener, 'port is immutable for an existing listener'));
    if ((listener.proxyProtocolV2 ?? false) !== (before.proxyProtocolV2 ?? false)) errors.push(ruleError(`${at}.proxyProtocolV2`, listener, 'proxyProtocolV2 is immutable for an existing listener'));
    return errors;
  });

const networkImmutable: TransitionRule<LoadBalancerSpec, LoadBalancerStatus> = (self, old) =>
  self.spec.networkID === old.spec.networkID ? [] : [ruleError('spec.networkID', self.spec.networkID, 'networkID is immutable')];

/** The VIP cannot move in place: requested or not, it stays as it was at creation. */
const vipImmutable: TransitionRule<LoadBalancerSpec, LoadBalancerStatus> = (self, old) =>
  self.spec.vipAddress === old.spec.vipAddress ? [] : [ruleError('spec.vipAddress', self.spec, 'vipAddress is immutable')];

export const LoadBalancerKind = defineKind({
  kind: 'LoadBalancer',
  plural: 'loadbalancers',
  shortNames: ['lb'],
  spec: LoadBalancerSpec,
  status: LoadBalancerStatus,
  columns: standardColumns('Available'),
  transitions: [networkImmutable, vipImmutable, listenerImmutability],
});
export type LoadBalancer = ResourceObject<'LoadBalancer', LoadBalancerSpec, LoadBalancerStatus>;
export const validateLoadBalancer = LoadBalancerKind.validate;
