/**
 * The DBArchive step (nova-operator.md, "Pipeline" DBArchive, "DBArchive"; issues 14 and 26): the {name}-db-archive
 * CronJob projected and the newest terminal run it spawned reported, through machines/nova-db-archive.ts (the
 * authority for DBArchiveReady, rendered from its own stream: the lane records nothing for it). It runs after the
 * workload steps and before the parallel group, and only once the Database step found the schemas synced
 * (values.databaseSynced): archiving rows out of a schema a migration is still changing is not safe, so during an
 * upgrade the CronJob is left as the last synced pass projected it. It never ends the lane.
 */
import type { Stimulus } from '../../../../machines/definition.js';
import { novaDBArchiveStream, type ArchiveRun } from '../../../../machines/nova-db-archive.js';
import { renderArchiveCronJob } from '../../../nova/jobs/render.js';
import { continueLane, type NovaStep } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import { recordNovaEvents } from '../events.js';
import { novaRenderOptions } from '../render-options.js';

const actor = 'reconciler/nova';

export const dbArchiveStep: NovaStep<NovaLanePass> = {
  name: 'DBArchive',
  conditions: [],
  async run(pass) {
    if (pass.values.databaseSynced !== true) return { conditions: [], outcome: continueLane };
    const { deps, nova, ref } = pass;
    const cronJob = renderArchiveCronJob(ref, nova.spec, novaRenderOptions(deps, ref));
    const runs = await deps.jobs.cronJobRuns(ref.namespace, cronJob.name);
    // every run, running ones too: their series exist at 0 before the first terminal one (so increase() sees it)
    for (const r of runs.runs) deps.metrics?.archiveRunFinished({ namespace: ref.namespace, name: ref.name }, { uid: r.uid, state: r.state, ...(r.startedAt ? { startedAt: r.startedAt } : {}), ...(r.finishedAt ? { finishedAt: r.finishedAt } : {}) });
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
    return { conditions: [], outcome: continueLane };
  },
};
