/**
 * The HPA member of the parallel group (nova-operator.md, "Pipeline" HPA, "Conditions"; issue 27): creates and
 * deletes the API Deployment's HorizontalPodAutoscaler `{name}-api` through src/nova/group.
 *
 *   spec.autoscaling not set   → the HPA is deleted where one can exist           True  HPANotRequired
 *   spec.autoscaling set       → the HPA applied (min, max, CPU target, default 80 %)  True  HPAReady
 *   set, but no autoscaler here (the embedded default: one process per role)     False HPANotInstalled (Regent's)
 *   a failed call                                                                False HPAError, and the error
 *                                                                                propagates (the spec: "errors
 *                                                                                propagate"; the condition says why)
 */
import { continueLane, type NovaStep, type StepReport } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import { groupObjectsOf } from './routes.js';

/** The CPU utilisation target when spec.autoscaling leaves it out. */
export const DEFAULT_CPU_TARGET = 80;

const CONDITION = 'HPAReady';

const report = (status: 'True' | 'False', reason: string, message: string): StepReport => ({ conditions: [{ type: CONDITION, status, reason, message }], outcome: continueLane });
const failed = (message: string, error: unknown): StepReport => ({ conditions: [{ type: CONDITION, status: 'False', reason: 'HPAError', message }], outcome: { kind: 'error', error } });

export const hpaStep: NovaStep<NovaLanePass> = {
  name: 'HPA',
  conditions: [CONDITION],
  async run(pass) {
    const objects = groupObjectsOf(pass);
    const { ref } = pass;
    const autoscaling = pass.nova.spec.autoscaling;
    const capability = await objects.hpaAPI();
    if (!autoscaling) {
      try {
        const removed = capability.kind === 'installed' && (await objects.removeHPA(ref.namespace, ref.name)) === 'removed';
        return report('True', 'HPANotRequired', `spec.autoscaling is not set: the API runs spec.replicas replicas${removed ? '; its HorizontalPodAutoscaler was deleted' : ', no HorizontalPodAutoscaler'}`);
      } catch (error) {
        return failed(`spec.autoscaling is not set, but deleting the HorizontalPodAutoscaler failed: ${(error as Error).message}`, error);
      }
    }
    if (capability.kind !== 'installed') return report('False', 'HPANotInstalled', `the spec asks the API to autoscale, but ${capability.message}`);
    const target = autoscaling.targetCPUUtilizationPercentage ?? DEFAULT_CPU_TARGET;
    try {
      await objects.ensureHPA(ref.namespace, { name: ref.name, uid: ref.uid }, { minReplicas: autoscaling.minReplicas, maxReplicas: autoscaling.maxReplicas, targetCPUUtilizationPercentage: target });
    } catch (error) {
      return failed(`applying the HorizontalPodAutoscaler failed: ${(error as Error).message}`, error);
    }
    return report('True', 'HPAReady', `the API scales between ${autoscaling.minReplicas} and ${autoscaling.maxReplicas} replicas at ${target} % CPU`);
  },
};
