/** A WorkloadMachine's status (docs/workload-cluster.md): its port, membership, server and image, as its streams recorded them. */
import { workloadMachineDefinition, workloadMachineStream } from '../../../machines/workload-machine.js';
import { serverRebuildDefinition, serverRebuildStream } from '../../../machines/server-rebuild.js';
import { renderWorkloadMachineResource } from '../../../projections/workload-machine-status.js';
import { isDeleting } from '../../kube/object.js';
import type { WorkloadMachine } from '../../resources/index.js';
import { latest, withScopeReachability, type StatusRenderer } from '../../status/renderer.js';

/**
 * The image the current spec asks for: its id when the spec names one; by name, the id the last pass resolved (a new
 * generation is always stored, so its reconcile event carries it). Without it an image change would read ImageReady
 * between the pass that decided the new generation and the rebuild's arm.
 */
export const desiredImageOf = (machine: WorkloadMachine, last: unknown): string | null => {
  if (machine.spec.image.id !== undefined) return machine.spec.image.id;
  const pass = last as { type?: string; desired?: { imageId?: string | null } | null } | undefined;
  return pass?.type === 'reconcile' ? (pass.desired?.imageId ?? null) : null;
};

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
      desiredImageId: desiredImageOf(machine, own.last?.data),
      generation: machine.metadata.generation ?? 1,
      deleting: isDeleting(machine),
      at,
      previous: machine.status as never,
    });
    return (await withScopeReachability(env, uid, status, { what: 'Nova server', at, previous: machine.status })) as unknown as Record<string, unknown>;
  },
};
