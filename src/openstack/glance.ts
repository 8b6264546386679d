/**
 * Glance v2 images: list (paged via `next`), show, find by exact name, create, upload, property patch, delete.
 * Glance's `name=` filter is exact, but find still goes through exactlyOne (duplicates are allowed in Glance).
 */
import type { HttpSession, Query } from './http.js';
import { contextOf } from './http.js';
import type { BoundClient } from './bind.js';
import { bindClient } from './bind.js';
import type { PageOptions } from './paging.js';
import { listAllPages } from './paging.js';
import { exactlyOne } from './names.js';
import type { ImageObservation } from './decoders/image.js';
import { decodeImage } from './decoders/image.js';

const enc = encodeURIComponent;

export interface ImageListFilters {
  name?: string;
  status?: string;
  visibility?: 'public' | 'private' | 'shared' | 'community' | 'all';
  owner?: string;
  tag?: string | readonly string[];
  disk_format?: string;
  container_format?: string;
  os_hidden?: boolean;
  sort?: string;
  /** Any other property filter (`architecture=x86_64`). */
  [property: string]: string | number | boolean | readonly string[] | undefined;
}

// Image API v2: List Images — GET /v2/images
export const listImages = async (http: HttpSession, filters: ImageListFilters = {}, page: PageOptions = {}): Promise<ImageObservation[]> => {
  const items = await listAllPages(http, { path: '/images', query: filters as Query, collection: 'images', next: 'glance-next' }, page);
  return items.map((item) => decodeImage(item.raw, item.receivedAt, contextOf(http, item.response)));
};

// Image API v2: Show Image — GET /v2/images/{image_id}
export const getImage = async (http: HttpSession, imageId: string): Promise<ImageObservation> => {
  const response = await http.get(`/images/${enc(imageId)}`);
  return decodeImage(response.data, response.receivedAt, contextOf(http, response));
};

// Image API v2: List Images — GET /v2/images?name=…, post-filtered to the exact name
export const findImageByName = async (http: HttpSession, name: string, filters: Omit<ImageListFilters, 'name'> = {}): Promise<ImageObservation> =>
  exactlyOne(await listImages(http, { ...filters, name }), name, 'image', { service: http.service, method: 'GET', path: '/images' });

export interface CreateImageRequest {
  name: string;
  diskFormat: string;
  containerFormat: string;
  visibility?: 'public' | 'private' | 'shared' | 'community';
  minDisk?: number;
  minRam?: number;
  tags?: readonly string[];
  /** Custom properties (top-level keys in Glance v2). */
  properties?: Readonly<Record<string, string>>;
}

// Image API v2: Create Image — POST /v2/images
export const createImage = async (http: HttpSession, req: CreateImageRequest): Promise<ImageObservation> => {
  const body: Record<string, unknown> = { ...req.properties, name: req.name, disk_format: req.diskFormat, container_format: req.containerFormat };
  if (req.visibility !== undefined) body.visibility = req.visibility;
  if (req.minDisk !== undefined) body.min_disk = req.minDisk;
  if (req.minRam !== undefined) body.min_ram = req.minRam;
  if (req.tags !== undefined) body.tags = req.tags;
  const response = await http.post('/images', body);
  return decodeImage(response.data, response.receivedAt, contextOf(http, response));
};

// Image API v2: Upload Binary Image Data — PUT /v2/images/{image_id}/file
export const uploadImageData = async (http: HttpSession, imageId: string, data: Buffer): Promise<void> => {
  await http.put(`/images/${enc(imageId)}/file`, data, { 'Content-Type': 'application/octet-stream' });
};

export type ImagePatchOp =
  | { op: 'add' | 'replace'; path: string; value: unknown }
  | { op: 'remove'; path: string };

// Image API v2: Update Image — PATCH /v2/images/{image_id} (JSON patch, application/openstack-images-v2.1-json-patch)
export const updateImage = async (http: HttpSession, imageId: string, ops: readonly ImagePatchOp[]): Promise<ImageObservation> => {
  const response = await http.patch(`/images/${enc(imageId)}`, ops, { 'Content-Type': 'application/openstack-images-v2.1-json-patch' });
  return decodeImage(response.data, response.receivedAt, contextOf(http, response));
};

// Image API v2: Update Image — PATCH /v2/images/{image_id}: set custom properties (add creates or replaces)
export const setImageProperties = (http: HttpSession, imageId: string, properties: Readonly<Record<string, string>>): Promise<ImageObservation> =>
  updateImage(http, imageId, Object.entries(properties).map(([key, value]) => ({ op: 'add' as const, path: `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, value })));

// Image API v2: Delete Image — DELETE /v2/images/{image_id}
export const deleteImage = async (http: HttpSession, imageId: string): Promise<void> => {
  await http.delete(`/images/${enc(imageId)}`);
};

const glanceFunctions = { listImages, getImage, findImageByName, createImage, uploadImageData, updateImage, setImageProperties, deleteImage };
export type GlanceClient = BoundClient<typeof glanceFunctions>;
export const createGlanceClient = (http: HttpSession): GlanceClient => bindClient(http, glanceFunctions);
