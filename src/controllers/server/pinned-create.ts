/**
 * The pinned create (Server `spec.infrastructureRef`; openstack-provider.md: "pinned server creation is one
 * of those privileged project-scoped operations: it still targets the identity project, but uses
 * region-level credentials so Nova policy can authorise the requested destination"; "pinned server creation
 * can also enable a transient openstack.compute.placementPreflight check … A miss yields and lets the
 * controller retry").
 *
 * Decided in the pass, before the create is: what the create sends (`host`, at compute microversion ≥ 2.74,
 * which the session's pinned microversion guarantees) and whether it may be sent yet. Two things stop it,
 * each recorded for status as an unresolvable desired request (L9) and re-checked every 30 s:
 * - PinnedCreateUnavailable: the region credentials cannot be bound to the identity's project (an
 *   application credential), or the pinned host names no Placement resource provider when the preflight
 *   needs one;
 * - PlacementPreflightMiss (only with `placementPreflight`): the pinned provider lacks inventory for the
 *   flavor's positive `resources:CUSTOM_*` extra specs, or its traits do not satisfy the flavor's `trait:*`
 *   extra specs unioned with the Region's requiredTraits (src/provider/inventory/placement-preflight.ts).
 * The preflight is asked only while nothing is created yet: once Nova has the server it is not a gate.
 * Placement is read with the Region's own session (an infrastructure read, like Ironic's).
 */
import type { NovaClient } from '../../openstack/nova/index.js';
import type { PlacementClient } from '../../openstack/placement.js';
import { NotFound } from '../../openstack/errors.js';
import type { InfrastructureRef } from '../../resources/server.js';
import { DesiredUnresolvable } from '../../provider/errors.js';
import { preflightPinnedProvider, preflightRequest } from '../../provider/inventory/placement-preflight.js';

export interface PinnedCreateContext {
  /** Whether the Region asks Placement first (`openstack.compute.placementPreflight`). */
  preflight: boolean;
  /** The Region's `openstack.compute.requiredTraits`. */
  requiredTraits: readonly string[];
  /** The Region's own Placement client. */
  placement: Pick<PlacementClient, 'listAllocationCandidates' | 'getProviderTraits' | 'findResourceProviderByName'>;
  /** Resolves the region credentials bound to the identity's project; throws when they cannot be. */
  bind: () => Promise<unknown>;
}

/** What a pinned create adds to the desired request. */
export interface PinnedDestination {
  host: string;
}

const unavailable = (message: string) => new DesiredUnresolvable('PinnedCreateUnavailable', message);

/** The pinned provider's Placement uuid: named on the spec, else the resource provider named like the host. */
const providerOf = async (placement: PinnedCreateContext['placement'], ref: InfrastructureRef): Promise<string> => {
  if (ref.resourceProviderID !== undefined) return ref.resourceProviderID;
  try {
    return (await placement.findResourceProviderByName(ref.host)).uuid;
  } catch (error) {
    if (error instanceof NotFound) throw unavailable(`Placement has no resource provider named ${ref.host}: set spec.infrastructureRef.resourceProviderID`);
    throw error;
  }
};

/**
 * The destination of a pinned create that has not happened yet, after the bound credentials and (when the
 * Region asks for it) Placement agreed; throws DesiredUnresolvable otherwise.
 */
export const pinnedDestination = async (
  context: PinnedCreateContext,
  nova: Pick<NovaClient, 'getFlavorExtraSpecs'>,
  ref: InfrastructureRef,
  flavorId: string,
): Promise<PinnedDestination> => {
  try {
    await context.bind();
  } catch (error) {
    if (error instanceof Error && error.name === 'BoundCredentialsUnavailable') throw unavailable(error.message);
    throw error;
  }
  if (context.preflight) {
    const provider = await providerOf(context.placement, ref);
    const request = preflightRequest(await nova.getFlavorExtraSpecs(flavorId), context.requiredTraits);
    const result = await preflightPinnedProvider(context.placement, provider, request);
    if (!result.fits) throw new DesiredUnresolvable('PlacementPreflightMiss', `pinned host ${ref.host}: ${result.why}`);
  }
  return { host: ref.host };
};
