/**
 * The effects the Nova machines declare, run by the engine only after the deciding event is stored:
 *   nova.createJob {job, hash}          → the Job rendered from the Nova as it is now; if that no longer has the
 *                                          decided hash (the spec changed in between) nothing is created and the
 *                                          next pass decides again; a 409 means it exists (the next pass reads it)
 *   nova.deleteJobs {jobs, why}         → each Job deleted with its pods (absent is success); a failure throws, so
 *                                          the Jobs stay and the next pass decides the delete again
 *   nova.stampInstalledRelease {release} → the installed-release annotation on the rendered non-API roles
 *                                          → `rolesStamped`
 *   nova.ensureArchiveCronJob {hash}    → the {name}-db-archive CronJob written when it differs → `cronJobEnsured`
 *   nova.deprovisionDatabases {owned}   → the finalizer's cleanup of both blocks → `cleanupAnswered` (./finalizer.ts)
 *   nova.sweepRemoteChildren {}         → the remote-children sweep on the target cluster → `remoteChildrenSwept`
 *
 * Each runs on the cluster the Nova is placed on (./target.ts): a Nova with a resolved target cluster has its Jobs,
 * CronJob, stamps and cleanup there; a target that does not resolve at the effect throws (the next pass decides again).
 */
import type { EffectHandler, EffectResult } from '../../engine/engine.js';
import type { Nova } from '../../resources/nova.js';
import { novaJobName, type NovaJob } from '../../../machines/nova-upgrade.js';
import { renderArchiveCronJob, renderNovaJob } from '../../nova/jobs/render.js';
import { JobRunnerError } from '../../nova/jobs/port.js';
import { NON_API_ROLES } from '../../nova/workloads/port.js';
import type { NovaControllerDeps } from './deps.js';
import { novaOfStream, novaRenderOptions } from './render-options.js';
import { deprovisionHandler, sweepHandler } from './finalizer.js';
import { portsFor } from './target.js';

type Deps = Pick<NovaControllerDeps, 'source' | 'jobs' | 'workloads' | 'renderOptions' | 'logger'> & Partial<Pick<NovaControllerDeps, 'secrets' | 'provisioner' | 'targetClusters' | 'forTarget'>>;

const novaFor = async (deps: Deps, stream: string): Promise<Nova | undefined> => {
  const ref = novaOfStream(stream);
  if (!ref) return undefined;
  const object = (await deps.source.get('Nova', ref.namespace, ref.name)) as Nova | undefined;
  return object && object.metadata.uid === ref.uid ? object : undefined;
};

const refOf = (nova: Nova) => ({ namespace: nova.metadata.namespace ?? 'default', name: nova.metadata.name, uid: nova.metadata.uid });

export const novaEffectHandlers = (deps: Deps): Record<string, EffectHandler> => ({
  // the finalizer's cleanup (./finalizer.ts), where the deps can run it (a test of the Job effects alone cannot)
  ...(deps.secrets && deps.provisioner ? { 'nova.deprovisionDatabases': deprovisionHandler({ ...deps, secrets: deps.secrets, provisioner: deps.provisioner }) } : {}),
  'nova.sweepRemoteChildren': sweepHandler(deps),
  'nova.createJob': async (effect, context) => {
    const { job, hash } = effect as unknown as { job: NovaJob; hash: string };
    const nova = await novaFor(deps, context.stream);
    if (!nova) return undefined;
    const ref = refOf(nova);
    const spec = renderNovaJob(ref, nova.spec, job, novaRenderOptions(deps, ref, job));
    if (spec.templateHash !== hash) {
      context.logger.info('not creating a Job rendered from a newer spec than the decision; the next pass decides again', { job: spec.name });
      return undefined;
    }
    try {
      // on the cluster the Nova is placed on (./target.ts): a target cluster's Jobs run there
      await (await portsFor(deps, nova)).jobs.create(spec);
    } catch (error) {
      if (error instanceof JobRunnerError && error.status === 409) return undefined;
      throw error;
    }
    context.logger.info('Job created', { job: `${spec.namespace}/${spec.name}`, hash });
    return undefined;
  },
  'nova.deleteJobs': async (effect, context) => {
    const { jobs } = effect as unknown as { jobs: NovaJob[] };
    const ref = novaOfStream(context.stream);
    if (!ref) return undefined;
    const nova = await novaFor(deps, context.stream);
    const runner = nova ? (await portsFor(deps, nova)).jobs : deps.jobs;
    for (const job of jobs) await runner.delete(ref.namespace, novaJobName(ref.name, job));
    context.logger.info('Jobs deleted', { nova: `${ref.namespace}/${ref.name}`, jobs: jobs.map((j) => novaJobName(ref.name, j)) });
    return undefined;
  },
  'nova.stampInstalledRelease': async (effect, context): Promise<EffectResult | undefined> => {
    const { release } = effect as unknown as { release: string };
    const nova = await novaFor(deps, context.stream);
    if (!nova) return undefined;
    const ref = refOf(nova);
    const roles = NON_API_ROLES.filter((role) => role !== 'novncproxy' || nova.spec.consoleProxy?.enabled === true);
    const stamped: string[] = [];
    const { workloads } = await portsFor(deps, nova);
    for (const role of roles) {
      const result = await workloads.stampInstalledRelease(ref.namespace, ref.name, role, release);
      if (result !== 'absent') stamped.push(role);
    }
    return { type: 'rolesStamped', release, roles: stamped };
  },
  'nova.ensureArchiveCronJob': async (effect, context): Promise<EffectResult | undefined> => {
    const { hash } = effect as unknown as { hash: string };
    const nova = await novaFor(deps, context.stream);
    if (!nova) return undefined;
    const spec = renderArchiveCronJob(refOf(nova), nova.spec, novaRenderOptions(deps, refOf(nova)));
    if (spec.templateHash !== hash) return undefined;
    await (await portsFor(deps, nova)).jobs.ensureCronJob(spec);
    return { type: 'cronJobEnsured', hash };
  },
});
