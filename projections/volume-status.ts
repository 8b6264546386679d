/**
 * A Volume's status from its lifecycle stream (machines/volume-lifecycle.ts); the table is docs/volume.md.
 *
 * | lifecycle | Available | phase |
 * |---|---|---|
 * | no pass yet, a newer generation not decided yet, creating, pending, extending | False / Provisioning | Provisioning |
 * | available (or in-use) at the spec's size | True / Provisioned | Ready |
 * | a status beginning with `error` | False / Errored, "provider volume entered an error state" | Error |
 * | class not exported, spec refused | False / InvalidSpec | Error |
 * | two volumes named volume-<uid> | False / ConsistencyError | Error |
 * | create refused or never landed | False / CreateRejected, QuotaExceeded or Errored | Error |
 * | deleting (also waiting for a detach, naming the servers) | False / Deleting | Deleting |
 *
 * InUse: True / Attached naming the Server resources Cinder shows the volume attached to; False /
 * NotAttached otherwise; Unknown until the volume has been seen. The servers come from the volume's own
 * Cinder lookup (its attachment rows, by Server name): no Nova or Cinder id is written into a condition.
 *
 * `volumeID`, `state` (Cinder's status word), `size` and `volumeClassID` once the volume has been seen.
 */
import type { AnyMachineSnapshot } from 'xstate';
import { MAX_CREATE_ATTEMPTS, VOLUME_ERRORED_MESSAGE, type VolumeContext } from '../machines/volume-lifecycle.js';
import { mergeConditions, type Condition, type ConditionInput } from './conditions.js';

// ─── the machine's state, read for status (moved here from machines/volume-lifecycle.ts, issue 25) ───

/** The Available condition a Volume's status shows for the machine's state (V8: the exact Errored message). */
export const volumeAvailable = (snapshot: Pick<AnyMachineSnapshot, 'value' | 'context'>): { status: 'True' | 'False'; reason: string; message: string } => {
  const c = snapshot.context as VolumeContext;
  const state = typeof snapshot.value === 'string' ? snapshot.value : 'deleting';
  const no = (reason: string, message: string) => ({ status: 'False' as const, reason, message });
  if (state === 'errored') return no('Errored', VOLUME_ERRORED_MESSAGE);
  if (c.invalidSpec) return no('InvalidSpec', c.invalidSpec.message);
  switch (state) {
    case 'available':
      return { status: 'True', reason: 'Provisioned', message: c.shrinkRefused ? `the volume is ${c.shrinkRefused.observed} GiB; a volume never shrinks` : 'the volume is available' };
    case 'inconsistent':
      return no('ConsistencyError', `more than one Cinder volume is named exactly ${c.name}`);
    case 'failed':
      if (c.failure?.kind === 'rejected') return no(c.failure.status === 413 ? 'QuotaExceeded' : 'CreateRejected', `Cinder refused to create the volume (HTTP ${c.failure.status})`);
      return no('Errored', `${c.failure?.attempts ?? MAX_CREATE_ATTEMPTS} creates were attempted, but the volume never appeared`);
    case 'extending':
      return no('Provisioning', `extending the volume to ${c.extend?.size ?? '?'} GiB`);
    case 'deleting':
    case 'deleted':
      if (c.waiting?.reason === 'Attached') return no('Deleting', `waiting for the volume to be detached from ${c.waiting.servers.join(', ')}`);
      return no('Deleting', c.deleteAttempts > 1 || c.deleteRefusal ? `deleting the volume (${c.deleteAttempts} delete requests)` : 'deleting the volume');
    default:
      if (c.waiting?.reason === 'IdentityNotRealized') return no('Provisioning', 'waiting for the identity to be realized');
      return no('Provisioning', state === 'absent' ? 'waiting to create the volume' : 'creating the volume');
  }
};

// ─── the resource's status ──────────────────────────────────────────────────────────────────────────

export interface VolumeResourceStatus {
  observedGeneration: number;
  phase: string;
  conditions: Condition[];
  volumeID?: string;
  size?: number;
  state?: string;
  volumeClassID?: string;
}

export interface VolumeView {
  state: unknown;
  context: VolumeContext;
}

const PHASES: Record<string, string> = { Provisioned: 'Ready', Provisioning: 'Provisioning', Deleting: 'Deleting' };

const inUse = (c: VolumeContext | undefined): ConditionInput => {
  const servers = c?.observed?.attachments ?? [];
  if (!c || c.volumeId === null || c.observed === null) return { type: 'InUse', status: 'Unknown', reason: 'NotObserved', message: 'the volume has not been seen in Cinder yet' };
  if (servers.length > 0) return { type: 'InUse', status: 'True', reason: 'Attached', message: `attached to ${servers.join(', ')}` };
  return { type: 'InUse', status: 'False', reason: 'NotAttached', message: 'the volume is not attached to any server' };
};

export const renderVolumeResource = (input: {
  lifecycle: VolumeView | undefined;
  generation: number;
  spec: { size?: number; volumeClassID?: string } | undefined;
  at: string;
  previous?: VolumeResourceStatus;
}): VolumeResourceStatus => {
  const view = input.lifecycle;
  const c = view?.context;
  const observedGeneration = c?.decidedGeneration ?? 0;
  let available: ConditionInput;
  if (!view) available = { type: 'Available', status: 'False', reason: 'Provisioning', message: 'not reconciled yet' };
  else {
    const a = volumeAvailable({ value: view.state as never, context: c });
    available = { type: 'Available', ...a };
    // a spec generation no pass has decided on yet is not Ready, whatever the last one achieved
    if (a.status === 'True' && (c?.decidedGeneration ?? 0) < input.generation) {
      available = { type: 'Available', status: 'False', reason: 'Provisioning', message: `generation ${input.generation} is not reconciled yet` };
    } else if (a.status === 'True' && input.spec?.size !== undefined && c?.observed && c.observed.size < input.spec.size) {
      available = { type: 'Available', status: 'False', reason: 'Provisioning', message: `growing the volume from ${c.observed.size} to ${input.spec.size} GiB` };
    }
  }
  const status: VolumeResourceStatus = {
    observedGeneration,
    phase: PHASES[available.reason] ?? 'Error',
    conditions: mergeConditions(input.previous?.conditions, [available, inUse(c)], observedGeneration, input.at),
  };
  if (c?.volumeId && c.observed) {
    status.volumeID = c.volumeId;
    status.state = c.observed.status;
    status.size = c.observed.size;
    if (input.spec?.volumeClassID) status.volumeClassID = input.spec.volumeClassID;
  }
  return status;
};
