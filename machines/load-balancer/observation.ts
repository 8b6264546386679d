/**
 * The codecs of what a load-balancer pass carries (machines/load-balancer/stimuli.ts): the desired topology the
 * reconciler normalizes from the LoadBalancer spec, and one fresh exact-name observation of Octavia and of
 * Neutron's floating IPs on the VIP port. Provider values are carried verbatim (a provisioning status Regent
 * does not know stays that string: LB1 judges it, nothing maps it to a neighbour).
 */
import * as t from 'io-ts';

// ─── the desired topology (normalized by the reconciler from the LoadBalancer spec) ─────────────────

export const DesiredMember = t.type({ address: t.string, port: t.number });
export type DesiredMember = t.TypeOf<typeof DesiredMember>;
/** Seconds, as in the spec (Octavia's delay and timeout are seconds too). */
export const DesiredMonitor = t.intersection([t.type({ delaySeconds: t.number, timeoutSeconds: t.number, maxRetries: t.number }), t.partial({ maxRetriesDown: t.number })]);
export type DesiredMonitor = t.TypeOf<typeof DesiredMonitor>;
export const DesiredListener = t.intersection([
  t.type({
    /** The spec's listener name (a DNS label); the Octavia names derive from it. */
    name: t.string,
    protocol: t.union([t.literal('TCP'), t.literal('UDP')]),
    port: t.number,
    /** Empty: all sources allowed. */
    allowedCIDRs: t.array(t.string),
    proxyProtocolV2: t.boolean,
    pool: t.intersection([t.type({ members: t.array(DesiredMember) }), t.partial({ healthMonitor: DesiredMonitor })]),
  }),
  /**
   * TCP only, seconds. A value left out is not managed: Regent neither sends nor compares it (Octavia's
   * default is deployment configuration, so there is no value to converge to).
   */
  t.partial({ idleTimeouts: t.partial({ clientDataSeconds: t.number, memberDataSeconds: t.number }) }),
]);
export type DesiredListener = t.TypeOf<typeof DesiredListener>;
export const FloatingIPWanted = t.union([t.type({ wanted: t.literal(false) }), t.type({ wanted: t.literal(true), networkId: t.string })]);
export type FloatingIPWanted = t.TypeOf<typeof FloatingIPWanted>;
export const DesiredTopology = t.intersection([
  t.type({
    /** `lb-{lb}` (loadBalancerName). */
    name: t.string,
    /** The LoadBalancer's network's subnet (Neutron id): the VIP's. */
    vipSubnetId: t.string,
    floatingIP: FloatingIPWanted,
    listeners: t.array(DesiredListener),
  }),
  t.partial({
    vipAddress: t.string,
    /**
     * Tags (`"k=v"`) the load balancer, its listeners and pools are created with (health monitors are not tagged).
     * Absent: none sent. Set at create only: a change later is not converged.
     */
    tags: t.array(t.string),
    /**
     * The Octavia provider the load balancer is created with; null: the cloud's default (none sent). Absent: none
     * sent either (the behaviour before the field existed). Set at create only; Octavia cannot change it.
     */
    provider: t.union([t.string, t.null]),
  }),
]);
export type DesiredTopology = t.TypeOf<typeof DesiredTopology>;

// ─── one fresh observation ──────────────────────────────────────────────────────────────────────────

const lookup = <P extends t.Props>(present: P) =>
  t.union([t.type({ kind: t.literal('absent') }), t.type({ kind: t.literal('present'), ...present }), t.type({ kind: t.literal('duplicate'), ids: t.array(t.string) })]);
const nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);

/** Octavia's provisioning_status is carried verbatim (an unknown string is LB1's unusable, never mapped to a neighbour). */
export const ObservedLoadBalancer = t.union([
  t.type({ kind: t.literal('absent') }),
  t.intersection([
    t.type({ kind: t.literal('present'), id: t.string, provisioningStatus: t.string, vipAddress: nullable(t.string), vipPortId: nullable(t.string) }),
    /** Octavia's `provider` as it reports it (the actual one, also when the cloud's default was taken); absent in older observations. */
    t.partial({ provider: nullable(t.string) }),
  ]),
  t.type({ kind: t.literal('duplicate'), ids: t.array(t.string) }),
]);
export const ObservedListener = lookup({
  id: t.string,
  provisioningStatus: t.string,
  protocol: t.string,
  port: t.number,
  allowedCidrs: nullable(t.array(t.string)),
  /** Milliseconds, as Octavia reports them. */
  timeoutClientData: nullable(t.number),
  timeoutMemberData: nullable(t.number),
  defaultPoolId: nullable(t.string),
});
export const ObservedPool = lookup({ id: t.string, provisioningStatus: t.string, protocol: t.string, members: t.array(t.type({ id: t.string, address: t.string, port: t.number })) });
export const ObservedMonitor = lookup({ id: t.string, provisioningStatus: t.string, type: t.string, delay: t.number, timeout: t.number, maxRetries: t.number, maxRetriesDown: t.number });
export const Orphan = t.type({ kind: t.union([t.literal('listener'), t.literal('pool'), t.literal('monitor')]), id: t.string, name: t.string, provisioningStatus: t.string });
/**
 * Neutron's floating IPs on the VIP port, as Neutron sent them: none, one (its address verbatim, judged by
 * LB15), or several (`duplicate`, sorted by id: LB15 parks on them, whichever one Regent made).
 */
export const ObservedFloatingIP = t.union([
  t.type({ kind: t.literal('absent') }),
  t.type({ kind: t.literal('present'), id: t.string, address: t.string }),
  t.type({ kind: t.literal('duplicate'), floatingIPs: t.array(t.type({ id: t.string, address: t.string })) }),
]);
export type ObservedLoadBalancer = t.TypeOf<typeof ObservedLoadBalancer>;
export type ObservedListener = t.TypeOf<typeof ObservedListener>;
export type ObservedPool = t.TypeOf<typeof ObservedPool>;
export type ObservedMonitor = t.TypeOf<typeof ObservedMonitor>;
export type Orphan = t.TypeOf<typeof Orphan>;
export type ObservedFloatingIP = t.TypeOf<typeof ObservedFloatingIP>;

export const TopologyObservation = t.intersection([
  t.type({ loadBalancer: ObservedLoadBalancer }),
  t.partial({
    /**
     * By exact Octavia name, each name the desired topology implies (a listener's `-monitor` only when it
     * wants one). Not needed while the load balancer is absent. A name the spec implies that is missing
     * here was not looked up: the pass decides nothing.
     */
    listeners: t.record(t.string, ObservedListener),
    pools: t.record(t.string, ObservedPool),
    monitors: t.record(t.string, ObservedMonitor),
    /** Every other `lb-{lb}-*` listener, pool and monitor among the load balancer's children. */
    orphans: t.array(Orphan),
    /** The floating IPs on the VIP port; required once the load balancer has a usable VIP port id (usableVipPortId), never looked up without one. */
    floatingIP: ObservedFloatingIP,
  }),
]);
export type TopologyObservation = t.TypeOf<typeof TopologyObservation>;

type Present<L> = Extract<L, { kind: 'present' }>;
export type LoadBalancerFacts = Present<ObservedLoadBalancer>;
export type ListenerFacts = Present<ObservedListener>;
export type PoolFacts = Present<ObservedPool>;
export type MonitorFacts = Present<ObservedMonitor>;
