/**
 * Nova volume attachments (os-volume_attachments, 2.89 view: attachment_id and bdm_uuid, no `id`). Attach and
 * detach are asynchronous: a 200/202 means accepted; the volume's own status (Cinder) says when it settled.
 */
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import { unwrap, unwrapList } from '../decoders/field.js';
import type { NovaVolumeAttachment } from '../decoders/volume.js';
import { decodeNovaVolumeAttachment } from '../decoders/volume.js';

const enc = encodeURIComponent;

// Compute API: List volume attachments for an instance — GET /servers/{server_id}/os-volume_attachments
export const listVolumeAttachments = async (http: HttpSession, serverId: string): Promise<NovaVolumeAttachment[]> => {
  const response = await http.get(`/servers/${enc(serverId)}/os-volume_attachments`);
  const context = contextOf(http, response);
  return unwrapList(response.data, 'volumeAttachments', context).map((raw) => decodeNovaVolumeAttachment(raw, context));
};

// Compute API: Show a detail of a volume attachment — GET /servers/{server_id}/os-volume_attachments/{volume_id}
export const getVolumeAttachment = async (http: HttpSession, serverId: string, volumeId: string): Promise<NovaVolumeAttachment> => {
  const response = await http.get(`/servers/${enc(serverId)}/os-volume_attachments/${enc(volumeId)}`);
  const context = contextOf(http, response);
  return decodeNovaVolumeAttachment(unwrap(response.data, 'volumeAttachment', context), context);
};

export interface AttachVolumeOptions {
  /** A device hint (`/dev/vdb`); hypervisors may ignore it. */
  device?: string;
  tag?: string;
  deleteOnTermination?: boolean;
}

// Compute API: Attach a volume to an instance — POST /servers/{server_id}/os-volume_attachments
export const attachVolume = async (http: HttpSession, serverId: string, volumeId: string, options: AttachVolumeOptions = {}): Promise<NovaVolumeAttachment> => {
  const volumeAttachment: Record<string, unknown> = { volumeId };
  if (options.device !== undefined) volumeAttachment.device = options.device;
  if (options.tag !== undefined) volumeAttachment.tag = options.tag;
  if (options.deleteOnTermination !== undefined) volumeAttachment.delete_on_termination = options.deleteOnTermination;
  const response = await http.post(`/servers/${enc(serverId)}/os-volume_attachments`, { volumeAttachment });
  const context = contextOf(http, response);
  return decodeNovaVolumeAttachment(unwrap(response.data, 'volumeAttachment', context), context);
};

// Compute API: Detach a volume from an instance — DELETE /servers/{server_id}/os-volume_attachments/{volume_id}
export const detachVolume = async (http: HttpSession, serverId: string, volumeId: string): Promise<void> => {
  await http.delete(`/servers/${enc(serverId)}/os-volume_attachments/${enc(volumeId)}`);
};
