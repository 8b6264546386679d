/**
 * One reconcile pass of a server's image (openstack-provider.md, reconcileServerImage): a fresh Nova
 * GET, then the machine decides in the spec's fixed order, the engine appends and runs the one
 * destructive effect if decided, and the last outcome becomes the pass's disposition.
 *
 * The pass authorises only from what it read on this GET (launched_at, image ref, task_state) and
 * from the marker as stored: never from the monitor's latches. While the stored marker is Initiated it
 * also reads Nova's instance-action record: the baseline a submission is decided on, and the evidence
 * an unanswered submission needs before anything is submitted again (machines/server-rebuild.ts U1–U4).
 */
import { contextOf, type Engine, type Decision } from '../../engine/engine.js';
import type { ServerObservation } from '../../openstack/decoders/server.js';
import { OpenStackError, RequestFailed, ServerError, Timeout, Cancelled } from '../../openstack/errors.js';
import type { Logger } from '../../log/logger.js';
import { describeError } from '../../log/logger.js';
import { serverFacts } from '../../provider/server-facts.js';
import { serverRebuildDefinition, serverRebuildStream } from '../../../machines/server-rebuild.js';
import type { RebuildActions } from '../../../machines/server-rebuild/stimuli.js';
import type { Disposition } from '../disposition.js';
import { dispositionFor } from './disposition.js';

/** What the pass reads from Nova. */
export interface ServerImageReads {
  getServer(serverId: string): Promise<ServerObservation>;
  listInstanceActions(serverId: string): Promise<ReadonlyArray<{ action: string; requestId: string }>>;
}

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

/**
 * The rebuild actions Nova recorded for the server. A refusal (policy, not found, an unreadable answer)
 * is recorded as "no evidence"; a transient failure (5xx, timeout, reset) fails the pass so it backs
 * off and reads again, rather than deciding on a gap.
 */
export const readRebuildActions = async (nova: Pick<ServerImageReads, 'listInstanceActions'>, serverId: string, logger: Logger): Promise<RebuildActions> => {
  try {
    const actions = await nova.listInstanceActions(serverId);
    return { kind: 'read', requestIds: actions.filter((a) => a.action === 'rebuild').map((a) => a.requestId) };
  } catch (error) {
    if (error instanceof ServerError || error instanceof Timeout || error instanceof RequestFailed || error instanceof Cancelled) throw error;
    logger.warn("nova's instance-action record is not readable; no evidence for the rebuild protocol", { serverId, ...describeError(error) });
    const why = error instanceof OpenStackError ? (error.status !== undefined ? `HTTP ${error.status}` : error.reason) : 'unreadable';
    return { kind: 'unreadable', why };
  }
};

export const reconcileServerImage = async (
  deps: { engine: Engine; nova: ServerImageReads; logger: Logger; now?: () => Date },
  pass: ServerImagePass,
): Promise<ServerImagePassResult> => {
  const now = deps.now ?? (() => new Date());
  const stream = serverRebuildStream(pass.serverId);
  const server = serverFacts(await deps.nova.getServer(pass.serverId));
  const standing = (await deps.engine.load(serverRebuildDefinition, stream)).context;
  const rebuildActions = standing.marker?.state === 'Initiated' ? await readRebuildActions(deps.nova, pass.serverId, deps.logger) : undefined;
  const at = now();
  const decisions = await deps.engine.dispatch(stream, {
    stimulus: {
      type: 'reconcile',
      source: 'reconciler',
      desiredImage: pass.desiredImage,
      server,
      at: at.toISOString(),
      ...(rebuildActions === undefined ? {} : { rebuildActions }),
      ...(pass.generation === undefined ? {} : { generation: pass.generation }),
    },
    actor: 'reconciler/server-image',
    ...(pass.correlationId === undefined ? {} : { correlationId: pass.correlationId }),
  });
  const last = decisions[decisions.length - 1];
  const context = last ? contextOf(serverRebuildDefinition, last.snapshot) : undefined;
  const disposition = dispositionFor(last?.outcome, { targetImageID: context?.marker?.targetImageID, outstanding: context?.outstanding ?? null, now: at });
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
