/**
 * Marker paging shared by Nova (`servers_links`), Cinder (`volumes_links`), Neutron (`networks_links`), Octavia
 * (`loadbalancers_links`) and Glance (`next`).
 *
 * The `next` link is not requested as-is: its host may be the service's idea of its public name (behind a proxy it
 * often is not reachable from here) and it would bypass the session's base URL. Only its query parameters are
 * taken, and the same path is requested again on our own endpoint. A marker that repeats ends the walk (a buggy
 * or hostile endpoint cannot loop us forever), as does exceeding `maxPages`, and neither returns a partial list:
 * both are UnreadableResponse. A truncated list is worse than an error here, because a decider reading "the
 * server is not in the list" would conclude it is gone.
 */
import { UnreadableResponse } from './errors.js';
import type { HttpResponse, HttpSession, Query } from './http.js';
import { contextOf } from './http.js';

export interface PageOptions {
  /** Items per page (`limit`); undefined lets the service choose. */
  pageSize?: number;
  /** Stop after this many pages (default 1000). */
  maxPages?: number;
}

export interface CollectionSpec {
  path: string;
  query?: Query;
  /** Key of the item array: 'servers', 'volumes', 'loadbalancers', … */
  collection: string;
  /** Where the next link lives: `${collection}_links` (rel=next) or Glance's top-level `next`. */
  next: 'links' | 'glance-next';
  headers?: Readonly<Record<string, string>>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The href of the `rel: next` link, or Glance's `next`. */
export const nextHref = (body: Record<string, unknown>, spec: Pick<CollectionSpec, 'collection' | 'next'>): string | undefined => {
  if (spec.next === 'glance-next') {
    const next = body.next;
    return typeof next === 'string' && next !== '' ? next : undefined;
  }
  const links = body[`${spec.collection}_links`];
  if (!Array.isArray(links)) return undefined;
  for (const link of links) {
    if (isRecord(link) && link.rel === 'next' && typeof link.href === 'string') return link.href;
  }
  return undefined;
};

/** The query parameters of a next link, whether absolute or relative. */
export const queryOfHref = (href: string): Record<string, string | string[]> => {
  const url = new URL(href, 'http://placeholder.invalid/');
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    out[key] = all.length === 1 ? (all[0] as string) : all;
  }
  return out;
};

export interface PagedItem {
  raw: unknown;
  /** When the page holding it arrived. */
  receivedAt: string;
  response: HttpResponse;
}

/** Fetch every page and return the raw items with their page's arrival time (decoding is the caller's). */
export const listAllPages = async (http: HttpSession, spec: CollectionSpec, options: PageOptions = {}): Promise<PagedItem[]> => {
  const items: PagedItem[] = [];
  const maxPages = options.maxPages ?? 1000;
  const seenMarkers = new Set<string>();
  const firstQuery: Query = { ...spec.query, ...(options.pageSize !== undefined ? { limit: options.pageSize } : {}) };
  let query = firstQuery;
  for (let page = 0; page < maxPages; page++) {
    const response = await http.request({ method: 'GET', path: spec.path, query, ...(spec.headers ? { headers: spec.headers } : {}) });
    const body = response.data;
    const list = isRecord(body) ? body[spec.collection] : undefined;
    if (!isRecord(body) || !Array.isArray(list)) {
      throw new UnreadableResponse(`list has no '${spec.collection}' array`, [spec.collection], contextOf(http, response));
    }
    for (const raw of list as unknown[]) items.push({ raw, receivedAt: response.receivedAt, response });
    const href = nextHref(body, spec);
    if (href === undefined || list.length === 0) return items;
    const nextQuery = queryOfHref(href);
    const marker = nextQuery.marker;
    const markerKey = Array.isArray(marker) ? marker.join(',') : marker;
    if (markerKey === undefined || seenMarkers.has(markerKey)) {
      const problem = markerKey === undefined ? 'next link without a marker' : 'next link repeats a marker';
      throw new UnreadableResponse(`paging of '${spec.collection}' cannot continue`, [problem], contextOf(http, response));
    }
    seenMarkers.add(markerKey);
    // Merge: some services (Glance) put only the marker in `next`; the original filters must survive.
    query = { ...firstQuery, ...nextQuery };
  }
  throw new UnreadableResponse(`paging of '${spec.collection}' exceeded ${maxPages} pages`, ['maxPages'], { service: http.service, method: 'GET', path: spec.path });
};
