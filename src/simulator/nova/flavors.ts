// Flavors and os-extra_specs.
import { requireAdmin } from '../auth.js';
import { SimError, ok } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import { page, parseLimit, withMarker } from '../paging.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj, member, optBool, optInt, optNullableStr, optStr, optStrMap, reqInt, reqStr } from '../validate.js';
import type { Flavor } from './model.js';

function links(ctx: Ctx, id: string): unknown[] {
  return [{ rel: 'self', href: ctx.sim.url(`/compute/v2.1/flavors/${id}`) }, { rel: 'bookmark', href: ctx.sim.url(`/compute/flavors/${id}`) }];
}

export function flavorView(ctx: Ctx, f: Flavor, detail: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { id: f.id, name: f.name, links: links(ctx, f.id) };
  if (atLeast(ctx.mv, '2.55')) out.description = f.description;
  if (!detail) return out;
  Object.assign(out, {
    ram: f.ram, vcpus: f.vcpus, disk: f.disk, 'OS-FLV-EXT-DATA:ephemeral': f.ephemeral,
    swap: f.swap === 0 && !atLeast(ctx.mv, '2.75') ? '' : f.swap, rxtx_factor: f.rxtxFactor,
    'os-flavor-access:is_public': f.isPublic, 'OS-FLV-DISABLED:disabled': f.disabled,
  });
  if (atLeast(ctx.mv, '2.61')) out.extra_specs = { ...f.extraSpecs };
  return out;
}

export function findFlavor(ctx: Ctx, id: string): Flavor {
  const f = ctx.sim.nova.flavors.get(id);
  if (!f || (!f.isPublic && !ctx.auth.isAdmin)) throw new SimError(404, `Flavor ${id} could not be found.`);
  return f;
}

function list(ctx: Ctx, detail: boolean) {
  const minRam = Number(ctx.q('minRam') ?? 0);
  const minDisk = Number(ctx.q('minDisk') ?? 0);
  const pub = ctx.q('is_public');
  // Only admins may filter on is_public ('none' = all); everyone else sees public flavors.
  const want = ctx.auth.isAdmin ? (pub ?? 'true').toLowerCase() : 'true';
  const rows = [...ctx.sim.nova.flavors.values()].filter((f) => f.ram >= minRam && f.disk >= minDisk && !f.disabled &&
    (want === 'none' || String(f.isPublic) === want));
  const key = ctx.q('sort_key') ?? 'flavorid';
  const dir = ctx.q('sort_dir') === 'desc' ? -1 : 1;
  const k = (f: Flavor): string | number => (key === 'name' ? f.name : key === 'memory_mb' ? f.ram : key === 'vcpus' ? f.vcpus : key === 'root_gb' ? f.disk : f.id);
  rows.sort((a, b) => (k(a) < k(b) ? -dir : k(a) > k(b) ? dir : 0));
  const limit = parseLimit(ctx.q('limit'), 1000) ?? 1000;
  const pg = page(rows, (f) => f.id, limit, ctx.q('marker'), (m) => new SimError(400, `marker [${m}] not found`));
  const body: Record<string, unknown> = { flavors: pg.items.map((f) => flavorView(ctx, f, detail)) };
  const last = pg.items[pg.items.length - 1];
  if (last && pg.items.length === limit) body.flavors_links = [{ rel: 'next', href: ctx.sim.url(`/compute/v2.1/flavors${detail ? '/detail' : ''}?${withMarker(ctx.req.query, last.id, undefined)}`) }];
  return ok(body);
}

export function registerFlavors(r: Registrar): void {
  r.get('/flavors', (ctx) => list(ctx, false));
  r.get('/flavors/detail', (ctx) => list(ctx, true));
  r.get('/flavors/:id', (ctx) => ok({ flavor: flavorView(ctx, findFlavor(ctx, ctx.p('id')), true) }));
  r.post('/flavors', (ctx) => {
    requireAdmin(ctx.auth, 'os_compute_api:os-flavor-manage:create');
    const b = member(ctx.req.body, 'flavor');
    const name = reqStr(b, 'name', 255).trim();
    const id = optNullableStr(b, 'id') ?? uuid();
    const flavors = ctx.sim.nova.flavors;
    if (flavors.has(id)) throw new SimError(409, `Flavor with ID ${id} already exists.`);
    if ([...flavors.values()].some((f) => f.name === name)) throw new SimError(409, `Flavor with name ${name} already exists.`);
    const f: Flavor = {
      id, name, ram: reqInt(b, 'ram', 1), vcpus: reqInt(b, 'vcpus', 1), disk: reqInt(b, 'disk', 0),
      ephemeral: optInt(b, 'OS-FLV-EXT-DATA:ephemeral', 0) ?? 0, swap: optInt(b, 'swap', 0) ?? 0,
      rxtxFactor: typeof b.rxtx_factor === 'number' ? b.rxtx_factor : 1.0, isPublic: optBool(b, 'os-flavor-access:is_public') ?? true,
      disabled: false, description: atLeast(ctx.mv, '2.55') ? optNullableStr(b, 'description') ?? null : null, extraSpecs: {},
    };
    flavors.set(f.id, f);
    return ok({ flavor: flavorView(ctx, f, true) });
  });
  r.put('/flavors/:id', (ctx) => {
    if (!atLeast(ctx.mv, '2.55')) throw new SimError(405, 'The method specified is not allowed for this resource.');
    requireAdmin(ctx.auth, 'os_compute_api:os-flavor-manage:update');
    const f = findFlavor(ctx, ctx.p('id'));
    const b = member(ctx.req.body, 'flavor');
    f.description = optNullableStr(b, 'description') ?? null;
    return ok({ flavor: flavorView(ctx, f, true) });
  });
  r.del('/flavors/:id', (ctx) => {
    requireAdmin(ctx.auth, 'os_compute_api:os-flavor-manage:delete');
    const f = findFlavor(ctx, ctx.p('id'));
    ctx.sim.nova.flavors.delete(f.id);
    return { status: 202 };
  });
  r.get('/flavors/:id/os-extra_specs', (ctx) => ok({ extra_specs: { ...findFlavor(ctx, ctx.p('id')).extraSpecs } }));
  r.post('/flavors/:id/os-extra_specs', (ctx) => {
    requireAdmin(ctx.auth, 'os_compute_api:os-flavor-extra-specs:create');
    const f = findFlavor(ctx, ctx.p('id'));
    const specs = optStrMap(isObj(ctx.req.body) ? ctx.req.body : {}, 'extra_specs');
    if (!specs) throw new SimError(400, "Invalid input for field/attribute extra_specs. 'extra_specs' is a required property");
    Object.assign(f.extraSpecs, specs);
    return ok({ extra_specs: specs });
  });
  r.get('/flavors/:id/os-extra_specs/:key', (ctx) => {
    const f = findFlavor(ctx, ctx.p('id'));
    const v = f.extraSpecs[ctx.p('key')];
    if (v === undefined) throw new SimError(404, `Flavor ${f.id} has no extra specs with key ${ctx.p('key')}.`);
    return ok({ [ctx.p('key')]: v });
  });
  r.put('/flavors/:id/os-extra_specs/:key', (ctx) => {
    requireAdmin(ctx.auth, 'os_compute_api:os-flavor-extra-specs:update');
    const f = findFlavor(ctx, ctx.p('id'));
    const b = isObj(ctx.req.body) ? ctx.req.body : {};
    const v = optStr(b, ctx.p('key'));
    if (v === undefined || Object.keys(b).length !== 1) throw new SimError(400, 'Request body and URI mismatch');
    f.extraSpecs[ctx.p('key')] = v;
    return ok({ [ctx.p('key')]: v });
  });
  r.del('/flavors/:id/os-extra_specs/:key', (ctx) => {
    requireAdmin(ctx.auth, 'os_compute_api:os-flavor-extra-specs:delete');
    const f = findFlavor(ctx, ctx.p('id'));
    if (!(ctx.p('key') in f.extraSpecs)) throw new SimError(404, `Flavor ${f.id} has no extra specs with key ${ctx.p('key')}.`);
    delete f.extraSpecs[ctx.p('key')];
    return { status: 200 };
  });
}
