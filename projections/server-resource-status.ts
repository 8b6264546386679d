/**
 * A Server resource's whole status: the lifecycle (creating, deleting, refused spec) and, once the
 * Nova server exists, the rebuild and health view of projections/server-status.ts.
 */
import type { ServerRebuildContext } from '../machines/server-rebuild.js';
import { mergeConditions } from './conditions.js';
import { lifecycleAvailability, type LifecycleView } from './lifecycle-status.js';
import { observedCondition, renderServerStatus, specRealized, type ServerStatus } from './server-status.js';
import type { UnrealizedField } from './server-unrealized.js';
import { PROVIDER_CREATE_GATE_RECHECK_MS } from './server-create-gates.js';
import type { ServerVolumeRow, ServerVolumesView } from './server-volumes.js';

export interface ServerResourceStatus extends Omit<ServerStatus, 'provisioningStatus'> {
  provisioningStatus: ServerStatus['provisioningStatus'] | 'pending' | 'deprovisioning';
  serverID?: string;
  volumes?: ServerVolumeRow[];
}

export const renderServerResource = (input: {
  lifecycle: LifecycleView | undefined;
  rebuild: ServerRebuildContext | undefined;
  /** The object's current generation. */
  generation: number;
  /** Spec fields Regent does not act on yet (projections/server-unrealized.ts). */
  unrealized?: readonly UnrealizedField[];
  /** The volume pairs (projections/server-volumes.ts); omitted: the volumes are not rendered. */
  volumes?: ServerVolumesView;
  at: string;
  previous?: ServerResourceStatus;
}): ServerResourceStatus => (input.volumes ? withVolumes(renderServer(input), input.volumes, input.previous, input.at) : renderServer(input));

/**
 * Adds status.volumes and VolumesAttached; Available is not True while a listed volume is not attached
 * (reason VolumesNotAttached, saying which), as for any other spec field Regent has not realized.
 */
const withVolumes = (status: ServerResourceStatus, volumes: ServerVolumesView, previous: ServerResourceStatus | undefined, at: string): ServerResourceStatus => {
  const conditions = status.conditions.map((c) => {
    if (c.type !== 'Available' || c.status !== 'True' || volumes.condition.status === 'True') return c;
    return mergeConditions(previous?.conditions, [{ type: 'Available', status: 'False', reason: 'VolumesNotAttached', message: `the server runs, but its volumes are not all attached: ${volumes.condition.message}` }], c.observedGeneration, at)[0] ?? c;
  });
  conditions.push(...mergeConditions(previous?.conditions, [volumes.condition], status.observedGeneration, at));
  const out: ServerResourceStatus = { ...status, conditions };
  if (volumes.rows.length > 0) out.volumes = volumes.rows;
  else delete out.volumes;
  return out;
};

/**
 * ProviderCreateGatesPending (src/controllers/server/create-gates.ts): a wait, not an error — the create goes
 * once every gate is satisfied. Available=False naming the remaining gates; provisioningStatus provisioning.
 */
const gatesPending = (lifecycle: LifecycleView | undefined): ReturnType<typeof lifecycleAvailability> => {
  const unresolvable = lifecycle?.context.unresolvable;
  if (lifecycle?.context.specProblems || unresolvable?.reason !== 'ProviderCreateGatesPending') return undefined;
  const message = `waiting for provider-create gates before the Nova create (re-checked every ${PROVIDER_CREATE_GATE_RECHECK_MS / 1000} s): ${unresolvable.message}`;
  return { available: { type: 'Available', status: 'False', reason: 'ProviderCreateGatesPending', message }, provisioningStatus: 'provisioning' };
};

const phaseWithoutNovaServer = (provisioning: string | undefined): string => (provisioning === 'error' ? 'Error' : provisioning === 'deprovisioning' ? 'Deleting' : 'Pending');

const renderServer = (input: Parameters<typeof renderServerResource>[0]): ServerResourceStatus => {
  const { lifecycle, rebuild, generation, at, previous } = input;
  const unrealized = input.unrealized ?? [];
  const serverID = lifecycle?.context.resourceId ?? undefined;
  const early = gatesPending(lifecycle) ?? lifecycleAvailability(lifecycle, 'Nova server');
  // The generation a pass last decided from: the image pass runs after the lifecycle pass of the same
  // Server pass, so once the server exists its record is the later one.
  const lifecycleDecided = lifecycle?.context.decidedGeneration ?? null;
  if (early === undefined && rebuild) {
    const decidedGeneration = rebuild.decidedGeneration ?? lifecycleDecided;
    const bootedByPass = serverID !== undefined && (lifecycle?.context.bootedIds ?? []).includes(serverID);
    const status: ServerResourceStatus = renderServerStatus({ context: rebuild, generation, decidedGeneration, unrealized, at, previous: previous as ServerStatus | undefined, ...(bootedByPass ? { bootedByPass } : {}) });
    if (serverID) status.serverID = serverID;
    return status;
  }
  const observedGeneration = lifecycleDecided ?? 0;
  const status: ServerResourceStatus = {
    observedGeneration,
    // the phase agrees with provisioningStatus: a server that failed before Nova had one (ImageNotFound, a refused
    // create) is in Error, not Pending; one being deleted is Deleting (issue 24, item 5)
    phase: rebuild?.health?.phase ?? phaseWithoutNovaServer(early?.provisioningStatus),
    provisioningStatus: early?.provisioningStatus ?? 'provisioning',
    conditions: mergeConditions(
      previous?.conditions,
      [
        early?.available ?? { type: 'Available', status: 'False', reason: 'Provisioning', message: 'waiting for the first observation' },
        // a server that exists keeps its observed health while the lifecycle explains what is wrong
        observedCondition('Healthy', rebuild),
        observedCondition('Active', rebuild),
        specRealized(unrealized),
      ],
      observedGeneration,
      at,
    ),
  };
  if (serverID) status.serverID = serverID;
  return status;
};
