/**
 * The plan of the LoadBalancer kind: machines/load-balancer.ts and its topology (machines/load-balancer-topology.ts).
 * Not built yet: no kind listed, so the plan says "plan is not built for <Kind> yet" and claims nothing.
 */
import type { PlanCoverage } from './coverage.js';

export const LOAD_BALANCER: PlanCoverage = {
  kinds: [],
  rules: {},
  waits: {},
};
