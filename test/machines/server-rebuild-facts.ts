/** Builders of Nova observations for server-rebuild tests. */
import type { ServerFacts, TaskState, ImageRef, LaunchedAt } from '../../machines/server-rebuild/observation.js';
import type { ServerRebuildStimulus } from '../../machines/server-rebuild/stimuli.js';

export const SERVER = 'srv-1';
export const STREAM = `server-rebuild-${SERVER}`;

export const idle: TaskState = { kind: 'idle' };
export const busy = (name = 'rebuilding'): TaskState => ({ kind: 'active', name });
export const hidden: TaskState = { kind: 'unknown', why: 'hidden' };
export const image = (id: string): ImageRef => ({ kind: 'image', id });
export const unreadableRef: ImageRef = { kind: 'unreadable', why: 'missing' };
export const launched: LaunchedAt = { kind: 'launched', at: '2026-11-01T00:00:00Z' };
export const never: LaunchedAt = { kind: 'never' };

export const facts = (over: Partial<ServerFacts> = {}): ServerFacts => ({
  id: SERVER,
  status: 'ACTIVE',
  taskState: idle,
  imageRef: image('A'),
  launchedAt: launched,
  macAddress: 'fa:16:3e:00:00:01',
  ...over,
});

export const reconcile = (desiredImage: string, server: Partial<ServerFacts> = {}): ServerRebuildStimulus => ({
  type: 'reconcile',
  source: 'reconciler',
  desiredImage,
  server: facts(server),
});

export const observed = (server: Partial<ServerFacts> = {}): ServerRebuildStimulus => ({
  type: 'observed',
  source: 'monitor',
  server: facts(server),
  observedAt: '2026-11-29T10:00:00Z',
});

export const accepted = (imageId: string): ServerRebuildStimulus => ({ type: 'rebuild.accepted', source: 'effect', imageId, requestId: 'req-1' });
export const conflict = (imageId: string): ServerRebuildStimulus => ({ type: 'rebuild.conflict', source: 'effect', imageId, message: 'task_state rebuilding' });
export const rejected = (imageId: string): ServerRebuildStimulus => ({ type: 'rebuild.rejected', source: 'effect', imageId, status: 400, reason: 'BadRequest' });
export const unknown = (imageId: string, reason = 'no answer within the client timeout'): ServerRebuildStimulus => ({ type: 'rebuild.outcomeUnknown', source: 'effect', imageId, reason });

/** Pass clocks: T0, T0 + 30 s (inside the unknown-outcome window), T0 + 5 min (past it). */
export const T0 = '2026-11-29T10:00:00.000Z';
export const T30S = '2026-11-29T10:00:30.000Z';
export const T5M = '2026-11-29T10:05:00.000Z';
/** Nova's instance-action record: the rebuild request ids it shows. */
export const actions = (...requestIds: string[]) => ({ kind: 'read' as const, requestIds });
export const actionsUnreadable = { kind: 'unreadable' as const, why: 'HTTP 403' };

/** A reconciler pass at a time, with the instance-action record it read. */
export const reconcileAt = (desiredImage: string, at: string, rebuildActions?: ReturnType<typeof actions> | typeof actionsUnreadable, server: Partial<ServerFacts> = {}): ServerRebuildStimulus => ({
  type: 'reconcile',
  source: 'reconciler',
  desiredImage,
  server: facts(server),
  at,
  ...(rebuildActions ? { rebuildActions } : {}),
});

/** The alphabet for model-based exploration: every combination that matters to a decision. */
export const allFacts = (): ServerFacts[] => {
  const out: ServerFacts[] = [];
  for (const status of ['ACTIVE', 'SHUTOFF', 'ERROR', 'REBUILD', 'BUILD', null])
    for (const taskState of [idle, busy(), hidden])
      for (const imageRef of [image('A'), image('B'), image('C'), unreadableRef])
        for (const launchedAt of [launched, never]) out.push(facts({ status, taskState, imageRef, launchedAt }));
  return out;
};

export const alphabet = (): ServerRebuildStimulus[] => {
  const events: ServerRebuildStimulus[] = [];
  for (const server of allFacts()) {
    events.push({ type: 'reconcile', source: 'reconciler', desiredImage: 'A', server }, { type: 'reconcile', source: 'reconciler', desiredImage: 'B', server });
    events.push({ type: 'observed', source: 'monitor', server, observedAt: '2026-11-29T10:00:00Z' });
  }
  for (const id of ['A', 'B']) events.push(accepted(id), conflict(id), rejected(id), unknown(id));
  return events;
};

/**
 * The alphabet of the unknown-outcome rule (U1–U4): passes with a clock (T0, or past the window) and
 * every kind of instance-action record, over the facts that matter to it (booted, ACTIVE or ERROR,
 * idle or busy, ref on A, B or a foreign C), plus monitor observations and every effect result.
 */
export const unknownOutcomeAlphabet = (): ServerRebuildStimulus[] => {
  const events: ServerRebuildStimulus[] = [];
  for (const status of ['ACTIVE', 'ERROR'])
    for (const taskState of [idle, busy()])
      for (const imageRef of [image('A'), image('B'), image('C')]) {
        events.push(observed({ status, taskState, imageRef }));
        for (const desiredImage of ['A', 'B'])
          for (const at of [T0, T5M])
            for (const record of [actions(), actions('req-later'), actionsUnreadable]) events.push(reconcileAt(desiredImage, at, record, { status, taskState, imageRef }));
      }
  for (const id of ['A', 'B']) events.push(accepted(id), conflict(id), rejected(id), unknown(id));
  return events;
};
