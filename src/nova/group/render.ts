/**
 * The parallel group's Kubernetes objects, rendered from what a step asks for (pure; the adapter is
 * ./kubernetes.ts, the names and shapes are ./port.ts):
 *
 *   HTTPRoute                 gateway.networking.k8s.io/v1  {nova}-{role}   one rule to the role's Service `{nova}-{role}`
 *   HorizontalPodAutoscaler   autoscaling/v2                {nova}-api      the API Deployment, CPU utilisation
 *   VerticalPodAutoscaler     autoscaling.k8s.io/v1         {nova}-{role}   the role's Deployment, updateMode Auto
 *   NetworkPolicy             networking.k8s.io/v1          {nova}          every role's pods; {nova}-novncproxy the proxy's
 *
 * Rules:
 * - Every object carries the labels `app.kubernetes.io/name: nova`, `app.kubernetes.io/instance: <nova>`,
 *   `app.kubernetes.io/managed-by: regent`, `regent.dev/nova: <nova>` and the Nova's controller owner reference (the
 *   roles' own, imported from ../workloads/render.ts), so deleting the Nova collects them.
 * - A body carries every field the API server would default, written out: the adapter compares the rendered spec with
 *   the live one to decide whether to replace, and a default the server adds that the rendering leaves out would read
 *   as drift on every pass — a replace per pass, for ever. The HTTPRoute is the case in point: the Gateway API CRD
 *   defaults a rule's `matches` (PathPrefix /), a backendRef's `group` (""), `kind` (Service) and `weight` (1), and a
 *   parentRef's `group` and `kind`.
 * - The NetworkPolicies select pods by the roles' selector labels (../workloads/render.ts selectorLabels) minus the
 *   component, or with it for the console proxy's policy. Each EgressPort's `why` goes into the annotation
 *   `regent.dev/egress` (one `<protocol> <port>[-<endPort>]: <why>` per line) so an auditor reading the policy sees
 *   why each port is open; it is not part of the spec the adapter compares.
 */
import type { V1NetworkPolicy, V1NetworkPolicyPort, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { ownerReference, selectorLabels } from '../workloads/render.js';
import { deploymentName } from '../workloads/port.js';
import { ROUTE_BACKENDS, consoleNetworkPolicyName, hpaName, networkPolicyName, routeName, vpaName, type EgressPort, type HPASpec, type NetworkPolicySpec, type NovaOwner, type NovaRole, type RouteSpec } from './port.js';

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';
export const GATEWAY_VERSION = 'v1';
export const HTTPROUTE_PLURAL = 'httproutes';
export const VPA_GROUP = 'autoscaling.k8s.io';
export const VPA_VERSION = 'v1';
export const VPA_PLURAL = 'verticalpodautoscalers';
export const EGRESS_ANNOTATION = 'regent.dev/egress';

/** The metadata every group object carries; `labels`, `ownerReferences` are what the adapter compares. */
export interface GroupMetadata {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences: Array<ReturnType<typeof ownerReference>>;
}

export interface HTTPRouteBody {
  apiVersion: `${typeof GATEWAY_GROUP}/${typeof GATEWAY_VERSION}`;
  kind: 'HTTPRoute';
  metadata: GroupMetadata;
  spec: {
    parentRefs: Array<{ group: string; kind: 'Gateway'; name: string; namespace?: string }>;
    hostnames: string[];
    rules: Array<{
      matches: Array<{ path: { type: 'PathPrefix'; value: string } }>;
      backendRefs: Array<{ group: ''; kind: 'Service'; name: string; port: number; weight: number }>;
    }>;
  };
}

export interface VPABody {
  apiVersion: `${typeof VPA_GROUP}/${typeof VPA_VERSION}`;
  kind: 'VerticalPodAutoscaler';
  metadata: GroupMetadata;
  spec: { targetRef: { apiVersion: 'apps/v1'; kind: 'Deployment'; name: string }; updatePolicy: { updateMode: 'Auto' } };
}

export type HPABody = V2HorizontalPodAutoscaler & { metadata: GroupMetadata };
export type NetworkPolicyBody = V1NetworkPolicy & { metadata: GroupMetadata };

/** The labels of every group object. */
export const groupLabels = (nova: string): Record<string, string> => ({ 'app.kubernetes.io/name': 'nova', 'app.kubernetes.io/instance': nova, 'app.kubernetes.io/managed-by': 'regent', 'regent.dev/nova': nova });

const metadata = (namespace: string, nova: NovaOwner, name: string, annotations?: Record<string, string>): GroupMetadata => ({
  name,
  namespace,
  labels: groupLabels(nova.name),
  ...(annotations === undefined ? {} : { annotations }),
  ownerReferences: [ownerReference(nova)],
});

/** Every pod of the Nova (the roles' selector labels without the component); with `role`, that role's pods only. */
export const novaPodSelector = (nova: string, role?: NovaRole): Record<string, string> => {
  const { 'app.kubernetes.io/component': component, ...every } = selectorLabels(nova, role ?? 'api');
  return role === undefined ? every : { ...every, 'app.kubernetes.io/component': component! };
};

export const httpRouteBody = (namespace: string, nova: NovaOwner, route: RouteSpec): HTTPRouteBody => {
  const backend = ROUTE_BACKENDS[route.target];
  return {
    apiVersion: `${GATEWAY_GROUP}/${GATEWAY_VERSION}`,
    kind: 'HTTPRoute',
    metadata: metadata(namespace, nova, routeName(nova.name, route.target)),
    spec: {
      parentRefs: [{ group: GATEWAY_GROUP, kind: 'Gateway', name: route.parentRef.name, ...(route.parentRef.namespace === undefined ? {} : { namespace: route.parentRef.namespace }) }],
      hostnames: [route.hostname],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: '/' } }],
          backendRefs: [{ group: '', kind: 'Service', name: deploymentName(nova.name, backend.role), port: backend.port, weight: 1 }],
        },
      ],
    },
  };
};

export const hpaBody = (namespace: string, nova: NovaOwner, hpa: HPASpec): HPABody => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: metadata(namespace, nova, hpaName(nova.name)),
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: deploymentName(nova.name, 'api') },
    minReplicas: hpa.minReplicas,
    maxReplicas: hpa.maxReplicas,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: hpa.targetCPUUtilizationPercentage } } }],
  },
});

export const vpaBody = (namespace: string, nova: NovaOwner, role: NovaRole): VPABody => ({
  apiVersion: `${VPA_GROUP}/${VPA_VERSION}`,
  kind: 'VerticalPodAutoscaler',
  metadata: metadata(namespace, nova, vpaName(nova.name, role)),
  spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: deploymentName(nova.name, role) }, updatePolicy: { updateMode: 'Auto' } },
});

const egressPort = (p: EgressPort): V1NetworkPolicyPort => ({ protocol: p.protocol, port: p.port, ...(p.endPort === undefined ? {} : { endPort: p.endPort }) });

/** `UDP 53: DNS`, `TCP 5900-5999: VNC`, one per line. */
export const egressWhy = (egress: readonly EgressPort[]): string => egress.map((p) => `${p.protocol} ${p.port}${p.endPort === undefined ? '' : `-${p.endPort}`}: ${p.why}`).join('\n');

const networkPolicy = (namespace: string, nova: NovaOwner, name: string, podSelector: Record<string, string>, policy: NetworkPolicySpec): NetworkPolicyBody => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: metadata(namespace, nova, name, { [EGRESS_ANNOTATION]: egressWhy(policy.egress) }),
  spec: {
    podSelector: { matchLabels: podSelector },
    policyTypes: ['Ingress', 'Egress'],
    ingress: [
      {
        _from: policy.ingressNamespaces.map((ns) => ({ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } })),
        ports: policy.ingressPorts.map((port) => ({ protocol: 'TCP', port })),
      },
    ],
    egress: [{ ports: policy.egress.map(egressPort) }],
  },
});

/** `{nova}`: every role's pods. */
export const networkPolicyBody = (namespace: string, nova: NovaOwner, policy: NetworkPolicySpec): NetworkPolicyBody => networkPolicy(namespace, nova, networkPolicyName(nova.name), novaPodSelector(nova.name), policy);

/** `{nova}-novncproxy`: the console proxy's pods only. */
export const consoleNetworkPolicyBody = (namespace: string, nova: NovaOwner, policy: NetworkPolicySpec): NetworkPolicyBody =>
  networkPolicy(namespace, nova, consoleNetworkPolicyName(nova.name), novaPodSelector(nova.name, 'novncproxy'), policy);
