/**
 * What the volume-lifecycle machine keeps between passes (machines/volume-lifecycle.ts). The guards read the
 * volume id, the create and extend records, the failure's generation and the delete ledger; the rest is recorded
 * for status.
 */
import type { VOLUME_ERRORED_MESSAGE } from './cinder.js';

/** A Cinder refusal: HTTP status and Regent's closed reason (never Cinder's text). */
export interface VolumeRefusal {
  status: number;
  reason: string;
}

export interface VolumeContext {
  volumeUid: string;
  /** V1: `volume-{uid}`. */
  name: string;
  /** The Cinder id, once accepted or observed. */
  volumeId: string | null;
  /** The last fresh observation of the volume (for status: Cinder's status word, size and the servers it is attached to, nothing else). */
  observed: { status: string; size: number; attachments?: string[] } | null;
  /** V6: the decided create not yet seen in Cinder; null once observed, refused or given up. */
  create: { generation: number; decidedAt: string; answer: 'pending' | 'accepted' | 'unknown' } | null;
  /** Creates decided since the volume was last seen (V6 bound). */
  createAttempts: number;
  /** Why creation is parked (`failed`), for the generation it failed at; a newer one retries. */
  failure: ({ kind: 'rejected'; generation: number } & VolumeRefusal) | { kind: 'attemptsExhausted'; generation: number; attempts: number } | null;
  /** V10: the decided extend not yet seen done. */
  extend: { size: number; decidedAt: string; answer: 'pending' | 'accepted' } | null;
  /** V10: an extend Cinder refused, not sent again for this generation. */
  extendRefusal: ({ generation: number; size: number } & VolumeRefusal) | null;
  /** V10: the spec asked for less than the volume has: never sent. */
  shrinkRefused: { desired: number; observed: number } | null;
  /** V4 (and a spec that does not decode): why nothing is created. */
  invalidSpec: { generation: number; reason: 'VolumeClassNotExported' | 'SpecRejected'; message: string } | null;
  /** V8: set while errored; the message is the only user-visible text. */
  errored: { message: typeof VOLUME_ERRORED_MESSAGE } | null;
  /** V3: the Cinder ids of the duplicates (operator-facing). */
  duplicates: string[] | null;
  /** What a pass is waiting for (identity not realized, servers still attached, a create that may still land). */
  waiting: { reason: 'IdentityNotRealized' } | { reason: 'Attached'; servers: string[] } | { reason: 'CreateMayStillLand' } | { reason: 'DeletableStatus'; status: string } | null;
  /** V12/L8: delete requests decided for the current volume and the clock of the last. */
  deleteAttempts: number;
  lastDeleteAt: string | null;
  deleteRefusal: VolumeRefusal | null;
  /** V11: deleted without a project although this stream had recorded a volume (it may be orphaned). */
  deletedWithoutProject: boolean;
  decidedGeneration: number | null;
}
