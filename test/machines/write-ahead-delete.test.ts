/**
 * The write-ahead delete (machines/write-ahead-delete.ts, W1–W4) holds on every path of each machine that uses it:
 * the lifecycle factory (serverLifecycle: the kind that boots, so L5's delete-and-recreate and L10 are explored too),
 * volumeLifecycle, loadBalancer (its prunes, its floating-IP release, its cascade delete) and identityLifecycle.
 *
 * Each machine's graph is explored with xstate/graph over its audit alphabet (the stimuli `regent check` explores,
 * folded by its stateKey); every path through that graph is then walked by an observer written from the protocol's
 * words, not from the machine. The observer reads only what an auditor reads in the stream — each stored event's
 * stimulus, outcome, `to` and declared effects — and keeps its own record of the arm standing, the requests decided
 * for each target and their clocks, and the cloud's answers. It never reads the machine's context, so a machine that
 * kept its ledger wrong, or armed in its head only, fails here. The record is part of the explored state, so every
 * history that reaches a machine state is judged, not just the first.
 *
 *   W1 no delete effect without an arm recorded in an earlier event by a reconciler pass, and the deciding pass is a
 *      reconciler pass with the authority to delete (a deletion request, or the machine's own rule: L5's never-booted
 *      ERROR, LB8's name no longer implied); the first arm of a delete is recorded by a pass with that authority (once
 *      armed, a pass that finds another target may arm for it: the pass that deletes it still needs the authority);
 *      the event that arms deletes nothing.
 *   W2 a delete is decided only by a pass that observes its target present.
 *   W3 `deleted` is entered only on a pass that observes the resource gone; a pass that observes it gone while a sent
 *      delete is awaited ends the wait and deletes nothing.
 *   W4 a delete that did not take (dropped, or refused) is sent again only once the backoff since the last request
 *      has passed (15 s doubling to 5 min, as the protocol states it; at once only after Octavia's 409). Load-balancer
 *      prunes: a refusal parks — nothing is sent again for that target before a new generation. identityLifecycle
 *      keeps no ledger: pending, with the reason; so is the load balancer's known gap.
 *
 * Paths are those a stream can have: an effect's result comes once, right after the decision that declared it (the
 * engine records it before the next pass; a crash leaves none). A target seen gone ends its delete, and a delete of
 * another target starts a new one (W5: one delete at a time — the load balancer's release, then its cascade); without
 * a usable VIP port id a load balancer has no floating IP (LB15: none is looked up). W4 is judged at the alphabets'
 * clocks (a start, ~20–30 s, 10 min): a re-send on the clock of the request before it, or on an earlier one, fails;
 * the schedule itself is test/machines/lifecycle.test.ts "L8 the backoff doubles from 15 s and is capped at 5 min".
 *
 * Over 500 lines: the four machines' readings (what a target, an arm, an absence is for each) are the test's
 * parameters, kept beside the one observer they feed.
 */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import type { MachineDefinition, Stimulus } from '../../machines/definition.js';
import { identityLifecycleDefinition } from '../../machines/identity-lifecycle.js';
import { loadBalancerDefinition } from '../../machines/load-balancer.js';
import { serverLifecycleDefinition } from '../../machines/server-lifecycle.js';
import { volumeLifecycleDefinition } from '../../machines/volume-lifecycle.js';
import { step } from '../../src/engine/fold.js';

type Effect = { type: string } & Record<string, unknown>;
type Value = unknown;
/** What the stream records of one decision (the engine stores a stimulus only when it changes something or declares an effect). */
interface StoredEvent {
  stimulus: Stimulus;
  outcome: string | undefined;
  from: Value;
  to: Value;
  effects: Effect[];
}
// A reconciler pass, read loosely: each machine's adapter knows its fields.
type Pass = Record<string, unknown> & { type: 'reconcile'; deletionRequested: boolean; generation: number; at?: string };
interface Delete {
  target: string;
  effect: string;
  kind: string;
}
interface Arm {
  kind: string;
  /** The targets it covers (`*`: whatever the resource's name finds). */
  targets: string[];
  /** A new delete (W5: the requests start again), or a refresh of the standing one (LB8 after a prune). */
  fresh: boolean;
  authorised: boolean;
}
type Policy = 'backoff' | 'park' | 'none';

/** What the observer needs to know of one machine: read from the protocol's table (machines/write-ahead-delete.ts). */
interface Subject {
  definition: MachineDefinition;
  deletes: (e: StoredEvent) => Delete[];
  authorises: (pass: Pass, d: Delete) => boolean;
  armOf: (e: StoredEvent) => Arm | null;
  armStands: (arm: Arm, to: Value) => boolean;
  covers: (arm: Arm, d: Delete, pass: Pass) => boolean;
  seen: (pass: Pass, d: Delete) => boolean;
  /** W3: this pass observes `d`'s target gone (absent, or the name finds another): a later delete of it is a new one. */
  absent: (pass: Pass, d: Delete) => boolean;
  gone: (pass: Pass) => boolean;
  waitsOnDelete: (value: Value) => boolean;
  /** The machine has states that wait on a delete it sent (identityLifecycle moves to the next part instead). */
  waits: boolean;
  policy: (d: Delete) => Policy;
  /** What a result says of the delete it answers: refused, busy (nothing done: may go again at once), or nothing. */
  answer: (result: Stimulus, d: Delete) => 'refused' | 'busy' | null;
  /** Why W4 does not hold for this machine (policy `none`). */
  noLedger?: string;
  /** Where the machine is known to fall short of the protocol today (pending tests: fixing one changes decisions). */
  gaps?: string[];
}

// ─── the protocol's numbers, as stated (not imported: the fragment is what is under test) ───────────

const backoffMs = (requests: number): number => Math.min(15_000 * 2 ** Math.max(0, requests - 1), 300_000);
const ms = (t: string): number => Date.parse(t);
const isReconcile = (s: Stimulus): s is Stimulus & Pass => s.type === 'reconcile' && s.source === 'reconciler';
const sub = (value: Value, parent: string): string | null => (typeof value === 'object' && value !== null ? ((value as Record<string, string>)[parent] ?? null) : null);

// ─── the four machines ──────────────────────────────────────────────────────────────────────────────

type Observed = { kind: string; id?: string; status?: string; launched?: boolean; provisionedAt?: string; provisioningStatus?: string; vipPortId?: string | null };
const lifecycle: Subject = (() => {
  const observed = (p: Pass) => p.observed as Observed;
  const neverBootedError = (p: Pass) => observed(p).kind === 'present' && observed(p).status === 'ERROR' && observed(p).launched === false && observed(p).provisionedAt === undefined;
  return {
    definition: serverLifecycleDefinition,
    deletes: (e) => e.effects.filter((x) => x.type === 'nova.deleteServer').map((x) => ({ target: String(x.id), effect: x.type, kind: 'delete' })),
    authorises: (p) => p.deletionRequested || neverBootedError(p),
    armOf: (e) => {
      if (!isReconcile(e.stimulus) || (e.outcome !== 'deleteArmed' && e.outcome !== 'recreateArmed')) return null;
      return { kind: 'delete', targets: ['*'], fresh: true, authorised: e.outcome === 'deleteArmed' ? e.stimulus.deletionRequested : neverBootedError(e.stimulus) };
    },
    armStands: (_arm, to) => ['deleteArmed', 'deleting', 'recreateArmed', 'recreating'].includes(to as string),
    covers: (arm) => arm.targets.includes('*'),
    seen: (p, d) => observed(p).kind === 'present' && observed(p).id === d.target,
    absent: (p, d) => observed(p).kind === 'absent' || (observed(p).kind === 'present' && observed(p).id !== d.target),
    gone: (p) => observed(p).kind === 'absent',
    waitsOnDelete: (v) => v === 'deleting' || v === 'recreating',
    waits: true,
    policy: () => 'backoff',
    answer: (r) => (r.type === 'deleteRejected' ? 'refused' : null),
  };
})();

const volume: Subject = (() => {
  const lookup = (p: Pass) => p.observed as Observed | undefined;
  return {
    definition: volumeLifecycleDefinition,
    deletes: (e) => e.effects.filter((x) => x.type === 'cinder.deleteVolume').map((x) => ({ target: String(x.volumeId), effect: x.type, kind: 'delete' })),
    authorises: (p) => p.deletionRequested,
    armOf: (e) =>
      isReconcile(e.stimulus) && e.outcome === 'deleteArmed' ? { kind: 'delete', targets: [String(lookup(e.stimulus)?.id)], fresh: true, authorised: e.stimulus.deletionRequested } : null,
    armStands: (_arm, to) => ['armed', 'submitted'].includes(sub(to, 'deleting') ?? ''),
    covers: (arm, d) => arm.targets.includes(d.target),
    seen: (p, d) => lookup(p)?.kind === 'present' && lookup(p)?.id === d.target,
    absent: (p, d) => lookup(p)?.kind === 'absent' || (lookup(p)?.kind === 'present' && lookup(p)?.id !== d.target),
    gone: (p) => lookup(p)?.kind === 'absent' || (p.identity as { kind: string }).kind === 'unrealized',
    waitsOnDelete: (v) => sub(v, 'deleting') === 'submitted',
    waits: true,
    policy: () => 'backoff',
    answer: (r, d) => (r.type === 'deleteRejected' && (r as unknown as { volumeId: string }).volumeId === d.target ? 'refused' : null),
  };
})();

type Topology = {
  loadBalancer: Observed & { provisioningStatus?: string };
  listeners?: Record<string, Observed>;
  pools?: Record<string, Observed>;
  monitors?: Record<string, Observed>;
  orphans?: Array<{ id: string; name: string }>;
  floatingIP?: Observed;
};
type Desired = { name: string; floatingIP: { wanted: boolean }; listeners: Array<{ name: string; pool: { healthMonitor?: unknown } }> };
const loadBalancer: Subject = (() => {
  const topology = (p: Pass) => p.observed as Topology | undefined;
  const desired = (p: Pass) => p.desired as Desired;
  /** LB8: the names the spec implies, as the spec states them (a listener, its pool, its monitor when it wants one). */
  const implied = (d: Desired): string[] => d.listeners.flatMap((l) => [`${d.name}-${l.name}-listener`, `${d.name}-${l.name}-pool`, ...(l.pool.healthMonitor ? [`${d.name}-${l.name}-monitor`] : [])]);
  /** Every child this pass observes, by id, with its name. */
  const children = (p: Pass): Array<{ id: string; name: string }> => {
    const o = topology(p);
    if (!o) return [];
    const records = [o.listeners, o.pools, o.monitors].flatMap((r) => Object.entries(r ?? {}).flatMap(([name, x]) => (x.kind === 'present' ? [{ id: String(x.id), name }] : [])));
    return [...records, ...(o.orphans ?? [])];
  };
  const fip = (p: Pass) => topology(p)?.floatingIP;
  const lb = (p: Pass) => topology(p)?.loadBalancer;
  /** What this pass shows the spec no longer implies: a prune arm's candidates. */
  const unwanted = (p: Pass): string[] => [
    ...children(p).filter((c) => !implied(desired(p)).includes(c.name)).map((c) => c.id),
    ...(!desired(p).floatingIP.wanted && fip(p)?.kind === 'present' ? [String(fip(p)?.id)] : []),
  ];
  const ID_OF: Record<string, string> = {
    'octavia.deleteLoadBalancer': 'loadBalancerId',
    'neutron.deleteFloatingIP': 'floatingIPId',
    'octavia.deleteListener': 'listenerId',
    'octavia.deletePool': 'poolId',
    'octavia.deleteHealthMonitor': 'healthMonitorId',
  };
  const PRUNES = ['listenerPruneSubmitted', 'poolPruneSubmitted', 'monitorPruneSubmitted', 'floatingIPReleaseSubmitted'];
  return {
    definition: loadBalancerDefinition,
    deletes: (e) =>
      e.effects
        .filter((x) => x.type in ID_OF)
        .map((x) => ({ target: String(x[ID_OF[x.type] as string]), effect: x.type, kind: sub(e.from, 'deleting') === null ? 'prune' : x.type === 'neutron.deleteFloatingIP' ? 'release' : 'cascade' })),
    authorises: (p, d) => {
      if (d.kind !== 'prune') return p.deletionRequested;
      if (p.deletionRequested) return false;
      if (d.effect === 'neutron.deleteFloatingIP') return !desired(p).floatingIP.wanted;
      const name = children(p).find((c) => c.id === d.target)?.name;
      return name !== undefined && !implied(desired(p)).includes(name);
    },
    armOf: (e) => {
      if (!isReconcile(e.stimulus)) return null;
      const p = e.stimulus;
      if (sub(e.to, 'deleting') === 'armed' && (e.outcome === 'deleteArmed' || e.outcome === 'awaitingCreate'))
        return { kind: 'deletion', targets: lb(p)?.kind === 'present' ? [String(lb(p)?.id)] : [], fresh: true, authorised: p.deletionRequested };
      if (e.to === 'pruning' && (e.outcome === 'pruneArmed' || PRUNES.includes(e.outcome ?? '')))
        return { kind: 'prune', targets: unwanted(p), fresh: e.outcome === 'pruneArmed', authorised: !p.deletionRequested };
      return null;
    },
    armStands: (arm, to) => (arm.kind === 'prune' ? to === 'pruning' : sub(to, 'deleting') !== null),
    covers: (arm, d, p) => {
      if (d.kind === 'prune') return arm.kind === 'prune' && arm.targets.includes(d.target);
      // the release is of the armed load balancer's floating IP (the one on its VIP port)
      return arm.kind === 'deletion' && arm.targets.includes(d.kind === 'cascade' ? d.target : String(lb(p)?.id));
    },
    seen: (p, d) => {
      if (d.effect === 'octavia.deleteLoadBalancer') return lb(p)?.kind === 'present' && lb(p)?.id === d.target && lb(p)?.provisioningStatus !== 'DELETED';
      if (d.effect === 'neutron.deleteFloatingIP') return fip(p)?.kind === 'present' && fip(p)?.id === d.target;
      return children(p).some((c) => c.id === d.target);
    },
    absent: (p, d) => {
      // LB15: a load balancer without a usable VIP port id has no port a floating IP could be on (none is looked up)
      if (d.effect === 'neutron.deleteFloatingIP' && lb(p)?.kind === 'present' && (lb(p)?.vipPortId ?? '').trim() === '') return true;
      const o = d.effect === 'octavia.deleteLoadBalancer' ? lb(p) : d.effect === 'neutron.deleteFloatingIP' ? fip(p) : undefined;
      return o?.kind === 'absent' || (o?.kind === 'present' && (o.id !== d.target || o.provisioningStatus === 'DELETED'));
    },
    gone: (p) => lb(p)?.kind === 'absent' || lb(p)?.provisioningStatus === 'DELETED',
    waitsOnDelete: (v) => ['submitted', 'releasingFloatingIP'].includes(sub(v, 'deleting') ?? ''),
    waits: true,
    policy: (d) => (d.kind === 'prune' ? 'park' : 'backoff'),
    gaps: [
      'W4 a refused prune stays parked until a new generation, also through a spec rejected or a deletion requested on the same generation (pending: both leave `failed`, so the next pass arms and sends the refused prune again — LB12\'s gap; parking it needs loadBalancer v3, a decision change)',
    ],
    answer: (r, d) => {
      const x = r as unknown as { effect?: string; status?: number };
      if (x.effect !== d.effect) return null;
      return r.type === 'conflict' ? 'busy' : r.type === 'rejected' && x.status !== 404 ? 'refused' : null;
    },
  };
})();

const identity: Subject = (() => {
  type Part = { kind: string; id?: string; name?: string };
  const o = (p: Pass) => p.observed as { project: Part; user: Part; credential: Part; keypair?: Part };
  const TARGET: Record<string, (e: Effect) => string> = {
    'nova.deleteKeypair': (e) => `keypair:${String(e.name)}`,
    'keystone.deleteCredential': (e) => `credential:${String(e.credentialId)}`,
    'keystone.deleteUser': (e) => `user:${String(e.userId)}`,
    'keystone.deleteProject': (e) => `project:${String(e.projectId)}`,
  };
  const present = (p: Pass): string[] => {
    const x = o(p);
    return [
      ...(x.keypair && x.keypair.kind !== 'absent' ? [`keypair:${String(x.keypair.name)}`] : []),
      ...(x.credential.kind !== 'absent' ? [`credential:${String(x.credential.id)}`] : []),
      ...(x.user.kind === 'present' ? [`user:${String(x.user.id)}`] : []),
      ...(x.project.kind === 'present' ? [`project:${String(x.project.id)}`] : []),
    ];
  };
  const authorised = (p: Pass) => p.deletionRequested && (p.dependents as string[]).length === 0 && p.mode === 'managed';
  const STEPS: Record<string, string> = { deleteKeypair: 'nova.deleteKeypair', deleteCredential: 'keystone.deleteCredential', deleteUser: 'keystone.deleteUser', deleteProject: 'keystone.deleteProject' };
  return {
    definition: identityLifecycleDefinition,
    deletes: (e) => e.effects.filter((x) => x.type in TARGET).map((x) => ({ target: (TARGET[x.type] as (e: Effect) => string)(x), effect: x.type, kind: 'delete' })),
    authorises: (p) => authorised(p),
    armOf: (e) => (isReconcile(e.stimulus) && e.outcome === 'deleteArmed' ? { kind: 'delete', targets: ['*'], fresh: true, authorised: authorised(e.stimulus) } : null),
    armStands: (_arm, to) => sub(to, 'deleting') === 'armed',
    covers: (arm) => arm.targets.includes('*'),
    seen: (p, d) => present(p).includes(d.target),
    absent: (p, d) => !present(p).includes(d.target),
    gone: (p) => p.mode === 'unmanaged' || present(p).length === 0,
    waitsOnDelete: () => false,
    waits: false,
    policy: () => 'none',
    answer: (r, d) => (r.type === 'stepRefused' && STEPS[(r as unknown as { step: string }).step] === d.effect ? 'refused' : null),
    noLedger:
      'identityLifecycle keeps no delete ledger: a part still observed — its delete dropped, or refused — is deleted again by the next armed pass, paced only by its controller\'s 1 s yield. Backing off changes decisions (a version bump); machines/write-ahead-delete.ts names the gap',
  };
})();

const SUBJECTS: Array<[string, Subject]> = [
  ['serverLifecycle (the lifecycle factory)', lifecycle],
  ['volumeLifecycle', volume],
  ['loadBalancer', loadBalancer],
  ['identityLifecycle', identity],
];

// ─── the observer: what the stream shows, judged by W1–W4 ───────────────────────────────────────────

interface Request extends Delete {
  /** Requests decided for this target in the standing delete. */
  n: number;
  /** The clock of the last request's pass, or of the first clocked pass after it (a pass without a clock). */
  since: string | null;
  /** The cloud answered the last request "busy, nothing done": it may go again at once. */
  atOnce: boolean;
  refused: boolean;
}
interface Watch {
  arm: Arm | null;
  requests: Record<string, Request>;
  /** The last delete decision's deletes (with its generation), until an answer comes. */
  outstanding: Array<Delete & { generation: number }>;
  /** Prune targets refused, with the generation of the refused decision (W4 `park`). */
  parked: Record<string, number>;
  /** The last event declared an effect whose result has not come: the only time a result can come. */
  awaiting: boolean;
}
type Rule = 'W1' | 'W2' | 'W3' | 'W4';
interface Tally {
  deletes: number;
  resends: number;
  resendsAfterRefusal: number;
  resendsAtOnce: number;
  refusals: number;
  parks: number;
  confirmations: number;
  deleted: number;
}

const sorted = <T>(r: Record<string, T>): Array<[string, T]> => Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const watchKey = (w: Watch): string => JSON.stringify([w.arm, sorted(w.requests), w.outstanding, sorted(w.parked), w.awaiting]);

/** One stored event through the observer: the problems it shows, and the observer's record after it. */
const observe = (subject: Subject, w: Watch, e: StoredEvent, tally: Tally): { problems: Array<[Rule, string]>; next: Watch } => {
  const problems: Array<[Rule, string]> = [];
  const pass = isReconcile(e.stimulus) ? e.stimulus : null;
  const deletes = subject.deletes(e);
  for (const d of deletes) {
    tally.deletes++;
    // W1: the arm stands (recorded in an earlier event, by a reconciler pass with the authority) and this pass has the authority too
    if (!pass) problems.push(['W1', `${d.effect} ${d.target} declared by a ${e.stimulus.source} stimulus`]);
    else if (!subject.authorises(pass, d)) problems.push(['W1', `${d.effect} ${d.target} decided by a pass without the authority to delete it`]);
    if (!w.arm) problems.push(['W1', `${d.effect} ${d.target} with no arm recorded in an earlier event`]);
    else if (!pass || !subject.covers(w.arm, d, pass)) problems.push(['W1', `${d.effect} ${d.target} not covered by the arm standing (${JSON.stringify(w.arm.targets)})`]);
    // W2
    if (pass && !subject.seen(pass, d)) problems.push(['W2', `${d.effect} ${d.target} decided by a pass that does not observe it present`]);
    // W4
    const earlier = w.requests[d.target];
    const policy = subject.policy(d);
    if (policy === 'backoff' && earlier) {
      tally.resends++;
      if (earlier.refused) tally.resendsAfterRefusal++;
      if (earlier.atOnce) tally.resendsAtOnce++;
      else if (earlier.since === null || pass?.at === undefined || ms(pass.at) - ms(earlier.since) < backoffMs(earlier.n))
        problems.push(['W4', `${d.effect} ${d.target} sent again at ${pass?.at ?? 'no clock'}, ${earlier.n} request(s) so far, the last at ${earlier.since ?? 'no clock'}${earlier.refused ? ' (refused)' : ''}`]);
    }
    const parkedAt = w.parked[d.target];
    if (policy === 'park' && parkedAt !== undefined && (pass?.generation ?? 0) <= parkedAt) problems.push(['W4', `${d.effect} ${d.target} sent again on generation ${pass?.generation} after its refusal on generation ${parkedAt}`]);
  }
  const arm = subject.armOf(e);
  if (arm?.fresh && deletes.length > 0) problems.push(['W1', `the arming event declares ${deletes.map((d) => d.effect).join(', ')}`]);
  // a delete starts only under the authority; once armed, a pass that finds another target may arm for it (the next
  // pass still needs the authority to delete it)
  if (arm?.fresh && w.arm === null && !arm.authorised) problems.push(['W1', `a delete armed by a pass without the authority (${e.outcome ?? ''})`]);
  // W3
  if (e.to === 'deleted' && e.from !== 'deleted') {
    tally.deleted++;
    if (!pass || !subject.gone(pass)) problems.push(['W3', `deleted on a ${e.stimulus.type} that does not observe the resource gone`]);
  }
  if (subject.waitsOnDelete(e.from) && pass && subject.gone(pass)) {
    tally.confirmations++;
    if (subject.waitsOnDelete(e.to) || deletes.length > 0) problems.push(['W3', `a pass that observes the resource gone still waits on the delete (${JSON.stringify(e.to)})`]);
  }

  // the record after this event
  let requests = { ...w.requests };
  // an answer follows its decision at once (the engine runs the effect and records its result before the next pass), so
  // the deletes awaiting an answer are those of the event just before
  let outstanding: Watch['outstanding'] = [];
  // Known gap (loadBalancer LB12, pending below): the park is also lifted, on the same generation, by a spec the
  // reconciler rejects (the Region's external network went missing) or a deletion request — both leave `failed` —,
  // after which the next pass arms and sends the refused prune again.
  const parked = e.stimulus.type === 'specRejected' || pass?.deletionRequested === true ? {} : { ...w.parked };
  if (e.stimulus.source === 'effect') {
    for (const d of w.outstanding) {
      const said = subject.answer(e.stimulus, d);
      if (said === null) continue;
      const r = requests[d.target];
      if (said === 'refused') {
        tally.refusals++;
        if (subject.policy(d) === 'park') {
          tally.parks++;
          parked[d.target] = d.generation;
        }
      }
      if (r) requests[d.target] = { ...r, refused: said === 'refused' || r.refused, atOnce: said === 'busy' };
    }
  }
  if (pass) {
    // a refused prune is parked until a pass of a newer generation (the spec changed: the designed retry)
    for (const [t, generation] of Object.entries(parked)) if (pass.generation > generation) delete parked[t];
    for (const [t, r] of Object.entries(requests)) {
      // W3: seen gone, the delete of it is over (one that appears again is a new delete); else a clock starts a pending backoff
      if (subject.absent(pass, r)) delete requests[t];
      else if (r.since === null && pass.at !== undefined) requests[t] = { ...r, since: pass.at };
    }
  }
  if (deletes.length > 0 && pass) {
    // W5: one delete at a time — a delete of another target (the load balancer's cascade after its floating IP's
    // release) starts a new one. Only W4's machines keep a ledger to judge; beyond 6 requests the backoff is the same
    // 5 min, so the count folds there.
    for (const d of deletes)
      requests = subject.policy(d) === 'backoff' ? { [d.target]: { ...d, n: Math.min((requests[d.target]?.n ?? 0) + 1, 6), since: pass.at ?? null, atOnce: false, refused: false } } : {};
    outstanding = deletes.map((d) => ({ ...d, generation: pass.generation }));
  }
  let standing = w.arm;
  if (arm) {
    if (arm.fresh) requests = {};
    standing = arm;
  }
  // an event whose state leaves the armed phase drops the arm: the delete is over, the next one starts afresh (W5)
  if (standing && !subject.armStands(standing, e.to)) {
    standing = null;
    requests = {};
  }
  return { problems, next: { arm: standing, requests, outstanding, parked, awaiting: pass !== null && e.effects.length > 0 } };
};

interface Exploration {
  states: number;
  nodes: number;
  tally: Tally;
  /** The first counterexample per rule: the stimuli from the start, and what went wrong. */
  problems: Partial<Record<Rule, { count: number; first: string }>>;
}

const describeStep = (s: Stimulus, outcome: string | undefined): string => {
  const p = s as unknown as Pass;
  const seen = p.observed === undefined ? '' : ` observed=${JSON.stringify(p.observed).slice(0, 160)}`;
  return `${s.type}/${s.source}${s.type === 'reconcile' ? ` del=${String(p.deletionRequested)} gen=${p.generation} at=${p.at ?? '-'}${seen}` : ` ${JSON.stringify(s).slice(0, 160)}`} → ${outcome ?? '(stored)'}`;
};

/** The machine's graph (xstate/graph over its audit alphabet), then every path through it with the observer's record. */
const explore = (subject: Subject): Exploration => {
  const def = subject.definition;
  const audit = def.audit;
  if (!audit?.stateKey) throw new Error(`${def.id} has no audit alphabet or stateKey`);
  const stateKey = audit.stateKey;
  const alphabet = audit.alphabet();
  const stream = `${def.streamPrefix}write-ahead`;
  let map: ReturnType<typeof getAdjacencyMap>;
  try {
    map = getAdjacencyMap(def.machine, {
      input: def.input ? def.input(stream) : { stream },
      events: alphabet as never,
      serializeState: (s) => stateKey(s as AnyMachineSnapshot),
      serializeEvent: (e) => JSON.stringify(e),
      limit: 1_000_000,
    });
  } catch (error) {
    // the audit's state key counts delete requests: only the backoff keeps that count, and so the graph, finite
    throw new Error(`${def.id}: the graph over the audit alphabet does not close (${(error as Error).message}) — are deletes re-sent without waiting out the backoff (W4)?`, { cause: error });
  }
  // every edge once: the stored event it makes (none: an answer the machine did not store, or a pass that changed
  // nothing — skipped), and where it leads
  type Edge = { event: StoredEvent | null; next: string; result: boolean } | null;
  const edges = new Map<string, Edge[]>();
  for (const [key, { state }] of Object.entries(map)) {
    const snapshot = state as AnyMachineSnapshot;
    edges.set(
      key,
      alphabet.map((stimulus) => {
        const r = step(def, snapshot, stimulus);
        const result = stimulus.source === 'effect';
        if (!r.changed && r.effects.length === 0) return result ? { event: null, next: key, result } : null;
        return { event: { stimulus, outcome: r.outcome, from: snapshot.value, to: r.snapshot.value, effects: r.effects as Effect[] }, next: stateKey(r.snapshot), result };
      }),
    );
  }
  const tally: Tally = { deletes: 0, resends: 0, resendsAfterRefusal: 0, resendsAtOnce: 0, refusals: 0, parks: 0, confirmations: 0, deleted: 0 };
  const problems: Exploration['problems'] = {};
  const [initial] = Object.keys(map);
  const empty: Watch = { arm: null, requests: {}, outstanding: [], parked: {}, awaiting: false };
  const parents = new Map<string, { parent: string; how: string } | null>();
  const startId = `${initial}|${watchKey(empty)}`;
  parents.set(startId, null);
  const pathTo = (id: string): string[] => {
    const out: string[] = [];
    for (let at = parents.get(id); at; at = parents.get(at.parent)) out.unshift(at.how);
    return out;
  };
  const queue: Array<{ id: string; key: string; watch: Watch }> = [{ id: startId, key: initial as string, watch: empty }];
  for (let head = 0; head < queue.length; head++) {
    const { id, key, watch } = queue[head] as (typeof queue)[number];
    for (const [i, edge] of (edges.get(key) ?? []).entries()) {
      // an effect's result comes once, right after the decision that declared it (the engine runs the effect and records
      // its answer before the next pass; a crash leaves none): a result at any other time is no path of a real stream
      if (!edge || (edge.result && !watch.awaiting)) continue;
      const { problems: found, next } = edge.event ? observe(subject, watch, edge.event, tally) : { problems: [], next: { ...watch, outstanding: [], awaiting: false } };
      const how = edge.event ? describeStep(edge.event.stimulus, edge.event.outcome) : `${(alphabet[i] as Stimulus).type} (not stored)`;
      for (const [rule, what] of found) {
        const entry = problems[rule] ?? { count: 0, first: [...pathTo(id), how, `✗ ${what}`].join('\n      ') };
        entry.count++;
        problems[rule] = entry;
      }
      const nextId = `${edge.next}|${watchKey(next)}`;
      if (parents.has(nextId)) continue;
      parents.set(nextId, { parent: id, how });
      queue.push({ id: nextId, key: edge.next, watch: next });
    }
  }
  return { states: edges.size, nodes: queue.length, tally, problems };
};

const noProblem = (x: Exploration, rule: Rule): void => {
  const p = x.problems[rule];
  expect(p, p ? `${p.count} violation(s) of ${rule}; the first, from the initial state:\n      ${p.first}` : '').to.equal(undefined);
};

describe('write-ahead delete: W1–W4 on every path of each machine that deletes (machines/write-ahead-delete.ts)', function () {
  this.timeout(300_000);
  for (const [name, subject] of SUBJECTS) {
    describe(name, () => {
      let x: Exploration;
      before(() => {
        x = explore(subject);
      });

      it('W1 no delete without an arm recorded in an earlier event, by a reconciler pass with the authority to delete, and the deciding pass a reconciler pass with it; the arming event deletes nothing', () => {
        noProblem(x, 'W1');
        expect(x.tally.deletes, 'deletes explored').to.be.greaterThan(0);
      });

      it('W2 a delete is decided only by a pass that observes its target present', () => {
        noProblem(x, 'W2');
      });

      it('W3 absence confirms: deleted only on a pass that observes the resource gone, and such a pass ends any wait on a sent delete', () => {
        noProblem(x, 'W3');
        expect(x.tally.deleted, 'paths into deleted').to.be.greaterThan(0);
        if (subject.waits) expect(x.tally.confirmations, 'absences seen while a sent delete was awaited').to.be.greaterThan(0);
      });

      if (subject.noLedger) it(`W4 a refusal backs off (pending: ${subject.noLedger})`);
      else
        it('W4 a refusal backs off: a delete that did not take is sent again only after the backoff since the last request (at once only after a 409), a refused prune not before a new generation', () => {
          noProblem(x, 'W4');
          expect(x.tally.refusals, 'refusals explored').to.be.greaterThan(0);
          expect(x.tally.resendsAfterRefusal, 're-sends after a refusal explored').to.be.greaterThan(0);
          if (subject === loadBalancer) {
            expect(x.tally.resendsAtOnce, "re-sends at once after Octavia's 409 explored").to.be.greaterThan(0);
            expect(x.tally.parks, 'refused prunes explored').to.be.greaterThan(0);
          }
        });
      for (const gap of subject.gaps ?? []) it(gap);
    });
  }
});
