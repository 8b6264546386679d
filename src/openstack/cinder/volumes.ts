/**
 * Cinder v3 volumes: detail list (paged via `volumes_links`), show, find by exact name, create, delete.
 * Cinder's `name=` is exact on a default install but configuration-dependent (and `name~=` is a substring
 * match), so every name lookup goes through exactlyOne.
 */
import type { HttpSession, Query } from '../http.js';
import { contextOf } from '../http.js';
import type { PageOptions } from '../paging.js';
import { listAllPages } from '../paging.js';
import { atMostOne, exactlyOne } from '../names.js';
import { unwrap } from '../decoders/field.js';
import type { VolumeObservation } from '../decoders/volume.js';
import { decodeVolume } from '../decoders/volume.js';

const enc = encodeURIComponent;

export interface VolumeListFilters {
  name?: string;
  status?: string;
  metadata?: string;
  all_tenants?: boolean;
  project_id?: string;
  sort?: string;
}

// Block Storage API v3: List Accessible Volumes With Details — GET /v3/{project_id}/volumes/detail
export const listVolumes = async (http: HttpSession, filters: VolumeListFilters = {}, page: PageOptions = {}): Promise<VolumeObservation[]> => {
  const items = await listAllPages(http, { path: '/volumes/detail', query: filters as Query, collection: 'volumes', next: 'links' }, page);
  return items.map((item) => decodeVolume(item.raw, item.receivedAt, contextOf(http, item.response)));
};

// Block Storage API v3: Show A Volume's Details — GET /v3/{project_id}/volumes/{volume_id}
export const getVolume = async (http: HttpSession, volumeId: string): Promise<VolumeObservation> => {
  const response = await http.get(`/volumes/${enc(volumeId)}`);
  const context = contextOf(http, response);
  return decodeVolume(unwrap(response.data, 'volume', context), response.receivedAt, context);
};

// Block Storage API v3: List Accessible Volumes With Details — GET /volumes/detail?name=…, post-filtered to the exact name
export const findVolumeByName = async (http: HttpSession, name: string): Promise<VolumeObservation> =>
  exactlyOne(await listVolumes(http, { name }), name, 'volume', { service: http.service, method: 'GET', path: '/volumes/detail' });

// Block Storage API v3: List Accessible Volumes With Details — GET /volumes/detail?name=… ; undefined when none
export const lookupVolumeByName = async (http: HttpSession, name: string): Promise<VolumeObservation | undefined> =>
  atMostOne(await listVolumes(http, { name }), name, 'volume', { service: http.service, method: 'GET', path: '/volumes/detail' });

export interface CreateVolumeRequest {
  name: string;
  /** GiB. */
  size: number;
  volumeType?: string;
  description?: string;
  availabilityZone?: string;
  metadata?: Readonly<Record<string, string>>;
  imageRef?: string;
  snapshotId?: string;
  multiattach?: boolean;
}

// Block Storage API v3: Create A Volume — POST /v3/{project_id}/volumes
export const createVolume = async (http: HttpSession, req: CreateVolumeRequest): Promise<VolumeObservation> => {
  const volume: Record<string, unknown> = { name: req.name, size: req.size };
  if (req.volumeType !== undefined) volume.volume_type = req.volumeType;
  if (req.description !== undefined) volume.description = req.description;
  if (req.availabilityZone !== undefined) volume.availability_zone = req.availabilityZone;
  if (req.metadata !== undefined) volume.metadata = req.metadata;
  if (req.imageRef !== undefined) volume.imageRef = req.imageRef;
  if (req.snapshotId !== undefined) volume.snapshot_id = req.snapshotId;
  if (req.multiattach !== undefined) volume.multiattach = req.multiattach;
  const response = await http.post('/volumes', { volume });
  const context = contextOf(http, response);
  return decodeVolume(unwrap(response.data, 'volume', context), response.receivedAt, context);
};

// Block Storage API v3: Delete A Volume — DELETE /v3/{project_id}/volumes/{volume_id}
export const deleteVolume = async (http: HttpSession, volumeId: string, options: { cascade?: boolean; force?: boolean } = {}): Promise<void> => {
  await http.delete(`/volumes/${enc(volumeId)}`, { cascade: options.cascade, force: options.force });
};

// Asynchronous (202): the volume goes `extending`, then back to `available` (or `error_extending`).
// Block Storage API v3: Extend A Volume Size (os-extend Action) — POST /v3/{project_id}/volumes/{volume_id}/action
export const extendVolume = async (http: HttpSession, volumeId: string, newSizeGiB: number): Promise<void> => {
  await http.post(`/volumes/${enc(volumeId)}/action`, { 'os-extend': { new_size: newSizeGiB } });
};

// Block Storage API v3: Reset A Volume's Statuses (os-reset_status Action) — POST /v3/{project_id}/volumes/{volume_id}/action (admin)
export const resetVolumeStatus = async (http: HttpSession, volumeId: string, status: { status?: string; attach_status?: string; migration_status?: string }): Promise<void> => {
  await http.post(`/volumes/${enc(volumeId)}/action`, { 'os-reset_status': status });
};
