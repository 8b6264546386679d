/**
 * Where the Nova operator's Jobs run (issue 14, "Where Jobs run"): the db-sync Job, the three upgrade
 * phase Jobs and the archive CronJob are effects behind this port. Two adapters:
 * - `kubernetes.ts`: batch/v1 Jobs and CronJobs through @kubernetes/client-node (the pod-template hash as an
 *   annotation, background propagation on delete, the termination message read off the Job's pod);
 * - `local.ts`: the embedded default, the same rendered scripts run as child processes.
 *
 * A Job is identified by namespace and name (`{nova}-db-sync`, `{nova}-db-expand`, …). Its `templateHash`
 * is the hash of everything that shapes its pod (script, image, env, config): the reconciler compares it
 * with the hash it would render now (failed with the same hash = permanent until the spec changes; failed or
 * complete with a changed hash = delete and re-create; complete with the same hash = done).
 */

/** An environment variable of the Job's container: a literal, or a key of a Secret in the Job's namespace. */
export type JobEnv = { name: string; value: string } | { name: string; secretKeyRef: { name: string; key: string } };

/** The Nova database blocks (spec.database.api, spec.database.cell). */
export type DatabaseBlockName = 'api' | 'cell';

/**
 * A database block's TLS client files as the Job's pod sees them (src/nova/database-tls.ts): each file a key of a
 * Secret in the Job's namespace, under `path` in `dir`. The DSNs' ssl_ca / ssl_cert / ssl_key point into `dir`,
 * so `dir` is what JobRunner.databaseTlsDir answers for the Nova and the block. Names only, never a value.
 */
export interface DatabaseTlsMount {
  block: DatabaseBlockName;
  dir: string;
  files: ReadonlyArray<{ secret: string; key: string; path: string }>;
}

export interface JobSpec {
  namespace: string;
  /** `{nova}-db-sync`, `{nova}-db-expand`, `{nova}-db-migrate`, `{nova}-db-contract`. */
  name: string;
  /** The Nova that owns it (owner reference on Kubernetes; recorded by the local runner). */
  owner: { kind: 'Nova'; name: string; uid: string };
  /** Labels (selection, metrics); the runner adds its own hash annotation. */
  labels: Readonly<Record<string, string>>;
  image: string;
  /** The rendered script, run as `/bin/sh -eu -c <script>`. */
  script: string;
  env: readonly JobEnv[];
  /**
   * The config directory the script reads as `$NOVA_CONFIG_DIR` (files by name, e.g. nova.conf). No secrets in
   * here: credentials travel as env from Secrets. Kubernetes: an immutable ConfigMap named `config.name`
   * mounted at /etc/nova; local: the files written to a directory of the Job's own.
   */
  config: { name: string; files: Readonly<Record<string, string>> };
  /**
   * The TLS client files of each database block whose tls is enabled (none otherwise). Kubernetes: a projected
   * volume per block at defaultMode 0400, the pod's fsGroup the openstack GID; local: written at 0400 into the
   * runner's private directory before the child starts.
   */
  databaseTls?: readonly DatabaseTlsMount[];
  /** The pod-template hash the reconciler compares (src/nova/jobs/template-hash.ts computes it). */
  templateHash: string;
  /** Retries of the pod (Kubernetes backoffLimit). Default 0: the phase machine decides retries. */
  backoffLimit?: number;
  /** Kubernetes activeDeadlineSeconds (the local runner kills the child after it). */
  activeDeadlineSeconds?: number;
}

export type JobState = 'running' | 'succeeded' | 'failed';

export interface ObservedJob {
  namespace: string;
  name: string;
  /** The Job's own UID (a re-created Job has a new one). */
  uid: string;
  /** The hash annotation the Job was created with; null when it carries none (not ours, or older). */
  templateHash: string | null;
  state: JobState;
  /**
   * ISO time the Job started, when known (Kubernetes: status.startTime; local: when the runner spawned the child).
   * With finishedAt it gives the Job's duration (src/observability/nova-metrics.ts); both come from one clock per runner.
   */
  startedAt?: string;
  /** ISO time the Job reached its terminal state, when it has. */
  finishedAt?: string;
  /** Why it failed, in words (reason + message of the Failed condition, or the exit code), when it failed. */
  failureMessage?: string;
}

export interface CronJobSpec {
  namespace: string;
  /** `{nova}-db-archive`. */
  name: string;
  owner: { kind: 'Nova'; name: string; uid: string };
  labels: Readonly<Record<string, string>>;
  schedule: string;
  suspend: boolean;
  image: string;
  script: string;
  env: readonly JobEnv[];
  config: { name: string; files: Readonly<Record<string, string>> };
  /** As JobSpec.databaseTls: each run's pod gets the files (nova-operator.md, "DBArchive": mode 0400, fsGroup). */
  databaseTls?: readonly DatabaseTlsMount[];
  templateHash: string;
  /** Always Forbid (nova-operator.md, "DBArchive"); recorded so the adapters cannot forget it. */
  concurrencyPolicy: 'Forbid';
  /** 3600 (nova-operator.md, "DBArchive"). */
  activeDeadlineSeconds: number;
}

export interface CronJobRuns {
  /** Whether the CronJob exists at all. */
  exists: boolean;
  suspended: boolean;
  /** The Jobs the CronJob controls (owner reference with controller=true to this CronJob's UID), any order. */
  runs: ObservedJob[];
}

/** A runner call failed (the API server refused or did not answer; the child could not be started). */
export class JobRunnerError extends Error {
  override readonly name = 'JobRunnerError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface JobRunner {
  /**
   * Where a Job's pod finds a database block's TLS client files: the DSNs Regent derives point their ssl_*
   * parameters here, so it is one directory per Nova and block, the same for every Job and archive run (the derived
   * DSN Secrets are shared by all of them). Kubernetes: the projected volume's mount path; local: a private
   * directory under the runner's own.
   */
  databaseTlsDir(namespace: string, nova: string, block: DatabaseBlockName): string;
  /** The Job by name, or undefined when none exists (or it is being deleted and is gone from reads). */
  get(namespace: string, name: string): Promise<ObservedJob | undefined>;
  /** Creates the Job. A Job of that name already existing raises JobRunnerError with status 409. */
  create(spec: JobSpec): Promise<void>;
  /** Deletes the Job and its pods (background propagation). Absent is success. */
  delete(namespace: string, name: string): Promise<void>;
  /**
   * The termination message of the Job's report pod: the pod carrying this Job's UID that succeeded, else
   * the newest pod carrying the UID; null when there is none or it wrote no message (src/nova/cells-report.ts
   * parses it). Pods of an earlier Job of the same name never count.
   */
  terminationMessage(job: ObservedJob): Promise<string | null>;
  /** Creates or updates the CronJob so it matches the spec. */
  ensureCronJob(spec: CronJobSpec): Promise<void>;
  /** The CronJob's suspend flag and the Jobs it controls. */
  cronJobRuns(namespace: string, name: string): Promise<CronJobRuns>;
  close?(): Promise<void>;
}
