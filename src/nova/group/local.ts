/**
 * The parallel group's objects on the embedded default (issue 27): a host without Kubernetes. There is no Gateway
 * API to route through, no VerticalPodAutoscaler, no HorizontalPodAutoscaler (one process serves each role: see
 * src/nova/workloads/local.ts) and nothing enforces a NetworkPolicy. Every capability therefore reads as not
 * installed, saying why, and nothing is ever written; removing is always 'absent'.
 *
 * What each step reports from this (docs/nova.md, "The parallel group on the embedded default"):
 *   a block that is not set     its NotRequired True reason, as on Kubernetes
 *   spec.gateway / …gateway     HTTPRouteReady False, GatewayAPINotInstalled
 *   spec.vpa.enabled            VPAReady False, VPANotInstalled
 *   spec.autoscaling            HPAReady False, HPANotInstalled
 *   spec.networkPolicy.enabled  NetworkPolicyReady False, NetworkPolicyNotInstalled
 * so a Nova that asks for one of them is not Ready here: Regent does not report a block it cannot honour.
 */
import { GroupObjectError, type Capability, type GroupObjects } from './port.js';

const HOST = 'the embedded default runs Nova on this host, without Kubernetes';

const notInstalled = (what: string): Capability => ({ kind: 'notInstalled', message: `${HOST}: ${what}` });

const refuse = (what: string): never => {
  // the steps ask for an object only after the capability said installed: reaching here is a step-table bug
  throw new GroupObjectError(`${HOST}: ${what} cannot be created here`);
};

export const localGroupObjects: GroupObjects = {
  gatewayAPI: async () => notInstalled('there is no Gateway API (gateway.networking.k8s.io/v1) to route through'),
  vpaAPI: async () => notInstalled('there is no VerticalPodAutoscaler API (autoscaling.k8s.io/v1)'),
  hpaAPI: async () => notInstalled('there is no HorizontalPodAutoscaler: one process serves each role'),
  networkPolicyAPI: async () => notInstalled('nothing enforces a NetworkPolicy on a loopback host'),
  ensureRoute: async () => refuse('an HTTPRoute'),
  removeRoute: async () => 'absent',
  ensureHPA: async () => refuse('a HorizontalPodAutoscaler'),
  removeHPA: async () => 'absent',
  ensureVPA: async () => refuse('a VerticalPodAutoscaler'),
  removeVPA: async () => 'absent',
  ensureNetworkPolicy: async () => refuse('a NetworkPolicy'),
  removeNetworkPolicy: async () => 'absent',
  ensureConsoleNetworkPolicy: async () => refuse('a NetworkPolicy'),
  removeConsoleNetworkPolicy: async () => 'absent',
};
