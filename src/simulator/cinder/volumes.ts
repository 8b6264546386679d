// Cinder volumes: creating → available on the clock, deleting → gone, limit/marker paging, the exact
// `?name=` filter of stock Cinder under MySQL's case- and accent-insensitive collation (substring when
// configured, or `name~` from 3.34), metadata, actions.
import { requireWriter } from '../auth.js';
import { SimError, ok } from '../http.js';
import type { SimResponse } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import { isFullPage, page, parseLimit, withMarker } from '../paging.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, member, optBool, optInt, optNullableStr, optStr, optStrMap, reqInt } from '../validate.js';
import { imageVisible } from '../glance/images.js';
import { attachmentsOf } from './attachments.js';
import { checkUrlProject, findVolume, volumeLinks, volumeView } from './common.js';
import type { Volume } from './model.js';
import { checkVolumeQuota } from './quotas.js';

export interface NewVolume {
  projectId: string; userId: string; size: number; name?: string | null; description?: string | null; typeId?: string;
  imageId?: string | null; metadata?: Record<string, string>; multiattach?: boolean; sourceVolid?: string | null; status?: string;
}

export function createVolume(sim: Sim, o: NewVolume): Volume {
  const now = sim.now();
  const v: Volume = {
    id: uuid(), name: o.name ?? null, description: o.description ?? null, projectId: o.projectId, userId: o.userId, size: o.size,
    status: o.status ?? 'creating', attachStatus: 'detached', migrationStatus: null, typeId: o.typeId ?? sim.cinder.defaultTypeId,
    az: 'nova', bootable: false, multiattach: o.multiattach ?? false, metadata: o.metadata ?? {}, imageMetadata: {}, created: now,
    updated: now, gen: 0, snapshotId: null, sourceVolid: o.sourceVolid ?? null, imageId: o.imageId ?? null, seq: sim.cinder.nextSeq++,
  };
  const img = o.imageId ? sim.glance.images.get(o.imageId) : undefined;
  if (img) {
    v.bootable = true;
    v.imageMetadata = { image_id: img.id, image_name: img.name ?? '', container_format: img.containerFormat ?? '', disk_format: img.diskFormat ?? '',
      min_disk: String(img.minDisk), min_ram: String(img.minRam), size: String(img.size ?? 0), checksum: img.checksum ?? '', ...img.properties };
  }
  sim.cinder.volumes.set(v.id, v);
  if (v.status === 'creating') {
    const gen = v.gen;
    const fail = sim.config.cinder.failCreate;
    sim.after(sim.delays.volumeCreate, () => {
      if (v.gen !== gen || !sim.cinder.volumes.has(v.id) || v.status !== 'creating') return;
      v.status = fail && v.name !== null && new RegExp(fail).test(v.name) ? 'error' : 'available';
      v.updated = sim.now();
    });
  }
  return v;
}

export function scheduleDelete(sim: Sim, v: Volume): void {
  v.status = 'deleting';
  v.updated = sim.now();
  v.gen++;
  const gen = v.gen;
  sim.after(sim.delays.volumeDelete, () => {
    if (v.gen === gen) sim.cinder.volumes.delete(v.id);
  });
}

function resolveType(ctx: Ctx, ref: string | undefined): string {
  const types = ctx.sim.cinder.types;
  if (ref === undefined) return ctx.sim.cinder.defaultTypeId;
  const t = types.get(ref) ?? [...types.values()].find((x) => x.name === ref);
  if (!t) throw new SimError(404, `Volume type with name ${ref} could not be found.`);
  return t.id;
}

/**
 * A name as Cinder's MySQL compares it (utf8 `*_general_ci`, PAD SPACE): case and accents do not count, trailing
 * spaces are ignored. Measured on the sandbox: `name=` with the name upper-cased, with `é` written `e` or `É`, or
 * with trailing spaces finds the volume; a leading space or a prefix does not. `name~` (LIKE) folds the same way.
 */
export const collationKey = (name: string): string => name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/ +$/, '');

/** Statuses `os-reset_status` accepts (cinder/objects/fields.py VolumeStatus, as Zed's 400 lists them). */
const RESET_STATUSES = ['creating', 'available', 'deleting', 'error', 'error_deleting', 'error_managing', 'managing', 'attaching', 'in-use', 'detaching',
  'maintenance', 'restoring-backup', 'error_restoring', 'reserved', 'awaiting-transfer', 'backing-up', 'error_backing-up', 'error_extending', 'downloading',
  'uploading', 'retyping', 'extending'];

/** `metadata={"k": "v"}` as Cinder accepts it (JSON, or Python-dict quoting). */
function parseMetadataFilter(raw: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(raw.replace(/'/g, '"'));
    if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
  } catch {
    // fall through
  }
  throw new SimError(400, `Invalid input received: Invalid metadata filter: ${raw}`);
}

function list(ctx: Ctx, detail: boolean): SimResponse {
  checkUrlProject(ctx);
  const sim = ctx.sim;
  const all = ctx.auth.isAdmin && ['1', 'true', 'True'].includes(ctx.q('all_tenants') ?? '');
  const projectF = all ? ctx.q('project_id') : undefined;
  const name = ctx.q('name');
  const nameLike = atLeast(ctx.mv, '3.34') ? ctx.q('name~') : undefined;
  const status = ctx.q('status');
  const bootable = ctx.q('bootable');
  const metadata = ctx.q('metadata') !== undefined ? parseMetadataFilter(ctx.q('metadata') ?? '') : undefined;
  const fuzzy = sim.config.cinder.fuzzyNameFilter;
  const rows: Volume[] = [];
  for (const v of sim.cinder.volumes.values()) {
    if (!all && v.projectId !== ctx.auth.projectId) continue;
    if (projectF !== undefined && v.projectId !== projectF) continue;
    const key = collationKey(v.name ?? '');
    if (name !== undefined && (fuzzy ? !key.includes(collationKey(name)) : key !== collationKey(name))) continue;
    if (nameLike !== undefined && !key.includes(collationKey(nameLike))) continue;
    if (status !== undefined && v.status !== status) continue;
    if (bootable !== undefined && String(v.bootable) !== bootable.toLowerCase()) continue;
    if (metadata && Object.entries(metadata).some(([k, x]) => v.metadata[k] !== x)) continue;
    rows.push(v);
  }
  rows.reverse();
  const limit = parseLimit(ctx.q('limit'), 1000, `Invalid input received: limit must be an integer.`) ?? 1000;
  const pg = page(rows, (v) => v.id, limit, ctx.q('marker'), (m) => new SimError(404, `Marker ${m} could not be found.`));
  const body: Record<string, unknown> = {
    volumes: pg.items.map((v) => (detail ? volumeView(ctx, v) : { id: v.id, name: v.name, links: volumeLinks(ctx, v.id) })),
  };
  const last = pg.items[pg.items.length - 1];
  if (isFullPage(pg.items, limit) && last) {
    body.volumes_links = [{ href: ctx.sim.url(`/volume/v3/${ctx.p('project_id')}/volumes${detail ? '/detail' : ''}?${withMarker(ctx.req.query, last.id, ctx.q('limit') !== undefined ? limit : undefined)}`), rel: 'next' }];
  }
  if (atLeast(ctx.mv, '3.45') && ctx.q('with_count') !== undefined) body.count = rows.length;
  return ok(body);
}

const DELETABLE = ['available', 'error', 'error_restoring', 'error_extending', 'error_managing'];

export function registerVolumes(r: Registrar): void {
  r.get('/volumes', (ctx) => list(ctx, false));
  r.get('/volumes/detail', (ctx) => list(ctx, true));
  r.get('/volumes/:id', (ctx) => ok({ volume: volumeView(ctx, findVolume(ctx, ctx.p('id'))) }));
  r.post('/volumes', (ctx) => {
    checkUrlProject(ctx);
    requireWriter(ctx.auth, 'volume:create');
    const b = member(ctx.req.body, 'volume');
    const imageRef = optStr(b, 'imageRef') ?? optStr(b, 'image_id');
    const src = optStr(b, 'source_volid');
    let size = optInt(b, 'size', Number.MIN_SAFE_INTEGER);
    if (b.snapshot_id !== undefined && b.snapshot_id !== null) throw new SimError(404, `Snapshot ${String(b.snapshot_id)} could not be found.`);
    const source = src ? findVolume(ctx, src) : undefined;
    if (size === undefined && source) size = source.size;
    if (size === undefined || size < 1) throw new SimError(400, `Invalid input received: Volume size '${String(b.size)}' must be an integer and greater than 0`);
    const az = optStr(b, 'availability_zone');
    if (az !== undefined && az !== 'nova') throw new SimError(400, `Invalid input received: Availability zone '${az}' is invalid.`);
    if (imageRef !== undefined) {
      const img = ctx.sim.glance.images.get(imageRef);
      if (!img || !imageVisible(ctx.auth, img) || img.status !== 'active') throw new SimError(400, 'Invalid image identifier or unable to access requested image.');
      if ((img.minDisk ?? 0) > size) throw new SimError(400, `Invalid input received: Volume size ${size}GB cannot be smaller than the image minDisk size ${img.minDisk}GB.`);
    }
    checkVolumeQuota(ctx.sim, ctx.auth.projectId ?? '', size);
    const v = createVolume(ctx.sim, {
      projectId: ctx.auth.projectId ?? '', userId: ctx.auth.userId, size, name: optNullableStr(b, 'name') ?? null,
      description: optNullableStr(b, 'description') ?? null, typeId: resolveType(ctx, optStr(b, 'volume_type') ?? source?.typeId),
      imageId: imageRef ?? null, metadata: optStrMap(b, 'metadata'), multiattach: optBool(b, 'multiattach'), sourceVolid: src ?? null,
    });
    return ok({ volume: volumeView(ctx, v) }, 202);
  });
  r.put('/volumes/:id', (ctx) => {
    const v = findVolume(ctx, ctx.p('id'));
    requireWriter(ctx.auth, 'volume:update');
    const b = member(ctx.req.body, 'volume');
    if (b.name !== undefined) v.name = optNullableStr(b, 'name') ?? null;
    if (b.display_name !== undefined) v.name = optNullableStr(b, 'display_name') ?? null;
    if (b.description !== undefined) v.description = optNullableStr(b, 'description') ?? null;
    v.metadata = optStrMap(b, 'metadata') ?? v.metadata;
    v.updated = ctx.sim.now();
    return ok({ volume: volumeView(ctx, v) });
  });
  r.del('/volumes/:id', (ctx) => {
    const v = findVolume(ctx, ctx.p('id'));
    requireWriter(ctx.auth, 'volume:delete');
    if (!DELETABLE.includes(v.status) || attachmentsOf(ctx.sim, v.id).length > 0 || v.migrationStatus) {
      throw new SimError(400, 'Invalid volume: Volume status must be available or error or error_restoring or error_extending or error_managing and must not be migrating, attached, belong to a group, have snapshots, awaiting a transfer, or be disassociated from snapshots after volume transfer.');
    }
    scheduleDelete(ctx.sim, v);
    return { status: 202 };
  });
  registerMetadata(r);
}

function registerMetadata(r: Registrar): void {
  r.get('/volumes/:id/metadata', (ctx) => ok({ metadata: { ...findVolume(ctx, ctx.p('id')).metadata } }));
  const write = (replace: boolean) => (ctx: Ctx) => {
    const v = findVolume(ctx, ctx.p('id'));
    requireWriter(ctx.auth, 'volume:update_volume_metadata');
    const md = optStrMap(isObj(ctx.req.body) ? ctx.req.body : {}, 'metadata');
    if (!md) throw new SimError(400, 'Malformed request body');
    v.metadata = replace ? { ...md } : { ...v.metadata, ...md };
    v.updated = ctx.sim.now();
    return ok({ metadata: { ...v.metadata } });
  };
  r.post('/volumes/:id/metadata', write(false));
  r.put('/volumes/:id/metadata', write(true));
  r.get('/volumes/:id/metadata/:key', (ctx) => {
    const v = findVolume(ctx, ctx.p('id'));
    const val = v.metadata[ctx.p('key')];
    if (val === undefined) throw new SimError(404, 'Metadata item was not found');
    return ok({ meta: { [ctx.p('key')]: val } });
  });
  r.put('/volumes/:id/metadata/:key', (ctx) => {
    const v = findVolume(ctx, ctx.p('id'));
    const md = optStrMap(isObj(ctx.req.body) ? ctx.req.body : {}, 'meta');
    const val = md?.[ctx.p('key')];
    if (val === undefined) throw new SimError(400, 'Request body and URI mismatch');
    v.metadata[ctx.p('key')] = val;
    return ok({ meta: { [ctx.p('key')]: val } });
  });
  r.del('/volumes/:id/metadata/:key', (ctx) => {
    const v = findVolume(ctx, ctx.p('id'));
    if (!(ctx.p('key') in v.metadata)) throw new SimError(404, 'Metadata item was not found');
    delete v.metadata[ctx.p('key')];
    return ok(undefined);
  });
}

export function registerVolumeActions(r: Registrar): void {
  r.post('/volumes/:id/action', (ctx) => {
    const v = findVolume(ctx, ctx.p('id'));
    const b = ctx.req.body;
    const action = isObj(b) ? Object.keys(b)[0] : undefined;
    const arg = isObj(b) && action ? b[action] : undefined;
    const sim = ctx.sim;
    switch (action) {
      case 'os-reset_status': {
        if (!ctx.auth.isAdmin) throw new SimError(403, 'Policy doesn\'t allow volume_extension:volume_admin_actions:reset_status to be performed.');
        const a = isObj(arg) ? arg : {};
        if (typeof a.status === 'string' && !RESET_STATUSES.includes(a.status)) {
          throw new SimError(400, `Volume status: ${a.status} is invalid, valid statuses are: (${RESET_STATUSES.map((x) => `'${x}'`).join(', ')}).`);
        }
        if (typeof a.status === 'string') v.status = a.status;
        if (a.attach_status === 'attached' || a.attach_status === 'detached') v.attachStatus = a.attach_status;
        if (a.migration_status !== undefined) v.migrationStatus = typeof a.migration_status === 'string' ? a.migration_status : null;
        v.gen++;
        v.updated = sim.now();
        return { status: 202 };
      }
      case 'os-force_delete': {
        if (!ctx.auth.isAdmin) throw new SimError(403, 'Policy doesn\'t allow volume_extension:volume_admin_actions:force_delete to be performed.');
        for (const a of attachmentsOf(sim, v.id)) sim.cinder.attachments.delete(a.id);
        scheduleDelete(sim, v);
        return { status: 202 };
      }
      case 'os-extend': {
        requireWriter(ctx.auth, 'volume:extend');
        const newSize = reqInt(isObj(arg) ? arg : {}, 'new_size');
        const inUseOk = atLeast(ctx.mv, '3.42') && v.status === 'in-use';
        if (v.status !== 'available' && !inUseOk) throw new SimError(400, `Invalid volume: Volume ${v.id} status must be available${atLeast(ctx.mv, '3.42') ? ' or in-use' : ''}, but current status is: ${v.status}.`);
        if (newSize <= v.size) throw new SimError(400, `Invalid input received: New size for extend must be greater than current size. (current: ${v.size}, extended: ${newSize}).`);
        const back = v.status;
        v.status = 'extending';
        const gen = ++v.gen;
        sim.after(sim.delays.volumeAction, () => {
          if (v.gen !== gen) return;
          v.size = newSize;
          v.status = back;
          v.updated = sim.now();
        });
        return { status: 202 };
      }
      case 'os-set_bootable': {
        requireWriter(ctx.auth, 'volume:update');
        v.bootable = optBool(isObj(arg) ? arg : {}, 'bootable') ?? v.bootable;
        return ok(undefined);
      }
      default:
        throw new SimError(400, `There is no such action: ${action ?? '(none)'}`);
    }
  });
}
