/**
 * The plan of the workload-cluster kinds: WorkloadCluster (machines/workload-cluster.ts) and WorkloadMachine (machines/workload-machine.ts).
 * Not built yet: no kind listed, so the plan says "plan is not built for <Kind> yet" and claims nothing.
 */
import type { PlanCoverage } from './coverage.js';

export const WORKLOAD: PlanCoverage = {
  kinds: [],
  rules: {},
  waits: {},
};
