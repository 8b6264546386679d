/**
 * metav1.Condition-shaped conditions and the one rule every projection follows when writing them:
 * an unchanged condition (same status) keeps its lastTransitionTime; every write stamps the
 * observedGeneration it was computed for.
 */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

export type ConditionInput = Omit<Condition, 'observedGeneration' | 'lastTransitionTime'>;

/**
 * The next list of conditions: `inputs` in order, each keeping the previous lastTransitionTime when
 * its status did not change, else stamped with `at` (the time of the event that changed it, so a
 * projection replayed later renders the same times).
 */
export const mergeConditions = (previous: readonly Condition[] | undefined, inputs: readonly ConditionInput[], generation: number, at: string): Condition[] =>
  inputs.map((input) => {
    const before = previous?.find((c) => c.type === input.type);
    const lastTransitionTime = before && before.status === input.status ? before.lastTransitionTime : at;
    return { ...input, observedGeneration: generation, lastTransitionTime };
  });

export const conditionOf = (conditions: readonly Condition[] | undefined, type: string): Condition | undefined => conditions?.find((c) => c.type === type);
