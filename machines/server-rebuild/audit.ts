/**
 * The server-rebuild machine's audit hooks (machines/definition.ts, MachineAudit): the stimulus
 * alphabet `regent check` explores, and how to read the marker out of a snapshot.
 *
 * The alphabet is every combination of the observation facts a guard distinguishes (status class,
 * task state, image ref on/off target or unreadable, booted or not), for two desired images, from
 * each source, plus every effect result for both images. Two images are enough: every guard compares
 * a ref with the marker's target or the desired image, so "A", "B" and a third "C" cover equal,
 * different and foreign.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { MachineAudit, Stimulus } from '../definition.js';
import { RANK, UNKNOWN_OUTCOME_WINDOW_MS, type ServerRebuildContext } from '../server-rebuild.js';
import type { ImageRef, LaunchedAt, ServerFacts, TaskState } from './observation.js';
import type { RebuildActions, ServerRebuildStimulus } from './stimuli.js';

const SERVER = 'audit-server';
const OBSERVED_AT = '2026-01-01T00:00:00Z';

const taskStates: TaskState[] = [{ kind: 'idle' }, { kind: 'active', name: 'rebuilding' }, { kind: 'unknown', why: 'hidden' }];
const imageRefs: ImageRef[] = [
  { kind: 'image', id: 'A' },
  { kind: 'image', id: 'B' },
  { kind: 'image', id: 'C' },
  { kind: 'unreadable', why: 'missing' },
];
const launches: LaunchedAt[] = [{ kind: 'launched', at: '2026-01-01T00:00:00Z' }, { kind: 'never' }];
const statuses: Array<string | null> = ['ACTIVE', 'SHUTOFF', 'ERROR', 'REBUILD', 'BUILD', null];
/** A pass at T0 and one past the unknown-outcome window. */
const CLOCKS = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:05:00.000Z'];
const RECORDS: RebuildActions[] = [{ kind: 'read', requestIds: [] }, { kind: 'read', requestIds: ['req-later'] }, { kind: 'unreadable', why: 'HTTP 403' }];

/** Every decision-relevant observation of one server. */
export const serverRebuildFacts = (): ServerFacts[] => {
  const out: ServerFacts[] = [];
  for (const status of statuses)
    for (const taskState of taskStates)
      for (const imageRef of imageRefs)
        for (const launchedAt of launches) out.push({ id: SERVER, status, taskState, imageRef, launchedAt, macAddress: 'fa:16:3e:00:00:01' });
  return out;
};

/** Reconciler passes and monitor observations over every fact, and every effect result. */
export const serverRebuildCoreAlphabet = (): ServerRebuildStimulus[] => {
  const events: ServerRebuildStimulus[] = [];
  for (const server of serverRebuildFacts()) {
    events.push({ type: 'reconcile', source: 'reconciler', desiredImage: 'A', server }, { type: 'reconcile', source: 'reconciler', desiredImage: 'B', server });
    events.push({ type: 'observed', source: 'monitor', server, observedAt: OBSERVED_AT });
  }
  for (const imageId of ['A', 'B']) {
    events.push(
      { type: 'rebuild.accepted', source: 'effect', imageId, requestId: 'req-audit' },
      { type: 'rebuild.conflict', source: 'effect', imageId, message: 'a task holds the server (409)' },
      { type: 'rebuild.rejected', source: 'effect', imageId, status: 400, reason: 'BadRequest' },
      { type: 'rebuild.outcomeUnknown', source: 'effect', imageId, reason: 'no answer within the client timeout' },
    );
  }
  return events;
};

/** The unknown-outcome rule (U1–U4): passes with a clock (T0, and past the window) and each kind of instance-action record. */
export const serverRebuildClockedPasses = (): ServerRebuildStimulus[] => {
  const events: ServerRebuildStimulus[] = [];
  for (const status of ['ACTIVE', 'ERROR'])
    for (const imageRef of imageRefs.slice(0, 3))
      for (const desiredImage of ['A', 'B'])
        for (const at of CLOCKS)
          for (const rebuildActions of RECORDS) {
            const server: ServerFacts = { id: SERVER, status, taskState: { kind: 'idle' }, imageRef, launchedAt: launches[0] as LaunchedAt, macAddress: 'fa:16:3e:00:00:01' };
            events.push({ type: 'reconcile', source: 'reconciler', desiredImage, server, at, rebuildActions });
          }
  return events;
};

/** Everything `regent check` explores for this machine. */
export const serverRebuildAlphabet = (): ServerRebuildStimulus[] => [...serverRebuildCoreAlphabet(), ...serverRebuildClockedPasses()];

const contextOf = (snapshot: AnyMachineSnapshot): ServerRebuildContext => snapshot.context as ServerRebuildContext;

export const serverRebuildAudit: MachineAudit = {
  alphabet: (): readonly Stimulus[] => serverRebuildAlphabet(),
  // Health, MAC, provisionedAt, task_state's visibility, the submission counter, the last answer and the
  // recorded reasons are data no guard reads; the unanswered submission is control state (its image, clock and baseline).
  stateKey: (snapshot) => {
    const c = contextOf(snapshot);
    const o = c.outstanding;
    return JSON.stringify([snapshot.value, c.marker, c.parked, o && [o.imageId, o.decidedAt ?? `waiting since ${o.waitingSince}`, o.baseline, o.answer]]);
  },
  intentOf: (snapshot) => {
    const marker = contextOf(snapshot).marker;
    return marker ? { target: marker.targetImageID, state: marker.state } : null;
  },
  rank: (snapshot) => {
    const marker = contextOf(snapshot).marker;
    return marker ? RANK[marker.state] : 0;
  },
  parked: (snapshot) => contextOf(snapshot).parked,
  evidenceOf: (before, stimulus) => {
    const c = contextOf(before);
    const pass = stimulus as ServerRebuildStimulus;
    if (pass.type !== 'reconcile' || !c.marker) return undefined;
    const record = pass.rebuildActions;
    const seen = record === undefined ? "Nova's instance-action record was not read" : record.kind === 'read' ? `Nova had recorded ${record.requestIds.length} rebuild(s) (the baseline)` : `Nova's instance-action record was unreadable (${record.why})`;
    const o = c.outstanding;
    if (!o) return `the ${c.marker.state} marker for ${c.marker.targetImageID} was read back with no unanswered submission; ${seen}`;
    const answer = o.answer === 'unknown' ? `its answer never came (${o.reason ?? 'unknown'})` : 'no answer was recorded (Regent stopped or crashed during the request)';
    const since = o.decidedAt ? `decided at ${o.decidedAt}` : `waited for since ${o.waitingSince ?? '?'}`;
    const baseline = o.baseline ? `${o.baseline.length} before the decision` : 'unreadable before the decision';
    const now = record?.kind === 'read' ? record.requestIds.length : '?';
    return `an earlier submission for ${o.imageId} (${since}) was unanswered: ${answer}; submitted again at ${pass.at ?? '?'}, once the ${UNKNOWN_OUTCOME_WINDOW_MS / 1000} s window had passed and Nova's instance-action record showed no rebuild since the decision (rebuilds recorded: ${baseline}, ${now} now)`;
  },
};
