/**
 * The load balancer's effects (machines/load-balancer.ts "Effects"): their types, which are mutations, prunes
 * and destructive, the params Octavia takes, and the one record of the decided mutation the plan reads (LB12).
 *
 * Effects (params; every one also carries `subject`, which its result must echo; Octavia field values in
 * the client's camelCase, src/openstack/octavia/):
 *   octavia.createLoadBalancer  {name, vipSubnetId, vipAddress?, provider?, tags?, listeners: []}  (LB3: `listeners` is
 *                                 always the empty array — the key stays; nothing is nested; provider only when the
 *                                 topology names one, tags only when it has them)
 *   octavia.createListener      {loadBalancerId, name, protocol, protocolPort, allowedCidrs: string[]|null,
 *                                 timeoutClientData?, timeoutMemberData? (ms, TCP only), defaultPoolId?, tags?}
 *                                 (no `defaultPool`: defaultPoolId only when a pool of its name exists)
 *   octavia.updateListener      {listenerId, name, allowedCidrs?, timeoutClientData?, timeoutMemberData?, defaultPoolId?} (only what differs)
 *   octavia.createPool          {loadBalancerId, listenerId: string|null (non-null: send listener_id, it becomes the default pool),
 *                                 name, protocol: TCP|PROXYV2|UDP, lbAlgorithm: ROUND_ROBIN, tags?}  (no `members`, no `healthMonitor`:
 *                                 Zed answers them with 500; LB6 and LB7 add them)
 *   octavia.setPoolMembers      {poolId, name, members: [{address, protocolPort}]}  (PUT /pools/{id}/members: the whole set)
 *   octavia.createHealthMonitor {poolId, name, monitorType, delay, timeout, maxRetries, maxRetriesDown}
 *   octavia.updateHealthMonitor {healthMonitorId, name, delay, timeout, maxRetries, maxRetriesDown}
 *   octavia.deleteHealthMonitor {healthMonitorId, name}          destructive
 *   octavia.deleteListener      {listenerId, name}               destructive
 *   octavia.deletePool          {poolId, name}                   destructive
 *   octavia.deleteLoadBalancer  {loadBalancerId, name, cascade: true}   destructive
 *   neutron.createFloatingIP    {floatingNetworkId, portId (the VIP port), fixedIpAddress?, description (lb name)}
 *   neutron.deleteFloatingIP    {floatingIPId, portId}           destructive
 * A PENDING_* status is a yield for the provider too: a handler answers Octavia's 409 with `conflict`, a
 * 404 on a delete with `accepted` (gone is done).
 */
import type { LB_ALGORITHM } from './names.js';

// ─── effects ────────────────────────────────────────────────────────────────────────────────────────

export const LB_EFFECTS = {
  createLoadBalancer: 'octavia.createLoadBalancer',
  createListener: 'octavia.createListener',
  updateListener: 'octavia.updateListener',
  createPool: 'octavia.createPool',
  setPoolMembers: 'octavia.setPoolMembers',
  createHealthMonitor: 'octavia.createHealthMonitor',
  updateHealthMonitor: 'octavia.updateHealthMonitor',
  deleteHealthMonitor: 'octavia.deleteHealthMonitor',
  deleteListener: 'octavia.deleteListener',
  deletePool: 'octavia.deletePool',
  deleteLoadBalancer: 'octavia.deleteLoadBalancer',
  createFloatingIP: 'neutron.createFloatingIP',
  deleteFloatingIP: 'neutron.deleteFloatingIP',
} as const;
export type LbEffect = (typeof LB_EFFECTS)[keyof typeof LB_EFFECTS];
export const MUTATION_EFFECTS = [
  LB_EFFECTS.createLoadBalancer,
  LB_EFFECTS.createListener,
  LB_EFFECTS.updateListener,
  LB_EFFECTS.createPool,
  LB_EFFECTS.setPoolMembers,
  LB_EFFECTS.createHealthMonitor,
  LB_EFFECTS.updateHealthMonitor,
  LB_EFFECTS.createFloatingIP,
] as const;
export type MutationEffect = (typeof MUTATION_EFFECTS)[number];
/** The deletes a live pass prunes with (LB8, LB9); the cascade delete is the deletion's (LB14). */
export const PRUNE_EFFECTS = [LB_EFFECTS.deleteFloatingIP, LB_EFFECTS.deleteListener, LB_EFFECTS.deletePool, LB_EFFECTS.deleteHealthMonitor] as const;
export type PruneEffect = (typeof PRUNE_EFFECTS)[number];
export const DESTRUCTIVE_EFFECTS: readonly LbEffect[] = [...PRUNE_EFFECTS, LB_EFFECTS.deleteLoadBalancer];
const CREATES: readonly string[] = [LB_EFFECTS.createLoadBalancer, LB_EFFECTS.createListener, LB_EFFECTS.createPool, LB_EFFECTS.createHealthMonitor, LB_EFFECTS.createFloatingIP];
export const isCreate = (effect: string): boolean => CREATES.includes(effect);

/** One member as Octavia takes it. */
export interface MemberParams {
  address: string;
  protocolPort: number;
}
export interface HealthMonitorParams {
  name: string;
  /** Octavia's `type` (named so because an effect's own `type` is its effect type). */
  monitorType: 'TCP' | 'UDP-CONNECT';
  delay: number;
  timeout: number;
  maxRetries: number;
  maxRetriesDown: number;
}
/** A pool create's own fields (LB4): its members come by LB6's batch update, its monitor by LB7. */
export interface PoolParams {
  name: string;
  protocol: 'UDP' | 'PROXYV2' | 'TCP';
  lbAlgorithm: typeof LB_ALGORITHM;
  /** The topology's tags, when it has them. */
  tags?: string[];
}
export interface ListenerParams {
  name: string;
  protocol: 'TCP' | 'UDP';
  protocolPort: number;
  /** null: all sources allowed (Octavia's unset). */
  allowedCidrs: string[] | null;
  /** Milliseconds; TCP only, and only the ones the spec sets. */
  timeoutClientData?: number;
  timeoutMemberData?: number;
  /** The id of a pool of the deterministic name that already exists (LB4: linked, never created twice). */
  defaultPoolId?: string;
  /** The topology's tags, when it has them. */
  tags?: string[];
}

/** A step that destroys one object: the machine arms it first (write-ahead) and sends it on a later pass. */
export interface DestroyTarget {
  effect: PruneEffect;
  /** The Octavia (or Neutron floating-IP) id. */
  id: string;
  /** The Octavia name, or floatingIPSubject. */
  subject: string;
}

/** The mutation decided last, as far as the planner needs it (LB12). */
export interface PlanMemory {
  effect: string;
  subject: string;
  /** The deciding pass's clock. */
  decidedAt: string;
  /** pending: no answer recorded (a crash leaves it so); unknown: the answer never came. */
  answer: 'pending' | 'accepted' | 'unknown';
}

/**
 * "A window longer than any request's lifetime" (the rebuild machine's U-rules, the volume's V6): an
 * unanswered create whose object a fresh lookup does not show is sent again only once it has passed.
 */
export const CREATE_WINDOW_MS = 120_000;
