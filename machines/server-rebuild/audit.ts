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
import { RANK, type ServerRebuildContext } from '../server-rebuild.js';
import type { ImageRef, LaunchedAt, ServerFacts, TaskState } from './observation.js';
import type { ServerRebuildStimulus } from './stimuli.js';

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
export const serverRebuildAlphabet = (): ServerRebuildStimulus[] => {
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
    );
  }
  return events;
};

const contextOf = (snapshot: AnyMachineSnapshot): ServerRebuildContext => snapshot.context as ServerRebuildContext;

export const serverRebuildAudit: MachineAudit = {
  alphabet: (): readonly Stimulus[] => serverRebuildAlphabet(),
  // Health, MAC, provisionedAt and the submission counter are data, not control state.
  stateKey: (snapshot) => {
    const c = contextOf(snapshot);
    return JSON.stringify([snapshot.value, c.marker, c.parked, c.lastSubmission]);
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
};
