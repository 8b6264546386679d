/**
 * The parallel group's objects on Kubernetes (@kubernetes/client-node 1.4.0): Gateway API HTTPRoutes and the
 * VerticalPodAutoscalers through CustomObjectsApi, the API's HorizontalPodAutoscaler through AutoscalingV2Api, the
 * NetworkPolicies through NetworkingV1Api, each rendered by ./render.ts. Four duties:
 *
 * **capabilities**: the Gateway API and the VPA are CRDs a cluster may lack. Each is probed by the discovery GET of its
 * group/version (`/apis/gateway.networking.k8s.io/v1`, `/apis/autoscaling.k8s.io/v1`, CustomObjectsApi.getAPIResources):
 *   404                                       notInstalled (the group/version is not served)
 *   2xx without the resource in the list      notInstalled (served, but not httproutes / verticalpodautoscalers)
 *   2xx listing it                            installed
 *   anything else (403, 5xx, unreachable)     probeFailed with the status: a probe that failed says nothing about
 *                                             the cluster, so it must not read as "not installed" (that would
 *                                             delete nothing and report a block the cluster may well honour)
 * An answer (whichever) is kept for `probeTtlMs` (default 30 s) from the moment the probe started, so the four steps of
 * a pass and the passes right after it share one discovery request; a probe in flight is shared too. `evict()` forgets
 * both. autoscaling/v2 and networking.k8s.io/v1 are built in: always installed.
 *
 * **ensure**: one GET; a 404 creates; a live object is replaced (PUT with the read's resourceVersion) only when its
 * spec differs from the rendered one (compared as JSON with the keys sorted: the API server's field order is not
 * ours), a rendered label is missing or different, or its ownerReferences are not exactly the Nova's controller
 * reference; otherwise nothing is written (a pass that changes nothing writes nothing). A replace keeps the labels
 * and annotations other writers put on the object, ours over theirs.
 *
 * **route acceptance** is read off the HTTPRoute as the API server returned it (the GET when nothing was written, the
 * write's response otherwise): the `status.parents[]` entry whose parentRef names the Gateway (namespace defaulting
 * to the route's), its `Accepted` condition. True is accepted; anything else is notAccepted with `<reason>: <message>`;
 * no entry or no condition is "has not reported on the route yet"; an Accepted whose observedGeneration is older than
 * the route's generation is not reported yet either (it judged a spec we have since replaced: a new hostname would
 * otherwise read as accepted on the old one's word).
 *
 * **remove**: DELETE; 404 (the object is gone, or the CRD is) is 'absent'.
 *
 * Every client failure is GroupObjectError naming the object, with the API server's status, reason and message
 * (../kube-api-error.ts), and the HTTP status (none when the API server is unreachable).
 */
import { AutoscalingV2Api, CustomObjectsApi, NetworkingV1Api, type KubeConfig, type V1APIResourceList } from '@kubernetes/client-node';
import { apiCodeOf, describeApiError } from '../kube-api-error.js';
import { withOwnership, type Ownership } from '../ownership.js';
import { GroupObjectError, consoleNetworkPolicyName, hpaName, networkPolicyName, routeName, vpaName, type Capability, type GroupObjects, type HPASpec, type NetworkPolicySpec, type NovaOwner, type NovaRole, type RouteAcceptance, type RouteSpec, type RouteTarget } from './port.js';
import { GATEWAY_GROUP, GATEWAY_VERSION, HTTPROUTE_PLURAL, VPA_GROUP, VPA_PLURAL, VPA_VERSION, consoleNetworkPolicyBody, hpaBody, httpRouteBody, networkPolicyBody, vpaBody, type GroupMetadata, type HPABody, type HTTPRouteBody, type NetworkPolicyBody, type VPABody } from './render.js';

export const DEFAULT_PROBE_TTL_MS = 30_000;

export interface KubernetesGroupObjectsOptions extends Ownership {
  /** The cluster the Nova's namespace lives on. */
  readonly kubeConfig: KubeConfig;
  /** How long a capability answer is kept (default 30 000 ms). */
  readonly probeTtlMs?: number;
  /** The clock the TTL is measured on (milliseconds); Date.now by default. */
  readonly now?: () => number;
}

/** An API group/version a cluster may not serve, and the resource that must be in it. */
export interface OptionalApi {
  readonly title: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

export const GATEWAY_API: OptionalApi = { title: 'the Gateway API', group: GATEWAY_GROUP, version: GATEWAY_VERSION, resource: HTTPROUTE_PLURAL };
export const VPA_API: OptionalApi = { title: 'the VerticalPodAutoscaler API', group: VPA_GROUP, version: VPA_VERSION, resource: VPA_PLURAL };

const INSTALLED: Capability = { kind: 'installed' };

/** What a discovery answer says: installed only when the list names the resource itself (not only a subresource). */
export const capabilityFromList = (api: OptionalApi, list: Pick<V1APIResourceList, 'resources'>): Capability =>
  (list.resources ?? []).some((r) => r.name === api.resource)
    ? INSTALLED
    : { kind: 'notInstalled', message: `${api.title} (${api.group}/${api.version}) is served but lists no ${api.resource}: its CRD is not installed` };

/** What a failed discovery GET says: 404 is not installed, anything else is a probe that failed. */
export const capabilityFromError = (api: OptionalApi, error: unknown): Capability => {
  if (apiCodeOf(error) === 404) return { kind: 'notInstalled', message: `${api.title} (${api.group}/${api.version}) is not served by this cluster: its CRDs are not installed` };
  return { kind: 'probeFailed', message: describeApiError(error, `cannot tell whether ${api.title} (${api.group}/${api.version}) is served`).message };
};

/** The live object as far as the adapter judges it. */
interface Live {
  metadata?: { resourceVersion?: string; generation?: number; labels?: Record<string, string>; annotations?: Record<string, string>; ownerReferences?: unknown[] };
  spec?: unknown;
  status?: unknown;
}

interface Rendered {
  metadata: GroupMetadata;
  spec?: unknown;
}

/** JSON with object keys sorted and undefined members left out: equal for equal content whatever the field order. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof Date) return v;
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, member]) => member !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  });

/** Why the live object must be replaced, or undefined when it is as rendered. */
export const driftOf = (live: Live, body: Rendered): string | undefined => {
  if (canonicalJson(live.spec) !== canonicalJson(body.spec)) return 'spec';
  const labels = live.metadata?.labels ?? {};
  if (Object.entries(body.metadata.labels).some(([k, v]) => labels[k] !== v)) return 'labels';
  // a body for a target cluster carries none (src/nova/ownership.ts)
  if (canonicalJson(live.metadata?.ownerReferences ?? []) !== canonicalJson(body.metadata.ownerReferences ?? [])) return 'ownerReferences';
  return undefined;
};

/** The replace body: the rendered object with the read's resourceVersion, others' labels and annotations kept. */
export const replacement = <T extends Rendered>(live: Live, body: T): T => {
  const annotations = { ...live.metadata?.annotations, ...body.metadata.annotations };
  return {
    ...body,
    metadata: {
      ...body.metadata,
      labels: { ...live.metadata?.labels, ...body.metadata.labels },
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
      resourceVersion: live.metadata?.resourceVersion,
    },
  };
};

interface ParentStatus {
  parentRef?: { name?: string; namespace?: string; group?: string; kind?: string };
  conditions?: Array<{ type?: string; status?: string; reason?: string; message?: string; observedGeneration?: number }>;
}

/** The parentRef names our Gateway: same name, namespace defaulting to the route's, group and kind a Gateway's. */
const refMatchesGateway = (ref: ParentStatus['parentRef'], routeNamespace: string, wanted: RouteSpec['parentRef']): boolean =>
  ref !== undefined &&
  ref.name === wanted.name &&
  (ref.namespace ?? routeNamespace) === (wanted.namespace ?? routeNamespace) &&
  (ref.group ?? GATEWAY_GROUP) === GATEWAY_GROUP &&
  (ref.kind ?? 'Gateway') === 'Gateway';

/** What the route's Gateway said about it (status.parents[] for that parentRef, condition Accepted). */
export const routeAcceptance = (route: Live, routeNamespace: string, parentRef: RouteSpec['parentRef']): RouteAcceptance => {
  const gateway = `${parentRef.namespace ?? routeNamespace}/${parentRef.name}`;
  const parents = ((route.status as { parents?: ParentStatus[] } | undefined)?.parents ?? []).filter((p) => refMatchesGateway(p.parentRef, routeNamespace, parentRef));
  const accepted = parents.flatMap((p) => p.conditions ?? []).find((c) => c.type === 'Accepted');
  if (accepted === undefined) return { kind: 'notAccepted', message: `the Gateway ${gateway} has not reported on the route yet` };
  const generation = route.metadata?.generation;
  if (generation !== undefined && accepted.observedGeneration !== undefined && accepted.observedGeneration < generation) {
    return { kind: 'notAccepted', message: `the Gateway ${gateway} has not reported on generation ${generation} of the route yet (its last report is on generation ${accepted.observedGeneration})` };
  }
  if (accepted.status === 'True') return { kind: 'accepted' };
  const said = [accepted.reason, accepted.message].filter((s) => s !== undefined && s !== '').join(': ');
  return { kind: 'notAccepted', message: said !== '' ? said : `the Gateway ${gateway} reports Accepted ${accepted.status ?? 'without a status'}` };
};

const fail = (verb: string, kind: string, namespace: string, name: string, error: unknown): GroupObjectError => {
  const { message, code } = describeApiError(error, `cannot ${verb} ${kind} ${namespace}/${name}`);
  return new GroupObjectError(message, code);
};

/** How one kind is read and written. */
interface Access<B extends Rendered> {
  readonly kind: string;
  read(namespace: string, name: string): Promise<Live>;
  create(namespace: string, body: B): Promise<Live>;
  replace(namespace: string, name: string, body: B): Promise<Live>;
  remove(namespace: string, name: string): Promise<unknown>;
}

interface Probe {
  readonly at: number;
  readonly answer: Promise<Capability>;
}

export class KubernetesGroupObjects implements GroupObjects {
  private readonly autoscaling: AutoscalingV2Api;
  private readonly networking: NetworkingV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly probeTtlMs: number;
  private readonly now: () => number;
  private readonly probes = new Map<OptionalApi, Probe>();
  private readonly routes: Access<HTTPRouteBody>;
  private readonly hpas: Access<HPABody>;
  private readonly vpas: Access<VPABody>;
  private readonly policies: Access<NetworkPolicyBody>;

  private readonly ownership: Ownership;

  constructor(options: KubernetesGroupObjectsOptions) {
    this.ownership = { remote: options.remote === true };
    this.autoscaling = options.kubeConfig.makeApiClient(AutoscalingV2Api);
    this.networking = options.kubeConfig.makeApiClient(NetworkingV1Api);
    this.custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
    this.probeTtlMs = options.probeTtlMs ?? DEFAULT_PROBE_TTL_MS;
    this.now = options.now ?? Date.now;
    this.routes = this.customAccess('HTTPRoute', GATEWAY_API);
    this.vpas = this.customAccess('VerticalPodAutoscaler', VPA_API);
    const autoscaling = this.autoscaling;
    this.hpas = {
      kind: 'HorizontalPodAutoscaler',
      read: (namespace, name) => autoscaling.readNamespacedHorizontalPodAutoscaler({ namespace, name }),
      create: (namespace, body) => autoscaling.createNamespacedHorizontalPodAutoscaler({ namespace, body }),
      replace: (namespace, name, body) => autoscaling.replaceNamespacedHorizontalPodAutoscaler({ namespace, name, body }),
      remove: (namespace, name) => autoscaling.deleteNamespacedHorizontalPodAutoscaler({ namespace, name }),
    };
    const networking = this.networking;
    this.policies = {
      kind: 'NetworkPolicy',
      read: (namespace, name) => networking.readNamespacedNetworkPolicy({ namespace, name }),
      create: (namespace, body) => networking.createNamespacedNetworkPolicy({ namespace, body }),
      replace: (namespace, name, body) => networking.replaceNamespacedNetworkPolicy({ namespace, name, body }),
      remove: (namespace, name) => networking.deleteNamespacedNetworkPolicy({ namespace, name }),
    };
  }

  gatewayAPI(): Promise<Capability> {
    return this.probe(GATEWAY_API);
  }

  vpaAPI(): Promise<Capability> {
    return this.probe(VPA_API);
  }

  async hpaAPI(): Promise<Capability> {
    return INSTALLED;
  }

  async networkPolicyAPI(): Promise<Capability> {
    return INSTALLED;
  }

  evict(): void {
    this.probes.clear();
  }

  async ensureRoute(namespace: string, nova: NovaOwner, route: RouteSpec): Promise<RouteAcceptance> {
    const live = await this.ensureObject(this.routes, namespace, withOwnership(httpRouteBody(namespace, nova, route), nova.uid, this.ownership));
    return routeAcceptance(live, namespace, route.parentRef);
  }

  removeRoute(namespace: string, nova: string, target: RouteTarget): Promise<'removed' | 'absent'> {
    return this.removeObject(this.routes, namespace, routeName(nova, target));
  }

  async ensureHPA(namespace: string, nova: NovaOwner, hpa: HPASpec): Promise<void> {
    await this.ensureObject(this.hpas, namespace, withOwnership(hpaBody(namespace, nova, hpa), nova.uid, this.ownership));
  }

  removeHPA(namespace: string, nova: string): Promise<'removed' | 'absent'> {
    return this.removeObject(this.hpas, namespace, hpaName(nova));
  }

  async ensureVPA(namespace: string, nova: NovaOwner, role: NovaRole): Promise<void> {
    await this.ensureObject(this.vpas, namespace, withOwnership(vpaBody(namespace, nova, role), nova.uid, this.ownership));
  }

  removeVPA(namespace: string, nova: string, role: NovaRole): Promise<'removed' | 'absent'> {
    return this.removeObject(this.vpas, namespace, vpaName(nova, role));
  }

  async ensureNetworkPolicy(namespace: string, nova: NovaOwner, policy: NetworkPolicySpec): Promise<void> {
    await this.ensureObject(this.policies, namespace, withOwnership(networkPolicyBody(namespace, nova, policy), nova.uid, this.ownership));
  }

  removeNetworkPolicy(namespace: string, nova: string): Promise<'removed' | 'absent'> {
    return this.removeObject(this.policies, namespace, networkPolicyName(nova));
  }

  async ensureConsoleNetworkPolicy(namespace: string, nova: NovaOwner, policy: NetworkPolicySpec): Promise<void> {
    await this.ensureObject(this.policies, namespace, withOwnership(consoleNetworkPolicyBody(namespace, nova, policy), nova.uid, this.ownership));
  }

  removeConsoleNetworkPolicy(namespace: string, nova: string): Promise<'removed' | 'absent'> {
    return this.removeObject(this.policies, namespace, consoleNetworkPolicyName(nova));
  }

  private probe(api: OptionalApi): Promise<Capability> {
    const at = this.now();
    const kept = this.probes.get(api);
    if (kept !== undefined && at - kept.at < this.probeTtlMs) return kept.answer;
    const answer = this.custom.getAPIResources({ group: api.group, version: api.version }).then(
      (list) => capabilityFromList(api, list),
      (error: unknown) => capabilityFromError(api, error),
    );
    this.probes.set(api, { at, answer });
    return answer;
  }

  /** The object as the API server holds it after this call: the read when nothing was written, else the write's answer. */
  private async ensureObject<B extends Rendered>(access: Access<B>, namespace: string, body: B): Promise<Live> {
    const name = body.metadata.name;
    let live: Live | undefined;
    try {
      live = await access.read(namespace, name);
    } catch (error) {
      if (apiCodeOf(error) !== 404) throw fail('read', access.kind, namespace, name, error);
    }
    if (live === undefined) {
      try {
        return await access.create(namespace, body);
      } catch (error) {
        throw fail('create', access.kind, namespace, name, error);
      }
    }
    if (driftOf(live, body) === undefined) return live;
    try {
      return await access.replace(namespace, name, replacement(live, body));
    } catch (error) {
      throw fail('replace', access.kind, namespace, name, error);
    }
  }

  private async removeObject<B extends Rendered>(access: Access<B>, namespace: string, name: string): Promise<'removed' | 'absent'> {
    try {
      await access.remove(namespace, name);
      return 'removed';
    } catch (error) {
      if (apiCodeOf(error) === 404) return 'absent';
      throw fail('delete', access.kind, namespace, name, error);
    }
  }

  private customAccess<B extends Rendered>(kind: string, api: OptionalApi): Access<B> {
    const custom = this.custom;
    const at = (namespace: string) => ({ group: api.group, version: api.version, namespace, plural: api.resource });
    return {
      kind,
      read: async (namespace, name) => (await custom.getNamespacedCustomObject({ ...at(namespace), name })) as Live,
      create: async (namespace, body) => (await custom.createNamespacedCustomObject({ ...at(namespace), body })) as Live,
      replace: async (namespace, name, body) => (await custom.replaceNamespacedCustomObject({ ...at(namespace), name, body })) as Live,
      remove: (namespace, name) => custom.deleteNamespacedCustomObject({ ...at(namespace), name }),
    };
  }
}
