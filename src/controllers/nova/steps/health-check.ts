/**
 * The HealthCheck step (nova-operator.md, "Pipeline", HealthCheck; "Requeue semantics"; issue 26): a GET of the API
 * root — the version document nova-api answers without a token — at values.endpoint (the Deployment step's), through
 * the TTL probe cache (src/nova/health-probe.ts: a failure is probed again after 10 s, a success reused for 30 s).
 *
 *   True  APIHealthy          the root answered 2xx
 *   False APIUnhealthy        it answered, not 2xx
 *   False EndpointNotReady    no endpoint in this pass yet (the Deployment step has not stamped one)
 *   False HealthCheckTimeout  no answer within the probe's timeout
 *   False ConnectionFailed    the connection was refused, reset or could not be routed
 *   False HealthCheckFailed   anything else (an endpoint that is not an http(s) URL, a TLS failure)
 *
 * A healthy API continues the lane. A failure requeues for what is left of its 10 s retry window (a cached failure
 * asks for no sooner pass than the probe it would send), EndpointNotReady after 10 s (RequeueDeploymentPolling).
 * The messages name the URL (without user info) and the status or error code, which are stable across passes, so an
 * unchanged verdict rewrites nothing.
 */
import { PROBE_RETRY_MS, sharedHealthProbes, type HealthProbeCache, type ProbeVerdict } from '../../../nova/health-probe.js';
import type { ConditionInput } from '../../../../projections/conditions.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import type { NovaControllerDeps } from '../deps.js';

/** RequeueDeploymentPolling: how soon a pass looks again for an endpoint. */
export const ENDPOINT_POLLING_MS = 10_000;

/** What the lead adds to NovaControllerDeps for this step (optional: absent, the process's shared cache). */
export interface HealthCheckStepDeps {
  /** The probe cache; the finalizer evicts a deleted Nova's endpoint from it. */
  healthProbe?: HealthProbeCache;
}

const condition = (status: 'True' | 'False', reason: string, message: string): ConditionInput => ({ type: 'NovaAPIReady', status, reason, message });

const failed = (reason: string, message: string, retryInMs: number): StepReport => ({
  conditions: [condition('False', reason, message)],
  outcome: requeue(retryInMs, `NovaAPIReady ${reason}: ${message}`),
});

const report = (verdict: ProbeVerdict, url: string, retryInMs: number): StepReport => {
  switch (verdict.kind) {
    case 'healthy':
      return { conditions: [condition('True', 'APIHealthy', `GET ${url} answered ${verdict.status}`)], outcome: continueLane };
    case 'unhealthy':
      return failed('APIUnhealthy', `GET ${url} answered ${verdict.status}, not 2xx`, retryInMs);
    case 'timeout':
      return failed('HealthCheckTimeout', `GET ${url} had no answer within ${verdict.afterMs} ms`, retryInMs);
    case 'connectionFailed':
      return failed('ConnectionFailed', `GET ${url} could not connect (${verdict.code})`, retryInMs);
    case 'failed':
      return failed('HealthCheckFailed', `GET ${url} failed: ${verdict.detail}`, retryInMs);
  }
};

export const healthCheckStep: NovaStep<NovaLanePass> = {
  name: 'HealthCheck',
  conditions: ['NovaAPIReady'],
  async run(pass) {
    const deps: NovaControllerDeps & HealthCheckStepDeps = pass.deps;
    const endpoint = pass.values.endpoint;
    if (endpoint === undefined || endpoint === '') {
      return failed('EndpointNotReady', 'the API has no endpoint yet: the Deployment step sets it once the API Deployment and its Service exist', ENDPOINT_POLLING_MS);
    }
    const result = await (deps.healthProbe ?? sharedHealthProbes).probe(endpoint);
    return report(result.verdict, result.url, result.nextProbeInMs > 0 ? result.nextProbeInMs : PROBE_RETRY_MS);
  },
};
