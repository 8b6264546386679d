// Attachment rows and their effect on the volume. Nova's os-volume_attachments and Cinder's own
// /attachments API both go through reserve → complete → detach here, like Nova calls Cinder's
// attachment API in Zed: the volume reads reserved, attaching, then in-use; detaching, then available.
import { SimError, ok } from '../http.js';
import { uuid } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import type { Sim } from '../state.js';
import { isObj, member, optStr, reqStr } from '../validate.js';
import { attachmentView, checkUrlProject, findVolume } from './common.js';
import type { Volume, VolumeAttachment } from './model.js';

export function attachmentsOf(sim: Sim, volumeId: string): VolumeAttachment[] {
  return [...sim.cinder.attachments.values()].filter((a) => a.volumeId === volumeId);
}

/** Cinder's attachment_create: only an available volume (or a multiattach one in use) can be reserved. */
export function reserve(sim: Sim, v: Volume, instanceId: string, mode: 'rw' | 'ro' = 'rw'): VolumeAttachment {
  const others = attachmentsOf(sim, v.id);
  const ok = v.status === 'available' || v.status === 'downloading' || (v.multiattach && (v.status === 'in-use' || v.status === 'reserved'));
  if (!ok) {
    throw new SimError(400, `Invalid volume: Volume ${v.id} status must be available or downloading to reserve, but the current status is ${v.status}.`);
  }
  if (others.some((a) => a.instanceId === instanceId)) throw new SimError(400, `Invalid volume: volume ${v.id} is already attached to instance ${instanceId}.`);
  const a: VolumeAttachment = {
    id: uuid(), volumeId: v.id, instanceId, status: 'reserved', attachMode: mode, attachedAt: null, detachedAt: null,
    device: null, hostName: null, connector: null, created: sim.now(),
  };
  sim.cinder.attachments.set(a.id, a);
  if (v.status !== 'in-use') v.status = 'reserved';
  v.updated = sim.now();
  return a;
}

export function connect(sim: Sim, a: VolumeAttachment, connector: Record<string, unknown>): void {
  const v = sim.cinder.volumes.get(a.volumeId);
  a.connector = connector;
  a.status = 'attaching';
  if (v && v.status !== 'in-use') {
    v.status = 'attaching';
    v.updated = sim.now();
  }
}

export function complete(sim: Sim, a: VolumeAttachment, device: string | null, host: string | null): void {
  const v = sim.cinder.volumes.get(a.volumeId);
  a.status = 'attached';
  a.attachedAt = sim.now();
  a.device = device ?? a.device;
  a.hostName = host ?? a.hostName;
  if (v) {
    v.status = 'in-use';
    v.attachStatus = 'attached';
    v.updated = sim.now();
  }
}

/**
 * Nova's begin_detaching: the volume reads `detaching`; the row keeps its attach_status (`attached`) until
 * attachment_delete removes it. Cinder's VolumeAttachStatus has no `detaching` (docs/simulator-differences.md §13).
 */
export function beginDetach(sim: Sim, a: VolumeAttachment): void {
  const v = sim.cinder.volumes.get(a.volumeId);
  if (v) {
    v.status = 'detaching';
    v.updated = sim.now();
  }
}

/** attachment_delete: the row goes; the volume is available again once no row is left. */
export function removeAttachment(sim: Sim, a: VolumeAttachment): void {
  sim.cinder.attachments.delete(a.id);
  const v = sim.cinder.volumes.get(a.volumeId);
  if (!v) return;
  const left = attachmentsOf(sim, v.id);
  if (left.length === 0) {
    if (['in-use', 'detaching', 'reserved', 'attaching'].includes(v.status)) v.status = 'available';
    v.attachStatus = 'detached';
  } else if (left.some((x) => x.status === 'attached')) {
    v.status = 'in-use';
  }
  v.updated = sim.now();
}

function requireAttachmentsApi(ctx: Ctx): void {
  if (!atLeast(ctx.mv, '3.27')) throw new SimError(404, 'The resource could not be found.');
  checkUrlProject(ctx);
}

function findAttachment(ctx: Ctx, id: string): VolumeAttachment {
  const a = ctx.sim.cinder.attachments.get(id);
  const v = a ? ctx.sim.cinder.volumes.get(a.volumeId) : undefined;
  if (!a || !v || (!ctx.auth.isAdmin && v.projectId !== ctx.auth.projectId)) throw new SimError(404, `VolumeAttachment ${id} could not be found.`);
  return a;
}

function listAttachments(ctx: Ctx, detail: boolean) {
  requireAttachmentsApi(ctx);
  const f = { volume: ctx.q('volume_id'), instance: ctx.q('instance_id'), status: ctx.q('status') ?? ctx.q('attach_status') };
  const all = ctx.auth.isAdmin && ctx.q('all_tenants') !== undefined;
  const rows = [...ctx.sim.cinder.attachments.values()].filter((a) => {
    const v = ctx.sim.cinder.volumes.get(a.volumeId);
    if (!v || (!all && v.projectId !== ctx.auth.projectId)) return false;
    return (f.volume === undefined || a.volumeId === f.volume) && (f.instance === undefined || a.instanceId === f.instance) &&
      (f.status === undefined || a.status === f.status);
  });
  return ok({ attachments: rows.map((a) => attachmentView(a, detail)) });
}

export function registerAttachments(r: Registrar): void {
  r.get('/attachments', (ctx) => listAttachments(ctx, false));
  r.get('/attachments/detail', (ctx) => listAttachments(ctx, true));
  r.get('/attachments/:id', (ctx) => {
    requireAttachmentsApi(ctx);
    return ok({ attachment: attachmentView(findAttachment(ctx, ctx.p('id')), true) });
  });
  r.post('/attachments', (ctx) => {
    requireAttachmentsApi(ctx);
    const b = member(ctx.req.body, 'attachment');
    const v = findVolume(ctx, reqStr(b, 'volume_uuid'));
    const mode = atLeast(ctx.mv, '3.54') ? optStr(b, 'mode') ?? 'rw' : 'rw';
    if (mode !== 'rw' && mode !== 'ro') throw new SimError(400, `Invalid attachment mode '${mode}'`);
    const a = reserve(ctx.sim, v, optStr(b, 'instance_uuid') ?? '', mode);
    if (isObj(b.connector)) connect(ctx.sim, a, b.connector);
    return ok({ attachment: attachmentView(a, true) });
  });
  r.put('/attachments/:id', (ctx) => {
    requireAttachmentsApi(ctx);
    const a = findAttachment(ctx, ctx.p('id'));
    const b = member(ctx.req.body, 'attachment');
    if (!isObj(b.connector)) throw new SimError(400, 'Invalid input received: connector is required.');
    connect(ctx.sim, a, b.connector);
    return ok({ attachment: attachmentView(a, true) });
  });
  r.post('/attachments/:id/action', (ctx) => {
    requireAttachmentsApi(ctx);
    if (!atLeast(ctx.mv, '3.44')) throw new SimError(404, 'The resource could not be found.');
    const a = findAttachment(ctx, ctx.p('id'));
    if (!isObj(ctx.req.body) || !('os-complete' in ctx.req.body)) throw new SimError(400, 'There is no such action');
    complete(ctx.sim, a, a.device, a.hostName);
    return { status: 204 };
  });
  r.del('/attachments/:id', (ctx) => {
    requireAttachmentsApi(ctx);
    const a = findAttachment(ctx, ctx.p('id'));
    removeAttachment(ctx.sim, a);
    return ok({ attachments: attachmentsOf(ctx.sim, a.volumeId).map((x) => attachmentView(x, false)) });
  });
}
