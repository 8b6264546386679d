/**
 * A real server-rebuild history, recorded by the engine with the product machine and a fake Nova
 * whose first rebuild answer is a 409 and second a 2xx:
 *
 *   rev 0  reconcile (desired B, Nova on A)          noMarker → Initiated   serverRebuild.armed
 *   rev 1  reconcile (read back, quiescent)          Initiated → Initiated  serverRebuild.submitted  ! nova.rebuild
 *   rev 2  rebuild.conflict (effect, caused by 1)    Initiated              serverRebuild.conflict
 *   rev 3  observed (monitor, A ACTIVE)              Initiated              serverRebuild.observed  (health recorded)
 *   rev 4  reconcile (quiescent again)               Initiated → Initiated  serverRebuild.submitted  ! nova.rebuild
 *   rev 5  rebuild.accepted (effect, caused by 4)    Initiated → Rebuilding serverRebuild.accepted
 *   rev 6  observed (monitor, B REBUILD)             Rebuilding             serverRebuild.observed
 *   rev 7  observed (monitor, B ACTIVE idle)         Rebuilding → Succeeded serverRebuild.observedSucceeded
 *   rev 8  reconcile (converged on B)                Succeeded → noMarker   serverRebuild.cleared
 */
import { Engine } from '../../../src/engine/engine.js';
import type { EventStore } from '../../../src/store/port.js';
import { createProductRegistry } from '../../../machines/index.js';
import { serverRebuildStream } from '../../../machines/server-rebuild.js';
import { facts, image, busy, idle, observed, reconcile } from '../../machines/server-rebuild-facts.js';

export const REBUILD_SERVER = 'srv-1';
export const REBUILD_STREAM = serverRebuildStream(REBUILD_SERVER);
export const T0 = Date.parse('2026-11-29T10:00:00Z');

export const recordRebuildHistory = async (store: EventStore, stream = REBUILD_STREAM): Promise<{ submits: number }> => {
  let tick = T0;
  let submits = 0;
  const engine = new Engine({
    store,
    registry: createProductRegistry(),
    now: () => new Date((tick += 60_000)),
    handlers: {
      'nova.rebuild': async (effect) => {
        submits++;
        const imageId = String(effect.imageId);
        return submits === 1 ? { type: 'rebuild.conflict', imageId, message: 'a task holds the server (409)' } : { type: 'rebuild.accepted', imageId, requestId: 'req-42' };
      },
    },
  });
  const pass = (stimulus: ReturnType<typeof reconcile>) => engine.dispatch(stream, { stimulus, actor: 'reconciler/server-image' });
  const look = (stimulus: ReturnType<typeof observed>) => engine.dispatch(stream, { stimulus, actor: 'monitor/nova' });
  await pass(reconcile('B', { imageRef: image('A') }));
  await pass(reconcile('B', { imageRef: image('A') }));
  await look(observed({ imageRef: image('A'), status: 'ACTIVE', taskState: idle }));
  await pass(reconcile('B', { imageRef: image('A') }));
  await look(observed({ imageRef: image('B'), status: 'REBUILD', taskState: busy('rebuilding') }));
  await look(observed({ imageRef: image('B'), status: 'ACTIVE', taskState: idle }));
  await pass(reconcile('B', facts({ imageRef: image('B') })));
  return { submits };
};

/** A rebuild Nova accepts at once: armed, submitted, accepted, observed rebuilding, observed done, cleared (6 events). */
export const recordCleanRebuild = async (store: EventStore, stream: string, subject?: { kind: string; namespace: string; name: string }, startMs = T0 + 3_600_000): Promise<void> => {
  let tick = startMs;
  const engine = new Engine({
    store,
    registry: createProductRegistry(),
    ...(subject ? { subjectOf: () => subject } : {}),
    now: () => new Date((tick += 60_000)),
    handlers: { 'nova.rebuild': async (effect) => ({ type: 'rebuild.accepted', imageId: String(effect.imageId), requestId: 'req-7' }) },
  });
  const pass = (stimulus: ReturnType<typeof reconcile>) => engine.dispatch(stream, { stimulus, actor: 'reconciler/server-image' });
  const look = (stimulus: ReturnType<typeof observed>) => engine.dispatch(stream, { stimulus, actor: 'monitor/nova' });
  await pass(reconcile('C', { imageRef: image('A') }));
  await pass(reconcile('C', { imageRef: image('A') }));
  await look(observed({ imageRef: image('C'), status: 'REBUILD', taskState: busy('rebuilding') }));
  await look(observed({ imageRef: image('C'), status: 'ACTIVE', taskState: idle }));
  await pass(reconcile('C', { imageRef: image('C') }));
};
