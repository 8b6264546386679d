/**
 * The control plane's side of the pinned create (src/controllers/server/pinned-create.ts): for a Server, its
 * Identity's Region — whether it asks Placement first, its required traits, its own Placement client — and
 * the region credentials bound to the identity's project (IdentitySessions.regionBoundTo).
 */
import type { ObjectOf, KindName } from '../../resources/index.js';
import type { RegionConnections } from '../../provider/regions/connections.js';
import { IdentityNotReady, type IdentitySessions } from '../../provider/identity/sessions.js';
import type { PinnedCreateContext } from './pinned-create.js';
import type { Scopes } from '../scopes.js';

export const pinnedCreateContext =
  (deps: { scopes: Scopes; sessions: IdentitySessions; connections: RegionConnections }) =>
  async (server: ObjectOf<KindName>): Promise<PinnedCreateContext> => {
    const scope = await deps.scopes.onNetwork(server);
    const namespace = scope.identity.metadata.namespace ?? 'default';
    const regionName = scope.identity.spec.regionRef.name;
    const connection = await deps.connections.region(namespace, regionName);
    if (!connection) throw new IdentityNotReady(`${namespace}/${scope.identity.metadata.name}`, `its Region ${regionName} does not exist`);
    const compute = connection.region.spec.openstack.compute;
    return {
      preflight: compute?.placementPreflight === true,
      requiredTraits: compute?.requiredTraits ?? [],
      placement: connection.session.placement,
      bind: () => deps.sessions.regionBoundTo(scope),
    };
  };
