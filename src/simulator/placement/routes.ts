// Placement: resource providers, inventories, traits (1.6), usages, allocations and
// /allocation_candidates (1.10) with required and forbidden (1.22, `!TRAIT`) traits, in_tree (1.31) and `in:` (1.39).
import { requireAdmin } from '../auth.js';
import { SimError, noContent, ok } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj } from '../validate.js';
import { candidates, capacity, removeConsumer, setAllocations, used } from './logic.js';
import type { TraitQuery } from './logic.js';
import type { Inventory, ResourceProvider } from './model.js';

const perr = (status: number, detail: string, code = 'placement.undefined_code'): SimError => new SimError(status, detail, code);
const TRAIT_RE = /^CUSTOM_[A-Z0-9_]+$/;

export function rpView(ctx: Ctx, rp: ResourceProvider): Record<string, unknown> {
  const base = `/resource_providers/${rp.uuid}`;
  return {
    uuid: rp.uuid, name: rp.name, generation: rp.generation,
    ...(atLeast(ctx.mv, '1.14') ? { parent_provider_uuid: rp.parentUuid, root_provider_uuid: rp.rootUuid } : {}),
    links: [
      { rel: 'self', href: base }, { rel: 'inventories', href: `${base}/inventories` }, { rel: 'usages', href: `${base}/usages` },
      { rel: 'aggregates', href: `${base}/aggregates` }, { rel: 'traits', href: `${base}/traits` }, { rel: 'allocations', href: `${base}/allocations` },
    ],
  };
}

export function addProvider(sim: Sim, o: { uuid?: string; name: string; parentUuid?: string | null; inventories?: Record<string, Partial<Inventory> & { total: number }>; traits?: string[] }): ResourceProvider {
  const id = o.uuid ?? uuid();
  const parent = o.parentUuid ? sim.placement.rps.get(o.parentUuid) : undefined;
  const rp: ResourceProvider = { uuid: id, name: o.name, generation: 0, parentUuid: parent?.uuid ?? null, rootUuid: parent?.rootUuid ?? id, inventories: new Map(), traits: new Set(), aggregates: [] };
  for (const [rc, inv] of Object.entries(o.inventories ?? {})) rp.inventories.set(rc, normaliseInventory(inv));
  for (const t of o.traits ?? []) {
    sim.placement.traits.add(t);
    rp.traits.add(t);
  }
  sim.placement.rps.set(id, rp);
  return rp;
}

function normaliseInventory(i: Partial<Inventory> & { total: number }): Inventory {
  return { total: i.total, reserved: i.reserved ?? 0, min_unit: i.min_unit ?? 1, max_unit: i.max_unit ?? i.total, step_size: i.step_size ?? 1, allocation_ratio: i.allocation_ratio ?? 1.0 };
}

function findRp(ctx: Ctx): ResourceProvider {
  const rp = ctx.sim.placement.rps.get(ctx.p('uuid'));
  if (!rp) throw perr(404, `No resource provider with uuid ${ctx.p('uuid')} found`);
  return rp;
}

function body(ctx: Ctx): Record<string, unknown> {
  if (!isObj(ctx.req.body)) throw perr(400, 'Malformed JSON');
  return ctx.req.body;
}

function checkGeneration(rp: ResourceProvider, b: Record<string, unknown>): void {
  if (b.resource_provider_generation !== rp.generation) {
    throw perr(409, `resource provider generation conflict: The resource provider's generation changed while this operation was in progress`, 'placement.concurrent_update');
  }
}

function inventoriesView(sim: Sim, rp: ResourceProvider): Record<string, unknown> {
  return { inventories: Object.fromEntries([...rp.inventories].map(([rc, inv]) => [rc, { ...inv }])), resource_provider_generation: rp.generation };
}

function parseInventory(ctx: Ctx, rc: string, raw: unknown): Inventory {
  if (!ctx.sim.placement.resourceClasses.has(rc)) throw perr(400, `Unknown resource class in inventory for resource provider: ${rc}`);
  if (!isObj(raw) || typeof raw.total !== 'number' || raw.total < 1) throw perr(400, `JSON does not validate: inventory ${rc} needs an integer total >= 1`);
  const n = (k: string) => (typeof raw[k] === 'number' ? (raw[k] as number) : undefined);
  return normaliseInventory({ total: raw.total, reserved: n('reserved'), min_unit: n('min_unit'), max_unit: n('max_unit'), step_size: n('step_size'), allocation_ratio: n('allocation_ratio') });
}

function replaceInventories(ctx: Ctx, rp: ResourceProvider, next: Map<string, Inventory>): void {
  for (const rc of rp.inventories.keys()) {
    if (!next.has(rc) && used(ctx.sim, rp.uuid, rc) > 0) throw perr(409, `Inventory for '${rc}' on resource provider '${rp.uuid}' in use.`, 'placement.inventory.inuse');
  }
  rp.inventories = next;
  rp.generation++;
}

function traitsList(ctx: Ctx, name: string | undefined, pool: Iterable<string>): string[] {
  let out = [...pool];
  if (name?.startsWith('startswith:')) out = out.filter((t) => t.startsWith(name.slice(11)));
  else if (name?.startsWith('in:')) { const s = new Set(name.slice(3).split(',')); out = out.filter((t) => s.has(t)); }
  return out.sort();
}

function parseTraitQuery(ctx: Ctx): TraitQuery {
  const q: TraitQuery = { required: [], forbidden: [] };
  const raws = ctx.req.query.getAll('required');
  if (raws.length && !atLeast(ctx.mv, '1.17')) throw perr(400, "Invalid query string parameters: Additional properties are not allowed ('required' was unexpected)");
  const form = atLeast(ctx.mv, '1.22') ? 'HW_CPU_X86_VMX,!CUSTOM_MAGIC' : 'HW_CPU_X86_VMX,CUSTOM_MAGIC';
  const malformed = (raw: string) => perr(400, `Invalid query string parameters: Expected 'required' parameter value of the form: ${form}. Got: ${raw}`);
  for (const raw of raws) {
    if (raw.startsWith('in:')) {
      if (!atLeast(ctx.mv, '1.39')) throw malformed(raw);
      const any = raw.slice(3).split(',');
      if (any.some((t) => !t)) throw malformed(raw);
      q.required.push(any);
      continue;
    }
    const parts = raw.split(',');
    if (parts.some((t) => !t || t === '!')) throw malformed(raw);
    for (const t of parts) {
      if (t.startsWith('!')) {
        if (!atLeast(ctx.mv, '1.22')) throw malformed(raw);
        q.forbidden.push(t.slice(1));
      } else q.required.push([t]);
    }
  }
  // Placement resolves every named trait to its id first: an unknown one is a 400, not an empty result.
  const known = ctx.sim.placement.traits;
  const unknown = [...new Set([...q.required.flat(), ...q.forbidden])].filter((t) => !known.has(t));
  if (unknown.length) throw perr(400, `No such trait(s): ${unknown.join(', ')}`);
  return q;
}

function parseResources(ctx: Ctx, raw: string | undefined): Record<string, number> {
  if (raw === undefined) throw perr(400, "Invalid query string parameters: 'resources' is a required property");
  const out: Record<string, number> = {};
  for (const part of raw.split(',')) {
    const [rc = '', n = ''] = part.split(':');
    if (!/^\d+$/.test(n) || Number(n) < 1) throw perr(400, `Badly formed resources parameter. Expected resources query string parameter in form: ?resources=VCPU:2,MEMORY_MB:1024. Got: ${raw}.`);
    if (!ctx.sim.placement.resourceClasses.has(rc)) throw perr(400, `Invalid resource class in resources parameter: No such resource class ${rc}.`);
    out[rc] = Number(n);
  }
  return out;
}

export function registerPlacement(r: Registrar): void {
  const admin = (ctx: Ctx) => requireAdmin(ctx.auth, 'placement');
  r.get('/resource_providers', (ctx) => {
    admin(ctx);
    const name = ctx.q('name');
    const id = ctx.q('uuid');
    const resources = ctx.q('resources') !== undefined ? parseResources(ctx, ctx.q('resources')) : undefined;
    const traits = ctx.q('required') !== undefined ? parseTraitQuery(ctx) : undefined;
    const inTree = ctx.q('in_tree');
    let rps = [...ctx.sim.placement.rps.values()].filter((rp) => (name === undefined || rp.name === name) && (id === undefined || rp.uuid === id) &&
      (inTree === undefined || rp.rootUuid === ctx.sim.placement.rps.get(inTree)?.rootUuid));
    if (resources || traits) {
      const fit = new Set(candidates(ctx.sim, resources ?? {}, traits ?? { required: [], forbidden: [] }).map((x) => x.uuid));
      rps = rps.filter((x) => fit.has(x.uuid));
    }
    return ok({ resource_providers: rps.map((x) => rpView(ctx, x)) });
  });
  r.post('/resource_providers', (ctx) => {
    admin(ctx);
    const b = body(ctx);
    if (typeof b.name !== 'string' || !b.name) throw perr(400, "JSON does not validate: 'name' is a required property");
    if ([...ctx.sim.placement.rps.values()].some((x) => x.name === b.name)) throw perr(409, `Conflicting resource provider name: ${b.name} already exists.`, 'placement.duplicate_name');
    if (typeof b.uuid === 'string' && ctx.sim.placement.rps.has(b.uuid)) throw perr(409, `Conflicting resource provider uuid: ${b.uuid} already exists.`, 'placement.duplicate_uuid');
    const rp = addProvider(ctx.sim, { uuid: typeof b.uuid === 'string' ? b.uuid : undefined, name: b.name, parentUuid: typeof b.parent_provider_uuid === 'string' ? b.parent_provider_uuid : null });
    const headers = { Location: `/resource_providers/${rp.uuid}` };
    return atLeast(ctx.mv, '1.20') ? ok(rpView(ctx, rp), 200, headers) : noContent(201, headers);
  });
  r.get('/resource_providers/:uuid', (ctx) => { admin(ctx); return ok(rpView(ctx, findRp(ctx))); });
  r.put('/resource_providers/:uuid', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    const b = body(ctx);
    if (typeof b.name === 'string') rp.name = b.name;
    rp.generation++;
    return ok(rpView(ctx, rp));
  });
  r.del('/resource_providers/:uuid', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    if ([...(ctx.sim.placement.usage.get(rp.uuid)?.values() ?? [])].some((n) => n > 0)) throw perr(409, `Unable to delete resource provider ${rp.uuid}: Resource provider has allocations.`, 'placement.resource_provider.inuse');
    ctx.sim.placement.rps.delete(rp.uuid);
    return noContent();
  });

  r.get('/resource_providers/:uuid/inventories', (ctx) => { admin(ctx); return ok(inventoriesView(ctx.sim, findRp(ctx))); });
  r.put('/resource_providers/:uuid/inventories', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    const b = body(ctx);
    checkGeneration(rp, b);
    const next = new Map<string, Inventory>();
    for (const [rc, inv] of Object.entries(isObj(b.inventories) ? b.inventories : {})) next.set(rc, parseInventory(ctx, rc, inv));
    replaceInventories(ctx, rp, next);
    return ok(inventoriesView(ctx.sim, rp));
  });
  r.del('/resource_providers/:uuid/inventories', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    replaceInventories(ctx, rp, new Map());
    return noContent();
  });
  r.get('/resource_providers/:uuid/inventories/:rc', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    const inv = rp.inventories.get(ctx.p('rc'));
    if (!inv) throw perr(404, `No inventory of class ${ctx.p('rc')} for ${rp.uuid}`);
    return ok({ ...inv, resource_provider_generation: rp.generation });
  });
  r.put('/resource_providers/:uuid/inventories/:rc', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    const b = body(ctx);
    checkGeneration(rp, b);
    rp.inventories.set(ctx.p('rc'), parseInventory(ctx, ctx.p('rc'), b));
    rp.generation++;
    return ok({ ...rp.inventories.get(ctx.p('rc')), resource_provider_generation: rp.generation });
  });
  r.del('/resource_providers/:uuid/inventories/:rc', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    if (!rp.inventories.has(ctx.p('rc'))) throw perr(404, `No inventory of class ${ctx.p('rc')} found for delete`);
    const next = new Map(rp.inventories);
    next.delete(ctx.p('rc'));
    replaceInventories(ctx, rp, next);
    return noContent();
  });

  const traitsGate = (ctx: Ctx) => { admin(ctx); if (!atLeast(ctx.mv, '1.6')) throw perr(404, 'The resource could not be found.'); };
  r.get('/resource_providers/:uuid/traits', (ctx) => {
    traitsGate(ctx);
    const rp = findRp(ctx);
    return ok({ traits: [...rp.traits].sort(), resource_provider_generation: rp.generation });
  });
  r.put('/resource_providers/:uuid/traits', (ctx) => {
    traitsGate(ctx);
    const rp = findRp(ctx);
    const b = body(ctx);
    checkGeneration(rp, b);
    const traits = Array.isArray(b.traits) ? b.traits.filter((t): t is string => typeof t === 'string') : null;
    if (!traits) throw perr(400, "JSON does not validate: 'traits' is a required property");
    const unknown = traits.filter((t) => !ctx.sim.placement.traits.has(t));
    if (unknown.length) throw perr(400, `No such trait(s): ${unknown.join(', ')}.`);
    rp.traits = new Set(traits);
    rp.generation++;
    return ok({ traits: [...rp.traits].sort(), resource_provider_generation: rp.generation });
  });
  r.del('/resource_providers/:uuid/traits', (ctx) => {
    traitsGate(ctx);
    const rp = findRp(ctx);
    rp.traits.clear();
    rp.generation++;
    return noContent();
  });
  r.get('/traits', (ctx) => { traitsGate(ctx); return ok({ traits: traitsList(ctx, ctx.q('name'), ctx.sim.placement.traits) }); });
  r.get('/traits/:name', (ctx) => {
    traitsGate(ctx);
    if (!ctx.sim.placement.traits.has(ctx.p('name'))) throw perr(404, `No such trait(s): ${ctx.p('name')}.`);
    return noContent();
  });
  r.put('/traits/:name', (ctx) => {
    traitsGate(ctx);
    const name = ctx.p('name');
    if (!TRAIT_RE.test(name) || name.length > 255) throw perr(400, 'The trait is invalid. A valid trait must be no longer than 255 characters, start with the prefix "CUSTOM_" and use following characters: "A"-"Z", "0"-"9" and "_"');
    const existed = ctx.sim.placement.traits.has(name);
    ctx.sim.placement.traits.add(name);
    return noContent(existed ? 204 : 201, { Location: `/traits/${name}` });
  });
  r.del('/traits/:name', (ctx) => {
    traitsGate(ctx);
    const name = ctx.p('name');
    if (!ctx.sim.placement.traits.has(name)) throw perr(404, `No such trait(s): ${name}.`);
    if (!name.startsWith('CUSTOM_')) throw perr(400, `Cannot delete standard trait ${name}.`);
    if ([...ctx.sim.placement.rps.values()].some((x) => x.traits.has(name))) throw perr(409, `The trait ${name} is in use by a resource provider.`);
    ctx.sim.placement.traits.delete(name);
    return noContent();
  });

  r.get('/resource_classes', (ctx) => {
    admin(ctx);
    return ok({ resource_classes: [...ctx.sim.placement.resourceClasses].map((name) => ({ name, links: [{ rel: 'self', href: `/resource_classes/${name}` }] })) });
  });
  r.put('/resource_classes/:name', (ctx) => {
    admin(ctx);
    const name = ctx.p('name');
    if (!TRAIT_RE.test(name)) throw perr(400, `Invalid resource class name ${name}: custom classes must start with CUSTOM_`);
    const existed = ctx.sim.placement.resourceClasses.has(name);
    ctx.sim.placement.resourceClasses.add(name);
    return noContent(existed ? 204 : 201);
  });

  r.get('/resource_providers/:uuid/usages', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    return ok({ usages: Object.fromEntries([...rp.inventories.keys()].map((rc) => [rc, used(ctx.sim, rp.uuid, rc)])), resource_provider_generation: rp.generation });
  });
  r.get('/resource_providers/:uuid/allocations', (ctx) => {
    admin(ctx);
    const rp = findRp(ctx);
    const allocations: Record<string, unknown> = {};
    for (const c of ctx.sim.placement.consumers.values()) {
      const res = c.allocations.get(rp.uuid);
      if (res) allocations[c.uuid] = { resources: { ...res } };
    }
    return ok({ allocations, resource_provider_generation: rp.generation });
  });
  r.get('/allocations/:consumer', (ctx) => {
    admin(ctx);
    const c = ctx.sim.placement.consumers.get(ctx.p('consumer'));
    const allocations: Record<string, unknown> = {};
    for (const [rp, res] of c?.allocations ?? []) allocations[rp] = { generation: ctx.sim.placement.rps.get(rp)?.generation ?? 0, resources: { ...res } };
    return ok({ allocations, ...(c ? { project_id: c.projectId, user_id: c.userId } : {}), ...(atLeast(ctx.mv, '1.28') && c ? { consumer_generation: c.generation } : {}) });
  });
  r.put('/allocations/:consumer', (ctx) => {
    admin(ctx);
    const b = body(ctx);
    const prev = ctx.sim.placement.consumers.get(ctx.p('consumer'));
    if (atLeast(ctx.mv, '1.28') && b.consumer_generation !== (prev ? prev.generation : null)) {
      throw perr(409, 'consumer generation conflict - expected ' + String(prev?.generation ?? null), 'placement.concurrent_update');
    }
    const map = new Map<string, Record<string, number>>();
    for (const [rp, v] of Object.entries(isObj(b.allocations) ? b.allocations : {})) {
      const res = isObj(v) && isObj(v.resources) ? v.resources : {};
      map.set(rp, Object.fromEntries(Object.entries(res).map(([k, n]) => [k, Number(n)])));
    }
    if (map.size === 0) removeConsumer(ctx.sim, ctx.p('consumer'));
    else setAllocations(ctx.sim, ctx.p('consumer'), String(b.project_id ?? ''), String(b.user_id ?? ''), map);
    return noContent();
  });
  r.del('/allocations/:consumer', (ctx) => {
    admin(ctx);
    if (!ctx.sim.placement.consumers.has(ctx.p('consumer'))) throw perr(404, `No allocations for consumer '${ctx.p('consumer')}'`);
    removeConsumer(ctx.sim, ctx.p('consumer'));
    return noContent();
  });
  r.get('/usages', (ctx) => {
    admin(ctx);
    const project = ctx.q('project_id');
    if (project === undefined) throw perr(400, "Invalid query string parameters: 'project_id' is a required property");
    const usages: Record<string, number> = {};
    for (const c of ctx.sim.placement.consumers.values()) {
      if (c.projectId !== project) continue;
      for (const res of c.allocations.values()) for (const [rc, n] of Object.entries(res)) usages[rc] = (usages[rc] ?? 0) + n;
    }
    return ok({ usages });
  });

  r.get('/allocation_candidates', (ctx) => {
    admin(ctx);
    if (!atLeast(ctx.mv, '1.10')) throw perr(404, 'The resource could not be found.');
    const resources = parseResources(ctx, ctx.q('resources'));
    const traits = parseTraitQuery(ctx);
    const rawLimit = ctx.q('limit');
    if (rawLimit !== undefined && !atLeast(ctx.mv, '1.16')) throw perr(400, "Invalid query string parameters: Additional properties are not allowed ('limit' was unexpected)");
    if (rawLimit !== undefined && !/^[1-9]\d*$/.test(rawLimit)) throw perr(400, `Invalid query string parameters: Failed validating 'pattern' in schema['properties']['limit']: ${rawLimit}`);
    const limit = rawLimit !== undefined ? Number(rawLimit) : undefined;
    // in_tree (1.31): only providers in the tree of the named one; an unknown provider answers no candidate
    // (Placement catches its ResourceProviderNotFound: objects/allocation_candidate.py), not an error
    const inTree = ctx.q('in_tree');
    if (inTree !== undefined && !atLeast(ctx.mv, '1.31')) throw perr(400, "Invalid query string parameters: Additional properties are not allowed ('in_tree' was unexpected)");
    const treeRoot = inTree === undefined ? undefined : (ctx.sim.placement.rps.get(inTree)?.rootUuid ?? null);
    const found = candidates(ctx.sim, resources, traits).filter((rp) => treeRoot === undefined || rp.rootUuid === treeRoot).slice(0, limit);
    const dict = atLeast(ctx.mv, '1.12');
    const allocation_requests = found.map((rp) => (dict
      ? { allocations: { [rp.uuid]: { resources: { ...resources } } }, ...(atLeast(ctx.mv, '1.34') ? { mappings: { '': [rp.uuid] } } : {}) }
      : { allocations: [{ resource_provider: { uuid: rp.uuid }, resources: { ...resources } }] }));
    const provider_summaries: Record<string, unknown> = {};
    for (const rp of found) {
      const classes = atLeast(ctx.mv, '1.27') ? [...rp.inventories.keys()] : Object.keys(resources);
      provider_summaries[rp.uuid] = {
        resources: Object.fromEntries(classes.map((rc) => {
          const inv = rp.inventories.get(rc) as Inventory;
          return [rc, { capacity: capacity(inv), used: used(ctx.sim, rp.uuid, rc) }];
        })),
        ...(atLeast(ctx.mv, '1.17') ? { traits: [...rp.traits].sort() } : {}),
        ...(atLeast(ctx.mv, '1.29') ? { parent_provider_uuid: rp.parentUuid, root_provider_uuid: rp.rootUuid } : {}),
      };
    }
    const headers: Record<string, string> = atLeast(ctx.mv, '1.15') ? { 'Cache-Control': 'no-cache', 'Last-Modified': new Date(ctx.sim.now()).toUTCString() } : {};
    return ok({ allocation_requests, provider_summaries }, 200, headers);
  });
}
