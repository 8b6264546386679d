/**
 * A Nova's status from its streams: `nova-database-<uid>` (machines/nova-upgrade.ts) and `nova-db-archive-<uid>`
 * (machines/nova-db-archive.ts); the reference is docs/nova.md.
 *
 * | condition | from |
 * |---|---|
 * | DatabaseReady | the machine's decision: DatabaseSynced; ClusterNotReady, WaitingForDatabase (also for missing database credentials), WaitingForConfig, ImageReleaseMismatch, DBSyncInProgress/Failed, VersionParseError, DowngradeNotSupported, UpgradePathInvalid, UpgradeTargetChanged, Expand/Migrate/ContractInProgress, UpgradeRollingUpdate, Expand/Migrate/ContractFailed |
 * | SecretsReady | False / WaitingForDBCredentials (a block's credentials, or its TLS Secrets when its tls is enabled: the message names the spec.database.<block>.tls field) or WaitingForServiceUserCredentials while that Secret is missing; otherwise Unknown / NotImplemented (the service-user, metadata, messaging and secret-store gates are not built) |
 * | DBArchiveReady | DBArchiveScheduled, DBArchiveSuspended, DBArchiveJobFailed; Unknown / NotReached until the database is synced |
 * | every other sub-condition, ExtraConfigHealthy | Unknown / NotImplemented, naming the pipeline step that would set it |
 * | Ready | False / NotAllReady listing the sub-conditions that are not True (it cannot be True before every step is built) |
 *
 * `installedRelease`, `upgradePhase` and `cells` come from the database stream. observedGeneration is the
 * generation the last pass decided on.
 */
import type { NovaUpgradeContext } from '../machines/nova-upgrade.js';
import { upgradePhaseOf } from '../machines/nova-upgrade.js';
import type { NovaDBArchiveContext } from '../machines/nova-db-archive.js';
import { NOVA_READY_SUBCONDITIONS } from '../src/resources/nova.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

export interface NovaResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  installedRelease?: string;
  upgradePhase?: string;
  cells?: Array<{ name: string; uuid: string }>;
}

/** The pipeline step (nova-operator.md, "Pipeline") behind each condition Regent does not set yet. */
const NOT_BUILT: Record<string, string> = {
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

const notBuilt = (type: string): ConditionInput => ({ type, status: 'Unknown', reason: 'NotImplemented', message: `Regent does not run the ${NOT_BUILT[type]} step yet (nova-operator.md, "Pipeline"); nothing sets this condition` });

const databaseReady = (c: NovaUpgradeContext | undefined): ConditionInput => {
  if (!c?.condition) return { type: 'DatabaseReady', status: 'False', reason: 'WaitingForDatabase', message: 'not reconciled yet' };
  const { status, reason, message } = c.condition;
  // the credentials gate belongs to SecretsReady; the Database step waits on it
  const shown = reason === 'WaitingForDBCredentials' ? 'WaitingForDatabase' : reason === 'WaitingForServiceUserCredentials' ? 'WaitingForConfig' : reason;
  return { type: 'DatabaseReady', status, reason: shown, message };
};

const secretsReady = (c: NovaUpgradeContext | undefined): ConditionInput =>
  c?.condition?.reason === 'WaitingForDBCredentials' || c?.condition?.reason === 'WaitingForServiceUserCredentials'
    ? { type: 'SecretsReady', status: 'False', reason: c.condition.reason, message: c.condition.message }
    : { type: 'SecretsReady', status: 'Unknown', reason: 'NotImplemented', message: 'the database credentials and the service-user password are checked by the Database step; the secret-store, metadata shared secret and messaging gates are not built yet' };

const archiveReady = (a: NovaDBArchiveContext | undefined): ConditionInput =>
  a?.condition ? { type: 'DBArchiveReady', ...a.condition } : { type: 'DBArchiveReady', status: 'Unknown', reason: 'NotReached', message: 'the DBArchive step runs once DatabaseReady is True' };

const FAILED = new Set(['NamespaceNotServed', 'DBSyncFailed', 'ExpandFailed', 'MigrateFailed', 'ContractFailed', 'ImageReleaseMismatch', 'VersionParseError', 'DowngradeNotSupported', 'UpgradePathInvalid', 'UpgradeTargetChanged']);

export const renderNovaResource = (input: {
  database: { state: unknown; context: NovaUpgradeContext } | undefined;
  archive: NovaDBArchiveContext | undefined;
  at: string;
  previous?: { conditions?: Condition[] };
}): NovaResourceStatus => {
  const c = input.database?.context;
  const phase = upgradePhaseOf(input.database?.state);
  const subconditions: ConditionInput[] = NOVA_READY_SUBCONDITIONS.map((type) => {
    if (type === 'DatabaseReady') return databaseReady(c);
    if (type === 'SecretsReady') return secretsReady(c);
    if (type === 'DBArchiveReady') return archiveReady(input.archive);
    return notBuilt(type);
  });
  const notTrue = subconditions.filter((s) => s.status !== 'True').map((s) => s.type);
  const ready: ConditionInput = notTrue.length === 0
    ? { type: 'Ready', status: 'True', reason: 'AllReady', message: 'every sub-condition is True' }
    : { type: 'Ready', status: 'False', reason: 'NotAllReady', message: `not True: ${notTrue.join(', ')}` };
  const observedGeneration = c?.decidedGeneration ?? 0;
  const status: NovaResourceStatus = {
    observedGeneration,
    phase: phase ? 'Upgrading' : c?.condition && FAILED.has(c.condition.reason) ? 'Error' : 'Provisioning',
    conditions: mergeConditions(input.previous?.conditions, [ready, ...subconditions, notBuilt('ExtraConfigHealthy')], observedGeneration, input.at),
  };
  if (c?.installedRelease) status.installedRelease = c.installedRelease;
  if (phase) status.upgradePhase = phase;
  if (c?.cells) status.cells = c.cells;
  return status;
};
