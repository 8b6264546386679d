/**
 * The Nova Database step's release tracking — nova-operator.md, "Database" (the lockstep check), "The cells
 * sequence" (the steady-state db-sync Job, installedRelease promoted on its success, status.cells from its
 * report) and "Release upgrade" (the expand-migrate-contract phases, abort); issue 14.
 *
 * States are the upgrade phases: `steady` (no upgrade: the db-sync Job keeps both schemas at the installed
 * release), `expanding`, `migrating`, `rollingUpdate`, `contracting`. Success of the contract promotes
 * installedRelease and returns to steady.
 *
 * One stimulus per reconciler pass, `pass`, carries what the pass observed: the spec's release and image,
 * a missing prerequisite, the four Jobs as they are (the Job results come back here, as stimulus) with the
 * pod-template hash each would be rendered with now, the db-sync report, and the roles' rollout. The machine
 * decides from it in the spec's order:
 *
 *   NU1 abort: the spec's release is back at installedRelease mid-upgrade → delete the phase Jobs still
 *       there; once none is, clear phase and target (a failed delete leaves them, so the next pass retries).
 *       Reachable from every phase, also while blocked or mismatched.
 *   NU2 blocked: the MariaDB cluster, a schema, a credential or the rendered config is missing →
 *       DatabaseReady=False with that reason; the phase is frozen, no Job runs.
 *   NU3 lockstep: a tag-pinned image naming another release than spec.openStackRelease →
 *       ImageReleaseMismatch, no Job, the phase frozen.
 *   NU4 initiation refused: VersionParseError, DowngradeNotSupported, UpgradePathInvalid (first failure
 *       wins); the upgrade state stays untouched.
 *   NU5 initiation: target := the spec's release, phase Expanding, ExpandInProgress; the expand Job is created.
 *   NU6 target changed to a third release mid-upgrade → UpgradeTargetChanged, nothing else changes;
 *       going back to the target continues.
 *   NU7 a phase Job by its hash: absent → create; terminal with a changed hash → delete (re-created on the
 *       next pass); running → in progress (a running Job is never killed for a new hash: it finishes first);
 *       failed with the same hash → <Phase>Failed, permanent until the spec changes; succeeded with the
 *       same hash → the phase is done.
 *   NU8 RollingUpdate runs no Job and flips to Contracting only when every rendered role rolled out.
 *   NU9 the contract done → installedRelease promoted, DatabaseSynced, the non-API roles stamped with the
 *       installed-release annotation (the stamp is retried on every pass until its result is recorded).
 *   NU10 steady: the db-sync Job by the NU7 hash rule; its success promotes installedRelease (the first
 *       install, or a patch image) and publishes the cells from its report; an unreadable report keeps the
 *       cells it had (CellsReportUnavailable). A synced release stays DatabaseSynced while the Job runs again
 *       for a changed spec (a patch image, or the image an upgrade just promoted); its failure is DBSyncFailed.
 *
 * Polling changes nothing: a pass that observes what the last one did decides nothing and is not stored.
 */
import * as t from 'io-ts';
import { assign, setup } from 'xstate';
import { declaredAction, outcome, type MachineAudit, type MachineDefinition, type Stimulus } from './definition.js';
import { lockstep, validateUpgradePath } from './nova/release.js';
import { NOVA_JOBS, type NovaJob } from './nova/jobs.js';

// ─── vocabulary ─────────────────────────────────────────────────────────────────────────────────────

// The Job vocabulary lives below the machine (./nova/jobs.ts), shared with src/nova/jobs/; re-exported for the
// controller and the tests that name it here.
export { NOVA_JOBS, novaJobName, type NovaJob } from './nova/jobs.js';

export type UpgradePhase = 'Expanding' | 'Migrating' | 'RollingUpdate' | 'Contracting';
/** The phase Jobs an abort deletes. */
export const PHASE_JOBS: readonly NovaJob[] = ['expand', 'migrate', 'contract'];

/** Prerequisites a pass can find missing (DatabaseReady / SecretsReady reasons). */
export const BlockedReason = t.keyof({ ClusterNotReady: null, WaitingForDatabase: null, WaitingForConfig: null, WaitingForDBCredentials: null, WaitingForServiceUserCredentials: null, NamespaceNotServed: null });
export type BlockedReason = t.TypeOf<typeof BlockedReason>;

export type DatabaseReason =
  | 'DatabaseSynced'
  | BlockedReason
  | 'ImageReleaseMismatch'
  | 'DBSyncFailed'
  | 'DBSyncInProgress'
  | 'VersionParseError'
  | 'DowngradeNotSupported'
  | 'UpgradePathInvalid'
  | 'UpgradeTargetChanged'
  | 'ExpandInProgress'
  | 'MigrateInProgress'
  | 'UpgradeRollingUpdate'
  | 'ContractInProgress'
  | 'ExpandFailed'
  | 'MigrateFailed'
  | 'ContractFailed';

const ObservedJob = t.intersection([
  t.type({ hash: t.union([t.string, t.null]), state: t.keyof({ running: null, succeeded: null, failed: null }) }),
  t.partial({ message: t.string }),
]);
export type ObservedNovaJob = t.TypeOf<typeof ObservedJob>;
const Jobs = t.type({ sync: t.union([ObservedJob, t.null]), expand: t.union([ObservedJob, t.null]), migrate: t.union([ObservedJob, t.null]), contract: t.union([ObservedJob, t.null]) });
const Hashes = t.type({ sync: t.string, expand: t.string, migrate: t.string, contract: t.string });
const Cell = t.type({ name: t.string, uuid: t.string });
export type NovaCell = t.TypeOf<typeof Cell>;
const Report = t.union([t.null, t.type({ kind: t.literal('cells'), cells: t.array(Cell) }), t.type({ kind: t.literal('unreadable'), message: t.string })]);
const Rollout = t.type({ role: t.string, rolledOut: t.boolean, detail: t.string });
export type NovaRoleRollout = t.TypeOf<typeof Rollout>;

export const NovaUpgradeStimulus = t.union([
  t.type({
    type: t.literal('pass'),
    source: t.literal('reconciler'),
    generation: t.number,
    /** spec.openStackRelease */
    release: t.string,
    /** spec.image */
    image: t.string,
    /** A prerequisite of the Database step that is missing, or null. */
    blocked: t.union([t.null, t.type({ reason: BlockedReason, message: t.string })]),
    /** The pod-template hash each Job would be rendered with now. */
    hashes: Hashes,
    /** Each Job as the runner shows it (null: none exists). */
    jobs: Jobs,
    /** The db-sync Job's termination report, read only when it succeeded. */
    report: Report,
    /** The rendered roles in rollout order, read while RollingUpdate; null when not read. */
    rollout: t.union([t.null, t.array(Rollout)]),
  }),
  /** The installed-release annotation was stamped on the non-API roles (the roles that had a Deployment). */
  t.type({ type: t.literal('rolesStamped'), source: t.literal('effect'), release: t.string, roles: t.array(t.string) }),
]);
export type NovaUpgradeStimulus = t.TypeOf<typeof NovaUpgradeStimulus>;
export type NovaPass = Extract<NovaUpgradeStimulus, { type: 'pass' }>;

export interface DatabaseCondition {
  status: 'True' | 'False';
  reason: DatabaseReason;
  message: string;
}

export interface NovaUpgradeContext {
  decidedGeneration: number | null;
  /** The release both schemas are migrated to (status.installedRelease); null before the first db-sync. */
  installedRelease: string | null;
  /** The release an upgrade is moving to; null in steady. */
  target: string | null;
  /** DatabaseReady as last decided. */
  condition: DatabaseCondition | null;
  /** status.cells, from the last readable db-sync report. */
  cells: NovaCell[] | null;
  /** The db-sync report could not be read on the pass that promoted (CellsReportUnavailable). */
  reportUnavailable: string | null;
  /** A release the non-API roles still have to be stamped with. */
  stampPending: string | null;
  /** The roles' rollout as the last RollingUpdate pass saw it. */
  rollout: NovaRoleRollout[] | null;
}

export const NOVA_UPGRADE_EFFECTS = ['nova.createJob', 'nova.deleteJobs', 'nova.stampInstalledRelease'] as const;

interface PhaseSpec {
  phase: UpgradePhase;
  job: NovaJob;
  inProgress: DatabaseReason;
  failed: DatabaseReason;
}
const EXPAND: PhaseSpec = { phase: 'Expanding', job: 'expand', inProgress: 'ExpandInProgress', failed: 'ExpandFailed' };
const MIGRATE: PhaseSpec = { phase: 'Migrating', job: 'migrate', inProgress: 'MigrateInProgress', failed: 'MigrateFailed' };
const CONTRACT: PhaseSpec = { phase: 'Contracting', job: 'contract', inProgress: 'ContractInProgress', failed: 'ContractFailed' };
export const STATE_PHASE: Record<string, UpgradePhase | null> = { steady: null, expanding: 'Expanding', migrating: 'Migrating', rollingUpdate: 'RollingUpdate', contracting: 'Contracting' };

// ─── the rules, as pure functions of (context, pass) ──────────────────────────────────────────────

type Args = { context: NovaUpgradeContext; event: NovaUpgradeStimulus };
const passOf = (event: NovaUpgradeStimulus): NovaPass | null => (event.type === 'pass' ? event : null);

/** The hash rule (NU7) for one Job: what to do with it. */
export type JobVerdict = 'create' | 'replace' | 'running' | 'failed' | 'done';
export const jobVerdict = (pass: NovaPass, job: NovaJob): JobVerdict => {
  const observed = pass.jobs[job];
  if (!observed) return 'create';
  if (observed.state === 'running') return 'running';
  if (observed.hash !== pass.hashes[job]) return 'replace';
  return observed.state === 'failed' ? 'failed' : 'done';
};

const abortRequested = ({ context, event }: Args): boolean => {
  const p = passOf(event);
  return p !== null && context.target !== null && p.release === context.installedRelease;
};
const phaseJobsPresent = (p: NovaPass): NovaJob[] => PHASE_JOBS.filter((j) => p.jobs[j] !== null);
const blocked = ({ event }: Args): boolean => passOf(event)?.blocked != null;
const imageReleaseMismatch = ({ event }: Args): boolean => {
  const p = passOf(event);
  return p !== null && !lockstep(p.image, p.release).ok;
};
const releaseBumped = ({ context, event }: Args): boolean => {
  const p = passOf(event);
  return p !== null && context.installedRelease !== null && p.release !== context.installedRelease;
};
const upgradePathRefused = ({ context, event }: Args): boolean => {
  const p = passOf(event);
  return p !== null && context.installedRelease !== null && !validateUpgradePath(context.installedRelease, p.release).ok;
};
const targetChanged = ({ context, event }: Args): boolean => {
  const p = passOf(event);
  return p !== null && context.target !== null && p.release !== context.target && p.release !== context.installedRelease;
};
const verdictIs =
  (job: NovaJob, ...verdicts: JobVerdict[]) =>
  ({ event }: Args): boolean => {
    const p = passOf(event);
    return p !== null && verdicts.includes(jobVerdict(p, job));
  };
const everyRoleRolledOut = ({ event }: Args): boolean => {
  const p = passOf(event);
  return p !== null && p.rollout !== null && p.rollout.length > 0 && p.rollout.every((r) => r.rolledOut);
};
const stampPending = ({ context }: Args): boolean => context.stampPending !== null;

// ─── condition texts ──────────────────────────────────────────────────────────────────────────────

const False = (reason: DatabaseReason, message: string): DatabaseCondition => ({ status: 'False', reason, message });
const jobMessage = (p: NovaPass, job: NovaJob, verdict: JobVerdict): string => {
  const o = p.jobs[job];
  switch (verdict) {
    case 'create':
      return `the db-${job} Job is created`;
    case 'replace':
      return `the db-${job} Job was rendered from an older spec (${o?.state}); it is deleted and created again`;
    case 'running':
      return o?.hash !== null && o?.hash !== p.hashes[job] ? `the db-${job} Job of an older spec is still running; it finishes first` : `the db-${job} Job is running`;
    case 'failed':
      return `the db-${job} Job failed${o?.message ? `: ${o.message}` : ''}; it is not retried until the spec changes`;
    case 'done':
      return `the db-${job} Job completed`;
  }
};
const phaseCondition = (spec: PhaseSpec, p: NovaPass, target: string): DatabaseCondition => {
  const verdict = jobVerdict(p, spec.job);
  return False(verdict === 'failed' ? spec.failed : spec.inProgress, `upgrade to ${target}: ${jobMessage(p, spec.job, verdict)}`);
};

// ─── the machine ──────────────────────────────────────────────────────────────────────────────────

export const buildNovaUpgradeMachine = () =>
  setup({
    types: {} as { context: NovaUpgradeContext; events: NovaUpgradeStimulus },
    actions: {
      outcome: declaredAction<{ name: string }>(),
      'nova.createJob': declaredAction<{ job: NovaJob; hash: string }>(),
      'nova.deleteJobs': declaredAction<{ jobs: NovaJob[]; why: string }>(),
      'nova.stampInstalledRelease': declaredAction<{ release: string }>(),
      recordGeneration: assign(({ event }) => (event.type === 'pass' ? { decidedGeneration: event.generation } : {})),
      /** NU2: the prerequisite's reason and message. */
      recordBlocked: assign(({ event }) => {
        const p = passOf(event);
        return p?.blocked ? { condition: False(p.blocked.reason, p.blocked.message) } : {};
      }),
      /** NU3 */
      recordMismatch: assign(({ event }) => {
        const p = passOf(event);
        if (!p) return {};
        const verdict = lockstep(p.image, p.release);
        return { condition: False('ImageReleaseMismatch', verdict.ok ? '' : `${verdict.message}; no Job runs until spec.image and spec.openStackRelease agree`) };
      }),
      /** NU4 */
      recordRefusal: assign(({ context, event }) => {
        const p = passOf(event);
        if (!p || context.installedRelease === null) return {};
        const verdict = validateUpgradePath(context.installedRelease, p.release);
        return verdict.ok ? {} : { condition: False(verdict.reason, verdict.message) };
      }),
      /** NU5 */
      startUpgrade: assign(({ context, event }) => {
        const p = passOf(event);
        return p ? { target: p.release, condition: False('ExpandInProgress', `upgrade from ${context.installedRelease} to ${p.release}: the db-expand Job is created`) } : {};
      }),
      /** NU6 */
      recordTargetChanged: assign(({ context, event }) => {
        const p = passOf(event);
        return p
          ? { condition: False('UpgradeTargetChanged', `spec.openStackRelease is ${p.release}, but the upgrade from ${context.installedRelease} to ${context.target} is in progress; set it back to ${context.target} to continue, or to ${context.installedRelease} to abort`) }
          : {};
      }),
      /** NU1 */
      recordAborting: assign(({ context, event }) => {
        const p = passOf(event);
        return p ? { condition: False(context.condition?.reason ?? 'ExpandInProgress', `abort of the upgrade to ${context.target}: deleting the Jobs ${phaseJobsPresent(p).map((j) => `db-${j}`).join(', ')}`) } : {};
      }),
      clearUpgrade: assign(({ context }) => ({
        target: null,
        rollout: null,
        condition: False('DBSyncInProgress', `the upgrade to ${context.target} was aborted; the db-sync Job is checked against ${context.installedRelease}`),
      })),
      recordPhase: assign(({ context, event }, spec: PhaseSpec) => {
        const p = passOf(event);
        return p && context.target ? { condition: phaseCondition(spec, p, context.target) } : {};
      }),
      recordExpanded: assign(({ context }) => ({ condition: False('MigrateInProgress', `upgrade to ${context.target}: the schemas are expanded; the db-migrate Job comes next`) })),
      recordRolledOut: assign(({ context, event }) => ({
        rollout: passOf(event)?.rollout ?? null,
        condition: False('ContractInProgress', `upgrade to ${context.target}: every role rolled out; the db-contract Job comes next`),
      })),
      recordRollout: assign(({ context, event }) => {
        const p = passOf(event);
        if (!p) return {};
        const waiting = (p.rollout ?? []).find((r) => !r.rolledOut);
        const message = p.rollout === null || p.rollout.length === 0 ? 'no role rollout observed yet' : waiting ? `waiting for ${waiting.role}: ${waiting.detail}` : 'every role rolled out';
        const roles = p.rollout && p.rollout.length > 0 ? p.rollout.map((r) => r.role).join(', ') : 'conductor, scheduler, metadata, the console proxy when enabled, API';
        return { rollout: p.rollout, condition: False('UpgradeRollingUpdate', `upgrade to ${context.target}: the roles roll onto the new image in order (${roles}); ${message}`) };
      }),
      /** NU9 */
      promoteTarget: assign(({ context }) => ({
        installedRelease: context.target,
        target: null,
        rollout: null,
        stampPending: context.target,
        condition: { status: 'True', reason: 'DatabaseSynced', message: `both schemas are at ${context.target}; the upgrade completed` } as DatabaseCondition,
      })),
      /** NU10 */
      recordSyncing: assign(({ context, event }) => {
        const p = passOf(event);
        if (!p) return {};
        const verdict = jobVerdict(p, 'sync');
        // NU10: a synced release stays synced while the db-sync Job runs again for a changed spec (a patch image,
        // the image an upgrade promoted): the schemas are at the installed release; only a failure says otherwise
        if (verdict !== 'failed' && context.condition?.status === 'True' && context.installedRelease === p.release) {
          return { condition: { status: 'True', reason: 'DatabaseSynced', message: `both schemas are at ${p.release}; ${jobMessage(p, 'sync', verdict)} for the changed spec` } as DatabaseCondition };
        }
        return { condition: False(verdict === 'failed' ? 'DBSyncFailed' : 'DBSyncInProgress', jobMessage(p, 'sync', verdict)) };
      }),
      promoteSynced: assign(({ context, event }) => {
        const p = passOf(event);
        if (!p) return {};
        const report = p.report;
        const cells = report?.kind === 'cells' ? report.cells : context.cells;
        const promoted = context.installedRelease !== p.release;
        return {
          installedRelease: p.release,
          cells,
          // a report not read on this pass (null) leaves what the pass that read it decided
          reportUnavailable: report === null ? context.reportUnavailable : report.kind === 'cells' ? null : report.message,
          stampPending: promoted && context.installedRelease !== null ? p.release : context.stampPending,
          condition: { status: 'True', reason: 'DatabaseSynced', message: `both schemas are migrated to ${p.release} and the cells are mapped${cells ? ` (${cells.map((c) => c.name).join(', ')})` : ''}` } as DatabaseCondition,
        };
      }),
      recordStamped: assign(({ context, event }) => (event.type === 'rolesStamped' && event.release === context.stampPending ? { stampPending: null } : {})),
    },
    guards: {
      abortRequested,
      abortJobsGone: (args: Args) => abortRequested(args) && phaseJobsPresent(passOf(args.event)!).length === 0,
      blocked,
      imageReleaseMismatch,
      releaseBumped,
      upgradePathRefused,
      targetChanged,
      everyRoleRolledOut,
      stampPending,
      firstInstallOrSameRelease: ({ context, event }: Args) => {
        const p = passOf(event);
        return p !== null && (context.installedRelease === null || p.release === context.installedRelease);
      },
      syncCreate: verdictIs('sync', 'create'),
      syncReplace: verdictIs('sync', 'replace'),
      syncDone: verdictIs('sync', 'done'),
      syncDoneStampPending: (args: Args) => verdictIs('sync', 'done')(args) && stampPending(args),
      syncFailed: verdictIs('sync', 'failed'),
      expandFailed: verdictIs('expand', 'failed'),
      migrateFailed: verdictIs('migrate', 'failed'),
      contractFailed: verdictIs('contract', 'failed'),
      expandCreate: verdictIs('expand', 'create'),
      expandReplace: verdictIs('expand', 'replace'),
      expandDone: verdictIs('expand', 'done'),
      migrateCreate: verdictIs('migrate', 'create'),
      migrateReplace: verdictIs('migrate', 'replace'),
      migrateDone: verdictIs('migrate', 'done'),
      contractCreate: verdictIs('contract', 'create'),
      contractReplace: verdictIs('contract', 'replace'),
      contractDone: verdictIs('contract', 'done'),
    },
  }).createMachine({
    id: 'novaUpgrade',
    context: { decidedGeneration: null, installedRelease: null, target: null, condition: null, cells: null, reportUnavailable: null, stampPending: null, rollout: null },
    initial: 'steady',
    on: {
      // NU9: the stamp's result, whichever state the next pass finds
      rolesStamped: { actions: ['recordStamped', outcome('rolesStamped')] },
    },
    states: {
      steady: {
        on: {
          pass: [
            { guard: 'blocked', actions: ['recordGeneration', 'recordBlocked', outcome('blocked')] }, // NU2
            { guard: 'imageReleaseMismatch', actions: ['recordGeneration', 'recordMismatch', outcome('imageReleaseMismatch')] }, // NU3
            { guard: 'upgradePathRefused', actions: ['recordGeneration', 'recordRefusal', outcome('upgradeRefused')] }, // NU4
            { guard: 'releaseBumped', target: 'expanding', actions: ['recordGeneration', 'startUpgrade', outcome('upgradeStarted')] }, // NU5
            // NU10: the db-sync Job keeps both schemas at the installed release
            { guard: 'syncCreate', actions: ['recordGeneration', 'recordSyncing', createJob('sync'), outcome('syncJobCreated')] },
            { guard: 'syncReplace', actions: ['recordGeneration', 'recordSyncing', deleteJobs(['sync'], 'rendered from an older spec'), outcome('syncJobReplaced')] },
            { guard: 'syncDoneStampPending', actions: ['recordGeneration', 'promoteSynced', stamp(), outcome('synced')] }, // NU9 retried
            { guard: 'syncDone', actions: ['recordGeneration', 'promoteSynced', outcome('synced')] },
            { guard: 'syncFailed', actions: ['recordGeneration', 'recordSyncing', outcome('syncFailed')] },
            { actions: ['recordGeneration', 'recordSyncing', outcome('syncing')] },
          ],
        },
      },
      expanding: { on: { pass: [...interrupts(), ...phaseJob(EXPAND, { target: 'migrating', actions: ['recordGeneration', 'recordExpanded', outcome('expanded')] })] } },
      migrating: { on: { pass: [...interrupts(), ...phaseJob(MIGRATE, { target: 'rollingUpdate', actions: ['recordGeneration', 'recordRollout', outcome('migrated')] })] } },
      rollingUpdate: {
        on: {
          pass: [
            ...interrupts(),
            { guard: 'everyRoleRolledOut', target: 'contracting', actions: ['recordGeneration', 'recordRolledOut', outcome('rolledOut')] }, // NU8
            { actions: ['recordGeneration', 'recordRollout', outcome('rollingUpdate')] },
          ],
        },
      },
      contracting: { on: { pass: [...interrupts(), ...phaseJob(CONTRACT, { target: 'steady', actions: ['recordGeneration', 'promoteTarget', stamp(), outcome('contracted')] })] } }, // NU9
    },
  });

/** What every upgrade phase checks before its own work (NU1, NU2, NU3, NU6). */
function interrupts() {
  return [
    { guard: 'abortJobsGone', target: 'steady', actions: ['recordGeneration', 'clearUpgrade', outcome('aborted')] }, // NU1
    { guard: 'abortRequested', actions: ['recordGeneration', 'recordAborting', deletePresentPhaseJobs(), outcome('aborting')] }, // NU1
    { guard: 'blocked', actions: ['recordGeneration', 'recordBlocked', outcome('blocked')] }, // NU2
    { guard: 'imageReleaseMismatch', actions: ['recordGeneration', 'recordMismatch', outcome('imageReleaseMismatch')] }, // NU3
    { guard: 'targetChanged', actions: ['recordGeneration', 'recordTargetChanged', outcome('targetChanged')] }, // NU6
  ] as unknown as never[]; // guard and action names are checked by setup() at runtime; the tuple types are too deep for TS
}

/** NU7: a phase's Job by the hash rule; `done` is where the phase goes when the Job completed. */
function phaseJob(spec: PhaseSpec, done: { target: string; actions: readonly unknown[] }) {
  const record = { type: 'recordPhase', params: spec } as const;
  return [
    { guard: `${spec.job}Create`, actions: ['recordGeneration', record, createJob(spec.job), outcome(`${spec.job}JobCreated`)] },
    { guard: `${spec.job}Replace`, actions: ['recordGeneration', record, deleteJobs([spec.job], 'rendered from an older spec'), outcome(`${spec.job}JobReplaced`)] },
    { guard: `${spec.job}Done`, ...done },
    { guard: `${spec.job}Failed`, actions: ['recordGeneration', record, outcome(`${spec.job}Failed`)] },
    { actions: ['recordGeneration', record, outcome(`${spec.job}Running`)] },
  ] as unknown as never[];
}

function createJob(job: NovaJob) {
  return { type: 'nova.createJob', params: ({ event }: Args) => ({ job, hash: passOf(event)?.hashes[job] ?? '' }) } as const;
}
function deleteJobs(jobs: NovaJob[], why: string) {
  return { type: 'nova.deleteJobs', params: { jobs, why } } as const;
}
function deletePresentPhaseJobs() {
  return { type: 'nova.deleteJobs', params: ({ event }: Args) => ({ jobs: phaseJobsPresent(passOf(event)!), why: 'the upgrade is aborted' }) } as const;
}
function stamp() {
  return { type: 'nova.stampInstalledRelease', params: ({ context }: Args) => ({ release: context.stampPending ?? context.target ?? '' }) } as const;
}

// ─── definition ───────────────────────────────────────────────────────────────────────────────────

export const novaDatabaseStream = (novaUid: string): string => `nova-database-${novaUid}`;

/** The upgrade phase a snapshot is in (status.upgradePhase), null in steady. */
export const upgradePhaseOf = (value: unknown): UpgradePhase | null => (typeof value === 'string' ? (STATE_PHASE[value] ?? null) : null);

const R0 = '2025.1';
const R1 = '2025.2';
const R2 = '2026.1';
const image = (release: string) => `ghcr.io/c5c3/nova:${release}`;
const hashes = { sync: 'hs', expand: 'he', migrate: 'hm', contract: 'hc' };
const none = { sync: null, expand: null, migrate: null, contract: null };
type JobsIn = NovaPass['jobs'];

/** A finite set of passes covering every decision-relevant case (regent check and the model tests explore it). */
export const novaUpgradeAlphabet = (): NovaUpgradeStimulus[] => {
  const out: NovaUpgradeStimulus[] = [];
  const worlds: Array<{ jobs: JobsIn; rollout: NovaPass['rollout'] }> = [{ jobs: none, rollout: null }];
  for (const job of NOVA_JOBS) {
    for (const observed of [
      { hash: hashes[job], state: 'running' },
      { hash: hashes[job], state: 'succeeded' },
      { hash: hashes[job], state: 'failed', message: 'exit code 2' },
      { hash: 'old', state: 'succeeded' },
    ] as const) {
      worlds.push({ jobs: { ...none, [job]: observed }, rollout: null });
    }
  }
  worlds.push({ jobs: none, rollout: [{ role: 'conductor', rolledOut: true, detail: 'rolled out' }, { role: 'api', rolledOut: false, detail: '1 of 2 replicas updated' }] });
  worlds.push({ jobs: none, rollout: [{ role: 'conductor', rolledOut: true, detail: 'rolled out' }, { role: 'api', rolledOut: true, detail: 'rolled out' }] });
  for (const release of [R0, R1, R2, '2024.2']) {
    for (const img of [image(release), image(release === R0 ? R1 : R0)]) {
      for (const world of worlds) {
        out.push({ type: 'pass', source: 'reconciler', generation: 1, release, image: img, blocked: null, hashes, jobs: world.jobs, report: world.jobs.sync?.state === 'succeeded' ? { kind: 'cells', cells: [{ name: 'cell1', uuid: '2b6e3f4c-0000-4000-8000-000000000001' }] } : null, rollout: world.rollout });
      }
    }
    out.push({ type: 'pass', source: 'reconciler', generation: 1, release, image: image(release), blocked: { reason: 'ClusterNotReady', message: 'no MariaDB mariadb' }, hashes, jobs: none, report: null, rollout: null });
  }
  out.push({ type: 'rolesStamped', source: 'effect', release: R1, roles: ['conductor'] });
  return out;
};

const audit = (): MachineAudit => ({
  alphabet: (): Stimulus[] => novaUpgradeAlphabet(),
  // the graph stays finite: the phase, the releases and the pending stamp decide what can happen next
  stateKey: (snapshot) => {
    const c = snapshot.context as NovaUpgradeContext;
    return JSON.stringify([snapshot.value, c.installedRelease, c.target, c.stampPending, c.condition?.reason ?? null]);
  },
  // the standing intent is the upgrade itself: its target release, in the phase it has reached
  intentOf: (snapshot) => {
    const target = (snapshot.context as NovaUpgradeContext).target;
    const phase = upgradePhaseOf(snapshot.value);
    return target !== null && phase !== null ? { target, state: phase } : null;
  },
  // expand → migrate → roll → contract: for one target an upgrade never goes back a phase (an abort clears it)
  rank: (snapshot) => UPGRADE_PHASE_RANK[upgradePhaseOf(snapshot.value) ?? 'steady'] ?? 0,
});

const UPGRADE_PHASE_RANK: Record<string, number> = { steady: 0, Expanding: 1, Migrating: 2, RollingUpdate: 3, Contracting: 4 };

export const novaUpgradeDefinition: MachineDefinition<NovaUpgradeContext> = {
  id: 'novaUpgrade',
  version: 1,
  schemaVersion: 1,
  streamPrefix: 'nova-database-',
  machine: buildNovaUpgradeMachine(),
  stimulus: NovaUpgradeStimulus,
  effects: NOVA_UPGRADE_EFFECTS,
  input: () => ({}),
  description:
    "A Nova's Database step (nova-operator.md, \"Database\", \"The cells sequence\", \"Release upgrade\"; issue 14): the db-sync Job at the installed release, the expand-migrate-contract upgrade with its lockstep check and abort, installedRelease and the cells.",
  audit: audit(),
};
