/**
 * The shape every Neutron resource shares (`/v2.0/<collection>`, `{"<single>": …}`, `<collection>_links` paging),
 * so networks, subnets, ports, security groups and floating IPs are declared rather than re-implemented.
 * Neutron's `name=` filter is exact, but names are not unique: find goes through exactlyOne.
 */
import type * as t from 'io-ts';
import type { HttpSession, Query } from '../http.js';
import { contextOf } from '../http.js';
import type { PageOptions } from '../paging.js';
import { listAllPages } from '../paging.js';
import { atMostOne, exactlyOne } from '../names.js';
import { decodeOrThrow, unwrap } from '../decoders/field.js';

export interface NeutronResource<T> {
  kind: string;
  path: string;
  collection: string;
  single: string;
  codec: t.Decoder<unknown, T>;
}

export const listOf = async <T>(http: HttpSession, r: NeutronResource<T>, filters: Query = {}, page: PageOptions = {}): Promise<T[]> => {
  const items = await listAllPages(http, { path: r.path, query: filters, collection: r.collection, next: 'links' }, page);
  return items.map((item) => decodeOrThrow(r.codec, item.raw, r.kind, contextOf(http, item.response)));
};

export const getOne = async <T>(http: HttpSession, r: NeutronResource<T>, id: string): Promise<T> => {
  const response = await http.get(`${r.path}/${encodeURIComponent(id)}`);
  const context = contextOf(http, response);
  return decodeOrThrow(r.codec, unwrap(response.data, r.single, context), r.kind, context);
};

export const findOne = async <T extends { id: string; name: string }>(http: HttpSession, r: NeutronResource<T>, name: string, filters: Query = {}): Promise<T> =>
  exactlyOne(await listOf(http, r, { ...filters, name }), name, r.kind, { service: http.service, method: 'GET', path: r.path });

export const lookupOne = async <T extends { id: string; name: string }>(http: HttpSession, r: NeutronResource<T>, name: string, filters: Query = {}): Promise<T | undefined> =>
  atMostOne(await listOf(http, r, { ...filters, name }), name, r.kind, { service: http.service, method: 'GET', path: r.path });

export const createOne = async <T>(http: HttpSession, r: NeutronResource<T>, body: Readonly<Record<string, unknown>>): Promise<T> => {
  const response = await http.post(r.path, { [r.single]: body });
  const context = contextOf(http, response);
  return decodeOrThrow(r.codec, unwrap(response.data, r.single, context), r.kind, context);
};

export const updateOne = async <T>(http: HttpSession, r: NeutronResource<T>, id: string, body: Readonly<Record<string, unknown>>): Promise<T> => {
  const response = await http.put(`${r.path}/${encodeURIComponent(id)}`, { [r.single]: body });
  const context = contextOf(http, response);
  return decodeOrThrow(r.codec, unwrap(response.data, r.single, context), r.kind, context);
};

export const deleteOne = async <T>(http: HttpSession, r: NeutronResource<T>, id: string): Promise<void> => {
  await http.delete(`${r.path}/${encodeURIComponent(id)}`);
};
