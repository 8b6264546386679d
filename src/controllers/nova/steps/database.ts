/**
 * The Database step (nova-operator.md, "Pipeline" Database, "The cells sequence", "Release upgrade"; issues 14 and
 * 26): both schemas and cell0 provisioned, the requested release gated against the installed one, the migration Jobs
 * run, installedRelease promoted; a release bump runs expand → migrate → RollingUpdate → contract instead.
 *
 * The steps before it read the credentials, derived the DSN and transport Secrets and rendered the config, so this
 * step starts from their values:
 *   1. the plan (schema and user names checked first), then both blocks provisioned through the DatabaseProvisioner
 *      (nova_api under {name}-api, then the cell block with cell0): idempotent, nothing irreversible;
 *   2. a runner that can run the Jobs here, and a rendered config for them to mount (values.config);
 *   3. the four Jobs observed, their hashes rendered on that config, the db-sync report read once per Job, the
 *      roles' rollout read while RollingUpdate → one `pass` stimulus; machines/nova-upgrade.ts decides and is the
 *      authority for DatabaseReady (rendered from its stream, so this step sets no lane condition); its effects
 *      (create or delete a Job, stamp the roles) run after the decision is stored.
 *
 * How the lane goes on (docs/nova.md, "Requeues"):
 *   synced                     continue (values.databaseSynced: the DBArchive step runs)
 *   RollingUpdate              continue: the workload steps behind this one roll the roles onto the new image, in
 *                              order, each waiting 10 s for its rollout; this step flips the phase to Contracting on
 *                              the pass that observes every rendered role rolled out
 *   a phase flip or a Job      requeue 1 s (RequeueNextPass)
 *   replaced
 *   any other wait or failure  requeue 30 s (RequeueDatabaseWait / RequeueUpgradeWait): the roles are not touched, so
 *                              an upgrade never rolls a role before its expand and migrate phases succeeded
 */
import { contextOf, type Decision } from '../../../engine/engine.js';
import type { Stimulus } from '../../../../machines/definition.js';
import { NOVA_JOBS, novaDatabaseStream, novaJobName, novaUpgradeDefinition, type BlockedReason, type NovaJob, type NovaPass, type NovaUpgradeContext, type ObservedNovaJob } from '../../../../machines/nova-upgrade.js';
import { planDatabases } from '../../../nova/database/plan.js';
import { ServerNotReadyError, type ProvisionedObject } from '../../../nova/database/port.js';
import { claimOwnership } from '../finalizer.js';
import { renderNovaJob } from '../../../nova/jobs/render.js';
import type { ObservedJob } from '../../../nova/jobs/port.js';
import { parseCellsReport } from '../../../nova/cells-report.js';
import { describeError } from '../../../log/logger.js';
import { continueLane, requeue, type NovaStep, type StepOutcome } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import { recordNovaEvents } from '../events.js';
import { NOVA_REQUEUE_MS } from '../deps.js';
import { novaRenderOptions, renderedRoles, rememberConfig } from '../render-options.js';

const actor = 'reconciler/nova';

/** Job uids whose report this process has read (a report is read once per Job). */
const reportsRead = new Set<string>();

type Gate = { blocked: { reason: BlockedReason; message: string } } | { ready: true };

/** Provisioning, the runner, the config: the first missing one blocks the Jobs (the machine records why). */
const gate = async (pass: NovaLanePass): Promise<Gate> => {
  const { deps, nova, ref, values } = pass;
  const block = (reason: BlockedReason, message: string): Gate => ({ blocked: { reason, message } });
  const api = values.apiCredentials;
  const cell = values.cellCredentials;
  // the Secrets step fills both before the lane reaches this step; their absence is a step-table bug, said as a wait
  if (!api || !cell) return block('WaitingForDBCredentials', 'the database credentials were not read in this pass (the Secrets step sets them)');
  const plan = planDatabases(nova, { api: { username: api.username }, cell: { username: cell.username } });
  if (!plan.ok) return block('WaitingForDatabase', `nothing is applied: ${plan.problems.join('; ')}`);
  const password = async (secret: { name: string; key: string }) => (await deps.secrets.get(ref.namespace, secret.name))?.data[secret.key];
  const [apiPlan, cellPlan] = plan.blocks;
  for (const [blockName, blockPlan] of [['api', apiPlan], ['cell', cellPlan]] as const) {
    // NF1 (machines/nova-finalizer.ts): what is about to be created is claimed first, so the finalizer drops it later
    let absent: ProvisionedObject[];
    try {
      absent = await deps.provisioner.absent(ref.namespace, blockPlan, password);
    } catch (error) {
      if (!(error instanceof ServerNotReadyError)) throw error;
      return block(error.outcome.kind === 'clusterNotReady' ? 'ClusterNotReady' : 'WaitingForDatabase', error.outcome.message);
    }
    await claimOwnership(deps, ref, absent.map((o) => ({ ...o, block: blockName })));
    const outcome = await deps.provisioner.provision(ref.namespace, blockPlan, password);
    if (outcome.kind === 'clusterNotReady') return block('ClusterNotReady', outcome.message);
    if (outcome.kind === 'waiting') return block('WaitingForDatabase', outcome.message);
  }
  const unavailable = deps.jobsUnavailable?.() ?? null;
  if (unavailable) return block('WaitingForConfig', unavailable);
  if (!values.config) return block('WaitingForConfig', 'there is no rendered config for the Jobs to mount (SecretsReady says why)');
  return { ready: true };
};

const observedJob = (job: ObservedJob | undefined): ObservedNovaJob | null =>
  job ? { hash: job.templateHash, state: job.state, ...(job.failureMessage ? { message: job.failureMessage } : {}) } : null;

/** The db-sync report, read once per succeeded Job of the current hash. */
const readReport = async (pass: NovaLanePass, job: ObservedJob | undefined, hash: string): Promise<NovaPass['report']> => {
  if (!job || job.state !== 'succeeded' || job.templateHash !== hash || reportsRead.has(job.uid)) return null;
  let message: string | null;
  try {
    message = await pass.deps.jobs.terminationMessage(job);
  } catch (error) {
    pass.deps.logger.warn('could not read the db-sync report', { job: `${job.namespace}/${job.name}`, ...describeError(error) });
    return { kind: 'unreadable', message: `the report of ${job.name} could not be read` };
  }
  reportsRead.add(job.uid);
  const cells = message ? parseCellsReport(message) : [];
  if (cells.length === 0) return { kind: 'unreadable', message: message ? `the report of ${job.name} names no cell` : `${job.name} left no report` };
  return { kind: 'cells', cells: cells.map((c) => ({ name: c.name, uuid: c.uuid })) };
};

/** How the lane goes on after the machine's decision (the table in the header). */
export const databaseOutcome = (decision: Pick<Decision, 'outcome'> & { snapshot: { value: unknown } }, context: NovaUpgradeContext): { outcome: StepOutcome; synced: boolean } => {
  if (context.condition?.status === 'True') return { outcome: continueLane, synced: true };
  const why = context.condition?.message ?? `${decision.outcome ?? 'waiting'}`;
  switch (decision.outcome) {
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
      return { outcome: requeue(NOVA_REQUEUE_MS.nextPass, `${decision.outcome}: the next pass continues`), synced: false };
    default:
      if (decision.snapshot.value === 'rollingUpdate') return { outcome: continueLane, synced: false };
      return { outcome: requeue(decision.snapshot.value === 'steady' ? NOVA_REQUEUE_MS.databaseWait : NOVA_REQUEUE_MS.upgradeWait, why), synced: false };
  }
};

export const databaseStep: NovaStep<NovaLanePass> = {
  name: 'Database',
  // DatabaseReady is the upgrade machine's (its own stream): the lane records nothing for it
  conditions: [],
  async run(pass) {
    const { deps, nova, ref, values } = pass;
    const { namespace, name } = ref;
    const opened = await gate(pass);
    if (values.config) rememberConfig(ref, values.config);
    const renderFor = (job: NovaJob) => novaRenderOptions(deps, ref, job);
    const hashes = Object.fromEntries(NOVA_JOBS.map((job) => [job, 'ready' in opened ? renderNovaJob(ref, nova.spec, job, renderFor(job)).templateHash : ''])) as Record<NovaJob, string>;
    const observed = Object.fromEntries(await Promise.all(NOVA_JOBS.map(async (job) => [job, await deps.jobs.get(namespace, novaJobName(name, job))] as const))) as Record<NovaJob, ObservedJob | undefined>;
    for (const job of NOVA_JOBS) {
      const o = observed[job];
      if (o) deps.metrics?.jobFinished({ namespace, name }, `db-${job}` as const, { uid: o.uid, state: o.state, ...(o.startedAt ? { startedAt: o.startedAt } : {}), ...(o.finishedAt ? { finishedAt: o.finishedAt } : {}) });
    }
    const stream = novaDatabaseStream(ref.uid);
    const before = await deps.engine.load(novaUpgradeDefinition, stream);
    const rollout =
      before.value === 'rollingUpdate' && 'ready' in opened
        ? await Promise.all(renderedRoles(nova).map(async (role) => {
            const r = await deps.workloads.rollout(namespace, name, role, nova.spec.image);
            return { role: r.role, rolledOut: r.rolledOut, detail: r.detail };
          }))
        : null;
    const stimulus: NovaPass = {
      type: 'pass',
      source: 'reconciler',
      generation: nova.metadata.generation ?? 1,
      release: nova.spec.openStackRelease,
      image: nova.spec.image,
      blocked: 'blocked' in opened ? opened.blocked : null,
      hashes,
      jobs: { sync: observedJob(observed.sync), expand: observedJob(observed.expand), migrate: observedJob(observed.migrate), contract: observedJob(observed.contract) },
      report: 'ready' in opened ? await readReport(pass, observed.sync, hashes.sync) : null,
      rollout,
    };
    const decisions = await deps.engine.dispatch(stream, { stimulus: stimulus as unknown as Stimulus, actor });
    await recordNovaEvents(deps.source, nova, decisions, deps.logger);
    const first = decisions[0]!;
    const context = contextOf(novaUpgradeDefinition, (decisions.at(-1) ?? first).snapshot);
    const { outcome, synced } = databaseOutcome(first, context);
    values.databaseSynced = synced;
    return { conditions: [], outcome };
  },
};
