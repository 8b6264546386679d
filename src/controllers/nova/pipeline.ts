/**
 * The Nova pipeline's step table (nova-operator.md, "Pipeline"; issue 26): the sequential lane, then the parallel
 * group. The lane ends the pass at its first requeue or error (./lane.ts); the group runs only when every lane step
 * continued, all of its members run (each sets exactly one condition and none reads another's), and their conditions
 * are merged before the record. The requeue of a pass is the lane's, else the shortest a group member asked for,
 * else the synced poll.
 *
 *   lane   Secrets, DBConnectionSecrets, TransportURLSecret, Config, ComputeConfig, SecretsAvailable, Database,
 *          Conductor, Scheduler, Metadata, ConsoleProxy, Deployment, DBArchive
 *   group  HTTPRoute, MetadataHTTPRoute, ConsoleHTTPRoute, HealthCheck, HPA, VPA, NetworkPolicy
 *
 * SecretsAvailable is Regent's own step: four steps report under SecretsReady, so its True is said once, after all
 * of them (steps/secrets-available.ts).
 */
import { runLane, type LaneResult, type NovaStep, type StepOutcome } from './lane.js';
import type { NovaLanePass } from './pass.js';
import { secretsStep } from './steps/secrets.js';
import { dbConnectionSecretsStep } from './steps/db-connection-secrets.js';
import { transportURLSecretStep } from './steps/transport-url.js';
import { configStep } from './steps/config.js';
import { computeConfigStep } from './steps/compute-config.js';
import { secretsAvailableStep } from './steps/secrets-available.js';
import { databaseStep } from './steps/database.js';
import { ROLE_STEPS } from './steps/roles.js';
import { dbArchiveStep } from './steps/db-archive.js';
import { healthCheckStep } from './steps/health-check.js';
import { consoleHTTPRouteStep, httpRouteStep, metadataHTTPRouteStep } from './steps/routes.js';
import { hpaStep } from './steps/hpa.js';
import { vpaStep } from './steps/vpa.js';
import { networkPolicyStep } from './steps/network-policy.js';

export const NOVA_LANE: ReadonlyArray<NovaStep<NovaLanePass>> = [
  secretsStep,
  dbConnectionSecretsStep,
  transportURLSecretStep,
  configStep,
  computeConfigStep,
  secretsAvailableStep,
  databaseStep,
  ...ROLE_STEPS,
  dbArchiveStep,
];

export const NOVA_GROUP: ReadonlyArray<NovaStep<NovaLanePass>> = [httpRouteStep, metadataHTTPRouteStep, consoleHTTPRouteStep, healthCheckStep, hpaStep, vpaStep, networkPolicyStep];

/** The parallel group: every member runs; their conditions merged; the shortest requeue, or the first error. */
export const runGroup = async <P>(steps: ReadonlyArray<NovaStep<P>>, pass: P): Promise<LaneResult> => {
  const results = await Promise.all(steps.map((step) => runLane([step], pass)));
  const conditions = results.flatMap((r) => r.conditions);
  const timings = results.flatMap((r) => r.timings);
  const error = results.find((r) => r.outcome.kind === 'error');
  if (error) return { conditions, endedAt: error.endedAt, outcome: error.outcome, timings };
  const requeues = results.filter((r): r is LaneResult & { outcome: Extract<StepOutcome, { kind: 'requeue' }> } => r.outcome.kind === 'requeue').sort((a, b) => a.outcome.afterMs - b.outcome.afterMs);
  const first = requeues[0];
  return first ? { conditions, endedAt: first.endedAt, outcome: first.outcome, timings } : { conditions, endedAt: null, outcome: { kind: 'continue' }, timings };
};
