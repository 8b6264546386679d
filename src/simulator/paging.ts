// limit/marker paging shared by the services. Lists are arrays built from insertion-ordered Maps, so a
// page costs O(n) at worst (finding the marker), never O(n²).
import { SimError } from './http.js';

export interface Page<T> { items: T[]; more: boolean }

export function page<T>(all: T[], idOf: (t: T) => string, limit: number | undefined, marker: string | undefined,
  markerMissing: (m: string) => SimError): Page<T> {
  let start = 0;
  if (marker !== undefined) {
    const i = all.findIndex((t) => idOf(t) === marker);
    if (i < 0) throw markerMissing(marker);
    start = i + 1;
  }
  if (limit === undefined) return { items: start === 0 ? all : all.slice(start), more: false };
  const items = all.slice(start, start + limit);
  return { items, more: start + limit < all.length };
}

/**
 * Every service here adds its `next` link when a page is FULL (len == limit), not when more rows exist, so a
 * walk over an exact multiple of the limit ends on an empty page. Clients must cope; the simulator does it too.
 */
export const isFullPage = (items: unknown[], limit: number | undefined): boolean => limit !== undefined && limit > 0 && items.length >= limit;

/** `?limit=` as an integer ≥ 0 (400 otherwise), capped at max. */
export function parseLimit(raw: string | undefined, max: number, message = 'limit param must be an integer'): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw)) throw new SimError(400, message);
  return Math.min(Number(raw), max);
}

/** The same query with marker (and limit) replaced, for a `next` link. */
export function withMarker(query: URLSearchParams, marker: string, limit: number | undefined): string {
  const q = new URLSearchParams(query);
  q.set('marker', marker);
  if (limit !== undefined) q.set('limit', String(limit));
  return q.toString();
}
