/**
 * Load-balancer provider (issue 13): the Octavia and Neutron side of machines/load-balancer.ts
 * (openstack-provider.md, "Octavia Load Balancers"). No controller drives it yet; the control plane wires
 * `loadBalancerHandlers(session)` (one handler per `LB_EFFECTS` entry) into its engine.
 *
 * Observation (`observeTopology`), read fresh on every pass, in the shape of the machine's
 * `TopologyObservation` codec:
 * - the load balancer: `GET /lbaas/loadbalancers?name=lb-{lb}`, post-filtered to the exact name (Octavia's
 *   filter is exact on Zed, but names are not unique): none is `absent`, two or more `duplicate` (with
 *   their ids), one `present`. Nothing else is read unless exactly one is present.
 * - its children: one list per kind (`listeners`, `pools` with `loadbalancer_id=`, which Octavia takes and
 *   the simulator ignores, so the answer is always filtered again by the load balancer's own references;
 *   `healthmonitors` of the project, kept when they monitor one of this load balancer's pools), each
 *   post-filtered to exact names. Every name the desired topology implies is answered (`absent`,
 *   `present`, `duplicate`), a `-monitor` only for a listener that wants one; every other child of
 *   Regent's name shape (`lb-{lb}-<label>-listener|pool|monitor`, topology `isOurName`) is an orphan, so a
 *   monitor no longer wanted is one too (LB7/LB8). Members are read per pool of an implied name that
 *   exists (`GET /pools/{id}/members`).
 * - the floating IPs on the VIP port: `GET /v2.0/floatingips?port_id=`, only with a usable VIP port id
 *   (machines' `usableVipPortId`: a missing, empty or blank one sends no lookup at all — the machine parks on
 *   it, LB15); none is `absent`, one `present` with its address as Neutron sent it, two or more `duplicate`
 *   (each id and address, sorted by id: LB15 parks, which one Regent made is not for the provider to guess).
 *   The VIP address and port id are carried as Octavia sent them (LB15 judges them).
 * provisioning_status is carried verbatim: a value the client's closed decoder does not know is passed
 * through as the raw string Octavia sent (the machine parks on it, LB1); operating_status is never read.
 * Listener timeouts are Octavia's milliseconds, as Octavia reports them. A required field Octavia did not
 * send (a child's protocol, port, a monitor's thresholds) fails the observation (`UnreadableResponse`):
 * the pass then sends no observation and nothing is decided.
 *
 * Effect handlers answer with the machine's result stimuli, each echoing the effect's type and `subject`:
 * - 2xx: `accepted`, with `ids` keyed by Octavia name (or the floating-IP subject) for what was created
 *   (a nested create names every child its answer carries; Zed answers a nested monitor as null, so a
 *   monitor id may be missing there) and, for a floating IP, its `address`; a 2xx whose body cannot be
 *   read is still `accepted` (Octavia took it), without ids;
 * - 409 (Octavia's immutable-while-PENDING_*, Neutron's in-use): `conflict`, a yield;
 * - 404 on a delete: `accepted` (gone is done); 404 elsewhere: `rejected` 404 `notFound` (the machine lets
 *   the next pass decide);
 * - any other refusal: `rejected` with the HTTP status and Regent's closed reason (`badRequest`,
 *   `forbidden`, `unauthorized`, `overLimit`, `unexpectedStatus`); Octavia's or Neutron's own text goes to
 *   `context.logger` only, never into an event;
 * - no answer (timeout, reset, 5xx, cancelled): `outcomeUnknown` with a reason Regent words itself.
 * A POST is sent once per decision and never retried here (the HTTP client retries only GETs); whether
 * an unanswered create landed is the next observation's to say (LB12: adopted by its exact name).
 *
 * Every create is plain: the machine creates each object alone (LB3/LB4), because Octavia Zed's nested creates
 * never settle or are a 500 (docs/simulator-differences.md §16). `createLoadBalancer`'s `listeners` param is
 * always empty and is not sent. PROXYV2 pools go with `load-balancer 2.22` (the client pins it).
 */
import type { EffectContext, EffectHandler } from '../engine/engine.js';
import type { Effect } from '../events/envelope.js';
import type { NeutronClient } from '../openstack/neutron/index.js';
import type { OctaviaClient } from '../openstack/octavia/index.js';
import type { ListenerProtocol, PoolProtocol } from '../openstack/octavia/index.js';
import type { HealthMonitorObservation, ListenerObservation, LoadBalancerObservation, PoolObservation } from '../openstack/decoders/octavia.js';
import type { Field } from '../openstack/decoders/field.js';
import {
  BadRequest, Cancelled, Conflict, Forbidden, NotFound, OverLimit, RequestFailed, ServerError, Timeout, Unauthorized, UnexpectedStatus, UnreadableResponse,
} from '../openstack/errors.js';
import type { OpenStackError } from '../openstack/errors.js';
import {
  LB_EFFECTS, childName, isOurName, usableVipPortId,
  type ChildKind, type DesiredTopology, type HealthMonitorParams, type ListenerParams, type MemberParams, type Orphan, type TopologyObservation,
} from '../../machines/load-balancer-topology.js';

// ─── clients ────────────────────────────────────────────────────────────────────────────────────────

export interface TopologyClients {
  octavia: Pick<OctaviaClient, 'listLoadBalancers' | 'listListeners' | 'listPools' | 'listMembers' | 'listHealthMonitors'>;
  neutron: Pick<NeutronClient, 'listFloatingIps'>;
}

/** What the handlers use: the bound clients. */
export interface LoadBalancerSession {
  octavia: Pick<
    OctaviaClient,
    'createLoadBalancer' | 'deleteLoadBalancer' | 'createListener' | 'updateListener' | 'deleteListener' | 'createPool' | 'deletePool' | 'replaceMembers' | 'createHealthMonitor' | 'updateHealthMonitor' | 'deleteHealthMonitor'
  >;
  neutron: Pick<NeutronClient, 'createFloatingIp' | 'deleteFloatingIp'>;
}

// ─── observation ────────────────────────────────────────────────────────────────────────────────────

/** Octavia's provisioning_status as it was sent: a value outside the decoder's closed set passes through raw. */
const statusOf = (field: Field<string>): string => {
  if (field.kind === 'value') return field.value;
  if (field.kind === 'unreadable') return typeof field.raw === 'string' ? field.raw : JSON.stringify(field.raw) ?? 'null';
  return 'absent';
};

/** A field the observation cannot do without: a missing or unreadable one fails the pass (nothing is decided). */
const required = <T>(field: Field<T>, what: string, key: string): T => {
  if (field.kind === 'value') return field.value;
  throw new UnreadableResponse(`Octavia's ${what} has no readable ${key}`, [`${what}.${key}`], { service: 'load-balancer' });
};
const nullableOf = <T>(field: Field<T | null>): T | null => (field.kind === 'value' ? field.value : null);
const idsOf = (field: Field<readonly string[]>): readonly string[] => (field.kind === 'value' ? field.value : []);

type Lookup<P> = { kind: 'absent' } | ({ kind: 'present' } & P) | { kind: 'duplicate'; ids: string[] };
const lookupOf = <T extends { id: string }, P>(matches: readonly T[], facts: (x: T) => P): Lookup<P> => {
  if (matches.length === 0) return { kind: 'absent' };
  if (matches.length > 1) return { kind: 'duplicate', ids: matches.map((m) => m.id).sort() };
  return { kind: 'present', ...facts(matches[0] as T) };
};

/** The names the desired topology implies, per kind (a monitor only where wanted). */
const impliedByKind = (desired: DesiredTopology): Record<ChildKind, string[]> => ({
  listener: desired.listeners.map((l) => childName(desired.name, l.name, 'listener')),
  pool: desired.listeners.map((l) => childName(desired.name, l.name, 'pool')),
  monitor: desired.listeners.filter((l) => l.pool.healthMonitor !== undefined).map((l) => childName(desired.name, l.name, 'monitor')),
});

const listenerFacts = (l: ListenerObservation) => ({
  id: l.id,
  provisioningStatus: statusOf(l.provisioningStatus),
  protocol: required(l.protocol, 'listener', 'protocol'),
  port: required(l.protocolPort, 'listener', 'protocol_port'),
  allowedCidrs: (() => {
    const cidrs = nullableOf(l.allowedCidrs);
    return cidrs === null ? null : [...cidrs];
  })(),
  timeoutClientData: nullableOf(l.timeoutClientData),
  timeoutMemberData: nullableOf(l.timeoutMemberData),
  defaultPoolId: nullableOf(l.defaultPoolId),
});
const monitorFacts = (h: HealthMonitorObservation) => ({
  id: h.id,
  provisioningStatus: statusOf(h.provisioningStatus),
  type: required(h.type, 'health monitor', 'type'),
  delay: required(h.delay, 'health monitor', 'delay'),
  timeout: required(h.timeout, 'health monitor', 'timeout'),
  maxRetries: required(h.maxRetries, 'health monitor', 'max_retries'),
  maxRetriesDown: required(h.maxRetriesDown, 'health monitor', 'max_retries_down'),
});

/**
 * One pass's observation of the desired topology's Octavia objects and the floating IP on the VIP port.
 * Throws whatever a read could not answer (the pass then observes nothing and decides nothing).
 */
export const observeTopology = async (os: TopologyClients, desired: DesiredTopology): Promise<TopologyObservation> => {
  const lbs = (await os.octavia.listLoadBalancers({ name: desired.name })).filter((lb) => lb.name === desired.name);
  const loadBalancer = lookupOf(lbs, (lb: LoadBalancerObservation) => ({
    id: lb.id,
    provisioningStatus: statusOf(lb.provisioningStatus),
    vipAddress: nullableOf(lb.vipAddress),
    vipPortId: nullableOf(lb.vipPortId),
    provider: nullableOf(lb.provider),
  }));
  if (loadBalancer.kind !== 'present') return { loadBalancer };
  const lb = lbs[0] as LoadBalancerObservation;

  const lbListenerIds = new Set(idsOf(lb.listenerIds));
  const lbPoolIds = new Set(idsOf(lb.poolIds));
  const ofThisLb = (own: ReadonlySet<string>, refs: Field<readonly string[]>) => (x: { id: string }) => own.has(x.id) || idsOf(refs).includes(lb.id);
  const listeners = (await os.octavia.listListeners({ loadbalancer_id: lb.id })).filter((l) => ofThisLb(lbListenerIds, l.loadBalancerIds)(l));
  const pools = (await os.octavia.listPools({ loadbalancer_id: lb.id })).filter((p) => ofThisLb(lbPoolIds, p.loadBalancerIds)(p));
  const poolIds = new Set(pools.map((p) => p.id));
  const monitors = (await os.octavia.listHealthMonitors()).filter((h) => idsOf(h.poolIds).some((id) => poolIds.has(id)));

  const implied = impliedByKind(desired);
  const named = <T extends { name: string | null }>(items: readonly T[], name: string): T[] => items.filter((x) => x.name === name);

  const observedListeners: NonNullable<TopologyObservation['listeners']> = {};
  for (const name of implied.listener) observedListeners[name] = lookupOf(named(listeners, name), listenerFacts);

  const observedPools: NonNullable<TopologyObservation['pools']> = {};
  for (const name of implied.pool) {
    const matches = named(pools, name);
    const pool = matches.length === 1 ? (matches[0] as PoolObservation) : undefined;
    if (!pool) {
      observedPools[name] = matches.length === 0 ? { kind: 'absent' } : { kind: 'duplicate', ids: matches.map((m) => m.id).sort() };
      continue;
    }
    // a pool deleted between the pool list and this read (a cascade delete under way, measured on real Octavia:
    // 404 on its members) is gone: observed absent, not a failed pass
    const listed = await os.octavia.listMembers(pool.id).catch((error: unknown) => {
      if (error instanceof NotFound) return undefined;
      throw error;
    });
    if (listed === undefined) {
      observedPools[name] = { kind: 'absent' };
      continue;
    }
    const members = listed.map((m) => ({ id: m.id, address: required(m.address, 'member', 'address'), port: required(m.protocolPort, 'member', 'protocol_port') }));
    observedPools[name] = { kind: 'present', id: pool.id, provisioningStatus: statusOf(pool.provisioningStatus), protocol: required(pool.protocol, 'pool', 'protocol'), members };
  }

  const observedMonitors: NonNullable<TopologyObservation['monitors']> = {};
  for (const name of implied.monitor) observedMonitors[name] = lookupOf(named(monitors, name), monitorFacts);

  const keep = new Set([...implied.listener, ...implied.pool, ...implied.monitor]);
  const orphans: Orphan[] = [];
  const orphansOf = (kind: ChildKind, items: ReadonlyArray<{ id: string; name: string | null; provisioningStatus: Field<string> }>) => {
    for (const x of items)
      if (x.name !== null && !keep.has(x.name) && isOurName(desired.name, kind, x.name)) orphans.push({ kind, id: x.id, name: x.name, provisioningStatus: statusOf(x.provisioningStatus) });
  };
  orphansOf('listener', listeners);
  orphansOf('pool', pools);
  orphansOf('monitor', monitors);

  const observation: TopologyObservation = { loadBalancer, listeners: observedListeners, pools: observedPools, monitors: observedMonitors, orphans };
  // LB15: no lookup with an empty port id (it would ask about no port, and "none" would let the pass create one)
  const vipPortId = usableVipPortId(loadBalancer.vipPortId);
  if (vipPortId === null) return observation;
  const fips = await os.neutron.listFloatingIps({ port_id: vipPortId });
  // the filter is Neutron's; a floating IP that names another port is not this one (should a filter be ignored)
  const onPort = fips.filter((f) => f.port_id === undefined || f.port_id === vipPortId).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const [fip] = onPort;
  if (onPort.length > 1) return { ...observation, floatingIP: { kind: 'duplicate', floatingIPs: onPort.map((f) => ({ id: f.id, address: f.floating_ip_address })) } };
  return { ...observation, floatingIP: fip ? { kind: 'present', id: fip.id, address: fip.floating_ip_address } : { kind: 'absent' } };
};

// ─── answers ────────────────────────────────────────────────────────────────────────────────────────

type Answer = { type: 'accepted' | 'conflict' | 'rejected' | 'outcomeUnknown'; effect: string; subject: string; [key: string]: unknown };

/** Regent's closed word for a refusal (never the service's text). */
export const refusalReason = (error: unknown): string | undefined => {
  if (error instanceof BadRequest) return 'badRequest';
  if (error instanceof Forbidden) return 'forbidden';
  if (error instanceof Unauthorized) return 'unauthorized';
  if (error instanceof OverLimit) return 'overLimit';
  if (error instanceof NotFound) return 'notFound';
  if (error instanceof UnexpectedStatus && error.status !== undefined && error.status >= 400 && error.status < 500) return 'unexpectedStatus';
  return undefined;
};

/** Why no answer came, in Regent's words (no fault text: a 5xx body can name hosts). */
export const unansweredReason = (service: string, error: unknown): string | undefined => {
  if (error instanceof Timeout) return error.status !== undefined ? `${service} answered HTTP ${error.status}` : 'no answer within the client timeout';
  if (error instanceof RequestFailed) return `the connection failed${error.code !== undefined ? ` (${error.code})` : ''}`;
  if (error instanceof ServerError) return `${service} answered HTTP ${error.status ?? 500}`;
  if (error instanceof Cancelled) return `the request was cancelled (${error.why})`;
  if (error instanceof UnexpectedStatus && (error.status === undefined || error.status < 400 || error.status > 499)) return `${service} answered HTTP ${error.status ?? 'without a status'}`;
  return undefined;
};

const logFields = (error: OpenStackError) => ({ status: error.status, reason: error.reason, fault: error.fault, requestId: error.requestId });

/** A parameter the machine always sends: a missing one is a refusal Regent makes itself (nothing is sent). */
class MissingParam extends Error {
  constructor(readonly param: string) {
    super(`effect parameter ${param} is missing`);
  }
}
const str = (effect: Effect, key: string): string => {
  const v = effect[key];
  if (typeof v !== 'string' || v === '') throw new MissingParam(key);
  return v;
};
const num = (effect: Effect, key: string): number => {
  const v = effect[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new MissingParam(key);
  return v;
};
const optNum = (effect: Effect, key: string): number | undefined => (typeof effect[key] === 'number' ? (effect[key] as number) : undefined);
/** `tags` when the effect carries them (a list of strings), for the create body; else nothing is sent. */
const tagsOf = (effect: Effect): { tags?: string[] } =>
  Array.isArray(effect.tags) && effect.tags.every((x) => typeof x === 'string') ? { tags: [...(effect.tags as string[])] } : {};

interface Call {
  /** 'Octavia' or 'Neutron': the service named in a Regent-written reason. */
  service: string;
  /** A delete: a 404 is the deletion done. */
  del: boolean;
  /** Log text, e.g. "the listener create". */
  what: string;
  run: (effect: Effect, context: EffectContext) => Promise<Record<string, unknown>>;
}

/** One handler: one call, its answer mapped to the machine's result stimuli. */
const handler = (call: Call): EffectHandler => async (effect, context) => {
  const subject = typeof effect.subject === 'string' ? effect.subject : '';
  const answer = (type: Answer['type'], extra: Record<string, unknown> = {}): Answer => ({ type, effect: effect.type, subject, ...extra });
  const where = { effect: effect.type, subject };
  try {
    str(effect, 'subject');
    const extra = await call.run(effect, context);
    context.logger.info(`${call.service.toLowerCase()} accepted ${call.what}`, { ...where, ...extra });
    return answer('accepted', extra);
  } catch (error) {
    if (error instanceof MissingParam) {
      context.logger.error(`${call.what} was not sent: the effect is malformed`, { ...where, param: error.param });
      return answer('rejected', { status: 0, reason: 'invalidEffect' });
    }
    if (error instanceof UnreadableResponse) {
      // a 2xx whose body we cannot read: the service took it; ids come with the next observation
      context.logger.warn(`${call.service.toLowerCase()} accepted ${call.what} with an unreadable answer`, { ...where, problems: error.problems });
      return answer('accepted');
    }
    if (error instanceof NotFound && call.del) {
      context.logger.info(`${call.what}: already gone`, where);
      return answer('accepted');
    }
    if (error instanceof Conflict) {
      context.logger.info(`${call.service.toLowerCase()} answered ${call.what} with a conflict`, { ...where, ...logFields(error) });
      return answer('conflict');
    }
    const refused = refusalReason(error);
    if (refused !== undefined) {
      context.logger.warn(`${call.service.toLowerCase()} refused ${call.what}`, { ...where, ...logFields(error as OpenStackError) });
      return answer('rejected', { status: (error as OpenStackError).status ?? 0, reason: refused });
    }
    const unknown = unansweredReason(call.service, error);
    if (unknown !== undefined) {
      context.logger.warn(`${call.what} went unanswered`, { ...where, ...logFields(error as OpenStackError) });
      return answer('outcomeUnknown', { reason: unknown });
    }
    throw error;
  }
};

// ─── request bodies from effect params ──────────────────────────────────────────────────────────────

const members = (ms: unknown): MemberParams[] => (Array.isArray(ms) ? (ms as MemberParams[]) : []);
const listenerOf = (effect: Effect): ListenerParams => ({
  name: str(effect, 'name'),
  protocol: str(effect, 'protocol') as ListenerParams['protocol'],
  protocolPort: num(effect, 'protocolPort'),
  allowedCidrs: Array.isArray(effect.allowedCidrs) ? (effect.allowedCidrs as string[]) : null,
  ...(optNum(effect, 'timeoutClientData') !== undefined ? { timeoutClientData: optNum(effect, 'timeoutClientData') as number } : {}),
  ...(optNum(effect, 'timeoutMemberData') !== undefined ? { timeoutMemberData: optNum(effect, 'timeoutMemberData') as number } : {}),
  ...(typeof effect.defaultPoolId === 'string' ? { defaultPoolId: effect.defaultPoolId } : {}),
  ...tagsOf(effect),
});
const withIds = (ids: Record<string, string>) => (Object.keys(ids).length > 0 ? { ids } : {});

// ─── handlers ───────────────────────────────────────────────────────────────────────────────────────

/** `octavia.createLoadBalancer {name, vipSubnetId, vipAddress?, provider?, tags?}`: one POST, the load balancer alone. */
export const createLoadBalancerHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Octavia', del: false, what: 'the load-balancer create',
    run: async (effect) => {
      const name = str(effect, 'name');
      const created = await s.octavia.createLoadBalancer({
        name,
        vipSubnetId: str(effect, 'vipSubnetId'),
        ...(typeof effect.vipAddress === 'string' ? { vipAddress: effect.vipAddress } : {}),
        ...(typeof effect.provider === 'string' ? { provider: effect.provider } : {}),
        ...tagsOf(effect),
      });
      return { ids: { [name]: created.id } };
    },
  });

/** `octavia.createListener {loadBalancerId, ...ListenerParams}`: the listener alone, linked to defaultPoolId when given. */
export const createListenerHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Octavia', del: false, what: 'the listener create',
    run: async (effect) => {
      const l = listenerOf(effect);
      const created = await s.octavia.createListener({
        name: l.name,
        protocol: l.protocol as ListenerProtocol,
        protocolPort: l.protocolPort,
        loadbalancerId: str(effect, 'loadBalancerId'),
        ...(l.allowedCidrs !== null ? { allowedCidrs: l.allowedCidrs } : {}),
        ...(l.timeoutClientData !== undefined ? { timeoutClientData: l.timeoutClientData } : {}),
        ...(l.timeoutMemberData !== undefined ? { timeoutMemberData: l.timeoutMemberData } : {}),
        ...(l.defaultPoolId !== undefined ? { defaultPoolId: l.defaultPoolId } : {}),
        ...(l.tags !== undefined ? { tags: l.tags } : {}),
      });
      return { ids: { [l.name]: created.id } };
    },
  });

/** `octavia.updateListener {listenerId, name, allowedCidrs?, timeoutClientData?, timeoutMemberData?, defaultPoolId?}`: only what the params carry. */
export const updateListenerHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Octavia', del: false, what: 'the listener update',
    run: async (effect) => {
      const id = str(effect, 'listenerId');
      await s.octavia.updateListener(id, {
        ...('allowedCidrs' in effect ? { allowedCidrs: Array.isArray(effect.allowedCidrs) ? (effect.allowedCidrs as string[]) : null } : {}),
        ...(optNum(effect, 'timeoutClientData') !== undefined ? { timeoutClientData: optNum(effect, 'timeoutClientData') as number } : {}),
        ...(optNum(effect, 'timeoutMemberData') !== undefined ? { timeoutMemberData: optNum(effect, 'timeoutMemberData') as number } : {}),
        ...('defaultPoolId' in effect ? { defaultPoolId: typeof effect.defaultPoolId === 'string' ? effect.defaultPoolId : null } : {}),
      });
      return {};
    },
  });

/** `octavia.createPool {loadBalancerId, listenerId|null, ...PoolParams (tags?)}`: on the listener (it becomes its default pool) when listenerId is given, else on the load balancer. */
export const createPoolHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Octavia', del: false, what: 'the pool create',
    run: async (effect) => {
      const name = str(effect, 'name');
      const listenerId = typeof effect.listenerId === 'string' && effect.listenerId !== '' ? effect.listenerId : null;
      const parent = listenerId !== null ? { listenerId } : { loadbalancerId: str(effect, 'loadBalancerId') };
      const created = await s.octavia.createPool({ name, protocol: str(effect, 'protocol') as PoolProtocol, lbAlgorithm: str(effect, 'lbAlgorithm') as 'ROUND_ROBIN', ...parent, ...tagsOf(effect) });
      return { ids: { [name]: created.id } };
    },
  });

/** `octavia.setPoolMembers {poolId, name, members}`: the whole set in one batch update (PUT /pools/{id}/members). */
export const setPoolMembersHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Octavia', del: false, what: 'the pool member update',
    run: async (effect) => {
      await s.octavia.replaceMembers(str(effect, 'poolId'), members(effect.members).map((m) => ({ address: m.address, protocolPort: m.protocolPort })));
      return {};
    },
  });

/** `octavia.createHealthMonitor {poolId, name, monitorType, delay, timeout, maxRetries, maxRetriesDown}`. */
export const createHealthMonitorHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Octavia', del: false, what: 'the health-monitor create',
    run: async (effect) => {
      const name = str(effect, 'name');
      const created = await s.octavia.createHealthMonitor({
        name,
        poolId: str(effect, 'poolId'),
        type: str(effect, 'monitorType') as HealthMonitorParams['monitorType'],
        delay: num(effect, 'delay'),
        timeout: num(effect, 'timeout'),
        maxRetries: num(effect, 'maxRetries'),
        maxRetriesDown: num(effect, 'maxRetriesDown'),
      });
      return withIds({ [name]: created.id });
    },
  });

/** `octavia.updateHealthMonitor {healthMonitorId, name, delay, timeout, maxRetries, maxRetriesDown}`. */
export const updateHealthMonitorHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Octavia', del: false, what: 'the health-monitor update',
    run: async (effect) => {
      await s.octavia.updateHealthMonitor(str(effect, 'healthMonitorId'), {
        delay: num(effect, 'delay'),
        timeout: num(effect, 'timeout'),
        max_retries: num(effect, 'maxRetries'),
        max_retries_down: num(effect, 'maxRetriesDown'),
      });
      return {};
    },
  });

/** `octavia.deleteHealthMonitor {healthMonitorId, name}`: gone is done. */
export const deleteHealthMonitorHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({ service: 'Octavia', del: true, what: 'the health-monitor delete', run: async (effect) => (await s.octavia.deleteHealthMonitor(str(effect, 'healthMonitorId')), {}) });

/** `octavia.deleteListener {listenerId, name}`: gone is done. */
export const deleteListenerHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({ service: 'Octavia', del: true, what: 'the listener delete', run: async (effect) => (await s.octavia.deleteListener(str(effect, 'listenerId')), {}) });

/** `octavia.deletePool {poolId, name}`: gone is done (Octavia takes the pool's members and monitor with it). */
export const deletePoolHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({ service: 'Octavia', del: true, what: 'the pool delete', run: async (effect) => (await s.octavia.deletePool(str(effect, 'poolId')), {}) });

/** `octavia.deleteLoadBalancer {loadBalancerId, name, cascade}`: gone is done. */
export const deleteLoadBalancerHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Octavia', del: true, what: 'the load-balancer delete',
    run: async (effect) => (await s.octavia.deleteLoadBalancer(str(effect, 'loadBalancerId'), { cascade: effect.cascade === true }), {}),
  });

/** `neutron.createFloatingIP {floatingNetworkId, portId, fixedIpAddress?, description}`: the id under the floating-IP subject, and the address. */
export const createFloatingIPHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({
    service: 'Neutron', del: false, what: 'the floating-IP create',
    run: async (effect) => {
      const created = await s.neutron.createFloatingIp({
        floating_network_id: str(effect, 'floatingNetworkId'),
        port_id: str(effect, 'portId'),
        ...(typeof effect.fixedIpAddress === 'string' ? { fixed_ip_address: effect.fixedIpAddress } : {}),
        ...(typeof effect.description === 'string' ? { description: effect.description } : {}),
      });
      return { ids: { [str(effect, 'subject')]: created.id }, address: created.floating_ip_address };
    },
  });

/** `neutron.deleteFloatingIP {floatingIPId, portId}`: gone is done. */
export const deleteFloatingIPHandler = (s: LoadBalancerSession): EffectHandler =>
  handler({ service: 'Neutron', del: true, what: 'the floating-IP release', run: async (effect) => (await s.neutron.deleteFloatingIp(str(effect, 'floatingIPId')), {}) });

/** Every LB_EFFECTS entry's handler, keyed by effect type, for the control plane's engine. */
export const loadBalancerHandlers = (session: LoadBalancerSession): Record<string, EffectHandler> => ({
  [LB_EFFECTS.createLoadBalancer]: createLoadBalancerHandler(session),
  [LB_EFFECTS.createListener]: createListenerHandler(session),
  [LB_EFFECTS.updateListener]: updateListenerHandler(session),
  [LB_EFFECTS.createPool]: createPoolHandler(session),
  [LB_EFFECTS.setPoolMembers]: setPoolMembersHandler(session),
  [LB_EFFECTS.createHealthMonitor]: createHealthMonitorHandler(session),
  [LB_EFFECTS.updateHealthMonitor]: updateHealthMonitorHandler(session),
  [LB_EFFECTS.deleteHealthMonitor]: deleteHealthMonitorHandler(session),
  [LB_EFFECTS.deleteListener]: deleteListenerHandler(session),
  [LB_EFFECTS.deletePool]: deletePoolHandler(session),
  [LB_EFFECTS.deleteLoadBalancer]: deleteLoadBalancerHandler(session),
  [LB_EFFECTS.createFloatingIP]: createFloatingIPHandler(session),
  [LB_EFFECTS.deleteFloatingIP]: deleteFloatingIPHandler(session),
});
