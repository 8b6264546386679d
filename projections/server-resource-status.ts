/**
 * A Server resource's whole status: the lifecycle (creating, deleting, refused spec) and, once the
 * Nova server exists, the rebuild and health view of projections/server-status.ts.
 */
import type { ServerRebuildContext } from '../machines/server-rebuild.js';
import { mergeConditions } from './conditions.js';
import { lifecycleAvailability, type LifecycleView } from './lifecycle-status.js';
import { renderServerStatus, type ServerStatus } from './server-status.js';

export interface ServerResourceStatus extends Omit<ServerStatus, 'provisioningStatus'> {
  provisioningStatus: ServerStatus['provisioningStatus'] | 'pending' | 'deprovisioning';
  serverID?: string;
}

export const renderServerResource = (input: {
  lifecycle: LifecycleView | undefined;
  rebuild: ServerRebuildContext | undefined;
  generation: number;
  at: string;
  previous?: ServerResourceStatus;
}): ServerResourceStatus => {
  const { lifecycle, rebuild, generation, at, previous } = input;
  const serverID = lifecycle?.context.resourceId ?? undefined;
  const early = lifecycleAvailability(lifecycle, 'Nova server');
  if (early === undefined && rebuild) {
    const status: ServerResourceStatus = renderServerStatus({ context: rebuild, generation, at, previous: previous as ServerStatus | undefined });
    if (serverID) status.serverID = serverID;
    return status;
  }
  const status: ServerResourceStatus = {
    observedGeneration: generation,
    phase: rebuild?.health?.phase ?? 'Pending',
    provisioningStatus: early?.provisioningStatus ?? 'provisioning',
    conditions: mergeConditions(
      previous?.conditions,
      [
        early?.available ?? { type: 'Available', status: 'False', reason: 'Provisioning', message: 'waiting for the first observation' },
        { type: 'Healthy', status: 'Unknown', reason: 'NotObserved', message: 'Nova has not been observed yet' },
        { type: 'Active', status: 'Unknown', reason: 'NotObserved', message: 'Nova has not been observed yet' },
      ],
      generation,
      at,
    ),
  };
  if (serverID) status.serverID = serverID;
  return status;
};
