// Volume types and their extra specs. Extra specs are shown to admins only, as Cinder's default policy does.
import { requireAdmin } from '../auth.js';
import { SimError, ok } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj, member, optBool, optNullableStr, optStrMap, reqStr } from '../validate.js';
import { checkUrlProject } from './common.js';
import type { VolumeType } from './model.js';

function view(ctx: Ctx, t: VolumeType): Record<string, unknown> {
  return {
    id: t.id, name: t.name, description: t.description, is_public: t.isPublic, 'os-volume-type-access:is_public': t.isPublic,
    qos_specs_id: null, ...(ctx.auth.isAdmin ? { extra_specs: { ...t.extraSpecs } } : {}),
  };
}

function find(ctx: Ctx, id: string): VolumeType {
  checkUrlProject(ctx);
  const t = ctx.sim.cinder.types.get(id) ?? [...ctx.sim.cinder.types.values()].find((x) => x.name === id);
  if (!t || (!t.isPublic && !ctx.auth.isAdmin)) throw new SimError(404, `Volume type ${id} could not be found.`);
  return t;
}

export function registerTypes(r: Registrar): void {
  r.get('/types', (ctx) => {
    checkUrlProject(ctx);
    const ts = [...ctx.sim.cinder.types.values()].filter((t) => t.isPublic || ctx.auth.isAdmin);
    return ok({ volume_types: ts.map((t) => view(ctx, t)) });
  });
  r.get('/types/default', (ctx) => {
    if (!atLeast(ctx.mv, '3.62')) throw new SimError(404, 'Volume type default could not be found.');
    return ok({ volume_type: view(ctx, find(ctx, ctx.sim.cinder.defaultTypeId)) });
  });
  r.get('/types/:id', (ctx) => ok({ volume_type: view(ctx, find(ctx, ctx.p('id'))) }));
  r.post('/types', (ctx) => {
    checkUrlProject(ctx);
    requireAdmin(ctx.auth, 'volume_extension:types_manage');
    const b = member(ctx.req.body, 'volume_type');
    const name = reqStr(b, 'name', 255);
    if ([...ctx.sim.cinder.types.values()].some((t) => t.name === name)) throw new SimError(409, `Volume Type ${name} already exists.`);
    const t: VolumeType = {
      id: uuid(), name, description: optNullableStr(b, 'description') ?? null,
      isPublic: optBool(b, 'os-volume-type-access:is_public') ?? optBool(b, 'is_public') ?? true, extraSpecs: optStrMap(b, 'extra_specs') ?? {},
    };
    ctx.sim.cinder.types.set(t.id, t);
    return ok({ volume_type: view(ctx, t) });
  });
  r.del('/types/:id', (ctx) => {
    requireAdmin(ctx.auth, 'volume_extension:types_manage');
    const t = find(ctx, ctx.p('id'));
    if ([...ctx.sim.cinder.volumes.values()].some((v) => v.typeId === t.id)) throw new SimError(400, 'Target volume type is still in use.');
    ctx.sim.cinder.types.delete(t.id);
    return { status: 202 };
  });
  r.get('/types/:id/extra_specs', (ctx) => {
    requireAdmin(ctx.auth, 'volume_extension:types_extra_specs:index');
    return ok({ extra_specs: { ...find(ctx, ctx.p('id')).extraSpecs } });
  });
  r.post('/types/:id/extra_specs', (ctx) => {
    requireAdmin(ctx.auth, 'volume_extension:types_extra_specs:create');
    const t = find(ctx, ctx.p('id'));
    const specs = optStrMap(isObj(ctx.req.body) ? ctx.req.body : {}, 'extra_specs');
    if (!specs) throw new SimError(400, 'Malformed request body');
    Object.assign(t.extraSpecs, specs);
    return ok({ extra_specs: specs });
  });
}
