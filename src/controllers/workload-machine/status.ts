/** A WorkloadMachine's status (docs/workload-cluster.md): its port, membership, server and image, as its streams recorded them. */
import { workloadMachineDefinition, workloadMachineStream } from '../../../machines/workload-machine.js';
import { serverRebuildDefinition, serverRebuildStream } from '../../../machines/server-rebuild.js';
import { renderWorkloadMachineResource } from '../../../projections/workload-machine-status.js';
import { isDeleting } from '../../kube/object.js';
import type { WorkloadMachine } from '../../resources/index.js';
import { latest, withScopeReachability, type StatusRenderer } from '../../status/renderer.js';

export const workloadMachineStatus: StatusRenderer = {
  ownedKeys: ['serverID', 'portID', 'address', 'imageID', 'pools'],
  render: async (env, object) => {
    const machine = object as WorkloadMachine;
    const uid = machine.metadata.uid;
    const own = await env.engine.load(workloadMachineDefinition, workloadMachineStream(uid));
    const serverId = own.context.serverId;
    const rebuild = serverId ? await env.engine.load(serverRebuildDefinition, serverRebuildStream(serverId)) : undefined;
    const at = latest(own.last?.metadata.recordedAt, rebuild?.last?.metadata.recordedAt) ?? env.now();
    const status = renderWorkloadMachineResource({
      machine: own.revision === undefined ? undefined : { state: own.state, context: own.context },
      rebuild: rebuild && rebuild.revision !== undefined ? { marker: rebuild.context.marker } : undefined,
      role: machine.spec.role,
      desiredImageId: null,
      generation: machine.metadata.generation ?? 1,
      deleting: isDeleting(machine),
      at,
      previous: machine.status as never,
    });
    return (await withScopeReachability(env, uid, status, { what: 'Nova server', at, previous: machine.status })) as unknown as Record<string, unknown>;
  },
};
