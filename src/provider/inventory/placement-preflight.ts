/**
 * The pinned-create Placement preflight (openstack-provider.md: "pinned server creation can also enable a
 * transient openstack.compute.placementPreflight check. When enabled, the provider asks OpenStack Placement
 * whether the pinned resource provider has available inventory for the flavor's positive custom resources:*
 * extra spec and any trait:* extra specs, unioned with configured requiredTraits. Required flavor traits are
 * sent as positive Placement required entries; forbidden flavor traits are sent as !TRAIT entries. Empty
 * trait inputs mean no trait filter. A miss yields and lets the controller retry.").
 *
 * Pure request building (`preflightRequest`) around one Placement question (`preflightPinnedProvider`):
 * - resources: every `resources:CUSTOM_*` extra spec with a positive integer amount (standard classes such as
 *   VCPU or a zeroed `resources:VCPU=0` are not this check's business: Nova's own claim covers them);
 * - traits: `trait:X=required` → required X, `trait:X=forbidden` → `!X`, every configured requiredTrait →
 *   required; other values are not traits Nova honours and are ignored; duplicates collapse;
 * - with custom resources: `GET /allocation_candidates?resources=…&required=…&in_tree=<provider>` at
 *   microversion 1.31 (the first with in_tree): the provider fits when a candidate allocates from it;
 * - with traits only: the provider's traits (`GET /resource_providers/{uuid}/traits`) must hold every
 *   required trait and none of the forbidden ones (allocation candidates cannot be asked without resources);
 * - with neither: nothing to ask; it fits;
 * - a trait both required and forbidden can never fit: a miss, decided without asking;
 * - Placement refusing the query (400: a trait or resource class it does not know) is a miss naming its answer.
 */
import type { PlacementClient } from '../../openstack/placement.js';
import { BadRequest } from '../../openstack/errors.js';

export interface PreflightRequest {
  resources: Record<string, number>;
  required: string[];
  forbidden: string[];
}

export type PreflightResult =
  | { fits: true; asked: 'allocationCandidates' | 'providerTraits' | 'nothing' }
  | { fits: false; asked: 'allocationCandidates' | 'providerTraits' | 'nothing'; why: string };

const CUSTOM_RESOURCE = /^resources(?:\d*|_[A-Za-z0-9_-]+)?:(CUSTOM_[A-Z0-9_]+)$/;
const TRAIT = /^trait(?:\d*|_[A-Za-z0-9_-]+)?:([A-Z0-9_]+)$/;

/** What the preflight asks for a flavor's extra specs and the Region's `requiredTraits`. */
export const preflightRequest = (extraSpecs: Readonly<Record<string, string>>, requiredTraits: readonly string[] = []): PreflightRequest => {
  const resources: Record<string, number> = {};
  const required = new Set<string>(requiredTraits);
  const forbidden = new Set<string>();
  for (const [key, value] of Object.entries(extraSpecs)) {
    const resource = CUSTOM_RESOURCE.exec(key);
    if (resource) {
      const amount = Number(value);
      if (Number.isInteger(amount) && amount > 0) resources[resource[1] as string] = (resources[resource[1] as string] ?? 0) + amount;
      continue;
    }
    const trait = TRAIT.exec(key);
    if (trait && value === 'required') required.add(trait[1] as string);
    else if (trait && value === 'forbidden') forbidden.add(trait[1] as string);
  }
  return { resources, required: [...required].sort(), forbidden: [...forbidden].sort() };
};

/** Asks Placement whether `providerUuid` can take the request (see the header for which question). */
export const preflightPinnedProvider = async (
  placement: Pick<PlacementClient, 'listAllocationCandidates' | 'getProviderTraits'>,
  providerUuid: string,
  request: PreflightRequest,
): Promise<PreflightResult> => {
  const contradictory = request.required.filter((t) => request.forbidden.includes(t));
  if (contradictory.length > 0) return { fits: false, asked: 'nothing', why: `trait ${contradictory.join(', ')} is both required and forbidden` };
  if (Object.keys(request.resources).length > 0) {
    let candidates;
    try {
      candidates = await placement.listAllocationCandidates({ resources: request.resources, required: request.required, forbidden: request.forbidden, inTree: providerUuid });
    } catch (error) {
      // Placement refuses a trait or resource class it has never heard of (400 "No such trait(s)"): no provider
      // can have it, so the pinned one cannot either — a miss that names Placement's answer, retried visibly
      if (error instanceof BadRequest) return { fits: false, asked: 'allocationCandidates', why: `Placement refused the query for ${describe(request)}: ${error.message}` };
      throw error;
    }
    const fromProvider = candidates.allocationRequests.some((allocation) => allocation[providerUuid] !== undefined);
    return fromProvider
      ? { fits: true, asked: 'allocationCandidates' }
      : { fits: false, asked: 'allocationCandidates', why: `Placement has no allocation candidate on resource provider ${providerUuid} for ${describe(request)}` };
  }
  if (request.required.length > 0 || request.forbidden.length > 0) {
    const traits = new Set(await placement.getProviderTraits(providerUuid));
    const missing = request.required.filter((t) => !traits.has(t));
    const present = request.forbidden.filter((t) => traits.has(t));
    if (missing.length === 0 && present.length === 0) return { fits: true, asked: 'providerTraits' };
    return { fits: false, asked: 'providerTraits', why: [missing.length ? `missing required ${missing.join(', ')}` : '', present.length ? `has forbidden ${present.join(', ')}` : ''].filter(Boolean).join('; ') + ` on resource provider ${providerUuid}` };
  }
  return { fits: true, asked: 'nothing' };
};

const describe = (r: PreflightRequest): string =>
  [Object.entries(r.resources).map(([rc, n]) => `${rc}:${n}`).join(','), [...r.required, ...r.forbidden.map((t) => `!${t}`)].join(',')].filter(Boolean).join(' with traits ');
