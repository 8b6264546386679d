/**
 * A WorkloadCluster's exports, schema `captf.io/openstack-cluster/v1` (openstack-cluster-modules.md, "Exports"),
 * from what its two streams recorded: the workload-cluster machine (security groups, server group, subnet, zones)
 * and the API load balancer's topology (pools, VIP, floating IP). Pure: the status renderer and the controller (which
 * publishes the ConfigMap the machines read) call the same function, so both always say the same.
 *
 * Nothing is exported that was not observed: until the security groups exist, the subnet was seen and — for a load
 * balancer endpoint — the load balancer is provisioned with a usable endpoint and every pool, the exports are
 * `null` (a machine waits for them), never a partial object.
 */
import type { ClusterExports } from '../src/resources/workload-cluster.js';
import type { LoadBalancerContext } from '../machines/load-balancer.js';
import type { WorkloadClusterContext } from '../machines/workload-cluster.js';

export const EXPORTS_SCHEMA = 'captf.io/openstack-cluster/v1';

export interface ExportsInput {
  region: string;
  spec: {
    distribution?: 'kubeadm' | 'rke2';
    providerIDFormat?: 'default' | 'regional';
    nodeAllowedAddressCIDRs?: readonly string[];
    controlPlaneEndpoint?: { host: string; port: number };
  };
  cluster: Pick<WorkloadClusterContext, 'securityGroupIds' | 'serverGroupId' | 'subnet' | 'availabilityZones' | 'guard'> | undefined;
  /** The load-balancer machine's state and context; undefined with a supplied endpoint or before its first pass. */
  loadBalancer: { state: string; context: LoadBalancerContext } | undefined;
  /** The listener names of the kube-apiserver and rke2-supervisor pools. */
  listeners: { kubeApiserver: string; rke2Supervisor: string };
  rke2SupervisorPort: number;
}

/** The endpoint a load balancer publishes: the floating IP when public, else the VIP (both only when usable). */
export const loadBalancerEndpointHost = (lb: LoadBalancerContext, wantsPublic: boolean): string | null => {
  const seen = lb.observed;
  if (!seen?.endpointUsable) return null;
  return wantsPublic ? (seen.floatingIP?.address ?? null) : seen.vipAddress;
};

export const clusterExports = (input: ExportsInput): ClusterExports | null => {
  const c = input.cluster;
  if (!c?.subnet || !c.securityGroupIds?.controlPlane || !c.securityGroupIds.node || !c.guard) return null;
  const distribution = input.spec.distribution ?? 'kubeadm';
  let api: ClusterExports['api'] = null;
  if (!input.spec.controlPlaneEndpoint) {
    const lb = input.loadBalancer;
    if (!lb || lb.state !== 'provisioned') return null;
    const host = loadBalancerEndpointHost(lb.context, c.guard.public);
    const pool = (name: string) => lb.context.listeners.find((l) => l.name === name)?.poolId ?? null;
    const kube = pool(input.listeners.kubeApiserver);
    const rke2 = distribution === 'rke2' ? pool(input.listeners.rke2Supervisor) : null;
    if (!host || !kube || (distribution === 'rke2' && !rke2)) return null;
    api = {
      host,
      port: c.guard.apiServerPort,
      pools: {
        kube_apiserver: { id: kube, port: c.guard.apiServerPort },
        rke2_supervisor: rke2 ? { id: rke2, port: input.rke2SupervisorPort } : null,
      },
    };
  }
  return {
    schema: EXPORTS_SCHEMA,
    region: input.region,
    network_id: c.subnet.networkId,
    subnet_id: c.subnet.id,
    failure_domains: Object.fromEntries([...c.availabilityZones].sort().map((zone) => [zone, {}])),
    distribution,
    provider_id_format: input.spec.providerIDFormat ?? 'default',
    security_group_ids: { control_plane: [c.securityGroupIds.controlPlane, c.securityGroupIds.node], worker: [c.securityGroupIds.node] },
    control_plane_server_group_id: c.serverGroupId ?? null,
    node_allowed_address_cidrs: [...(input.spec.nodeAllowedAddressCIDRs ?? [])],
    api,
  } as ClusterExports;
};
