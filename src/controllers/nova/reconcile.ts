/**
 * The Nova controller's pass (nova-operator.md, "Database", "The cells sequence", "Release upgrade",
 * "DBArchive"; issue 14 — part 1 of the pipeline: the Database and DBArchive steps).
 *
 *   1. the database credentials (each block's Secret, and its TLS Secrets when its tls is enabled) and the plan
 *      (schema and user names checked first);
 *   2. both blocks provisioned through the DatabaseProvisioner (nova_api under {name}-api, then the cell block
 *      with cell0) — an idempotent projection of the spec, like the derived Secrets after it: applying either
 *      again changes nothing, and nothing irreversible happens here;
 *   3. the transport URL (the config the Jobs need) and the derived connection Secrets;
 *   4. the four Jobs observed, their hashes rendered, the db-sync report read once per Job, the roles' rollout
 *      read while RollingUpdate → one `pass` stimulus; machines/nova-upgrade.ts decides; its effects (create or
 *      delete a Job, stamp the roles) run after the decision is stored;
 *   5. once DatabaseReady is True, the DBArchive step (machines/nova-db-archive.ts).
 *
 * Requeues as the spec's table (docs/nova.md): 30 s for the database, config and Job waits, 10 s for the
 * rollout wait, 1 s after a phase flip, 60 s when synced (the archive's runs and the Jobs are re-read).
 */
import type { Engine, Decision } from '../../engine/engine.js';
import type { Stimulus } from '../../../machines/definition.js';
import type { ResourceSource } from '../../kube/port.js';
import type { SecretStore } from '../../kube/secrets.js';
import type { Logger } from '../../log/logger.js';
import { describeError } from '../../log/logger.js';
import { isDeleting } from '../../kube/object.js';
import type { Nova } from '../../resources/nova.js';
import { NOVA_JOBS, novaDatabaseStream, novaJobName, type BlockedReason, type NovaJob, type NovaPass, type NovaUpgradeContext, type ObservedNovaJob } from '../../../machines/nova-upgrade.js';
import { novaDBArchiveStream, type ArchiveRun } from '../../../machines/nova-db-archive.js';
import { planDatabases } from '../../nova/database/plan.js';
import type { DatabaseProvisioner } from '../../nova/database/port.js';
import { materializeConnectionSecrets, readCredentials, readTransportURL, serviceUserMissing, type DatabaseEndpoint } from '../../nova/connection-secrets.js';
import { databaseTlsMount, readDatabaseTls } from '../../nova/database-tls.js';
import { renderArchiveCronJob, renderNovaJob, type NovaRef, type RenderOptions } from '../../nova/jobs/render.js';
import type { JobRunner, ObservedJob } from '../../nova/jobs/port.js';
import { parseCellsReport } from '../../nova/cells-report.js';
import { UPGRADE_ROLE_ORDER, type WorkloadPort } from '../../nova/workloads/port.js';
import { done, yieldFor, type Disposition } from '../disposition.js';
import { recordNovaEvents } from './events.js';

/** nova-operator.md, "Requeue semantics". */
export const NOVA_REQUEUE_MS = {
  /** RequeueNextPass: after the RollingUpdate to Contracting flip (and every other phase change). */
  nextPass: 1_000,
  /** RequeueDeploymentPolling: the rollout wait of every workload during an upgrade. */
  deploymentPolling: 10_000,
  /** RequeueDatabaseWait: the MariaDB gate, the db-sync wait, the config wait. */
  databaseWait: 30_000,
  /** RequeueUpgradeWait: the expand, migrate and contract phase Jobs. */
  upgradeWait: 30_000,
  /** Synced: the archive's runs and the Jobs are read again (Regent watches neither). */
  synced: 60_000,
} as const;

export interface NovaControllerDeps {
  engine: Engine;
  source: ResourceSource;
  secrets: SecretStore;
  logger: Logger;
  provisioner: DatabaseProvisioner;
  /** Where Nova's own DSNs point for a MariaDB cluster (undefined: not known yet). */
  databaseEndpoint: (namespace: string, clusterRef: string) => Promise<DatabaseEndpoint | undefined>;
  jobs: JobRunner;
  workloads: WorkloadPort;
  /** The local runner renders the cells report into a file of the Job's own. */
  renderOptions?: (nova: NovaRef, job: NovaJob) => RenderOptions;
  /** Why Jobs cannot run here at all (e.g. no nova-manage for the local runner), or null. */
  jobsUnavailable?: () => string | null;
  /** Why a Nova in this namespace is not reconciled (on Kubernetes: outside the install namespace), or null. */
  namespaceRefused?: (namespace: string) => string | null;
}

const actor = 'reconciler/nova';

/** Novas by uid, so effect handlers (keyed by stream) find the object a decision was about. */
const known = new Map<string, NovaRef>();
export const novaOfStream = (stream: string): NovaRef | undefined => known.get(stream.replace(/^nova-(database|db-archive)-/, ''));

/** Job uids whose report this process has read (a report is read once per Job). */
const reportsRead = new Set<string>();

type Gate = { blocked: { reason: BlockedReason; message: string } } | { ready: true };

/**
 * How the pass and the effects render a Nova's Jobs: the caller's options, and the TLS directories of this Nova's
 * runner (the DSN Secrets name the same ones). One function for both, so the hash a pass decides on is the hash the
 * effect renders.
 */
export const novaRenderOptions = (deps: Pick<NovaControllerDeps, 'jobs' | 'renderOptions'>, ref: NovaRef, job?: NovaJob): RenderOptions => ({
  ...(job === undefined ? {} : (deps.renderOptions?.(ref, job) ?? {})),
  databaseTlsDir: (block) => deps.jobs.databaseTlsDir(ref.namespace, ref.name, block),
});

/** Steps 1–3: credentials, provisioning, config; the first missing one blocks. */
const prerequisites = async (deps: NovaControllerDeps, nova: Nova, ref: NovaRef): Promise<Gate> => {
  const { spec } = nova;
  const block = (reason: BlockedReason, message: string): Gate => ({ blocked: { reason, message } });
  const api = await readCredentials(deps.secrets, ref.namespace, spec, 'api');
  if ('missing' in api) return block('WaitingForDBCredentials', api.message);
  // the CA bundle and client certificate are database credentials too (nova-operator.md, "Watches"): no Job and no
  // DSN without them, or a Job would fail against a server requiring TLS, or connect in clear text to one that does not
  const apiTls = await readDatabaseTls(deps.secrets, ref.namespace, spec, 'api');
  if (apiTls && 'missing' in apiTls) return block('WaitingForDBCredentials', apiTls.missing);
  const cell = await readCredentials(deps.secrets, ref.namespace, spec, 'cell');
  if ('missing' in cell) return block('WaitingForDBCredentials', cell.message);
  const cellTls = await readDatabaseTls(deps.secrets, ref.namespace, spec, 'cell');
  if (cellTls && 'missing' in cellTls) return block('WaitingForDBCredentials', cellTls.missing);
  const serviceUser = await serviceUserMissing(deps.secrets, ref.namespace, spec);
  if (serviceUser) return block('WaitingForServiceUserCredentials', serviceUser);
  const plan = planDatabases(nova, { api: { username: api.username }, cell: { username: cell.username } });
  if (!plan.ok) return block('WaitingForDatabase', `nothing is applied: ${plan.problems.join('; ')}`);
  const password = async (secret: { name: string; key: string }) => (await deps.secrets.get(ref.namespace, secret.name))?.data[secret.key];
  for (const blockPlan of plan.blocks) {
    const outcome = await deps.provisioner.provision(ref.namespace, blockPlan, password);
    if (outcome.kind === 'clusterNotReady') return block('ClusterNotReady', outcome.message);
    if (outcome.kind === 'waiting') return block('WaitingForDatabase', outcome.message);
  }
  const apiEndpoint = await deps.databaseEndpoint(ref.namespace, spec.database.api.clusterRef.name);
  const cellEndpoint = await deps.databaseEndpoint(ref.namespace, spec.database.cell.clusterRef.name);
  if (!apiEndpoint || !cellEndpoint) return block('ClusterNotReady', `the address of MariaDB ${(apiEndpoint ? spec.database.cell : spec.database.api).clusterRef.name} is not known`);
  const transport = await readTransportURL(deps.secrets, ref.namespace, spec);
  if (typeof transport !== 'string') return block('WaitingForConfig', transport.message);
  const unavailable = deps.jobsUnavailable?.() ?? null;
  if (unavailable) return block('WaitingForConfig', unavailable);
  const tlsDir = novaRenderOptions(deps, ref).databaseTlsDir!;
  const tlsOf = (b: 'api' | 'cell') => {
    const mount = databaseTlsMount(spec, b, tlsDir(b));
    return mount ? { tls: mount } : {};
  };
  await materializeConnectionSecrets(deps.secrets, ref, spec, {
    api: { endpoint: apiEndpoint, credentials: api, ...tlsOf('api') },
    cell: { endpoint: cellEndpoint, credentials: cell, ...tlsOf('cell') },
    transportURL: transport,
  });
  return { ready: true };
};

const observedJob = (job: ObservedJob | undefined): ObservedNovaJob | null =>
  job ? { hash: job.templateHash, state: job.state, ...(job.failureMessage ? { message: job.failureMessage } : {}) } : null;

/** The db-sync report, read once per succeeded Job of the current hash. */
const readReport = async (deps: NovaControllerDeps, job: ObservedJob | undefined, hash: string): Promise<NovaPass['report']> => {
  if (!job || job.state !== 'succeeded' || job.templateHash !== hash || reportsRead.has(job.uid)) return null;
  let message: string | null;
  try {
    message = await deps.jobs.terminationMessage(job);
  } catch (error) {
    deps.logger.warn('could not read the db-sync report', { job: `${job.namespace}/${job.name}`, ...describeError(error) });
    return { kind: 'unreadable', message: `the report of ${job.name} could not be read` };
  }
  reportsRead.add(job.uid);
  const cells = message ? parseCellsReport(message) : [];
  if (cells.length === 0) return { kind: 'unreadable', message: message ? `the report of ${job.name} names no cell` : `${job.name} left no report` };
  return { kind: 'cells', cells: cells.map((c) => ({ name: c.name, uuid: c.uuid })) };
};

/** The rendered roles in rollout order: the console proxy only while enabled. */
export const renderedRoles = (nova: Nova) => UPGRADE_ROLE_ORDER.filter((role) => role !== 'novncproxy' || nova.spec.consoleProxy?.enabled === true);

export const reconcileNova = async (deps: NovaControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = (await deps.source.get('Nova', namespace, name)) as Nova | undefined;
  if (!object) return done('gone');
  const ref: NovaRef = { namespace, name, uid: object.metadata.uid };
  known.set(ref.uid, ref);
  if (isDeleting(object)) return done('being deleted: Regent holds no finalizer on a Nova yet (the MariaDB cleanup is not built)');
  const stream = novaDatabaseStream(ref.uid);
  const refused = deps.namespaceRefused?.(namespace) ?? null;
  if (refused) {
    // nothing in this namespace may be read or written (no Secret, no Job): the pass records only why
    const none = { sync: null, expand: null, migrate: null, contract: null };
    const hashes = { sync: '', expand: '', migrate: '', contract: '' };
    await deps.engine.dispatch(stream, { stimulus: { type: 'pass', source: 'reconciler', generation: object.metadata.generation ?? 1, release: object.spec.openStackRelease, image: object.spec.image, blocked: { reason: 'NamespaceNotServed', message: refused }, hashes, jobs: none, report: null, rollout: null } as unknown as Stimulus, actor });
    return done(refused);
  }
  const gate = await prerequisites(deps, object, ref);
  const renderFor = (job: NovaJob) => novaRenderOptions(deps, ref, job);
  const hashes = Object.fromEntries(NOVA_JOBS.map((job) => [job, renderNovaJob(ref, object.spec, job, renderFor(job)).templateHash])) as Record<NovaJob, string>;
  const observed = Object.fromEntries(await Promise.all(NOVA_JOBS.map(async (job) => [job, await deps.jobs.get(namespace, novaJobName(name, job))] as const))) as Record<NovaJob, ObservedJob | undefined>;
  const before = await deps.engine.load(stream);
  const rollout =
    before.snapshot.value === 'rollingUpdate' && 'ready' in gate
      ? await Promise.all(renderedRoles(object).map(async (role) => {
          const r = await deps.workloads.rollout(namespace, name, role, object.spec.image);
          return { role: r.role, rolledOut: r.rolledOut, detail: r.detail };
        }))
      : null;
  const pass: NovaPass = {
    type: 'pass',
    source: 'reconciler',
    generation: object.metadata.generation ?? 1,
    release: object.spec.openStackRelease,
    image: object.spec.image,
    blocked: 'blocked' in gate ? gate.blocked : null,
    hashes,
    jobs: { sync: observedJob(observed.sync), expand: observedJob(observed.expand), migrate: observedJob(observed.migrate), contract: observedJob(observed.contract) },
    report: 'ready' in gate ? await readReport(deps, observed.sync, hashes.sync) : null,
    rollout,
  };
  const decisions = await deps.engine.dispatch(stream, { stimulus: pass as unknown as Stimulus, actor });
  await recordNovaEvents(deps.source, object, decisions, deps.logger);
  const last = decisions[0] as Decision;
  const context = (decisions.at(-1)?.snapshot.context ?? last.snapshot.context) as NovaUpgradeContext;
  const state = last.snapshot.value;

  if (context.condition?.status === 'True') {
    await reconcileArchive(deps, object, ref);
    return yieldFor(NOVA_REQUEUE_MS.synced, 'database synced; the archive and the Jobs are read again in a minute');
  }
  switch (last.outcome) {
    case 'upgradeStarted':
    case 'expanded':
    case 'migrated':
    case 'rolledOut':
    case 'aborting':
    case 'aborted':
    case 'syncJobReplaced':
    case 'expandJobReplaced':
    case 'migrateJobReplaced':
    case 'contractJobReplaced':
      return yieldFor(NOVA_REQUEUE_MS.nextPass, `${last.outcome}: the next pass continues`);
    case 'rollingUpdate':
      return yieldFor(NOVA_REQUEUE_MS.deploymentPolling, context.condition?.message ?? 'waiting for the roles to roll out');
    default:
      return yieldFor(state === 'steady' ? NOVA_REQUEUE_MS.databaseWait : NOVA_REQUEUE_MS.upgradeWait, context.condition?.message ?? `${last.outcome ?? 'waiting'}`);
  }
};

/** The DBArchive step: the CronJob observed, the newest terminal run it controls reported. */
const reconcileArchive = async (deps: NovaControllerDeps, nova: Nova, ref: NovaRef): Promise<void> => {
  const cronJob = renderArchiveCronJob(ref, nova.spec, novaRenderOptions(deps, ref));
  const runs = await deps.jobs.cronJobRuns(ref.namespace, cronJob.name);
  const terminal = runs.runs.filter((r) => r.state !== 'running').sort((a, b) => (a.finishedAt ?? '').localeCompare(b.finishedAt ?? ''));
  const newest = terminal.at(-1);
  const run: ArchiveRun | null = newest
    ? { name: newest.name, state: newest.state === 'failed' ? 'failed' : 'succeeded', ...(newest.finishedAt ? { finishedAt: newest.finishedAt } : {}), ...(newest.failureMessage ? { message: newest.failureMessage } : {}) }
    : null;
  const decisions = await deps.engine.dispatch(novaDBArchiveStream(ref.uid), {
    stimulus: { type: 'archiveObserved', source: 'reconciler', generation: nova.metadata.generation ?? 1, schedule: cronJob.schedule, desiredHash: cronJob.templateHash, exists: runs.exists, suspended: runs.suspended, newest: run } as unknown as Stimulus,
    actor,
  });
  await recordNovaEvents(deps.source, nova, decisions, deps.logger);
};
