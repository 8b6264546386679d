/**
 * Octavia observations. provisioning_status drives the reconcile outcome (ACTIVE continue, PENDING_* yield, other
 * → consistency error), so it is a closed Field: an unknown value is unreadable, never mapped to a neighbour.
 */
import * as t from 'io-ts';
import type { RequestContext } from '../errors.js';
import type { Field } from './field.js';
import { decodeOrThrow, nullable, oneOf, readField } from './field.js';

export const PROVISIONING_STATUSES = ['ACTIVE', 'DELETED', 'ERROR', 'PENDING_CREATE', 'PENDING_UPDATE', 'PENDING_DELETE'] as const;
export type ProvisioningStatus = (typeof PROVISIONING_STATUSES)[number];
export const provisioningStatus = oneOf('ProvisioningStatus', PROVISIONING_STATUSES);

export const OPERATING_STATUSES = ['ONLINE', 'DRAINING', 'OFFLINE', 'DEGRADED', 'ERROR', 'NO_MONITOR'] as const;
export type OperatingStatus = (typeof OPERATING_STATUSES)[number];
export const operatingStatus = oneOf('OperatingStatus', OPERATING_STATUSES);

interface OctaviaCommon {
  readonly id: string;
  readonly name: string | null;
  readonly provisioningStatus: Field<ProvisioningStatus>;
  readonly operatingStatus: Field<OperatingStatus>;
  readonly observedAt?: string;
}

export interface LoadBalancerObservation extends OctaviaCommon {
  readonly vipAddress: Field<string | null>;
  readonly vipPortId: Field<string | null>;
  readonly vipSubnetId: Field<string | null>;
  readonly vipNetworkId: Field<string | null>;
  readonly listenerIds: Field<readonly string[]>;
  readonly poolIds: Field<readonly string[]>;
  readonly tags: Field<readonly string[]>;
  /** The provider driver Octavia chose (`amphora` on the sandbox also when none was asked for). */
  readonly provider: Field<string | null>;
}

export interface ListenerObservation extends OctaviaCommon {
  readonly protocol: Field<string>;
  readonly protocolPort: Field<number>;
  readonly defaultPoolId: Field<string | null>;
  readonly allowedCidrs: Field<readonly string[] | null>;
  readonly timeoutClientData: Field<number | null>;
  readonly timeoutMemberData: Field<number | null>;
  readonly loadBalancerIds: Field<readonly string[]>;
}

export interface PoolObservation extends OctaviaCommon {
  readonly protocol: Field<string>;
  readonly lbAlgorithm: Field<string>;
  readonly healthMonitorId: Field<string | null>;
  readonly listenerIds: Field<readonly string[]>;
  readonly loadBalancerIds: Field<readonly string[]>;
}

export interface MemberObservation extends OctaviaCommon {
  readonly address: Field<string>;
  readonly protocolPort: Field<number>;
  readonly subnetId: Field<string | null>;
  readonly weight: Field<number>;
}

export interface HealthMonitorObservation extends OctaviaCommon {
  readonly type: Field<string>;
  readonly delay: Field<number>;
  readonly timeout: Field<number>;
  readonly maxRetries: Field<number>;
  readonly maxRetriesDown: Field<number>;
  readonly poolIds: Field<readonly string[]>;
}

const head = t.intersection([t.type({ id: t.string }), t.partial({ name: nullable(t.string) })]);
/** Octavia links children as `[{"id": …}]`. */
const idRefs = new t.Type<string[], unknown, unknown>(
  'IdRefs',
  (u): u is string[] => Array.isArray(u),
  (u, c) => {
    if (!Array.isArray(u)) return t.failure(u, c);
    const ids: string[] = [];
    for (const item of u as unknown[]) {
      const id = typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined;
      if (typeof id !== 'string') return t.failure(u, c);
      ids.push(id);
    }
    return t.success(ids);
  },
  (a) => a.map((id) => ({ id })),
);

const common = (raw: unknown, what: string, observedAt: string | undefined, context: RequestContext): [OctaviaCommon, Record<string, unknown>] => {
  const h = decodeOrThrow(head, raw, what, context);
  const obj = raw as Record<string, unknown>;
  return [{
    id: h.id,
    name: h.name ?? null,
    provisioningStatus: readField(obj, 'provisioning_status', provisioningStatus),
    operatingStatus: readField(obj, 'operating_status', operatingStatus),
    ...(observedAt !== undefined ? { observedAt } : {}),
  }, obj];
};

export const decodeLoadBalancer = (raw: unknown, observedAt?: string, context: RequestContext = {}): LoadBalancerObservation => {
  const [c, obj] = common(raw, 'load balancer', observedAt, context);
  return {
    ...c,
    vipAddress: readField(obj, 'vip_address', nullable(t.string)),
    vipPortId: readField(obj, 'vip_port_id', nullable(t.string)),
    vipSubnetId: readField(obj, 'vip_subnet_id', nullable(t.string)),
    vipNetworkId: readField(obj, 'vip_network_id', nullable(t.string)),
    listenerIds: readField(obj, 'listeners', idRefs),
    poolIds: readField(obj, 'pools', idRefs),
    tags: readField(obj, 'tags', t.array(t.string)),
    provider: readField(obj, 'provider', nullable(t.string)),
  };
};

export const decodeListener = (raw: unknown, observedAt?: string, context: RequestContext = {}): ListenerObservation => {
  const [c, obj] = common(raw, 'listener', observedAt, context);
  return {
    ...c,
    protocol: readField(obj, 'protocol', t.string),
    protocolPort: readField(obj, 'protocol_port', t.number),
    defaultPoolId: readField(obj, 'default_pool_id', nullable(t.string)),
    allowedCidrs: readField(obj, 'allowed_cidrs', nullable(t.array(t.string))),
    timeoutClientData: readField(obj, 'timeout_client_data', nullable(t.number)),
    timeoutMemberData: readField(obj, 'timeout_member_data', nullable(t.number)),
    loadBalancerIds: readField(obj, 'loadbalancers', idRefs),
  };
};

export const decodePool = (raw: unknown, observedAt?: string, context: RequestContext = {}): PoolObservation => {
  const [c, obj] = common(raw, 'pool', observedAt, context);
  return {
    ...c,
    protocol: readField(obj, 'protocol', t.string),
    lbAlgorithm: readField(obj, 'lb_algorithm', t.string),
    healthMonitorId: readField(obj, 'healthmonitor_id', nullable(t.string)),
    listenerIds: readField(obj, 'listeners', idRefs),
    loadBalancerIds: readField(obj, 'loadbalancers', idRefs),
  };
};

export const decodeMember = (raw: unknown, observedAt?: string, context: RequestContext = {}): MemberObservation => {
  const [c, obj] = common(raw, 'member', observedAt, context);
  return {
    ...c,
    address: readField(obj, 'address', t.string),
    protocolPort: readField(obj, 'protocol_port', t.number),
    subnetId: readField(obj, 'subnet_id', nullable(t.string)),
    weight: readField(obj, 'weight', t.number),
  };
};

export const decodeHealthMonitor = (raw: unknown, observedAt?: string, context: RequestContext = {}): HealthMonitorObservation => {
  const [c, obj] = common(raw, 'health monitor', observedAt, context);
  return {
    ...c,
    type: readField(obj, 'type', t.string),
    delay: readField(obj, 'delay', t.number),
    timeout: readField(obj, 'timeout', t.number),
    maxRetries: readField(obj, 'max_retries', t.number),
    maxRetriesDown: readField(obj, 'max_retries_down', t.number),
    poolIds: readField(obj, 'pools', idRefs),
  };
};

/** A pool as a load-balancer create answers it: members and health monitor inline. */
export interface CreatedPoolObservation extends PoolObservation {
  readonly members: readonly MemberObservation[];
  /** `healthmonitor` inline. Real Octavia Zed answers null here although it created the monitor (§16). */
  readonly healthMonitor: Field<HealthMonitorObservation | null>;
}

/**
 * What `POST /v2/lbaas/loadbalancers` answers (Octavia's LoadBalancerFullResponse): the load balancer with its
 * listeners and pools as full objects, not id references, each with its own provisioning status. Zed's full
 * objects carry no `loadbalancers` (listeners, pools) and no `healthmonitor_id` (pools): those fields read absent.
 * `listeners`/`pools` are [] when the answer has no such array; listenerIds/poolIds keep the Field.
 */
export interface CreatedLoadBalancerObservation extends LoadBalancerObservation {
  readonly listeners: readonly ListenerObservation[];
  readonly pools: readonly CreatedPoolObservation[];
}

const arrayOf = (obj: Record<string, unknown>, key: string): unknown[] => (Array.isArray(obj[key]) ? (obj[key] as unknown[]) : []);
const objectsOf = (items: unknown[]): unknown[] => items.filter((x) => typeof x === 'object' && x !== null);

const inlineHealthMonitor = (obj: Record<string, unknown>, observedAt: string | undefined, context: RequestContext): Field<HealthMonitorObservation | null> => {
  if (!Object.prototype.hasOwnProperty.call(obj, 'healthmonitor')) return { kind: 'absent' };
  const raw = obj.healthmonitor;
  if (raw === null) return { kind: 'value', value: null };
  if (typeof raw !== 'object' || typeof (raw as { id?: unknown }).id !== 'string') return { kind: 'unreadable', raw };
  return { kind: 'value', value: decodeHealthMonitor(raw, observedAt, context) };
};

export const decodeCreatedPool = (raw: unknown, observedAt?: string, context: RequestContext = {}): CreatedPoolObservation => {
  const pool = decodePool(raw, observedAt, context);
  const obj = raw as Record<string, unknown>;
  return {
    ...pool,
    members: objectsOf(arrayOf(obj, 'members')).map((m) => decodeMember(m, observedAt, context)),
    healthMonitor: inlineHealthMonitor(obj, observedAt, context),
  };
};

export const decodeCreatedLoadBalancer = (raw: unknown, observedAt?: string, context: RequestContext = {}): CreatedLoadBalancerObservation => {
  const lb = decodeLoadBalancer(raw, observedAt, context);
  const obj = raw as Record<string, unknown>;
  return {
    ...lb,
    listeners: objectsOf(arrayOf(obj, 'listeners')).map((l) => decodeListener(l, observedAt, context)),
    pools: objectsOf(arrayOf(obj, 'pools')).map((p) => decodeCreatedPool(p, observedAt, context)),
  };
};
