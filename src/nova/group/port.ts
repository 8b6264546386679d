/**
 * The objects of the Nova pipeline's parallel group (nova-operator.md, "Pipeline" HTTPRoute … NetworkPolicy,
 * "Conditions"; issue 27), behind one port with two adapters:
 *
 * - `kubernetes.ts`: Gateway API HTTPRoutes (gateway.networking.k8s.io/v1), the API's autoscaling/v2
 *   HorizontalPodAutoscaler, the roles' VerticalPodAutoscalers (autoscaling.k8s.io/v1, a CRD that may be absent),
 *   networking.k8s.io/v1 NetworkPolicies; each object carries the Nova's controller owner reference and the labels
 *   `app.kubernetes.io/managed-by: regent`, `regent.dev/nova: <nova>`.
 * - `local.ts`: the embedded default, a host without Kubernetes: no Gateway API, no VPA, no autoscaler, no network
 *   policy enforcement. Every capability reads as not installed and nothing is written (docs/nova.md says which
 *   condition each block then reports).
 *
 * The steps (src/controllers/nova/steps/{routes,hpa,vpa,network-policy}.ts) decide what to ask for from the spec;
 * the adapters render and apply it. An `ensure` that finds the object as wanted writes nothing; a `remove` of an
 * absent object is 'absent'. Failures are GroupObjectError with the HTTP status (none when unreachable).
 *
 * Object names (one per Nova and purpose, so a rename of the spec never leaves a second one behind):
 *   HTTPRoute       {nova}-api, {nova}-metadata, {nova}-novncproxy      (ROUTE_NAMES)
 *   HPA             {nova}-api
 *   VPA             {nova}-{role} for api, metadata, scheduler, conductor, novncproxy
 *   NetworkPolicy   {nova} (every role's pods) and {nova}-novncproxy (the proxy's VNC egress)
 */
import type { NovaOwner, NovaRole } from '../workloads/port.js';

export type { NovaOwner, NovaRole };

/** Whether an API group the cluster may lack is served (the capability probe). */
export type Capability =
  | { kind: 'installed' }
  /** The group is not served (discovery 404): GatewayAPINotInstalled / VPANotInstalled. */
  | { kind: 'notInstalled'; message: string }
  /** The probe itself failed (403, 5xx, unreachable): CapabilityProbeFailed. */
  | { kind: 'probeFailed'; message: string };

/** The three routes of the group. */
export type RouteTarget = 'api' | 'metadata' | 'console';

/** The Service each route sends to and its port (the role Services of src/nova/workloads). */
export const ROUTE_BACKENDS: Readonly<Record<RouteTarget, { role: NovaRole; port: number }>> = {
  api: { role: 'api', port: 8774 },
  metadata: { role: 'metadata', port: 8775 },
  console: { role: 'novncproxy', port: 6080 },
};

export const routeName = (nova: string, target: RouteTarget): string => `${nova}-${ROUTE_BACKENDS[target].role}`;
export const hpaName = (nova: string): string => `${nova}-api`;
export const vpaName = (nova: string, role: NovaRole): string => `${nova}-${role}`;
export const networkPolicyName = (nova: string): string => nova;
export const consoleNetworkPolicyName = (nova: string): string => `${nova}-novncproxy`;

/** The roles the VPA step covers, in the spec's order (the console proxy only while it is enabled). */
export const VPA_ROLES: readonly NovaRole[] = ['api', 'metadata', 'scheduler', 'conductor', 'novncproxy'];

export interface RouteSpec {
  target: RouteTarget;
  /** spec.<…>.gateway.parentRef: the Gateway the route attaches to (namespace defaults to the Nova's). */
  parentRef: { name: string; namespace?: string };
  hostname: string;
}

/** What the route's parent Gateway said about it (status.parents[] for that parentRef, condition Accepted). */
export type RouteAcceptance =
  | { kind: 'accepted' }
  /** Accepted False, or not reported yet by the Gateway's controller (message says which). */
  | { kind: 'notAccepted'; message: string };

export interface HPASpec {
  minReplicas: number;
  maxReplicas: number;
  /** Default 80 when the spec leaves it out. */
  targetCPUUtilizationPercentage: number;
}

/** One egress rule: TCP/UDP ports to anywhere (the Nova's peers are addressed by name, so no peer selector). */
export interface EgressPort {
  port: number;
  /** Up to this port (a range), e.g. VNC 5900-5999. */
  endPort?: number;
  protocol: 'TCP' | 'UDP';
  /** Why the port is open, for the rendered annotation and the docs. */
  why: string;
}

export interface NetworkPolicySpec {
  /** Namespaces allowed to reach the serving roles (never empty: the step refuses an empty list, fail-closed). */
  ingressNamespaces: readonly string[];
  /** The serving ports the ingress rule opens (8774, 8775, and 6080 while the console proxy is enabled). */
  ingressPorts: readonly number[];
  egress: readonly EgressPort[];
}

export class GroupObjectError extends Error {
  override readonly name = 'GroupObjectError';
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface GroupObjects {
  /** Whether the Gateway API (gateway.networking.k8s.io/v1) is served. Cached per adapter for a short TTL. */
  gatewayAPI(): Promise<Capability>;
  /** Whether the VerticalPodAutoscaler API (autoscaling.k8s.io/v1) is served. Cached likewise. */
  vpaAPI(): Promise<Capability>;
  /**
   * Whether a HorizontalPodAutoscaler can act here at all (Kubernetes: always installed; local: not installed, one
   * process serves each role).
   */
  hpaAPI(): Promise<Capability>;
  /** Whether NetworkPolicies are enforced here (Kubernetes: installed; local: not installed). */
  networkPolicyAPI(): Promise<Capability>;

  ensureRoute(namespace: string, nova: NovaOwner, route: RouteSpec): Promise<RouteAcceptance>;
  removeRoute(namespace: string, nova: string, target: RouteTarget): Promise<'removed' | 'absent'>;

  ensureHPA(namespace: string, nova: NovaOwner, hpa: HPASpec): Promise<void>;
  removeHPA(namespace: string, nova: string): Promise<'removed' | 'absent'>;

  /** Applies `{nova}-{role}` targeting the role's Deployment (updateMode Auto). */
  ensureVPA(namespace: string, nova: NovaOwner, role: NovaRole): Promise<void>;
  removeVPA(namespace: string, nova: string, role: NovaRole): Promise<'removed' | 'absent'>;

  ensureNetworkPolicy(namespace: string, nova: NovaOwner, policy: NetworkPolicySpec): Promise<void>;
  removeNetworkPolicy(namespace: string, nova: string): Promise<'removed' | 'absent'>;
  /** `{nova}-novncproxy`: the proxy pods' egress to the compute hosts' VNC ports, and ingress on 6080. */
  ensureConsoleNetworkPolicy(namespace: string, nova: NovaOwner, policy: NetworkPolicySpec): Promise<void>;
  removeConsoleNetworkPolicy(namespace: string, nova: string): Promise<'removed' | 'absent'>;

  /** Forgets cached capability answers (the finalizer evicts them with the Nova). */
  evict?(): void;
}
