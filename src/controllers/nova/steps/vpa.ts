/**
 * The VPA member of the parallel group (nova-operator.md, "Pipeline" VPA, "Conditions"; issue 27): the
 * VerticalPodAutoscalers `{name}-{role}` of the API, metadata, scheduler, conductor and console-proxy Deployments,
 * through a capability probe of autoscaling.k8s.io/v1 (a CRD a cluster may lack).
 *
 *   spec.vpa unset or enabled false → every VPA of the Nova deleted where the API is served   True  VPANotRequired
 *   enabled, the API not served                                                              False VPANotInstalled
 *   enabled, the probe failed                                                                False CapabilityProbeFailed
 *   enabled, a write failed                                                                  False VPAError
 *   enabled, one VPA per role (the console proxy's only while it is enabled; deleted when not) True  VPAReady
 *
 * None ends the lane or fails the pass: VPAError and CapabilityProbeFailed come back at the 30 s database-wait poll
 * (the spec names no interval for them; a VPA is an optimisation, not a prerequisite of serving).
 */
import type { NovaRole } from '../../../nova/workloads/port.js';
import { VPA_ROLES } from '../../../nova/group/port.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import { NOVA_REQUEUE_MS } from '../deps.js';
import { groupObjectsOf } from './routes.js';

const CONDITION = 'VPAReady';

const report = (status: 'True' | 'False', reason: string, message: string, outcome = continueLane): StepReport => ({ conditions: [{ type: CONDITION, status, reason, message }], outcome });
const retry = (reason: string, message: string): StepReport => report('False', reason, message, requeue(NOVA_REQUEUE_MS.databaseWait, `${CONDITION} ${reason}`));

export const vpaStep: NovaStep<NovaLanePass> = {
  name: 'VPA',
  conditions: [CONDITION],
  async run(pass) {
    const objects = groupObjectsOf(pass);
    const { ref, nova } = pass;
    const enabled = nova.spec.vpa?.enabled === true;
    const capability = await objects.vpaAPI();
    const removeAll = async (roles: readonly NovaRole[]): Promise<NovaRole[]> => {
      const removed: NovaRole[] = [];
      for (const role of roles) if ((await objects.removeVPA(ref.namespace, ref.name, role)) === 'removed') removed.push(role);
      return removed;
    };
    if (!enabled) {
      const why = nova.spec.vpa ? 'spec.vpa.enabled is false' : 'spec.vpa is not set';
      if (capability.kind !== 'installed') return report('True', 'VPANotRequired', `${why}: no VerticalPodAutoscaler`);
      try {
        const removed = await removeAll(VPA_ROLES);
        return report('True', 'VPANotRequired', `${why}: no VerticalPodAutoscaler${removed.length ? ` (deleted those of ${removed.join(', ')})` : ''}`);
      } catch (error) {
        return retry('VPAError', `${why}, but deleting a VerticalPodAutoscaler failed: ${(error as Error).message}`);
      }
    }
    if (capability.kind === 'notInstalled') return report('False', 'VPANotInstalled', `spec.vpa.enabled is true, but ${capability.message}`);
    if (capability.kind === 'probeFailed') return retry('CapabilityProbeFailed', `whether the VerticalPodAutoscaler API is served could not be read: ${capability.message}`);
    const proxy = nova.spec.consoleProxy?.enabled === true;
    const roles = VPA_ROLES.filter((role) => role !== 'novncproxy' || proxy);
    try {
      for (const role of roles) await objects.ensureVPA(ref.namespace, { name: ref.name, uid: ref.uid }, role);
      if (!proxy) await removeAll(['novncproxy']);
    } catch (error) {
      return retry('VPAError', `applying the VerticalPodAutoscalers failed: ${(error as Error).message}`);
    }
    return report('True', 'VPAReady', `VerticalPodAutoscalers (updateMode Auto) for ${roles.join(', ')}`);
  },
};
