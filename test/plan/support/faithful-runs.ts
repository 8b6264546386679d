/**
 * How many cases a faithfulness property test runs (test/plan/faithful*.test.ts): its own default, or
 * PLAN_FAITHFUL_RUNS (CI sets 30); PLAN_FAITHFUL_SEED replays one run's cases.
 */
export const faithfulRuns = (defaultRuns: number): { numRuns: number; seed?: number } => ({
  numRuns: Number(process.env.PLAN_FAITHFUL_RUNS ?? defaultRuns),
  ...(process.env.PLAN_FAITHFUL_SEED ? { seed: Number(process.env.PLAN_FAITHFUL_SEED) } : {}),
});
