/**
 * The part-3 steps Regent does not build yet — HPA, VPA, NetworkPolicy and the three routes (nova-operator.md,
 * "Pipeline", "Conditions"; issue 26) — reduced to the one thing they can say honestly: whether their spec block asks
 * for anything.
 *
 * - The block is unset (or switched off): the step's NotRequired True reason, so a Nova without it can be Ready:
 *   HPANotRequired (spec.autoscaling unset), VPANotRequired (spec.vpa unset or enabled false),
 *   NetworkPolicyNotRequired (spec.networkPolicy unset or enabled false), HTTPRouteNotRequired for the three routes
 *   (spec.gateway, spec.metadata.gateway, spec.consoleProxy.gateway unset; the console route also while the console
 *   proxy is disabled, which the spec handles as an absent block).
 * - The block is set: False NotImplemented, saying Regent does not build that object yet. A True there would report
 *   Ready over a block Regent ignores, so a Nova that asks for one is not Ready until the step is built.
 *
 * Neither is a wait: each step continues the lane (a False that is not a wait), so the steps after it still run.
 */
import type { NovaSpec } from '../../../resources/nova.js';
import { continueLane, type NovaStep } from '../lane.js';
import type { NovaLanePass } from '../pass.js';

export const NOT_IMPLEMENTED = 'NotImplemented';

interface Part3Step {
  name: string;
  condition: string;
  notRequired: string;
  /** Why the block asks for nothing, or undefined when it asks for something. */
  unset(spec: NovaSpec): string | undefined;
  /** What Regent would have to build, for the NotImplemented message. */
  builds: string;
}

const step = (s: Part3Step): NovaStep<NovaLanePass> => ({
  name: s.name,
  conditions: [s.condition],
  async run(pass) {
    const why = s.unset(pass.nova.spec);
    const condition =
      why !== undefined
        ? { type: s.condition, status: 'True' as const, reason: s.notRequired, message: why }
        : { type: s.condition, status: 'False' as const, reason: NOT_IMPLEMENTED, message: `the spec asks for ${s.builds}, which Regent does not build yet, so ${s.condition} stays False rather than report a block Regent ignores` };
    return { conditions: [condition], outcome: continueLane };
  },
});

export const hpaStep = step({
  name: 'HPA',
  condition: 'HPAReady',
  notRequired: 'HPANotRequired',
  unset: (spec) => (spec.autoscaling ? undefined : 'spec.autoscaling is not set: the API runs spec.replicas replicas, no HorizontalPodAutoscaler'),
  builds: 'the API Deployment\'s HorizontalPodAutoscaler (spec.autoscaling)',
});

export const vpaStep = step({
  name: 'VPA',
  condition: 'VPAReady',
  notRequired: 'VPANotRequired',
  unset: (spec) => (!spec.vpa ? 'spec.vpa is not set: no VerticalPodAutoscaler' : spec.vpa.enabled ? undefined : 'spec.vpa.enabled is false: no VerticalPodAutoscaler'),
  builds: 'the roles\' VerticalPodAutoscalers (spec.vpa)',
});

export const networkPolicyStep = step({
  name: 'NetworkPolicy',
  condition: 'NetworkPolicyReady',
  notRequired: 'NetworkPolicyNotRequired',
  unset: (spec) => (!spec.networkPolicy ? 'spec.networkPolicy is not set: no NetworkPolicy' : spec.networkPolicy.enabled ? undefined : 'spec.networkPolicy.enabled is false: no NetworkPolicy'),
  builds: 'the NetworkPolicy (spec.networkPolicy)',
});

export const httpRouteStep = step({
  name: 'HTTPRoute',
  condition: 'HTTPRouteReady',
  notRequired: 'HTTPRouteNotRequired',
  unset: (spec) => (spec.gateway ? undefined : 'spec.gateway is not set: the API is not exposed through a Gateway'),
  builds: 'the API\'s HTTPRoute (spec.gateway)',
});

export const metadataHTTPRouteStep = step({
  name: 'MetadataHTTPRoute',
  condition: 'MetadataHTTPRouteReady',
  notRequired: 'HTTPRouteNotRequired',
  unset: (spec) => (spec.metadata?.gateway ? undefined : 'spec.metadata.gateway is not set: the metadata API is not exposed through a Gateway'),
  builds: 'the metadata API\'s HTTPRoute (spec.metadata.gateway)',
});

export const consoleHTTPRouteStep = step({
  name: 'ConsoleHTTPRoute',
  condition: 'ConsoleHTTPRouteReady',
  notRequired: 'HTTPRouteNotRequired',
  // a disabled proxy is an absent block (the spec: its route is deleted in the pass that deletes the proxy)
  unset: (spec) =>
    spec.consoleProxy?.enabled !== true
      ? 'the console proxy is disabled (spec.consoleProxy.enabled is not true): no console route'
      : spec.consoleProxy.gateway
        ? undefined
        : 'spec.consoleProxy.gateway is not set: the console proxy is not exposed through a Gateway',
  builds: 'the console proxy\'s HTTPRoute (spec.consoleProxy.gateway)',
});

/** In the spec's order of the parallel group's members that are not built. */
export const notRequiredSteps: ReadonlyArray<NovaStep<NovaLanePass>> = [httpRouteStep, metadataHTTPRouteStep, consoleHTTPRouteStep, hpaStep, vpaStep, networkPolicyStep];
