/**
 * Nova instance actions: the record of what Nova accepted for a server (`create`, `rebuild`, `stop`, …), newest
 * first as Nova returns it. A rebuild that was accepted has a `rebuild` entry whose request id is the 202's;
 * one refused with 409 (a task in progress) has none, because Nova checks the task state before it records
 * the action. At the pinned compute microversion (≥ 2.21) a deleted server's actions are still listed.
 *
 * From 2.58 Nova pages this list (limit, marker = a request id, at most 1000 per page) and puts the next link
 * in a top-level `links`, not `instanceActions_links` as paging.ts's walker expects, hence the walk here. Its
 * guards are the walker's: a next link without a marker, a repeated marker or too many pages is an
 * UnreadableResponse, never a truncated list.
 */
import type { HttpSession, Query } from '../http.js';
import { contextOf } from '../http.js';
import { UnreadableResponse } from '../errors.js';
import type { PageOptions } from '../paging.js';
import { queryOfHref } from '../paging.js';
import { isRecord, unwrapList } from '../decoders/field.js';
import type { InstanceAction } from '../decoders/instance-action.js';
import { decodeInstanceAction } from '../decoders/instance-action.js';

const enc = encodeURIComponent;

const nextLink = (body: unknown): string | undefined => {
  const links = isRecord(body) ? body.links : undefined;
  if (!Array.isArray(links)) return undefined;
  for (const link of links) if (isRecord(link) && link.rel === 'next' && typeof link.href === 'string') return link.href;
  return undefined;
};

// Compute API: List Actions For Server — GET /servers/{server_id}/os-instance-actions
export const listInstanceActions = async (http: HttpSession, serverId: string, page: PageOptions = {}): Promise<InstanceAction[]> => {
  const path = `/servers/${enc(serverId)}/os-instance-actions`;
  const maxPages = page.maxPages ?? 1000;
  const first: Query = page.pageSize !== undefined ? { limit: page.pageSize } : {};
  const seenMarkers = new Set<string>();
  const actions: InstanceAction[] = [];
  let query = first;
  for (let n = 0; n < maxPages; n++) {
    const response = await http.get(path, query);
    const context = contextOf(http, response);
    const list = unwrapList(response.data, 'instanceActions', context);
    for (const raw of list) actions.push(decodeInstanceAction(raw, context));
    const href = nextLink(response.data);
    if (href === undefined || list.length === 0) return actions;
    const next = queryOfHref(href);
    const marker = Array.isArray(next.marker) ? next.marker.join(',') : next.marker;
    if (marker === undefined || seenMarkers.has(marker)) {
      throw new UnreadableResponse("paging of 'instanceActions' cannot continue", [marker === undefined ? 'next link without a marker' : 'next link repeats a marker'], context);
    }
    seenMarkers.add(marker);
    query = { ...first, ...next };
  }
  throw new UnreadableResponse(`paging of 'instanceActions' exceeded ${maxPages} pages`, ['maxPages'], { service: http.service, method: 'GET', path });
};
