/**
 * The controller side of provider-create gates (server-api.md: "create can carry immutable
 * providerCreateGates"; "internal service callers can satisfy an existing provider-create gate through POST
 * /api/v2/servers/{serverID}/provider-create-gates"; issue 17: "the server is created in Nova only once every
 * gate is satisfied").
 *
 * Decided in the pass, before the create is, like the pinned create's preflight (./pinned-create.ts):
 * - while the lifecycle has decided no create yet (state `absent`, no Nova id) and a gate the spec declares is
 *   not satisfied in the stored status (status.providerCreateGates, written by the API), the desired request
 *   is unresolvable: ProviderCreateGatesPending naming the remaining gates (and who satisfied the others),
 *   recorded as the lifecycle's `desiredUnresolvable` event (L9) — a new event each time the set changes —
 *   and nothing is sent to Nova;
 * - once every gate is satisfied, the create decision (`createSubmitted`) carries who satisfied each gate
 *   and when (`desired.providerCreateGates`: name, actor, satisfiedAt; never the free-text reason or
 *   message), so the history shows why the create waited and when it went;
 * - gates are create-time: a server the lifecycle has created, adopted or decided to create is never held
 *   back by them (a lost status record does not stop a recreate or delete).
 * Noticing a satisfied gate: the API's write is a status-only change, which does not bump the generation;
 * the pass re-checks every PROVIDER_CREATE_GATE_RECHECK_MS while gates are pending, and the control plane
 * may wake the Server at once on a change of its gate records (docs/server.md "Provider-create gates").
 */
import type { LifecycleContext } from '../../../machines/lifecycle.js';
import type { Server } from '../../resources/index.js';
import { DesiredUnresolvable } from '../../provider/errors.js';
import { createGatesPendingMessage, declaredCreateGates, remainingCreateGates, satisfiedCreateGates } from '../../../projections/server-create-gates.js';

export { PROVIDER_CREATE_GATE_RECHECK_MS } from '../../../projections/server-create-gates.js';

/** The lifecycle as the pass loaded it: its state and context. */
export interface LifecycleRecord {
  state: string;
  context: LifecycleContext;
}

/**
 * What the create request adds for the gates (who satisfied them), or throws ProviderCreateGatesPending.
 * A Server without gates, or one whose create was already decided, adds nothing and is never held.
 */
export const createGatesPassed = (server: Server, lifecycle: LifecycleRecord): { providerCreateGates?: ReturnType<typeof satisfiedCreateGates> } => {
  if (declaredCreateGates(server.spec).length === 0) return {};
  const decided = lifecycle.context.resourceId !== null || lifecycle.state !== 'absent';
  if (!decided && remainingCreateGates(server.spec, server.status).length > 0) {
    throw new DesiredUnresolvable('ProviderCreateGatesPending', createGatesPendingMessage(server.spec, server.status));
  }
  // the create decision records who satisfied them; a server with a Nova id adds nothing to its passes
  return lifecycle.context.resourceId === null ? { providerCreateGates: satisfiedCreateGates(server.spec, server.status) } : {};
};
