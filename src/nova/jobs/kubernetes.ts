/**
 * The Kubernetes JobRunner (issue 14, "Where Jobs run"): batch/v1 Jobs and CronJobs through
 * @kubernetes/client-node 1.4.0 (promise API).
 *
 * - create: the config files as an immutable ConfigMap named `spec.config.name` (the caller names it by its
 *   content, so a 409 means the same files are already there), then the Job. The pod template and the Job carry
 *   the pod-template hash annotation; the Job is owned by the Nova (controller, blockOwnerDeletion) so deleting
 *   the Nova collects it. The ConfigMap is owned by the Nova too, not by the Job: two Jobs may share one
 *   content-addressed ConfigMap, and a Job-owned one could be collected between a re-created Job's 409 and its
 *   pod's mount.
 * - get: startedAt from status.startTime, finishedAt from completionTime or the Failed condition's
 *   lastTransitionTime — all written by the Job controller, one clock, so their difference is the Job's duration.
 *   The state from the Job's conditions, only the terminal ones (Complete → succeeded, Failed → failed with
 *   reason and message; FailureTarget/SuccessCriteriaMet alone still count as running, the pods are still
 *   terminating). A Job with a deletionTimestamp is reported as `running` with its hash: it still holds the name
 *   (a create would be refused 409), and its result is not one to act on, so the caller waits until it is gone.
 * - delete: background propagation, because the batch/v1 default is Orphan and would leave the pods, and their
 *   termination messages, behind; 404 is success.
 * - terminationMessage: a direct pod list by `batch.kubernetes.io/controller-uid=<uid>` (then the legacy
 *   `controller-uid` label, clusters before 1.27), every time: never a watch or an informer (nova-operator.md,
 *   "The cells sequence": the operator's RBAC does not let it watch pods). The succeeded pod, else the newest.
 * - ensureCronJob: read, then create or replace (PUT with the read's resourceVersion) only when the hash
 *   annotation, suspend or schedule differ; concurrencyPolicy Forbid; history limits 3/1 written explicitly.
 * - cronJobRuns: the Jobs carrying the CronJob's jobTemplate labels whose controller reference is the CronJob's
 *   UID; a Job with the labels and another controller is not a run of this CronJob.
 *
 * - the pod: fsGroup the openstack GID (nova-operator.md, "DBArchive": like the long-lived workloads); each database
 *   block whose tls is enabled gets a projected volume of its Secrets' keys (ca.crt; tls.crt, tls.key) at
 *   defaultMode 0400, mounted read-only at /etc/nova-db-tls/<block>, where the DSNs' ssl_* parameters point. With
 *   fsGroup the kubelet makes the files group-owned by the openstack group and group-readable (0440), so nova-manage,
 *   running as the openstack user, can read its client key and nobody else can.
 *
 * Every client failure becomes JobRunnerError with the HTTP status (none for a connection failure), in words
 * of our own plus the API server's Status reason and message (the client's own message embeds the whole response).
 * Caveat: content-addressed ConfigMaps of earlier configs stay until the Nova is deleted.
 */
import { BatchV1Api, CoreV1Api, type KubeConfig, type V1CronJob, type V1EnvVar, type V1Job, type V1ObjectMeta, type V1OwnerReference, type V1Pod, type V1PodTemplateSpec, type V1Volume, type V1VolumeMount } from '@kubernetes/client-node';
import { OPENSTACK_GID, podDatabaseTlsDir } from '../database-tls.js';
import { JobRunnerError, type CronJobRuns, type CronJobSpec, type DatabaseBlockName, type DatabaseTlsMount, type JobEnv, type JobRunner, type JobSpec, type ObservedJob } from './port.js';
import { TEMPLATE_HASH_ANNOTATION } from './template-hash.js';
import { withOwnership, type Ownership } from '../ownership.js';

export const CONTAINER_NAME = 'nova-manage';
export const CONFIG_MOUNT_PATH = '/etc/nova';
export const TERMINATION_LOG_PATH = '/dev/termination-log';
const CONFIG_VOLUME = 'nova-config';
/** The TLS files: owner-read only; fsGroup adds the group's read (nova-operator.md, "DBArchive"). */
export const DATABASE_TLS_MODE = 0o400;
const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
const NOVA_API_VERSION = 'regent.dev/v1alpha1';

export interface KubernetesJobRunnerOptions extends Ownership {
  /** The kubeconfig of the cluster the Jobs run in. */
  readonly kubeConfig: KubeConfig;
}

type Owner = JobSpec['owner'];
interface PodShape {
  labels: Readonly<Record<string, string>>;
  image: string;
  script: string;
  env: readonly JobEnv[];
  config: { name: string };
  databaseTls?: readonly DatabaseTlsMount[];
  templateHash: string;
}

const tlsVolumeName = (mount: DatabaseTlsMount): string => `db-tls-${mount.block}`;

/** One projected volume per block: each Secret once, with the keys it contributes. */
const tlsVolume = (mount: DatabaseTlsMount): V1Volume => {
  const bySecret = new Map<string, Array<{ key: string; path: string }>>();
  for (const f of mount.files) bySecret.set(f.secret, [...(bySecret.get(f.secret) ?? []), { key: f.key, path: f.path }]);
  return { name: tlsVolumeName(mount), projected: { defaultMode: DATABASE_TLS_MODE, sources: [...bySecret].map(([name, items]) => ({ secret: { name, items } })) } };
};

const ownerReference = (owner: Owner): V1OwnerReference => ({ apiVersion: NOVA_API_VERSION, kind: owner.kind, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true });

const envVar = (env: JobEnv): V1EnvVar => ('secretKeyRef' in env ? { name: env.name, valueFrom: { secretKeyRef: { name: env.secretKeyRef.name, key: env.secretKeyRef.key } } } : { name: env.name, value: env.value });

/** The pod template a Job and the CronJob's jobTemplate share. NOVA_CONFIG_DIR comes last so it wins. */
export const podTemplate = (shape: PodShape): V1PodTemplateSpec => {
  const tls = shape.databaseTls ?? [];
  const tlsMounts: V1VolumeMount[] = tls.map((m) => ({ name: tlsVolumeName(m), mountPath: m.dir, readOnly: true }));
  return {
    metadata: { labels: { ...shape.labels }, annotations: { [TEMPLATE_HASH_ANNOTATION]: shape.templateHash } },
    spec: {
      restartPolicy: 'Never',
      securityContext: { fsGroup: OPENSTACK_GID },
      containers: [
        {
          name: CONTAINER_NAME,
          image: shape.image,
          command: ['/bin/sh', '-eu', '-c', shape.script],
          env: [...shape.env.filter((e) => e.name !== 'NOVA_CONFIG_DIR').map(envVar), { name: 'NOVA_CONFIG_DIR', value: CONFIG_MOUNT_PATH }],
          volumeMounts: [{ name: CONFIG_VOLUME, mountPath: CONFIG_MOUNT_PATH, readOnly: true }, ...tlsMounts],
          terminationMessagePath: TERMINATION_LOG_PATH,
          terminationMessagePolicy: 'File',
        },
      ],
      volumes: [{ name: CONFIG_VOLUME, configMap: { name: shape.config.name } }, ...tls.map(tlsVolume)],
    },
  };
};

/** The exact Job body `create` sends. */
export const jobBody = (spec: JobSpec): V1Job => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: spec.name, namespace: spec.namespace, labels: { ...spec.labels }, annotations: { [TEMPLATE_HASH_ANNOTATION]: spec.templateHash }, ownerReferences: [ownerReference(spec.owner)] },
  spec: {
    backoffLimit: spec.backoffLimit ?? 0,
    ...(spec.activeDeadlineSeconds === undefined ? {} : { activeDeadlineSeconds: spec.activeDeadlineSeconds }),
    template: podTemplate(spec),
  },
});

/** The exact CronJob body `ensureCronJob` sends (without resourceVersion). */
export const cronJobBody = (spec: CronJobSpec): V1CronJob => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name: spec.name, namespace: spec.namespace, labels: { ...spec.labels }, annotations: { [TEMPLATE_HASH_ANNOTATION]: spec.templateHash }, ownerReferences: [ownerReference(spec.owner)] },
  spec: {
    schedule: spec.schedule,
    suspend: spec.suspend,
    concurrencyPolicy: spec.concurrencyPolicy,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    jobTemplate: {
      metadata: { labels: { ...spec.labels }, annotations: { [TEMPLATE_HASH_ANNOTATION]: spec.templateHash } },
      // backoffLimit 0: a failed archive run is retried by the next firing, not by a second pod within the hour.
      spec: { backoffLimit: 0, activeDeadlineSeconds: spec.activeDeadlineSeconds, template: podTemplate(spec) },
    },
  },
});

const configMapBody = (spec: JobSpec) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: spec.config.name, namespace: spec.namespace, labels: { ...spec.labels }, ownerReferences: [ownerReference(spec.owner)] },
  immutable: true,
  data: { ...spec.config.files },
});

const iso = (t: Date | string | undefined): string | undefined => (t === undefined ? undefined : t instanceof Date ? t.toISOString() : new Date(t).toISOString());

/** The port's view of a Job object. */
export const observeJob = (job: V1Job): ObservedJob => {
  const metadata: V1ObjectMeta = job.metadata ?? {};
  const startedAt = iso(job.status?.startTime);
  const base = { namespace: metadata.namespace ?? '', name: metadata.name ?? '', uid: metadata.uid ?? '', templateHash: metadata.annotations?.[TEMPLATE_HASH_ANNOTATION] ?? null, ...(startedAt ? { startedAt } : {}) };
  if (metadata.deletionTimestamp !== undefined) return { ...base, state: 'running' };
  const conditions = job.status?.conditions ?? [];
  const complete = conditions.find((c) => c.type === 'Complete' && c.status === 'True');
  if (complete) {
    const finishedAt = iso(job.status?.completionTime ?? complete.lastTransitionTime);
    return { ...base, state: 'succeeded', ...(finishedAt ? { finishedAt } : {}) };
  }
  const failed = conditions.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed) {
    const finishedAt = iso(failed.lastTransitionTime);
    const failureMessage = [failed.reason, failed.message].filter((s) => s !== undefined && s !== '').join(': ') || 'the Job failed';
    return { ...base, state: 'failed', failureMessage, ...(finishedAt ? { finishedAt } : {}) };
  }
  return { ...base, state: 'running' };
};

const created = (pod: V1Pod): number => {
  const t = pod.metadata?.creationTimestamp;
  return t === undefined ? 0 : new Date(t).getTime();
};

/** The report pod: the one that succeeded (newest of them), else the newest (nova-operator.md, "The cells sequence"). */
const pickReportPod = (pods: readonly V1Pod[]): V1Pod | undefined => {
  const newestFirst = [...pods].sort((a, b) => created(b) - created(a) || (b.metadata?.name ?? '').localeCompare(a.metadata?.name ?? ''));
  return newestFirst.find((p) => p.status?.phase === 'Succeeded') ?? newestFirst[0];
};

const messageOf = (pod: V1Pod): string | null => {
  const statuses = pod.status?.containerStatuses ?? [];
  const ordered = [...statuses.filter((s) => s.name === CONTAINER_NAME), ...statuses.filter((s) => s.name !== CONTAINER_NAME)];
  for (const s of ordered) {
    const message = s.state?.terminated?.message;
    if (message !== undefined && message !== '') return message;
  }
  return null;
};

interface StatusLike {
  reason?: string;
  message?: string;
}

const statusOf = (body: unknown): StatusLike => {
  if (typeof body === 'string') {
    try {
      return JSON.parse(body) as StatusLike;
    } catch {
      return {};
    }
  }
  return typeof body === 'object' && body !== null ? (body as StatusLike) : {};
};

/** JobRunnerError for anything the client threw: ApiException carries `.code` and the Status `.body`. */
export const runnerError = (error: unknown, what: string): JobRunnerError => {
  if (error instanceof JobRunnerError) return error;
  const candidate = error as { code?: unknown; body?: unknown } | undefined;
  if (typeof candidate?.code === 'number') {
    const status = statusOf(candidate.body);
    const reason = typeof status.reason === 'string' && /^[A-Za-z]+$/.test(status.reason) ? ` ${status.reason}` : '';
    const message = typeof status.message === 'string' && status.message !== '' ? `: ${status.message.slice(0, 300)}` : '';
    return new JobRunnerError(`${what}: the API server answered ${candidate.code}${reason}${message}`, candidate.code);
  }
  const errno = (error as NodeJS.ErrnoException | undefined)?.code ?? (error as { cause?: NodeJS.ErrnoException } | undefined)?.cause?.code;
  return new JobRunnerError(`${what}: cannot reach the Kubernetes API${typeof errno === 'string' ? ` (${errno})` : ''}`);
};

const codeOf = (error: unknown): number | undefined => {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
};

const selectorOf = (labels: Readonly<Record<string, string>>): string =>
  Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');

export class KubernetesJobRunner implements JobRunner {
  private readonly batch: BatchV1Api;
  private readonly core: CoreV1Api;
  private readonly ownership: Ownership;

  constructor(options: KubernetesJobRunnerOptions) {
    this.ownership = { remote: options.remote === true };
    this.batch = options.kubeConfig.makeApiClient(BatchV1Api);
    this.core = options.kubeConfig.makeApiClient(CoreV1Api);
  }

  /** The projected volume's mount path: the same in every pod, so one DSN Secret serves every Job. */
  databaseTlsDir(_namespace: string, _nova: string, block: DatabaseBlockName): string {
    return podDatabaseTlsDir(block);
  }

  async get(namespace: string, name: string): Promise<ObservedJob | undefined> {
    try {
      return observeJob(await this.batch.readNamespacedJob({ namespace, name }));
    } catch (error) {
      if (codeOf(error) === 404) return undefined;
      throw runnerError(error, `reading Job ${namespace}/${name}`);
    }
  }

  async create(spec: JobSpec): Promise<void> {
    try {
      await this.core.createNamespacedConfigMap({ namespace: spec.namespace, body: withOwnership(configMapBody(spec), spec.owner.uid, this.ownership) });
    } catch (error) {
      // Content-addressed: a ConfigMap of that name holds these files already.
      if (codeOf(error) !== 409) throw runnerError(error, `creating ConfigMap ${spec.namespace}/${spec.config.name} for Job ${spec.name}`);
    }
    try {
      await this.batch.createNamespacedJob({ namespace: spec.namespace, body: withOwnership(jobBody(spec), spec.owner.uid, this.ownership) });
    } catch (error) {
      throw runnerError(error, `creating Job ${spec.namespace}/${spec.name}`);
    }
  }

  async delete(namespace: string, name: string): Promise<void> {
    try {
      await this.batch.deleteNamespacedJob({ namespace, name, propagationPolicy: 'Background' });
    } catch (error) {
      if (codeOf(error) === 404) return;
      throw runnerError(error, `deleting Job ${namespace}/${name}`);
    }
  }

  async terminationMessage(job: ObservedJob): Promise<string | null> {
    if (job.uid === '') return null;
    const list = async (label: string): Promise<V1Pod[]> => {
      try {
        return (await this.core.listNamespacedPod({ namespace: job.namespace, labelSelector: `${label}=${job.uid}` })).items;
      } catch (error) {
        throw runnerError(error, `listing the pods of Job ${job.namespace}/${job.name}`);
      }
    };
    let pods = await list(CONTROLLER_UID_LABEL);
    if (pods.length === 0) pods = await list(LEGACY_CONTROLLER_UID_LABEL);
    const pod = pickReportPod(pods);
    return pod ? messageOf(pod) : null;
  }

  async ensureCronJob(spec: CronJobSpec): Promise<void> {
    const what = `CronJob ${spec.namespace}/${spec.name}`;
    let current: V1CronJob | undefined;
    try {
      current = await this.batch.readNamespacedCronJob({ namespace: spec.namespace, name: spec.name });
    } catch (error) {
      if (codeOf(error) !== 404) throw runnerError(error, `reading ${what}`);
    }
    const body = withOwnership(cronJobBody(spec), spec.owner.uid, this.ownership);
    if (current === undefined) {
      try {
        await this.batch.createNamespacedCronJob({ namespace: spec.namespace, body });
      } catch (error) {
        throw runnerError(error, `creating ${what}`);
      }
      return;
    }
    const same = current.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION] === spec.templateHash && current.spec?.suspend === spec.suspend && current.spec?.schedule === spec.schedule;
    if (same) return;
    try {
      await this.batch.replaceNamespacedCronJob({ namespace: spec.namespace, name: spec.name, body: { ...body, metadata: { ...body.metadata, resourceVersion: current.metadata?.resourceVersion } } });
    } catch (error) {
      throw runnerError(error, `replacing ${what}`);
    }
  }

  async cronJobRuns(namespace: string, name: string): Promise<CronJobRuns> {
    let cron: V1CronJob;
    try {
      cron = await this.batch.readNamespacedCronJob({ namespace, name });
    } catch (error) {
      if (codeOf(error) === 404) return { exists: false, suspended: false, runs: [] };
      throw runnerError(error, `reading CronJob ${namespace}/${name}`);
    }
    const uid = cron.metadata?.uid;
    const labels = cron.spec?.jobTemplate.metadata?.labels ?? cron.metadata?.labels ?? {};
    let jobs: V1Job[];
    try {
      jobs = (await this.batch.listNamespacedJob({ namespace, labelSelector: selectorOf(labels) })).items;
    } catch (error) {
      throw runnerError(error, `listing the Jobs of CronJob ${namespace}/${name}`);
    }
    const controlled = jobs.filter((j) => uid !== undefined && (j.metadata?.ownerReferences ?? []).some((r) => r.controller === true && r.uid === uid));
    return { exists: true, suspended: cron.spec?.suspend === true, runs: controlled.map(observeJob) };
  }
}
