/**
 * A Server's volumes in its status (issue 12): `status.volumes` rows from the attachment machines of its
 * (server, volume) pairs (machines/volume-attachment.ts), the VolumesAttached condition, and Available
 * held back while a volume the spec lists is not attached — never success over an attachment that did
 * not happen. Only the Volume's name, the device asked for and the one the guest got, and a closed state
 * cross into status; no Nova or Cinder id. The two devices differ when the hypervisor does not follow the
 * request (Nova treats it as a hint: a /dev/vdb asked for may show as /dev/sdb): both are shown, never one
 * passed off as the other.
 *
 * | pair | row state | VolumesAttached |
 * |---|---|---|
 * | listed, Volume missing or not available yet, or no pass yet | Attaching | False / Attaching (waiting for the Volume) |
 * | Nova create in flight, or the one read after a 409 | Attaching | False / Attaching |
 * | attached (Cinder shows it on this server) | Attached, with the device | True / Attached when every listed one is |
 * | not found, attached elsewhere, a refusal | Error | False / AttachFailed, naming the volume and why |
 * | removed from the spec, detach in progress | Detaching | False / Detaching |
 *
 * Pure: from the spec and the pairs' rendered machine status.
 */
import type { VolumeAttachmentStatus } from '../machines/volume-attachment.js';
import type { ConditionInput } from './conditions.js';

export interface ServerVolumeRow {
  volumeID: string;
  /** The device the guest got, as Nova reports it once attached (the hypervisor names it: /dev/sdb on a virtio-scsi bus). */
  device?: string;
  /** The device spec.volumes asked for: a hint Nova passes on, which the hypervisor may not follow. */
  requestedDevice?: string;
  state: 'Attaching' | 'Attached' | 'Detaching' | 'Error';
}

export interface ServerVolumePair {
  /** The Volume resource's name (spec.volumes[].volumeID). */
  name: string;
  /** Whether spec.volumes lists it. */
  listed: boolean;
  /** spec.volumes[].device, when the spec asks for one. */
  requestedDevice?: string;
  /** Whether the Volume resource exists. */
  exists: boolean;
  /** volumeAttachmentStatus of the pair's stream; null: detached holds; undefined: no stream yet. */
  attachment: VolumeAttachmentStatus | null | undefined;
}

export interface ServerVolumesView {
  rows: ServerVolumeRow[];
  condition: ConditionInput;
}

export const renderServerVolumes = (pairs: readonly ServerVolumePair[]): ServerVolumesView => {
  const rows: ServerVolumeRow[] = [];
  const waiting: string[] = [];
  const failed: string[] = [];
  const detaching: string[] = [];
  for (const pair of pairs) {
    const a = pair.attachment;
    const asked = pair.requestedDevice ? { requestedDevice: pair.requestedDevice } : {};
    if (pair.listed) {
      if (a && a.state !== 'Detaching') {
        rows.push({ volumeID: pair.name, ...(a.device ? { device: a.device } : {}), ...asked, state: a.state });
        if (a.state === 'Error') failed.push(`${pair.name}: ${a.message ?? 'the attachment failed'}${a.reason ? ` (${a.reason})` : ''}`);
        else if (a.state === 'Attaching') waiting.push(pair.name);
      } else {
        rows.push({ volumeID: pair.name, ...asked, state: 'Attaching' });
        waiting.push(pair.exists ? pair.name : `${pair.name} (no such Volume)`);
      }
    } else if (a && a.state === 'Detaching') {
      rows.push({ volumeID: pair.name, ...(a.device ? { device: a.device } : {}), state: 'Detaching' });
      detaching.push(pair.name);
    }
  }
  const listed = pairs.filter((p) => p.listed).length;
  let condition: ConditionInput;
  if (failed.length > 0) condition = { type: 'VolumesAttached', status: 'False', reason: 'AttachFailed', message: failed.join('; ') };
  else if (waiting.length > 0) condition = { type: 'VolumesAttached', status: 'False', reason: 'Attaching', message: `attaching ${waiting.join(', ')}` };
  else if (detaching.length > 0) condition = { type: 'VolumesAttached', status: 'False', reason: 'Detaching', message: `detaching ${detaching.join(', ')}` };
  else if (listed === 0) condition = { type: 'VolumesAttached', status: 'True', reason: 'NoVolumes', message: 'the spec lists no volumes' };
  else condition = { type: 'VolumesAttached', status: 'True', reason: 'Attached', message: `${listed === 1 ? 'the volume is' : `all ${listed} volumes are`} attached` };
  return { rows: rows.sort((x, y) => x.volumeID.localeCompare(y.volumeID)), condition };
};
