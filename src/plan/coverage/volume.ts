/**
 * The plan of the Volume kind: its lifecycle (machines/volume-lifecycle.ts), its metadata and its attachments (machines/volume-attachment.ts).
 * The attachments are decided by the Server's pass (src/controllers/server/volume-attachments.ts); their rows live
 * here with the volumes'. Not built yet: no kind listed, so the plan says "plan is not built for <Kind> yet" and claims nothing.
 */
import type { PlanCoverage } from './coverage.js';

export const VOLUME: PlanCoverage = {
  kinds: [],
  rules: {},
  waits: {
    volumeAttachment: {
      attachRequested: "after Nova accepts the attach: waits for Cinder's attachment to show it",
      detachRequested: "after Nova accepts the detach: waits for Cinder's attachment to be gone",
    },
  },
};
