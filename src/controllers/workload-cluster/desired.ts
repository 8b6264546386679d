/**
 * A WorkloadCluster's desired state, normalized from its spec (pure; openstack-cluster-modules.md, "API endpoint",
 * "Tags"): the workload-cluster machine's `DesiredCluster`, and the API load balancer's topology for the
 * load-balancer machine (machines/load-balancer.ts) on the stream `load-balancer-<cluster uid>`.
 *
 * The endpoint's guarded fields (subnet, public flag, floating-IP pool, API server port) come from the guard the
 * machine RECORDED at creation, never from a later spec: a change is refused with a condition, never applied.
 */
import type { WorkloadCluster } from '../../resources/index.js';
import type { DesiredCluster, EndpointGuard, TagPair } from '../../../machines/workload-cluster/observation.js';
import type { DesiredListener, DesiredTopology } from '../../../machines/load-balancer/observation.js';
import { loadBalancerName } from '../../../machines/load-balancer/names.js';

/** The RKE2 supervisor's port (a second listener with distribution rke2). */
export const RKE2_SUPERVISOR_PORT = 9345;
/** Listener idle timeouts: one hour, so watches, `kubectl exec` and `logs -f` survive. */
export const API_IDLE_TIMEOUT_SECONDS = 3600;
/** The API pools' TCP health monitor. */
export const API_HEALTH_MONITOR = { delaySeconds: 10, timeoutSeconds: 5, maxRetries: 3 } as const;
/** The Octavia listener (and pool) names, and the export keys of their pools. */
export const API_LISTENERS = { kubeApiserver: 'kube-apiserver', rke2Supervisor: 'rke2-supervisor' } as const;

export const clusterPrefix = (uid: string): string => `wc-${uid}`;

/** The cluster's own tags (captf_tags), then the user's additional tags: unmapped keys (the machine maps them). */
export const clusterTags = (cluster: Pick<WorkloadCluster, 'metadata' | 'spec'>): TagPair[] => [
  { key: 'captf.io/cluster', value: cluster.metadata.name },
  { key: 'captf.io/namespace', value: cluster.metadata.namespace ?? 'default' },
  ...Object.entries(cluster.spec.additionalTags ?? {}).map(([key, value]) => ({ key, value })),
];

export const desiredCluster = (cluster: Pick<WorkloadCluster, 'metadata' | 'spec'>): DesiredCluster => {
  const spec = cluster.spec;
  const endpoint: DesiredCluster['endpoint'] = spec.controlPlaneEndpoint
    ? { kind: 'supplied', host: spec.controlPlaneEndpoint.host, port: spec.controlPlaneEndpoint.port }
    : {
        kind: 'loadBalancer',
        public: spec.apiEndpoint?.public === true,
        floatingIPPool: spec.apiEndpoint?.floatingIPPool ?? null,
        allowedCIDRs: [...(spec.apiEndpoint?.allowedCIDRs ?? [])],
        provider: spec.apiEndpoint?.cloudDefaultProvider === true ? null : (spec.apiEndpoint?.provider ?? 'amphora'),
      };
  return {
    name: clusterPrefix(cluster.metadata.uid),
    subnetId: spec.subnetID,
    apiServerPort: spec.apiServerPort ?? 6443,
    distribution: spec.distribution ?? 'kubeadm',
    endpoint,
    tags: clusterTags(cluster),
    serverGroupPolicy: spec.serverGroupPolicy === 'None' ? null : (spec.serverGroupPolicy ?? 'anti-affinity'),
  };
};

/**
 * The listeners' allowed CIDRs: the spec's, with the node subnet always added (the amphora source-NATs every client
 * to its own address on the node subnet, and a control-plane node must reach itself). No list restricts nothing.
 */
export const allowedCIDRsWithSubnet = (allowed: readonly string[], subnetCidr: string): string[] =>
  allowed.length === 0 ? [] : [...new Set([...allowed, subnetCidr])].sort();

export interface EndpointInputs {
  uid: string;
  desired: DesiredCluster;
  /** The guard the machine recorded at creation: the guarded fields come from here. */
  guard: EndpointGuard;
  subnetCidr: string;
  /** The floating-IP pool's external network id (resolved from the recorded pool), when public. */
  floatingNetworkId: string | null;
  /** The addresses of the control-plane machines that are to be members (their ports' fixed IPs, not being deleted). */
  memberAddresses: readonly string[];
  /** The rendered tags ("k=v"). */
  tags: readonly string[];
}

/** The API load balancer: one TCP listener per port with one-hour idle timeouts, a pool of the control plane each. */
export const endpointTopology = (input: EndpointInputs): DesiredTopology => {
  const endpoint = input.desired.endpoint;
  if (endpoint.kind !== 'loadBalancer') throw new Error('a supplied endpoint has no load balancer');
  const allowedCIDRs = allowedCIDRsWithSubnet(endpoint.allowedCIDRs, input.subnetCidr);
  const members = [...new Set(input.memberAddresses)].sort();
  const listener = (name: string, port: number): DesiredListener => ({
    name,
    protocol: 'TCP',
    port,
    allowedCIDRs,
    proxyProtocolV2: false,
    pool: { members: members.map((address) => ({ address, port })), healthMonitor: { ...API_HEALTH_MONITOR } },
    idleTimeouts: { clientDataSeconds: API_IDLE_TIMEOUT_SECONDS, memberDataSeconds: API_IDLE_TIMEOUT_SECONDS },
  });
  const listeners = [listener(API_LISTENERS.kubeApiserver, input.guard.apiServerPort)];
  if (input.desired.distribution === 'rke2') listeners.push(listener(API_LISTENERS.rke2Supervisor, RKE2_SUPERVISOR_PORT));
  return {
    name: loadBalancerName(input.uid),
    vipSubnetId: input.guard.subnetId,
    floatingIP: input.guard.public && input.floatingNetworkId ? { wanted: true, networkId: input.floatingNetworkId } : { wanted: false },
    listeners,
    tags: [...input.tags],
    provider: endpoint.provider,
  } as DesiredTopology;
};
