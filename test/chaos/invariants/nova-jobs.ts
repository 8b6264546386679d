/**
 * The invariants for the Nova upgrade, read from its own ground truth: the nova-manage / nova-status call
 * log of the Jobs (one Job run = one uid of the local JobRunner) and the schemas left in MariaDB, beside the stored
 * events and the settle claims.
 *   once       a Job of one template hash runs once: one uid per (Job, hash) — a restart that created the Job again
 *              would run expand, migrate or contract a second time for one decision.
 *   arm        no Job runs before the event that decided it: every uid's first call starts after an event declaring
 *              `nova.createJob` for that Job and hash was stored, and the cloud ran no more Jobs than were decided.
 *   dup        no two runs of one Job name at once.
 *   prov       no false claim: a Nova that says Ready on release R, when R is newer than what it said before, has a
 *              contract (an upgrade) or a db-sync (the first install) that ended with exit 0 before the claim; no
 *              phase Job (expand, migrate, contract) is still running when Ready is claimed; a Nova whose deletion
 *              settled left none of its schemas, users, Jobs or CronJob behind.
 *   lost       `nova.createJob` and `nova.deleteJobs` record no result (the next pass reads the Job): a stream that
 *              ends on one is checked here, by the Jobs themselves: the Job of that hash ran, the deleted Jobs are gone.
 * The lost-decision, replay and secret invariants are the generic ones (./no-lost-decision.ts, …).
 */
import type { RecordedEvent } from '../../../src/events/envelope.js';
import type { NovaToolCall } from '../fixtures/fake-nova-bin.js';
import type { Invariant, Violation } from './types.js';

const PHASE_JOB = /-db-(expand|migrate|contract)$/;

/** Effects whose handlers record no result event: the next pass observes the Job instead (src/controllers/nova/effects.ts). */
export const RESULTLESS_EFFECTS: readonly string[] = ['nova.createJob', 'nova.deleteJobs'];

interface JobRun {
  job: string;
  uid: string;
  hash: string;
  startedAt: number;
  /** The last call's end; undefined while a call was still open. */
  endedAt: number | undefined;
  /** Every call ended with exit 0. */
  succeeded: boolean;
}

/** The calls grouped by Job run (uid), in start order. */
export const jobRuns = (calls: readonly NovaToolCall[]): JobRun[] => {
  const runs = new Map<string, JobRun>();
  for (const call of calls) {
    const run = runs.get(call.uid) ?? { job: call.job, uid: call.uid, hash: call.hash, startedAt: call.startedAt, endedAt: call.endedAt, succeeded: true };
    run.startedAt = Math.min(run.startedAt, call.startedAt);
    run.endedAt = call.endedAt === undefined || run.endedAt === undefined ? undefined : Math.max(run.endedAt, call.endedAt);
    run.succeeded &&= call.exit === 0;
    runs.set(call.uid, run);
  }
  return [...runs.values()].sort((a, b) => a.startedAt - b.startedAt);
};

/** `nova.createJob` declarations: `<nova>-db-<job> <hash>` → the times they were stored. */
const createDecisions = (events: readonly RecordedEvent[], nova: string): Map<string, number[]> => {
  const decided = new Map<string, number[]>();
  for (const event of events) {
    for (const effect of event.metadata.effects) {
      if (effect.type !== 'nova.createJob') continue;
      const params = effect as { job?: unknown; hash?: unknown };
      const key = `${nova}-db-${params.job} ${params.hash}`;
      decided.set(key, [...(decided.get(key) ?? []), Date.parse(event.metadata.recordedAt)]);
    }
  }
  return decided;
};

interface ClaimStatus {
  installedRelease?: string;
  conditions?: Array<{ type: string; status: string }>;
}

export const novaJobs: Invariant = ({ scenario, events, claims }) => {
  const nova = scenario?.nova;
  if (!nova) return [];
  const violations: Violation[] = [];
  const runs = jobRuns(nova.calls);
  const decided = createDecisions(events, nova.name);

  const byJobAndHash = new Map<string, JobRun[]>();
  for (const run of runs) byJobAndHash.set(`${run.job} ${run.hash}`, [...(byJobAndHash.get(`${run.job} ${run.hash}`) ?? []), run]);
  for (const [key, same] of byJobAndHash) {
    if (same.length > 1) violations.push({ invariant: 'one-destructive-per-decision', detail: `Job ${key} ran ${same.length} times (uids ${same.map((r) => r.uid).join(', ')})` });
    const times = decided.get(key) ?? [];
    if (same.length > times.length) violations.push({ invariant: 'destructive-after-arm', detail: `Job ${key} ran ${same.length} times but was decided ${times.length} times` });
    for (const run of same) {
      if (!times.some((t) => t <= run.startedAt)) violations.push({ invariant: 'destructive-after-arm', detail: `Job ${key} (uid ${run.uid}) started at ${new Date(run.startedAt).toISOString()} before any stored decision to create it` });
    }
  }

  for (const [i, a] of runs.entries()) {
    for (const b of runs.slice(i + 1)) {
      if (a.job === b.job && (a.endedAt === undefined || b.startedAt < a.endedAt)) violations.push({ invariant: 'no-duplicate-name', detail: `two runs of Job ${a.job} at once (uids ${a.uid}, ${b.uid})` });
    }
  }

  let installed: string | undefined;
  for (const claim of claims.filter((c) => c.kind === 'Nova' && c.name === nova.name)) {
    const status = claim.status as ClaimStatus;
    if (status.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') continue;
    const before = runs.filter((r) => r.startedAt <= claim.at);
    const running = before.filter((r) => PHASE_JOB.test(r.job) && (r.endedAt === undefined || r.endedAt > claim.at));
    if (running.length > 0) violations.push({ invariant: 'no-false-provisioned', detail: `Ready claimed while ${running.map((r) => r.job).join(', ')} still ran` });
    const release = status.installedRelease;
    if (release !== undefined && release !== installed) {
      const proof = installed === undefined ? `${nova.name}-db-sync` : `${nova.name}-db-contract`;
      if (!before.some((r) => r.job === proof && r.succeeded && r.endedAt !== undefined && r.endedAt <= claim.at)) {
        violations.push({ invariant: 'no-false-provisioned', detail: `installedRelease ${release} claimed with no ${proof} that succeeded before it` });
      }
      installed = release;
    }
  }

  if (nova.deleted && nova.left.length > 0) violations.push({ invariant: 'no-false-provisioned', detail: `the Nova's deletion settled but MariaDB still holds ${nova.left.join(', ')}` });
  if (nova.deleted && nova.jobsLeft.length > 0) violations.push({ invariant: 'no-false-provisioned', detail: `the Nova's deletion settled but the local runner still holds ${nova.jobsLeft.join(', ')}` });

  const streams = new Map<string, RecordedEvent[]>();
  for (const e of events) if (e.stream.startsWith('nova-database-')) streams.set(e.stream, [...(streams.get(e.stream) ?? []), e]);
  for (const stream of streams.values()) {
    const last = stream.sort((a, b) => a.revision - b.revision).at(-1);
    for (const effect of last?.metadata.effects ?? []) {
      const { job, hash, jobs } = effect as { job?: unknown; hash?: unknown; jobs?: unknown };
      if (effect.type === 'nova.createJob' && !runs.some((r) => r.job === `${nova.name}-db-${job}` && r.hash === hash)) {
        violations.push({ invariant: 'no-lost-decision', detail: `${last?.stream} ends on creating Job ${nova.name}-db-${job} (hash ${hash}), which never ran` });
      }
      for (const deleted of effect.type === 'nova.deleteJobs' && Array.isArray(jobs) ? jobs : []) {
        if (nova.jobsLeft.includes(`Job ${nova.name}-db-${deleted}`)) violations.push({ invariant: 'no-lost-decision', detail: `${last?.stream} ends on deleting Job ${nova.name}-db-${deleted}, which is still there` });
      }
    }
  }
  return violations;
};
