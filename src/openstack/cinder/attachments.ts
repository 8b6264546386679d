/**
 * Cinder attachment rows (microversion ≥ 3.27): the normal-path observation of whether a volume is attached and
 * to which server. `connection_info` is never decoded (it may hold target credentials).
 */
import type { HttpSession } from '../http.js';
import { contextOf } from '../http.js';
import type { PageOptions } from '../paging.js';
import { listAllPages } from '../paging.js';
import { unwrap } from '../decoders/field.js';
import type { AttachmentObservation } from '../decoders/volume.js';
import { decodeAttachment } from '../decoders/volume.js';

// Block Storage API v3: List Attachments With Details — GET /v3/{project_id}/attachments/detail?volume_id=
export const listAttachments = async (http: HttpSession, filters: { volumeId?: string; instanceId?: string } = {}, page: PageOptions = {}): Promise<AttachmentObservation[]> => {
  const query = { volume_id: filters.volumeId, instance_id: filters.instanceId };
  const items = await listAllPages(http, { path: '/attachments/detail', query, collection: 'attachments', next: 'links' }, page);
  return items.map((item) => decodeAttachment(item.raw, item.receivedAt, contextOf(http, item.response)));
};

// Block Storage API v3: Show Attachment Details — GET /v3/{project_id}/attachments/{attachment_id}
export const getAttachment = async (http: HttpSession, attachmentId: string): Promise<AttachmentObservation> => {
  const response = await http.get(`/attachments/${encodeURIComponent(attachmentId)}`);
  const context = contextOf(http, response);
  return decodeAttachment(unwrap(response.data, 'attachment', context), response.receivedAt, context);
};
