/**
 * The workload cluster's parts by name, and the security group rules it wants (machines/workload-cluster.ts, WC6):
 * pure functions of the desired cluster and the observed subnet, shared by the machine, its audit and the tests.
 *
 * node group (`<name>-node`, every node): ingress, any protocol, from the node group itself (node-to-node).
 * control-plane group (`<name>-control-plane`, control-plane nodes, which are in the node group too):
 *   - tcp apiServerPort from the node subnet's CIDR: the hairpin (the amphora source-NATs every client to its own
 *     address on the node subnet, so a control-plane node reaching itself through the VIP arrives from the subnet);
 *   - tcp apiServerPort from the node group;
 *   - with rke2, the same two for the supervisor port 9345.
 * The ethertype is the subnet's (4 → IPv4, 6 → IPv6). Neutron's default egress rules of a new group are not ours
 * and never drift (only ingress rules are compared).
 */
import type { DesiredCluster, ObservedRule, RuleParams } from './observation.js';

/** The RKE2 supervisor's port (openstack-cluster-modules.md, "API endpoint"). */
export const RKE2_SUPERVISOR_PORT = 9345;

export type GroupRole = 'controlPlane' | 'node';
export const GROUP_ROLES: readonly GroupRole[] = ['node', 'controlPlane'];

export const controlPlaneGroupName = (clusterName: string): string => `${clusterName}-control-plane`;
export const nodeGroupName = (clusterName: string): string => `${clusterName}-node`;
export const serverGroupName = (clusterName: string): string => `${clusterName}-control-plane`;
export const groupName = (clusterName: string, role: GroupRole): string => (role === 'node' ? nodeGroupName(clusterName) : controlPlaneGroupName(clusterName));

/** The description a group is created with: which cluster, which role. */
export const groupDescription = (clusterName: string, role: GroupRole): string =>
  role === 'node' ? `Regent workload cluster ${clusterName}: every node` : `Regent workload cluster ${clusterName}: control-plane nodes`;

/** The subnet as the rules read it. */
export interface RuleSubnet {
  cidr: string;
  ipVersion: 4 | 6;
}

/** One wanted rule: the group it belongs to and Neutron's create body. */
export interface WantedRule {
  group: GroupRole;
  rule: RuleParams;
}

/** WC6: every rule the two groups want, given their Neutron ids. */
export const clusterRules = (desired: Pick<DesiredCluster, 'apiServerPort' | 'distribution'>, subnet: RuleSubnet, ids: { controlPlane: string; node: string }): WantedRule[] => {
  const ethertype = subnet.ipVersion === 6 ? ('IPv6' as const) : ('IPv4' as const);
  const base = { direction: 'ingress' as const, ethertype, remote_ip_prefix: null, remote_group_id: null };
  const tcp = (port: number) => ({ protocol: 'tcp', port_range_min: port, port_range_max: port });
  const ports: Array<[number, string]> = [[desired.apiServerPort, 'kube-apiserver']];
  if (desired.distribution === 'rke2') ports.push([RKE2_SUPERVISOR_PORT, 'rke2 supervisor']);
  const out: WantedRule[] = [
    { group: 'node', rule: { ...base, security_group_id: ids.node, protocol: null, port_range_min: null, port_range_max: null, remote_group_id: ids.node, description: 'node to node: any protocol from the node group' } },
  ];
  for (const [port, what] of ports) {
    out.push({ group: 'controlPlane', rule: { ...base, security_group_id: ids.controlPlane, ...tcp(port), remote_ip_prefix: subnet.cidr, description: `${what} from the node subnet (hairpin through the load balancer)` } });
    out.push({ group: 'controlPlane', rule: { ...base, security_group_id: ids.controlPlane, ...tcp(port), remote_group_id: ids.node, description: `${what} from the node group` } });
  }
  return out;
};

/** Neutron reports "any protocol" as null; some deployments say 'any'. */
const protocolOf = (protocol: string | null): string | null => (protocol === null || protocol === 'any' ? null : protocol.toLowerCase());

/** WC6: an observed rule is the wanted one (direction, ethertype, protocol, ports, remote prefix, remote group). */
export const ruleMatches = (wanted: RuleParams, observed: ObservedRule): boolean =>
  observed.direction === wanted.direction &&
  observed.ethertype === wanted.ethertype &&
  protocolOf(observed.protocol) === protocolOf(wanted.protocol) &&
  observed.portMin === wanted.port_range_min &&
  observed.portMax === wanted.port_range_max &&
  observed.remoteIpPrefix === wanted.remote_ip_prefix &&
  observed.remoteGroupId === wanted.remote_group_id;

/** The subject a rule's create names (and its answer echoes): the group's name and the rule in words. */
export const ruleSubject = (clusterName: string, wanted: WantedRule): string => {
  const r = wanted.rule;
  const ports = r.port_range_min === null ? 'any port' : r.port_range_min === r.port_range_max ? `port ${r.port_range_min}` : `ports ${r.port_range_min}-${r.port_range_max}`;
  const from = r.remote_group_id !== null ? `group ${r.remote_group_id === r.security_group_id ? 'self' : 'node'}` : (r.remote_ip_prefix ?? 'anywhere');
  return `${groupName(clusterName, wanted.group)} ${r.direction} ${r.ethertype} ${r.protocol ?? 'any'} ${ports} from ${from}`;
};
