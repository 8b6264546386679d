// Behaviour knobs and transition delays. Defaults follow stock OpenStack (exact Cinder name filter,
// task_state visible, image ref flipped atomically with task_state); the knobs switch on the failure
// modes a control plane must survive.

export interface SimDelays {
  /** BUILD → ACTIVE (split over scheduling/networking/spawning). */
  serverBuild: number;
  serverDelete: number;
  /** os-stop, os-start, reboot settle. */
  serverAction: number;
  /** Each of the three rebuild task states (rebuilding, rebuild_block_device_mapping, rebuild_spawning). */
  rebuildStep: number;
  /** Only with nova.rebuildRefBeforeTaskState: how long the ref shows the target with task_state empty. */
  rebuildRefLag: number;
  /** createImage: task states until the snapshot image is active. */
  snapshot: number;
  volumeCreate: number;
  volumeDelete: number;
  volumeAttach: number;
  volumeDetach: number;
  /** os-extend and similar volume actions. */
  volumeAction: number;
  lbCreate: number;
  /** Child create/update/delete and LB update: PENDING_UPDATE → ACTIVE. */
  lbUpdate: number;
  lbDelete: number;
}

export const DEFAULT_DELAYS: SimDelays = {
  serverBuild: 300, serverDelete: 300, serverAction: 300, rebuildStep: 300, rebuildRefLag: 300, snapshot: 300,
  volumeCreate: 300, volumeDelete: 300, volumeAttach: 300, volumeDetach: 300, volumeAction: 300,
  lbCreate: 300, lbUpdate: 300, lbDelete: 300,
};

export interface BootRule {
  /** Regex (unanchored) on the server name, like the sandbox's nova.json. */
  match: string;
  /** never: stays BUILD forever (or rebuild_spawning forever on rebuild); error: ends in ERROR, never launched. */
  outcome: 'never' | 'error';
  /** Which spawn it applies to; default any. */
  phase?: 'boot' | 'rebuild' | 'any';
  message?: string;
}

export interface SimConfig {
  keystone: { tokenTtlMs: number };
  nova: {
    /** Omit OS-EXT-STS:task_state from server views, as a policy-restricted cloud does. */
    hideTaskState: boolean;
    /** Rebuild shows the target image with an empty task_state for delays.rebuildRefLag before the task starts. */
    rebuildRefBeforeTaskState: boolean;
    bootRules: BootRule[];
  };
  cinder: {
    /** `?name=` matches substrings instead of stock Cinder's exact match. */
    fuzzyNameFilter: boolean;
    /** Regex on the volume name: create ends in status error. */
    failCreate: string | null;
  };
  octavia: {
    /** operating_status once ACTIVE; the sandbox (no health manager) reports OFFLINE. */
    operatingStatus: 'OFFLINE' | 'ONLINE';
    /** Regex on the LB name: create (or a child change on it) ends in ERROR. */
    failProvisioning: string | null;
  };
  delays: SimDelays;
}

export function defaultConfig(delays: Partial<SimDelays> = {}): SimConfig {
  return {
    keystone: { tokenTtlMs: 3_600_000 },
    nova: { hideTaskState: false, rebuildRefBeforeTaskState: false, bootRules: [] },
    cinder: { fuzzyNameFilter: false, failCreate: null },
    octavia: { operatingStatus: 'OFFLINE', failProvisioning: null },
    delays: { ...DEFAULT_DELAYS, ...delays },
  };
}

/** Deep-merges a partial config over the current one (arrays are replaced, not merged). */
export function mergeConfig(target: Record<string, unknown>, patch: Record<string, unknown>, at = ''): void {
  for (const [k, v] of Object.entries(patch)) {
    if (!(k in target)) throw new Error(`unknown config key ${at}${k}`);
    const cur = target[k];
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && cur !== null && typeof cur === 'object' && !Array.isArray(cur)) {
      mergeConfig(cur as Record<string, unknown>, v as Record<string, unknown>, `${at}${k}.`);
    } else {
      target[k] = v;
    }
  }
}
