/**
 * What a machine waits for after a decision, in words: the meaning of the state the decision leaves it in. A plan
 * stops a branch where the next decision depends on something that has not happened — an effect's answer, the cloud
 * settling, a later pass — and says which, rather than guessing what comes after.
 *
 * Keyed by machine and outcome; a decision not listed falls back to what its pass's disposition said (the next pass
 * and when, or that nothing follows).
 *
 * The words live beside each group's rules (src/plan/coverage/).
 */
import { COVERED_WAITS } from './coverage/index.js';

export const WAITS = COVERED_WAITS;

/** The wait after a decision, or undefined when this table does not know it. */
export const waitAfter = (machine: string, outcome: string): string | undefined => WAITS[machine]?.[outcome];
