// Server sub-resources: metadata, tags (2.26), os-interface, os-instance-actions.
import { requireWriter } from '../auth.js';
import { SimError, noContent, ok } from '../http.js';
import { isoMicros } from '../ids.js';
import { atLeast } from '../microversion.js';
import { page, parseLimit, withMarker } from '../paging.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj } from '../validate.js';
import { checkMetadataKeys } from './metadata.js';
import { checkState, checkUnlocked, touch } from './lifecycle.js';
import type { Server } from './model.js';
import { findServer } from './servers.js';

const META_STATES = ['active', 'paused', 'suspended', 'stopped'];
/** Nova's max_limit: a page of instance actions holds at most this many. */
const ACTIONS_MAX_LIMIT = 1000;

function metaBody(ctx: Ctx, key: 'metadata' | 'meta'): Record<string, string> {
  const b = ctx.req.body;
  const m = isObj(b) ? b[key] : undefined;
  if (!isObj(m)) throw new SimError(400, `Invalid input for field/attribute ${key}. '${key}' is a required property`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) {
    if (typeof v !== 'string' || k.length > 255 || v.length > 255) throw new SimError(400, `Invalid input for field/attribute ${key}. Value: ${JSON.stringify(m)}. Metadata keys and values must be strings of at most 255 characters`);
    out[k] = v;
  }
  checkMetadataKeys(key, out);
  return out;
}

function writable(ctx: Ctx, action: string): Server {
  const s = findServer(ctx, ctx.p('id'));
  requireWriter(ctx.auth, `os_compute_api:server-metadata:${action}`);
  checkUnlocked(s, ctx.auth.isAdmin);
  checkState(s, action, META_STATES, null);
  return s;
}

function checkMetaQuota(ctx: Ctx, md: Record<string, string>): void {
  if (Object.keys(md).length > 128) throw new SimError(403, 'Quota exceeded for metadata_items: Requested more than the 128 allowed');
}

function tagGate(ctx: Ctx): void {
  if (!atLeast(ctx.mv, '2.26')) throw new SimError(404, 'The resource could not be found.');
}

function validTag(t: unknown): string {
  if (typeof t !== 'string' || !t || t.length > 60 || /[,/]/.test(t)) throw new SimError(400, `Invalid input for field/attribute tag. Value: ${JSON.stringify(t)}. Tags are 1-60 characters without '/' or ','`);
  return t;
}

function tagsWritable(ctx: Ctx): Server {
  const s = findServer(ctx, ctx.p('id'));
  requireWriter(ctx.auth, 'os_compute_api:os-server-tags:update');
  if (s.vmState === 'building' || s.taskState !== null && s.vmState !== 'active') {
    throw new SimError(409, `Cannot 'update tag' instance ${s.id} while it is in vm_state ${s.vmState}`);
  }
  return s;
}

export function registerServerExtras(r: Registrar): void {
  r.get('/servers/:id/metadata', (ctx) => ok({ metadata: { ...findServer(ctx, ctx.p('id')).metadata } }));
  r.post('/servers/:id/metadata', (ctx) => {
    const s = writable(ctx, 'update_metadata');
    const md = { ...s.metadata, ...metaBody(ctx, 'metadata') };
    checkMetaQuota(ctx, md);
    s.metadata = md;
    touch(ctx.sim, s);
    return ok({ metadata: { ...s.metadata } });
  });
  r.put('/servers/:id/metadata', (ctx) => {
    const s = writable(ctx, 'update_metadata');
    const md = metaBody(ctx, 'metadata');
    checkMetaQuota(ctx, md);
    s.metadata = md;
    touch(ctx.sim, s);
    return ok({ metadata: { ...s.metadata } });
  });
  r.get('/servers/:id/metadata/:key', (ctx) => {
    const v = findServer(ctx, ctx.p('id')).metadata[ctx.p('key')];
    if (v === undefined) throw new SimError(404, 'Metadata item was not found');
    return ok({ meta: { [ctx.p('key')]: v } });
  });
  r.put('/servers/:id/metadata/:key', (ctx) => {
    const s = writable(ctx, 'update_metadata');
    const meta = metaBody(ctx, 'meta');
    const keys = Object.keys(meta);
    if (keys.length !== 1 || keys[0] !== ctx.p('key')) throw new SimError(400, 'Request body and URI mismatch');
    s.metadata[ctx.p('key')] = meta[ctx.p('key')] as string;
    checkMetaQuota(ctx, s.metadata);
    touch(ctx.sim, s);
    return ok({ meta });
  });
  r.del('/servers/:id/metadata/:key', (ctx) => {
    const s = writable(ctx, 'delete_metadata');
    if (!(ctx.p('key') in s.metadata)) throw new SimError(404, 'Metadata item was not found');
    delete s.metadata[ctx.p('key')];
    touch(ctx.sim, s);
    return noContent();
  });

  r.get('/servers/:id/tags', (ctx) => { tagGate(ctx); return ok({ tags: [...findServer(ctx, ctx.p('id')).tags] }); });
  r.put('/servers/:id/tags', (ctx) => {
    tagGate(ctx);
    const s = tagsWritable(ctx);
    const b = ctx.req.body;
    if (!isObj(b) || !Array.isArray(b.tags)) throw new SimError(400, "Invalid input for field/attribute tags. 'tags' is a required property");
    const tags = [...new Set(b.tags.map(validTag))];
    if (tags.length > 50) throw new SimError(400, 'The number of tags exceeded the per-server limit 50');
    s.tags = tags;
    touch(ctx.sim, s);
    return ok({ tags: [...s.tags] });
  });
  r.del('/servers/:id/tags', (ctx) => {
    tagGate(ctx);
    const s = tagsWritable(ctx);
    s.tags = [];
    touch(ctx.sim, s);
    return noContent();
  });
  r.get('/servers/:id/tags/:tag', (ctx) => {
    tagGate(ctx);
    if (!findServer(ctx, ctx.p('id')).tags.includes(ctx.p('tag'))) throw new SimError(404, `Tag ${ctx.p('tag')} could not be found.`);
    return noContent();
  });
  r.put('/servers/:id/tags/:tag', (ctx) => {
    tagGate(ctx);
    const s = tagsWritable(ctx);
    const tag = validTag(ctx.p('tag'));
    if (s.tags.includes(tag)) return noContent(204, { Location: ctx.sim.url(`/compute/v2.1/servers/${s.id}/tags/${tag}`) });
    if (s.tags.length >= 50) throw new SimError(400, 'The number of tags exceeded the per-server limit 50');
    s.tags.push(tag);
    touch(ctx.sim, s);
    return noContent(201, { Location: ctx.sim.url(`/compute/v2.1/servers/${s.id}/tags/${tag}`) });
  });
  r.del('/servers/:id/tags/:tag', (ctx) => {
    tagGate(ctx);
    const s = tagsWritable(ctx);
    const i = s.tags.indexOf(ctx.p('tag'));
    if (i < 0) throw new SimError(404, `Tag ${ctx.p('tag')} could not be found.`);
    s.tags.splice(i, 1);
    touch(ctx.sim, s);
    return noContent();
  });

  r.get('/servers/:id/os-interface', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    const rows = s.portIds.map((id) => ctx.sim.neutron.ports.get(id)).filter((p) => p !== undefined).map((p) => ({
      port_state: p.status, fixed_ips: p.fixedIps.map((f) => ({ ...f })), port_id: p.id, net_id: p.networkId, mac_addr: p.macAddress,
      ...(atLeast(ctx.mv, '2.70') ? { tag: null } : {}),
    }));
    return ok({ interfaceAttachments: rows });
  });

  const actionView = (ctx: Ctx, s: Server, a: Server['actions'][number]) => ({
    action: a.action, instance_uuid: s.id, message: a.message, project_id: a.projectId, request_id: a.requestId,
    start_time: isoMicros(a.startTime), user_id: a.userId, ...(atLeast(ctx.mv, '2.58') ? { updated_at: isoMicros(a.startTime) } : {}),
  });
  // Newest first. From 2.58 Nova pages the list (limit, marker = a request_id; max_limit 1000) and adds a
  // top-level `links` (not `instanceActions_links`) with rel=next whenever a page is full.
  r.get('/servers/:id/os-instance-actions', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    const newestFirst = [...s.actions].reverse();
    if (!atLeast(ctx.mv, '2.58')) return ok({ instanceActions: newestFirst.map((a) => actionView(ctx, s, a)) });
    const limit = parseLimit(ctx.q('limit'), ACTIONS_MAX_LIMIT, `Invalid input for query parameters limit. Value: ${ctx.q('limit') ?? ''}. '${ctx.q('limit') ?? ''}' does not match '^[0-9]*$'`) ?? ACTIONS_MAX_LIMIT;
    // Zed's wording: its DB layer overwrites the marker with the (missing) action before formatting it.
    const pg = page(newestFirst, (a) => a.requestId, limit, ctx.q('marker'), () => new SimError(400, 'Marker None could not be found.'));
    const body: Record<string, unknown> = { instanceActions: pg.items.map((a) => actionView(ctx, s, a)) };
    const last = pg.items[pg.items.length - 1];
    if (last && pg.items.length === limit) {
      body.links = [{ rel: 'next', href: ctx.sim.url(`/compute/v2.1/servers/${s.id}/os-instance-actions?${withMarker(ctx.req.query, last.requestId, undefined)}`) }];
    }
    return ok(body);
  });
  r.get('/servers/:id/os-instance-actions/:rid', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    const a = s.actions.find((x) => x.requestId === ctx.p('rid'));
    if (!a) throw new SimError(404, `Action for request_id ${ctx.p('rid')} on instance ${s.id} not found`);
    return ok({ instanceAction: { ...actionView(ctx, s, a), events: [] } });
  });
}
