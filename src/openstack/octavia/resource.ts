/**
 * The shape every Octavia v2 resource shares (`/v2/lbaas/<collection>`, `{"<single>": …}`, `<collection>_links`).
 * Octavia's `name=` is exact on Zed, but names are not unique: find goes through exactlyOne.
 */
import type { RequestContext } from '../errors.js';
import type { HttpSession, Query } from '../http.js';
import { contextOf } from '../http.js';
import type { PageOptions } from '../paging.js';
import { listAllPages } from '../paging.js';
import { atMostOne, exactlyOne } from '../names.js';
import { unwrap } from '../decoders/field.js';

export interface OctaviaResource<T> {
  kind: string;
  path: string;
  collection: string;
  single: string;
  decode: (raw: unknown, observedAt?: string, context?: RequestContext) => T;
}

type Headers = Readonly<Record<string, string>>;

export const listOf = async <T>(http: HttpSession, r: OctaviaResource<T>, filters: Query = {}, page: PageOptions = {}): Promise<T[]> => {
  const items = await listAllPages(http, { path: r.path, query: filters, collection: r.collection, next: 'links' }, page);
  return items.map((item) => r.decode(item.raw, item.receivedAt, contextOf(http, item.response)));
};

export const getOne = async <T>(http: HttpSession, r: OctaviaResource<T>, id: string): Promise<T> => {
  const response = await http.get(`${r.path}/${encodeURIComponent(id)}`);
  const context = contextOf(http, response);
  return r.decode(unwrap(response.data, r.single, context), response.receivedAt, context);
};

export const findOne = async <T extends { id: string; name: string | null }>(http: HttpSession, r: OctaviaResource<T>, name: string, filters: Query = {}): Promise<T> =>
  exactlyOne(await listOf(http, r, { ...filters, name }), name, r.kind, { service: http.service, method: 'GET', path: r.path });

export const lookupOne = async <T extends { id: string; name: string | null }>(http: HttpSession, r: OctaviaResource<T>, name: string, filters: Query = {}): Promise<T | undefined> =>
  atMostOne(await listOf(http, r, { ...filters, name }), name, r.kind, { service: http.service, method: 'GET', path: r.path });

export const createOne = async <T>(http: HttpSession, r: OctaviaResource<T>, body: Readonly<Record<string, unknown>>, headers?: Headers): Promise<T> => {
  const response = await http.post(r.path, { [r.single]: body }, headers);
  const context = contextOf(http, response);
  return r.decode(unwrap(response.data, r.single, context), response.receivedAt, context);
};

export const updateOne = async <T>(http: HttpSession, r: OctaviaResource<T>, id: string, body: Readonly<Record<string, unknown>>, headers?: Headers): Promise<T> => {
  const response = await http.put(`${r.path}/${encodeURIComponent(id)}`, { [r.single]: body }, headers);
  const context = contextOf(http, response);
  return r.decode(unwrap(response.data, r.single, context), response.receivedAt, context);
};

export const deleteOne = async <T>(http: HttpSession, r: OctaviaResource<T>, id: string, query?: Query): Promise<void> => {
  await http.delete(`${r.path}/${encodeURIComponent(id)}`, query);
};
