/**
 * What a plan says, as data (`regent plan -o json` prints it as is) — per resource of the manifests, in document
 * order: what `apply` would do to the object, then each decision the resource's machines would take next, in order,
 * with the rule that authorizes it, the effects it would declare (the OpenStack request each would send, secrets as
 * `sha256:` digests) and whether it is destructive, and where the plan stops and why.
 */
import type { Rule } from './rules.js';
import type { RefusedCall } from './read-only-cloud.js';
import type { RecordedWrite } from './read-only-source.js';

export interface PlannedEffect {
  /** The effect type (`nova.rebuild`). */
  type: string;
  /** The effect's parameters as declared, secrets as digests. */
  params: Record<string, unknown>;
  destructive: boolean;
  /**
   * The OpenStack request(s) the effect's handler would send: its real handler run against the read-only guard, which
   * stops each mutation before it leaves (a read it makes first goes to the cloud). Empty when it would send none.
   */
  calls: RefusedCall[];
}

export interface PlannedDecision {
  /** Which of the plan's passes decided it (1: the pass the change would wake). */
  pass: number;
  stream: string;
  machine: string;
  /** The event type it would be stored as (`serverRebuild.armed`). */
  event: string;
  from: string;
  to: string;
  /** The rule the machine's source labels the transition with; absent when the transition has no label (yet). */
  rule?: Rule;
  effects: PlannedEffect[];
  destructive: boolean;
  /** What the machine waits for after it, when known. */
  then?: string;
}

export type ResourceVerdict =
  /** the passes ran: `decisions` is what they would decide (maybe nothing) */
  | 'planned'
  /** `apply` would refuse the document: `refusal` is its message */
  | 'refused'
  /** `apply` stops at an earlier refusal: this document would not be applied */
  | 'not-applied'
  /** the kind's plan is not built yet: nothing is claimed */
  | 'not-built'
  /** the plan of this resource failed (`error`) */
  | 'failed'
  /** a v1 Secret document: it would go to the secret store (keys only) */
  | 'secret';

export interface ResourcePlan {
  kind: string;
  namespace: string;
  name: string;
  /** The file and document it comes from. */
  where: string;
  verdict: ResourceVerdict;
  /** What `apply` (or, planning a deletion, `regent delete`) would do to the stored object. */
  apply?: 'created' | 'configured' | 'unchanged' | 'deleted';
  /** Apply's message (verdict `refused`), or, with `refusedBy: 'controller'`, what the kind's pass would record. */
  refusal?: string;
  /** Who refuses: `apply` (the default, verdict `refused`) or the kind's pass (an unresolvable image or flavor, L9). */
  refusedBy?: 'apply' | 'controller';
  message?: string;
  decisions: PlannedDecision[];
  /** Where the plan stops, and why (the wait after the last decision, a mutation the pass itself would send, …). */
  stops?: string;
  /** Each pass's disposition, as the controller would read it. */
  passes: string[];
  /** Writes to the resource source the passes would make (finalizers, Kubernetes events): recorded, never written. */
  writes: RecordedWrite[];
  destructive: boolean;
}

export interface Plan {
  resources: ResourcePlan[];
  /** Some decision is destructive (exit 2). */
  destructive: boolean;
  /** `apply` or a kind's pass would refuse a document (exit 1 unless destructive). */
  refused: boolean;
  failed: boolean;
  /** The mutating requests the read-only guard stopped (all of them: the passes' and the effects' described calls). */
  guarded: RefusedCall[];
}

/** `regent plan`'s exit code: 2 with a destructive decision, 1 when apply would refuse or a resource's plan failed, else 0. */
export const exitCodeOf = (plan: Plan): number => (plan.destructive ? 2 : plan.refused || plan.failed ? 1 : 0);
