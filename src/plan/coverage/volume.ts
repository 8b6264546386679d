/**
 * The plan of the Volume kind: its lifecycle (machines/volume-lifecycle.ts), its metadata and its attachments (machines/volume-attachment.ts).
 * Not built yet: no kind listed, so the plan says "plan is not built for <Kind> yet" and claims nothing.
 */
import type { PlanCoverage } from './coverage.js';

export const VOLUME: PlanCoverage = {
  kinds: [],
  rules: {},
  waits: {},
};
