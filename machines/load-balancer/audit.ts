/**
 * The load-balancer machine's audit hooks (machines/definition.ts MachineAudit): the stimulus alphabet
 * `regent check` explores — three desired topologies (A: TCP with PROXY v2, a CIDR, a timeout, a member, a
 * monitor and a floating IP; B: A without what it no longer wants; U: UDP) against every observation a guard
 * tells apart, deletion passes, and every effect result for every subject — how to fold a snapshot into a
 * finite key, and the write-ahead intents (prune arms, the deletion).
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { MachineAudit, Stimulus } from '../definition.js';
import type { LoadBalancerContext } from './context.js';
import { LB_EFFECTS, isCreate } from './effects.js';
import { floatingIPSubject } from './names.js';
import type { DesiredTopology, Orphan, TopologyObservation } from './observation.js';
import type { Reconcile } from './stimuli.js';
import { deletingSubstate } from '../write-ahead-delete.js';

const INTENT_RANK: Record<string, number> = { armed: 1, releasingFloatingIP: 2, submitted: 2 };
/** The write-ahead intents: a prune arm (while `pruning`), and the deletion for the load balancer it was armed for. */
const intentOf = (snapshot: AnyMachineSnapshot) => {
  const c = snapshot.context as LoadBalancerContext;
  if (snapshot.value === 'pruning') return { target: `prune:${c.armed.map((a) => a.id).join(',')}`, state: 'pruneArmed' };
  const sub = deletingSubstate(snapshot);
  if (sub === null) return null;
  return { target: `delete:${c.deletion?.loadBalancerId ?? ''}`, state: sub === 'armed' ? 'deleteArmed' : sub };
};

/** Pass clocks of the audit alphabet: a start, past L8's first backoff but within the create window, past both. */
export const AUDIT_TIMES = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:30Z', '2026-01-01T00:10:00Z'] as const;
const A = 'lb-audit';
const names = (l: string) => ({ listener: `${A}-${l}-listener`, pool: `${A}-${l}-pool`, monitor: `${A}-${l}-monitor` });
const WEB = names('web');
const OLD = names('old');

/** Spec A: one TCP listener with PROXY v2, a CIDR, an idle timeout, one member and a monitor; a floating IP. */
export const auditDesiredA = (): DesiredTopology => ({
  name: A,
  vipSubnetId: 'subnet-1',
  floatingIP: { wanted: true, networkId: 'ext-net' },
  listeners: [
    {
      name: 'web',
      protocol: 'TCP',
      port: 443,
      allowedCIDRs: ['10.0.0.0/8'],
      proxyProtocolV2: true,
      idleTimeouts: { clientDataSeconds: 60 },
      pool: { members: [{ address: '10.0.0.11', port: 8443 }], healthMonitor: { delaySeconds: 5, timeoutSeconds: 3, maxRetries: 3 } },
    },
  ],
});
/** Spec B: the same listener without monitor, CIDR or timeout, two members, no floating IP. */
export const auditDesiredB = (): DesiredTopology => ({
  name: A,
  vipSubnetId: 'subnet-1',
  floatingIP: { wanted: false },
  listeners: [{ name: 'web', protocol: 'TCP', port: 443, allowedCIDRs: [], proxyProtocolV2: true, pool: { members: [{ address: '10.0.0.11', port: 8443 }, { address: '10.0.0.12', port: 8443 }] } }],
});
/** Spec U: a UDP listener with a monitor (LB10), no floating IP. */
export const auditDesiredUdp = (): DesiredTopology => ({
  name: A,
  vipSubnetId: 'subnet-1',
  floatingIP: { wanted: false },
  listeners: [{ name: 'dns', protocol: 'UDP', port: 53, allowedCIDRs: [], proxyProtocolV2: false, pool: { members: [{ address: '10.0.0.21', port: 53 }], healthMonitor: { delaySeconds: 10, timeoutSeconds: 5, maxRetries: 2, maxRetriesDown: 2 } } }],
});
/** Invalid: UDP with PROXY v2 (LB13). */
const auditDesiredInvalid = (): DesiredTopology => ({ ...auditDesiredUdp(), listeners: [{ ...(auditDesiredUdp().listeners[0] as DesiredTopology['listeners'][number]), proxyProtocolV2: true }] });

type Obs = TopologyObservation;
const lbPresent = (status = 'ACTIVE', id = 'lb-1', vipPortId: string | null = 'port-1', vipAddress: string | null = '10.0.0.5') => ({ kind: 'present' as const, id, provisioningStatus: status, vipAddress, vipPortId });
const webListener = (over: Record<string, unknown> = {}) => ({
  kind: 'present' as const,
  id: 'listener-1',
  provisioningStatus: 'ACTIVE',
  protocol: 'TCP',
  port: 443,
  allowedCidrs: ['10.0.0.0/8'],
  timeoutClientData: 60_000,
  timeoutMemberData: 50_000,
  defaultPoolId: 'pool-1',
  ...over,
});
const webPool = (over: Record<string, unknown> = {}) => ({ kind: 'present' as const, id: 'pool-1', provisioningStatus: 'ACTIVE', protocol: 'PROXYV2', members: [{ id: 'm-1', address: '10.0.0.11', port: 8443 }], ...over });
const webMonitor = (over: Record<string, unknown> = {}) => ({ kind: 'present' as const, id: 'hm-1', provisioningStatus: 'ACTIVE', type: 'TCP', delay: 5, timeout: 3, maxRetries: 3, maxRetriesDown: 3, ...over });
const fipPresent = { kind: 'present' as const, id: 'fip-1', address: '203.0.113.7' };
/** LB15: two floating IPs on the VIP port. */
const fipTwo = { kind: 'duplicate' as const, floatingIPs: [{ id: 'fip-1', address: '203.0.113.7' }, { id: 'fip-2', address: '203.0.113.8' }] };

/** Spec A converged, with a floating IP (each case below changes one thing). */
const convergedA = (over: Partial<Obs> = {}): Obs => ({
  loadBalancer: lbPresent(),
  listeners: { [WEB.listener]: webListener() },
  pools: { [WEB.pool]: webPool() as never },
  monitors: { [WEB.monitor]: webMonitor() as never },
  orphans: [],
  floatingIP: fipPresent,
  ...over,
});

/** Spec B converged: no monitor, no CIDR, two members, no floating IP (each case below adds one thing). */
const convergedB = (over: Partial<Obs> = {}): Obs => ({
  loadBalancer: lbPresent(),
  listeners: { [WEB.listener]: webListener({ allowedCidrs: [] }) },
  pools: { [WEB.pool]: webPool({ members: [{ id: 'm-1', address: '10.0.0.11', port: 8443 }, { id: 'm-2', address: '10.0.0.12', port: 8443 }] }) as never },
  monitors: {},
  orphans: [],
  floatingIP: { kind: 'absent' },
  ...over,
});
const DNS = names('dns');
/** Spec U converged. */
const convergedU = (over: Partial<Obs> = {}): Obs => ({
  loadBalancer: lbPresent(),
  listeners: { [DNS.listener]: webListener({ id: 'listener-3', protocol: 'UDP', port: 53, allowedCidrs: null, timeoutClientData: null, timeoutMemberData: null, defaultPoolId: 'pool-3' }) },
  pools: { [DNS.pool]: webPool({ id: 'pool-3', protocol: 'UDP', members: [{ id: 'm-3', address: '10.0.0.21', port: 53 }] }) as never },
  monitors: { [DNS.monitor]: webMonitor({ id: 'hm-3', type: 'UDP-CONNECT', delay: 10, timeout: 5, maxRetries: 2, maxRetriesDown: 2 }) as never },
  orphans: [],
  floatingIP: { kind: 'absent' },
  ...over,
});
const ABSENT = { kind: 'absent' as const };
const orphanListener: Orphan = { kind: 'listener', id: 'listener-9', name: OLD.listener, provisioningStatus: 'ACTIVE' };
const orphanPool: Orphan = { kind: 'pool', id: 'pool-9', name: OLD.pool, provisioningStatus: 'ACTIVE' };
const orphanMonitor: Orphan = { kind: 'monitor', id: 'hm-9', name: OLD.monitor, provisioningStatus: 'ACTIVE' };

/** Live observations for spec A; `timed`: an object is absent, so the pass's clock matters (LB12's window). */
export const auditObservationsA = (): Array<{ observed: Obs | undefined; timed: boolean }> => [
  { observed: undefined, timed: false },
  { observed: { loadBalancer: ABSENT }, timed: true },
  { observed: { loadBalancer: { kind: 'duplicate', ids: ['lb-1', 'lb-2'] } }, timed: false },
  ...['PENDING_CREATE', 'PENDING_UPDATE', 'ERROR', 'SOMETHING_NEW'].map((status) => ({ observed: convergedA({ loadBalancer: lbPresent(status) }), timed: false })),
  // LB15: no VIP port id (no floating-IP lookup), an empty one, an empty VIP address, one that is not an IP;
  // two floating IPs on the VIP port, one whose address is not an IP
  { observed: { ...convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', null) }), floatingIP: undefined } as Obs, timed: false },
  { observed: { ...convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', '') }), floatingIP: undefined } as Obs, timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', 'port-1', '') }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', 'port-1', 'vip.example') }), timed: false },
  { observed: convergedA({ floatingIP: fipTwo }), timed: false },
  { observed: convergedA({ floatingIP: { ...fipPresent, address: '' } }), timed: false },
  { observed: { ...convergedA(), floatingIP: undefined } as Obs, timed: false },
  { observed: convergedA({ listeners: { [WEB.listener]: ABSENT }, pools: { [WEB.pool]: ABSENT }, monitors: { [WEB.monitor]: ABSENT } }), timed: true },
  { observed: convergedA({ listeners: { [WEB.listener]: webListener({ defaultPoolId: null }) }, pools: { [WEB.pool]: ABSENT }, monitors: { [WEB.monitor]: ABSENT } }), timed: true },
  { observed: convergedA({ listeners: { [WEB.listener]: webListener({ allowedCidrs: null }) } }), timed: false },
  { observed: convergedA({ listeners: { [WEB.listener]: webListener({ provisioningStatus: 'PENDING_UPDATE' }) } }), timed: false },
  { observed: convergedA({ listeners: { [WEB.listener]: webListener({ protocol: 'UDP' }) } }), timed: false },
  { observed: convergedA({ listeners: { [WEB.listener]: { kind: 'duplicate', ids: ['listener-1', 'listener-2'] } } }), timed: false },
  { observed: convergedA({ pools: { [WEB.pool]: webPool({ members: [] }) as never } }), timed: false },
  { observed: convergedA({ pools: { [WEB.pool]: webPool({ provisioningStatus: 'ERROR' }) as never } }), timed: false },
  { observed: convergedA({ monitors: { [WEB.monitor]: ABSENT } }), timed: true },
  { observed: convergedA({ monitors: { [WEB.monitor]: webMonitor({ delay: 10 }) as never } }), timed: false },
  { observed: convergedA({ monitors: { [WEB.monitor]: webMonitor({ type: 'UDP-CONNECT' }) as never } }), timed: false },
  { observed: convergedA({ floatingIP: ABSENT }), timed: true },
  { observed: convergedA({ orphans: [orphanListener] }), timed: false },
  { observed: convergedA({ orphans: [orphanPool, orphanMonitor] }), timed: false },
  { observed: convergedA(), timed: false },
];
/** Spec B: its converged state, the things it no longer wants (a monitor, the floating IP, an orphaned pool), and A's converged state (a listener update). */
export const auditObservationsB = (): Obs[] => [
  convergedB(),
  convergedB({ monitors: { [WEB.monitor]: webMonitor() as never } }),
  convergedB({ floatingIP: fipPresent }),
  convergedB({ orphans: [orphanPool] }),
  convergedA(),
];
/** Deletion passes (spec A's desired, never read but for the name); `timed`: the backoff or the window matters. */
export const auditDeletionObservations = (): Array<{ observed: Obs | undefined; timed: boolean }> => [
  { observed: undefined, timed: false },
  { observed: { loadBalancer: ABSENT }, timed: true },
  { observed: { loadBalancer: { kind: 'duplicate', ids: ['lb-1', 'lb-2'] } }, timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('PENDING_DELETE') }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('ERROR') }), timed: true },
  { observed: convergedA({ pools: { [WEB.pool]: webPool({ provisioningStatus: 'ERROR' }) as never }, listeners: { [WEB.listener]: webListener({ provisioningStatus: 'SOMETHING_NEW' }) } }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('SOMETHING_NEW') }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('DELETED') }), timed: false },
  { observed: convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-2') }), timed: false },
  { observed: { ...convergedA(), floatingIP: undefined } as Obs, timed: false },
  { observed: convergedA(), timed: true },
  { observed: convergedA({ floatingIP: ABSENT }), timed: true },
  // LB15: several floating IPs park the deletion; without a usable VIP port id nothing was looked up
  { observed: convergedA({ floatingIP: fipTwo }), timed: false },
  { observed: { ...convergedA({ loadBalancer: lbPresent('ACTIVE', 'lb-1', '') }), floatingIP: undefined } as Obs, timed: true },
];

/** The subjects the audit scenario's effects name, per effect (results are sent for each). */
const auditSubjects = (): Array<[string, string]> => [
  [LB_EFFECTS.createLoadBalancer, A],
  [LB_EFFECTS.createListener, WEB.listener],
  [LB_EFFECTS.createListener, DNS.listener],
  [LB_EFFECTS.updateListener, WEB.listener],
  [LB_EFFECTS.createPool, WEB.pool],
  [LB_EFFECTS.setPoolMembers, WEB.pool],
  [LB_EFFECTS.createHealthMonitor, WEB.monitor],
  [LB_EFFECTS.updateHealthMonitor, WEB.monitor],
  [LB_EFFECTS.createFloatingIP, floatingIPSubject(A)],
  [LB_EFFECTS.deleteFloatingIP, floatingIPSubject(A)],
  [LB_EFFECTS.deleteListener, OLD.listener],
  [LB_EFFECTS.deletePool, OLD.pool],
  [LB_EFFECTS.deleteHealthMonitor, WEB.monitor],
  [LB_EFFECTS.deleteLoadBalancer, A],
];

/** A finite alphabet covering every case the guards distinguish (machines/definition.ts MachineAudit). */
export const loadBalancerAuditAlphabet = (): Stimulus[] => {
  const out: Stimulus[] = [];
  const reconcile = (desired: DesiredTopology, observed: Obs | undefined, deletionRequested: boolean, generation: number, at: string): Stimulus =>
    ({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, at, desired, ...(observed ? { observed } : {}) }) as Stimulus;
  const times = (timed: boolean): readonly string[] => (timed ? AUDIT_TIMES : [AUDIT_TIMES[0]]);
  for (const { observed, timed } of auditObservationsA()) for (const at of times(timed)) out.push(reconcile(auditDesiredA(), observed, false, 1, at));
  // a new generation: the designed retry after a refusal
  for (const at of [AUDIT_TIMES[0], AUDIT_TIMES[2]]) out.push(reconcile(auditDesiredA(), { loadBalancer: ABSENT }, false, 2, at));
  out.push(reconcile(auditDesiredA(), convergedA(), false, 2, AUDIT_TIMES[0]));
  for (const observed of auditObservationsB()) out.push(reconcile(auditDesiredB(), observed, false, 1, AUDIT_TIMES[0]));
  // spec U (LB10): from nothing, the listener missing, converged
  for (const at of AUDIT_TIMES) {
    out.push(reconcile(auditDesiredUdp(), { loadBalancer: ABSENT }, false, 1, at));
    out.push(reconcile(auditDesiredUdp(), convergedU({ listeners: { [DNS.listener]: ABSENT }, pools: { [DNS.pool]: ABSENT }, monitors: { [DNS.monitor]: ABSENT } }), false, 1, at));
  }
  out.push(reconcile(auditDesiredUdp(), convergedU(), false, 1, AUDIT_TIMES[0]));
  out.push(reconcile(auditDesiredInvalid(), { loadBalancer: ABSENT }, false, 1, AUDIT_TIMES[0]));
  out.push({ type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.listeners: Required value'] } as Stimulus);
  for (const { observed, timed } of auditDeletionObservations()) for (const at of times(timed)) out.push(reconcile(auditDesiredA(), observed, true, 1, at));
  for (const [effect, subject] of auditSubjects()) {
    out.push({ type: 'accepted', source: 'effect', effect, subject, ids: { [subject]: 'id-new' }, ...(effect === LB_EFFECTS.createFloatingIP ? { address: '203.0.113.7' } : {}) } as Stimulus);
    // LB9/LB15: Neutron's answer with an address that is none
    if (effect === LB_EFFECTS.createFloatingIP) out.push({ type: 'accepted', source: 'effect', effect, subject, ids: { [subject]: 'id-new' }, address: '' } as Stimulus);
    out.push({ type: 'conflict', source: 'effect', effect, subject } as Stimulus);
    out.push({ type: 'rejected', source: 'effect', effect, subject, status: 400, reason: 'badRequest' } as Stimulus);
    out.push({ type: 'rejected', source: 'effect', effect, subject, status: 404, reason: 'notFound' } as Stimulus);
    out.push({ type: 'outcomeUnknown', source: 'effect', effect, subject, reason: 'timeout' } as Stimulus);
  }
  return out;
};

/** Backoff beyond this many delete requests is the same (L8's cap), so the audit folds the count there. */
const ATTEMPTS_FOLD = 6;

export const loadBalancerAudit = (): MachineAudit => ({
  alphabet: loadBalancerAuditAlphabet,
  // Only what guards read: the per-pass records (observed facts, listener rows, waiting, problem, invalid
  // spec, answers, ids, name, decided generation) never change a decision.
  // A non-create mutation is read only for its answer's correlation and a refusal's generation; a create
  // also for its clock and whether it was accepted (pending and unknown decide alike, LB12).
  stateKey: (snapshot: AnyMachineSnapshot) => {
    if (snapshot.value === 'deleted') return '"deleted"';
    const c = snapshot.context as LoadBalancerContext;
    const m = c.mutation;
    const mutation = m && (isCreate(m.effect) ? [m.effect, m.subject, m.generation, m.decidedAt, m.answer === 'accepted', m.completes] : [m.effect, m.subject, m.generation]);
    const deletion = c.deletion && { ...c.deletion, attempts: Math.min(c.deletion.attempts, ATTEMPTS_FOLD) };
    return JSON.stringify([snapshot.value, mutation, c.armed, deletion, c.failure?.generation ?? null]);
  },
  intentOf,
  rank: (snapshot: AnyMachineSnapshot) => (snapshot.value === 'pruning' ? 1 : (INTENT_RANK[deletingSubstate(snapshot) ?? ''] ?? 0)),
  parked: (snapshot: AnyMachineSnapshot) => ['inconsistent', 'failed', 'invalid'].includes(String(snapshot.value)),
  evidenceOf: (before: AnyMachineSnapshot, stimulus: Stimulus) => {
    if (stimulus.type !== 'reconcile') return undefined;
    const e = stimulus as Reconcile;
    const c = before.context as LoadBalancerContext;
    const lb = e.observed?.loadBalancer;
    const found = lb?.kind === 'present' ? `${lb.id} in ${lb.provisioningStatus}` : (lb?.kind ?? 'nothing (not observed)');
    if (before.value === 'pruning') return `armed ${c.armed.map((a) => `${a.effect} ${a.subject}`).join(', ')}; this pass found the load balancer ${found}`;
    return e.deletionRequested ? `deletion requested; armed for ${c.deletion?.loadBalancerId ?? 'nothing'}; this pass found ${found}, floating IP ${e.observed?.floatingIP?.kind ?? 'not looked up'}` : undefined;
  },
});
