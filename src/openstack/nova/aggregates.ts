/** Nova host aggregates (os-aggregates). Names are unique in Nova, but find still goes through exactlyOne. */
import type { HttpResponse, HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { exactlyOne } from '../names.js';
import { decodeOrThrow, unwrap, unwrapList } from '../decoders/field.js';
import type { Aggregate } from '../decoders/compute.js';
import { aggregateCodec } from '../decoders/compute.js';

const one = async (http: HttpSession, p: Promise<HttpResponse>): Promise<Aggregate> => {
  const response = await p;
  const context = contextOf(http, response);
  return decodeOrThrow(aggregateCodec, unwrap(response.data, 'aggregate', context), 'aggregate', context);
};

// Compute API: List Aggregates — GET /os-aggregates
export const listAggregates = async (http: HttpSession): Promise<Aggregate[]> => {
  const response = await http.get('/os-aggregates');
  const context = contextOf(http, response);
  return unwrapList(response.data, 'aggregates', context).map((raw) => decodeOrThrow(aggregateCodec, raw, 'aggregate', context));
};

// Compute API: Show Aggregate Details — GET /os-aggregates/{aggregate_id}
export const getAggregate = (http: HttpSession, id: number | string): Promise<Aggregate> => one(http, http.get(`/os-aggregates/${encodeURIComponent(String(id))}`));

// Compute API: List Aggregates — GET /os-aggregates, post-filtered to the exact name
export const findAggregateByName = async (http: HttpSession, name: string): Promise<Aggregate> =>
  exactlyOne((await listAggregates(http)).map((aggregate) => ({ id: String(aggregate.id), name: aggregate.name, aggregate })), name, 'aggregate', {
    service: http.service, method: 'GET', path: '/os-aggregates',
  }).aggregate;

// Compute API: Create Aggregate — POST /os-aggregates
export const createAggregate = (http: HttpSession, name: string, availabilityZone?: string): Promise<Aggregate> =>
  one(http, http.post('/os-aggregates', { aggregate: { name, ...(availabilityZone !== undefined ? { availability_zone: availabilityZone } : {}) } }));

// Compute API: Delete Aggregate — DELETE /os-aggregates/{aggregate_id}
export const deleteAggregate = async (http: HttpSession, id: number | string): Promise<void> => {
  await http.delete(`/os-aggregates/${encodeURIComponent(String(id))}`);
};

// Compute API: Add Host (add_host Action) — POST /os-aggregates/{aggregate_id}/action
export const addAggregateHost = (http: HttpSession, id: number | string, host: string): Promise<Aggregate> =>
  one(http, http.post(`/os-aggregates/${encodeURIComponent(String(id))}/action`, { add_host: { host } }));

// Compute API: Remove Host (remove_host Action) — POST /os-aggregates/{aggregate_id}/action
export const removeAggregateHost = (http: HttpSession, id: number | string, host: string): Promise<Aggregate> =>
  one(http, http.post(`/os-aggregates/${encodeURIComponent(String(id))}/action`, { remove_host: { host } }));

// Compute API: Create Or Update Aggregate Metadata (set_metadata Action) — POST /os-aggregates/{aggregate_id}/action
export const setAggregateMetadata = (http: HttpSession, id: number | string, metadata: Readonly<Record<string, string | null>>): Promise<Aggregate> =>
  one(http, http.post(`/os-aggregates/${encodeURIComponent(String(id))}/action`, { set_metadata: { metadata } }));
