/**
 * One reconcile pass of a server's image (openstack-provider.md, reconcileServerImage): a fresh Nova
 * GET, then the machine decides in the spec's fixed order, the engine appends and runs the one
 * destructive effect if decided, and the last outcome becomes the pass's disposition.
 *
 * The pass authorises only from what it read on this GET (launched_at, image ref, task_state) and
 * from the marker as stored: never from the monitor's latches.
 */
import type { Engine, Decision } from '../../engine/engine.js';
import type { NovaClient } from '../../openstack/nova/index.js';
import type { Logger } from '../../log/logger.js';
import { serverFacts } from '../../provider/server-facts.js';
import { serverRebuildStream, type ServerRebuildContext } from '../../../machines/server-rebuild.js';
import type { Disposition } from '../disposition.js';
import { dispositionFor } from './disposition.js';

export interface ServerImagePass {
  serverId: string;
  desiredImage: string;
  generation?: number;
  correlationId?: string;
}

export interface ServerImagePassResult {
  disposition: Disposition;
  decisions: Decision[];
}

export const reconcileServerImage = async (
  deps: { engine: Engine; nova: Pick<NovaClient, 'getServer'>; logger: Logger },
  pass: ServerImagePass,
): Promise<ServerImagePassResult> => {
  const server = serverFacts(await deps.nova.getServer(pass.serverId));
  const decisions = await deps.engine.dispatch(serverRebuildStream(pass.serverId), {
    stimulus: { type: 'reconcile', source: 'reconciler', desiredImage: pass.desiredImage, server, ...(pass.generation === undefined ? {} : { generation: pass.generation }) },
    actor: 'reconciler/server-image',
    ...(pass.correlationId === undefined ? {} : { correlationId: pass.correlationId }),
  });
  const last = decisions[decisions.length - 1];
  const context = last?.snapshot.context as ServerRebuildContext | undefined;
  const disposition = dispositionFor(last?.outcome, { targetImageID: context?.marker?.targetImageID });
  const log = disposition.kind === 'park' || disposition.kind === 'fail' ? 'warn' : 'debug';
  deps.logger[log]('server image pass', {
    serverId: pass.serverId,
    outcomes: decisions.map((d) => d.outcome),
    stored: decisions.filter((d) => d.changed).map((d) => d.event?.type),
    disposition: disposition.kind,
    correlationId: last?.correlationId,
  });
  return { disposition, decisions };
};
