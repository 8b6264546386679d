/**
 * What the workload-cluster machine keeps between passes (machines/workload-cluster.ts). The plan reads only
 * `guard`, `pending`, `failure` and `deletion`; everything else is what the last pass saw or decided, kept for the
 * controller (the recorded guard the load balancer is built from, the ids the exports name, `partsReady`) and status.
 */
import type { EndpointGuard } from './observation.js';
import type { GroupRole } from './rules.js';

/** WC4: one field of the endpoint guard a later spec (or the load balancer's actual provider) would change. */
export interface GuardViolation {
  field: 'subnetId' | 'public' | 'floatingIPPool' | 'apiServerPort' | 'provider';
  recorded: string | number | boolean | null;
  requested: string | number | boolean | null;
}

/** WC9: a create decided and not yet settled by an observation. */
export interface PendingCreate {
  effect: string;
  subject: string;
  /** The pass clock it was decided on (the grace of WC9 runs from it). */
  decidedAt: string;
  generation: number;
  /** `pending`: no answer recorded (a crash between the decision and the answer); `conflict`: a rule Neutron says exists. */
  answer: 'pending' | 'accepted' | 'conflict' | 'unknown';
}

/** WC10: a deletion target, one at a time, in this order. */
export interface DeletionTarget {
  kind: 'serverGroup' | 'controlPlane' | 'node';
  id: string;
  name: string;
}

/** WC10: the write-ahead deletion: the target armed (read back by a later pass) and its requests (W4, W5). */
export interface DeletionProgress {
  armed: DeletionTarget | null;
  /** Delete requests decided for the armed target (0: armed, not sent yet). */
  attempts: number;
  /** The pass clock of the last request. */
  lastAt: string | null;
  /** The last answer was Neutron's 409 (in use): sent again by the next pass that still sees it. */
  conflicted: boolean;
  /** The last refusal (status, reason) of a request for the armed target. */
  refusal: { status: number; reason: string } | null;
  /** Targets observed gone after a delete was decided for them (status only). */
  deleted: string[];
}

export type WaitingReason = 'WaitingForSubnet' | 'CreateMayStillLand' | 'WaitingForMachines' | 'WaitingForLoadBalancer';

export interface WorkloadClusterContext {
  uid: string;
  /** `wc-<uid>`, from the last pass's desired cluster. */
  name: string | null;
  /** WC2, WC3: the refused preconditions of the last pass, or a spec that could not be decoded; empty when none. */
  problems: string[];
  /** WC7, WC8: consistency problems of the last pass (a duplicate name, a server group of another policy); empty when none. */
  inconsistencies: string[];
  /** WC4: recorded once; the load balancer is built from it, never from a later spec. */
  guard: EndpointGuard | null;
  /** WC4: what a later spec (or the observed load balancer) would change; empty when none. */
  guardViolation: GuardViolation[];
  /** The groups' Neutron ids from the last observation (null: not observed present). */
  securityGroupIds: { controlPlane: string | null; node: string | null };
  /** WC8: the control plane's server group id; null when the spec wants none or it is not present. */
  serverGroupId: string | null;
  /** The node subnet from the last observation. */
  subnet: { id: string; networkId: string; cidr: string; ipVersion: 4 | 6 } | null;
  /** Nova's zones from the last observation (the failure domains). */
  availabilityZones: string[];
  /** WC6: ingress rules on the groups the spec does not imply (never deleted; status names them). */
  drift: Array<{ group: GroupRole; ruleId: string }>;
  /** WC11: both groups with every rule, and the server group as wanted, with no problem: the controller may drive the load balancer. */
  partsReady: boolean;
  /** What the last pass waited for. */
  waiting: { reason: WaitingReason; subjects: string[] } | null;
  /** WC9: creates decided and not yet settled. */
  pending: PendingCreate[];
  /** The last answer recorded. */
  lastAnswer: { effect: string; subject: string; answer: 'accepted' | 'conflict' | 'rejected' | 'unknown' } | null;
  /** WC9: a refused create: parked until a new generation. */
  failure: { effect: string; subject: string; status: number; reason: string; generation: number } | null;
  decidedGeneration: number | null;
  /** WC10: null until a deletion is requested. */
  deletion: DeletionProgress | null;
  /** WC10: everything is gone; nothing more is decided. */
  released: boolean;
}

export const initialContext = (uid: string): WorkloadClusterContext => ({
  uid,
  name: null,
  problems: [],
  inconsistencies: [],
  guard: null,
  guardViolation: [],
  securityGroupIds: { controlPlane: null, node: null },
  serverGroupId: null,
  subnet: null,
  availabilityZones: [],
  drift: [],
  partsReady: false,
  waiting: null,
  pending: [],
  lastAnswer: null,
  failure: null,
  decidedGeneration: null,
  deletion: null,
  released: false,
});
