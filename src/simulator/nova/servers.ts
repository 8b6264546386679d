// /servers: list (regex name filter, status, image, flavor, changes-since ... with limit/marker paging),
// show, create, update, delete.
import { requireWriter } from '../auth.js';
import { SimError, noContent, ok } from '../http.js';
import type { SimResponse } from '../http.js';
import { parseIso } from '../ids.js';
import { atLeast } from '../microversion.js';
import { page, parseLimit, withMarker } from '../paging.js';
import type { Ctx, Registrar } from '../router.js';
import { member, optStr } from '../validate.js';
import { createFromRequest } from './create.js';
import { checkUnlocked, recordAction, startBuild, startDelete, touch } from './lifecycle.js';
import type { Server } from './model.js';
import { addresses, serverLinks, serverView, statusMatches } from './view.js';

export function findServer(ctx: Ctx, id: string): Server {
  const s = ctx.sim.nova.servers.get(id);
  if (!s || (!ctx.auth.isAdmin && s.projectId !== ctx.auth.projectId)) throw new SimError(404, `Instance ${id} could not be found.`);
  return s;
}

function regex(pattern: string): RegExp | null {
  try {
    // Nova hands the filter to the database's REGEXP: unanchored, case-insensitive on MySQL/MariaDB.
    return new RegExp(pattern, 'i');
  } catch {
    return null;
  }
}

function dateFilter(ctx: Ctx, key: string): number | undefined {
  const raw = ctx.q(key);
  if (raw === undefined) return undefined;
  const t = parseIso(raw);
  if (Number.isNaN(t)) throw new SimError(400, `Invalid input for query parameters ${key}. Value: ${raw}. '${raw}' is not a 'date-time'`);
  return t;
}

function tagsFilter(ctx: Ctx, s: Server): boolean {
  if (!atLeast(ctx.mv, '2.26')) return true;
  const list = (k: string) => ctx.q(k)?.split(',').filter(Boolean) ?? [];
  const [all, any, not, notAny] = [list('tags'), list('tags-any'), list('not-tags'), list('not-tags-any')];
  if (all.length && !all.every((t) => s.tags.includes(t))) return false;
  if (any.length && !any.some((t) => s.tags.includes(t))) return false;
  if (not.length && not.every((t) => s.tags.includes(t))) return false;
  if (notAny.length && notAny.some((t) => s.tags.includes(t))) return false;
  return true;
}

function filtered(ctx: Ctx): Server[] {
  const sim = ctx.sim;
  const q = ctx.req.query;
  const allTenantsRaw = q.get('all_tenants');
  const allTenants = allTenantsRaw !== null && !['0', 'false', 'False', 'off'].includes(allTenantsRaw);
  if (allTenants && !ctx.auth.isAdmin) throw new SimError(403, "Policy doesn't allow os_compute_api:servers:detail:get_all_tenants to be performed.");
  const projectF = allTenants ? q.get('project_id') ?? q.get('tenant_id') : ctx.auth.projectId;
  const name = q.get('name');
  const nameRe = name !== null ? regex(name) : undefined;
  const statuses = q.getAll('status');
  const image = q.get('image')?.split('/').pop();
  const flavor = q.get('flavor')?.split('/').pop();
  const since = dateFilter(ctx, 'changes-since');
  const before = atLeast(ctx.mv, '2.66') ? dateFilter(ctx, 'changes-before') : undefined;
  const ip = q.get('ip');
  const ipRe = ip !== null ? regex(ip.replace(/\./g, '\\.')) : undefined;
  const reservation = q.get('reservation_id');
  const host = ctx.auth.isAdmin ? q.get('host') : null;
  const keyName = ctx.auth.isAdmin || atLeast(ctx.mv, '2.83') ? q.get('key_name') : null;
  const locked = atLeast(ctx.mv, '2.73') ? q.get('locked') : null;
  const out: Server[] = [];
  for (const s of sim.nova.servers.values()) {
    if (projectF && s.projectId !== projectF) continue;
    if (nameRe === null) continue;
    if (nameRe && !nameRe.test(s.name)) continue;
    if (statuses.length && !statusMatches(s, statuses)) continue;
    if (image !== undefined && s.imageId !== image) continue;
    if (flavor !== undefined && s.flavor.id !== flavor) continue;
    if (since !== undefined && s.updated < since) continue;
    if (before !== undefined && s.updated > before) continue;
    if (reservation !== null && s.reservationId !== reservation) continue;
    if (host !== null && s.host !== host) continue;
    if (keyName !== null && s.keyName !== keyName) continue;
    if (locked !== null && String(s.locked) !== locked.toLowerCase()) continue;
    if (!tagsFilter(ctx, s)) continue;
    if (ipRe) {
      const ips = s.portIds.flatMap((p) => sim.neutron.ports.get(p)?.fixedIps.map((f) => f.ip_address) ?? []);
      if (ipRe === null || !ips.some((x) => ipRe.test(x))) continue;
    }
    out.push(s);
  }
  const sortKey = q.get('sort_key');
  if (sortKey && sortKey !== 'created_at') {
    const dir = q.get('sort_dir') === 'asc' ? 1 : -1;
    const key = (s: Server): string | number => (sortKey === 'display_name' ? s.name : sortKey === 'updated_at' ? s.updated : sortKey === 'uuid' ? s.id : s.created);
    out.sort((a, b) => (key(a) < key(b) ? -dir : key(a) > key(b) ? dir : 0));
    return out;
  }
  // Nova's default order: created_at desc. Insertion order is creation order, so reverse it.
  return q.get('sort_dir') === 'asc' ? out : out.reverse();
}

/** Nova caps every page at max_limit (1000) and adds a `next` link whenever a page is full. */
const MAX_LIMIT = 1000;

function list(ctx: Ctx, detail: boolean): SimResponse {
  const rows = filtered(ctx);
  const limit = parseLimit(ctx.q('limit'), MAX_LIMIT, `Invalid input for query parameters limit. Value: ${ctx.q('limit') ?? ''}. '${ctx.q('limit') ?? ''}' does not match '^[0-9]*$'`) ?? MAX_LIMIT;
  const pg = page(rows, (s) => s.id, limit, ctx.q('marker'), (m) => new SimError(400, `marker [${m}] not found`));
  const body: Record<string, unknown> = {
    servers: pg.items.map((s) => (detail ? serverView(ctx, s) : { id: s.id, name: s.name, links: serverLinks(ctx.sim, s.id) })),
  };
  const last = pg.items[pg.items.length - 1];
  if (last && pg.items.length === limit) {
    body.servers_links = [{ rel: 'next', href: ctx.sim.url(`/compute/v2.1/servers${detail ? '/detail' : ''}?${withMarker(ctx.req.query, last.id, undefined)}`) }];
  }
  return ok(body);
}

export function registerServers(r: Registrar): void {
  r.get('/servers', (ctx) => list(ctx, false));
  r.get('/servers/detail', (ctx) => list(ctx, true));
  r.get('/servers/:id', (ctx) => ok({ server: serverView(ctx, findServer(ctx, ctx.p('id')), { withGroups: true }) }));
  r.post('/servers', (ctx) => {
    requireWriter(ctx.auth, 'os_compute_api:servers:create');
    if (!ctx.auth.projectId) throw new SimError(403, 'A project-scoped token is required.');
    const res = createFromRequest(ctx, member(ctx.req.body, 'server'));
    for (const s of res.servers) {
      recordAction(ctx.sim, s, 'create', ctx.req.requestId, ctx.auth.userId);
      startBuild(ctx.sim, s);
    }
    if (res.returnReservationId) return ok({ reservation_id: res.reservationId }, 202);
    const first = res.servers[0] as NonNullable<(typeof res.servers)[0]>;
    return ok({
      server: {
        id: first.id, links: serverLinks(ctx.sim, first.id), 'OS-DCF:diskConfig': 'MANUAL',
        security_groups: first.securityGroups.map((name) => ({ name })), adminPass: res.adminPass,
      },
    }, 202, { Location: ctx.sim.url(`/compute/v2.1/servers/${first.id}`) });
  });
  r.put('/servers/:id', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    requireWriter(ctx.auth, 'os_compute_api:servers:update');
    checkUnlocked(s, ctx.auth.isAdmin);
    const b = member(ctx.req.body, 'server');
    const name = optStr(b, 'name', 255);
    if (name !== undefined && !name.trim()) throw new SimError(400, "Invalid input for field/attribute name. Value: ''. '' is too short");
    s.name = name ?? s.name;
    if (atLeast(ctx.mv, '2.19') && 'description' in b) s.description = b.description === null ? null : optStr(b, 'description') ?? null;
    s.accessIPv4 = optStr(b, 'accessIPv4') ?? s.accessIPv4;
    s.accessIPv6 = optStr(b, 'accessIPv6') ?? s.accessIPv6;
    touch(ctx.sim, s);
    return ok({ server: serverView(ctx, s, { withGroups: true }) });
  });
  r.del('/servers/:id', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    requireWriter(ctx.auth, 'os_compute_api:servers:delete');
    checkUnlocked(s, ctx.auth.isAdmin);
    recordAction(ctx.sim, s, 'delete', ctx.req.requestId, ctx.auth.userId);
    startDelete(ctx.sim, s);
    return noContent();
  });
  r.get('/servers/:id/ips', (ctx) => ok({ addresses: addresses(ctx.sim, findServer(ctx, ctx.p('id')), false) }));
  r.get('/servers/:id/ips/:network', (ctx) => {
    const a = addresses(ctx.sim, findServer(ctx, ctx.p('id')), false)[ctx.p('network')];
    if (!a) throw new SimError(404, 'Instance is not a member of specified network');
    return ok({ [ctx.p('network')]: a });
  });
}
