/**
 * Placement: resource providers, inventories and traits at microversion 1.6 (where traits appeared), allocation
 * candidates at 1.22 (required traits 1.17, forbidden `!TRAIT` 1.22). The pinned-server preflight asks whether a
 * provider has room for a flavor's resources and traits.
 */
import * as t from 'io-ts';
import type { HttpSession } from './http.js';
import { contextOf } from './http.js';
import type { BoundClient } from './bind.js';
import { bindClient } from './bind.js';
import { NotFound } from './errors.js';
import { exactlyOne } from './names.js';
import { decodeOrThrow } from './decoders/field.js';
import { placementHeaders } from './microversions.js';

const enc = encodeURIComponent;

export const resourceProviderCodec = t.intersection([
  t.type({ uuid: t.string, name: t.string, generation: t.number }),
  t.partial({ parent_provider_uuid: t.union([t.string, t.null]), root_provider_uuid: t.string }),
]);
export type ResourceProvider = t.TypeOf<typeof resourceProviderCodec>;

export const inventoryCodec = t.type({
  total: t.number, reserved: t.number, min_unit: t.number, max_unit: t.number, step_size: t.number, allocation_ratio: t.number,
});
export type Inventory = t.TypeOf<typeof inventoryCodec>;

export interface AllocationCandidates {
  /** Each request: per provider uuid, the resources it would allocate. */
  readonly allocationRequests: ReadonlyArray<Readonly<Record<string, Readonly<Record<string, number>>>>>;
  readonly providerUuids: readonly string[];
}

const candidatesCodec = t.type({
  allocation_requests: t.array(t.type({ allocations: t.record(t.string, t.type({ resources: t.record(t.string, t.number) })) })),
  provider_summaries: t.record(t.string, t.unknown),
});

/** Providers, inventories and traits use the pinned placement version (1.6 by default). */
const pinned = (http: HttpSession): Record<string, string> => placementHeaders(http.microversions.placement);

// Placement API: List resource providers — GET /resource_providers
export const listResourceProviders = async (http: HttpSession, filters: { name?: string; uuid?: string; resources?: string } = {}): Promise<ResourceProvider[]> => {
  const response = await http.get('/resource_providers', { ...filters }, pinned(http));
  return decodeOrThrow(t.type({ resource_providers: t.array(resourceProviderCodec) }), response.data, 'resource providers', contextOf(http, response)).resource_providers;
};

// Placement API: Show resource provider — GET /resource_providers/{uuid}
export const getResourceProvider = async (http: HttpSession, uuid: string): Promise<ResourceProvider> => {
  const response = await http.get(`/resource_providers/${enc(uuid)}`, undefined, pinned(http));
  return decodeOrThrow(resourceProviderCodec, response.data, 'resource provider', contextOf(http, response));
};

// Placement API: List resource providers — GET /resource_providers?name=…, post-filtered to the exact name
export const findResourceProviderByName = async (http: HttpSession, name: string): Promise<ResourceProvider> =>
  exactlyOne((await listResourceProviders(http, { name })).map((rp) => ({ ...rp, id: rp.uuid })), name, 'resource provider', {
    service: http.service, method: 'GET', path: '/resource_providers',
  });

// Placement API: List resource provider inventories — GET /resource_providers/{uuid}/inventories
export const getInventories = async (http: HttpSession, uuid: string): Promise<Record<string, Inventory>> => {
  const response = await http.get(`/resource_providers/${enc(uuid)}/inventories`, undefined, pinned(http));
  return decodeOrThrow(t.type({ inventories: t.record(t.string, inventoryCodec) }), response.data, 'inventories', contextOf(http, response)).inventories;
};

// Placement API: List resource provider traits — GET /resource_providers/{uuid}/traits (1.6)
export const getProviderTraits = async (http: HttpSession, uuid: string): Promise<string[]> => {
  const response = await http.get(`/resource_providers/${enc(uuid)}/traits`, undefined, pinned(http));
  return decodeOrThrow(t.type({ traits: t.array(t.string) }), response.data, 'traits', contextOf(http, response)).traits;
};

// Placement API: Show traits — GET /traits/{name} (1.6): true on 204/200, false on 404
export const traitExists = async (http: HttpSession, name: string): Promise<boolean> => {
  try {
    await http.get(`/traits/${enc(name)}`, undefined, pinned(http));
    return true;
  } catch (error: unknown) {
    if (error instanceof NotFound) return false;
    throw error;
  }
};

// Placement API: Update traits — PUT /traits/{name} (1.6): 201 created, 204 it existed already
export const createTrait = async (http: HttpSession, name: string): Promise<'created' | 'existed'> => {
  const response = await http.put(`/traits/${enc(name)}`, undefined, pinned(http));
  return response.status === 201 ? 'created' : 'existed';
};

// Placement API: Delete traits — DELETE /traits/{name} (1.6): 404 NotFound, 409 Conflict while a provider carries it
export const deleteTrait = async (http: HttpSession, name: string): Promise<void> => {
  await http.delete(`/traits/${enc(name)}`, undefined, pinned(http));
};

export interface CandidateQuery {
  /** `{VCPU: 2, MEMORY_MB: 2048, CUSTOM_BAREMETAL: 1}`. */
  resources: Readonly<Record<string, number>>;
  required?: readonly string[];
  forbidden?: readonly string[];
  /** Restrict to one provider tree (sent at microversion 1.31 or later, where in_tree appeared). */
  inTree?: string;
  limit?: number;
}

/** `resources=VCPU:2,MEMORY_MB:2048&required=T1,!T2` (exported for tests). */
export const candidateQuery = (q: CandidateQuery): Record<string, string | number | undefined> => {
  const traits = [...(q.required ?? []), ...(q.forbidden ?? []).map((trait) => `!${trait}`)];
  return {
    resources: Object.entries(q.resources).map(([rc, amount]) => `${rc}:${amount}`).join(','),
    required: traits.length > 0 ? traits.join(',') : undefined,
    in_tree: q.inTree,
    limit: q.limit,
  };
};

/** `in_tree` appeared in 1.31: a query restricted to one tree is sent at least there. */
export const IN_TREE_VERSION = '1.31';
const atLeast = (version: string, floor: string): string => {
  const [a, b] = [version, floor].map((v) => v.split('.').map(Number)) as [number[], number[]];
  return (a[0] ?? 0) > (b[0] ?? 0) || ((a[0] ?? 0) === (b[0] ?? 0) && (a[1] ?? 0) >= (b[1] ?? 0)) ? version : floor;
};

// Placement API: List allocation candidates — GET /allocation_candidates (1.22; 1.31 with in_tree)
export const listAllocationCandidates = async (http: HttpSession, q: CandidateQuery): Promise<AllocationCandidates> => {
  const version = q.inTree === undefined ? http.microversions.placementCandidates : atLeast(http.microversions.placementCandidates, IN_TREE_VERSION);
  const response = await http.get('/allocation_candidates', candidateQuery(q), placementHeaders(version));
  const body = decodeOrThrow(candidatesCodec, response.data, 'allocation candidates', contextOf(http, response));
  return {
    allocationRequests: body.allocation_requests.map((r) => Object.fromEntries(Object.entries(r.allocations).map(([rp, a]) => [rp, a.resources]))),
    providerUuids: Object.keys(body.provider_summaries),
  };
};

const placementFunctions = {
  listResourceProviders, getResourceProvider, findResourceProviderByName, getInventories, getProviderTraits, listAllocationCandidates,
  traitExists, createTrait, deleteTrait,
};
export type PlacementClient = BoundClient<typeof placementFunctions>;
export const createPlacementClient = (http: HttpSession): PlacementClient => bindClient(http, placementFunctions);
