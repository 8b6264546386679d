/**
 * Which BUILD servers the monitor asks Ironic about, and how (openstack-provider.md, "Baremetal server
 * progress uses Ironic as an additional provider truth source only while Nova reports BUILD for a flavor
 * marked baremetal in region configuration"):
 * - only a flavor listed in its Region's `spec.openstack.compute.baremetalFlavorIDs`: a virtual flavor never
 *   calls Ironic (a Server naming its flavor by name is resolved to the id once, then remembered);
 * - the node is looked up by instance_uuid with the Region's own credentials (its top-level provider
 *   credentials, scoped to the service principal's project), never the Identity's: Ironic node visibility is
 *   infrastructure, not a tenant operation;
 * - no node bound to the instance yet is Queued; otherwise the provision state decides
 *   (src/provider/inventory/baremetal-progress.ts), an unreadable one being Building.
 * Failures are thrown: the monitor logs them and falls back to Building.
 */
import type { OpenStackSession } from '../../openstack/session.js';
import { baremetalProgress, type BaremetalProgress } from '../../provider/inventory/baremetal-progress.js';
import { resolveFlavorId } from '../../provider/servers.js';

export interface BaremetalServer {
  /** The Server's spec.flavor: by Nova id or by exact name. */
  flavor: { id?: string; name?: string };
}

export interface BaremetalRegion {
  /** The Region resource's uid (the flavor-name cache is per Region). */
  uid: string;
  baremetalFlavorIDs: readonly string[];
  /** The Region's own session (its credentials), for Ironic and for resolving a flavor name. */
  session: Pick<OpenStackSession, 'ironic' | 'nova'>;
}

export interface BaremetalLookupDeps {
  /** The Server resource behind a Nova server id; undefined when this control plane does not know it. */
  serverOf: (serverId: string) => BaremetalServer | undefined;
  /** The Region the Server works in (its Network's Identity's); undefined when it cannot be told. */
  regionOf: (serverId: string) => Promise<BaremetalRegion | undefined>;
}

/** `(serverId) → Queued | Building | undefined` (undefined: not a baremetal flavor; nothing was asked). */
export const baremetalProgressLookup = (deps: BaremetalLookupDeps) => {
  const flavorIds = new Map<string, string>();
  return async (serverId: string): Promise<BaremetalProgress | undefined> => {
    const server = deps.serverOf(serverId);
    if (!server) return undefined;
    const region = await deps.regionOf(serverId);
    if (!region || region.baremetalFlavorIDs.length === 0) return undefined;
    let flavorId = server.flavor.id;
    if (flavorId === undefined && server.flavor.name !== undefined) {
      const key = `${region.uid}/${server.flavor.name}`;
      flavorId = flavorIds.get(key) ?? (await resolveFlavorId(region.session, { name: server.flavor.name }));
      flavorIds.set(key, flavorId);
    }
    if (flavorId === undefined || !region.baremetalFlavorIDs.includes(flavorId)) return undefined;
    const node = await region.session.ironic.findNodeByInstance(serverId);
    if (!node) return baremetalProgress(undefined);
    return node.provisionState.kind === 'value' ? baremetalProgress(node.provisionState.value) : 'Building';
  };
};
