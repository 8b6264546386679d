/** All the invariants, run over one run's evidence. */
import { destructiveAfterArm } from './destructive-after-arm.js';
import { noDuplicateName } from './no-duplicate-name.js';
import { novaJobs } from './nova-jobs.js';
import { noFalseProvisioned } from './no-false-provisioned.js';
import { noLostDecision } from './no-lost-decision.js';
import { noSecret } from './no-secret.js';
import { oneDestructivePerDecision } from './one-destructive-per-decision.js';
import { replayNoDivergence } from './replay-no-divergence.js';
import type { Invariant, InvariantInput, Violation } from './types.js';

export const ALL_INVARIANTS: readonly Invariant[] = [oneDestructivePerDecision, destructiveAfterArm, noLostDecision, noDuplicateName, noFalseProvisioned, replayNoDivergence, noSecret, novaJobs];

export const checkInvariants = (input: InvariantInput): Violation[] => ALL_INVARIANTS.flatMap((invariant) => invariant(input));
