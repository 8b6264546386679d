/**
 * The Nova roles' Deployments as the Database step sees them (nova-operator.md, "Release upgrade"): during an
 * upgrade the RollingUpdate phase flips to Contracting only once every rendered role has rolled onto the new
 * image, in the pipeline's order (conductor, scheduler, metadata, the console proxy when enabled, then the
 * API); after the contract phase the four non-API roles roll once more through the
 * `nova.c5c3.io/installed-release` pod-template annotation.
 *
 * The workload steps that create these Deployments are not built yet (issue 14 is part 1); this port only
 * reads them and stamps the annotation. Adapters: `kubernetes.ts` (apps/v1 through @kubernetes/client-node);
 * the embedded default has no Deployments at all, so every role reads as absent (not rolled out).
 */

/** The roles in the order an upgrade rolls them. */
export const UPGRADE_ROLE_ORDER = ['conductor', 'scheduler', 'metadata', 'novncproxy', 'api'] as const;
export type NovaRole = (typeof UPGRADE_ROLE_ORDER)[number];
/** The roles the installed-release annotation rolls once more after the contract phase. */
export const NON_API_ROLES: readonly NovaRole[] = ['conductor', 'scheduler', 'metadata', 'novncproxy'];

export const INSTALLED_RELEASE_ANNOTATION = 'nova.c5c3.io/installed-release';

/** `{nova}-conductor`, `{nova}-scheduler`, `{nova}-metadata`, `{nova}-novncproxy`, `{nova}-api`. */
export const deploymentName = (nova: string, role: NovaRole): string => `${nova}-${role}`;

export interface RoleRollout {
  role: NovaRole;
  deployment: string;
  /** False when the Deployment does not exist: a missing Deployment is not rolled out. */
  present: boolean;
  /**
   * True exactly when the Deployment's pod template runs `image`, its controller observed the current
   * generation, and every replica is updated, ready and available.
   */
  rolledOut: boolean;
  /** In words: what is still rolling (e.g. "1 of 2 replicas updated", "runs image …:2025.2"). */
  detail: string;
}

export class WorkloadError extends Error {
  override readonly name = 'WorkloadError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface WorkloadPort {
  /** How far the role's Deployment has rolled onto `image`. */
  rollout(namespace: string, nova: string, role: NovaRole, image: string): Promise<RoleRollout>;
  /**
   * Sets the installed-release annotation on the role's pod template (which rolls it). 'absent' when the
   * Deployment does not exist; 'unchanged' when it already carries the release.
   */
  stampInstalledRelease(namespace: string, nova: string, role: NovaRole, release: string): Promise<'stamped' | 'unchanged' | 'absent'>;
}

/** The embedded default: no Kubernetes, so no Deployments; the roles are not run by Regent there. */
export const noWorkloads: WorkloadPort = {
  rollout: async (_namespace, nova, role) => ({
    role,
    deployment: deploymentName(nova, role),
    present: false,
    rolledOut: false,
    detail: `no Deployment ${deploymentName(nova, role)}: the embedded default runs no Nova roles (they need Kubernetes)`,
  }),
  stampInstalledRelease: async () => 'absent',
};
