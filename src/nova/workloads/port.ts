/**
 * Where the Nova roles run (nova-operator.md, "Pipeline" rows Conductor … Deployment, "Release upgrade"; issues 14
 * and 26). Two halves:
 *
 * - **WorkloadPort** (issue 14, read by the Database step and its effects): how far a role has rolled onto an image
 *   (the RollingUpdate → Contracting flip waits for every rendered role), and the `nova.c5c3.io/installed-release`
 *   stamp that rolls the four non-API roles once more after the contract phase.
 * - **RoleWorkloads** (issue 26, the workload steps): `ensure` a role from its RoleTemplate, `remove` one (the
 *   console proxy when disabled), the API's `endpoint`.
 *
 * Adapters: `kubernetes.ts` (apps/v1 Deployments, Services, policy/v1 PodDisruptionBudgets) and `local.ts` (the
 * embedded default: each role a supervised process of the installed Nova on loopback ports). `noWorkloads` is for
 * places that run none: every role reads as absent, so an upgrade waits in RollingUpdate there.
 *
 * Roles are ordered as an upgrade rolls them, which is the order the pipeline ensures them in: conductor,
 * scheduler, metadata, the console proxy, then the API.
 */
import type { DatabaseTlsMount, JobEnv } from '../jobs/port.js';

/** The roles in the order an upgrade rolls them. */
export const UPGRADE_ROLE_ORDER = ['conductor', 'scheduler', 'metadata', 'novncproxy', 'api'] as const;
export type NovaRole = (typeof UPGRADE_ROLE_ORDER)[number];
/** The roles the installed-release annotation rolls once more after the contract phase. */
export const NON_API_ROLES: readonly NovaRole[] = ['conductor', 'scheduler', 'metadata', 'novncproxy'];

export const INSTALLED_RELEASE_ANNOTATION = 'nova.c5c3.io/installed-release';

/** `{nova}-conductor`, `{nova}-scheduler`, `{nova}-metadata`, `{nova}-novncproxy`, `{nova}-api`; a role's Service has the same name. */
export const deploymentName = (nova: string, role: NovaRole): string => `${nova}-${role}`;

/**
 * The port each serving role listens on and its Service exposes (nova-operator.md, "Pipeline"): the API 8774, the
 * metadata API 8775, the console proxy 6080. The conductor and the scheduler take their work off the bus: no port,
 * no Service.
 */
export const ROLE_PORTS: Readonly<Partial<Record<NovaRole, number>>> = { api: 8774, metadata: 8775, novncproxy: 6080 };

/**
 * The role overlay each role loads after nova.conf, when the rendered config carries it (the Config step renders
 * "the four role overlays"; a role without one loads nova.conf alone).
 */
export const ROLE_OVERLAY_FILES: Readonly<Record<NovaRole, string>> = {
  conductor: 'nova-conductor.conf',
  scheduler: 'nova-scheduler.conf',
  metadata: 'nova-metadata.conf',
  novncproxy: 'nova-novncproxy.conf',
  api: 'nova-api.conf',
};

/** The Nova that owns a role's objects (controller owner reference on Kubernetes). */
export interface NovaOwner {
  name: string;
  uid: string;
}

/**
 * Everything a role's pods (or local process) are made of. No secret value is in here: env names a Secret key
 * (Kubernetes: valueFrom.secretKeyRef; local: read into the process's environment at start), and the credentials'
 * digests stand for their values in `annotations`, so a rotated credential changes `templateHash`.
 */
export interface RoleTemplate {
  image: string;
  /** The rendered configuration: the content-addressed ConfigMap's name and its files (nova.conf, the overlays). */
  config: { name: string; files: Readonly<Record<string, string>> };
  /** The role's overlay among `config.files`, loaded after nova.conf; none when the config carries none. */
  overlay?: string;
  /** DSNs, the transport URL, passwords: each a Secret key, never a literal credential. */
  env: readonly JobEnv[];
  /** Pod-template annotations: the rotation digests the role carries (nova-operator.md, "Rotation and deletion"). */
  annotations: Readonly<Record<string, string>>;
  /**
   * The database TLS client files, in the directories the DSNs name (Kubernetes: projected volumes at 0400; locally
   * the Job runner's directory, which its Jobs wrote before any role could start: the Database step runs first).
   */
  databaseTls?: readonly DatabaseTlsMount[];
  /**
   * On a TLS bus, the broker CA bundle: a Secret key (Kubernetes: mounted at the path the rendered config names,
   * /etc/nova-messaging-tls/ca.crt; locally written for the process and named in its regent-local.conf).
   */
  messagingCA?: { secret: string; key: string };
  /** Kubernetes: spec.replicas. Locally one process serves each role (see local.ts). Not in the hash: a scale is not a roll. */
  replicas: number;
  /**
   * An HPA owns spec.replicas (the API with spec.autoscaling): ensure neither compares nor overwrites the live count
   * (a new Deployment starts at `replicas`, the HPA's minimum). Not in the hash.
   */
  autoscaled?: boolean;
  /** The listen port, and the Service's (ROLE_PORTS); none for the conductor and the scheduler. */
  port?: number;
  /** The API's PodDisruptionBudget. */
  podDisruptionBudget?: { maxUnavailable: number };
  /** roleTemplateHash of the above (./template-hash.ts): what "runs the current template" is judged by. */
  templateHash: string;
}

export interface RoleRollout {
  role: NovaRole;
  deployment: string;
  /** False when the Deployment (the local process's record) does not exist: a missing one is not rolled out. */
  present: boolean;
  /**
   * rollout(image): the role runs `image`, its controller observed the current generation, and every replica is
   * updated, ready and available. ensure(template): the same for the template's image and hash.
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

/** The part the Database step reads and its effects write (issue 14). */
export interface WorkloadPort {
  /** How far the role has rolled onto `image`. */
  rollout(namespace: string, nova: string, role: NovaRole, image: string): Promise<RoleRollout>;
  /**
   * Sets the installed-release annotation on the role's pod template (which rolls it). 'absent' when the
   * Deployment does not exist; 'unchanged' when it already carries the release.
   */
  stampInstalledRelease(namespace: string, nova: string, role: NovaRole, release: string): Promise<'stamped' | 'unchanged' | 'absent'>;
}

/** The workload steps' port (issue 26): the roles made to match their templates. */
export interface RoleWorkloads extends WorkloadPort {
  /**
   * Makes the role run `template` (creates it, or replaces it when its templateHash or replicas differ; the
   * Service and the PDB with it) and answers how far it has rolled out onto it. A pass whose template is unchanged
   * writes nothing.
   */
  ensure(namespace: string, nova: NovaOwner, role: NovaRole, template: RoleTemplate): Promise<RoleRollout>;
  /** Removes the role (its Deployment, Service, PDB; locally: stops the process). 'absent' when nothing was there. */
  remove(namespace: string, nova: string, role: NovaRole): Promise<'removed' | 'absent'>;
  /** The API's URL (Kubernetes: the Service's cluster-local URL; local: http://127.0.0.1:<port>), undefined while it has none. */
  endpoint(namespace: string, nova: string): Promise<string | undefined>;
  /** Stops what the adapter runs itself (local: every role process, SIGTERM then SIGKILL). */
  close?(): Promise<void>;
}

/** Whether a port can run roles (the runtimes' adapters can; a read-only test double cannot). */
export const runsRoles = (port: WorkloadPort): port is RoleWorkloads => typeof (port as Partial<RoleWorkloads>).ensure === 'function';

const noneDetail = (nova: string, role: NovaRole): string => `no Deployment ${deploymentName(nova, role)}: this runtime runs no Nova roles`;

/** For places that run no roles: every role reads as absent (not rolled out), so an upgrade waits in RollingUpdate. */
export const noWorkloads: RoleWorkloads = {
  rollout: async (_namespace, nova, role) => ({ role, deployment: deploymentName(nova, role), present: false, rolledOut: false, detail: noneDetail(nova, role) }),
  stampInstalledRelease: async () => 'absent',
  ensure: async (_namespace, nova, role) => ({ role, deployment: deploymentName(nova.name, role), present: false, rolledOut: false, detail: noneDetail(nova.name, role) }),
  remove: async () => 'absent',
  endpoint: async () => undefined,
};
