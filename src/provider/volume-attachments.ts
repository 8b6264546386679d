/**
 * Volume-attachment provider (issue 12): the Nova/Cinder side of machines/volume-attachment.ts
 * (openstack-provider.md, "Existing-volume server attachments are a separate, project-scoped write path"
 * and "Attachment behavior is deliberately asymmetric"). No controller drives it yet; the control plane
 * wires `.handle('nova.attachVolume', scoped((s) => attachVolumeHandler(s.nova)))` and the others itself.
 *
 * Observation (`observeAttachment`), read fresh on every pass:
 * - the server: one Nova GET of the id the Server lifecycle recorded; a 404 or status DELETED (real Nova
 *   shows DELETED for a moment before the 404, docs/simulator-differences.md §3) is absent;
 * - the volume: the exact-name lookup of `volume-<uid>`, Cinder's `name=` filter post-filtered to the exact
 *   name; two exact matches throw `ConsistencyError` (ErrConsistency: the controller fails closed and sends
 *   no stimulus);
 * - the rows: Cinder's attachments API (`GET /attachments/detail?volume_id=`, microversion ≥ 3.27, pinned
 *   3.60), with the guest device taken from the volume's own `attachments` field.
 *   Why both: the volume's `attachments` field lists only rows whose attach_status is `attached` (Cinder's
 *   volume view; the simulator does the same), so a row Nova has reserved but not yet connected is
 *   invisible there. The machine needs that row: "Nova reserves the Cinder attachment row before it answers
 *   the POST, so a create Nova took shows a row on every observation after it" (P2), and a volume reserved
 *   for another server is not `unattached` (A4: a create would be refused with 400). The attachments API
 *   shows the row from `reserved` on, on real Cinder and on the simulator alike (both proven by
 *   test/real-openstack/cinder-placement.openstack.ts and test/openstack/cinder.http.test.ts), but it has no
 *   device; the volume field has the device once the row is `attached`. So: rows from the attachments API,
 *   device from the volume field (null until Cinder knows it; the machine keeps the one Nova answered).
 *   Rows that no longer hold the volume (`detached`, `deleted`) and failed reservations (`error_attaching`,
 *   which Nova rolls back) are left out; a row of an unreadable status is kept (fail towards "attached").
 *   During a Nova detach the row stays `attached` (the volume reads `detaching`) until Cinder removes it, so
 *   a detach is confirmed by the row's absence (D5).
 *   A reservation without an instance is a row of no server of ours (serverId ''), i.e. "elsewhere".
 *
 * Effect handlers answer with the machine's result stimuli and never retry a POST (the HTTP client never
 * does either). A refusal carries its HTTP status and Regent's closed reason (`BadRequest`, `Forbidden`, …);
 * Nova's own fault text goes to `context.logger` only, never into an event. An answer that never came
 * (timeout, reset, 5xx, cancelled) is `*.outcomeUnknown` with a reason Regent words itself.
 */
import type { EffectHandler } from '../engine/engine.js';
import type { CinderClient } from '../openstack/cinder/index.js';
import type { NovaClient } from '../openstack/nova/index.js';
import type { AttachmentObservation, VolumeObservation } from '../openstack/decoders/volume.js';
import {
  BadRequest, Cancelled, Conflict, Forbidden, NotFound, OpenStackError, OverLimit, RequestFailed, ServerError, Timeout, Unauthorized, UnexpectedStatus, UnreadableResponse,
} from '../openstack/errors.js';
import { volumeCloudName } from '../../machines/volume-lifecycle.js';
import type { AttachmentRow, VolumeAttachmentObservation } from '../../machines/volume-attachment.js';

export { ConsistencyError } from '../openstack/errors.js';

export interface AttachmentClients {
  nova: Pick<NovaClient, 'getServer'>;
  cinder: Pick<CinderClient, 'lookupVolumeByName' | 'listAttachments'>;
}

export interface ObserveAttachmentInput {
  identity: 'realized' | 'neverRealized';
  /** The Nova server id the Server lifecycle recorded; null when it recorded none. */
  serverId: string | null;
  volumeUid: string;
}

/** Cinder attachment statuses that no longer hold the volume (or never did: a rolled-back reservation). */
const GONE_STATUSES = new Set(['detached', 'deleted', 'error_attaching']);

const holdsVolume = (row: AttachmentObservation): boolean => row.status.kind !== 'value' || !GONE_STATUSES.has(row.status.value);

const observeServer = async (nova: AttachmentClients['nova'], serverId: string | null): Promise<VolumeAttachmentObservation['server']> => {
  if (serverId === null) return { kind: 'absent' };
  try {
    const server = await nova.getServer(serverId);
    if (server.status.kind === 'value' && server.status.value === 'DELETED') return { kind: 'absent' };
    return { kind: 'present', id: server.id };
  } catch (error) {
    if (error instanceof NotFound) return { kind: 'absent' };
    throw error;
  }
};

const rowsOf = (volume: VolumeObservation, rows: readonly AttachmentObservation[]): AttachmentRow[] => {
  const refs = volume.attachments.kind === 'value' ? volume.attachments.value : [];
  return rows.filter(holdsVolume).map((row) => {
    const serverId = row.instance.kind === 'value' ? (row.instance.value ?? '') : '';
    const ref = refs.find((r) => r.attachmentId === row.id) ?? refs.find((r) => r.attachmentId === null && r.serverId === serverId && serverId !== '');
    return { serverId, device: ref?.device ?? null };
  });
};

/**
 * One pass's observation of a (server, volume) pair. Throws `ConsistencyError` when two Cinder volumes are
 * named exactly `volume-<uid>`, and whatever a read could not answer (the pass fails; nothing is decided).
 */
export const observeAttachment = async (os: AttachmentClients, input: ObserveAttachmentInput): Promise<VolumeAttachmentObservation> => {
  if (input.identity === 'neverRealized') return { identity: 'neverRealized', server: { kind: 'absent' }, volume: { kind: 'absent' } };
  const server = await observeServer(os.nova, input.serverId);
  const volume = await os.cinder.lookupVolumeByName(volumeCloudName(input.volumeUid));
  if (volume === undefined) return { identity: 'realized', server, volume: { kind: 'absent' } };
  const rows = await os.cinder.listAttachments({ volumeId: volume.id });
  return {
    identity: 'realized',
    server,
    volume: {
      kind: 'present',
      id: volume.id,
      multiattach: volume.multiattach.kind === 'value' && volume.multiattach.value,
      attachments: rowsOf(volume, rows.filter((r) => r.volumeId.kind !== 'value' || r.volumeId.value === volume.id)),
    },
  };
};

type Nova = Pick<NovaClient, 'attachVolume' | 'getVolumeAttachment' | 'detachVolume'>;

/** Regent's closed name for a refusal (the status text of `volumeAttachmentStatus`), never the service's text. */
const refusalReason = (error: unknown): string | undefined => {
  if (error instanceof BadRequest) return 'BadRequest';
  if (error instanceof Forbidden) return 'Forbidden';
  if (error instanceof Unauthorized) return 'Unauthorized';
  if (error instanceof OverLimit) return 'OverLimit';
  if (error instanceof UnexpectedStatus && error.status !== undefined && error.status >= 400 && error.status < 500) return 'UnexpectedStatus';
  return undefined;
};

/** Why no answer came, in Regent's words (no fault text: a 5xx body can name hosts). */
const unansweredReason = (error: unknown): string | undefined => {
  if (error instanceof Timeout) return error.status !== undefined ? `Nova answered HTTP ${error.status}` : 'no answer within the client timeout';
  if (error instanceof RequestFailed) return `the connection failed${error.code !== undefined ? ` (${error.code})` : ''}`;
  if (error instanceof ServerError) return `Nova answered HTTP ${error.status ?? 500}`;
  if (error instanceof Cancelled) return `the request was cancelled (${error.why})`;
  return undefined;
};

const logFields = (error: OpenStackError) => ({ status: error.status, reason: error.reason, fault: error.fault, requestId: error.requestId });
const ids = (effect: Record<string, unknown>) => ({ serverId: String(effect.serverId), volumeId: String(effect.volumeId) });

/** `nova.attachVolume {serverId, volumeId, device|null}`: one POST, never retried. */
export const attachVolumeHandler = (nova: Nova): EffectHandler => async (effect, context) => {
  const { serverId, volumeId } = ids(effect);
  const device = typeof effect.device === 'string' ? effect.device : undefined;
  try {
    const answered = await nova.attachVolume(serverId, volumeId, device !== undefined ? { device } : {});
    context.logger.info('nova accepted the volume attach', { serverId, volumeId, device: answered.device });
    return { type: 'attach.accepted', device: answered.device };
  } catch (error) {
    if (error instanceof UnreadableResponse) {
      // a 2xx whose body we cannot read: Nova took the create; the device comes with Cinder's row
      context.logger.warn('nova accepted the volume attach with an unreadable answer', { serverId, volumeId, problems: error.problems });
      return { type: 'attach.accepted', device: null };
    }
    if (error instanceof Conflict) {
      context.logger.warn('nova answered the volume attach with a conflict', { serverId, volumeId, ...logFields(error) });
      return { type: 'attach.conflict' };
    }
    if (error instanceof NotFound) {
      context.logger.warn('nova answered the volume attach with not found', { serverId, volumeId, ...logFields(error) });
      return { type: 'attach.notFound' };
    }
    const refused = refusalReason(error);
    if (refused !== undefined) {
      context.logger.warn('nova refused the volume attach', { serverId, volumeId, ...logFields(error as OpenStackError) });
      return { type: 'attach.rejected', status: (error as OpenStackError).status ?? 0, reason: refused };
    }
    const unknown = unansweredReason(error);
    if (unknown !== undefined) {
      context.logger.warn('the volume attach went unanswered', { serverId, volumeId, ...logFields(error as OpenStackError) });
      return { type: 'attach.outcomeUnknown', reason: unknown };
    }
    throw error;
  }
};

/** `nova.readVolumeAttachment {serverId, volumeId}`: the one read after a create's 409 (A5). */
export const readVolumeAttachmentHandler = (nova: Nova): EffectHandler => async (effect, context) => {
  const { serverId, volumeId } = ids(effect);
  try {
    const found = await nova.getVolumeAttachment(serverId, volumeId);
    context.logger.info('nova shows the volume attachment after a conflict', { serverId, volumeId, device: found.device });
    return { type: 'read.found', device: found.device };
  } catch (error) {
    if (error instanceof NotFound) return { type: 'read.notFound' };
    if (!(error instanceof OpenStackError)) throw error;
    context.logger.warn('the volume attachment read failed', { serverId, volumeId, ...logFields(error) });
    const reason = unansweredReason(error) ?? refusalReason(error) ?? (error instanceof UnreadableResponse ? 'Nova\'s answer could not be read' : error.status !== undefined ? `Nova answered HTTP ${error.status}` : `the read failed (${error.reason})`);
    return { type: 'read.failed', reason };
  }
};

/** `nova.detachVolume {serverId, volumeId}`: one DELETE per decision (the machine decides a resubmission, D8). */
export const detachVolumeHandler = (nova: Nova): EffectHandler => async (effect, context) => {
  const { serverId, volumeId } = ids(effect);
  try {
    await nova.detachVolume(serverId, volumeId);
    context.logger.info('nova accepted the volume detach', { serverId, volumeId });
    return { type: 'detach.accepted' };
  } catch (error) {
    if (error instanceof NotFound) return { type: 'detach.notFound' };
    if (error instanceof Conflict) {
      context.logger.warn('nova answered the volume detach with a conflict', { serverId, volumeId, ...logFields(error) });
      return { type: 'detach.conflict' };
    }
    const refused = refusalReason(error);
    if (refused !== undefined) {
      context.logger.warn('nova refused the volume detach', { serverId, volumeId, ...logFields(error as OpenStackError) });
      return { type: 'detach.rejected', status: (error as OpenStackError).status ?? 0, reason: refused };
    }
    const unknown = unansweredReason(error);
    if (unknown !== undefined) {
      context.logger.warn('the volume detach went unanswered', { serverId, volumeId, ...logFields(error as OpenStackError) });
      return { type: 'detach.outcomeUnknown', reason: unknown };
    }
    throw error;
  }
};
