/**
 * The plan of the Nova operator kinds: Nova (machines/nova-upgrade.ts, nova-db-archive.ts, nova-pipeline.ts, nova-finalizer.ts) and NovaCompute (machines/nova-compute-pool.ts).
 * Not built yet: no kind listed, so the plan says "plan is not built for <Kind> yet" and claims nothing.
 */
import type { PlanCoverage } from './coverage.js';

export const NOVA: PlanCoverage = {
  kinds: [],
  rules: {},
  waits: {},
};
