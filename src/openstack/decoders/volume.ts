/**
 * Cinder volume and attachment observations, and Nova's os-volume_attachments rows.
 *
 * `connection_info` of a Cinder attachment is deliberately not decoded: for iSCSI/RBD it can carry CHAP passwords
 * or keyring secrets, and nothing in Regent decides on it.
 */
import * as t from 'io-ts';
import type { RequestContext } from '../errors.js';
import type { Field } from './field.js';
import { decodeOrThrow, isRecord, nullable, oneOf, readField, stringMap, timestamp } from './field.js';

/** Cinder volume statuses (Block Storage API reference, "Volumes: status"). */
export const VOLUME_STATUSES = [
  'creating', 'available', 'reserved', 'attaching', 'detaching', 'in-use', 'maintenance', 'deleting', 'awaiting-transfer',
  'error', 'error_deleting', 'backing-up', 'restoring-backup', 'error_backing-up', 'error_restoring', 'error_extending',
  'downloading', 'uploading', 'retyping', 'extending', 'error_managing', 'managing', 'reverting', 'error_reverting',
] as const;
export type VolumeStatus = (typeof VOLUME_STATUSES)[number];
export const volumeStatus = oneOf('VolumeStatus', VOLUME_STATUSES);

/** One entry of a volume's `attachments` list. */
export interface VolumeAttachmentRef {
  readonly attachmentId: string | null;
  readonly serverId: string;
  readonly device: string | null;
  readonly hostName: string | null;
  readonly attachedAt: string | null;
}

export interface VolumeObservation {
  readonly id: string;
  /** Cinder allows unnamed volumes. */
  readonly name: string | null;
  readonly status: Field<VolumeStatus>;
  readonly size: Field<number>;
  readonly volumeType: Field<string | null>;
  readonly attachments: Field<readonly VolumeAttachmentRef[]>;
  readonly metadata: Field<Readonly<Record<string, string>>>;
  readonly multiattach: Field<boolean>;
  readonly availabilityZone: Field<string | null>;
  readonly observedAt?: string;
}

const volumeAttachmentRefCodec = new t.Type<VolumeAttachmentRef[], unknown, unknown>(
  'VolumeAttachments',
  (u): u is VolumeAttachmentRef[] => Array.isArray(u),
  (u, c) => {
    if (!Array.isArray(u)) return t.failure(u, c);
    const out: VolumeAttachmentRef[] = [];
    for (const item of u as unknown[]) {
      if (!isRecord(item) || typeof item.server_id !== 'string') return t.failure(u, c);
      const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
      out.push({
        attachmentId: str(item.attachment_id),
        serverId: item.server_id,
        device: str(item.device),
        hostName: str(item.host_name),
        attachedAt: str(item.attached_at),
      });
    }
    return t.success(out);
  },
  (a) => a,
);

export const decodeVolume = (raw: unknown, observedAt?: string, context: RequestContext = {}): VolumeObservation => {
  const head = decodeOrThrow(t.intersection([t.type({ id: t.string }), t.partial({ name: nullable(t.string) })]), raw, 'volume', context);
  const obj = raw as Record<string, unknown>;
  return {
    id: head.id,
    name: head.name ?? null,
    status: readField(obj, 'status', volumeStatus),
    size: readField(obj, 'size', t.number),
    volumeType: readField(obj, 'volume_type', nullable(t.string)),
    attachments: readField(obj, 'attachments', volumeAttachmentRefCodec),
    metadata: readField(obj, 'metadata', stringMap),
    multiattach: readField(obj, 'multiattach', t.boolean),
    availabilityZone: readField(obj, 'availability_zone', nullable(t.string)),
    ...(observedAt !== undefined ? { observedAt } : {}),
  };
};

/** Cinder attachment statuses (Block Storage API reference, "Attachments"). */
export const ATTACHMENT_STATUSES = ['attached', 'attaching', 'detached', 'reserved', 'error_attaching', 'error_detaching', 'deleted'] as const;
export type AttachmentStatus = (typeof ATTACHMENT_STATUSES)[number];
export const attachmentStatus = oneOf('AttachmentStatus', ATTACHMENT_STATUSES);

/** A Cinder attachment row (`GET /attachments/detail`). */
export interface AttachmentObservation {
  readonly id: string;
  readonly volumeId: Field<string>;
  readonly status: Field<AttachmentStatus>;
  /** The server (Nova instance) id; null for a reservation without an instance. */
  readonly instance: Field<string | null>;
  readonly attachMode: Field<'rw' | 'ro'>;
  readonly attachedAt: Field<string | null>;
  readonly observedAt?: string;
}

export const decodeAttachment = (raw: unknown, observedAt?: string, context: RequestContext = {}): AttachmentObservation => {
  const head = decodeOrThrow(t.type({ id: t.string }), raw, 'attachment', context);
  const obj = raw as Record<string, unknown>;
  return {
    id: head.id,
    volumeId: readField(obj, 'volume_id', t.string),
    status: readField(obj, 'status', attachmentStatus),
    instance: readField(obj, 'instance', nullable(t.string)),
    attachMode: readField(obj, 'attach_mode', t.union([t.literal('rw'), t.literal('ro')])),
    attachedAt: readField(obj, 'attached_at', nullable(timestamp)),
    ...(observedAt !== undefined ? { observedAt } : {}),
  };
};

/** A Nova volume attachment (`os-volume_attachments`, microversion 2.89 fields). */
export interface NovaVolumeAttachment {
  readonly serverId: string;
  readonly volumeId: string;
  readonly device: string | null;
  readonly tag: string | null;
  readonly deleteOnTermination: boolean | null;
  /** Cinder attachment id (2.89+). */
  readonly attachmentId: string | null;
  /** Block device mapping uuid (2.89+). */
  readonly bdmUuid: string | null;
}

const novaAttachmentCodec = t.intersection([
  t.type({ serverId: t.string, volumeId: t.string }),
  t.partial({
    device: nullable(t.string), tag: nullable(t.string), delete_on_termination: nullable(t.boolean),
    attachment_id: nullable(t.string), bdm_uuid: nullable(t.string),
  }),
]);

export const decodeNovaVolumeAttachment = (raw: unknown, context: RequestContext = {}): NovaVolumeAttachment => {
  const a = decodeOrThrow(novaAttachmentCodec, raw, 'volume attachment', context);
  return {
    serverId: a.serverId,
    volumeId: a.volumeId,
    device: a.device ?? null,
    tag: a.tag ?? null,
    deleteOnTermination: a.delete_on_termination ?? null,
    attachmentId: a.attachment_id ?? null,
    bdmUuid: a.bdm_uuid ?? null,
  };
};
