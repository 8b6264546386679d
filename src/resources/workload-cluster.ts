/**
 * WorkloadCluster: the OpenStack side of one workload cluster (openstack-cluster-modules.md, "Cluster"; issue 29) — the
 * API endpoint (an Octavia load balancer, internal by default, or an endpoint the user supplies), the control-plane and
 * node security groups, the control plane's server group, and the exports the machines read (schema
 * `captf.io/openstack-cluster/v1`, `ClusterExports`), on a subnet the user brings, in the project and region of the
 * Identity `spec.identityRef` names in the same namespace.
 *
 * Defaults are resolved in code, never by the codec or the CRD (src/resources/README.md): `resolveWorkloadCluster`
 * says what an absent field means (distribution kubeadm, API server port 6443, provider ID format default, server
 * group policy anti-affinity, a private endpoint, the amphora provider).
 *
 * What the codec refuses is what a structural schema and CEL can refuse on one object: types, bounds, formats, the
 * exclusive pairs (apiEndpoint with controlPlaneEndpoint, provider with cloudDefaultProvider) and identityRef's
 * immutability. The endpoint guard (a later change of subnetID, public, floatingIPPool, apiServerPort or the actual
 * provider), the 255-character tag pair limit, ovn with allowedCIDRs, and a public endpoint without allowedCIDRs or a
 * floating-IP pool are preconditions of the workload-cluster machine: refused there with a condition, so the codec
 * stores them.
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { AuditURL, Cidr, Conditions, DisplayName, Generation, LocalObjectReference, ObjectName, Phase, Uuid } from './codec/common.js';
import { bool, enumOf, int, jsonType, str } from './codec/primitives.js';
import { list, record, struct } from './codec/structure.js';
import { ruleError } from './codec/transitions.js';
import { defineKind, standardColumns, type PrinterColumn, type ResourceObject, type TransitionRule } from './kind.js';

// ─── shared with WorkloadMachine ──────────────────────────────────────────────────────────────────────

/**
 * A codec with rules on its (valid) value, as CEL rules on a scalar or map node: each failure is reported at the node
 * as `Invalid value: "<json type>": <message>`, the API server's wording for a failed rule.
 */
export const withRules = <A>(inner: t.Type<A, A, unknown>, rules: ReadonlyArray<{ readonly message: string; readonly check: (value: A) => boolean }>): t.Type<A, A, unknown> =>
  new t.Type<A, A, unknown>(
    inner.name,
    (u): u is A => inner.is(u) && rules.every((rule) => rule.check(u)),
    (u, c) => {
      const result = inner.validate(u, c);
      if (isLeft(result)) return result;
      const failed = rules.filter((rule) => !rule.check(result.right));
      return failed.length === 0 ? result : t.failures(failed.map((rule) => ({ value: result.right, context: c, message: `Invalid value: "${jsonType(result.right)}": ${rule.message}` })));
    },
    t.identity,
  );

export const ADDITIONAL_TAGS_MAX_ENTRIES = 50;
export const TAG_KEY_MAX_LENGTH = 128;
export const TAG_VALUE_MAX_LENGTH = 255;
export const ADDITIONAL_TAGS_KEY_MESSAGE = 'every additionalTags key must be 1 to 128 characters';

/**
 * additionalTags: key → value, at most 50 entries, keys of 1 to 128 characters. The 255-character limit of a rendered
 * `"<key>=<value>"` pair (keys with `/` mapped to `:`) is the machine's precondition, not the codec's: it shows as a
 * condition (machines/workload-cluster/tags.ts).
 */
export const AdditionalTags = withRules(record('AdditionalTags', str('TagValue', { maxLength: TAG_VALUE_MAX_LENGTH }), { maxProperties: ADDITIONAL_TAGS_MAX_ENTRIES }), [
  { message: ADDITIONAL_TAGS_KEY_MESSAGE, check: (tags) => Object.keys(tags).every((key) => [...key].length >= 1 && [...key].length <= TAG_KEY_MAX_LENGTH) },
]);
export type AdditionalTags = t.TypeOf<typeof AdditionalTags>;

/** A host name (DNS-1123 subdomain, any case) or an IP address (an IPv6 address checked for its character set only). */
export const ENDPOINT_HOST = '^([A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*|[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*)$';
export const EndpointHost = str('EndpointHost', { minLength: 1, maxLength: 253, pattern: ENDPOINT_HOST });
export const Port = int('Port', { minimum: 1, maximum: 65535 });
export const Endpoint = struct('Endpoint', { host: EndpointHost, port: Port }, {});
export type Endpoint = t.TypeOf<typeof Endpoint>;

// ─── spec ────────────────────────────────────────────────────────────────────────────────────────────

export const WORKLOAD_DISTRIBUTIONS = ['kubeadm', 'rke2'] as const;
export type WorkloadDistribution = (typeof WORKLOAD_DISTRIBUTIONS)[number];
export const PROVIDER_ID_FORMATS = ['default', 'regional'] as const;
export type ProviderIDFormat = (typeof PROVIDER_ID_FORMATS)[number];
/** `None`: the control plane joins no server group (exports control_plane_server_group_id null). */
export const SERVER_GROUP_POLICIES = ['anti-affinity', 'soft-anti-affinity', 'None'] as const;
export type ServerGroupPolicySetting = (typeof SERVER_GROUP_POLICIES)[number];

export const CIDR_LIST_MAX_ITEMS = 32;
export const ENDPOINT_EXCLUSIVE_MESSAGE = 'apiEndpoint and controlPlaneEndpoint are mutually exclusive: a supplied controlPlaneEndpoint has no load balancer';
export const PROVIDER_EXCLUSIVE_MESSAGE = 'provider and cloudDefaultProvider are mutually exclusive: cloudDefaultProvider takes the cloud\'s default provider';

/** The Octavia provider of the API load balancer when the spec names none. */
export const DEFAULT_LOAD_BALANCER_PROVIDER = 'amphora';

export const ApiEndpoint = struct(
  'ApiEndpoint',
  {},
  {
    /** A floating IP from floatingIPPool on the VIP, as the endpoint host. Default false: the VIP on subnetID. */
    public: bool,
    /** The external network (name or id) the floating IP comes from. */
    floatingIPPool: DisplayName,
    /** The listeners' allowed source CIDRs (IPv4 or IPv6); the node subnet is always added to them. */
    allowedCIDRs: list('AllowedCIDRs', Cidr, { maxItems: CIDR_LIST_MAX_ITEMS, listType: 'set' }),
    /** The Octavia provider; absent → amphora (DEFAULT_LOAD_BALANCER_PROVIDER). */
    provider: str('LoadBalancerProvider', { minLength: 1, maxLength: 64 }),
    /** true: the cloud's default provider (Octavia's, no provider sent). */
    cloudDefaultProvider: bool,
  },
  { rules: [{ message: PROVIDER_EXCLUSIVE_MESSAGE, check: (self) => !(self.provider !== undefined && self.cloudDefaultProvider === true) }] },
);
export type ApiEndpoint = t.TypeOf<typeof ApiEndpoint>;

export const WorkloadClusterSpec = struct(
  'WorkloadClusterSpec',
  {
    /** The Identity in this namespace: the project and region. Immutable. */
    identityRef: LocalObjectReference,
    /** The Neutron subnet (IPv4 or IPv6) the endpoint and the nodes use. Guarded by the machine, not immutable here. */
    subnetID: Uuid,
  },
  {
    distribution: enumOf('Distribution', WORKLOAD_DISTRIBUTIONS),
    /** The kube-apiserver port (default 6443). Guarded by the machine. */
    apiServerPort: Port,
    apiEndpoint: ApiEndpoint,
    /** An endpoint the user supplies: no load balancer, exports `api` null. */
    controlPlaneEndpoint: Endpoint,
    providerIDFormat: enumOf('ProviderIDFormat', PROVIDER_ID_FORMATS),
    serverGroupPolicy: enumOf('ServerGroupPolicy', SERVER_GROUP_POLICIES),
    /** The allowed address pairs of every node port (IPv4 or IPv6 CIDRs). */
    nodeAllowedAddressCIDRs: list('NodeAllowedAddressCIDRs', Cidr, { maxItems: CIDR_LIST_MAX_ITEMS, listType: 'set' }),
    additionalTags: AdditionalTags,
  },
  { rules: [{ message: ENDPOINT_EXCLUSIVE_MESSAGE, check: (self) => !(self.apiEndpoint !== undefined && self.controlPlaneEndpoint !== undefined) }] },
);
export type WorkloadClusterSpec = t.TypeOf<typeof WorkloadClusterSpec>;

export const WORKLOAD_CLUSTER_DEFAULTS = {
  distribution: 'kubeadm',
  apiServerPort: 6443,
  providerIDFormat: 'default',
  serverGroupPolicy: 'anti-affinity',
} as const satisfies Partial<WorkloadClusterSpec>;

/** The spec with every default resolved (what an absent field means). */
export interface ResolvedWorkloadCluster {
  distribution: WorkloadDistribution;
  apiServerPort: number;
  providerIDFormat: ProviderIDFormat;
  /** null: `None`, no server group. */
  serverGroupPolicy: 'anti-affinity' | 'soft-anti-affinity' | null;
  /** null with a supplied controlPlaneEndpoint. */
  apiEndpoint: { public: boolean; floatingIPPool: string | null; allowedCIDRs: string[]; provider: string | null } | null;
  controlPlaneEndpoint: Endpoint | null;
  nodeAllowedAddressCIDRs: string[];
  additionalTags: Record<string, string>;
}

/** The load balancer provider a spec asks for: its provider, amphora when absent, null (the cloud's default) with cloudDefaultProvider. */
export const apiLoadBalancerProvider = (endpoint: ApiEndpoint | undefined): string | null =>
  endpoint?.cloudDefaultProvider === true ? null : (endpoint?.provider ?? DEFAULT_LOAD_BALANCER_PROVIDER);

export const resolveWorkloadCluster = (spec: WorkloadClusterSpec): ResolvedWorkloadCluster => ({
  distribution: spec.distribution ?? WORKLOAD_CLUSTER_DEFAULTS.distribution,
  apiServerPort: spec.apiServerPort ?? WORKLOAD_CLUSTER_DEFAULTS.apiServerPort,
  providerIDFormat: spec.providerIDFormat ?? WORKLOAD_CLUSTER_DEFAULTS.providerIDFormat,
  serverGroupPolicy: (spec.serverGroupPolicy ?? WORKLOAD_CLUSTER_DEFAULTS.serverGroupPolicy) === 'None' ? null : ((spec.serverGroupPolicy ?? WORKLOAD_CLUSTER_DEFAULTS.serverGroupPolicy) as 'anti-affinity' | 'soft-anti-affinity'),
  apiEndpoint:
    spec.controlPlaneEndpoint !== undefined
      ? null
      : {
          public: spec.apiEndpoint?.public ?? false,
          floatingIPPool: spec.apiEndpoint?.floatingIPPool ?? null,
          allowedCIDRs: [...(spec.apiEndpoint?.allowedCIDRs ?? [])],
          provider: apiLoadBalancerProvider(spec.apiEndpoint),
        },
  controlPlaneEndpoint: spec.controlPlaneEndpoint ?? null,
  nodeAllowedAddressCIDRs: [...(spec.nodeAllowedAddressCIDRs ?? [])],
  additionalTags: { ...(spec.additionalTags ?? {}) },
});

// ─── exports (schema captf.io/openstack-cluster/v1) ──────────────────────────────────────────────────

export const CLUSTER_EXPORTS_SCHEMA = 'captf.io/openstack-cluster/v1';

/** Keys whose `null` is a value (the CRD's `nullable: true`): kept as null, and an absent one decodes as null. */
const withNulls = <A extends object, K extends string>(inner: t.Type<A, A, unknown>, keys: readonly K[]) => {
  type Out = Omit<A, K> & { [P in K]-?: Exclude<P extends keyof A ? A[P] : never, undefined> | null };
  return new t.Type<Out, Out, unknown>(
    inner.name,
    (u): u is Out => typeof u === 'object' && u !== null && keys.every((key) => key in u) && inner.is(Object.fromEntries(Object.entries(u).filter(([, v]) => v !== null))),
    (u, c) => {
      const result = inner.validate(u, c);
      if (isLeft(result)) return result;
      const filled: Record<string, unknown> = { ...(result.right as Record<string, unknown>) };
      for (const key of keys) if (filled[key] === undefined) filled[key] = null;
      return t.success(filled as Out);
    },
    t.identity,
  );
};

const ExportsPool = struct('ExportsPool', { id: Uuid, port: Port }, {});
const ExportsPools = withNulls(struct('ExportsPools', { kube_apiserver: ExportsPool }, { rke2_supervisor: ExportsPool }), ['rke2_supervisor']);
const ExportsApi = struct('ExportsApi', { host: EndpointHost, port: Port, pools: ExportsPools }, {});
const UuidList = list('UuidList', Uuid, { maxItems: 16 });

export const ClusterExports = withNulls(
  struct(
    'ClusterExports',
    {
      schema: enumOf('ExportsSchema', [CLUSTER_EXPORTS_SCHEMA]),
      region: DisplayName,
      network_id: Uuid,
      subnet_id: Uuid,
      /** One key per availability zone, each an empty object. */
      failure_domains: record('FailureDomains', struct('FailureDomain', {}, {}), { maxProperties: 256 }),
      distribution: enumOf('Distribution', WORKLOAD_DISTRIBUTIONS),
      provider_id_format: enumOf('ProviderIDFormat', PROVIDER_ID_FORMATS),
      security_group_ids: struct('ExportsSecurityGroups', { control_plane: UuidList, worker: UuidList }, {}),
      node_allowed_address_cidrs: list('NodeAllowedAddressCIDRs', Cidr, { maxItems: CIDR_LIST_MAX_ITEMS }),
    },
    {
      /** The server group control-plane machines join, or null. */
      control_plane_server_group_id: Uuid,
      /** The endpoint and its pools; null with a supplied endpoint. */
      api: ExportsApi,
    },
  ),
  ['control_plane_server_group_id', 'api'],
);
/** The exports, every key present (`control_plane_server_group_id`, `api` and `api.pools.rke2_supervisor` may be null). */
export type ClusterExports = t.TypeOf<typeof ClusterExports>;

// ─── status ──────────────────────────────────────────────────────────────────────────────────────────

/** The endpoint guard as recorded at creation (the machine refuses a later change of one of these with a condition). */
export const EndpointGuardStatus = struct(
  'EndpointGuardStatus',
  { subnetID: Uuid, public: bool, apiServerPort: Port },
  { floatingIPPool: DisplayName, provider: str('LoadBalancerProvider', { minLength: 1, maxLength: 64 }) },
);

export const WorkloadClusterStatus = struct(
  'WorkloadClusterStatus',
  {},
  {
    observedGeneration: Generation,
    auditURL: AuditURL,
    phase: Phase,
    conditions: Conditions,
    endpoint: Endpoint,
    loadBalancerID: Uuid,
    securityGroupIDs: struct('SecurityGroupIDs', {}, { controlPlane: Uuid, node: Uuid }),
    serverGroupID: Uuid,
    guard: EndpointGuardStatus,
    exports: ClusterExports,
    /** The name of the ConfigMap the exports are published in (`<cluster>-openstack-exports`). */
    exportsConfigMap: ObjectName,
  },
);
export type WorkloadClusterStatus = t.TypeOf<typeof WorkloadClusterStatus>;

/** The cluster's project and region for its life: moving it would strand its groups, server group and load balancer. */
/**
 * A supplied endpoint cannot become a load balancer, nor a load balancer a supplied endpoint: the endpoint guard
 * (openstack-cluster-modules.md) refuses a change of the endpoint once created, and this one would remove or create
 * the load balancer itself, so it is refused at admission.
 */
const endpointKindImmutable: TransitionRule<WorkloadClusterSpec, WorkloadClusterStatus> = (self, old) =>
  (self.spec.controlPlaneEndpoint === undefined) === (old.spec.controlPlaneEndpoint === undefined)
    ? []
    : [ruleError('spec.controlPlaneEndpoint', self.spec.controlPlaneEndpoint ?? null, 'a supplied endpoint cannot be added or removed after creation (the endpoint guard)')];

const identityRefImmutable: TransitionRule<WorkloadClusterSpec, WorkloadClusterStatus> = (self, old) =>
  self.spec.identityRef.name === old.spec.identityRef.name ? [] : [ruleError('spec.identityRef.name', self.spec.identityRef.name, 'identityRef.name is immutable')];

export const WORKLOAD_CLUSTER_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Endpoint', type: 'string', jsonPath: '.status.endpoint.host' },
  ...standardColumns('Available'),
];

export const WorkloadClusterKind = defineKind({
  kind: 'WorkloadCluster',
  plural: 'workloadclusters',
  shortNames: ['wlc'],
  spec: WorkloadClusterSpec,
  status: WorkloadClusterStatus,
  columns: WORKLOAD_CLUSTER_COLUMNS,
  transitions: [identityRefImmutable, endpointKindImmutable],
});
export type WorkloadCluster = ResourceObject<'WorkloadCluster', WorkloadClusterSpec, WorkloadClusterStatus>;
export const validateWorkloadCluster = WorkloadClusterKind.validate;
