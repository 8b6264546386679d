// Glance v2 images: create (queued) → PUT file (active), list with filters and limit/marker paging
// (the `next` link is "/v2/images?..." relative to the endpoint, exactly as Glance writes it), PATCH
// with JSON-patch, tags, deactivate/reactivate, delete.
import type { AuthContext } from '../auth.js';
import { SimError, noContent, ok } from '../http.js';
import { isoSeconds, md5, sha512, uuid } from '../ids.js';
import { isFullPage, page, parseLimit, withMarker } from '../paging.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj } from '../validate.js';
import type { Image } from './model.js';

const CORE = new Set(['id', 'name', 'status', 'visibility', 'protected', 'os_hidden', 'owner', 'container_format', 'disk_format',
  'min_disk', 'min_ram', 'size', 'virtual_size', 'checksum', 'os_hash_algo', 'os_hash_value', 'tags', 'created_at', 'updated_at',
  'self', 'file', 'schema', 'direct_url', 'locations']);
const READ_ONLY = new Set(['status', 'owner', 'size', 'virtual_size', 'checksum', 'os_hash_algo', 'os_hash_value', 'created_at', 'updated_at', 'self', 'file', 'schema']);
const CONTAINER = ['ami', 'ari', 'aki', 'bare', 'ovf', 'ova', 'docker', 'compressed'];
const DISK = ['ami', 'ari', 'aki', 'vhd', 'vhdx', 'vmdk', 'raw', 'qcow2', 'vdi', 'iso', 'ploop'];

export function imageView(i: Image): Record<string, unknown> {
  return {
    ...i.properties,
    id: i.id, name: i.name, status: i.status, visibility: i.visibility, protected: i.protected, os_hidden: i.osHidden,
    owner: i.owner, container_format: i.containerFormat, disk_format: i.diskFormat, min_disk: i.minDisk, min_ram: i.minRam,
    size: i.size, virtual_size: i.virtualSize, checksum: i.checksum, os_hash_algo: i.hash ? 'sha512' : null, os_hash_value: i.hash,
    tags: [...i.tags], created_at: isoSeconds(i.created), updated_at: isoSeconds(i.updated),
    self: `/v2/images/${i.id}`, file: `/v2/images/${i.id}/file`, schema: '/v2/schemas/image',
  };
}

/** Public and community images are visible to all; private and shared ones to their owner (and admins). */
export function imageVisible(auth: AuthContext, i: Image): boolean {
  return auth.isAdmin || i.visibility === 'public' || i.visibility === 'community' || i.owner === auth.projectId;
}

export function findImage(ctx: Ctx, id: string): Image {
  const i = ctx.sim.glance.images.get(id);
  if (!i || !imageVisible(ctx.auth, i)) throw new SimError(404, `No image found with ID ${id}`);
  return i;
}

function mutable(ctx: Ctx, i: Image): void {
  if (!ctx.auth.isAdmin && i.owner !== ctx.auth.projectId) throw new SimError(403, `You are not permitted to modify image ${i.id}.`);
}

export interface NewImage {
  id?: string; name: string; owner: string; visibility?: string; containerFormat?: string | null; diskFormat?: string | null;
  minDisk?: number; minRam?: number; protected?: boolean; tags?: string[]; properties?: Record<string, string>; data?: Buffer;
}

export function createImage(sim: Sim, o: NewImage): Image {
  const now = sim.now();
  const i: Image = {
    id: o.id ?? uuid(), name: o.name, status: 'queued', visibility: o.visibility ?? 'shared', protected: o.protected ?? false,
    osHidden: false, owner: o.owner, containerFormat: o.containerFormat ?? null, diskFormat: o.diskFormat ?? null,
    minDisk: o.minDisk ?? 0, minRam: o.minRam ?? 0, size: null, virtualSize: null, checksum: null, hash: null,
    tags: o.tags ?? [], properties: o.properties ?? {}, created: now, updated: now, data: null,
  };
  sim.glance.images.set(i.id, i);
  if (o.data) upload(sim, i, o.data);
  return i;
}

export function upload(sim: Sim, i: Image, data: Buffer): void {
  i.data = data;
  i.size = data.length;
  i.virtualSize = data.length;
  i.checksum = md5(data);
  i.hash = sha512(data);
  i.status = 'active';
  i.updated = sim.now();
}

function validFormat(kind: 'container_format' | 'disk_format', v: unknown): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null) return null;
  const allowed = kind === 'container_format' ? CONTAINER : DISK;
  if (typeof v !== 'string' || !allowed.includes(v)) throw new SimError(400, `Invalid value '${String(v)}' for parameter '${kind}': ${kind} must be one of ${allowed.join(', ')}`);
  return v;
}

function setField(ctx: Ctx, i: Image, key: string, value: unknown, op: string): void {
  if (READ_ONLY.has(key) || key === 'id') throw new SimError(403, `Attribute '${key}' is read-only.`);
  switch (key) {
    case 'name': i.name = value === null ? null : String(value); return;
    case 'visibility':
      if (!['public', 'private', 'shared', 'community'].includes(String(value))) throw new SimError(400, `Invalid visibility value: ${String(value)}`);
      if (value === 'public' && !ctx.auth.isAdmin) throw new SimError(403, 'You are not authorized to complete publicize_image action.');
      i.visibility = String(value);
      return;
    case 'protected': i.protected = value === true || value === 'true'; return;
    case 'os_hidden': i.osHidden = value === true || value === 'true'; return;
    case 'min_disk': i.minDisk = Number(value) || 0; return;
    case 'min_ram': i.minRam = Number(value) || 0; return;
    case 'container_format': i.containerFormat = validFormat('container_format', value) ?? null; return;
    case 'disk_format': i.diskFormat = validFormat('disk_format', value) ?? null; return;
    case 'tags':
      if (!Array.isArray(value)) throw new SimError(400, 'tags must be a list');
      i.tags = [...new Set(value.map(String))];
      return;
    default:
      if (op === 'remove') {
        if (!(key in i.properties)) throw new SimError(409, `Property ${key} does not exist.`);
        delete i.properties[key];
      } else {
        if (typeof value !== 'string') throw new SimError(400, `Additional properties must be strings: ${key}`);
        i.properties[key] = value;
      }
  }
}

function filters(ctx: Ctx, i: Image): boolean {
  const q = ctx.req.query;
  for (const [k, v] of q) {
    switch (k) {
      case 'limit': case 'marker': case 'sort_key': case 'sort_dir': case 'sort': case 'member_status': continue;
      case 'name': if (i.name !== v) return false; break;
      case 'status': if (i.status !== v) return false; break;
      case 'visibility':
        if (v !== 'all' && i.visibility !== v) return false;
        break;
      case 'owner': if (i.owner !== v) return false; break;
      case 'tag': if (!i.tags.includes(v)) return false; break;
      case 'protected': if (String(i.protected) !== v.toLowerCase()) return false; break;
      case 'os_hidden': if (String(i.osHidden) !== v.toLowerCase()) return false; break;
      case 'container_format': if (i.containerFormat !== v) return false; break;
      case 'disk_format': if (i.diskFormat !== v) return false; break;
      case 'id': if (!(v.startsWith('in:') ? v.slice(3).split(',') : [v]).includes(i.id)) return false; break;
      default: if (i.properties[k] !== v) return false;
    }
  }
  // Without a visibility filter Glance lists everything except community images and hidden ones.
  if (!q.has('visibility') && i.visibility === 'community' && i.owner !== ctx.auth.projectId) return false;
  if (!q.has('os_hidden') && i.osHidden) return false;
  return true;
}

export function registerGlance(r: Registrar): void {
  r.get('/v2/images', (ctx) => {
    const limit = parseLimit(ctx.q('limit'), 1000, 'limit param must be an integer') ?? 25;
    const all = [...ctx.sim.glance.images.values()].filter((i) => imageVisible(ctx.auth, i) && filters(ctx, i)).reverse();
    const pg = page(all, (i) => i.id, limit, ctx.q('marker'), (m) => new SimError(400, `marker ${m} could not be found.`));
    const body: Record<string, unknown> = { images: pg.items.map(imageView), first: '/v2/images', schema: '/v2/schemas/images' };
    const last = pg.items[pg.items.length - 1];
    if (isFullPage(pg.items, limit) && last) body.next = `/v2/images?${withMarker(ctx.req.query, last.id, undefined)}`;
    return ok(body);
  });
  r.get('/v2/images/:id', (ctx) => ok(imageView(findImage(ctx, ctx.p('id')))));
  r.post('/v2/images', (ctx) => {
    const b = ctx.req.body;
    if (!isObj(b)) throw new SimError(400, 'Body expected in request.');
    if (b.visibility === 'public' && !ctx.auth.isAdmin) throw new SimError(403, 'You are not authorized to complete publicize_image action.');
    if (typeof b.id === 'string' && ctx.sim.glance.images.has(b.id)) throw new SimError(409, `An image with identifier ${b.id} already exists`);
    const img = createImage(ctx.sim, { id: typeof b.id === 'string' ? b.id : undefined, name: '', owner: ctx.auth.projectId ?? '' });
    try {
      for (const [k, v] of Object.entries(b)) {
        if (k === 'id') continue;
        if (k === 'owner' && ctx.auth.isAdmin && typeof v === 'string') { img.owner = v; continue; }
        if (k === 'locations') continue;
        setField(ctx, img, k, v, 'add');
      }
    } catch (e) {
      ctx.sim.glance.images.delete(img.id);
      throw e;
    }
    if (b.name === undefined) img.name = null;
    return ok(imageView(img), 201, { Location: ctx.sim.url(`/image/v2/images/${img.id}`) });
  });
  r.patch('/v2/images/:id', (ctx) => {
    const img = findImage(ctx, ctx.p('id'));
    mutable(ctx, img);
    const ops = ctx.req.body;
    if (!Array.isArray(ops)) throw new SimError(400, 'Request body must be a JSON array of operation objects.');
    for (const op of ops) {
      if (!isObj(op) || typeof op.op !== 'string' || typeof op.path !== 'string') throw new SimError(400, 'Operation objects must contain "op" and "path".');
      const key = op.path.replace(/^\//, '').replace(/~1/g, '/').replace(/~0/g, '~');
      if (!['add', 'replace', 'remove'].includes(op.op)) throw new SimError(400, `Invalid operation: ${op.op}`);
      if (op.op === 'replace' && !CORE.has(key) && !(key in img.properties)) throw new SimError(409, `Property ${key} does not exist.`);
      setField(ctx, img, key, op.value, op.op);
    }
    img.updated = ctx.sim.now();
    return ok(imageView(img));
  });
  r.del('/v2/images/:id', (ctx) => {
    const img = findImage(ctx, ctx.p('id'));
    mutable(ctx, img);
    if (img.protected) throw new SimError(403, `Image ${img.id} is protected and cannot be deleted.`);
    ctx.sim.glance.images.delete(img.id);
    return noContent();
  });
  r.put('/v2/images/:id/file', (ctx) => {
    const img = findImage(ctx, ctx.p('id'));
    mutable(ctx, img);
    if (img.status !== 'queued') throw new SimError(409, `Image status transition from ${img.status} to saving is not allowed`);
    if (!img.containerFormat || !img.diskFormat) throw new SimError(400, 'Properties container_format and disk_format must be set prior to saving data.');
    upload(ctx.sim, img, ctx.req.raw);
    return noContent();
  });
  r.get('/v2/images/:id/file', (ctx) => {
    const img = findImage(ctx, ctx.p('id'));
    if (!img.data) return noContent();
    return { status: 200, raw: img.data, contentType: 'application/octet-stream', headers: { 'Content-MD5': img.checksum ?? '' } };
  });
  r.put('/v2/images/:id/tags/:tag', (ctx) => {
    const img = findImage(ctx, ctx.p('id'));
    mutable(ctx, img);
    if (!img.tags.includes(ctx.p('tag'))) img.tags.push(ctx.p('tag'));
    img.updated = ctx.sim.now();
    return noContent();
  });
  r.del('/v2/images/:id/tags/:tag', (ctx) => {
    const img = findImage(ctx, ctx.p('id'));
    mutable(ctx, img);
    const i = img.tags.indexOf(ctx.p('tag'));
    if (i < 0) throw new SimError(404, `Tag ${ctx.p('tag')} not found`);
    img.tags.splice(i, 1);
    img.updated = ctx.sim.now();
    return noContent();
  });
  r.post('/v2/images/:id/actions/deactivate', (ctx) => {
    const img = findImage(ctx, ctx.p('id'));
    if (!ctx.auth.isAdmin) throw new SimError(403, 'You are not authorized to complete deactivate action.');
    if (img.status !== 'active' && img.status !== 'deactivated') throw new SimError(403, 'Not allowed to deactivate image in status ' + img.status);
    img.status = 'deactivated';
    return noContent();
  });
  r.post('/v2/images/:id/actions/reactivate', (ctx) => {
    const img = findImage(ctx, ctx.p('id'));
    if (!ctx.auth.isAdmin) throw new SimError(403, 'You are not authorized to complete reactivate action.');
    if (img.status !== 'active' && img.status !== 'deactivated') throw new SimError(403, 'Not allowed to reactivate image in status ' + img.status);
    img.status = 'active';
    return noContent();
  });
  r.get('/v2/schemas/image', () => ok({ name: 'image', properties: {}, additionalProperties: { type: 'string' } }));
  r.get('/v2/schemas/images', () => ok({ name: 'images', properties: { images: { type: 'array' } } }));
}
