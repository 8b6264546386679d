/**
 * The plan of the Nova operator kinds: a Nova (its Database step's upgrade machine machines/nova-upgrade.ts, NU1–NU10;
 * its DBArchive step's machines/nova-db-archive.ts, A1–A4; its finalizer's ledger and cleanup machines/nova-finalizer.ts,
 * NF1–NF9; the record of what its steps said, machines/nova-pipeline.ts, NP1–NP3) and a NovaCompute (its node pool
 * machines/nova-compute-pool.ts, NP1–NP3, NS1–NS5, TR1–TR6, RL; its steps' record, novaComputePipeline, NP1–NP3 of
 * nova-pipeline.ts). The two kinds' passes write no OpenStack resource of their own but MariaDB schemas and users, Jobs,
 * CronJobs, role workloads, configs, DaemonSets and Placement/Nova objects: src/plan/nova-guards.ts keeps all of that
 * from happening in a plan and records it.
 *
 * Labels are the ones the source gives each transition: its own trailing comment (`// NU2`), else the comment heading
 * its group of transitions (`// NU10: the db-sync Job …`), else the doc comment of the helper that builds it
 * (`phaseJob`: NU7; the `unresolved` pair: NF8), else the header rule that names it (only novaUpgrade's
 * `rollingUpdate`: NU8, "RollingUpdate runs no Job and flips to Contracting only when every rendered role rolled out").
 * test/plan/nova-plan.test.ts checks each row against the source; test/plan/rules.test.ts checks that every decision
 * of each machine's explored graph has a row or is named below as unlabelled.
 *
 * Both kinds are planned when the plan is given the control plane's Nova runtime (src/plan/planner.ts `nova`, which
 * it hands the plane behind nova-guards.ts `readOnlyNovaRuntime`; the NovaCompute wiring opens its pool client with
 * the guarded runtime's `compute.openComputeApi`, so its Nova and Placement writes are refused too). Without the
 * runtime the kinds' passes have no database, Job or workload port: the plan says so (`needsNovaRuntime`) rather than
 * a plan it cannot make.
 */
import { r, type RuleRow } from './rule-row.js';
import type { PlanCoverage } from './coverage.js';

/** NU7 for one phase Job: created, replaced, running, failed (machines/nova-upgrade.ts `phaseJob`). */
const phaseJobRows = (job: 'expand' | 'migrate' | 'contract'): RuleRow[] => [
  { outcome: `${job}JobCreated`, rule: r('NU7', `create the db-${job} Job: none exists for this phase`) },
  { outcome: `${job}JobReplaced`, rule: r('NU7', `delete the db-${job} Job rendered from an older spec (re-created on the next pass)`) },
  { outcome: `${job}Running`, rule: r('NU7', `wait: the db-${job} Job is running (never killed for a new hash)`) },
  { outcome: `${job}Failed`, rule: r('NU7', `failed: the db-${job} Job failed with this spec's hash; not retried until the spec changes`) },
];

/** machines/nova-upgrade.ts: NU1–NU10. */
export const NOVA_UPGRADE_RULES: readonly RuleRow[] = [
  { outcome: 'aborted', rule: r('NU1', 'abort done: no phase Job is left; the upgrade is cleared') },
  { outcome: 'aborting', rule: r('NU1', "abort: the spec's release is back at installedRelease; delete the phase Jobs still there") },
  { outcome: 'blocked', rule: r('NU2', 'blocked: a database, credential or config prerequisite is missing; no Job runs') },
  { outcome: 'imageReleaseMismatch', rule: r('NU3', 'lockstep: the image names another release than spec.openStackRelease; no Job runs') },
  { outcome: 'upgradeRefused', rule: r('NU4', 'refuse the upgrade: unparsable version, a downgrade, or a path that skips a release') },
  { outcome: 'upgradeStarted', rule: r('NU5', 'start the upgrade: target the new release, phase Expanding') },
  { outcome: 'targetChanged', rule: r('NU6', 'a third release mid-upgrade: UpgradeTargetChanged, nothing else changes') },
  ...phaseJobRows('expand'),
  { outcome: 'expanded', from: ['expanding'], rule: r('NU7', 'the db-expand Job succeeded: phase Migrating') },
  ...phaseJobRows('migrate'),
  { outcome: 'migrated', from: ['migrating'], rule: r('NU7', 'the db-migrate Job succeeded: phase RollingUpdate') },
  { outcome: 'rolledOut', from: ['rollingUpdate'], rule: r('NU8', 'every rendered role rolled out onto the new image: phase Contracting') },
  { outcome: 'rollingUpdate', from: ['rollingUpdate'], rule: r('NU8', 'wait: the roles roll onto the new image in order') },
  ...phaseJobRows('contract'),
  { outcome: 'contracted', from: ['contracting'], rule: r('NU9', 'the db-contract Job succeeded: installedRelease promoted, the non-API roles stamped') },
  { outcome: 'rolesStamped', rule: r('NU9', "the stamp's answer: the non-API roles carry the installed release") },
  { outcome: 'syncJobCreated', rule: r('NU10', 'create the db-sync Job: none exists') },
  { outcome: 'syncJobReplaced', rule: r('NU10', 'delete the db-sync Job rendered from an older spec (re-created on the next pass)') },
  { outcome: 'synced', rule: r('NU10', 'synced: the db-sync Job completed; installedRelease promoted and the cells published (a pending stamp retried: NU9)') },
  { outcome: 'syncFailed', rule: r('NU10', 'DBSyncFailed: the db-sync Job failed with this hash; not retried until the spec changes') },
  { outcome: 'syncing', rule: r('NU10', 'wait: the db-sync Job is running') },
];

/** machines/nova-db-archive.ts: A1–A4. */
export const NOVA_DB_ARCHIVE_RULES: readonly RuleRow[] = [
  { outcome: 'cronJobEnsuring', rule: r('A1', 'ensure the archive CronJob: absent or rendered from another spec') },
  { outcome: 'runFailed', rule: r('A3', 'DBArchiveJobFailed: the newest terminal run failed') },
  { outcome: 'observed', when: (d) => d.suspended === true, rule: r('A2', 'DBArchiveSuspended: the CronJob is suspended (outranks a failed run)') },
  { outcome: 'observed', when: (d) => d.suspended !== true, rule: r('A4', 'DBArchiveScheduled: the newest terminal run succeeded, or none ran yet') },
];

/** machines/nova-finalizer.ts: NF1–NF9. */
export const NOVA_FINALIZER_RULES: readonly RuleRow[] = [
  { outcome: 'claimed', rule: r('NF1', 'claim the schemas and users about to be created (write-ahead ownership)') },
  { outcome: 'cleanupArmed', rule: r('NF2', 'arm the database cleanup (write-ahead, nothing dropped yet)') },
  { outcome: 'cleanupDecided', rule: r('NF2', 'decide the cleanup: the armed deletion read back; drop what Regent created') },
  { outcome: 'cleanupDecidedAgain', rule: r('NF4', 'decide the cleanup again while the finalizer is held') },
  { outcome: 'finalizingDatabase', rule: r('NF3', 'FinalizingDatabase: something was live before the Deletes; hold one more pass') },
  { outcome: 'databaseFinalized', rule: r('NF3', 'DatabaseFinalized: nothing was live; release (on a target cluster: the sweep follows, NF6)') },
  { outcome: 'sweepArmed', rule: r('NF7', "arm the sweep of the target cluster's children (write-ahead)") },
  { outcome: 'sweepDecided', rule: r('NF7', 'sweep the children labelled with the Nova uid on the target cluster') },
  { outcome: 'sweepDecidedAgain', rule: r('NF7', 'sweep again while sweeping') },
  { outcome: 'remoteChildrenSwept', rule: r('NF7', "the sweep's answer: swept, both finalizers released") },
  { outcome: 'targetUnresolved', rule: r('NF8', 'the target cluster does not resolve: the abandon window starts') },
  { outcome: 'remoteChildrenAbandoned', rule: r('NF8', 'abandon the children: the target has not resolved for five minutes') },
];

/** machines/nova-pipeline.ts: NP1–NP3 (a Nova's lane, and a NovaCompute pool's). */
export const NOVA_PIPELINE_RULES: readonly RuleRow[] = [{ outcome: 'recorded', rule: r('NP1', "record what the pass's steps said (a condition's since moves only with its status, NP2)") }];

/** machines/nova-compute-pool.ts: NP1–NP3, NS1–NS5, TR1–TR6, RL. */
export const NOVA_COMPUTE_POOL_RULES: readonly RuleRow[] = [
  { outcome: 'nodeHandedOver', rule: r('NP2', 'a leaving node a rival pool selects: straight to Releasing, its service left to the rival') },
  { outcome: 'nodeLeaving', rule: r('NP2', 'a held node leaving: Pending → Releasing, Active → Draining') },
  { outcome: 'nodeTaken', rule: r('NP1', 'take a selected node no rival selects or holds: Pending') },
  { outcome: 'zoneFollowed', rule: r('NP3', "a Pending or Active node's zone follows the observation") },
  { outcome: 'serviceDeleteDecided', rule: r('NS4', 'delete the nova-compute service of a Releasing node no pod of the pool runs on') },
  { outcome: 'serviceDisableDecided', rule: r('NS2', 'disable the enabled service of a Draining node (once)') },
  { outcome: 'nodeReleased', rule: r('NS4', 'drop a Releasing node with no call (a handover, or its service gone)') },
  { outcome: 'nodeDrained', rule: r('NS3', 'a Draining node with no service or no server left: Releasing') },
  { outcome: 'registrationFollowed', rule: r('NS1', 'phases follow the registration (Pending ↔ Active)') },
  { outcome: 'serversCounted', rule: r('NS2', 'record the servers counted on a Draining host') },
  { outcome: 'serviceDisableFailed', rule: r('NS5', 'the disable failed: a later pass decides it again') },
  { outcome: 'serviceDeleted', rule: r('NS5', 'the service was deleted: the node leaves the pool') },
  { outcome: 'serviceDeleteFailed', rule: r('NS5', 'the delete failed: a later pass decides it again') },
  { outcome: 'traitsClaimed', rule: r('TR1', 'claim the traits observed absent in Placement before creating them (write-ahead)') },
  { outcome: 'traitCreated', rule: r('TR2', "created (201): Regent's trait, in the ledger") },
  { outcome: 'traitExisted', rule: r('TR2', 'already there (204): the claim dropped, never deleted by Regent') },
  { outcome: 'nodeTraitsRecorded', rule: r('TR3', "the node's trait record after its Hypervisor was written") },
  { outcome: 'traitDeleteDecided', rule: r('TR4', 'delete a trait Regent created that no pool declares or records any more') },
  { outcome: 'traitDeleted', rule: r('TR5', "the delete's answer (deleted, absent, or in use: TraitKept): out of the ledger") },
  { outcome: 'traitKept', rule: r('TR6', 'a deleting pool lets go of a trait another pool still declares') },
  { outcome: 'released', rule: r('RL', 'released: no node held and the ledger empty; final') },
];

const JOB_WAITS = (job: 'expand' | 'migrate' | 'contract', next: string): Record<string, string> => ({
  [`${job}JobCreated`]: `after the db-${job} Job succeeds: ${next}`,
  [`${job}JobReplaced`]: `after the db-${job} Job of the older spec is deleted: the next pass creates it again`,
  [`${job}Running`]: `waits for the db-${job} Job to finish (30 s polls): ${next}`,
  [`${job}Failed`]: `waits for a spec change: the failed db-${job} Job is not retried until then`,
});

export const NOVA: PlanCoverage = {
  kinds: ['Nova', 'NovaCompute'],
  rules: {
    novaUpgrade: NOVA_UPGRADE_RULES,
    novaDBArchive: NOVA_DB_ARCHIVE_RULES,
    novaFinalizer: NOVA_FINALIZER_RULES,
    novaPipeline: NOVA_PIPELINE_RULES,
    novaComputePipeline: NOVA_PIPELINE_RULES,
    novaComputePool: NOVA_COMPUTE_POOL_RULES,
  },
  waits: {
    novaUpgrade: {
      syncJobCreated: 'after the db-sync Job succeeds: installedRelease is promoted and the cells published from its report (30 s polls)',
      syncJobReplaced: 'after the db-sync Job of the older spec is deleted: the next pass creates it again',
      syncing: 'waits for the db-sync Job to finish (30 s polls)',
      syncFailed: 'waits for a spec change: the failed db-sync Job is not retried until then',
      synced: 'nothing: both schemas are at the release (the Jobs are read again in a minute)',
      blocked: 'waits for the missing prerequisite DatabaseReady names (a MariaDB cluster, a schema, a credential, the config)',
      imageReleaseMismatch: 'waits for spec.image and spec.openStackRelease to name the same release',
      upgradeRefused: 'waits for a release the upgrade path allows (one release at a time, never back)',
      upgradeStarted: 'the next pass (1 s) creates the db-expand Job',
      ...JOB_WAITS('expand', 'the schemas are expanded and the db-migrate Job comes next'),
      expanded: 'the next pass (1 s) creates the db-migrate Job',
      ...JOB_WAITS('migrate', 'the rolling update of the roles onto the new image comes next'),
      migrated: 'the rolling update of conductor, scheduler, metadata, the console proxy and the API, in order: waits for the new replicas of each to be ready',
      rollingUpdate: 'the rolling update of the role DatabaseReady names: waits for its new replicas to be ready (10 s polls)',
      rolledOut: 'the next pass (1 s) creates the db-contract Job',
      ...JOB_WAITS('contract', 'installedRelease is promoted and the non-API roles are stamped with it'),
      contracted: 'after the stamp: the non-API roles restart once more with the installed-release annotation; the db-sync Job runs for the new image',
      targetChanged: 'waits for spec.openStackRelease to go back to the target (continue) or to the installed release (abort)',
      aborting: 'after the phase Jobs are deleted: the next pass (1 s) clears the upgrade',
      aborted: 'the next pass (1 s) checks the db-sync Job against the installed release',
    },
    novaDBArchive: {
      cronJobEnsuring: 'after the archive CronJob is written: it runs on its schedule; nothing waits on it',
      runFailed: 'waits for a later run of the archive CronJob to succeed',
    },
    novaFinalizer: {
      claimed: 'the provisioner creates them in the same pass (the claims are stored first)',
      cleanupArmed: 'the same pass reads the arm back and decides the cleanup',
      cleanupDecided: 'after the cleanup answers: the finalizer is released when nothing was live, else held one more pass (30 s)',
      cleanupDecidedAgain: 'after the cleanup answers: the finalizer is released when nothing was live, else held one more pass (30 s)',
      sweepArmed: 'the same pass reads the arm back and decides the sweep',
      sweepDecided: "after the sweep answers: both finalizers are released",
      sweepDecidedAgain: "after the sweep answers: both finalizers are released",
      targetUnresolved: 'waits for the target cluster to resolve (15 s polls); its children are abandoned after five minutes',
    },
    novaComputePool: {
      nodeTaken: "waits for the node's nova-compute service to register and its host to be mapped (host discovery)",
      nodeLeaving: "the node drains: its service is disabled next, then waits for its servers to be gone",
      nodeHandedOver: "waits for the pool's pod to leave the node; its service is left to the other pool",
      serviceDisableDecided: 'after Nova disables the service: waits for the servers on the host to be gone (30 s polls)',
      serviceDeleteDecided: "after Nova deletes the service: the node's entry is dropped",
      nodeDrained: "waits for the pool's pod to leave the node, then its service is deleted",
      traitsClaimed: 'the same pass creates them in Placement (the claims are stored first)',
      traitDeleteDecided: 'after Placement answers the delete: the trait leaves the ledger',
    },
  },
  unlabelled: {
    novaDBArchive: {
      'novaDBArchive.cronJobEnsured': "the CronJob's ensure answered (an effect result; no label in the source)",
    },
    novaPipeline: {
      'novaPipeline.generationNoted': 'a new spec generation reached the lane with nothing else new (observedGeneration; no label in the source)',
    },
    novaComputePipeline: {
      'novaComputePipeline.generationNoted': 'a new spec generation reached the lane with nothing else new (observedGeneration; no label in the source)',
    },
    novaComputePool: {
      'novaComputePool.generationNoted': 'a new spec generation, no node moved (no label in the source)',
    },
  },
};
