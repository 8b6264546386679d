/**
 * The workload-cluster machine (machines/workload-cluster.ts; issue 29), rule by rule (WC1–WC12) and model-based:
 * xstate/graph enumerates every state reachable under the audit alphabet, and every edge is judged against an oracle
 * written from the brief's sentences (openstack-cluster-modules.md, the cluster role), never from the plan.
 */
import { expect } from 'chai';
import type { AnyMachineSnapshot } from 'xstate';
import { adjacencyMapToArray, getAdjacencyMap } from 'xstate/graph';
import {
  clusterRules,
  CREATE_GRACE_MS,
  WORKLOAD_CLUSTER_EFFECTS as E,
  workloadClusterDefinition as def,
  workloadClusterStream,
  type WorkloadClusterContext,
} from '../../machines/workload-cluster.js';
import { auditComplete, auditDesired, auditObservation, observedRulesFor } from '../../machines/workload-cluster/audit.js';
import type { ClusterObservation, DesiredCluster, WorkloadClusterStimulus } from '../../machines/workload-cluster/observation.js';
import { ruleMatches, ruleSubject } from '../../machines/workload-cluster/rules.js';
import { createProductRegistry, productMachines } from '../../machines/index.js';
import { checkMachine } from '../../src/audit/checks/rules.js';
import { statechartOfDefinition } from '../../src/audit/graph/statechart.js';
import { initialSnapshot, step } from '../../src/engine/fold.js';

const UID = '00000000-0000-4000-8000-000000000029';
const STREAM = workloadClusterStream(UID);
type S = WorkloadClusterStimulus;
const ctx = (s: AnyMachineSnapshot) => s.context as WorkloadClusterContext;
const T0 = '2026-01-01T00:00:00Z';
const T10 = '2026-01-01T00:00:10Z';
const T60 = '2026-01-01T00:01:00Z';
const NAME = 'wc-a';

const pass = (o: { desired?: DesiredCluster; observed?: ClusterObservation; generation?: number; at?: string; deletion?: boolean } = {}): S => ({
  type: 'reconcile',
  source: 'reconciler',
  generation: o.generation ?? 1,
  deletionRequested: o.deletion ?? false,
  at: o.at ?? T0,
  desired: o.desired ?? auditDesired(),
  observed: o.observed ?? auditObservation(),
});
const answer = (type: 'accepted' | 'conflict' | 'rejected' | 'outcomeUnknown', effect: string, subject: string): S =>
  type === 'rejected'
    ? { type, source: 'effect', effect, subject, status: 400, reason: 'badRequest' }
    : type === 'outcomeUnknown'
      ? { type, source: 'effect', effect, subject, reason: 'timeout' }
      : ({ type, source: 'effect', effect, subject } as S);
const after = (...stimuli: S[]): AnyMachineSnapshot => stimuli.reduce((s, x) => step(def, s, x).snapshot, initialSnapshot(def, STREAM));

const ABSENT = { kind: 'absent' as const };
const SUBNET = { kind: 'present' as const, id: 'subnet-1', networkId: 'net-1', cidr: '10.0.0.0/24', ipVersion: 4 as const };
const group = (role: 'controlPlane' | 'node', rules = true, desired = auditDesired()) => ({
  kind: 'present' as const,
  id: role === 'node' ? 'sg-node' : 'sg-cp',
  tags: [],
  rules: rules ? observedRulesFor(desired, role) : [],
});
const onlyNode = auditObservation({ securityGroups: { controlPlane: ABSENT, node: group('node', false) } });
const bothBare = auditObservation({ securityGroups: { controlPlane: group('controlPlane', false), node: group('node', false) } });
const noServerGroup = auditComplete({ serverGroup: ABSENT });
const LB = (provider = 'amphora') => ({ kind: 'present' as const, id: 'lb-1', provider, provisioningStatus: 'ACTIVE' });
const TAGS = ['captf.io:cluster=a'];

describe('workloadCluster machine: the rules', () => {
  it('is registered: the product registry owns workload-cluster-<uid> streams, both deletes are destructive, and regent check passes every check, none skipped', function () {
    this.timeout(60_000);
    expect(productMachines).to.include(def);
    expect(createProductRegistry().forStream(STREAM).id).to.equal('workloadCluster');
    expect(def.effects).to.have.members(Object.values(E));
    expect(def.destructiveEffects).to.have.members([E.deleteSecurityGroup, E.deleteServerGroup]);
    expect(ctx(initialSnapshot(def, STREAM)).uid).to.equal(UID);
    const report = checkMachine(def);
    expect(report.truncated).to.equal(false);
    expect(report.results.map((r) => [r.id, r.status])).to.deep.equal([
      ['destructive-needs-arm', 'pass'],
      ['destructive-by-reconciler', 'pass'],
      ['monitor-never-authorises', 'pass'],
      ['every-state-reachable', 'pass'],
      ['no-rank-retreat', 'pass'],
    ]);
  });

  describe('WC1 who decides', () => {
    it('WC1 a reconcile from another source, or an answer from the reconciler, changes nothing; the codec refuses both', () => {
      expect(def.stimulus.is({ ...pass(), source: 'monitor' })).to.equal(false);
      expect(def.stimulus.is({ ...answer('accepted', E.createSecurityGroup, `${NAME}-node`), source: 'reconciler' })).to.equal(false);
      expect(def.stimulus.is(pass())).to.equal(true);
      for (const source of ['monitor', 'api', 'effect']) {
        const r = step(def, after(), { ...pass(), source } as unknown as S);
        expect(r.changed || r.effects.length > 0, source).to.equal(false);
      }
      const decided = after(pass());
      const r = step(def, decided, { ...answer('rejected', E.createSecurityGroup, `${NAME}-node`), source: 'reconciler' } as unknown as S);
      expect(r.changed).to.equal(false);
    });

    it('WC1 an answer records and declares nothing; one naming no create standing changes nothing', () => {
      const decided = after(pass());
      const r = step(def, decided, answer('accepted', E.createSecurityGroup, `${NAME}-node`));
      expect(r.effects).to.deep.equal([]);
      expect(r.outcome).to.equal('createAccepted');
      expect(ctx(r.snapshot).lastAnswer).to.deep.equal({ effect: E.createSecurityGroup, subject: `${NAME}-node`, answer: 'accepted' });
      expect(step(def, decided, answer('accepted', E.createSecurityGroup, `${NAME}-control-plane`)).changed).to.equal(false);
      expect(step(def, after(), answer('rejected', E.createServerGroup, `${NAME}-control-plane`)).changed).to.equal(false);
    });
  });

  describe('WC2, WC3 preconditions', () => {
    const lb = (o: Record<string, unknown>) => auditDesired({ endpoint: { kind: 'loadBalancer', public: false, floatingIPPool: null, allowedCIDRs: [], provider: 'amphora', ...o } as DesiredCluster['endpoint'] });
    const cases: Array<[string, DesiredCluster, RegExp]> = [
      ['(a) ovn with allowedCIDRs', lb({ provider: 'ovn', allowedCIDRs: ['192.0.2.0/24'] }), /the ovn provider rejects api_allowed_cidrs/],
      ['(b) public without allowedCIDRs', lb({ public: true, floatingIPPool: 'ext' }), /public load balancer needs allowedCIDRs/],
      ['(c) public without floatingIPPool', lb({ public: true, allowedCIDRs: ['192.0.2.0/24'] }), /public load balancer needs floatingIPPool/],
      ['(d) a tag over 255 characters', auditDesired({ tags: [{ key: 'captf.io/long', value: 'x'.repeat(250) }] }), /more than 255/],
    ];
    for (const [name, desired, message] of cases) {
      it(`WC2 ${name} is refused before anything is created, on every pass; fixed on a new generation, the machine proceeds`, () => {
        const r = step(def, after(), pass({ desired }));
        expect(r.outcome).to.equal('preconditionRefused');
        expect(r.effects).to.deep.equal([]);
        expect(ctx(r.snapshot).problems.join('\n')).to.match(message);
        expect(ctx(r.snapshot).guard, 'no guard recorded').to.equal(null);
        // refused on a later pass too, even once the parts exist
        const later = step(def, after(pass({ observed: auditComplete() })), pass({ desired, observed: auditComplete() }));
        expect(later.outcome).to.equal('preconditionRefused');
        expect(ctx(later.snapshot).partsReady).to.equal(false);
        const fixed = step(def, r.snapshot, pass({ generation: 2 }));
        expect(fixed.outcome).to.equal('securityGroupCreateDecided');
        expect(ctx(fixed.snapshot).problems).to.deep.equal([]);
      });
    }

    it('WC2 the ovn provider without allowedCIDRs, a public endpoint with both, and a supplied endpoint are not refused', () => {
      for (const desired of [lb({ provider: 'ovn' }), lb({ public: true, floatingIPPool: 'ext', allowedCIDRs: ['192.0.2.0/24'] }), auditDesired({ endpoint: { kind: 'supplied', host: 'api.example', port: 6443 } })])
        expect(step(def, after(), pass({ desired })).outcome).to.equal('securityGroupCreateDecided');
    });

    it('WC2 a spec the reconciler could not decode is recorded in problems, nothing decided', () => {
      const r = step(def, after(), { type: 'specRejected', source: 'reconciler', generation: 3, problems: ['spec.subnetId: Required value'] });
      expect(r.outcome).to.equal('specRejected');
      expect(r.effects).to.deep.equal([]);
      expect(ctx(r.snapshot)).to.deep.include({ problems: ['spec: spec.subnetId: Required value'], decidedGeneration: 3 });
    });

    it('WC3 the subnet absent waits (not refused), naming it; nothing is created; it appearing lets the machine proceed', () => {
      const r = step(def, after(), pass({ observed: auditObservation({ subnet: ABSENT }) }));
      expect(r.outcome).to.equal('waitingForSubnet');
      expect(r.effects).to.deep.equal([]);
      expect(ctx(r.snapshot)).to.deep.include({ problems: [], waiting: { reason: 'WaitingForSubnet', subjects: ['subnet-1'] }, guard: null });
      expect(step(def, r.snapshot, pass()).outcome).to.equal('securityGroupCreateDecided');
    });
  });

  describe('WC4 the endpoint guard', () => {
    it('WC4 the first create records the guard (provider null); the first load balancer observed sets the provider, once', () => {
      const first = after(pass());
      expect(ctx(first).guard).to.deep.equal({ subnetId: 'subnet-1', public: false, floatingIPPool: null, apiServerPort: 6443, provider: null });
      const seen = after(pass(), pass({ observed: auditComplete({ loadBalancer: LB('amphora') }) }));
      expect(ctx(seen).guard?.provider).to.equal('amphora');
      const supplied = after(pass({ desired: auditDesired({ endpoint: { kind: 'supplied', host: 'api.example', port: 6443 } }) }));
      expect(ctx(supplied).guard).to.deep.equal({ subnetId: 'subnet-1', public: false, floatingIPPool: null, apiServerPort: 6443, provider: null });
      const publicOne = auditDesired({ endpoint: { kind: 'loadBalancer', public: true, floatingIPPool: 'ext', allowedCIDRs: ['192.0.2.0/24'], provider: 'amphora' } });
      expect(ctx(after(pass({ desired: publicOne }))).guard).to.deep.include({ public: true, floatingIPPool: 'ext' });
    });

    const changes: Array<[string, DesiredCluster, Record<string, unknown>]> = [
      ['subnetId', auditDesired({ subnetId: 'subnet-2' }), { field: 'subnetId', recorded: 'subnet-1', requested: 'subnet-2' }],
      ['apiServerPort', auditDesired({ apiServerPort: 443 }), { field: 'apiServerPort', recorded: 6443, requested: 443 }],
      ['public', auditDesired({ endpoint: { kind: 'loadBalancer', public: true, floatingIPPool: 'ext', allowedCIDRs: ['192.0.2.0/24'], provider: 'amphora' } }), { field: 'public', recorded: false, requested: true }],
    ];
    for (const [field, desired, violation] of changes) {
      it(`WC4 a later spec changing ${field} is a violation: nothing is created, the recorded guard stays, and it clears when the spec goes back`, () => {
        const recorded = after(pass());
        const r = step(def, recorded, pass({ desired, observed: onlyNode, generation: 2 }));
        expect(r.outcome).to.equal('guardViolated');
        expect(r.effects, 'the control-plane group is not created either').to.deep.equal([]);
        expect(ctx(r.snapshot).guardViolation).to.deep.include(violation);
        expect(ctx(r.snapshot).guard).to.deep.equal(ctx(recorded).guard);
        expect(ctx(r.snapshot).securityGroupIds.node, 'the observation is still recorded').to.equal('sg-node');
        const back = step(def, r.snapshot, pass({ observed: onlyNode, generation: 3 }));
        expect(back.outcome).to.equal('securityGroupCreateDecided');
        expect(ctx(back.snapshot).guardViolation).to.deep.equal([]);
      });
    }

    it('WC4 a load balancer observed with another provider than recorded is a violation', () => {
      const s = after(pass({ observed: auditComplete({ loadBalancer: LB('amphora') }) }));
      const r = step(def, s, pass({ observed: { ...noServerGroup, loadBalancer: LB('ovn') } }));
      expect(r.outcome).to.equal('guardViolated');
      expect(r.effects).to.deep.equal([]);
      expect(ctx(r.snapshot).guardViolation).to.deep.equal([{ field: 'provider', recorded: 'amphora', requested: 'ovn' }]);
    });

    it('WC4 a later spec naming another provider than the one recorded is a violation (never applied)', () => {
      const s = after(pass({ observed: auditComplete({ loadBalancer: LB('amphora') }) }));
      const ovn = auditDesired({ endpoint: { kind: 'loadBalancer', public: false, floatingIPPool: null, allowedCIDRs: [], provider: 'ovn' } });
      const r = step(def, s, pass({ desired: ovn, observed: auditComplete({ loadBalancer: LB('amphora') }) }));
      expect(r.outcome).to.equal('guardViolated');
      expect(r.effects).to.deep.equal([]);
      expect(ctx(r.snapshot).guardViolation).to.deep.equal([{ field: 'provider', recorded: 'amphora', requested: 'ovn' }]);
      // the cloud's default names no provider: nothing to compare
      const cloudDefault = auditDesired({ endpoint: { kind: 'loadBalancer', public: false, floatingIPPool: null, allowedCIDRs: [], provider: null } });
      expect(ctx(step(def, s, pass({ desired: cloudDefault, observed: auditComplete({ loadBalancer: LB('amphora') }) })).snapshot).guardViolation).to.deep.equal([]);
    });

    it('WC4 a deletion is never blocked by a guard violation', () => {
      const s = after(pass(), pass({ desired: auditDesired({ subnetId: 'subnet-2' }), observed: onlyNode }));
      expect(ctx(s).guardViolation).to.have.length(1);
      const r = step(def, s, pass({ desired: auditDesired({ subnetId: 'subnet-2' }), observed: onlyNode, deletion: true }));
      expect(r.outcome).to.equal('deleteArmed');
      expect(r.snapshot.value).to.equal('deleting');
    });
  });

  describe('WC5, WC6 security groups and rules', () => {
    it('WC5 the node group first, then the control-plane group, one per decision, with the rendered tags', () => {
      const first = step(def, after(), pass());
      expect(first.effects).to.deep.equal([{ type: E.createSecurityGroup, subject: `${NAME}-node`, name: `${NAME}-node`, description: `Regent workload cluster ${NAME}: every node`, tags: TAGS }]);
      const second = step(def, first.snapshot, pass({ observed: onlyNode }));
      expect(second.effects).to.deep.equal([
        { type: E.createSecurityGroup, subject: `${NAME}-control-plane`, name: `${NAME}-control-plane`, description: `Regent workload cluster ${NAME}: control-plane nodes`, tags: TAGS },
      ]);
    });

    it('WC6 the rules: node-to-node from the node group; the API port from the subnet (hairpin) and from the node group; rke2 adds 9345; the ethertype is the subnet\'s', () => {
      const ids = { controlPlane: 'cp', node: 'nd' };
      const row = (w: ReturnType<typeof clusterRules>[number]) => [w.group, w.rule.security_group_id, w.rule.ethertype, w.rule.protocol, w.rule.port_range_min, w.rule.port_range_max, w.rule.remote_ip_prefix, w.rule.remote_group_id];
      expect(clusterRules(auditDesired(), { cidr: '10.0.0.0/24', ipVersion: 4 }, ids).map(row)).to.deep.equal([
        ['node', 'nd', 'IPv4', null, null, null, null, 'nd'],
        ['controlPlane', 'cp', 'IPv4', 'tcp', 6443, 6443, '10.0.0.0/24', null],
        ['controlPlane', 'cp', 'IPv4', 'tcp', 6443, 6443, null, 'nd'],
      ]);
      expect(clusterRules(auditDesired({ distribution: 'rke2', apiServerPort: 443 }), { cidr: '2001:db8::/64', ipVersion: 6 }, ids).map(row)).to.deep.equal([
        ['node', 'nd', 'IPv6', null, null, null, null, 'nd'],
        ['controlPlane', 'cp', 'IPv6', 'tcp', 443, 443, '2001:db8::/64', null],
        ['controlPlane', 'cp', 'IPv6', 'tcp', 443, 443, null, 'nd'],
        ['controlPlane', 'cp', 'IPv6', 'tcp', 9345, 9345, '2001:db8::/64', null],
        ['controlPlane', 'cp', 'IPv6', 'tcp', 9345, 9345, null, 'nd'],
      ]);
      for (const w of clusterRules(auditDesired(), { cidr: '10.0.0.0/24', ipVersion: 4 }, ids)) expect(w.rule.direction).to.equal('ingress');
    });

    it('WC6 a rule matches on every field; Neutron\'s null protocol is any', () => {
      const [w] = clusterRules(auditDesired(), { cidr: '10.0.0.0/24', ipVersion: 4 }, { controlPlane: 'sg-cp', node: 'sg-node' });
      const o = observedRulesFor(auditDesired(), 'node')[0];
      if (!w || !o) throw new Error('no rule');
      expect(ruleMatches(w.rule, o)).to.equal(true);
      expect(ruleMatches(w.rule, { ...o, protocol: 'tcp' })).to.equal(false);
      expect(ruleMatches(w.rule, { ...o, ethertype: 'IPv6' })).to.equal(false);
      expect(ruleMatches(w.rule, { ...o, remoteGroupId: 'other' })).to.equal(false);
      expect(ruleMatches(w.rule, { ...o, remoteIpPrefix: '0.0.0.0/0' })).to.equal(false);
      expect(ruleMatches(w.rule, { ...o, direction: 'egress' })).to.equal(false);
      expect(ruleMatches(w.rule, { ...o, portMin: 1 })).to.equal(false);
    });

    it('WC6 once both groups exist, every missing rule is created in ONE decision; a present one is not', () => {
      const r = step(def, after(pass()), pass({ observed: bothBare }));
      expect(r.outcome).to.equal('rulesCreateDecided');
      expect(r.effects.map((e) => e.type)).to.deep.equal([E.createSecurityGroupRule, E.createSecurityGroupRule, E.createSecurityGroupRule]);
      expect(r.effects[1]).to.deep.include({ subject: `${NAME}-control-plane ingress IPv4 tcp port 6443 from 10.0.0.0/24` });
      const partial = auditObservation({ securityGroups: { controlPlane: group('controlPlane', false), node: group('node', true) } });
      const p = step(def, after(pass()), pass({ observed: partial }));
      expect(p.effects.map((e) => (e as unknown as { rule: { security_group_id: string } }).rule.security_group_id)).to.deep.equal(['sg-cp', 'sg-cp']);
    });

    it('WC6 a conflict answer means the rule exists: it is not sent again and counts as present', () => {
      const subjects = clusterRules(auditDesired(), SUBNET, { controlPlane: 'sg-cp', node: 'sg-node' }).map((w) => ruleSubject(NAME, w));
      let s = after(pass({ observed: bothBare }));
      for (const subject of subjects) s = step(def, s, answer('conflict', E.createSecurityGroupRule, subject)).snapshot;
      const r = step(def, s, pass({ observed: bothBare, at: T60 }));
      expect(r.effects.filter((e) => e.type === E.createSecurityGroupRule)).to.deep.equal([]);
      expect(r.outcome).to.equal('serverGroupCreateDecided');
    });

    it('WC6 an extra ingress rule is recorded as drift, never deleted; Neutron\'s default egress rules are not drift', () => {
      const extra = { id: 'r-extra', direction: 'ingress', ethertype: 'IPv4', protocol: 'tcp', portMin: 22, portMax: 22, remoteIpPrefix: '0.0.0.0/0', remoteGroupId: null };
      const egress = { id: 'r-egress', direction: 'egress', ethertype: 'IPv4', protocol: null, portMin: null, portMax: null, remoteIpPrefix: null, remoteGroupId: null };
      const cp = { ...group('controlPlane'), rules: [...group('controlPlane').rules, extra, egress] };
      const r = step(def, after(), pass({ observed: auditComplete({ securityGroups: { controlPlane: cp, node: group('node') } }) }));
      expect(r.effects).to.deep.equal([]);
      expect(ctx(r.snapshot).drift).to.deep.equal([{ group: 'controlPlane', ruleId: 'r-extra' }]);
      expect(ctx(r.snapshot).partsReady).to.equal(true);
    });
  });

  describe('WC7, WC8 consistency and the server group', () => {
    it('WC7 two groups of one name are a consistency problem: named, nothing created', () => {
      const r = step(def, after(), pass({ observed: auditObservation({ securityGroups: { controlPlane: ABSENT, node: { kind: 'duplicate', ids: ['a', 'b'] } } }) }));
      expect(r.outcome).to.equal('inconsistent');
      expect(r.effects).to.deep.equal([]);
      expect(ctx(r.snapshot).inconsistencies.join()).to.match(/wc-a-node: 2 groups of this name \(a, b\)/);
    });

    it('WC8 the server group after the groups and their rules, with the spec\'s policy', () => {
      expect(step(def, after(), pass({ observed: bothBare })).effects.some((e) => e.type === E.createServerGroup)).to.equal(false);
      const r = step(def, after(), pass({ observed: noServerGroup }));
      expect(r.effects).to.deep.equal([{ type: E.createServerGroup, subject: `${NAME}-control-plane`, name: `${NAME}-control-plane`, policy: 'anti-affinity' }]);
    });

    it('WC8 a server group of another policy is a consistency problem, never changed', () => {
      const r = step(def, after(), pass({ observed: auditComplete({ serverGroup: { kind: 'present', id: 'g', policy: 'soft-anti-affinity', members: [] } }) }));
      expect(r.outcome).to.equal('inconsistent');
      expect(r.effects).to.deep.equal([]);
      expect(ctx(r.snapshot).inconsistencies.join()).to.match(/policy soft-anti-affinity, the spec asks for anti-affinity/);
      expect(ctx(r.snapshot).partsReady).to.equal(false);
    });

    it('WC8 no policy: no server group is created and its id is null, even when one is observed', () => {
      const desired = auditDesired({ serverGroupPolicy: null });
      const r = step(def, after(), pass({ desired, observed: noServerGroup }));
      expect(r.outcome).to.equal('partsReady');
      expect(r.effects).to.deep.equal([]);
      expect(ctx(step(def, after(), pass({ desired, observed: auditComplete() })).snapshot).serverGroupId).to.equal(null);
    });
  });

  describe('WC9 answers', () => {
    it('WC9 a rejected create parks every create until a newer generation', () => {
      const s = after(pass(), answer('rejected', E.createSecurityGroup, `${NAME}-node`));
      expect(ctx(s).failure).to.deep.equal({ effect: E.createSecurityGroup, subject: `${NAME}-node`, status: 400, reason: 'badRequest', generation: 1 });
      const held = step(def, s, pass({ at: T60 }));
      expect(held.outcome).to.equal('failureHeld');
      expect(held.effects).to.deep.equal([]);
      const retried = step(def, s, pass({ generation: 2 }));
      expect(retried.outcome).to.equal('securityGroupCreateDecided');
      expect(ctx(retried.snapshot).failure).to.equal(null);
    });

    it(`WC9 an outcomeUnknown create absent on the next pass waits (CreateMayStillLand) until ${CREATE_GRACE_MS / 1000} s after its decision, on the passes' clocks`, () => {
      const s = after(pass(), answer('outcomeUnknown', E.createSecurityGroup, `${NAME}-node`));
      const wait = step(def, s, pass({ at: T10 }));
      expect(wait.outcome).to.equal('createMayStillLand');
      expect(wait.effects).to.deep.equal([]);
      expect(ctx(wait.snapshot).waiting).to.deep.equal({ reason: 'CreateMayStillLand', subjects: [`${NAME}-node`] });
      expect(step(def, wait.snapshot, pass({ at: '2026-01-01T00:00:29Z' })).effects).to.deep.equal([]);
      expect(step(def, wait.snapshot, pass({ at: '2026-01-01T00:00:30Z' })).outcome).to.equal('securityGroupCreateDecided');
      expect(step(def, wait.snapshot, pass({ at: 'not a time' })).effects, 'an unparseable clock never elapses').to.deep.equal([]);
      // found by name: adopted
      const adopted = step(def, s, pass({ observed: onlyNode, at: T10 }));
      expect(adopted.outcome).to.equal('securityGroupCreateDecided');
      expect(adopted.effects[0]).to.deep.include({ subject: `${NAME}-control-plane` });
      expect(ctx(adopted.snapshot).pending.map((p) => p.subject)).to.deep.equal([`${NAME}-control-plane`]);
    });

    it('WC9 an unanswered create (a crash before the answer) is settled alike; an accepted one not observed is created again at once', () => {
      expect(step(def, after(pass()), pass({ at: T10 })).outcome).to.equal('createMayStillLand');
      const accepted = after(pass(), answer('accepted', E.createSecurityGroup, `${NAME}-node`));
      expect(step(def, accepted, pass({ at: T10 })).outcome).to.equal('securityGroupCreateDecided');
    });
  });

  describe('WC10 deletion', () => {
    const del = (observed: ClusterObservation, at = T0) => pass({ observed, at, deletion: true });
    it('WC10 waits for the machines, then the load balancer; then server group, control-plane group, node group, each armed by one pass and deleted by a later one; then released', () => {
      let s = after(pass({ observed: auditComplete() }));
      const seq: Array<[ClusterObservation, string, unknown[]]> = [
        [auditComplete({ machines: 2 }), 'waitingForMachines', []],
        [auditComplete({ loadBalancer: LB() }), 'waitingForLoadBalancer', []],
        [auditComplete(), 'deleteArmed', []],
        [auditComplete(), 'deleteSubmitted', [{ type: E.deleteServerGroup, subject: `${NAME}-control-plane`, id: 'sg-group' }]],
        [noServerGroup, 'deleteArmed', []],
        [noServerGroup, 'deleteSubmitted', [{ type: E.deleteSecurityGroup, subject: `${NAME}-control-plane`, id: 'sg-cp' }]],
        [auditObservation({ securityGroups: { controlPlane: ABSENT, node: group('node') } }), 'deleteArmed', []],
        [auditObservation({ securityGroups: { controlPlane: ABSENT, node: group('node') } }), 'deleteSubmitted', [{ type: E.deleteSecurityGroup, subject: `${NAME}-node`, id: 'sg-node' }]],
        [auditObservation(), 'released', []],
      ];
      for (const [observed, outcome, effects] of seq) {
        const r = step(def, s, del(observed));
        expect([r.outcome, r.effects], outcome).to.deep.equal([outcome, effects]);
        s = r.snapshot;
      }
      expect(s.value).to.equal('released');
      expect(ctx(s)).to.deep.include({ released: true, serverGroupId: null });
      expect(ctx(s).deletion?.deleted).to.deep.equal([`${NAME}-control-plane`, `${NAME}-control-plane`, `${NAME}-node`]);
      expect(ctx(step(def, s, del(auditComplete())).snapshot), 'final').to.deep.equal(ctx(s));
      expect(ctx(after(pass(), del(auditComplete({ machines: 1 })))).waiting).to.deep.equal({ reason: 'WaitingForMachines', subjects: ['1 WorkloadMachine(s) of the cluster'] });
      expect(ctx(after(pass(), del(auditComplete({ loadBalancer: LB() })))).waiting).to.deep.equal({ reason: 'WaitingForLoadBalancer', subjects: ['lb-1'] });
    });

    it('WC10 a 409 (in use) is sent again by the next pass that still sees it; a delete not known to have landed only after the backoff', () => {
      const submitted = after(del(noServerGroup), del(noServerGroup));
      const conflicted = step(def, submitted, answer('conflict', E.deleteSecurityGroup, `${NAME}-control-plane`)).snapshot;
      expect(step(def, conflicted, del(noServerGroup)).outcome).to.equal('deleteResubmitted');
      const unknown = step(def, submitted, answer('outcomeUnknown', E.deleteSecurityGroup, `${NAME}-control-plane`)).snapshot;
      expect(step(def, unknown, del(noServerGroup, T10)).effects).to.deep.equal([]);
      expect(step(def, unknown, del(noServerGroup, T60)).effects).to.have.length(1);
      const refused = step(def, submitted, answer('rejected', E.deleteSecurityGroup, `${NAME}-control-plane`)).snapshot;
      expect(ctx(refused).deletion?.refusal).to.deep.equal({ status: 400, reason: 'badRequest' });
    });

    it('WC10 nothing is created during a deletion, and a pass without deletionRequested changes nothing', () => {
      const s = after(pass(), del(auditObservation({ securityGroups: { controlPlane: ABSENT, node: group('node') } })));
      expect(s.value).to.equal('deleting');
      expect(step(def, s, pass({ observed: auditObservation() })).changed).to.equal(false);
      expect(step(def, after(pass()), del(auditObservation())).snapshot.value, 'nothing there: released at once').to.equal('released');
    });
  });

  describe('WC11, WC12 what the controller reads; polling', () => {
    it('WC11 ready: the ids, the subnet, the zones, the recorded guard and partsReady', () => {
      const r = step(def, after(pass()), pass({ observed: auditComplete({ availabilityZones: ['az1', 'az2'] }) }));
      expect(r.outcome).to.equal('partsReady');
      expect(ctx(r.snapshot)).to.deep.include({
        partsReady: true,
        securityGroupIds: { controlPlane: 'sg-cp', node: 'sg-node' },
        serverGroupId: 'sg-group',
        subnet: { id: 'subnet-1', networkId: 'net-1', cidr: '10.0.0.0/24', ipVersion: 4 },
        availabilityZones: ['az1', 'az2'],
        decidedGeneration: 1,
        problems: [],
        guardViolation: [],
        waiting: null,
      });
      expect(ctx(step(def, after(), pass({ observed: bothBare })).snapshot).partsReady, 'rules missing').to.equal(false);
      expect(ctx(step(def, after(), pass({ observed: noServerGroup })).snapshot).partsReady, 'server group missing').to.equal(false);
      expect(ctx(step(def, after(), pass({ desired: auditDesired({ serverGroupPolicy: null }), observed: noServerGroup })).snapshot).partsReady, 'none wanted').to.equal(true);
    });

    it('WC11 a guard violation does not withdraw partsReady (the load balancer is built from the record)', () => {
      const s = after(pass({ observed: auditComplete() }), pass({ desired: auditDesired({ apiServerPort: 443 }), observed: auditComplete() }));
      expect(ctx(s).guardViolation).to.have.length(1);
      expect(ctx(s).partsReady).to.equal(true);
    });

    it('WC12 the same pass again stores and declares nothing', () => {
      for (const observed of [auditObservation(), onlyNode, bothBare, noServerGroup, auditComplete()]) {
        let s = after();
        for (let i = 0; i < 3; i++) s = step(def, s, pass({ observed })).snapshot;
        const r = step(def, s, pass({ observed }));
        expect(r.changed || r.effects.length > 0).to.equal(false);
      }
    });

    it('WC12 the same observation on a later clock stores nothing while nothing is due (inside the create grace, inside the delete backoff)', () => {
      const waiting = after(pass(), answer('outcomeUnknown', E.createSecurityGroup, `${NAME}-node`), pass({ at: T10 }));
      const r = step(def, waiting, pass({ at: '2026-01-01T00:00:20Z' }));
      expect(r.changed || r.effects.length > 0).to.equal(false);
      const del = (at: string) => pass({ observed: noServerGroup, at, deletion: true });
      const submitted = after(del(T0), del(T0), del(T0));
      const d = step(def, submitted, del(T10));
      expect(d.changed || d.effects.length > 0).to.equal(false);
    });
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Model-based: every reachable state under the audit alphabet, every edge judged against the oracle.

type Effect = { type: string; [k: string]: unknown };
type Edge = { before: AnyMachineSnapshot; event: S; next: AnyMachineSnapshot; effects: Effect[]; outcome: string | undefined; changed: boolean };

const explore = (): Edge[] => {
  const stateKey = def.audit?.stateKey ?? ((s: AnyMachineSnapshot) => JSON.stringify([s.value, s.context]));
  const map = getAdjacencyMap(def.machine, {
    input: { uid: UID },
    events: (def.audit?.alphabet() ?? []) as never,
    serializeState: (s) => stateKey(s as AnyMachineSnapshot),
    serializeEvent: (e) => JSON.stringify(e),
  });
  return (adjacencyMapToArray(map) as unknown as Array<{ state: AnyMachineSnapshot; event: S }>).map(({ state, event }) => {
    const r = step(def, state, event);
    return { before: state, event, next: r.snapshot, effects: r.effects as Effect[], outcome: r.outcome, changed: r.changed };
  });
};

type Pass = Extract<S, { type: 'reconcile' }>;
/** The brief's preconditions, restated. */
const refused = (d: DesiredCluster) =>
  (d.endpoint.kind === 'loadBalancer' && ((d.endpoint.provider === 'ovn' && d.endpoint.allowedCIDRs.length > 0) || (d.endpoint.public && (d.endpoint.allowedCIDRs.length === 0 || !d.endpoint.floatingIPPool)))) ||
  d.tags.some((t) => `${t.key.split('/').join(':')}=${t.value}`.length > 255);
const present = (l: { kind: string }) => l.kind === 'present';
const idIn = (l: { kind: string; id?: string; ids?: string[] }) => (l.kind === 'present' ? [l.id] : l.kind === 'duplicate' ? (l.ids ?? []) : []);

describe('workloadCluster machine: model-based, every reachable state', function () {
  this.timeout(120_000);
  let edges: Edge[];
  before(() => {
    edges = explore();
  });

  it('explores live, deleting and released, every decision and every answer', () => {
    expect(new Set(edges.map((e) => String(e.next.value)))).to.deep.equal(new Set(['live', 'deleting', 'released']));
    const declared = new Set(statechartOfDefinition(def).edges.filter((e) => e.outcome).map((e) => `${e.event}/${e.outcome}`));
    const taken = new Set(edges.filter((e) => e.outcome).map((e) => `${e.event.type}/${e.outcome}`));
    expect([...declared].filter((x) => !taken.has(x)), 'never taken').to.deep.equal([]);
    expect(declared.size).to.be.greaterThan(25);
  });

  it('WC1 only a reconciler pass declares an effect; the same stimuli from another source change nothing', () => {
    for (const { before, event, effects } of edges) {
      if (effects.length > 0) expect(event.type, JSON.stringify(event)).to.equal('reconcile');
      const others = event.source === 'reconciler' ? (['monitor', 'api'] as const) : (['reconciler', 'monitor'] as const);
      for (const source of others) {
        const r = step(def, before, { ...event, source } as unknown as S);
        expect(r.changed || r.effects.length > 0, `${source}: ${JSON.stringify(event)}`).to.equal(false);
      }
    }
  });

  it('WC2-WC9 a create is decided only by a live pass whose spec passes, whose subnet is seen, with no failure of this generation, no duplicate or foreign policy and no guard violation; nothing is created in a deletion', () => {
    let creates = 0;
    for (const { before, event, effects } of edges) {
      const made = effects.filter((e) => e.type.startsWith('workloadCluster.create'));
      if (made.length === 0) continue;
      creates += 1;
      const e = event as Pass;
      const b = ctx(before);
      const o = e.observed;
      const label = JSON.stringify(event);
      expect(before.value, label).to.equal('live');
      expect(e.deletionRequested, label).to.equal(false);
      expect(refused(e.desired), label).to.equal(false);
      expect(o.subnet.kind, label).to.equal('present');
      expect(b.failure === null || e.generation > b.failure.generation, label).to.equal(true);
      expect([o.securityGroups.node.kind, o.securityGroups.controlPlane.kind, o.serverGroup.kind], label).to.not.include('duplicate');
      if (o.serverGroup.kind === 'present') expect(o.serverGroup.policy).to.equal(e.desired.serverGroupPolicy);
      const g = b.guard;
      if (g) {
        expect([g.subnetId, g.apiServerPort], label).to.deep.equal([e.desired.subnetId, e.desired.apiServerPort]);
        if (g.provider !== null && o.loadBalancer.kind === 'present') expect(o.loadBalancer.provider, label).to.equal(g.provider);
      }
      // the order: node group, control-plane group, rules, server group
      const kinds = new Set(made.map((m) => m.type));
      expect(kinds.size, label).to.equal(1);
      if (kinds.has(E.createSecurityGroup)) expect(made[0]?.subject).to.equal(o.securityGroups.node.kind === 'absent' ? `${NAME}-node` : `${NAME}-control-plane`);
      if (kinds.has(E.createSecurityGroupRule) || kinds.has(E.createServerGroup)) expect([present(o.securityGroups.node), present(o.securityGroups.controlPlane)], label).to.deep.equal([true, true]);
      if (kinds.has(E.createServerGroup)) {
        expect([e.desired.serverGroupPolicy === null, o.serverGroup.kind], label).to.deep.equal([false, 'absent']);
        expect(made[0]).to.deep.include({ name: `${NAME}-control-plane`, policy: e.desired.serverGroupPolicy });
      }
    }
    expect(creates).to.be.greaterThan(10);
  });

  it('WC6 a rules decision creates every wanted rule not observed and not already standing, each once', () => {
    let decisions = 0;
    for (const { before, event, effects } of edges) {
      const rules = effects.filter((e) => e.type === E.createSecurityGroupRule);
      if (rules.length === 0) continue;
      decisions += 1;
      const e = event as Pass;
      const o = e.observed;
      const ids = { controlPlane: idIn(o.securityGroups.controlPlane)[0] ?? '', node: idIn(o.securityGroups.node)[0] ?? '' };
      const subnet = o.subnet.kind === 'present' ? o.subnet : SUBNET;
      const standing = new Set(ctx(before).pending.filter((p) => p.answer === 'conflict' || p.answer === 'pending' || p.answer === 'unknown').map((p) => p.subject));
      const missing = clusterRules(e.desired, subnet, ids).filter((w) => {
        const g = o.securityGroups[w.group];
        return !(g.kind === 'present' && g.rules.some((r) => ruleMatches(w.rule, r)));
      });
      const sent = rules.map((r) => r.subject as string);
      expect(new Set(sent).size).to.equal(sent.length);
      for (const w of missing) {
        const subject = ruleSubject(NAME, w);
        if (!sent.includes(subject)) expect(standing.has(subject), subject).to.equal(true);
      }
      expect(sent.every((s) => missing.some((w) => ruleSubject(NAME, w) === s))).to.equal(true);
    }
    expect(decisions).to.be.greaterThan(0);
  });

  it('WC10 write-ahead: a delete only in a deletion, for the target armed before this pass and observed by it, in the order server group, control-plane group, node group, after the machines and the load balancer are gone', () => {
    let deletes = 0;
    for (const { before, event, effects } of edges) {
      const dels = effects.filter((e) => e.type.startsWith('workloadCluster.delete'));
      if (dels.length === 0) continue;
      deletes += 1;
      expect(dels).to.have.length(1);
      const d = dels[0] as Effect;
      const e = event as Pass;
      const o = e.observed;
      const armed = ctx(before).deletion?.armed;
      expect(before.value).to.equal('deleting');
      expect(e.deletionRequested).to.equal(true);
      expect(o.machines).to.equal(0);
      expect(o.loadBalancer.kind).to.equal('absent');
      expect(armed?.id).to.equal(d.id);
      const sg = idIn(o.serverGroup);
      const cp = idIn(o.securityGroups.controlPlane);
      const node = idIn(o.securityGroups.node);
      if (d.type === E.deleteServerGroup) expect(sg).to.include(d.id);
      else if (d.subject === `${NAME}-control-plane`) expect([sg.length, cp.includes(d.id as string)]).to.deep.equal([0, true]);
      else expect([sg.length, cp.length, node.includes(d.id as string)]).to.deep.equal([0, 0, true]);
    }
    expect(deletes).to.be.greaterThan(0);
  });

  it('WC10 released only by a deletion pass that observes nothing left; then final', () => {
    let releases = 0;
    for (const { before, event, next, effects, changed } of edges) {
      if (before.value === 'released') {
        expect([changed, effects.length]).to.deep.equal([false, 0]);
        continue;
      }
      if (next.value !== 'released') continue;
      releases += 1;
      const o = (event as Pass).observed;
      expect((event as Pass).deletionRequested).to.equal(true);
      expect([o.machines, o.loadBalancer.kind, o.serverGroup.kind, o.securityGroups.controlPlane.kind, o.securityGroups.node.kind]).to.deep.equal([0, 'absent', 'absent', 'absent', 'absent']);
    }
    expect(releases).to.be.greaterThan(0);
  });

  it('WC11 partsReady only when both groups carry every wanted rule, the server group is as wanted, and no precondition or consistency problem stands', () => {
    let ready = 0;
    for (const { event, next } of edges) {
      if (event.type !== 'reconcile' || !ctx(next).partsReady) continue;
      ready += 1;
      const o = event.observed;
      const n = ctx(next);
      expect(next.value).to.equal('live');
      expect(refused(event.desired)).to.equal(false);
      expect([o.securityGroups.node.kind, o.securityGroups.controlPlane.kind]).to.deep.equal(['present', 'present']);
      if (event.desired.serverGroupPolicy !== null) expect(o.serverGroup).to.deep.include({ kind: 'present', policy: event.desired.serverGroupPolicy });
      const port = n.guard?.apiServerPort ?? event.desired.apiServerPort;
      const ids = { controlPlane: idIn(o.securityGroups.controlPlane)[0] ?? '', node: idIn(o.securityGroups.node)[0] ?? '' };
      const conflicted = new Set(n.pending.filter((p) => p.answer === 'conflict').map((p) => p.subject));
      for (const w of clusterRules({ ...event.desired, apiServerPort: port }, o.subnet.kind === 'present' ? o.subnet : SUBNET, ids)) {
        const g = o.securityGroups[w.group];
        expect(g.kind === 'present' && (g.rules.some((r) => ruleMatches(w.rule, r)) || conflicted.has(ruleSubject(NAME, w))), ruleSubject(NAME, w)).to.equal(true);
      }
    }
    expect(ready).to.be.greaterThan(0);
  });

  it('WC4 the guard, once recorded, changes only by its provider being set once', () => {
    for (const { before, next } of edges) {
      const [a, b] = [ctx(before).guard, ctx(next).guard];
      if (a === null) continue;
      expect({ ...b, provider: null }).to.deep.equal({ ...a, provider: null });
      if (a.provider !== null) expect(b?.provider).to.equal(a.provider);
    }
  });

  it('WC12 polling changes nothing: every reconciler stimulus, repeated, settles within three passes', () => {
    for (const { before, event } of edges) {
      if (event.source !== 'reconciler') continue;
      let s = before;
      for (let i = 0; i < 3; i++) s = step(def, s, event).snapshot;
      const r = step(def, s, event);
      expect(r.changed || r.effects.length > 0, JSON.stringify(event)).to.equal(false);
    }
  });
});
