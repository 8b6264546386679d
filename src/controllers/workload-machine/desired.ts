/**
 * A WorkloadMachine's desired node, from its spec and its cluster's exports (pure; openstack-cluster-modules.md, the
 * machine role): the port on the cluster's subnet with the node security groups and allowed address pairs, the server
 * on that port (in the control-plane server group for the control plane), its tags and metadata, and — for the
 * control plane — the API pools it must be a member of before it boots.
 */
import { createHash } from 'node:crypto';
import type { ClusterExports, WorkloadCluster, WorkloadMachine } from '../../resources/index.js';
import type { DesiredMachine } from '../../../machines/workload-machine/observation.js';
import { renderTags, type RenderedTags } from '../../../machines/workload-cluster/tags.js';
import { clusterTags } from '../workload-cluster/desired.js';

/** The metadata key that marks a Nova server as this WorkloadMachine's (a server of the same name without it is foreign). */
export const UID_METADATA_KEY = 'regent.dev:uid';

export const machinePortName = (uid: string): string => `wm-${uid}`;

export const userDataDigest = (userData: string | undefined): string | null =>
  userData === undefined ? null : createHash('sha256').update(userData, 'utf8').digest('hex');

/** The cluster's tags, then the machine's role and name, then its additional tags (unmapped keys). */
export const machineTagPairs = (cluster: Pick<WorkloadCluster, 'metadata' | 'spec'>, machine: Pick<WorkloadMachine, 'metadata' | 'spec'>) => [
  ...clusterTags(cluster),
  { key: 'captf.io/role', value: machine.spec.role === 'ControlPlane' ? 'control-plane' : 'worker' },
  { key: 'captf.io/machine', value: machine.metadata.name },
  ...Object.entries(machine.spec.additionalTags ?? {}).map(([key, value]) => ({ key, value })),
];

export const machineTags = (cluster: Pick<WorkloadCluster, 'metadata' | 'spec'>, machine: Pick<WorkloadMachine, 'metadata' | 'spec'>): RenderedTags =>
  renderTags(machineTagPairs(cluster, machine));

export interface MachineInputs {
  machine: Pick<WorkloadMachine, 'metadata' | 'spec'>;
  exports: ClusterExports;
  tags: Extract<RenderedTags, { ok: true }>;
  imageId: string | null;
  flavorId: string | null;
}

export const desiredMachine = ({ machine, exports, tags, imageId, flavorId }: MachineInputs): DesiredMachine => {
  const controlPlane = machine.spec.role === 'ControlPlane';
  const pools = controlPlane && exports.api
    ? [
        { name: 'kube_apiserver', poolId: exports.api.pools.kube_apiserver.id, port: exports.api.pools.kube_apiserver.port },
        ...(exports.api.pools.rke2_supervisor ? [{ name: 'rke2_supervisor', poolId: exports.api.pools.rke2_supervisor.id, port: exports.api.pools.rke2_supervisor.port }] : []),
      ]
    : [];
  return {
    name: machine.metadata.name,
    portName: machinePortName(machine.metadata.uid),
    uid: machine.metadata.uid,
    role: controlPlane ? 'controlPlane' : 'worker',
    networkId: exports.network_id,
    subnetId: exports.subnet_id,
    securityGroupIds: [...(controlPlane ? exports.security_group_ids.control_plane : exports.security_group_ids.worker)],
    allowedAddressCIDRs: [...exports.node_allowed_address_cidrs],
    imageId,
    flavorId,
    userDataDigest: userDataDigest(machine.spec.userData),
    availabilityZone: machine.spec.availabilityZone ?? null,
    serverGroupId: controlPlane ? exports.control_plane_server_group_id : null,
    tags: [...tags.tags],
    metadata: { ...tags.metadata, [UID_METADATA_KEY]: machine.metadata.uid },
    pools,
  };
};
