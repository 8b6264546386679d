// os-volume_attachments: attach and detach existing Cinder volumes, with the Cinder side effects Nova
// causes (attachment rows; volume reserved → attaching → in-use, detaching → available).
import { requireWriter } from '../auth.js';
import { SimError, ok } from '../http.js';
import { atLeast } from '../microversion.js';
import type { Ctx, Registrar } from '../router.js';
import { isObj, member, optBool, optStr, reqStr } from '../validate.js';
import { attachmentsOf, beginDetach, complete, connect, removeAttachment, reserve } from '../cinder/attachments.js';
import { requestId } from '../ids.js';
import { checkState, checkUnlocked, recordAction, touch } from './lifecycle.js';
import type { Bdm, Server } from './model.js';
import { findServer } from './servers.js';
import { newBdmId } from './lifecycle.js';

const ATTACH_STATES = ['active', 'paused', 'stopped', 'resized', 'soft_deleted', 'shelved', 'shelved_offloaded'];

function view(ctx: Ctx, s: Server, b: Bdm): Record<string, unknown> {
  const out: Record<string, unknown> = { device: b.device, serverId: s.id, volumeId: b.volumeId };
  if (!atLeast(ctx.mv, '2.89')) out.id = b.volumeId;
  if (atLeast(ctx.mv, '2.70')) out.tag = b.tag;
  if (atLeast(ctx.mv, '2.79')) out.delete_on_termination = b.deleteOnTermination;
  if (atLeast(ctx.mv, '2.89')) { out.attachment_id = b.attachmentId; out.bdm_uuid = b.id; }
  return out;
}

/** Real Nova's 404 for a show or a delete of an attachment the server does not have (measured on Zed). */
const notAttached = (s: Server, volumeId: string): string => `Instance ${s.id} is not attached to volume ${volumeId}`;

function findBdm(ctx: Ctx, s: Server, volumeId: string): Bdm {
  const b = s.bdms.find((x) => x.volumeId === volumeId);
  if (!b) throw new SimError(404, notAttached(s, volumeId));
  return b;
}

function nextDevice(s: Server): string {
  const used = new Set(s.bdms.map((b) => b.device));
  for (let c = 98; c < 123; c++) {
    const d = `/dev/sd${String.fromCharCode(c)}`;
    if (!used.has(d)) return d;
  }
  throw new SimError(400, 'No free disk device names for prefix \'sd\'');
}

export function registerVolumeAttachments(r: Registrar): void {
  r.get('/servers/:id/os-volume_attachments', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    return ok({ volumeAttachments: s.bdms.map((b) => view(ctx, s, b)) });
  });
  r.get('/servers/:id/os-volume_attachments/:volume', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    return ok({ volumeAttachment: view(ctx, s, findBdm(ctx, s, ctx.p('volume'))) });
  });
  r.post('/servers/:id/os-volume_attachments', (ctx) => {
    const sim = ctx.sim;
    const s = findServer(ctx, ctx.p('id'));
    requireWriter(ctx.auth, 'os_compute_api:os-volumes-attachments:create');
    const b = member(ctx.req.body, 'volumeAttachment');
    const volumeId = reqStr(b, 'volumeId');
    checkUnlocked(s, ctx.auth.isAdmin);
    checkState(s, 'attach_volume', ATTACH_STATES);
    const v = sim.cinder.volumes.get(volumeId);
    if (!v || (!ctx.auth.isAdmin && v.projectId !== ctx.auth.projectId)) throw new SimError(404, `Volume ${volumeId} could not be found.`);
    if (s.bdms.some((x) => x.volumeId === volumeId)) throw new SimError(400, `Invalid volume: volume ${volumeId} already attached to instance ${s.id}`);
    // Nova refuses a volume another instance holds (a row reserved, attaching or attached) before Cinder's
    // reserve is asked; real Nova words it so, for a reservation not yet connected too (docs/simulator-differences.md §15)
    const holders = [...new Set(attachmentsOf(sim, v.id).map((x) => x.instanceId).filter((id) => id !== ''))];
    if (!v.multiattach && holders.length > 0) throw new SimError(400, `Invalid volume: volume ${volumeId} is already attached to instances: ${holders.join(', ')}`);
    const a = reserve(sim, v, s.id);
    const bdm: Bdm = {
      id: newBdmId(), volumeId, device: nextDevice(s), bootIndex: null, attachmentId: a.id,
      deleteOnTermination: atLeast(ctx.mv, '2.79') ? optBool(b, 'delete_on_termination') ?? false : false,
      tag: atLeast(ctx.mv, '2.49') ? optStr(b, 'tag') ?? null : null,
    };
    s.bdms.push(bdm);
    recordAction(sim, s, 'attach_volume', ctx.req.requestId, ctx.auth.userId);
    touch(sim, s);
    // Nova answers the POST from the request, not from the BDM: `id` stays and 2.89's ids are absent.
    const created: Record<string, unknown> = { id: volumeId, serverId: s.id, volumeId, device: bdm.device };
    if (atLeast(ctx.mv, '2.70')) created.tag = bdm.tag;
    if (atLeast(ctx.mv, '2.79')) created.delete_on_termination = bdm.deleteOnTermination;
    const d = sim.delays.volumeAttach;
    sim.after(d / 2, () => {
      if (!sim.cinder.attachments.has(a.id)) return;
      connect(sim, a, { host: s.host, initiator: 'iqn.1993-08.org.debian:01:sandbox' });
      sim.after(d / 2, () => {
        if (sim.cinder.attachments.has(a.id) && a.status === 'attaching') complete(sim, a, bdm.device, s.host);
      });
    });
    return ok({ volumeAttachment: created });
  });
  r.put('/servers/:id/os-volume_attachments/:volume', (ctx) => {
    const s = findServer(ctx, ctx.p('id'));
    requireWriter(ctx.auth, 'os_compute_api:os-volumes-attachments:update');
    const bdm = findBdm(ctx, s, ctx.p('volume'));
    const b = member(ctx.req.body, 'volumeAttachment');
    if (reqStr(b, 'volumeId') !== bdm.volumeId) throw new SimError(400, 'Swapping volumes is not supported by the simulator.');
    if (!atLeast(ctx.mv, '2.85')) throw new SimError(400, 'Updating a volume attachment requires microversion 2.85.');
    if (isObj(b) && 'delete_on_termination' in b) bdm.deleteOnTermination = optBool(b, 'delete_on_termination') ?? false;
    return { status: 202 };
  });
  r.del('/servers/:id/os-volume_attachments/:volume', (ctx) => {
    const sim = ctx.sim;
    const s = findServer(ctx, ctx.p('id'));
    requireWriter(ctx.auth, 'os_compute_api:os-volumes-attachments:delete');
    checkUnlocked(s, ctx.auth.isAdmin);
    checkState(s, 'detach_volume', ATTACH_STATES);
    const bdm = s.bdms.find((x) => x.volumeId === ctx.p('volume'));
    if (!bdm) throw new SimError(404, notAttached(s, ctx.p('volume')));
    if (bdm.bootIndex === 0) throw new SimError(400, 'Cannot detach a root device volume');
    const a = sim.cinder.attachments.get(bdm.attachmentId);
    if (a && sim.cinder.volumes.get(a.volumeId)?.status === 'detaching') {
      // Nova passes Cinder's refusal on, with Cinder's request id (measured on Zed)
      throw new SimError(400, `Invalid volume: Invalid input received: Invalid volume: Unable to detach volume. Volume status must be 'in-use' and attach_status must be 'attached' to detach. (HTTP 400) (Request-ID: ${requestId()})`);
    }
    if (a) beginDetach(sim, a);
    recordAction(sim, s, 'detach_volume', ctx.req.requestId, ctx.auth.userId);
    touch(sim, s);
    sim.after(sim.delays.volumeDetach, () => {
      if (a && sim.cinder.attachments.has(a.id)) removeAttachment(sim, a);
      s.bdms = s.bdms.filter((x) => x !== bdm);
      touch(sim, s);
    });
    return { status: 202 };
  });
}
