/**
 * What the load-balancer machine keeps between passes (machines/load-balancer.ts). The plan reads only
 * `mutation`, `armed` and `deletion`; everything else is recorded for status and decides nothing.
 */
import type { ListenerRow } from './topology.js';
import type { DestroyTarget, PlanMemory } from './effects.js';
import type { Problem } from './topology.js';

/** The mutation decided last (LB12): what its result must name, and what is known of its answer. */
export interface Mutation extends PlanMemory {
  generation: number;
  /** LB9: a floating-IP create decided when nothing else remained: Neutron's answer completes the topology. */
  completes: boolean;
}

export interface LoadBalancerContext {
  uid: string;
  /** `lb-{lb}`, from the last pass's desired topology. */
  name: string | null;
  /** The Octavia id, once accepted or observed. */
  loadBalancerId: string | null;
  /**
   * The last fresh observation, for status only: Octavia's provisioning status word, the VIP, the floating
   * IP when exactly one was seen, and whether they make a usable endpoint (LB15, judged on every pass that
   * observed the load balancer, whatever it decided: only then is either published).
   */
  observed: { provisioningStatus: string | null; vipAddress: string | null; vipPortId: string | null; floatingIP: { id: string; address: string } | null; endpointUsable: boolean } | null;
  /** Per spec listener, what the last pass saw (status only). */
  listeners: ListenerRow[];
  mutation: Mutation | null;
  /** LB8/LB9: the destroy targets armed (only while `pruning`). */
  armed: DestroyTarget[];
  /** LB14: the deletion's write-ahead target and its delete requests. */
  deletion: { loadBalancerId: string | null; step: 'release' | 'cascade' | null; attempts: number; lastAt: string | null; conflicted: boolean } | null;
  problem: Problem | null;
  failure: { effect: string; subject: string; status: number; reason: string; generation: number } | null;
  invalidSpec: { generation: number; message: string } | null;
  /** What the last pass waited for (status only). */
  waiting: { reason: 'Pending' | 'CreateMayStillLand' | 'ObservationIncomplete' | 'NotObserved'; subjects: string[] } | null;
  /** Octavia's (or Neutron's) last answer (status only). */
  lastAnswer: { effect: string; answer: 'accepted' | 'conflict' | 'rejected' | 'notFound' | 'unknown' } | null;
  decidedGeneration: number | null;
}
