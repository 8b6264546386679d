/**
 * The pure diff behind machines/load-balancer.ts: what a LoadBalancer's desired topology and one fresh
 * exact-name observation of Octavia (and Neutron's floating IP on the VIP port) say the next step is.
 * No I/O, no clock (the pass's `at` arrives as data), no state of its own beyond the one record of the
 * mutation decided last (`PlanMemory`), which the machine keeps.
 *
 * Names (openstack-provider.md, "Cloud-side lookup uses deterministic names"; rule LB2): the load
 * balancer is `lb-{lb}`, and for each listener `lb-{lb}-{listener}-listener`, `-pool`, `-monitor`.
 * Children are looked up by those names among the children of the one load balancer (the provider filters
 * by its id), post-filtered to the exact name.
 *
 * The order one pass looks in (`planPass`), each step either deciding ONE thing or continuing:
 *   1. the spec itself (LB13 InvalidSpec), the observation's completeness, two exact matches of any name
 *      (LB2), a provisioning status that is neither ACTIVE nor PENDING_* anywhere (LB1), a field Octavia
 *      cannot change in place that differs (LB11), any PENDING_* (LB1: yield), and then, everything ACTIVE,
 *      an endpoint the provider cannot act on (LB15: the VIP address, the VIP port id, the floating IPs
 *      on the VIP port);
 *   2. the load balancer absent: one create of the load balancer alone, with its VIP (LB3), unless an
 *      earlier create may still land (LB12);
 *   3. orphaned listeners (LB8), before anything is created: a renamed listener frees its port first;
 *   4. per listener in spec order: a missing listener (created alone, LB4), a missing pool (created alone,
 *      with `listenerId` when the listener has no default pool, LB4), the listener's allowed CIDRs, TCP idle
 *      timeouts and default-pool linkage in one update (LB5), the pool's whole member set in one batch
 *      update (LB6), the health monitor's create or thresholds (LB7);
 *   5. the floating IP wanted: one create on the VIP port (LB9);
 *   6. destructive steps after the topology converged: a floating IP no longer wanted (LB9), orphaned
 *      pools, then monitors (unwanted or orphaned) (LB8) — a pool's delete takes its monitor with it;
 *   7. converged.
 * A destructive step is only named here (`destroy`); whether it is sent or first armed is the machine's
 * write-ahead rule. No create nests a child (LB3/LB4: Octavia Zed never provisions nested children, or
 * answers 500; docs/simulator-differences.md §16 and test/real-openstack/octavia.openstack.ts).
 */
import { atLeastAfter } from '../time.js';
import {
  LB_EFFECTS,
  isCreate,
  type DestroyTarget,
  type HealthMonitorParams,
  type ListenerParams,
  type MemberParams,
  type MutationEffect,
  type PlanMemory,
  type PoolParams,
  type PruneEffect,
  CREATE_WINDOW_MS,
} from './effects.js';
import {
  ACTIVE,
  DEFAULT_MAX_RETRIES_DOWN,
  LB_ALGORITHM,
  childName,
  classifyStatus,
  floatingIPSubject,
  isIpAddress,
  monitorTypeFor,
  poolProtocolFor,
  quoted,
  usableVipPortId,
  type ChildKind,
} from './names.js';
import type { DesiredListener, DesiredTopology, ListenerFacts, LoadBalancerFacts, MonitorFacts, ObservedFloatingIP, PoolFacts, TopologyObservation } from './observation.js';

export type ProblemKind = 'duplicate' | 'status' | 'drift' | 'vip' | 'floatingIP';
/**
 * A consistency problem (LB1, LB2, LB11, LB15): parked, nothing mutated while it stands. Texts are Regent's
 * own, but for LB15's, which name the value Octavia or Neutron sent (`quoted`): saying what was seen is the
 * point of those.
 */
export interface Problem {
  kind: ProblemKind;
  /** The Octavia name concerned (or the load balancer's). */
  subject: string;
  /** ERROR, or `unrecognized` for a string Regent does not know (never echoed). */
  status?: string;
  /** User-safe: names Regent made, the spec's values, Octavia's closed vocabulary, and LB15's quoted values. */
  message: string;
}

export type Step =
  | { kind: 'invalid'; message: string }
  | { kind: 'incomplete'; missing: string[] }
  | { kind: 'problem'; problem: Problem }
  | { kind: 'pending'; subjects: string[] }
  | { kind: 'awaitingCreate'; subject: string }
  | { kind: 'mutate'; effect: MutationEffect; subject: string; params: Record<string, unknown>; completes: boolean }
  | { kind: 'destroy'; target: DestroyTarget; all: DestroyTarget[] }
  | { kind: 'converged' };

// ─── spec checks (LB13) ─────────────────────────────────────────────────────────────────────────────

/** LB13: what Octavia would refuse or what the machine cannot converge to, named before any call. */
export const specProblem = (desired: DesiredTopology): string | null => {
  if (!/^lb-./.test(desired.name)) return `the load balancer name ${JSON.stringify(desired.name)} is not lb-{name}`;
  const names = new Set<string>();
  const ports = new Set<string>();
  for (const l of desired.listeners) {
    if (names.has(l.name)) return `listener name ${l.name} is used twice`;
    names.add(l.name);
    const port = `${l.protocol}:${l.port}`;
    if (ports.has(port)) return `two listeners use ${l.protocol} port ${l.port}`;
    ports.add(port);
    if (l.protocol === 'UDP' && l.idleTimeouts !== undefined) return `listener ${l.name}: UDP listeners do not support idle timeouts`;
    if (l.protocol === 'UDP' && l.proxyProtocolV2) return `listener ${l.name}: UDP listeners do not support proxyProtocolV2`;
    const m = l.pool.healthMonitor;
    if (m && m.timeoutSeconds > m.delaySeconds) return `listener ${l.name}: the health check timeout must not exceed its interval`;
    const members = new Set<string>();
    for (const member of l.pool.members) {
      const key = `${member.address}:${member.port}`;
      if (members.has(key)) return `listener ${l.name}: member ${key} is listed twice`;
      members.add(key);
    }
  }
  return null;
};

// ─── diff helpers ───────────────────────────────────────────────────────────────────────────────────

const sortedSet = (xs: readonly string[] | null): string[] => [...new Set(xs ?? [])].sort();
const sameSet = (a: readonly string[] | null, b: readonly string[] | null): boolean => JSON.stringify(sortedSet(a)) === JSON.stringify(sortedSet(b));
const memberKeys = (ms: ReadonlyArray<{ address: string; port: number }>): string[] => ms.map((m) => `${m.address}:${m.port}`);

export const membersParams = (l: DesiredListener): MemberParams[] => l.pool.members.map((m) => ({ address: m.address, protocolPort: m.port }));
export const monitorParams = (lbName: string, l: DesiredListener): HealthMonitorParams | undefined => {
  const m = l.pool.healthMonitor;
  return m
    ? { name: childName(lbName, l.name, 'monitor'), monitorType: monitorTypeFor(l), delay: m.delaySeconds, timeout: m.timeoutSeconds, maxRetries: m.maxRetries, maxRetriesDown: m.maxRetriesDown ?? DEFAULT_MAX_RETRIES_DOWN }
    : undefined;
};
/** The desired tags as create params: only when the topology names them (health monitors never carry them). */
const tagsParam = (desired: Pick<DesiredTopology, 'tags'>): { tags?: string[] } => (desired.tags !== undefined ? { tags: [...desired.tags] } : {});
/** LB4: the pool alone (no members, no monitor: LB6 and LB7 add them on later passes). */
export const poolParams = (lbName: string, l: DesiredListener, tags?: readonly string[]): PoolParams => ({
  name: childName(lbName, l.name, 'pool'), protocol: poolProtocolFor(l), lbAlgorithm: LB_ALGORITHM, ...(tags !== undefined ? { tags: [...tags] } : {}),
});
const cidrsParam = (l: DesiredListener): string[] | null => (l.allowedCIDRs.length === 0 ? null : sortedSet(l.allowedCIDRs));
/** LB10: timeouts only on TCP, in Octavia's milliseconds, only the ones the spec sets. */
const timeoutParams = (l: DesiredListener): { timeoutClientData?: number; timeoutMemberData?: number } => {
  if (l.protocol !== 'TCP' || !l.idleTimeouts) return {};
  const t0 = l.idleTimeouts;
  return {
    ...(t0.clientDataSeconds !== undefined ? { timeoutClientData: t0.clientDataSeconds * 1000 } : {}),
    ...(t0.memberDataSeconds !== undefined ? { timeoutMemberData: t0.memberDataSeconds * 1000 } : {}),
  };
};
/** LB4: the listener alone, on the pool of its deterministic name when that exists. */
export const listenerParams = (lbName: string, l: DesiredListener, defaultPoolId: string | null, tags?: readonly string[]): ListenerParams => ({
  name: childName(lbName, l.name, 'listener'),
  protocol: l.protocol,
  protocolPort: l.port,
  allowedCidrs: cidrsParam(l),
  ...timeoutParams(l),
  ...(defaultPoolId !== null ? { defaultPoolId } : {}),
  ...(tags !== undefined ? { tags: [...tags] } : {}),
});

/** LB5: the listener fields that differ, as Octavia's update takes them (empty when none). */
export const listenerChanges = (l: DesiredListener, observed: ListenerFacts, poolId: string): Record<string, unknown> => {
  const changes: Record<string, unknown> = {};
  if (!sameSet(l.allowedCIDRs, observed.allowedCidrs)) changes.allowedCidrs = cidrsParam(l);
  const timeouts = timeoutParams(l);
  if (timeouts.timeoutClientData !== undefined && timeouts.timeoutClientData !== observed.timeoutClientData) changes.timeoutClientData = timeouts.timeoutClientData;
  if (timeouts.timeoutMemberData !== undefined && timeouts.timeoutMemberData !== observed.timeoutMemberData) changes.timeoutMemberData = timeouts.timeoutMemberData;
  if (observed.defaultPoolId !== poolId) changes.defaultPoolId = poolId;
  return changes;
};
/** LB6: the member sets differ (by address and port). */
export const membersDiffer = (l: DesiredListener, observed: PoolFacts): boolean => !sameSet(memberKeys(l.pool.members), memberKeys(observed.members));
/** LB7: the monitor's thresholds differ. */
export const monitorDiffers = (lbName: string, l: DesiredListener, observed: MonitorFacts): boolean => {
  const want = monitorParams(lbName, l);
  return want !== undefined && (want.delay !== observed.delay || want.timeout !== observed.timeout || want.maxRetries !== observed.maxRetries || want.maxRetriesDown !== observed.maxRetriesDown);
};

// ─── the observed objects of one pass ───────────────────────────────────────────────────────────────

interface Seen {
  kind: ChildKind;
  name: string;
  id: string;
  provisioningStatus: string;
}

/** Every present child of the observation (records and orphans), and the names seen more than once. */
const inventory = (observed: TopologyObservation): { seen: Seen[]; duplicates: string[] } => {
  const seen: Seen[] = [];
  const duplicates: string[] = [];
  const records: Array<[ChildKind, Record<string, { kind: string; id?: string; provisioningStatus?: string }> | undefined]> = [
    ['listener', observed.listeners],
    ['pool', observed.pools],
    ['monitor', observed.monitors],
  ];
  for (const [kind, record] of records)
    for (const [name, l] of Object.entries(record ?? {})) {
      if (l.kind === 'duplicate') duplicates.push(name);
      if (l.kind === 'present') seen.push({ kind, name, id: l.id as string, provisioningStatus: l.provisioningStatus as string });
    }
  for (const o of observed.orphans ?? []) {
    const same = seen.find((s) => s.kind === o.kind && s.name === o.name);
    if (same && same.id !== o.id) duplicates.push(o.name);
    if (!same) seen.push({ kind: o.kind, name: o.name, id: o.id, provisioningStatus: o.provisioningStatus });
  }
  return { seen, duplicates: [...new Set(duplicates)].sort() };
};

/** The names the desired topology implies (LB8: only these are kept). */
export const impliedNames = (desired: DesiredTopology): Set<string> => {
  const names = new Set<string>();
  for (const l of desired.listeners) {
    names.add(childName(desired.name, l.name, 'listener'));
    names.add(childName(desired.name, l.name, 'pool'));
    if (l.pool.healthMonitor) names.add(childName(desired.name, l.name, 'monitor'));
  }
  return names;
};

/** LB8: a name of Regent's deterministic shape for this load balancer (`{lbName}-<label>-{kind}`); anything else is not ours to prune. */
export const isOurName = (lbName: string, kind: ChildKind, name: string): boolean =>
  name.startsWith(`${lbName}-`) && name.endsWith(`-${kind}`) && name.length > lbName.length + kind.length + 2;

const DELETE_OF: Record<ChildKind, PruneEffect> = { listener: LB_EFFECTS.deleteListener, pool: LB_EFFECTS.deletePool, monitor: LB_EFFECTS.deleteHealthMonitor };

/** LB8/LB9: what the spec no longer implies, in the order it is removed. */
export const destroyTargets = (desired: DesiredTopology, observed: TopologyObservation): { early: DestroyTarget[]; late: DestroyTarget[] } => {
  const implied = impliedNames(desired);
  const { seen } = inventory(observed);
  const of = (kind: ChildKind): DestroyTarget[] =>
    seen
      .filter((s) => s.kind === kind && !implied.has(s.name) && isOurName(desired.name, kind, s.name))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1))
      .map((s) => ({ effect: DELETE_OF[kind], id: s.id, subject: s.name }));
  const fip = observed.floatingIP;
  const release: DestroyTarget[] = !desired.floatingIP.wanted && fip?.kind === 'present' ? [{ effect: LB_EFFECTS.deleteFloatingIP, id: fip.id, subject: floatingIPSubject(desired.name) }] : [];
  return { early: of('listener'), late: [...release, ...of('pool'), ...of('monitor')] };
};

/** Where a subject (an Octavia name or the floating-IP subject) stands in an observation. */
export const presenceOf = (observed: TopologyObservation | undefined, subject: string, lbName: string): 'present' | 'absent' | 'duplicate' | 'unknown' => {
  if (!observed) return 'unknown';
  if (subject === lbName) return observed.loadBalancer.kind;
  if (observed.loadBalancer.kind !== 'present') return observed.loadBalancer.kind === 'absent' ? 'absent' : 'unknown';
  if (subject === floatingIPSubject(lbName)) return observed.floatingIP?.kind ?? 'unknown';
  for (const record of [observed.listeners, observed.pools, observed.monitors]) {
    const l = record?.[subject];
    if (l) return l.kind;
  }
  if ((observed.orphans ?? []).some((o) => o.name === subject)) return 'present';
  return 'unknown';
};

/** LB12: a create decided earlier, not answered as accepted, whose object is not seen and whose window has not passed. */
export const createMayStillLand = (memory: PlanMemory | null, subject: string, at: string): boolean =>
  memory !== null && isCreate(memory.effect) && memory.subject === subject && memory.answer !== 'accepted' && !atLeastAfter(memory.decidedAt, at, CREATE_WINDOW_MS);

// ─── the live pass ──────────────────────────────────────────────────────────────────────────────────

const listenerOf = (observed: TopologyObservation, name: string) => observed.listeners?.[name];
const poolOf = (observed: TopologyObservation, name: string) => observed.pools?.[name];
const monitorOf = (observed: TopologyObservation, name: string) => observed.monitors?.[name];

/** LB1: the first status that is neither ACTIVE nor PENDING_*, over the load balancer and every child seen. */
const unusableStatus = (lb: LoadBalancerFacts, seen: Seen[]): Problem | null => {
  const all: Array<{ what: string; subject: string; status: string }> = [
    { what: 'load balancer', subject: '', status: lb.provisioningStatus },
    ...seen.map((s) => ({ what: s.kind, subject: s.name, status: s.provisioningStatus })),
  ];
  const bad = all.find((x) => classifyStatus(x.status) === 'unusable');
  if (!bad) return null;
  const known = bad.status === 'ERROR' || bad.status === 'DELETED';
  const status = known ? bad.status : 'unrecognized';
  const who = bad.subject === '' ? 'the load balancer' : `${bad.what} ${bad.subject}`;
  return {
    kind: 'status',
    subject: bad.subject,
    status,
    message: known ? `Octavia reports ${who} in provisioning status ${bad.status}` : `Octavia reports ${who} in a provisioning status Regent does not recognize`,
  };
};

/** LB11: fields Octavia cannot change in place that differ from the spec: never guessed around. */
const driftOf = (desired: DesiredTopology, observed: TopologyObservation): Problem | null => {
  const lb = observed.loadBalancer;
  // a VIP that is no address at all is LB15's to name, not a drift from the one asked for
  if (desired.vipAddress !== undefined && lb.kind === 'present' && lb.vipAddress !== null && isIpAddress(lb.vipAddress) && lb.vipAddress !== desired.vipAddress)
    return { kind: 'drift', subject: desired.name, message: `the load balancer's VIP is ${lb.vipAddress} in Octavia, the spec asks for ${desired.vipAddress}: a VIP address cannot change in place` };
  for (const l of desired.listeners) {
    const ln = childName(desired.name, l.name, 'listener');
    const listener = listenerOf(observed, ln);
    if (listener?.kind === 'present' && (listener.protocol !== l.protocol || listener.port !== l.port))
      return { kind: 'drift', subject: ln, message: `listener ${l.name} is ${listener.protocol} port ${listener.port} in Octavia, the spec says ${l.protocol} port ${l.port}: protocol and port cannot change in place` };
    const pn = childName(desired.name, l.name, 'pool');
    const pool = poolOf(observed, pn);
    if (pool?.kind === 'present' && pool.protocol !== poolProtocolFor(l))
      return { kind: 'drift', subject: pn, message: `pool of listener ${l.name} is ${pool.protocol} in Octavia, the spec implies ${poolProtocolFor(l)}: a pool's protocol cannot change in place` };
    const mn = childName(desired.name, l.name, 'monitor');
    const monitor = monitorOf(observed, mn);
    if (l.pool.healthMonitor && monitor?.kind === 'present' && monitor.type !== monitorTypeFor(l))
      return { kind: 'drift', subject: mn, message: `health monitor of listener ${l.name} is ${monitor.type} in Octavia, the spec implies ${monitorTypeFor(l)}: a monitor's type cannot change in place` };
  }
  return null;
};

/** The names the spec implies that the observation does not answer for (not looked up). */
const missingLookups = (desired: DesiredTopology, observed: TopologyObservation, lb: LoadBalancerFacts): string[] => {
  const missing: string[] = [];
  for (const l of desired.listeners) {
    const ln = childName(desired.name, l.name, 'listener');
    const pn = childName(desired.name, l.name, 'pool');
    const mn = childName(desired.name, l.name, 'monitor');
    if (!listenerOf(observed, ln)) missing.push(ln);
    if (!poolOf(observed, pn)) missing.push(pn);
    if (l.pool.healthMonitor && !monitorOf(observed, mn)) missing.push(mn);
  }
  if (usableVipPortId(lb.vipPortId) !== null && !observed.floatingIP) missing.push(floatingIPSubject(desired.name));
  return missing;
};

type Mutate = Extract<Step, { kind: 'mutate' }>;
const mutate = (effect: MutationEffect, subject: string, params: Record<string, unknown>, completes = false): Mutate => ({ kind: 'mutate', effect, subject, params: { subject, ...params }, completes });

/** `awaitingCreate` while an earlier create of the subject may still land (LB12), else the create. */
const createOr = (memory: PlanMemory | null, at: string, step: Mutate): Step =>
  createMayStillLand(memory, step.subject, at) ? { kind: 'awaitingCreate', subject: step.subject } : step;

/** LB4–LB7 for one listener: the one mutation it needs next, or null when it is converged. */
const listenerStep = (desired: DesiredTopology, lb: LoadBalancerFacts, l: DesiredListener, observed: TopologyObservation, memory: PlanMemory | null, at: string): Step | null => {
  const ln = childName(desired.name, l.name, 'listener');
  const pn = childName(desired.name, l.name, 'pool');
  const mn = childName(desired.name, l.name, 'monitor');
  const listener = listenerOf(observed, ln);
  const pool = poolOf(observed, pn);
  const monitor = monitorOf(observed, mn);
  if (listener?.kind === 'absent') {
    // LB4: the listener alone (Zed: a nested default_pool is a 500); a pool of the deterministic name that exists is linked, never duplicated
    return createOr(memory, at, mutate(LB_EFFECTS.createListener, ln, { loadBalancerId: lb.id, ...listenerParams(desired.name, l, pool?.kind === 'present' ? pool.id : null, desired.tags) }));
  }
  if (listener?.kind !== 'present') return null;
  if (pool?.kind === 'absent') {
    // LB4: the pool alone (Zed: nested members or monitor are a 500), the default pool via listener_id when the listener has none
    const params = { loadBalancerId: lb.id, listenerId: listener.defaultPoolId === null ? listener.id : null, ...poolParams(desired.name, l, desired.tags) };
    return createOr(memory, at, mutate(LB_EFFECTS.createPool, pn, params));
  }
  if (pool?.kind !== 'present') return null;
  const changes = listenerChanges(l, listener, pool.id);
  if (Object.keys(changes).length > 0) return mutate(LB_EFFECTS.updateListener, ln, { listenerId: listener.id, name: ln, ...changes }); // LB5
  if (membersDiffer(l, pool)) return mutate(LB_EFFECTS.setPoolMembers, pn, { poolId: pool.id, name: pn, members: membersParams(l) }); // LB6
  const wanted = monitorParams(desired.name, l);
  if (wanted && monitor?.kind === 'absent') return createOr(memory, at, mutate(LB_EFFECTS.createHealthMonitor, mn, { poolId: pool.id, ...wanted })); // LB7
  if (wanted && monitor?.kind === 'present' && monitorDiffers(desired.name, l, monitor)) {
    const { name: _name, monitorType: _type, ...thresholds } = wanted;
    return mutate(LB_EFFECTS.updateHealthMonitor, mn, { healthMonitorId: monitor.id, name: mn, ...thresholds }); // LB7
  }
  return null;
};

/** LB15: the floating IPs on a VIP port, named as Neutron sent them (several: parked, LB15; the same words in a deletion). */
const floatingIPsProblem = (lbName: string, vipPortId: string, fip: ObservedFloatingIP | undefined): Problem | null => {
  const subject = floatingIPSubject(lbName);
  if (fip?.kind === 'duplicate') {
    const seen = fip.floatingIPs.map((f) => `${f.id} (${quoted(f.address)})`).join(', ');
    return { kind: 'floatingIP', subject, message: `Neutron reports ${fip.floatingIPs.length} floating IPs on VIP port ${vipPortId} of load balancer ${lbName}: ${seen}` };
  }
  if (fip?.kind === 'present' && !isIpAddress(fip.address)) {
    const what = fip.address === '' ? '' : ' (not an IP address)';
    return { kind: 'floatingIP', subject, message: `Neutron reports floating IP ${fip.id} on VIP port ${vipPortId} of load balancer ${lbName} with address ${quoted(fip.address)}${what}` };
  }
  return null;
};

/**
 * LB15 ("any other state is treated as a consistency error because the provider cannot safely infer a valid
 * next action"): an ACTIVE load balancer is only an endpoint with an IP address as its VIP and a VIP port
 * id (the floating IP's anchor), and the VIP port carries at most one floating IP, whose address is an IP
 * address. Anything else is named as seen; the usable endpoint otherwise.
 */
export const endpointOf = (lbName: string, lb: LoadBalancerFacts, observed: TopologyObservation): { kind: 'problem'; problem: Problem } | { kind: 'usable'; vipAddress: string; vipPortId: string } => {
  const seen: string[] = [];
  if (lb.vipAddress === null) seen.push('without a VIP address');
  else if (!isIpAddress(lb.vipAddress)) seen.push(`with VIP address ${quoted(lb.vipAddress)}${lb.vipAddress === '' ? '' : ' (not an IP address)'}`);
  const vipPortId = usableVipPortId(lb.vipPortId);
  if (lb.vipPortId === null) seen.push('without a VIP port id');
  else if (vipPortId === null) seen.push(`with VIP port id ${quoted(lb.vipPortId)}`);
  if (seen.length > 0 || lb.vipAddress === null || vipPortId === null)
    return { kind: 'problem', problem: { kind: 'vip', subject: lbName, message: `Octavia reports load balancer ${lbName} ACTIVE ${seen.join(' and ')}` } };
  const fips = floatingIPsProblem(lbName, vipPortId, observed.floatingIP);
  return fips ? { kind: 'problem', problem: fips } : { kind: 'usable', vipAddress: lb.vipAddress, vipPortId };
};

/** The next step of a live pass (the order of the header). */
export const planPass = (desired: DesiredTopology, observed: TopologyObservation, memory: PlanMemory | null, at: string): Step => {
  const invalid = specProblem(desired);
  if (invalid) return { kind: 'invalid', message: invalid };
  const lbLookup = observed.loadBalancer;
  if (lbLookup.kind === 'duplicate')
    return { kind: 'problem', problem: { kind: 'duplicate', subject: desired.name, message: `more than one Octavia load balancer is named exactly ${desired.name}` } }; // LB2
  if (lbLookup.kind === 'absent') {
    // LB3: nothing → the load balancer alone (Zed never provisions a nested create's children, §16); `listeners` stays, always empty
    const params = {
      name: desired.name,
      vipSubnetId: desired.vipSubnetId,
      ...(desired.vipAddress !== undefined ? { vipAddress: desired.vipAddress } : {}),
      // the provider only when one is named (null: the cloud's default, nothing sent); tags only when given
      ...(typeof desired.provider === 'string' ? { provider: desired.provider } : {}),
      ...tagsParam(desired),
      listeners: [] as ListenerParams[],
    };
    return createOr(memory, at, mutate(LB_EFFECTS.createLoadBalancer, desired.name, params));
  }
  const lb = lbLookup;
  const missing = missingLookups(desired, observed, lb);
  if (missing.length > 0) return { kind: 'incomplete', missing };
  const { seen, duplicates } = inventory(observed);
  if (duplicates.length > 0)
    return { kind: 'problem', problem: { kind: 'duplicate', subject: duplicates[0] as string, message: `more than one Octavia object is named exactly ${duplicates.join(', ')}` } }; // LB2
  const unusable = unusableStatus(lb, seen);
  if (unusable) return { kind: 'problem', problem: unusable }; // LB1
  const drift = driftOf(desired, observed);
  if (drift) return { kind: 'problem', problem: drift }; // LB11
  const pending = [{ name: desired.name, provisioningStatus: lb.provisioningStatus }, ...seen].filter((s) => classifyStatus(s.provisioningStatus) === 'pending');
  if (pending.length > 0) return { kind: 'pending', subjects: pending.map((s) => s.name) }; // LB1
  // LB15: judged once everything is ACTIVE (a PENDING_* pass yields whatever it shows: the next observes settled state)
  const endpoint = endpointOf(desired.name, lb, observed);
  if (endpoint.kind === 'problem') return endpoint;
  const { early, late } = destroyTargets(desired, observed);
  const all = [...early, ...late];
  if (early[0]) return { kind: 'destroy', target: early[0], all }; // LB8: orphaned listeners first
  for (const l of desired.listeners) {
    const step = listenerStep(desired, lb, l, observed, memory, at);
    if (step) return step;
  }
  if (desired.floatingIP.wanted) {
    // LB9: one create on the VIP port once the load balancer is ACTIVE (LB15: its port id and VIP are usable)
    if (observed.floatingIP?.kind === 'absent') {
      const subject = floatingIPSubject(desired.name);
      const params = { floatingNetworkId: desired.floatingIP.networkId, portId: endpoint.vipPortId, fixedIpAddress: endpoint.vipAddress, description: desired.name };
      return createOr(memory, at, mutate(LB_EFFECTS.createFloatingIP, subject, params, late.length === 0));
    }
  }
  if (late[0]) return { kind: 'destroy', target: late[0], all }; // LB8/LB9
  return { kind: 'converged' };
};

// ─── the deletion pass (LB14) ───────────────────────────────────────────────────────────────────────

export type DeletionStep =
  | { kind: 'problem'; problem: Problem }
  | { kind: 'gone' }
  | { kind: 'awaitingCreate' }
  | { kind: 'pending'; subjects: string[] }
  | { kind: 'incomplete' }
  | { kind: 'release'; floatingIP: { id: string; address: string }; lb: LoadBalancerFacts }
  | { kind: 'cascade'; lb: LoadBalancerFacts };

/**
 * LB14: release the floating IP first (the cascade removes the VIP port that anchors its lookup), then
 * cascade-delete; gone once a fresh lookup shows no load balancer. An ERROR load balancer is deleted (the
 * one action Octavia offers on it, and the one asked for); DELETED is gone; a status of the load balancer
 * Regent does not know is a consistency error. Children matter only while PENDING_* (the cascade deletes
 * them whatever else they are).
 */
export const planDeletion = (lbName: string, observed: TopologyObservation, memory: PlanMemory | null, at: string): DeletionStep => {
  const lbLookup = observed.loadBalancer;
  if (lbLookup.kind === 'duplicate') return { kind: 'problem', problem: { kind: 'duplicate', subject: lbName, message: `more than one Octavia load balancer is named exactly ${lbName}` } };
  if (lbLookup.kind === 'absent') return createMayStillLand(memory, lbName, at) ? { kind: 'awaitingCreate' } : { kind: 'gone' };
  const lb = lbLookup;
  if (lb.provisioningStatus === 'DELETED') return { kind: 'gone' };
  if (classifyStatus(lb.provisioningStatus) === 'unusable' && lb.provisioningStatus !== 'ERROR')
    return { kind: 'problem', problem: { kind: 'status', subject: '', status: 'unrecognized', message: 'Octavia reports the load balancer in a provisioning status Regent does not recognize' } };
  const pending = [{ name: lbName, provisioningStatus: lb.provisioningStatus }, ...inventory(observed).seen].filter((s) => classifyStatus(s.provisioningStatus) === 'pending');
  if (pending.length > 0) return { kind: 'pending', subjects: pending.map((s) => s.name) };
  const vipPortId = usableVipPortId(lb.vipPortId);
  if (vipPortId !== null && !observed.floatingIP) return { kind: 'incomplete' };
  // LB15: several floating IPs on the VIP port: releasing one Regent did not make is not the delete asked for
  const several = vipPortId !== null && observed.floatingIP?.kind === 'duplicate' ? floatingIPsProblem(lbName, vipPortId, observed.floatingIP) : null;
  if (several) return { kind: 'problem', problem: several };
  // one floating IP is released by its id, whatever its address; without a usable VIP port id none was looked up (none can be: the cascade goes)
  if (observed.floatingIP?.kind === 'present') return { kind: 'release', floatingIP: { id: observed.floatingIP.id, address: observed.floatingIP.address }, lb };
  return { kind: 'cascade', lb };
};

// ─── per-listener state (status) ────────────────────────────────────────────────────────────────────

export type ListenerState = 'Provisioned' | 'Provisioning' | 'Errored' | 'ConsistencyError' | 'Deleting';
export interface ListenerRow {
  /** The spec's listener name. */
  name: string;
  state: ListenerState;
  listenerId: string | null;
  poolId: string | null;
  healthMonitorId: string | null;
}

/** Per listener of the spec, what this observation shows (for status; decides nothing). */
export const listenerRows = (desired: DesiredTopology, observed: TopologyObservation): ListenerRow[] =>
  desired.listeners.map((l) => {
    const listener = listenerOf(observed, childName(desired.name, l.name, 'listener'));
    const pool = poolOf(observed, childName(desired.name, l.name, 'pool'));
    const monitor = monitorOf(observed, childName(desired.name, l.name, 'monitor'));
    const ids = {
      listenerId: listener?.kind === 'present' ? listener.id : null,
      poolId: pool?.kind === 'present' ? pool.id : null,
      healthMonitorId: l.pool.healthMonitor && monitor?.kind === 'present' ? monitor.id : null,
    };
    const row = (state: ListenerState): ListenerRow => ({ name: l.name, state, ...ids });
    if (observed.loadBalancer.kind !== 'present') return row(observed.loadBalancer.kind === 'duplicate' ? 'ConsistencyError' : 'Provisioning');
    const parts = [listener, pool, ...(l.pool.healthMonitor ? [monitor] : [])];
    if (parts.some((p) => p?.kind === 'duplicate')) return row('ConsistencyError');
    const statuses = parts.flatMap((p) => (p?.kind === 'present' ? [p.provisioningStatus] : []));
    if (statuses.includes('ERROR')) return row('Errored');
    if (statuses.some((s) => classifyStatus(s) === 'unusable')) return row('ConsistencyError');
    if (driftOf({ ...desired, listeners: [l] }, observed)) return row('ConsistencyError');
    if (statuses.length < parts.length || statuses.some((s) => s !== ACTIVE) || classifyStatus(observed.loadBalancer.provisioningStatus) !== 'active') return row('Provisioning');
    const step = listenerStep(desired, observed.loadBalancer, l, observed, null, '');
    return row(step ? 'Provisioning' : 'Provisioned');
  });
