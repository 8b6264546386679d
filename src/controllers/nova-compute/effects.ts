/**
 * The calls the pool machine (machines/nova-compute-pool.ts) decides, run by the engine only after the deciding
 * event is stored, each answering with a result stimulus:
 *   novaCompute.disableService {node, serviceId} → PUT /os-services/{id} disabled at 2.69 → `serviceDisabled`
 *   novaCompute.deleteService  {node, serviceId} → DELETE /os-services/{id} at 2.69 (404: gone) → `serviceDeleted`
 *   placement.deleteTrait      {trait}           → DELETE /traits/{name} at 1.6 → `traitDeleted` (deleted, absent,
 *                                                   inUse: TraitKept; failed: kept for the next pass)
 * They run with the pass's client (one token per pass): the pass registers it under the pool's stream while it runs
 * (`withPassClient`). An effect decided outside a pass has no client and throws: the outcome is unknown, and the next
 * pass decides again from what it observes.
 */
import type { EffectHandler } from '../../engine/engine.js';
import type { Logger } from '../../log/logger.js';
import type { ComputeApi } from '../../nova/compute/compute-api.js';

const clients = new Map<string, () => Promise<ComputeApi>>();

/** Runs `body` with the pass's client registered for the pool's stream. */
export const withPassClient = async <T>(stream: string, client: () => Promise<ComputeApi>, body: () => Promise<T>): Promise<T> => {
  clients.set(stream, client);
  try {
    return await body();
  } finally {
    clients.delete(stream);
  }
};

const clientFor = async (stream: string): Promise<ComputeApi> => {
  const client = clients.get(stream);
  if (!client) throw new Error(`no pass of the pool owning ${stream} is running: the call is decided again by the next pass`);
  return client();
};

export const novaComputeEffectHandlers = (deps: { logger: Logger }): Record<string, EffectHandler> => ({
  'novaCompute.disableService': async (effect, context) => {
    const { node, serviceId } = effect as unknown as { node: string; serviceId: string };
    try {
      await (await clientFor(context.stream)).disableService(serviceId, `node ${node} left its NovaCompute pool: drained by Regent`);
      return { type: 'serviceDisabled', node, ok: true, message: `the nova-compute service of ${node} was disabled` };
    } catch (error) {
      deps.logger.warn('disabling a nova-compute service failed', { node, error: (error as Error).message });
      return { type: 'serviceDisabled', node, ok: false, message: (error as Error).message };
    }
  },
  'novaCompute.deleteService': async (effect, context) => {
    const { node, serviceId } = effect as unknown as { node: string; serviceId: string };
    try {
      await (await clientFor(context.stream)).deleteService(serviceId);
      return { type: 'serviceDeleted', node, ok: true, message: `the nova-compute service of ${node} was deleted` };
    } catch (error) {
      deps.logger.warn('deleting a nova-compute service failed', { node, error: (error as Error).message });
      return { type: 'serviceDeleted', node, ok: false, message: (error as Error).message };
    }
  },
  'placement.deleteTrait': async (effect, context) => {
    const { trait } = effect as unknown as { trait: string };
    try {
      const outcome = await (await clientFor(context.stream)).deleteTrait(trait);
      return { type: 'traitDeleted', trait, outcome, message: outcome === 'inUse' ? `Placement refused to delete ${trait}: a resource provider carries it (TraitKept)` : `the trait ${trait} was ${outcome}` };
    } catch (error) {
      return { type: 'traitDeleted', trait, outcome: 'failed', message: (error as Error).message };
    }
  },
});
