/**
 * The Server's volume pass (issue 12; openstack-provider.md, "Existing-volume server attachments are a
 * separate, project-scoped write path"): for every Volume in `Server.spec.volumes` an attach pass of
 * machines/volume-attachment.ts, and for every pair this server attached before and no longer lists (or
 * all of them, when the server is being deleted) a detach pass. One stream per (server, volume) pair.
 *
 * Each pass brings a fresh observation (src/provider/volume-attachments.ts): the Nova server the Server
 * lifecycle recorded, and the exact-name Cinder volume with its attachment rows. A Volume whose Cinder
 * volume is not available yet is waited for (no attach pass: it would only record NotFound); a Volume
 * resource that does not exist is named in status and looked at again.
 *
 * The pairs are found again from the event store (`volume-attachment-<serverUid>-`), so a volume removed
 * from the spec is detached even after a restart, and even when its Volume resource is already gone.
 */
import type { Decision, Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import type { Logger } from '../../log/logger.js';
import type { Server } from '../../resources/index.js';
import type { Stimulus } from '../../../machines/definition.js';
import { volumeAttachmentStream, type VolumeAttachmentStimulus } from '../../../machines/volume-attachment.js';
import { volumeLifecycleDefinition, volumeLifecycleStream, isSettledStatus } from '../../../machines/volume-lifecycle.js';
import { observeAttachment, type AttachmentClients } from '../../provider/volume-attachments.js';
import { done, yieldFor, type Disposition } from '../disposition.js';

/** Requeue intervals of the volume pass (docs/server.md, "Volumes"). */
export const SERVER_VOLUME_REQUEUE_MS = {
  /** a Nova call is in flight or Cinder has not caught up: look again soon. */
  progress: 2_000,
  /** a Volume that does not exist or is not available yet. */
  waiting: 5_000,
  /** NotFound, Conflict or a refusal: the cause is outside Regent (another server holds the volume…). */
  problem: 30_000,
} as const;

const PREFIX = 'volume-attachment-';

/** Outcomes after which the pair is settled (machines/volume-attachment.ts, "Outcomes"). */
const SETTLED = new Set(['attached', 'attachAccepted', 'readBackAttached', 'detached', 'identityNeverRealized', 'detachNotFound']);
const PROBLEMS = new Set(['identityNotRealized', 'serverNotFound', 'volumeNotFound', 'attachNotFound', 'attachedElsewhere', 'conflictUnresolved', 'detachConflict', 'attachRejected', 'detachRejected']);

export interface ServerVolumesDeps {
  engine: Engine;
  source: ResourceSource;
  os: AttachmentClients;
  logger: Logger;
  now?: () => Date;
}

export interface ServerVolumesInput {
  server: Server;
  /** The Nova server id the lifecycle recorded (null: none yet, or gone). */
  serverId: string | null;
  deleting: boolean;
}

export interface ServerVolumesResult {
  decisions: Decision[];
  disposition: Disposition;
  /** Pairs still attached or detaching (a deleting server waits for them before its Nova delete). */
  outstanding: number;
}

const actor = 'reconciler/server-volumes';

/** The volume uids this server has an attachment stream for, and whether the pair is detached. */
const knownPairs = async (engine: Engine, serverUid: string): Promise<Map<string, boolean>> => {
  const out = new Map<string, boolean>();
  for (const info of await engine.store.listStreams({ streamPrefixes: [`${PREFIX}${serverUid}-`] })) {
    const loaded = await engine.load(info.stream);
    out.set(info.stream.slice(`${PREFIX}${serverUid}-`.length), loaded.snapshot.value === 'detached');
  }
  return out;
};

export const reconcileServerVolumes = async (deps: ServerVolumesDeps, input: ServerVolumesInput): Promise<ServerVolumesResult> => {
  const { server, serverId, deleting } = input;
  const namespace = server.metadata.namespace ?? 'default';
  const serverUid = server.metadata.uid;
  const generation = server.metadata.generation ?? 1;
  const at = () => (deps.now ?? (() => new Date()))().toISOString();
  const decisions: Decision[] = [];
  const waits: Disposition[] = [];
  let outstanding = 0;

  const pass = async (volumeUid: string, stimulus: (observed: Awaited<ReturnType<typeof observeAttachment>>) => VolumeAttachmentStimulus) => {
    const observed = await observeAttachment(deps.os, { identity: 'realized', serverId, volumeUid });
    const made = await deps.engine.dispatch(volumeAttachmentStream(serverUid, volumeUid), { stimulus: stimulus(observed) as unknown as Stimulus, actor });
    decisions.push(...made);
    const last = made[made.length - 1];
    const outcome = last?.outcome ?? '';
    if (PROBLEMS.has(outcome)) waits.push(yieldFor(SERVER_VOLUME_REQUEUE_MS.problem, `volume ${volumeUid}: ${outcome}`));
    else if (!SETTLED.has(outcome)) waits.push(yieldFor(SERVER_VOLUME_REQUEUE_MS.progress, `volume ${volumeUid}: ${outcome || 'no change'}`));
    return last?.snapshot.value;
  };

  const pairs = await knownPairs(deps.engine, serverUid);
  const wanted = new Set<string>();
  if (!deleting) {
    for (const entry of server.spec.volumes ?? []) {
      const volume = await deps.source.get('Volume', namespace, entry.volumeID);
      if (!volume) {
        waits.push(yieldFor(SERVER_VOLUME_REQUEUE_MS.waiting, `the Volume ${entry.volumeID} does not exist`));
        continue;
      }
      wanted.add(volume.metadata.uid);
      // a pair already in progress keeps going; a new one waits until its Cinder volume is available
      if (!pairs.has(volume.metadata.uid) || pairs.get(volume.metadata.uid) === true) {
        const lifecycle = await deps.engine.load(volumeLifecycleDefinition, volumeLifecycleStream(volume.metadata.uid));
        const observed = lifecycle.context.observed;
        if (!observed || !isSettledStatus(observed.status)) {
          waits.push(yieldFor(SERVER_VOLUME_REQUEUE_MS.waiting, `waiting for the Volume ${entry.volumeID} to be available`));
          continue;
        }
      }
      await pass(volume.metadata.uid, (observed) => ({ type: 'attach', source: 'reconciler', generation, at: at(), observed, ...(entry.device ? { device: entry.device } : {}) }));
    }
  }
  for (const [volumeUid, detached] of pairs) {
    if (wanted.has(volumeUid) || detached) continue;
    const state = await pass(volumeUid, (observed) => ({ type: 'detach', source: 'reconciler', generation, at: at(), observed, why: deleting ? 'serverDeleted' : 'removedFromSpec' }));
    if (state !== 'detached') outstanding += 1;
  }
  const soonest = waits.filter((w): w is Extract<Disposition, { kind: 'yield' }> => w.kind === 'yield').sort((a, b) => a.afterMs - b.afterMs)[0];
  return { decisions, disposition: soonest ?? done('volumes attached as the spec asks'), outstanding };
};
