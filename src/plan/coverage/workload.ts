/**
 * The plan of the workload-cluster kinds (issue 29): WorkloadCluster (machines/workload-cluster.ts, WC2–WC11 and the
 * write-ahead delete's W1, W2, W4) and WorkloadMachine (machines/workload-machine.ts, WM1–WM17). Each row's label is
 * one its source's comments give the transition with that outcome — on the transition, above its run or its block,
 * or on its guard (test/plan/workload-plan.test.ts checks it); where a transition carries several, the stimulus picks
 * the one that applies (the wait's reason, the problem's kind). Every decision of both machines has a row.
 *
 * A WorkloadCluster's pass also decides its API load balancer (the load-balancer machine, stream
 * `load-balancer-<cluster uid>`) and a WorkloadMachine's pass its server's rebuild (serverRebuild): those decisions
 * take the rows and waits of their own groups (load-balancer.ts, server.ts).
 */
import { r, type RuleRow } from './rule-row.js';
import type { PlanCoverage } from './coverage.js';
import { poolsMissing } from '../../../machines/workload-machine/plan.js';
import type { DesiredMachine, MachineObservation } from '../../../machines/workload-machine/observation.js';

// ─── a workload machine's stimulus, read for the label that applies ─────────────────────────────────

interface MachinePass {
  desired: DesiredMachine | null;
  observed: MachineObservation;
}
const passOf = (data: Record<string, unknown>): MachinePass | undefined => (data.type === 'reconcile' && data.observed !== undefined ? (data as unknown as MachinePass) : undefined);
const duplicateIn = (p: MachinePass): boolean => p.observed.port.kind === 'duplicate' || p.observed.server.kind === 'duplicate';
const portOf = (p: MachinePass) => (p.observed.port.kind === 'present' ? p.observed.port : null);

/** WM4 (a duplicate lookup) rather than WM5 (a foreign server of the machine's name). */
const duplicateLookup = (data: Record<string, unknown>): boolean => {
  const p = passOf(data);
  return p !== undefined && duplicateIn(p);
};

/** The wait of a live pass (liveStep's order, machines/workload-machine/plan.ts): which rule it waits under. */
const waitsUnder = (data: Record<string, unknown>): 'WM2' | 'WM3' | 'WM6' | 'WM7' | 'WM8' | 'WM9' | undefined => {
  const p = passOf(data);
  if (!p) return undefined;
  const { desired, observed } = p;
  if (desired === null) return 'WM2'; // WaitingForCluster
  if (observed.server.kind === 'present') return 'WM9'; // ServerNotActive
  if (desired.imageId === null || desired.flavorId === null) return 'WM3'; // ImageNotFound, FlavorNotFound
  const port = portOf(p);
  if (port === null) return 'WM8'; // the port's create may still land
  if (port.address === null) return 'WM6'; // WaitingForAddress
  if (poolsMissing(desired, observed).length > 0) return 'WM7'; // WaitingForPoolMembership
  return 'WM8'; // the server's create may still land
};
const waitingUnder = (rule: ReturnType<typeof waitsUnder>) => (data: Record<string, unknown>) => waitsUnder(data) === rule;

// ─── the rows ───────────────────────────────────────────────────────────────────────────────────────

/** machines/workload-cluster.ts: WC2–WC11, and the write-ahead delete's W1, W2, W4 (machines/write-ahead-delete.ts). */
export const WORKLOAD_CLUSTER_RULES: readonly RuleRow[] = [
  { outcome: 'preconditionRefused', rule: r('WC2', 'refuse: a precondition of the spec fails; nothing is created') },
  { outcome: 'specRejected', rule: r('WC2', 'refuse: the spec does not decode; recorded in problems') },
  { outcome: 'waitingForSubnet', rule: r('WC3', 'wait: the subnet is not observed (it may appear)') },
  { outcome: 'guardViolated', rule: r('WC4', 'refuse: a guarded endpoint field differs from the record; no create is decided') },
  { outcome: 'securityGroupCreateDecided', rule: r('WC5', 'create a security group: the node group, then the control-plane group') },
  { outcome: 'rulesCreateDecided', rule: r('WC6', 'create every missing rule, in one decision') },
  { outcome: 'createConflict', rule: r('WC6', 'Neutron answered 409: the rule exists, counted present') },
  { outcome: 'createAccepted', rule: r('WC9', "the create's answer recorded (lastAnswer); nothing declared") },
  { outcome: 'inconsistent', rule: r('WC7', 'hold: two parts of one name, or a server group of another policy; nothing is created') },
  { outcome: 'serverGroupCreateDecided', rule: r('WC8', "create the control plane's server group, after the security groups and their rules") },
  { outcome: 'failureHeld', rule: r('WC9', 'hold: a refused create parks every create until a newer generation') },
  { outcome: 'createMayStillLand', rule: r('WC9', 'wait: an unanswered create may still land (30 s grace)') },
  { outcome: 'createRejected', rule: r('WC9', 'the create was refused: recorded as failure, parks') },
  { outcome: 'createOutcomeUnknown', rule: r('WC9', "the create's answer never came: settled by the next observation") },
  { outcome: 'waitingForMachines', rule: r('WC10', 'deleting: wait while WorkloadMachines of the cluster remain') },
  { outcome: 'waitingForLoadBalancer', rule: r('WC10', 'deleting: wait while the API load balancer is observed') },
  { outcome: 'deleteArmed', rule: r('W1', 'arm the delete of the next part (write-ahead, nothing deleted yet)') },
  { outcome: 'deleteSubmitted', rule: r('W2', 'delete: the armed part read back and seen again') },
  { outcome: 'deleteResubmitted', rule: r('W4', 'delete again: the same part seen after the backoff (at once after a 409)') },
  { outcome: 'deleteInProgress', rule: r('WC10', 'deleting: the part is not confirmed absent yet') },
  { outcome: 'deleteAccepted', rule: r('WC10', "the delete's answer recorded; absence confirms it") },
  { outcome: 'deleteConflict', rule: r('WC10', "the delete's 409 (in use) recorded: the next pass that still sees the part sends it again") },
  { outcome: 'deleteRejected', rule: r('WC10', "the delete's refusal recorded; sent again after the backoff") },
  { outcome: 'deleteOutcomeUnknown', rule: r('WC10', "the delete's unknown answer recorded; absence confirms it") },
  { outcome: 'released', rule: r('WC10', 'released: every part is observed absent') },
  { outcome: 'partsReady', rule: r('WC11', 'ready: both groups with every rule and the server group as wanted') },
];

/** machines/workload-machine.ts: WM1–WM17. */
export const WORKLOAD_MACHINE_RULES: readonly RuleRow[] = [
  { outcome: 'createAccepted', rule: r('WM1', "the create's answer recorded; nothing declared") },
  { outcome: 'createConflict', rule: r('WM1', "the create's answer recorded; nothing declared") },
  { outcome: 'createOutcomeUnknown', rule: r('WM1', "the create's unknown answer recorded; evidence settles it (WM8)") },
  { outcome: 'deleteAccepted', rule: r('WM1', "the delete's answer recorded; absence confirms it") },
  { outcome: 'deleteConflict', rule: r('WM1', "the delete's answer recorded; absence confirms it") },
  { outcome: 'deleteRejected', rule: r('WM1', "the delete's refusal recorded (W5)") },
  { outcome: 'deleteOutcomeUnknown', rule: r('WM1', "the delete's unknown answer recorded (W5)") },
  { outcome: 'waiting', when: waitingUnder('WM2'), rule: r('WM2', "wait: the cluster has not published its exports") },
  { outcome: 'waiting', when: waitingUnder('WM3'), rule: r('WM3', 'wait: the image or the flavor is not found; nothing is created') },
  { outcome: 'consistencyProblem', when: duplicateLookup, rule: r('WM4', 'hold: two ports or two servers of the name; nothing is decided') },
  { outcome: 'consistencyProblem', when: (d) => !duplicateLookup(d), rule: r('WM5', "hold: a server of the machine's name that is not Regent's") },
  { outcome: 'portCreateDecided', rule: r('WM6', 'create the port wm-<uid> on the cluster subnet, first') },
  { outcome: 'waiting', when: waitingUnder('WM6'), rule: r('WM6', 'wait: the port has no address on the subnet yet') },
  { outcome: 'waiting', when: waitingUnder('WM7'), rule: r('WM7', 'wait: register before boot: not yet a member of every API pool') },
  { outcome: 'serverCreateDecided', rule: r('WM8', "create the server on its port (the port addressed, every API pool holding it: WM7)") },
  { outcome: 'waiting', when: waitingUnder('WM8'), rule: r('WM8', 'wait: an unanswered create may still land (60 s grace)') },
  { outcome: 'createRejected', rule: r('WM8', 'the create was refused: recorded, parked until a new generation') },
  { outcome: 'failedStands', rule: r('WM8', 'parked: the refused create waits for a new generation') },
  { outcome: 'running', rule: r('WM9', "Regent's server is ACTIVE") },
  { outcome: 'errored', rule: r('WM9', "Regent's server is in ERROR: named, never deleted automatically") },
  { outcome: 'waiting', when: waitingUnder('WM9'), rule: r('WM9', "wait: Regent's server is neither ACTIVE nor ERROR") },
  { outcome: 'leavingPools', rule: r('WM10', 'deleting: wait until the API pools drop the machine (leave before delete)') },
  { outcome: 'deleteArmed', rule: r('WM11', "arm the delete of Regent's server (write-ahead, nothing deleted yet)") },
  { outcome: 'deleteSubmitted', rule: r('WM12', 'delete the server: the armed id read back and seen again') },
  { outcome: 'deleteResubmitted', rule: r('WM12', 'delete the server again: still seen after the backoff (W4)') },
  { outcome: 'deleteInProgress', rule: r('WM12', 'deleting: the server is not confirmed absent yet (W3)') },
  { outcome: 'deletionBlocked', when: duplicateLookup, rule: r('WM4', 'deleting: a duplicate is never picked from; nothing is decided') },
  { outcome: 'deletionBlocked', when: (d) => !duplicateLookup(d), rule: r('WM13', 'deleting: the port is bound to a device this machine did not delete') },
  { outcome: 'portDeleteDecided', rule: r('WM13', 'delete the port: no server of Regent\'s is observed') },
  { outcome: 'portDeleteResubmitted', rule: r('WM13', 'delete the port again: still seen after the backoff') },
  { outcome: 'portDeleteInProgress', rule: r('WM13', 'deleting: the port is not confirmed absent yet') },
  { outcome: 'released', rule: r('WM14', 'released: port and server observed absent') },
  { outcome: 'deletionAwaitsCreate', rule: r('WM15', 'deleting: never released under a create that may still land') },
  { outcome: 'specRejected', rule: r('WM16', 'the spec does not decode: recorded, parked in invalid') },
  { outcome: 'deletionWithdrawn', rule: r('WM17', 'the deletion is withdrawn: the arm is dropped, nothing decided') },
];

export const WORKLOAD: PlanCoverage = {
  kinds: ['WorkloadCluster', 'WorkloadMachine'],
  rules: { workloadCluster: WORKLOAD_CLUSTER_RULES, workloadMachine: WORKLOAD_MACHINE_RULES },
  waits: {
    workloadCluster: {
      securityGroupCreateDecided: 'after Neutron accepts the security group: the next pass observes it, then creates the other group or the rules',
      rulesCreateDecided: 'after Neutron accepts the rules: the next pass observes them, then creates the server group or records the parts ready',
      serverGroupCreateDecided: 'after Nova accepts the server group: the next pass observes it and records the parts ready',
      deleteArmed: 'the next pass reads the arm back and deletes the part it observes then',
      deleteSubmitted: 'after Nova (the server group) or Neutron (a security group) accepts the delete: waits for the part to be gone, then arms the next',
      deleteResubmitted: 'after Nova (the server group) or Neutron (a security group) accepts the delete: waits for the part to be gone, then arms the next',
      deleteInProgress: 'waits for the part to be gone (sent again after the backoff while it is still seen)',
      waitingForMachines: "waits for the cluster's WorkloadMachines to be deleted",
      waitingForLoadBalancer: 'waits for the API load balancer to be gone (its cascade delete is the load-balancer machine\'s)',
      preconditionRefused: 'waits for a spec that passes its preconditions (user action)',
      specRejected: 'waits for a valid spec',
      waitingForSubnet: 'waits for the subnet to be observed',
      guardViolated: 'waits for the guarded endpoint fields to go back to the record (a change is never applied)',
      inconsistent: 'waits for an operator: a duplicate part, or a server group of another policy',
      failureHeld: 'parked: waits for a new generation of the spec',
      createMayStillLand: 'waits for the unanswered create to show, or for its 30 s grace to pass',
      partsReady: "nothing more of the cluster's own parts: the API load balancer is built from the recorded guard",
      released: "nothing: the cluster's parts are gone; the finalizer is removed",
    },
    workloadMachine: {
      portCreateDecided: "after Neutron accepts the port: waits for its address on the subnet",
      serverCreateDecided: "after Nova accepts the machine's server: waits for it to become ACTIVE",
      deleteArmed: 'the next pass reads the arm back and deletes the server if it observes the same id',
      deleteSubmitted: "after Nova accepts the server's delete: waits for it to be gone, then deletes the port",
      deleteResubmitted: "after Nova accepts the server's delete: waits for it to be gone, then deletes the port",
      deleteInProgress: 'waits for the server to be gone (sent again after the backoff while it is still seen)',
      portDeleteDecided: "after Neutron accepts the port's delete: waits for it to be gone, then releases",
      portDeleteResubmitted: "after Neutron accepts the port's delete: waits for it to be gone, then releases",
      portDeleteInProgress: 'waits for the port to be gone (sent again after the backoff while it is still seen)',
      waiting: "waits for what the status names (the cluster's exports, the image or flavor, the port's address, the API pools, an unanswered create, the server to become ACTIVE)",
      running: 'nothing: the server is ACTIVE (an image change is the rebuild protocol\'s)',
      errored: 'waits for a user: the server is in ERROR and is never deleted automatically',
      consistencyProblem: "waits for an operator: a duplicate port or server, or a server of the machine's name that is not Regent's",
      failedStands: 'parked: waits for a new generation of the spec',
      leavingPools: "waits for the cluster to take the machine's address out of the API pools",
      deletionAwaitsCreate: 'waits for the unanswered create to show, or for its 60 s grace to pass',
      deletionBlocked: 'waits for an operator: a duplicate, or the port bound to another device',
      deletionWithdrawn: 'the next pass decides live',
      released: 'nothing: the server and its port are gone; the finalizer is removed',
      specRejected: 'waits for a valid spec',
    },
  },
  // every decision of both machines carries a label in its source (its transition's comment, or its guard's)
  unlabelled: {},
};
