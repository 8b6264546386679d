/**
 * Nova flavors and their extra specs. Nova's flavor list has no name filter, so find-by-name lists all flavors
 * and goes through exactlyOne.
 */
import * as t from 'io-ts';
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import type { PageOptions } from '../paging.js';
import { listAllPages } from '../paging.js';
import { exactlyOne } from '../names.js';
import { decodeOrThrow, stringMap, unwrap } from '../decoders/field.js';
import type { Flavor } from '../decoders/compute.js';
import { flavorCodec } from '../decoders/compute.js';

const enc = encodeURIComponent;

export interface FlavorListFilters {
  is_public?: boolean | 'None';
  minRam?: number;
  minDisk?: number;
}

// Compute API: List Flavors With Details — GET /flavors/detail
export const listFlavors = async (http: HttpSession, filters: FlavorListFilters = {}, page: PageOptions = {}): Promise<Flavor[]> => {
  const items = await listAllPages(http, { path: '/flavors/detail', query: { ...filters }, collection: 'flavors', next: 'links' }, page);
  return items.map((item) => decodeOrThrow(flavorCodec, item.raw, 'flavor', contextOf(http, item.response)));
};

// Compute API: Show Flavor Details — GET /flavors/{flavor_id}
export const getFlavor = async (http: HttpSession, flavorId: string): Promise<Flavor> => {
  const response = await http.get(`/flavors/${enc(flavorId)}`);
  const context = contextOf(http, response);
  return decodeOrThrow(flavorCodec, unwrap(response.data, 'flavor', context), 'flavor', context);
};

// Compute API: List Flavors With Details — GET /flavors/detail, post-filtered to the exact name
export const findFlavorByName = async (http: HttpSession, name: string): Promise<Flavor> =>
  exactlyOne(await listFlavors(http, { is_public: 'None' }), name, 'flavor', { service: http.service, method: 'GET', path: '/flavors/detail' });

export interface CreateFlavorRequest {
  name: string;
  vcpus: number;
  ram: number;
  disk: number;
  id?: string;
  ephemeral?: number;
  swap?: number;
  isPublic?: boolean;
  description?: string;
}

// Compute API: Create Flavor — POST /flavors (admin)
export const createFlavor = async (http: HttpSession, req: CreateFlavorRequest): Promise<Flavor> => {
  const flavor: Record<string, unknown> = { name: req.name, vcpus: req.vcpus, ram: req.ram, disk: req.disk };
  if (req.id !== undefined) flavor.id = req.id;
  if (req.ephemeral !== undefined) flavor['OS-FLV-EXT-DATA:ephemeral'] = req.ephemeral;
  if (req.swap !== undefined) flavor.swap = req.swap;
  if (req.isPublic !== undefined) flavor['os-flavor-access:is_public'] = req.isPublic;
  if (req.description !== undefined) flavor.description = req.description;
  const response = await http.post('/flavors', { flavor });
  const context = contextOf(http, response);
  return decodeOrThrow(flavorCodec, unwrap(response.data, 'flavor', context), 'flavor', context);
};

// Compute API: Delete Flavor — DELETE /flavors/{flavor_id} (admin)
export const deleteFlavor = async (http: HttpSession, flavorId: string): Promise<void> => {
  await http.delete(`/flavors/${enc(flavorId)}`);
};

// Compute API: List Extra Specs For A Flavor — GET /flavors/{flavor_id}/os-extra_specs
export const getFlavorExtraSpecs = async (http: HttpSession, flavorId: string): Promise<Record<string, string>> => {
  const response = await http.get(`/flavors/${enc(flavorId)}/os-extra_specs`);
  return decodeOrThrow(t.type({ extra_specs: stringMap }), response.data, 'extra specs', contextOf(http, response)).extra_specs;
};

// Compute API: Create Extra Specs For A Flavor — POST /flavors/{flavor_id}/os-extra_specs (admin)
export const setFlavorExtraSpecs = async (http: HttpSession, flavorId: string, extraSpecs: Readonly<Record<string, string>>): Promise<Record<string, string>> => {
  const response = await http.post(`/flavors/${enc(flavorId)}/os-extra_specs`, { extra_specs: extraSpecs });
  return decodeOrThrow(t.type({ extra_specs: stringMap }), response.data, 'extra specs', contextOf(http, response)).extra_specs;
};
