// What every Neutron collection shares: standard attributes, visibility, attribute filters (exact, as
// Neutron does them), tag filters, `fields=`, limit/marker paging sorted by id, and the tags sub-resource.
import type { AuthContext } from '../auth.js';
import { SimError, noContent, ok } from '../http.js';
import type { SimResponse } from '../http.js';
import { isoSeconds } from '../ids.js';
import { isFullPage, page, parseLimit, withMarker } from '../paging.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj } from '../validate.js';
import type { Std } from './model.js';

export const nerr = (status: number, type: string, message: string): SimError => new SimError(status, message, type);

export function stdView(s: Std): Record<string, unknown> {
  return {
    id: s.id, name: s.name, description: s.description, tenant_id: s.projectId, project_id: s.projectId,
    tags: s.tags, created_at: isoSeconds(s.created), updated_at: isoSeconds(s.updated), revision_number: s.revision,
  };
}

export function touch(sim: Sim, s: { updated: number; revision: number }): void {
  s.updated = sim.now();
  s.revision++;
}

/** Neutron hides other projects' resources entirely (404 on get, absent from lists) unless admin. */
export const visible = (auth: AuthContext, projectId: string): boolean => auth.isAdmin || auth.projectId === projectId;

const RESERVED = new Set(['fields', 'limit', 'marker', 'sort_key', 'sort_dir', 'page_reverse', 'tags', 'tags-any', 'not-tags', 'not-tags-any']);

function matches(view: Record<string, unknown>, key: string, wanted: string[]): boolean {
  if (key === 'fixed_ips') {
    const ips = Array.isArray(view.fixed_ips) ? view.fixed_ips : [];
    return wanted.every((w) => {
      const [k = '', v = ''] = w.split('=');
      return ips.some((ip) => isObj(ip) && String(ip[k]) === v);
    });
  }
  const v = view[key];
  const norm = (x: unknown): string => (typeof x === 'boolean' ? String(x) : x === null ? 'None' : String(x));
  const want = wanted.map((w) => (/^(true|false)$/i.test(w) && typeof v === 'boolean' ? w.toLowerCase() : w));
  if (Array.isArray(v)) return v.some((x) => want.includes(norm(x)));
  return want.includes(norm(v));
}

function tagFilter(ctx: Ctx, tags: string[]): boolean {
  const all = (k: string) => ctx.req.query.getAll(k).flatMap((v) => v.split(',')).filter(Boolean);
  const t = all('tags');
  const any = all('tags-any');
  const not = all('not-tags');
  const notAny = all('not-tags-any');
  if (t.length && !t.every((x) => tags.includes(x))) return false;
  if (any.length && !any.some((x) => tags.includes(x))) return false;
  if (not.length && not.every((x) => tags.includes(x))) return false;
  if (notAny.length && notAny.some((x) => tags.includes(x))) return false;
  return true;
}

/** Filter, sort, page and project a collection the way neutron-server does. */
export function listResponse<T extends { id: string; tags?: string[] }>(ctx: Ctx, collection: string, items: Iterable<T>,
  view: (t: T) => Record<string, unknown>): SimResponse {
  const keys = [...new Set([...ctx.req.query.keys()])].filter((k) => !RESERVED.has(k));
  let rows: Array<{ item: T; v: Record<string, unknown> }> = [];
  for (const item of items) {
    const v = view(item);
    if (!tagFilter(ctx, item.tags ?? [])) continue;
    let okay = true;
    for (const k of keys) {
      if (!(k in v) && k !== 'fixed_ips') throw nerr(400, 'HTTPBadRequest', `[${k}] is invalid attribute for filtering`);
      if (!matches(v, k, ctx.req.query.getAll(k))) { okay = false; break; }
    }
    if (okay) rows.push({ item, v });
  }
  const limit = parseLimit(ctx.q('limit'), 10_000, `Bad limit request: Limit must be an integer 0 or greater and not '${ctx.q('limit') ?? ''}'.`);
  const marker = ctx.q('marker');
  const sortKey = ctx.q('sort_key');
  if (limit !== undefined || marker !== undefined || sortKey !== undefined) {
    // Paginated Neutron lists are ordered by the sort key, defaulting to id.
    const key = sortKey ?? 'id';
    const dir = ctx.q('sort_dir') === 'desc' ? -1 : 1;
    rows = rows.sort((a, b) => dir * (String(a.v[key] ?? '') < String(b.v[key] ?? '') ? -1 : String(a.v[key] ?? '') > String(b.v[key] ?? '') ? 1 : 0));
  }
  const pg = page(rows, (r) => r.item.id, limit === 0 ? undefined : limit, marker, (m) => nerr(404, 'HTTPNotFound', `Marker ${m} could not be found.`));
  const fields = ctx.req.query.getAll('fields');
  const project = (v: Record<string, unknown>) => (fields.length ? Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, v[f]])) : v);
  const body: Record<string, unknown> = { [collection]: pg.items.map((r) => project(r.v)) };
  if (limit !== undefined || marker !== undefined) {
    const base = ctx.sim.url(`/network/v2.0/${collection.replace(/_/g, '-')}`);
    const links: unknown[] = [];
    const last = pg.items[pg.items.length - 1];
    // neutron.api.api_common.get_pagination_links: next on a full page, previous on every forward page.
    if (isFullPage(pg.items, limit) && last) links.push({ href: `${base}?${withMarker(ctx.req.query, last.item.id, limit)}`, rel: 'next' });
    const first = pg.items[0];
    if (limit !== undefined && limit > 0 && first) {
      const q = new URLSearchParams(withMarker(ctx.req.query, first.item.id, limit));
      q.set('page_reverse', 'True');
      links.push({ href: `${base}?${q.toString()}`, rel: 'previous' });
    }
    body[`${collection}_links`] = links;
  }
  return ok(body);
}

export function oneResponse(ctx: Ctx, key: string, v: Record<string, unknown>, status = 200): SimResponse {
  const fields = ctx.req.query.getAll('fields');
  return ok({ [key]: fields.length ? Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, v[f]])) : v }, status);
}

export function requireMember(auth: AuthContext): void {
  if (!auth.isAdmin && !auth.roles.some((r) => r !== 'reader')) throw nerr(403, 'PolicyNotAuthorized', 'rule:create_network is disallowed by policy');
}

/** The tags sub-resource, for any collection whose records carry `tags`. */
export function registerTags(r: Registrar, collection: string, find: (ctx: Ctx, id: string) => Std & { revision: number }): void {
  const base = `/${collection}/:id/tags`;
  const valid = (t: string) => {
    if (t.length === 0 || t.length > 255 || t.includes(',')) throw nerr(400, 'InvalidInput', `Invalid input for operation: '${t}' is not a valid tag.`);
  };
  r.get(base, (ctx) => ok({ tags: find(ctx, ctx.p('id')).tags }));
  r.put(base, (ctx) => {
    const res = find(ctx, ctx.p('id'));
    const b = ctx.req.body;
    const tags = isObj(b) && Array.isArray(b.tags) ? b.tags : null;
    if (!tags || tags.some((t) => typeof t !== 'string')) throw nerr(400, 'InvalidInput', 'Invalid input for operation: tags must be a list of strings.');
    (tags as string[]).forEach(valid);
    res.tags = [...new Set(tags as string[])];
    touch(ctx.sim, res);
    return ok({ tags: res.tags });
  });
  r.del(base, (ctx) => {
    const res = find(ctx, ctx.p('id'));
    res.tags = [];
    touch(ctx.sim, res);
    return noContent();
  });
  r.get(`${base}/:tag`, (ctx) => {
    if (!find(ctx, ctx.p('id')).tags.includes(ctx.p('tag'))) throw nerr(404, 'TagNotFound', `Tag ${ctx.p('tag')} could not be found for ${collection.replace(/s$/, '')} ${ctx.p('id')}.`);
    return noContent();
  });
  r.put(`${base}/:tag`, (ctx) => {
    const res = find(ctx, ctx.p('id'));
    const tag = ctx.p('tag');
    valid(tag);
    if (!res.tags.includes(tag)) {
      res.tags.push(tag);
      touch(ctx.sim, res);
    }
    return noContent(201);
  });
  r.del(`${base}/:tag`, (ctx) => {
    const res = find(ctx, ctx.p('id'));
    const i = res.tags.indexOf(ctx.p('tag'));
    if (i < 0) throw nerr(404, 'TagNotFound', `Tag ${ctx.p('tag')} could not be found for ${collection.replace(/s$/, '')} ${ctx.p('id')}.`);
    res.tags.splice(i, 1);
    touch(ctx.sim, res);
    return noContent();
  });
}
