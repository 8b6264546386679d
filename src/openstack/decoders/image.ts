/**
 * Glance v2 images. Glance puts custom properties at the top level next to the core attributes; `properties`
 * collects every key that is not a core attribute, so image-metadata translation never mistakes `status` or
 * `size` for a property (or the reverse).
 */
import * as t from 'io-ts';
import type { RequestContext } from '../errors.js';
import type { Field } from './field.js';
import { decodeOrThrow, nullable, oneOf, readField } from './field.js';

export const IMAGE_STATUSES = ['queued', 'saving', 'uploading', 'importing', 'active', 'deactivated', 'killed', 'deleted', 'pending_delete'] as const;
export type ImageStatus = (typeof IMAGE_STATUSES)[number];
export const imageStatus = oneOf('ImageStatus', IMAGE_STATUSES);

const CORE_KEYS = new Set([
  'id', 'name', 'status', 'visibility', 'protected', 'checksum', 'os_hash_algo', 'os_hash_value', 'owner', 'size',
  'virtual_size', 'min_ram', 'min_disk', 'created_at', 'updated_at', 'disk_format', 'container_format', 'tags', 'self',
  'file', 'schema', 'direct_url', 'locations', 'os_hidden', 'stores',
]);

export interface ImageObservation {
  readonly id: string;
  readonly name: string | null;
  readonly status: Field<ImageStatus>;
  readonly visibility: Field<string>;
  readonly owner: Field<string | null>;
  readonly diskFormat: Field<string | null>;
  readonly containerFormat: Field<string | null>;
  readonly minDisk: Field<number>;
  readonly minRam: Field<number>;
  readonly size: Field<number | null>;
  readonly tags: Field<readonly string[]>;
  /** Every non-core top-level key (custom properties such as `architecture`, `hw_firmware_type`). */
  readonly properties: Readonly<Record<string, unknown>>;
  readonly observedAt?: string;
}

export const decodeImage = (raw: unknown, observedAt?: string, context: RequestContext = {}): ImageObservation => {
  const head = decodeOrThrow(t.intersection([t.type({ id: t.string }), t.partial({ name: nullable(t.string) })]), raw, 'image', context);
  const obj = raw as Record<string, unknown>;
  const properties: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) if (!CORE_KEYS.has(key)) properties[key] = value;
  return {
    id: head.id,
    name: head.name ?? null,
    status: readField(obj, 'status', imageStatus),
    visibility: readField(obj, 'visibility', t.string),
    owner: readField(obj, 'owner', nullable(t.string)),
    diskFormat: readField(obj, 'disk_format', nullable(t.string)),
    containerFormat: readField(obj, 'container_format', nullable(t.string)),
    minDisk: readField(obj, 'min_disk', t.number),
    minRam: readField(obj, 'min_ram', t.number),
    size: readField(obj, 'size', nullable(t.number)),
    tags: readField(obj, 'tags', t.array(t.string)),
    properties,
    ...(observedAt !== undefined ? { observedAt } : {}),
  };
};
