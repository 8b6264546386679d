/**
 * A WorkloadCluster's OpenStack parts (openstack-cluster-modules.md, "OpenStack": the cluster role; issue 29): the
 * node and control-plane security groups with their rules, the control plane's Nova server group, and the endpoint
 * guard the API load balancer is built from. One machine per cluster, stream `workload-cluster-<uid>`. The load
 * balancer itself is the load-balancer machine's (`load-balancer-<cluster uid>`); this machine only reads its actual
 * provider (the guard) and whether it is gone (the deletion order). The contract — desired cluster, observation,
 * effects, answers — is machines/workload-cluster/observation.ts; the tag mapping tags.ts.
 *
 *   live ⟲ one decision per pass: node group → control-plane group → every missing rule → server group → partsReady
 *     │   (held: a refused precondition, no subnet yet, a refused create, a duplicate, a guard violation)
 *     └─deletionRequested─► deleting ⟲ wait for machines, then the load balancer; arm ─► delete (read back) … ─► released
 *
 * Rules (labels used in the tests):
 * - WC1 only `reconcile` from the reconciler decides; an effect's answer (source `effect`) records its result and
 *   declares nothing; a stimulus of any other source changes nothing (the codec pins each type to its source, and the
 *   machine refuses the others too). An answer that names no create or delete standing changes nothing.
 * - WC2 preconditions, checked on every pass before anything is created: a load balancer with provider `ovn` and
 *   allowedCIDRs ("the ovn provider rejects api_allowed_cidrs"), a public one without allowedCIDRs, a public one
 *   without floatingIPPool, tags that do not render (a pair over 255 characters: tags.ts) are refused: `problems`
 *   names each, nothing is decided. The first pass whose spec passes proceeds. A spec the reconciler could not decode
 *   (`specRejected`) is recorded in `problems` the same way.
 * - WC3 the subnet not observed: the pass waits (`WaitingForSubnet`, naming it) — not refused, it may appear.
 * - WC4 the endpoint guard: the first pass that gets past WC2, WC3, WC9 and WC7 (it decides the first create, or finds
 *   the parts already there) records {subnetId, public, floatingIPPool, apiServerPort, provider: null} (a supplied
 *   endpoint: public false, pool null). `provider` is recorded once, the actual provider of the first load balancer
 *   observed present. On every later pass a spec whose subnetId, public, floatingIPPool or apiServerPort differ from
 *   the record, or an observed load balancer of another provider, is a violation: `guardViolation` lists each
 *   {field, recorded, requested}, NO create is decided (the groups' rules derive from apiServerPort and the subnet), the
 *   observation is still recorded, and the recorded guard stays what the controller builds the load balancer from.
 *   The violation clears when the spec goes back. A deletion is never blocked by it.
 * - WC5 security groups `<name>-node` then `<name>-control-plane`, one per decision, each
 *   `workloadCluster.createSecurityGroup` {subject: name, name, description (which cluster, which role), tags: the
 *   rendered tags}.
 * - WC6 rules (`clusterRules`, workload-cluster/rules.ts), once both groups are observed: every wanted rule no observed
 *   rule matches (direction, ethertype, protocol — Neutron's null is any —, ports, remote prefix, remote group) is
 *   created, ALL of them in ONE decision (`workloadCluster.createSecurityGroupRule` {subject, rule}; Neutron is
 *   synchronous). A `conflict` answer means the rule exists: it counts as present and is not sent again. Ingress rules
 *   the spec does not imply are never deleted: `drift` names them.
 * - WC7 two groups (or server groups) of one name are a consistency problem: `inconsistencies` names it, nothing is
 *   created while it stands.
 * - WC8 the server group: when serverGroupPolicy is set, after the security groups and their rules,
 *   `workloadCluster.createServerGroup` {subject, name: `<name>-control-plane`, policy}; one observed with another
 *   policy is a consistency problem (WC7: Nova cannot change a policy, it is never changed). Policy null: none is
 *   created and `serverGroupId` is null.
 * - WC9 answers: `accepted` and `conflict` are recorded (`lastAnswer`); a `rejected` create is recorded as `failure`
 *   {effect, subject, status, reason, generation} and parks every create until a pass of a newer generation. A create
 *   whose answer is `outcomeUnknown` (or never came) is settled by the next observation by name: found, it is adopted;
 *   absent, it is decided again only once CREATE_GRACE_MS (30 s, on the passes' `at`, never a clock) has passed since
 *   it was decided — until then the pass waits (`CreateMayStillLand`). An accepted create not observed is created
 *   again (Neutron and Nova create synchronously: it was removed).
 * - WC10 deletion (`deletionRequested`, from any live condition; one way: a later pass without it changes nothing):
 *   waits while WorkloadMachines remain (`WaitingForMachines`), then while the load balancer is observed at all
 *   (`WaitingForLoadBalancer`: the controller deletes it through the load-balancer machine); then the write-ahead
 *   delete (machines/write-ahead-delete.ts W1–W5), one target at a time in the order server group, control-plane
 *   group, node group (a duplicate's ids one by one): a pass ARMS the next target (an event, no effect), a LATER pass
 *   that observes the same target again decides its delete (`workloadCluster.deleteServerGroup`,
 *   `workloadCluster.deleteSecurityGroup`, both destructive, {subject, id}); a target no longer observed ends its
 *   delete; a `conflict` (409, in use) is sent again by the next pass that still sees it, anything else not taken
 *   after W4's backoff. Nothing is created during a deletion. Everything observed absent: `released` (final).
 * - WC11 the context the controller and status read (workload-cluster/context.ts): the recorded `guard`,
 *   `guardViolation`, `problems`, `inconsistencies`, `securityGroupIds`, `serverGroupId`, `subnet`,
 *   `availabilityZones`, `drift`, `waiting`, `lastAnswer`, `failure`, `decidedGeneration`, `deletion`, `released`,
 *   and `partsReady`: both groups with every rule and the server group as wanted, no refused precondition and no
 *   consistency problem (a guard violation does not withdraw it: the load balancer is built from the record).
 * - WC12 polling changes nothing: a pass that observes what the last one did changes neither state nor context and
 *   declares nothing.
 *
 * Files (machines/workload-cluster/): observation.ts the contract, tags.ts the tags, rules.ts the names and the rules,
 * context.ts what the machine keeps, plan.ts one pass as a pure function (memoized), audit.ts what `regent check`
 * explores.
 */
import { assign, enqueueActions, setup } from 'xstate';
import { declaredAction, outcome, type MachineDefinition } from './definition.js';
import { workloadClusterAudit } from './workload-cluster/audit.js';
import { initialContext, type WorkloadClusterContext } from './workload-cluster/context.js';
import { WORKLOAD_CLUSTER_EFFECTS as E, WorkloadClusterStimulus } from './workload-cluster/observation.js';
import { deleteEffectOf, deletionPlan, livePlan, type Answer, type DeletionDecision, type Event, type LiveDecision, type Reconcile } from './workload-cluster/plan.js';
import { arm, inProgress, resend, submit } from './write-ahead-delete.js';

export type { WorkloadClusterContext, GuardViolation, PendingCreate, DeletionTarget, DeletionProgress, WaitingReason } from './workload-cluster/context.js';
export { clusterRules, ruleMatches, ruleSubject, controlPlaneGroupName, nodeGroupName, serverGroupName, RKE2_SUPERVISOR_PORT } from './workload-cluster/rules.js';
export { CREATE_GRACE_MS, preconditionProblems, guardOf, guardViolations, nextDeletionTarget, planLive, planDeletion } from './workload-cluster/plan.js';
export { WORKLOAD_CLUSTER_EFFECTS, WorkloadClusterStimulus } from './workload-cluster/observation.js';

export const WORKLOAD_CLUSTER_STREAM_PREFIX = 'workload-cluster-';
export const workloadClusterStream = (uid: string): string => `${WORKLOAD_CLUSTER_STREAM_PREFIX}${uid}`;

type Args = { context: WorkloadClusterContext; event: Event };
const reconcileOf = (event: Event): Reconcile | null => (event.type === 'reconcile' ? event : null);
const live = ({ context, event }: Args) => {
  const e = reconcileOf(event);
  return e ? livePlan(context, e) : null;
};
const deletion = ({ context, event }: Args) => {
  const e = reconcileOf(event);
  return e && e.deletionRequested ? deletionPlan(context, e) : null;
};
const liveIs = (kind: LiveDecision['kind']) => (args: Args) => {
  const e = reconcileOf(args.event);
  return e !== null && !e.deletionRequested && live(args)?.decision.kind === kind;
};
const deletionIs = (kind: DeletionDecision['kind'], effect?: string) => (args: Args) => {
  const d = deletion(args)?.decision;
  return d !== undefined && d.kind === kind && (effect === undefined || ('target' in d && deleteEffectOf(d.target) === effect));
};
const answerOf = (event: Event): Answer | null => (event.type !== 'reconcile' && event.type !== 'specRejected' && event.source === 'effect' ? event : null);
/** WC1, WC9: the create standing that an answer names. */
const pendingAnswered = ({ context, event }: Args) => {
  const a = answerOf(event);
  return a ? (context.pending.find((p) => p.effect === a.effect && p.subject === a.subject) ?? null) : null;
};
/** WC10: the delete standing that an answer names. */
const deleteAnswered = ({ context, event }: Args): boolean => {
  const a = answerOf(event);
  const armed = context.deletion?.armed ?? null;
  return a !== null && armed !== null && (context.deletion?.attempts ?? 0) > 0 && a.effect === deleteEffectOf(armed) && a.subject === armed.name;
};
const answerIs = (type: Answer['type']) => ({ event }: Args) => event.type === type;
const lastAnswerOf = (a: Answer) => ({ effect: a.effect, subject: a.subject, answer: a.type === 'outcomeUnknown' ? ('unknown' as const) : a.type });
const deleteParams = ({ context, event }: Args) => {
  const d = deletion({ context, event })?.decision;
  return d && 'target' in d ? { subject: d.target.name, id: d.target.id } : { subject: '', id: '' };
};

/** WC1: only the reconciler decides; only an effect answers. */
const notByReconciler = { guard: 'notByReconciler', actions: [] } as const;
const notByEffect = { guard: 'notByEffect', actions: [] } as const;

export const buildWorkloadClusterMachine = () =>
  setup({
    types: {} as { context: WorkloadClusterContext; events: Event; input: { uid: string } },
    // Every effect is declared before the pass's record is assigned: its params read the plan of the context the
    // pass decided from.
    actions: {
      outcome: declaredAction<{ name: string }>(),
      [E.createSecurityGroup]: declaredAction<Record<string, unknown>>(),
      [E.createSecurityGroupRule]: declaredAction<Record<string, unknown>>(),
      [E.createServerGroup]: declaredAction<Record<string, unknown>>(),
      [E.deleteSecurityGroup]: declaredAction<Record<string, unknown>>(),
      [E.deleteServerGroup]: declaredAction<Record<string, unknown>>(),
      applyLive: assign((args) => live(args)?.next ?? {}),
      applyDeletion: assign((args) => deletion(args)?.next ?? {}),
      // WC6: every missing rule, one effect each, in this one decision
      decideRules: enqueueActions(({ context, event, enqueue }) => {
        const d = live({ context, event })?.decision;
        if (d?.kind === 'createRules') for (const params of d.rules) enqueue({ type: E.createSecurityGroupRule, params });
      }),
      recordSpecRejected: assign(({ event }) =>
        event.type === 'specRejected' ? { problems: event.problems.map((p) => `spec: ${p}`), decidedGeneration: event.generation, partsReady: false, waiting: null } : {},
      ),
      // WC9
      recordCreateAnswer: assign(({ context, event }) => {
        const a = answerOf(event);
        const p = pendingAnswered({ context, event });
        if (!a || !p) return {};
        if (a.type === 'rejected')
          return {
            pending: context.pending.filter((x) => x !== p),
            failure: { effect: a.effect, subject: a.subject, status: a.status, reason: a.reason, generation: p.generation },
            lastAnswer: lastAnswerOf(a),
          };
        const answer = a.type === 'outcomeUnknown' ? ('unknown' as const) : a.type;
        return { pending: context.pending.map((x) => (x === p ? { ...x, answer } : x)), lastAnswer: lastAnswerOf(a) };
      }),
      // WC10
      recordDeleteAnswer: assign(({ context, event }) => {
        const a = answerOf(event);
        const d = context.deletion;
        if (!a || !d) return {};
        return {
          lastAnswer: lastAnswerOf(a),
          deletion: {
            ...d,
            conflicted: a.type === 'conflict',
            refusal: a.type === 'rejected' ? { status: a.status, reason: a.reason } : a.type === 'accepted' ? null : d.refusal,
          },
        };
      }),
    },
    guards: {
      notByReconciler: ({ event }) => event.source !== 'reconciler',
      notByEffect: ({ event }) => event.source !== 'effect',
      deletionNotRequested: ({ event }) => event.type === 'reconcile' && !event.deletionRequested,
      // WC2
      preconditionRefused: liveIs('refused'),
      // WC3
      subnetNotObserved: liveIs('waitSubnet'),
      // WC9: a refused create parks until a newer generation
      failedForThisGeneration: liveIs('failureHeld'),
      // WC7, WC8
      inconsistent: liveIs('inconsistent'),
      // WC4
      guardViolated: liveIs('guardViolated'),
      // WC5
      securityGroupAbsent: liveIs('createGroup'),
      // WC6
      rulesMissing: liveIs('createRules'),
      // WC8
      serverGroupAbsent: liveIs('createServerGroup'),
      // WC9
      createMayStillLand: liveIs('mayStillLand'),
      // WC11
      partsReady: liveIs('ready'),
      // WC10
      machinesRemain: deletionIs('waitMachines'),
      loadBalancerRemains: deletionIs('waitLoadBalancer'),
      nothingRemains: deletionIs('released'),
      nextTargetObserved: deletionIs('arm'),
      armedServerGroupSeenAgain: deletionIs('submit', E.deleteServerGroup),
      armedSecurityGroupSeenAgain: deletionIs('submit', E.deleteSecurityGroup),
      serverGroupDeleteDueAgain: deletionIs('resend', E.deleteServerGroup),
      securityGroupDeleteDueAgain: deletionIs('resend', E.deleteSecurityGroup),
      deleteInProgress: deletionIs('inProgress'),
      // WC9, WC10: answers
      answersCreate: (args) => pendingAnswered(args) !== null,
      answersDelete: deleteAnswered,
      accepted: answerIs('accepted'),
      conflict: answerIs('conflict'),
      rejected: answerIs('rejected'),
      outcomeUnknown: answerIs('outcomeUnknown'),
    },
  }).createMachine({
    id: 'workloadCluster',
    context: ({ input }) => initialContext(input.uid),
    initial: 'live',
    states: {
      live: {
        on: {
          reconcile: [
            notByReconciler,
            // WC10: a deletion, whatever the live pass would say (a guard violation included)
            { guard: 'machinesRemain', target: 'deleting', actions: ['applyDeletion', outcome('waitingForMachines')] },
            { guard: 'loadBalancerRemains', target: 'deleting', actions: ['applyDeletion', outcome('waitingForLoadBalancer')] },
            { guard: 'nothingRemains', target: 'released', actions: ['applyDeletion', outcome('released')] },
            arm({ guard: 'nextTargetObserved', target: 'deleting', actions: ['applyDeletion'] }),
            { guard: 'preconditionRefused', actions: ['applyLive', outcome('preconditionRefused')] }, // WC2
            { guard: 'subnetNotObserved', actions: ['applyLive', outcome('waitingForSubnet')] }, // WC3
            { guard: 'failedForThisGeneration', actions: ['applyLive', outcome('failureHeld')] }, // WC9
            { guard: 'inconsistent', actions: ['applyLive', outcome('inconsistent')] }, // WC7, WC8
            { guard: 'guardViolated', actions: ['applyLive', outcome('guardViolated')] }, // WC4
            {
              guard: 'securityGroupAbsent',
              actions: [
                {
                  type: E.createSecurityGroup,
                  params: (args: Args) => {
                    const d = live(args)?.decision;
                    return d?.kind === 'createGroup' ? d.params : {};
                  },
                },
                'applyLive',
                outcome('securityGroupCreateDecided'),
              ],
            }, // WC5
            { guard: 'rulesMissing', actions: ['decideRules', 'applyLive', outcome('rulesCreateDecided')] }, // WC6
            {
              guard: 'serverGroupAbsent',
              actions: [
                {
                  type: E.createServerGroup,
                  params: (args: Args) => {
                    const d = live(args)?.decision;
                    return d?.kind === 'createServerGroup' ? d.params : {};
                  },
                },
                'applyLive',
                outcome('serverGroupCreateDecided'),
              ],
            }, // WC8
            { guard: 'createMayStillLand', actions: ['applyLive', outcome('createMayStillLand')] }, // WC9
            { guard: 'partsReady', actions: ['applyLive', outcome('partsReady')] }, // WC11
          ],
          specRejected: [notByReconciler, { actions: ['recordSpecRejected', outcome('specRejected')] }], // WC2
          accepted: [notByEffect, { guard: 'answersCreate', actions: ['recordCreateAnswer', outcome('createAccepted')] }],
          conflict: [notByEffect, { guard: 'answersCreate', actions: ['recordCreateAnswer', outcome('createConflict')] }], // WC6: the rule exists
          rejected: [notByEffect, { guard: 'answersCreate', actions: ['recordCreateAnswer', outcome('createRejected')] }], // WC9: parks
          outcomeUnknown: [notByEffect, { guard: 'answersCreate', actions: ['recordCreateAnswer', outcome('createOutcomeUnknown')] }], // WC9
        },
      },
      deleting: {
        on: {
          reconcile: [
            notByReconciler,
            { guard: 'deletionNotRequested', actions: [] }, // WC10: one way
            { guard: 'machinesRemain', actions: ['applyDeletion', outcome('waitingForMachines')] },
            { guard: 'loadBalancerRemains', actions: ['applyDeletion', outcome('waitingForLoadBalancer')] },
            { guard: 'nothingRemains', target: 'released', actions: ['applyDeletion', outcome('released')] },
            arm({ guard: 'nextTargetObserved', actions: ['applyDeletion'] }), // W1
            submit({ guard: 'armedServerGroupSeenAgain', actions: [{ type: E.deleteServerGroup, params: deleteParams }, 'applyDeletion'] }), // W2
            submit({ guard: 'armedSecurityGroupSeenAgain', actions: [{ type: E.deleteSecurityGroup, params: deleteParams }, 'applyDeletion'] }), // W2
            resend({ guard: 'serverGroupDeleteDueAgain', actions: [{ type: E.deleteServerGroup, params: deleteParams }, 'applyDeletion'] }), // W4
            resend({ guard: 'securityGroupDeleteDueAgain', actions: [{ type: E.deleteSecurityGroup, params: deleteParams }, 'applyDeletion'] }), // W4
            inProgress({ guard: 'deleteInProgress', actions: ['applyDeletion'] }),
          ],
          accepted: [notByEffect, { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteAccepted')] }],
          conflict: [notByEffect, { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteConflict')] }], // 409 in use: the next pass again
          rejected: [notByEffect, { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteRejected')] }],
          outcomeUnknown: [notByEffect, { guard: 'answersDelete', actions: ['recordDeleteAnswer', outcome('deleteOutcomeUnknown')] }],
        },
      },
      released: { type: 'final' }, // WC10
    },
  });

export const workloadClusterDefinition: MachineDefinition<WorkloadClusterContext> = {
  id: 'workloadCluster',
  version: 1,
  schemaVersion: 1,
  streamPrefix: WORKLOAD_CLUSTER_STREAM_PREFIX,
  machine: buildWorkloadClusterMachine(),
  stimulus: WorkloadClusterStimulus,
  effects: [E.createSecurityGroup, E.createSecurityGroupRule, E.createServerGroup, E.deleteSecurityGroup, E.deleteServerGroup],
  destructiveEffects: [E.deleteSecurityGroup, E.deleteServerGroup],
  input: (stream: string) => ({ uid: stream.startsWith(WORKLOAD_CLUSTER_STREAM_PREFIX) ? stream.slice(WORKLOAD_CLUSTER_STREAM_PREFIX.length) : stream }),
  description:
    "A WorkloadCluster's OpenStack parts (openstack-cluster-modules.md, the cluster role; issue 29): the node and control-plane security groups and their rules, the control plane's server group, the endpoint guard the API load balancer is built from (recorded once, never applied when changed), preconditions refused before anything is created, and the write-ahead deletion after the machines and the load balancer are gone.",
  audit: workloadClusterAudit(),
};
