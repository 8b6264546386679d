/**
 * The Nova controller's pass (nova-operator.md, "Pipeline"; issues 14 and 26): the lane and the parallel group of
 * ./pipeline.ts run over one pass (./pass.ts), and what their steps said is appended to the Nova's
 * `nova-pipeline-<uid>` stream (machines/nova-pipeline.ts) on every exit path, before an error is rethrown. The
 * Database step decides through machines/nova-upgrade.ts and the DBArchive step through machines/nova-db-archive.ts,
 * each on its own stream; the projection (projections/nova-status.ts) renders the sixteen sub-conditions and Ready
 * from the three.
 *
 * Requeues as the spec's table (docs/nova.md): 15 s for a secret wait, 30 s for the database, config and Job waits,
 * 10 s for a rollout wait (during an upgrade the role's step ends the lane; outside one the pass completes and comes
 * back in 10 s while any role is still starting), 1 s after a phase flip, 60 s when every step passed (the archive's
 * runs, the Jobs and the roles are read again).
 */
import type { Stimulus } from '../../../machines/definition.js';
import { novaDatabaseStream, novaUpgradeDefinition } from '../../../machines/nova-upgrade.js';
import { novaPipelineDefinition, novaPipelineStream, type NovaPipelineStimulus } from '../../../machines/nova-pipeline.js';
import { contextOf } from '../../engine/engine.js';
import { FINALIZER_ADDED, NOVA_FINALIZER, finalizeNova } from './finalizer.js';
import { REMOTE_CHILDREN_FINALIZER, placeNova } from './target.js';
import { isDeleting } from '../../kube/object.js';
import type { Nova } from '../../resources/nova.js';
import type { NovaRef } from '../../nova/jobs/render.js';
import { done, yieldFor, type Disposition } from '../disposition.js';
import { NOVA_REQUEUE_MS, type NovaControllerDeps } from './deps.js';
import { runLane, type LaneResult } from './lane.js';
import type { NovaLanePass } from './pass.js';
import { NOVA_GROUP, NOVA_LANE, runGroup } from './pipeline.js';
import { rememberNova } from './render-options.js';
import { ROLE_STEPS } from './steps/roles.js';

export { NOVA_REQUEUE_MS, type NovaControllerDeps } from './deps.js';
export { novaOfStream, novaRenderOptions, renderedRoles, rememberConfig } from './render-options.js';

const actor = 'reconciler/nova';

/** The conditions of the five workload steps. */
const ROLE_CONDITIONS = new Set(ROLE_STEPS.flatMap((s) => s.conditions));

/** Whether an upgrade is in flight (Expanding … Contracting): the workload steps then wait for each rollout. */
const upgrading = async (deps: NovaControllerDeps, ref: NovaRef): Promise<boolean> => {
  const { value } = await deps.engine.load(novaUpgradeDefinition, novaDatabaseStream(ref.uid));
  return value !== 'steady' && value !== undefined;
};

/** The status fields the steps stamp in this pass (absent: the step did not run; the last stamp stays). */
const stampsOf = (pass: NovaLanePass, ran: ReadonlySet<string>): NovaPipelineStimulus['stamps'] => {
  const stamps: NovaPipelineStimulus['stamps'] = {};
  if (ran.has('Deployment') && pass.values.endpoint !== undefined) stamps.endpoint = pass.values.endpoint;
  if (pass.values.computeConfigSecretRef !== undefined) stamps.computeConfigSecretRef = pass.values.computeConfigSecretRef;
  if (pass.values.remoteComputeConfigSecretRef !== undefined) stamps.remoteComputeConfigSecretRef = pass.values.remoteComputeConfigSecretRef;
  return stamps;
};

/** Appends what the lane and the group said to `nova-pipeline-<uid>` (machines/nova-pipeline.ts: transitions only). */
const record = async (deps: NovaControllerDeps, pass: NovaLanePass, lane: LaneResult, group: LaneResult | null): Promise<void> => {
  const ran = new Set([...lane.timings, ...(group?.timings ?? [])].map((t) => t.step));
  const stimulus: NovaPipelineStimulus = {
    type: 'lane',
    source: 'reconciler',
    generation: pass.nova.metadata.generation ?? 1,
    at: pass.now().toISOString(),
    conditions: [...lane.conditions, ...(group?.conditions ?? [])].map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message })),
    endedAt: lane.endedAt ?? group?.endedAt ?? null,
    stamps: stampsOf(pass, ran),
  };
  await deps.engine.dispatch(novaPipelineStream(pass.ref.uid), { stimulus: stimulus as unknown as Stimulus, actor });
};

/** The condition a step reports under, for the error counter's `condition_type` (its own, or the one it decides through). */
const REPORTS_UNDER: Readonly<Record<string, string>> = { Database: 'DatabaseReady', DBArchive: 'DBArchiveReady' };
const conditionTypeOf = (step: string): string => REPORTS_UNDER[step] ?? [...NOVA_LANE, ...NOVA_GROUP].find((s) => s.name === step)?.conditions[0] ?? step;

/** nova_operator_reconcile_duration_seconds / _errors_total over every step that ran. */
const observeSteps = (deps: NovaControllerDeps, lane: LaneResult, group: LaneResult | null): void => {
  if (!deps.metrics) return;
  for (const t of [...lane.timings, ...(group?.timings ?? [])]) deps.metrics.stepFinished(t.step, conditionTypeOf(t.step), t.ms / 1000, t.outcome === 'error');
};

/** The endpoint the pipeline last stamped (the finalizer evicts its probe-cache entry). */
const stampedEndpoint = async (deps: NovaControllerDeps, ref: NovaRef): Promise<string | undefined> => {
  const { snapshot } = await deps.engine.load(novaPipelineDefinition, novaPipelineStream(ref.uid));
  return contextOf(novaPipelineDefinition, snapshot).stamps.endpoint ?? undefined;
};

/** Records a pass that stopped ahead of every step (TargetClusterUnavailable): SecretsReady says why. */
const recordGate = async (deps: NovaControllerDeps, object: Nova, ref: NovaRef, reason: string, message: string, now: () => Date): Promise<void> => {
  const stimulus: NovaPipelineStimulus = { type: 'lane', source: 'reconciler', generation: object.metadata.generation ?? 1, at: now().toISOString(), conditions: [{ type: 'SecretsReady', status: 'False', reason, message }], endedAt: 'TargetCluster', stamps: {} };
  await deps.engine.dispatch(novaPipelineStream(ref.uid), { stimulus: stimulus as unknown as Stimulus, actor });
};

export const reconcileNova = async (deps: NovaControllerDeps, namespace: string, name: string, now: () => Date = () => new Date()): Promise<Disposition> => {
  const object = (await deps.source.get('Nova', namespace, name)) as Nova | undefined;
  if (!object) {
    // gone (its finalizer released, or it never carried one): what runs here for it is stopped, its series dropped
    await deps.released?.(namespace, name);
    deps.metrics?.deleteForNova({ namespace, name });
    return done('gone');
  }
  const ref: NovaRef = { namespace, name, uid: object.metadata.uid };
  rememberNova(ref);
  const finalizers = object.metadata.finalizers ?? [];
  const holdsFinalizer = finalizers.includes(NOVA_FINALIZER);
  if (isDeleting(object)) {
    if (!holdsFinalizer && !finalizers.includes(REMOTE_CHILDREN_FINALIZER)) return done('being deleted without Regent\'s finalizer: nothing of it was created here, or its cleanup is done');
    return finalizeNova(deps, object, ref, await stampedEndpoint(deps, ref), now);
  }
  const refused = deps.namespaceRefused?.(namespace) ?? null;
  if (refused) {
    // nothing in this namespace may be read or written (no Secret, no Job, no role): the pass records only why
    const none = { sync: null, expand: null, migrate: null, contract: null };
    const hashes = { sync: '', expand: '', migrate: '', contract: '' };
    await deps.engine.dispatch(novaDatabaseStream(ref.uid), { stimulus: { type: 'pass', source: 'reconciler', generation: object.metadata.generation ?? 1, release: object.spec.openStackRelease, image: object.spec.image, blocked: { reason: 'NamespaceNotServed', message: refused }, hashes, jobs: none, report: null, rollout: null } as unknown as Stimulus, actor });
    return done(refused);
  }
  // spec.targetClusterRef, ahead of every step (./target.ts): a name that is not registered or does not resolve stops
  // the pass before anything is created anywhere (TargetClusterUnavailable, 15 s, no finalizer); one that resolves
  // runs the pass with the target's ports, or says it cannot (TargetClusterNotSupported: a runtime without forTarget)
  const placement = await placeNova(deps, object);
  if (placement.kind === 'unavailable' || placement.kind === 'notSupported') {
    const reason = placement.kind === 'unavailable' ? 'TargetClusterUnavailable' : 'TargetClusterNotSupported';
    await recordGate(deps, object, ref, reason, placement.message, now);
    return yieldFor(NOVA_REQUEUE_MS.secretPolling, `${reason}: ${placement.message}`);
  }
  // a Nova on a target: its children there are watched by the uid label (the target's watch set, started here once
  // per cluster and namespace while this process leads; the end of the pass asks again whether it is live)
  if (placement.kind === 'remote') deps.watchTarget?.(placement.cluster, namespace);
  // the finalizers go on before anything is created, so nothing is ever created for a Nova that can vanish unseen; a
  // Nova on a target cluster carries the remote-children one too (its children there have no owner reference)
  const missing = [NOVA_FINALIZER, ...(placement.kind === 'remote' ? [REMOTE_CHILDREN_FINALIZER] : [])].filter((f) => !finalizers.includes(f));
  if (missing.length > 0) {
    for (const finalizer of missing) await deps.source.addFinalizer('Nova', namespace, name, finalizer);
    return yieldFor(NOVA_REQUEUE_MS.nextPass, missing.length === 1 && missing[0] === NOVA_FINALIZER ? FINALIZER_ADDED : `the finalizers ${missing.join(', ')} were added; the pipeline runs on the next pass`);
  }
  const pass: NovaLanePass = { nova: object, ref, deps: placement.deps, values: { digests: {} }, upgrading: await upgrading(deps, ref), now };
  const lane = await runLane(NOVA_LANE, pass);
  const group = lane.endedAt === null ? await runGroup(NOVA_GROUP, pass) : null;
  observeSteps(deps, lane, group);
  await record(deps, pass, lane, group);
  const slow = [...lane.timings, ...(group?.timings ?? [])].filter((t) => t.ms >= 1_000);
  if (slow.length > 0) deps.logger.info('slow Nova pipeline steps', { nova: `${namespace}/${name}`, steps: slow.map((t) => `${t.step} ${Math.round(t.ms)} ms`).join(', ') });
  const outcome = lane.endedAt !== null ? lane.outcome : group!.outcome;
  if (outcome.kind === 'error') throw outcome.error;
  if (outcome.kind === 'requeue') return yieldFor(outcome.afterMs, `${lane.endedAt ?? group?.endedAt}: ${outcome.why}`);
  // outside an upgrade a role still starting does not end the lane. Where the children are watched (Kubernetes: the
  // management cluster's watches, or a target cluster's watch set by the uid label once it is live) the Deployment's
  // and the Jobs' changes wake the next pass (the spec's Owns re-enqueue), and only a resync stands behind them;
  // elsewhere (the embedded default's processes, a target whose watch set is not live yet or fails) nothing watches
  // them, so the pass polls: 10 s while a role starts, a minute once all is well
  // On a target only the children are watched, not the credential Secrets read there: a synced Nova on a target keeps
  // the minute's poll so a rotated credential rolls as soon as it would without a target.
  const remote = placement.kind === 'remote';
  const watched = remote ? deps.watchTarget?.(placement.cluster, namespace) === true : deps.childrenWatched === true;
  const rolling = lane.conditions.filter((c) => ROLE_CONDITIONS.has(c.type) && c.status !== 'True');
  const still = rolling.map((c) => `${c.type} ${c.message}`).join('; ');
  if (watched && rolling.length > 0) return yieldFor(NOVA_REQUEUE_MS.watchedResync, `still rolling out: ${still}; the Deployment watch wakes the next pass`);
  if (watched && !remote) return yieldFor(NOVA_REQUEUE_MS.watchedResync, 'every step passed; the watches wake the next pass (a resync in 10 min)');
  if (rolling.length > 0) return yieldFor(NOVA_REQUEUE_MS.deploymentPolling, `still rolling out: ${still}`);
  return yieldFor(NOVA_REQUEUE_MS.synced, 'every step passed; the archive, the Jobs and the roles are read again in a minute');
};
