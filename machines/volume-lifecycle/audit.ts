/**
 * The volume-lifecycle machine's audit hooks (machines/definition.ts MachineAudit): the alphabet `regent check`
 * explores (every lookup a guard tells apart, deletion requested or not, two generations, three clocks, an
 * identity without a project, every Cinder answer), the finite state key, and the deletion intent.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { MachineAudit, Stimulus } from '../definition.js';
import { EXTENDABLE_STATUSES } from './cinder.js';
import type { VolumeContext } from './context.js';
import type { Reconcile, VolumeDesired, VolumeLookup } from './stimuli.js';
import { deletingSubstate } from '../write-ahead-delete.js';

/** The deletion intent: armed (1) and submitted (2), for the Cinder id recorded when it was armed. */
const INTENT_RANK: Record<string, number> = { armed: 1, submitted: 2 };
const intentOf = (snapshot: AnyMachineSnapshot) => {
  const sub = deletingSubstate(snapshot);
  return sub !== null && sub in INTENT_RANK ? { target: (snapshot.context as VolumeContext).volumeId ?? '', state: sub === 'armed' ? 'deleteArmed' : 'deleting' } : null;
};

/** Pass clocks of the audit alphabet: a start, after L8's first backoff (not the V6 window), after both. */
export const AUDIT_TIMES = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:20Z', '2026-01-01T00:10:00Z'] as const;

const AUDIT_DESIRED = (size: number): VolumeDesired => ({
  size,
  volumeClassID: 'gold',
  linkage: { identityID: 'ident-1', organizationID: 'org-1', projectID: 'proj-1', regionID: 'region-1', networkID: 'net-1' },
  tags: { team: 'storage' },
});

/** Every decision-relevant lookup: each status class, sizes below/at the grown spec, attached or not, another id, two. */
export const auditLookups = (): Array<VolumeLookup | undefined> => {
  const present = (status: string, size = 10, attachments: string[] = [], id = 'a'): VolumeLookup => ({ kind: 'present', id, status, size, attachments });
  return [
    undefined,
    { kind: 'absent' },
    { kind: 'duplicate', ids: ['a', 'b'] },
    present('creating'),
    present('available'),
    present('available', 20),
    present('available', 10, ['web-1']),
    present('in-use', 10, ['web-1']),
    present('in-use', 20),
    present('extending'),
    present('error'),
    present('error_extending'),
    present('error_deleting'),
    present('deleting'),
    present('maintenance'),
    present('available', 10, [], 'b'),
  ];
};

/** A finite alphabet covering every case the guards distinguish (machines/definition.ts MachineAudit). */
export const volumeAuditAlphabet = (): Stimulus[] => {
  const passes: Stimulus[] = [];
  for (const observed of auditLookups())
    for (const deletionRequested of [false, true])
      for (const generation of [1, 2])
        for (const at of AUDIT_TIMES) {
          const base = { type: 'reconcile', source: 'reconciler', generation, deletionRequested, at, identity: { kind: 'realized', projectId: 'p' }, ...(observed ? { observed } : {}) } as const;
          passes.push({ ...base, desired: AUDIT_DESIRED(20), exportedClasses: ['gold'] });
          // the spec size matters only against a settled size; the class only where a create would be decided
          if (observed?.kind === 'present' && observed.size === 10 && EXTENDABLE_STATUSES.includes(observed.status)) passes.push({ ...base, desired: AUDIT_DESIRED(10), exportedClasses: ['gold'] });
          if (observed?.kind === 'absent') passes.push({ ...base, desired: AUDIT_DESIRED(20), exportedClasses: ['silver'] });
        }
  for (const deletionRequested of [false, true])
    passes.push({ type: 'reconcile', source: 'reconciler', generation: 1, deletionRequested, at: AUDIT_TIMES[0], identity: { kind: 'unrealized' }, desired: AUDIT_DESIRED(20), exportedClasses: ['gold'] });
  return [
    ...passes,
    { type: 'specRejected', source: 'reconciler', generation: 1, problems: ['spec.size: Invalid value'] },
    { type: 'createAccepted', source: 'effect', id: 'a' },
    { type: 'createRejected', source: 'effect', status: 413, reason: 'overLimit' },
    { type: 'createOutcomeUnknown', source: 'effect', reason: 'timeout' },
    { type: 'extendAccepted', source: 'effect', volumeId: 'a', size: 20 },
    { type: 'extendRejected', source: 'effect', volumeId: 'a', size: 20, status: 400, reason: 'badRequest' },
    { type: 'deleteAccepted', source: 'effect', volumeId: 'a' },
    { type: 'deleteRejected', source: 'effect', volumeId: 'a', status: 400, reason: 'badRequest' },
  ];
};

export const volumeAudit = (): MachineAudit => ({
  alphabet: volumeAuditAlphabet,
  // Only what guards read: the per-pass records (observed, waiting, invalidSpec, errored, duplicates,
  // shrinkRefused, refusals' texts, decidedGeneration) never change a decision.
  stateKey: (snapshot: AnyMachineSnapshot) => {
    const c = snapshot.context as VolumeContext;
    return JSON.stringify([
      snapshot.value,
      c.volumeId,
      c.create,
      c.createAttempts,
      c.failure?.generation ?? null,
      c.extend,
      c.extendRefusal ? [c.extendRefusal.generation, c.extendRefusal.size] : null,
      c.deleteAttempts,
      c.lastDeleteAt,
    ]);
  },
  intentOf,
  rank: (snapshot: AnyMachineSnapshot) => INTENT_RANK[deletingSubstate(snapshot) ?? ''] ?? 0,
  parked: (snapshot: AnyMachineSnapshot) => ['errored', 'inconsistent', 'failed'].includes(String(snapshot.value)),
  evidenceOf: (before: AnyMachineSnapshot, stimulus: Stimulus) => {
    if (stimulus.type !== 'reconcile') return undefined;
    const e = stimulus as Reconcile;
    const p = e.observed?.kind === 'present' ? e.observed : null;
    const armedFor = (before.context as VolumeContext).volumeId;
    return p ? `deletion requested; armed for ${armedFor ?? 'nothing'}; this pass found ${p.id} in status ${p.status}, attached to ${p.attachments.length === 0 ? 'no server' : p.attachments.join(', ')}` : undefined;
  },
});
