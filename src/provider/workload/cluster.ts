/**
 * The WorkloadCluster's provider (issue 29; openstack-cluster-modules.md): the Neutron, Nova and Octavia side of
 * machines/workload-cluster.ts, in the shapes of its contract (machines/workload-cluster/observation.ts).
 *
 * Observation (`observeCluster`), read fresh on every pass, by exact names only:
 * - the subnet by id (`GET /v2.0/subnets/{id}`): 404 is `absent`; otherwise its network, CIDR and IP version;
 * - the security groups `<name>-control-plane` and `<name>-node` (`GET /v2.0/security-groups?name=`, post-filtered
 *   to the exact name): none `absent`, two or more `duplicate` (ids sorted), one `present` with its tags and its rules
 *   (`GET /v2.0/security-group-rules?security_group_id=`, Neutron's fields mapped to `ObservedRule`, values verbatim,
 *   Neutron's default egress rules included — the machine judges them);
 * - the server group `<name>-control-plane`: Nova's `GET /os-server-groups` takes no name filter (real Nova answers
 *   `name=` with 400, docs/simulator-differences.md §22), so the project's groups are listed and post-filtered;
 *   looked up whatever the spec wants (a group Regent created earlier is then still found). Its policy is the 2.64+
 *   `policy` (Regent pins compute 2.90), else the first of the legacy `policies`;
 * - Nova's availability zones (`GET /os-availability-zone`, the non-admin view): the names whose `zoneState.available`
 *   is true, sorted;
 * - the API load balancer by its exact Octavia name (`loadBalancerName`, `lb-<uid>`; the cluster's own names are
 *   `wc-<uid>-…`): its id, the provider Octavia reports and its provisioning status verbatim.
 * Every other error (403, 5xx, a timeout, an unreadable answer) is thrown as the client's typed error: the pass then
 * observes nothing and backs off.
 *
 * Effect handlers (`workloadClusterHandlers`), one per `WORKLOAD_CLUSTER_EFFECTS` type, answer with `EffectAnswer`
 * (src/provider/workload/answers.ts). A security group is created and then tagged with `PUT …/tags`: Neutron Zed
 * refuses `tags` in the create body of a security group (400 "Attribute 'tags' not allowed in POST"); nothing else is
 * touched (Neutron's default egress rules stay: the machine's rules are added next to them).
 */
import type { EffectContext, EffectHandler } from '../../engine/engine.js';
import type { Effect } from '../../events/envelope.js';
import { NotFound, UnreadableResponse } from '../../openstack/errors.js';
import type { Field } from '../../openstack/decoders/field.js';
import type { SecurityGroup, SecurityGroupRule } from '../../openstack/decoders/network.js';
import type { NeutronClient } from '../../openstack/neutron/index.js';
import type { NovaClient, ServerGroupPolicy } from '../../openstack/nova/index.js';
import type { OctaviaClient } from '../../openstack/octavia/index.js';
import {
  WORKLOAD_CLUSTER_EFFECTS, type ClusterObservation, type ObservedEndpointLoadBalancer, type ObservedRule, type ObservedSecurityGroup, type ObservedServerGroup,
  type ObservedSubnet,
} from '../../../machines/workload-cluster/observation.js';
import { answering, lookupOf, record, str, strings, RegentRefusal } from './answers.js';

// ─── names ──────────────────────────────────────────────────────────────────────────────────────────

export const controlPlaneGroupName = (name: string): string => `${name}-control-plane`;
export const nodeGroupName = (name: string): string => `${name}-node`;
export const serverGroupName = (name: string): string => `${name}-control-plane`;

// ─── observation ────────────────────────────────────────────────────────────────────────────────────

/** What the observation reads through. */
export interface ClusterObservationSession {
  neutron: Pick<NeutronClient, 'getSubnet' | 'listSecurityGroups' | 'listSecurityGroupRules'>;
  nova: Pick<NovaClient, 'listServerGroups' | 'listAvailabilityZones'>;
  octavia: Pick<OctaviaClient, 'listLoadBalancers'>;
}

export interface ClusterLookup {
  /** `wc-<uid>`: the prefix of the security groups' and the server group's names. */
  name: string;
  subnetId: string;
  /**
   * Whether the spec wants a server group. The group is looked up either way (the contract: a group Regent created
   * earlier is still found when the spec stops wanting one); carried for the caller's logs only.
   */
  wantServerGroup?: boolean;
  /** The API load balancer's exact Octavia name, `lb-<cluster uid>` (not `<name>`-derived). */
  loadBalancerName: string;
}

const unreadable = (service: string, what: string, key: string): UnreadableResponse =>
  new UnreadableResponse(`${service}'s ${what} has no readable ${key}`, [`${what}.${key}`], { service });

const observeSubnet = async (s: ClusterObservationSession, subnetId: string): Promise<ObservedSubnet> => {
  try {
    const subnet = await s.neutron.getSubnet(subnetId);
    if (subnet.ip_version !== 4 && subnet.ip_version !== 6) throw unreadable('network', 'subnet', 'ip_version');
    return { kind: 'present', id: subnet.id, networkId: subnet.network_id, cidr: subnet.cidr, ipVersion: subnet.ip_version };
  } catch (error) {
    if (error instanceof NotFound) return { kind: 'absent' };
    throw error;
  }
};

/** Neutron's rule fields as the contract names them, values verbatim. */
export const observedRule = (r: SecurityGroupRule): ObservedRule => {
  if (r.ethertype === undefined) throw unreadable('network', 'security group rule', 'ethertype');
  return {
    id: r.id,
    direction: r.direction,
    ethertype: r.ethertype,
    protocol: r.protocol ?? null,
    portMin: r.port_range_min ?? null,
    portMax: r.port_range_max ?? null,
    remoteIpPrefix: r.remote_ip_prefix ?? null,
    remoteGroupId: r.remote_group_id ?? null,
  };
};

const observeSecurityGroup = async (s: ClusterObservationSession, name: string): Promise<ObservedSecurityGroup> => {
  const matches = (await s.neutron.listSecurityGroups({ name })).filter((g) => g.name === name);
  const found = lookupOf(matches, (g: SecurityGroup) => ({ id: g.id, tags: [...(g.tags ?? [])] }));
  if (found.kind !== 'present') return found;
  // the rules by their group (a filter Neutron applies; post-filtered should one ever be ignored)
  const rules = (await s.neutron.listSecurityGroupRules({ security_group_id: found.id })).filter((r) => r.security_group_id === found.id);
  return { ...found, rules: rules.map(observedRule) };
};

const observeServerGroup = async (s: ClusterObservationSession, name: string): Promise<ObservedServerGroup> => {
  const matches = (await s.nova.listServerGroups()).filter((g) => g.name === name);
  return lookupOf(matches, (g) => {
    const policy = g.policy ?? g.policies?.[0];
    if (policy === undefined) throw unreadable('compute', 'server group', 'policy');
    return { id: g.id, policy, members: [...(g.members ?? [])] };
  });
};

/** Nova's available zones, sorted (GET /os-availability-zone: the view every project member may read). */
export const availableZones = async (s: Pick<ClusterObservationSession, 'nova'>): Promise<string[]> =>
  [...new Set((await s.nova.listAvailabilityZones()).filter((z) => z.available).map((z) => z.name))].sort();

/** provisioning_status as Octavia sent it (a value the client's closed decoder does not know passes through raw). */
const statusOf = (field: Field<string>): string => {
  if (field.kind === 'value') return field.value;
  if (field.kind === 'unreadable') return typeof field.raw === 'string' ? field.raw : JSON.stringify(field.raw) ?? 'null';
  return 'absent';
};

const observeLoadBalancer = async (s: ClusterObservationSession, name: string): Promise<ObservedEndpointLoadBalancer> => {
  const matches = (await s.octavia.listLoadBalancers({ name })).filter((lb) => lb.name === name);
  return lookupOf(matches, (lb) => {
    if (lb.provider.kind !== 'value' || lb.provider.value === null) throw unreadable('load-balancer', 'load balancer', 'provider');
    return { id: lb.id, provider: lb.provider.value, provisioningStatus: statusOf(lb.provisioningStatus) };
  });
};

/** One pass's observation of the cluster's cloud side (all but `machines`, the informer's count). */
export const observeCluster = async (s: ClusterObservationSession, lookup: ClusterLookup): Promise<Omit<ClusterObservation, 'machines'>> => {
  const subnet = await observeSubnet(s, lookup.subnetId);
  const controlPlane = await observeSecurityGroup(s, controlPlaneGroupName(lookup.name));
  const node = await observeSecurityGroup(s, nodeGroupName(lookup.name));
  const serverGroup = await observeServerGroup(s, serverGroupName(lookup.name));
  const availabilityZones = await availableZones(s);
  const loadBalancer = await observeLoadBalancer(s, lookup.loadBalancerName);
  return { subnet, securityGroups: { controlPlane, node }, serverGroup, availabilityZones, loadBalancer };
};

// ─── effect handlers ────────────────────────────────────────────────────────────────────────────────

/** What the handlers call. */
export interface ClusterEffectSession {
  neutron: Pick<NeutronClient, 'createSecurityGroup' | 'replaceTags' | 'createSecurityGroupRule' | 'deleteSecurityGroup'>;
  nova: Pick<NovaClient, 'createServerGroup' | 'deleteServerGroup'>;
}

/**
 * Tags on a Neutron resource just created (Zed takes none in the create body of a security group, and drops them
 * silently from a port's: §22). A failed tagging leaves the object untagged but created, so the create is still
 * answered `accepted` with its id (the next observation shows the tags it has); the failure is logged.
 */
export const tagCreated = async (
  neutron: Pick<NeutronClient, 'replaceTags'>, resource: 'security-groups' | 'ports', id: string, tags: readonly string[], effect: Effect, context: EffectContext,
): Promise<void> => {
  if (tags.length === 0) return;
  try {
    await neutron.replaceTags(resource, id, tags);
  } catch (error) {
    if (error instanceof UnreadableResponse) return;
    context.logger.error('neutron did not tag the object it created: it stays untagged', {
      effect: effect.type, subject: effect.subject, id, resource, error: error instanceof Error ? error.message : String(error),
    });
  }
};

const POLICIES: readonly string[] = ['anti-affinity', 'soft-anti-affinity', 'affinity', 'soft-affinity'];

/** The rule as Neutron takes it, from the effect's `rule` (RuleParams). */
const ruleBody = (rule: Record<string, unknown>) => {
  const nullableStr = (key: string): string | null => {
    const v = rule[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'string') throw new RegentRefusal('invalidEffect', `effect parameter rule.${key} is malformed`);
    return v;
  };
  const nullableNum = (key: string): number | null => {
    const v = rule[key];
    if (v === null || v === undefined) return null;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new RegentRefusal('invalidEffect', `effect parameter rule.${key} is malformed`);
    return v;
  };
  const direction = str(rule, 'direction');
  const ethertype = str(rule, 'ethertype');
  if (direction !== 'ingress' && direction !== 'egress') throw new RegentRefusal('invalidEffect', 'effect parameter rule.direction is malformed');
  if (ethertype !== 'IPv4' && ethertype !== 'IPv6') throw new RegentRefusal('invalidEffect', 'effect parameter rule.ethertype is malformed');
  return {
    security_group_id: str(rule, 'security_group_id'),
    direction,
    ethertype,
    protocol: nullableStr('protocol'),
    port_range_min: nullableNum('port_range_min'),
    port_range_max: nullableNum('port_range_max'),
    remote_ip_prefix: nullableStr('remote_ip_prefix'),
    remote_group_id: nullableStr('remote_group_id'),
    ...(typeof rule.description === 'string' ? { description: rule.description } : {}),
  } as const;
};

/** `workloadCluster.createSecurityGroup {subject, name, description, tags}`: the group, then its tags. */
export const createSecurityGroupHandler = (s: ClusterEffectSession): EffectHandler =>
  answering({
    service: 'Neutron', del: false, what: 'the security-group create',
    run: async (effect, context) => {
      const tags = strings(effect, 'tags');
      const created = await s.neutron.createSecurityGroup({ name: str(effect, 'name'), description: typeof effect.description === 'string' ? effect.description : '' });
      await tagCreated(s.neutron, 'security-groups', created.id, tags, effect, context);
      return { ids: { id: created.id } };
    },
  });

/** `workloadCluster.createSecurityGroupRule {subject, rule}`: one rule; Neutron's 409 SecurityGroupRuleExists is `conflict`. */
export const createSecurityGroupRuleHandler = (s: ClusterEffectSession): EffectHandler =>
  answering({
    service: 'Neutron', del: false, what: 'the security-group rule create',
    run: async (effect) => {
      const created = await s.neutron.createSecurityGroupRule(ruleBody(record(effect, 'rule')));
      return { ids: { id: created.id } };
    },
  });

/** `workloadCluster.createServerGroup {subject, name, policy}`: 2.64+ `policy` (compute is pinned at 2.90); not tagged. */
export const createServerGroupHandler = (s: ClusterEffectSession): EffectHandler =>
  answering({
    service: 'Nova', del: false, what: 'the server-group create',
    run: async (effect) => {
      const policy = str(effect, 'policy');
      if (!POLICIES.includes(policy)) throw new RegentRefusal('invalidEffect', 'effect parameter policy is not a Nova server-group policy');
      const created = await s.nova.createServerGroup(str(effect, 'name'), policy as ServerGroupPolicy);
      return { ids: { id: created.id } };
    },
  });

/** `workloadCluster.deleteSecurityGroup {subject, id}`: 404 is done, 409 (in use) `conflict`. */
export const deleteSecurityGroupHandler = (s: ClusterEffectSession): EffectHandler =>
  answering({ service: 'Neutron', del: true, what: 'the security-group delete', run: async (effect) => (await s.neutron.deleteSecurityGroup(str(effect, 'id')), undefined) });

/** `workloadCluster.deleteServerGroup {subject, id}`: 404 is done. */
export const deleteServerGroupHandler = (s: ClusterEffectSession): EffectHandler =>
  answering({ service: 'Nova', del: true, what: 'the server-group delete', run: async (effect) => (await s.nova.deleteServerGroup(str(effect, 'id')), undefined) });

/** Every WORKLOAD_CLUSTER_EFFECTS entry's handler, keyed by effect type, for the control plane's engine. */
export const workloadClusterHandlers = (session: ClusterEffectSession): Record<string, EffectHandler> => ({
  [WORKLOAD_CLUSTER_EFFECTS.createSecurityGroup]: createSecurityGroupHandler(session),
  [WORKLOAD_CLUSTER_EFFECTS.createSecurityGroupRule]: createSecurityGroupRuleHandler(session),
  [WORKLOAD_CLUSTER_EFFECTS.createServerGroup]: createServerGroupHandler(session),
  [WORKLOAD_CLUSTER_EFFECTS.deleteSecurityGroup]: deleteSecurityGroupHandler(session),
  [WORKLOAD_CLUSTER_EFFECTS.deleteServerGroup]: deleteServerGroupHandler(session),
});
