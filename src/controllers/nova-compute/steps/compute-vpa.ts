/**
 * ComputeVPA (nova-operator.md, "NovaCompute pipeline": reconcileVPA; condition VPAReady): the Nova's VPA flow for
 * the pool's DaemonSet, opted into by spec.vpa.enabled. Not enabled: VPANotRequired (and a VerticalPodAutoscaler the
 * pool had is deleted where the API is served). Enabled: VPANotInstalled where the API is not served (the embedded
 * default; the lane goes on), CapabilityProbeFailed or VPAError (30 s), else VPAReady.
 */
import { continueLane, requeue, type NovaStep, type StepReport } from '../../nova/lane.js';
import { NOVA_COMPUTE_REQUEUE_MS } from '../deps.js';
import type { NovaComputePass } from '../pass.js';

const CONDITION = 'VPAReady';
const report = (status: 'True' | 'False', reason: string, message: string, outcome = continueLane): StepReport => ({ conditions: [{ type: CONDITION, status, reason, message }], outcome });
const retry = (reason: string, message: string): StepReport => report('False', reason, message, requeue(NOVA_COMPUTE_REQUEUE_MS.drainPolling, `${CONDITION} ${reason}`));

export const computeVPAStep: NovaStep<NovaComputePass> = {
  name: 'ComputeVPA',
  conditions: [CONDITION],
  async run(pass) {
    const { deps, ref, object } = pass;
    const enabled = object.spec.vpa?.enabled === true && !pass.deleting;
    const capability = deps.vpa ? await deps.vpa.probe() : ({ kind: 'notInstalled', message: 'the VerticalPodAutoscaler API (autoscaling.k8s.io) is not served here' } as const);
    if (!enabled) {
      const why = pass.deleting ? 'the pool is being deleted' : object.spec.vpa ? 'spec.vpa.enabled is false' : 'spec.vpa is not set';
      if (capability.kind !== 'installed' || !deps.vpa) return report('True', 'VPANotRequired', `${why}: no VerticalPodAutoscaler`);
      try {
        const removed = await deps.vpa.remove(ref.namespace, ref.name);
        return report('True', 'VPANotRequired', `${why}: no VerticalPodAutoscaler${removed === 'removed' ? ' (the pool\'s was deleted)' : ''}`);
      } catch (error) {
        return retry('VPAError', `${why}, but deleting the VerticalPodAutoscaler failed: ${(error as Error).message}`);
      }
    }
    if (capability.kind === 'notInstalled') return report('False', 'VPANotInstalled', `spec.vpa.enabled is true, but ${capability.message}`);
    if (capability.kind === 'probeFailed') return retry('CapabilityProbeFailed', `whether the VerticalPodAutoscaler API is served could not be read: ${capability.message}`);
    try {
      await deps.vpa!.ensure(ref.namespace, { name: ref.name, uid: ref.uid }, ref.name);
    } catch (error) {
      return retry('VPAError', `applying the VerticalPodAutoscaler failed: ${(error as Error).message}`);
    }
    return report('True', 'VPAReady', `a VerticalPodAutoscaler (updateMode Auto) for ${ref.name}-nova-compute`);
  },
};
