// Shared Cinder helpers: the URL's project id check, lookups with scoping, and the volume views.
import type { Ctx } from '../router.js';
import { SimError } from '../http.js';
import { isoMicros } from '../ids.js';
import { atLeast } from '../microversion.js';
import type { Sim } from '../state.js';
import type { Volume, VolumeAttachment } from './model.js';

export const VOLUME_HOST = 'sandbox@fake#fake';

/** Cinder refuses a URL whose project id is not the token's ("Malformed request url"), admins included. */
export function checkUrlProject(ctx: Ctx): void {
  if (ctx.p('project_id') !== ctx.auth.projectId) throw new SimError(400, 'Malformed request url');
}

export function findVolume(ctx: Ctx, id: string): Volume {
  checkUrlProject(ctx);
  const v = ctx.sim.cinder.volumes.get(id);
  if (!v || (!ctx.auth.isAdmin && v.projectId !== ctx.auth.projectId)) throw new SimError(404, `Volume ${id} could not be found.`);
  return v;
}

export function volumeAttachmentsView(sim: Sim, v: Volume): unknown[] {
  return [...sim.cinder.attachments.values()].filter((a) => a.volumeId === v.id && a.status === 'attached').map((a) => ({
    id: v.id, attachment_id: a.id, volume_id: v.id, server_id: a.instanceId, host_name: a.hostName, device: a.device,
    attached_at: a.attachedAt === null ? null : isoMicros(a.attachedAt),
  }));
}

export function volumeLinks(ctx: Ctx, id: string): unknown[] {
  return [
    { href: ctx.sim.url(`/volume/v3/${ctx.auth.projectId ?? ''}/volumes/${id}`), rel: 'self' },
    { href: ctx.sim.url(`/volume/${ctx.auth.projectId ?? ''}/volumes/${id}`), rel: 'bookmark' },
  ];
}

export function volumeView(ctx: Ctx, v: Volume): Record<string, unknown> {
  const sim = ctx.sim;
  const type = sim.cinder.types.get(v.typeId);
  const admin = ctx.auth.isAdmin;
  const out: Record<string, unknown> = {
    id: v.id, name: v.name, description: v.description, status: v.status, size: v.size, availability_zone: v.az,
    created_at: isoMicros(v.created), updated_at: isoMicros(v.updated), attachments: volumeAttachmentsView(sim, v),
    bootable: String(v.bootable), encrypted: false, links: volumeLinks(ctx, v.id), metadata: { ...v.metadata },
    snapshot_id: v.snapshotId, source_volid: v.sourceVolid, user_id: v.userId, volume_type: type?.name ?? null,
    multiattach: v.multiattach, replication_status: null, consistencygroup_id: null, backup_id: null,
    'os-vol-tenant-attr:tenant_id': v.projectId,
  };
  if (Object.keys(v.imageMetadata).length) out.volume_image_metadata = { ...v.imageMetadata };
  if (admin) {
    out['os-vol-host-attr:host'] = v.status === 'creating' ? null : VOLUME_HOST;
    out['os-vol-mig-status-attr:migstat'] = v.migrationStatus;
    out['os-vol-mig-status-attr:name_id'] = null;
  }
  if (atLeast(ctx.mv, '3.13')) out.group_id = null;
  if (atLeast(ctx.mv, '3.21') && admin) out.provider_id = null;
  if (atLeast(ctx.mv, '3.48') && admin) { out.service_uuid = '8b1f4b3e-6b0c-4d53-8d8c-1c0b7a3c5f0e'; out.shared_targets = false; }
  if (atLeast(ctx.mv, '3.61') && admin) out.cluster_name = null;
  if (atLeast(ctx.mv, '3.63')) out.volume_type_id = v.typeId;
  if (atLeast(ctx.mv, '3.65')) out.consumes_quota = true;
  return out;
}

export function attachmentView(a: VolumeAttachment, detail: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { id: a.id, status: a.status, instance: a.instanceId, volume_id: a.volumeId };
  if (!detail) return out;
  return {
    ...out, attached_at: a.attachedAt === null ? null : isoMicros(a.attachedAt), detached_at: a.detachedAt === null ? null : isoMicros(a.detachedAt),
    attach_mode: a.attachMode,
    connection_info: a.connector === null && a.status === 'reserved' ? {} : {
      driver_volume_type: 'iscsi', attachment_id: a.id, attach_mode: a.attachMode, access_mode: a.attachMode, encrypted: false,
      qos_specs: null, discard: false, cacheable: false,
      data: { target_iqn: `iqn.2010-10.org.openstack:volume-${a.volumeId}`, target_portal: '127.0.0.1:3260', target_lun: 1, volume_id: a.volumeId },
    },
  };
}
