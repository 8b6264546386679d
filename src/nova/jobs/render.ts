/**
 * The Database step's Jobs and the archive CronJob, rendered from a Nova (pure): `{name}-db-sync`,
 * `{name}-db-expand`, `{name}-db-migrate`, `{name}-db-contract` and `{name}-db-archive` (nova-operator.md,
 * "The cells sequence", "Release upgrade", "DBArchive").
 *
 * Credentials never enter a script, a config file or a hash: the Jobs read the two pymysql DSNs and the
 * transport URL from the derived Secrets (src/nova/connection-secrets.ts) as oslo.config option overrides
 * (`OS_API_DATABASE__CONNECTION`, `OS_DATABASE__CONNECTION`, `OS_DEFAULT__TRANSPORT_URL`; cell0's DSN as
 * `NOVA_CELL0_DATABASE_CONNECTION` for the contract's second pass; the service user's password for the expand
 * Job's nova-status). The config directory is the Config step's rendered config (src/nova/config/: nova.conf with
 * the pool settings Regent sizes max_user_connections by and spec.extraConfig over it, the role overlays,
 * api-paste.ini), handed in as `RenderOptions.config`: the Jobs mount the ConfigMap the roles mount, and its files
 * are in the template hash, so a changed config is a changed Job.
 *
 * A database block whose tls is enabled adds its TLS client files to every Job and the archive (databaseTls, in the
 * directory `databaseTlsDir` names: the Kubernetes mount path unless the runner says otherwise), and its Secret
 * names, keys and that directory to the template hash, so enabling TLS re-runs db-sync with the new DSNs. A Nova
 * without TLS renders and hashes exactly as before.
 */
import type { NovaSpec } from '../../resources/nova.js';
import { novaJobName, type NovaJob } from '../../../machines/nova/jobs.js';
import { databaseTlsMounts, podDatabaseTlsDir } from '../database-tls.js';
import { SERVICE_USER_PASSWORD_KEY } from '../config/env.js';
import { renderNovaConfig } from '../config/render.js';
import { podSettings } from '../config/settings.js';
import { NOVA_MANAGE, PREAMBLE } from '../scripts/shell.js';
import { archiveEnv, ARCHIVE_ACTIVE_DEADLINE_SECONDS, renderArchiveScript, renderContractScript, renderDbSyncScript, renderExpandScript, renderMigrateScript } from '../scripts/index.js';
import type { CronJobSpec, DatabaseBlockName, DatabaseTlsMount, JobEnv, JobSpec } from './port.js';
import { templateHash } from './template-hash.js';

/** The Secrets the Jobs read their connections from (materialized by src/nova/connection-secrets.ts). */
export const connectionSecretNames = (nova: string) => ({ api: `${nova}-api-db-connection`, cell: `${nova}-db-connection`, transport: `${nova}-transport-url` });
export const CONNECTION_KEY = 'connection';
export const CELL0_CONNECTION_KEY = 'cell0Connection';
export const TRANSPORT_URL_KEY = 'url';

export const archiveCronJobName = (nova: string): string => `${nova}-db-archive`;

/** The archive settings effectiveDBArchive resolves (docs/nova.md, "DBArchive"). */
export const DB_ARCHIVE_DEFAULTS = { schedule: '0 2 * * *', suspend: false, maxRows: 1000, sleepSeconds: 0 } as const;

export interface NovaRef {
  namespace: string;
  name: string;
  uid: string;
}

export interface RenderOptions {
  /** The local runner writes the cells report to a file; Kubernetes reads /dev/termination-log. */
  terminationLog?: string;
  /** Where the pod finds a block's TLS client files (JobRunner.databaseTlsDir); default the Kubernetes mount path. */
  databaseTlsDir?: (block: DatabaseBlockName) => string;
  /**
   * The config the Job mounts: the Config step's (src/nova/config/resolve.ts: the rendered one, or the live API's when
   * the spec cannot be rendered). Absent: rendered here from the spec with the pod settings and no Keystone URL, for a
   * caller that runs no Config step; a spec that cannot be rendered then throws (no Job on a config nobody checked).
   */
  config?: JobConfig;
}

/** A Job's config directory: the content-addressed ConfigMap's name and its files. */
export interface JobConfig {
  name: string;
  files: Readonly<Record<string, string>>;
}

/** The TLS mounts of the blocks whose tls is enabled, in the runner's directories. */
export const renderDatabaseTls = (spec: NovaSpec, options: RenderOptions = {}): DatabaseTlsMount[] => databaseTlsMounts(spec, options.databaseTlsDir ?? podDatabaseTlsDir);

/** The hash input of the TLS mounts: only when there are any, so a Nova without TLS keeps its hashes. */
const tlsHashInput = (mounts: readonly DatabaseTlsMount[]): { databaseTls?: readonly DatabaseTlsMount[] } => (mounts.length === 0 ? {} : { databaseTls: mounts });

/** The config a Job mounts: the caller's (the Config step's), else the spec rendered with the pod settings. */
export const jobConfig = (nova: NovaRef, spec: NovaSpec, options: RenderOptions = {}): JobConfig => {
  if (options.config) return { name: options.config.name, files: options.config.files };
  const render = renderNovaConfig({ name: nova.name, spec, settings: podSettings() });
  if (!render.ok) throw new Error(`the config of Nova ${nova.namespace}/${nova.name} cannot be rendered: ${render.problems.join('; ')}`);
  return { name: render.config.name, files: render.config.files };
};

/** The service user's password key (spec.serviceUser.secretRef). */
export { SERVICE_USER_PASSWORD_KEY };

/**
 * nova-status upgrade check calls Placement and checks the service-user token settings: the expand Job gets the
 * service user's password as the [placement] and [service_user] passwords. The rest of those sections (auth_url,
 * username, project) is the rendered config's (src/nova/config/sections.ts).
 */
const serviceUserEnv = (spec: NovaSpec): JobEnv[] =>
  ['OS_PLACEMENT__PASSWORD', 'OS_SERVICE_USER__PASSWORD'].map((name) => ({ name, secretKeyRef: { name: spec.serviceUser.secretRef.name, key: SERVICE_USER_PASSWORD_KEY } }));

const connectionEnv = (nova: string, withCell0: boolean): JobEnv[] => {
  const secrets = connectionSecretNames(nova);
  const env: JobEnv[] = [
    { name: 'OS_API_DATABASE__CONNECTION', secretKeyRef: { name: secrets.api, key: CONNECTION_KEY } },
    { name: 'OS_DATABASE__CONNECTION', secretKeyRef: { name: secrets.cell, key: CONNECTION_KEY } },
    { name: 'OS_DEFAULT__TRANSPORT_URL', secretKeyRef: { name: secrets.transport, key: TRANSPORT_URL_KEY } },
  ];
  if (withCell0) env.push({ name: 'NOVA_CELL0_DATABASE_CONNECTION', secretKeyRef: { name: secrets.cell, key: CELL0_CONNECTION_KEY } });
  return env;
};

const labels = (nova: string, job: string) => ({ 'app.kubernetes.io/managed-by': 'regent', 'app.kubernetes.io/name': 'nova', 'regent.dev/nova': nova, 'regent.dev/nova-job': job });

const scriptOf = (spec: NovaSpec, job: NovaJob, options: RenderOptions): string => {
  switch (job) {
    case 'sync':
      return renderDbSyncScript({ cellSchema: spec.database.cell.database, ...(options.terminationLog ? { terminationLog: options.terminationLog } : {}) });
    case 'expand':
      return renderExpandScript();
    case 'migrate':
      return renderMigrateScript();
    case 'contract':
      return renderContractScript();
  }
};

/** A Job of the Nova: its script and env over the Nova's config, TLS mounts and image, with its pod-template hash. */
const novaJob = (nova: NovaRef, spec: NovaSpec, job: { name: string; label: string; script: string; env: JobEnv[] }, options: RenderOptions): JobSpec => {
  const config = jobConfig(nova, spec, options);
  const databaseTls = renderDatabaseTls(spec, options);
  const { script, env } = job;
  return {
    namespace: nova.namespace,
    name: job.name,
    owner: { kind: 'Nova', name: nova.name, uid: nova.uid },
    labels: labels(nova.name, job.label),
    image: spec.image,
    script,
    env,
    config,
    ...(databaseTls.length > 0 ? { databaseTls } : {}),
    templateHash: templateHash({ image: spec.image, script, env, config, ...tlsHashInput(databaseTls) }),
    backoffLimit: 0,
  };
};

/** One of the Database step's Jobs, with its pod-template hash. */
export const renderNovaJob = (nova: NovaRef, spec: NovaSpec, job: NovaJob, options: RenderOptions = {}): JobSpec =>
  novaJob(nova, spec, { name: novaJobName(nova.name, job), label: `db-${job}`, script: scriptOf(spec, job, options), env: [...connectionEnv(nova.name, job === 'contract'), ...(job === 'expand' ? serviceUserEnv(spec) : [])] }, options);

/** The host-discovery Job a NovaCompute pool runs on its Nova's cluster (nova-operator.md, "reconcileNovaComputeServices"). */
export const discoverHostsJobName = (nova: string): string => `${nova}-discover-hosts`;

/**
 * `<nova>-discover-hosts`: `nova-manage cell_v2 discover_hosts` maps every unmapped nova-compute host of every cell
 * (a host without a mapping is left out of GET /os-hypervisors/detail at 2.88, so a pool's node stays Pending until
 * this ran). It reads the same connections and config as the Database step's Jobs; it belongs to the Nova.
 */
export const renderDiscoverHostsJob = (nova: NovaRef, spec: NovaSpec, options: RenderOptions = {}): JobSpec =>
  novaJob(nova, spec, { name: discoverHostsJobName(nova.name), label: 'discover-hosts', script: `# Nova host discovery (nova-operator.md, "reconcileNovaComputeServices"). Run as /bin/sh -eu -c.\n${PREAMBLE}\n${NOVA_MANAGE} cell_v2 discover_hosts --verbose\n`, env: connectionEnv(nova.name, false) }, options);

/** The hash each Job would carry if rendered now (what the machine compares the observed Jobs with). */
export const novaJobHashes = (nova: NovaRef, spec: NovaSpec, options: RenderOptions = {}): Record<NovaJob, string> => ({
  sync: renderNovaJob(nova, spec, 'sync', options).templateHash,
  expand: renderNovaJob(nova, spec, 'expand', options).templateHash,
  migrate: renderNovaJob(nova, spec, 'migrate', options).templateHash,
  contract: renderNovaJob(nova, spec, 'contract', options).templateHash,
});

/** The archive settings with their defaults. */
export const effectiveDBArchive = (spec: NovaSpec) => ({
  schedule: spec.dbArchive?.schedule ?? DB_ARCHIVE_DEFAULTS.schedule,
  suspend: spec.dbArchive?.suspend ?? DB_ARCHIVE_DEFAULTS.suspend,
  maxRows: spec.dbArchive?.maxRows ?? DB_ARCHIVE_DEFAULTS.maxRows,
  sleepSeconds: spec.dbArchive?.sleepSeconds ?? DB_ARCHIVE_DEFAULTS.sleepSeconds,
  ...(spec.dbArchive?.retentionDays !== undefined ? { retentionDays: spec.dbArchive.retentionDays } : {}),
});

/** The `{name}-db-archive` CronJob: ConcurrencyPolicy Forbid, activeDeadlineSeconds 3600. */
export const renderArchiveCronJob = (nova: NovaRef, spec: NovaSpec, options: RenderOptions = {}): CronJobSpec => {
  const settings = effectiveDBArchive(spec);
  const config = jobConfig(nova, spec, options);
  const script = renderArchiveScript();
  const databaseTls = renderDatabaseTls(spec, options);
  const env = [...connectionEnv(nova.name, false), ...archiveEnv({ maxRows: settings.maxRows, sleepSeconds: settings.sleepSeconds, ...(settings.retentionDays !== undefined ? { retentionDays: settings.retentionDays } : {}) })];
  return {
    namespace: nova.namespace,
    name: archiveCronJobName(nova.name),
    owner: { kind: 'Nova', name: nova.name, uid: nova.uid },
    labels: labels(nova.name, 'db-archive'),
    schedule: settings.schedule,
    suspend: settings.suspend,
    image: spec.image,
    script,
    env,
    config,
    ...(databaseTls.length > 0 ? { databaseTls } : {}),
    // the schedule and suspend are in the hash too: a changed setting re-projects the CronJob
    templateHash: templateHash({ image: spec.image, script: `${settings.schedule}\n${settings.suspend}\n${script}`, env, config, activeDeadlineSeconds: ARCHIVE_ACTIVE_DEADLINE_SECONDS, ...tlsHashInput(databaseTls) }),
    concurrencyPolicy: 'Forbid',
    activeDeadlineSeconds: ARCHIVE_ACTIVE_DEADLINE_SECONDS,
  };
};
