/**
 * A Nova's status from its three streams: `nova-pipeline-<uid>` (machines/nova-pipeline.ts: what each pass's steps
 * said), `nova-database-<uid>` (machines/nova-upgrade.ts) and `nova-db-archive-<uid>` (machines/nova-db-archive.ts);
 * the reference is docs/nova.md.
 *
 * | condition | from |
 * |---|---|
 * | DatabaseReady | the upgrade machine's decision (DatabaseSynced; ClusterNotReady, WaitingForDatabase, WaitingForConfig, ImageReleaseMismatch, DBSync…, the phases); before the Database step ever ran: False / WaitingForDatabase naming the step the pipeline waits at |
 * | DBArchiveReady | the archive machine (DBArchiveScheduled, DBArchiveSuspended, DBArchiveJobFailed); Unknown / NotReached until the database is synced |
 * | every other sub-condition, ExtraConfigHealthy | what the step that owns it last recorded; Unknown / NotReached while no pass has reached that step |
 * | Ready | True / AllReady exactly when the sixteen sub-conditions are True; otherwise False / NotAllReady listing those that are not (ExtraConfigHealthy is outside it) |
 *
 * `installedRelease`, `upgradePhase` and `cells` come from the database stream; `endpoint`, `computeConfigSecretRef`
 * and `remoteComputeConfigSecretRef` from the pipeline's stamps. observedGeneration is the generation the last pass
 * decided on (the later of the pipeline's and the database's).
 */
import type { NovaUpgradeContext } from '../machines/nova-upgrade.js';
import { upgradePhaseOf } from '../machines/nova-upgrade.js';
import type { NovaDBArchiveContext } from '../machines/nova-db-archive.js';
import type { NovaPipelineContext } from '../machines/nova-pipeline.js';
import { NOVA_READY_SUBCONDITIONS } from '../src/resources/nova.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

export interface NovaResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  installedRelease?: string;
  upgradePhase?: string;
  cells?: Array<{ name: string; uuid: string }>;
  endpoint?: string;
  computeConfigSecretRef?: { name: string };
  remoteComputeConfigSecretRef?: { name: string };
}

/** The pipeline step (nova-operator.md, "Pipeline") that sets each condition the pipeline stream records. */
const STEP_OF: Record<string, string> = {
  SecretsReady: 'Secrets',
  ComputeConfigReady: 'ComputeConfig',
  ConductorReady: 'Conductor',
  SchedulerReady: 'Scheduler',
  MetadataReady: 'Metadata',
  ConsoleProxyReady: 'ConsoleProxy',
  DeploymentReady: 'Deployment',
  NovaAPIReady: 'HealthCheck',
  HPAReady: 'HPA',
  VPAReady: 'VPA',
  NetworkPolicyReady: 'NetworkPolicy',
  HTTPRouteReady: 'HTTPRoute',
  MetadataHTTPRouteReady: 'MetadataHTTPRoute',
  ConsoleHTTPRouteReady: 'ConsoleHTTPRoute',
  ExtraConfigHealthy: 'Config',
};

const waitsAt = (p: NovaPipelineContext | undefined, endedAt: string | null | undefined): string =>
  p === undefined ? 'no pass of the pipeline has been recorded yet' : endedAt ? `the pipeline ends at the ${endedAt} step for now` : 'no pass has reached it yet';

/** What the step that owns `type` last recorded, or Unknown / NotReached. */
const recorded = (type: string, p: NovaPipelineContext | undefined, endedAt: string | null | undefined): ConditionInput => {
  const r = p?.conditions[type];
  if (r) return { type, status: r.status, reason: r.reason, message: r.message };
  return { type, status: 'Unknown', reason: 'NotReached', message: `the ${STEP_OF[type]} step has not set it: ${waitsAt(p, endedAt)}` };
};

const databaseReady = (c: NovaUpgradeContext | undefined, p: NovaPipelineContext | undefined, endedAt: string | null | undefined): ConditionInput => {
  if (!c?.condition) return { type: 'DatabaseReady', status: 'False', reason: 'WaitingForDatabase', message: `the Database step has not run: ${waitsAt(p, endedAt)}` };
  const { status, reason, message } = c.condition;
  // the credentials gate belongs to SecretsReady; the Database step waits on it
  const shown = reason === 'WaitingForDBCredentials' ? 'WaitingForDatabase' : reason === 'WaitingForServiceUserCredentials' ? 'WaitingForConfig' : reason;
  return { type: 'DatabaseReady', status, reason: shown, message };
};

const archiveReady = (a: NovaDBArchiveContext | undefined): ConditionInput =>
  a?.condition ? { type: 'DBArchiveReady', ...a.condition } : { type: 'DBArchiveReady', status: 'Unknown', reason: 'NotReached', message: 'the DBArchive step runs once DatabaseReady is True' };

const FAILED = new Set(['NamespaceNotServed', 'DBSyncFailed', 'ExpandFailed', 'MigrateFailed', 'ContractFailed', 'ImageReleaseMismatch', 'VersionParseError', 'DowngradeNotSupported', 'UpgradePathInvalid', 'UpgradeTargetChanged']);

export const renderNovaResource = (input: {
  pipeline?: NovaPipelineContext | undefined;
  database: { state: unknown; context: NovaUpgradeContext } | undefined;
  archive: NovaDBArchiveContext | undefined;
  at: string;
  previous?: { conditions?: Condition[] };
}): NovaResourceStatus => {
  const c = input.database?.context;
  const p = input.pipeline;
  const endedAt = p?.endedAt;
  const phase = upgradePhaseOf(input.database?.state);
  const subconditions: ConditionInput[] = NOVA_READY_SUBCONDITIONS.map((type) => {
    if (type === 'DatabaseReady') return databaseReady(c, p, endedAt);
    if (type === 'DBArchiveReady') return archiveReady(input.archive);
    return recorded(type, p, endedAt);
  });
  const notTrue = subconditions.filter((s) => s.status !== 'True').map((s) => s.type);
  const ready: ConditionInput = notTrue.length === 0
    ? { type: 'Ready', status: 'True', reason: 'AllReady', message: 'every sub-condition is True' }
    : { type: 'Ready', status: 'False', reason: 'NotAllReady', message: `not True: ${notTrue.join(', ')}` };
  const observedGeneration = Math.max(c?.decidedGeneration ?? 0, p?.decidedGeneration ?? 0);
  const failed = c?.condition && FAILED.has(c.condition.reason);
  const status: NovaResourceStatus = {
    observedGeneration,
    phase: phase ? 'Upgrading' : failed ? 'Error' : notTrue.length === 0 ? 'Ready' : 'Provisioning',
    conditions: mergeConditions(input.previous?.conditions, [ready, ...subconditions, recorded('ExtraConfigHealthy', p, endedAt)], observedGeneration, input.at),
  };
  if (c?.installedRelease) status.installedRelease = c.installedRelease;
  if (phase) status.upgradePhase = phase;
  if (c?.cells) status.cells = c.cells;
  const stamps = p?.stamps ?? {};
  if (typeof stamps.endpoint === 'string') status.endpoint = stamps.endpoint;
  if (typeof stamps.computeConfigSecretRef === 'string') status.computeConfigSecretRef = { name: stamps.computeConfigSecretRef };
  if (typeof stamps.remoteComputeConfigSecretRef === 'string') status.remoteComputeConfigSecretRef = { name: stamps.remoteComputeConfigSecretRef };
  return status;
};
