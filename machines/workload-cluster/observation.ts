/**
 * The contract of a WorkloadCluster pass (openstack-cluster-modules.md; issue 29): what the reconciler hands the
 * workload-cluster machine (machines/workload-cluster.ts) — the desired cluster normalized from the spec, one fresh
 * observation of Neutron and Nova by the deterministic names, and the effects' answers. The provider
 * (src/provider/workload/) produces the observation and the answers; the machine decides from nothing else.
 *
 * Names (deterministic, from the resource's uid): `wc-<uid>-control-plane` and `wc-<uid>-node` (security groups),
 * `wc-<uid>-control-plane` (the Nova server group). The API load balancer is not this machine's: it is the
 * load-balancer machine's topology on the stream `load-balancer-<cluster uid>` (machines/load-balancer.ts), named
 * `lb-<cluster uid>`; this machine only reads what it needs of it (its actual provider, whether it is gone).
 */
import * as t from 'io-ts';

export const nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);
/** An exact-name lookup: none, one, or several (a duplicate is a consistency problem, never picked from). */
export const lookup = <P extends t.Props>(present: P) =>
  t.union([t.type({ kind: t.literal('absent') }), t.type({ kind: t.literal('present'), ...present }), t.type({ kind: t.literal('duplicate'), ids: t.array(t.string) })]);

export const Distribution = t.keyof({ kubeadm: null, rke2: null });
export type Distribution = t.TypeOf<typeof Distribution>;
export const ServerGroupPolicy = t.keyof({ 'anti-affinity': null, 'soft-anti-affinity': null });

/** A tag as the spec gives it: the key unmapped (`captf.io/cluster`); the machine maps `/` to `:` (tags.ts). */
export const TagPair = t.type({ key: t.string, value: t.string });
export type TagPair = t.TypeOf<typeof TagPair>;

/** The API endpoint the spec asks for. */
export const DesiredEndpoint = t.union([
  t.type({
    kind: t.literal('loadBalancer'),
    public: t.boolean,
    /** The external network (name or id) the floating IP comes from; required when public. */
    floatingIPPool: nullable(t.string),
    /** The listeners' allowed CIDRs as the spec gives them (the node subnet is added by the controller, not here). */
    allowedCIDRs: t.array(t.string),
    /** The Octavia provider asked for: `amphora` by default, null for the cloud's default. */
    provider: nullable(t.string),
  }),
  /** The user brings host and port: no load balancer, `api` exports null. */
  t.type({ kind: t.literal('supplied'), host: t.string, port: t.number }),
]);
export type DesiredEndpoint = t.TypeOf<typeof DesiredEndpoint>;

export const DesiredCluster = t.type({
  /** `wc-<uid>`: the prefix of every name. */
  name: t.string,
  subnetId: t.string,
  apiServerPort: t.number,
  distribution: Distribution,
  endpoint: DesiredEndpoint,
  /** `captf_tags` (the cluster's own: captf.io/cluster, captf.io/namespace) then additional tags, unmapped. */
  tags: t.array(TagPair),
  /** null: the control plane joins no server group (control_plane_server_group_id null). */
  serverGroupPolicy: nullable(ServerGroupPolicy),
});
export type DesiredCluster = t.TypeOf<typeof DesiredCluster>;

/** The endpoint guard: recorded at creation, compared on every later pass (never applied when changed). */
export const EndpointGuard = t.type({
  subnetId: t.string,
  public: t.boolean,
  floatingIPPool: nullable(t.string),
  apiServerPort: t.number,
  /** The load balancer's ACTUAL provider (Octavia's `provider`), recorded once it is first observed; null until then and for a supplied endpoint. */
  provider: nullable(t.string),
});
export type EndpointGuard = t.TypeOf<typeof EndpointGuard>;

// ─── one fresh observation ──────────────────────────────────────────────────────────────────────────

export const ObservedSubnet = t.union([
  t.type({ kind: t.literal('absent') }),
  t.type({ kind: t.literal('present'), id: t.string, networkId: t.string, cidr: t.string, ipVersion: t.union([t.literal(4), t.literal(6)]) }),
]);
export type ObservedSubnet = t.TypeOf<typeof ObservedSubnet>;

/** A rule as Neutron shows it (Neutron's field names mapped, values verbatim). */
export const ObservedRule = t.type({
  id: t.string,
  direction: t.string,
  ethertype: t.string,
  protocol: nullable(t.string),
  portMin: nullable(t.number),
  portMax: nullable(t.number),
  remoteIpPrefix: nullable(t.string),
  remoteGroupId: nullable(t.string),
});
export type ObservedRule = t.TypeOf<typeof ObservedRule>;
export const ObservedSecurityGroup = lookup({ id: t.string, tags: t.array(t.string), rules: t.array(ObservedRule) });
export type ObservedSecurityGroup = t.TypeOf<typeof ObservedSecurityGroup>;
export const ObservedServerGroup = lookup({ id: t.string, policy: t.string, members: t.array(t.string) });
export type ObservedServerGroup = t.TypeOf<typeof ObservedServerGroup>;

/** The API load balancer `lb-<uid>`, as far as this machine reads it: the guard's provider and the deletion order. */
export const ObservedEndpointLoadBalancer = t.union([
  t.type({ kind: t.literal('absent') }),
  t.type({ kind: t.literal('present'), id: t.string, provider: t.string, provisioningStatus: t.string }),
  t.type({ kind: t.literal('duplicate'), ids: t.array(t.string) }),
]);
export type ObservedEndpointLoadBalancer = t.TypeOf<typeof ObservedEndpointLoadBalancer>;

export const ClusterObservation = t.type({
  subnet: ObservedSubnet,
  securityGroups: t.type({ controlPlane: ObservedSecurityGroup, node: ObservedSecurityGroup }),
  /** Looked up also when the spec wants none (a group Regent created earlier is then still found). */
  serverGroup: ObservedServerGroup,
  /** Nova's available zones (GET /os-availability-zone): the failure domains. */
  availabilityZones: t.array(t.string),
  loadBalancer: ObservedEndpointLoadBalancer,
  /** WorkloadMachines of this cluster that still exist (the informer's count): a deletion waits for 0. */
  machines: t.number,
});
export type ClusterObservation = t.TypeOf<typeof ClusterObservation>;

// ─── the effects and their answers ─────────────────────────────────────────────────────────────────

/** A rule to create, in Neutron's words; `remote_group` names one of the cluster's groups (its id filled in by the machine). */
export const RuleParams = t.type({
  security_group_id: t.string,
  direction: t.literal('ingress'),
  ethertype: t.union([t.literal('IPv4'), t.literal('IPv6')]),
  protocol: nullable(t.string),
  port_range_min: nullable(t.number),
  port_range_max: nullable(t.number),
  remote_ip_prefix: nullable(t.string),
  remote_group_id: nullable(t.string),
  description: t.string,
});
export type RuleParams = t.TypeOf<typeof RuleParams>;

/** Effect types and their params (the provider's handlers answer to exactly these). */
export const WORKLOAD_CLUSTER_EFFECTS = {
  /** params { subject, name, description, tags: string[] ("k=v") } → accepted { ids: { id } } */
  createSecurityGroup: 'workloadCluster.createSecurityGroup',
  /** params { subject, rule: RuleParams } → accepted { ids: { id } }; a 409 (the rule exists) is `conflict` */
  createSecurityGroupRule: 'workloadCluster.createSecurityGroupRule',
  /** params { subject, name, policy } → accepted { ids: { id } } (server groups are not tagged) */
  createServerGroup: 'workloadCluster.createServerGroup',
  /** destructive; params { subject, id } → accepted; 404 is `accepted` too (already gone); 409 (in use) `conflict` */
  deleteSecurityGroup: 'workloadCluster.deleteSecurityGroup',
  /** destructive; params { subject, id } → accepted; 404 is `accepted` */
  deleteServerGroup: 'workloadCluster.deleteServerGroup',
} as const;

const effectResult = { source: t.literal('effect'), effect: t.string, subject: t.string };
/** An effect's answer, as every workload handler maps it (the load-balancer machine's four outcomes). */
export const EffectAnswer = t.union([
  t.intersection([t.type({ type: t.literal('accepted'), ...effectResult }), t.partial({ ids: t.record(t.string, t.string) })]),
  t.type({ type: t.literal('conflict'), ...effectResult }),
  t.type({ type: t.literal('rejected'), ...effectResult, status: t.number, reason: t.string }),
  t.type({ type: t.literal('outcomeUnknown'), ...effectResult, reason: t.string }),
]);
export type EffectAnswer = t.TypeOf<typeof EffectAnswer>;

export const WorkloadClusterStimulus = t.union([
  t.type({
    type: t.literal('reconcile'),
    source: t.literal('reconciler'),
    generation: t.number,
    deletionRequested: t.boolean,
    /** The pass's clock (RFC 3339). */
    at: t.string,
    desired: DesiredCluster,
    observed: ClusterObservation,
  }),
  /** The spec could not be decoded: recorded, nothing else happens. */
  t.type({ type: t.literal('specRejected'), source: t.literal('reconciler'), generation: t.number, problems: t.array(t.string) }),
  EffectAnswer,
]);
export type WorkloadClusterStimulus = t.TypeOf<typeof WorkloadClusterStimulus>;
