/**
 * The workload-cluster machine's audit hooks (machines/definition.ts MachineAudit): the stimulus alphabet `regent
 * check` explores — one cluster (kubeadm, an internal amphora load balancer, an anti-affinity server group), the same
 * spec on another subnet (a guard violation) and a refused one, against every observation a decision tells apart, at
 * clocks on both sides of the create grace and the delete backoff; deletion passes; every answer for every subject —
 * how to fold a snapshot into a finite key, and the write-ahead intent of the deletion.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { MachineAudit, Stimulus } from '../definition.js';
import type { WorkloadClusterContext } from './context.js';
import { WORKLOAD_CLUSTER_EFFECTS as E, type ClusterObservation, type DesiredCluster, type ObservedRule } from './observation.js';
import { clusterRules, groupName, ruleSubject, serverGroupName } from './rules.js';

export const AUDIT_UID = 'a';
export const AUDIT_NAME = `wc-${AUDIT_UID}`;
/** A start, 10 s later (inside the create grace and the first delete backoff), 60 s later (past both). */
export const AUDIT_TIMES = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:10Z', '2026-01-01T00:01:00Z'] as const;

export const auditDesired = (over: Partial<DesiredCluster> = {}): DesiredCluster => ({
  name: AUDIT_NAME,
  subnetId: 'subnet-1',
  apiServerPort: 6443,
  distribution: 'kubeadm',
  endpoint: { kind: 'loadBalancer', public: false, floatingIPPool: null, allowedCIDRs: [], provider: 'amphora' },
  tags: [{ key: 'captf.io/cluster', value: 'a' }],
  serverGroupPolicy: 'anti-affinity',
  ...over,
});

const SUBNET = { kind: 'present' as const, id: 'subnet-1', networkId: 'net-1', cidr: '10.0.0.0/24', ipVersion: 4 as const };
const IDS = { controlPlane: 'sg-cp', node: 'sg-node' };
const ABSENT = { kind: 'absent' as const };

/** The rules Neutron would show for the wanted ones (ids `r-0`…). */
export const observedRulesFor = (desired: DesiredCluster, role: 'controlPlane' | 'node'): ObservedRule[] =>
  clusterRules(desired, SUBNET, IDS)
    .filter((w) => w.group === role)
    .map((w, i) => ({
      id: `r-${role}-${i}`,
      direction: w.rule.direction,
      ethertype: w.rule.ethertype,
      protocol: w.rule.protocol,
      portMin: w.rule.port_range_min,
      portMax: w.rule.port_range_max,
      remoteIpPrefix: w.rule.remote_ip_prefix,
      remoteGroupId: w.rule.remote_group_id,
    }));

type Obs = ClusterObservation;
export const auditObservation = (over: Partial<Obs> = {}): Obs => ({
  subnet: SUBNET,
  securityGroups: { controlPlane: ABSENT, node: ABSENT },
  serverGroup: ABSENT,
  availabilityZones: ['az1'],
  loadBalancer: ABSENT,
  machines: 0,
  ...over,
});
const group = (role: 'controlPlane' | 'node', rules: boolean) => ({ kind: 'present' as const, id: IDS[role], tags: ['captf.io:cluster=a'], rules: rules ? observedRulesFor(auditDesired(), role) : [] });
const serverGroup = (policy = 'anti-affinity') => ({ kind: 'present' as const, id: 'sg-group', policy, members: [] });
/** Everything the cluster wants, observed. */
export const auditComplete = (over: Partial<Obs> = {}): Obs =>
  auditObservation({ securityGroups: { controlPlane: group('controlPlane', true), node: group('node', true) }, serverGroup: serverGroup(), ...over });

/** Live observations; `timed`: something is absent, so the clock matters (WC9's grace). */
export const auditLiveObservations = (): Array<{ observed: Obs; timed: boolean }> => [
  { observed: auditObservation({ subnet: ABSENT }), timed: false },
  { observed: auditObservation(), timed: true },
  { observed: auditObservation({ securityGroups: { controlPlane: ABSENT, node: group('node', false) } }), timed: true },
  { observed: auditObservation({ securityGroups: { controlPlane: group('controlPlane', false), node: group('node', false) } }), timed: true },
  { observed: auditComplete({ serverGroup: ABSENT }), timed: true },
  { observed: auditComplete(), timed: false },
  { observed: auditComplete({ loadBalancer: { kind: 'present', id: 'lb-1', provider: 'amphora', provisioningStatus: 'ACTIVE' } }), timed: false },
  { observed: auditComplete({ loadBalancer: { kind: 'present', id: 'lb-1', provider: 'ovn', provisioningStatus: 'ACTIVE' } }), timed: false },
  { observed: auditObservation({ securityGroups: { controlPlane: ABSENT, node: { kind: 'duplicate', ids: ['sg-1', 'sg-2'] } } }), timed: false },
  { observed: auditComplete({ serverGroup: serverGroup('soft-anti-affinity') }), timed: false },
];

/** Deletion observations; `timed`: a target is present, so the backoff matters (W4). */
export const auditDeletionObservations = (): Array<{ observed: Obs; timed: boolean }> => [
  { observed: auditComplete({ machines: 1 }), timed: false },
  { observed: auditComplete({ loadBalancer: { kind: 'present', id: 'lb-1', provider: 'amphora', provisioningStatus: 'ACTIVE' } }), timed: false },
  { observed: auditComplete(), timed: true },
  { observed: auditComplete({ serverGroup: ABSENT }), timed: true },
  { observed: auditObservation({ securityGroups: { controlPlane: ABSENT, node: group('node', true) } }), timed: true },
  { observed: auditObservation(), timed: false },
];

/** Every effect and subject the audit scenario decides. */
export const auditSubjects = (): Array<[string, string]> => {
  // one rule's answers: the others of the same decision stay unanswered (as after a crash), which WC9 settles alike
  // (every rule's answers multiply the graph tenfold and decide nothing new)
  const rule = clusterRules(auditDesired(), SUBNET, IDS).find((w) => w.group === 'controlPlane');
  return [
    [E.createSecurityGroup, groupName(AUDIT_NAME, 'node')],
    [E.createSecurityGroup, groupName(AUDIT_NAME, 'controlPlane')],
    ...(rule ? [[E.createSecurityGroupRule, ruleSubject(AUDIT_NAME, rule)] as [string, string]] : []),
    [E.createServerGroup, serverGroupName(AUDIT_NAME)],
    [E.deleteServerGroup, serverGroupName(AUDIT_NAME)],
    [E.deleteSecurityGroup, groupName(AUDIT_NAME, 'controlPlane')],
    [E.deleteSecurityGroup, groupName(AUDIT_NAME, 'node')],
  ];
};

export const workloadClusterAuditAlphabet = (): Stimulus[] => {
  const out: Stimulus[] = [];
  const reconcile = (desired: DesiredCluster, observed: Obs, deletionRequested: boolean, generation: number, at: string): Stimulus =>
    ({ type: 'reconcile', source: 'reconciler', generation, deletionRequested, at, desired, observed }) as Stimulus;
  const times = (timed: boolean): readonly string[] => (timed ? AUDIT_TIMES : [AUDIT_TIMES[0]]);
  for (const { observed, timed } of auditLiveObservations()) for (const at of times(timed)) out.push(reconcile(auditDesired(), observed, false, 1, at));
  // a newer generation: the designed retry after a refused create
  out.push(reconcile(auditDesired(), auditObservation(), false, 2, AUDIT_TIMES[0]));
  // WC4: the spec moved to another subnet (a violation once the guard is recorded)
  out.push(reconcile(auditDesired({ subnetId: 'subnet-2' }), auditComplete(), false, 1, AUDIT_TIMES[0]));
  // WC2: refused
  out.push(reconcile(auditDesired({ endpoint: { kind: 'loadBalancer', public: false, floatingIPPool: null, allowedCIDRs: ['192.0.2.0/24'], provider: 'ovn' } }), auditObservation(), false, 1, AUDIT_TIMES[0]));
  out.push({ type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.subnetId: Required value'] } as Stimulus);
  for (const { observed, timed } of auditDeletionObservations()) for (const at of times(timed)) out.push(reconcile(auditDesired(), observed, true, 1, at));
  for (const [effect, subject] of auditSubjects()) {
    out.push({ type: 'accepted', source: 'effect', effect, subject, ids: { id: 'id-new' } } as Stimulus);
    out.push({ type: 'conflict', source: 'effect', effect, subject } as Stimulus);
    out.push({ type: 'rejected', source: 'effect', effect, subject, status: 400, reason: 'badRequest' } as Stimulus);
    out.push({ type: 'outcomeUnknown', source: 'effect', effect, subject, reason: 'timeout' } as Stimulus);
  }
  return out;
};

/** W4's backoff is the same beyond this many requests in the alphabet's clocks. */
const ATTEMPTS_FOLD = 3;

/** Only what the plan reads: the guard, the creates standing, a failure's generation, the deletion (its ledger folded). */
export const workloadClusterStateKey = (snapshot: AnyMachineSnapshot): string => {
  if (snapshot.value === 'released') return '"released"';
  const c = snapshot.context as WorkloadClusterContext;
  if (snapshot.value === 'deleting') {
    const d = c.deletion;
    return JSON.stringify([snapshot.value, d && d.armed, d && Math.min(d.attempts, ATTEMPTS_FOLD), d && d.attempts > 0 ? d.lastAt : null, d?.conflicted ?? false]);
  }
  // an unanswered create and one whose outcome is unknown decide alike (WC9); only an open one's clock matters
  const pending = c.pending.map((p) => {
    const open = p.answer === 'pending' || p.answer === 'unknown';
    return [p.effect, p.subject, open ? 'open' : p.answer, open ? p.decidedAt : null, p.generation];
  });
  return JSON.stringify([snapshot.value, c.guard, pending, c.failure?.generation ?? null]);
};

const INTENT_RANK: Record<string, number> = { armed: 1, submitted: 2 };

export const workloadClusterAudit = (): MachineAudit => ({
  alphabet: workloadClusterAuditAlphabet,
  stateKey: workloadClusterStateKey,
  intentOf: (snapshot) => {
    const c = snapshot.context as WorkloadClusterContext;
    const armed = c.deletion?.armed ?? null;
    if (snapshot.value !== 'deleting' || armed === null) return null;
    return { target: `${armed.kind}:${armed.id}`, state: (c.deletion?.attempts ?? 0) > 0 ? 'submitted' : 'armed' };
  },
  rank: (snapshot) => {
    const c = snapshot.context as WorkloadClusterContext;
    if (snapshot.value !== 'deleting' || !c.deletion?.armed) return 0;
    return INTENT_RANK[c.deletion.attempts > 0 ? 'submitted' : 'armed'] ?? 0;
  },
  parked: (snapshot) => (snapshot.context as WorkloadClusterContext).failure !== null,
  evidenceOf: (before, stimulus) => {
    if (stimulus.type !== 'reconcile') return undefined;
    const e = stimulus as Stimulus & { deletionRequested?: boolean; observed?: ClusterObservation };
    if (!e.deletionRequested || !e.observed) return undefined;
    const c = before.context as WorkloadClusterContext;
    const armed = c.deletion?.armed;
    const o = e.observed;
    const seen = (l: { kind: string; id?: string }) => (l.kind === 'present' ? `present (${l.id ?? ''})` : l.kind);
    return `deletion requested; armed for ${armed ? `${armed.name} (${armed.id})` : 'nothing'}; this pass found ${o.machines} machine(s), load balancer ${o.loadBalancer.kind}, server group ${seen(o.serverGroup)}, control-plane group ${seen(o.securityGroups.controlPlane)}, node group ${seen(o.securityGroups.node)}`;
  },
});
