/**
 * The three route members of the parallel group (nova-operator.md, "Pipeline" HTTPRoute, MetadataHTTPRoute,
 * ConsoleHTTPRoute; "Conditions"; "Requeue semantics"; issue 27): the full lifecycle of a Gateway API HTTPRoute for
 * spec.gateway (the API), spec.metadata.gateway (the metadata API) and spec.consoleProxy.gateway (the console
 * proxy), each through src/nova/group (Kubernetes, or the embedded default's "not installed").
 *
 *   block not set (the console route: also a disabled proxy, which the spec handles as an absent block, so the
 *   route goes in the same pass that deletes the proxy)
 *     → the route is deleted where the Gateway API is served        True  HTTPRouteNotRequired
 *   block set, the Gateway API not served (never a crash)           False GatewayAPINotInstalled
 *   block set, the probe itself failed                              False CapabilityProbeFailed    (10 s)
 *   block set, the route applied, its Gateway says Accepted=True    True  HTTPRouteAccepted
 *   block set, Accepted False or not reported yet                   False HTTPRouteNotAccepted     (10 s)
 *
 * 10 s is RequeueDeploymentPolling ("the wait for a Gateway to report Accepted"). A failed write propagates as the
 * pass's error (backoff); a failed delete of a route whose block went away also sets False RouteDeleteFailed (Regent's
 * reason: the spec's vocabulary has none, and the last Accepted must not stand for a block that is gone).
 */
import type { NovaSpec } from '../../../resources/nova.js';
import type { ConditionInput } from '../../../../projections/conditions.js';
import { localGroupObjects } from '../../../nova/group/local.js';
import type { GroupObjects, RouteSpec, RouteTarget } from '../../../nova/group/port.js';
import { continueLane, requeue, type NovaStep, type StepReport } from '../lane.js';
import type { NovaLanePass } from '../pass.js';
import { NOVA_REQUEUE_MS } from '../deps.js';

export const groupObjectsOf = (pass: NovaLanePass): GroupObjects => pass.deps.group ?? localGroupObjects;

interface RouteMember {
  name: string;
  condition: string;
  target: RouteTarget;
  /** The block's gateway, or why there is none. */
  gateway(spec: NovaSpec): { gateway: NonNullable<NovaSpec['gateway']> } | { absent: string };
}

const failure = (condition: string, reason: string, message: string, error: unknown): StepReport => ({
  conditions: [{ type: condition, status: 'False', reason, message }],
  outcome: { kind: 'error', error },
});

const routeStep = (member: RouteMember): NovaStep<NovaLanePass> => ({
  name: member.name,
  conditions: [member.condition],
  async run(pass) {
    const objects = groupObjectsOf(pass);
    const { ref } = pass;
    const set = (status: 'True' | 'False', reason: string, message: string): ConditionInput => ({ type: member.condition, status, reason, message });
    const block = member.gateway(pass.nova.spec);
    const capability = await objects.gatewayAPI();
    if ('absent' in block) {
      let removed = '';
      if (capability.kind === 'installed') {
        try {
          removed = (await objects.removeRoute(ref.namespace, ref.name, member.target)) === 'removed' ? '; its HTTPRoute was deleted' : '';
        } catch (error) {
          return failure(member.condition, 'RouteDeleteFailed', `${block.absent}, but deleting the HTTPRoute it had failed: ${(error as Error).message}`, error);
        }
      }
      return { conditions: [set('True', 'HTTPRouteNotRequired', `${block.absent}${removed}`)], outcome: continueLane };
    }
    if (capability.kind === 'notInstalled') return { conditions: [set('False', 'GatewayAPINotInstalled', `the spec asks for an HTTPRoute, but ${capability.message}`)], outcome: continueLane };
    if (capability.kind === 'probeFailed') {
      return { conditions: [set('False', 'CapabilityProbeFailed', `whether the Gateway API is served could not be read: ${capability.message}`)], outcome: requeue(NOVA_REQUEUE_MS.deploymentPolling, `${member.condition} CapabilityProbeFailed`) };
    }
    const { gateway } = block;
    const route: RouteSpec = { target: member.target, parentRef: { name: gateway.parentRef.name, ...(gateway.parentRef.namespace ? { namespace: gateway.parentRef.namespace } : {}) }, hostname: gateway.hostname };
    const parent = `${gateway.parentRef.namespace ?? ref.namespace}/${gateway.parentRef.name}`;
    const acceptance = await objects.ensureRoute(ref.namespace, { name: ref.name, uid: ref.uid }, route);
    if (acceptance.kind === 'accepted') return { conditions: [set('True', 'HTTPRouteAccepted', `${gateway.hostname} is routed through the Gateway ${parent}, which accepted the route`)], outcome: continueLane };
    return { conditions: [set('False', 'HTTPRouteNotAccepted', `the Gateway ${parent} has not accepted the route for ${gateway.hostname}: ${acceptance.message}`)], outcome: requeue(NOVA_REQUEUE_MS.deploymentPolling, `${member.condition} HTTPRouteNotAccepted`) };
  },
});

export const httpRouteStep = routeStep({
  name: 'HTTPRoute',
  condition: 'HTTPRouteReady',
  target: 'api',
  gateway: (spec) => (spec.gateway ? { gateway: spec.gateway } : { absent: 'spec.gateway is not set: the API is not exposed through a Gateway' }),
});

export const metadataHTTPRouteStep = routeStep({
  name: 'MetadataHTTPRoute',
  condition: 'MetadataHTTPRouteReady',
  target: 'metadata',
  gateway: (spec) => (spec.metadata?.gateway ? { gateway: spec.metadata.gateway } : { absent: 'spec.metadata.gateway is not set: the metadata API is not exposed through a Gateway' }),
});

export const consoleHTTPRouteStep = routeStep({
  name: 'ConsoleHTTPRoute',
  condition: 'ConsoleHTTPRouteReady',
  target: 'console',
  gateway: (spec) =>
    spec.consoleProxy?.enabled !== true
      ? { absent: 'the console proxy is disabled (spec.consoleProxy.enabled is not true): no console route' }
      : spec.consoleProxy.gateway
        ? { gateway: spec.consoleProxy.gateway }
        : { absent: 'spec.consoleProxy.gateway is not set: the console proxy is not exposed through a Gateway' },
});
