/**
 * The Nova finalizer `nova.openstack.c5c3.io/finalizer` (nova-operator.md, "Rotation and deletion"; issue 27),
 * decided by machines/nova-finalizer.ts on `nova-finalizer-<uid>`:
 *
 * 1. It goes on before the pipeline first runs (the pass after it comes 1 s later: RequeueNextPass), and never on a
 *    Nova whose namespace is not served or whose target cluster does not resolve (nothing was created for it).
 * 2. A Nova being deleted with the finalizer on it: `deletionSeen` arms the cleanup, a second one (read back) decides
 *    it, and only then does the cleanup run (the effect
 *    `nova.deprovisionDatabases`): both blocks' MariaDB objects under the names they were provisioned with, nova_api
 *    under {name}-api, the cell block (with cell0) under {name}. What was live is observed before any Delete is
 *    issued. The embedded default drops only the schemas and users the ledger says Regent created.
 * 3. Something was live → the finalizer stays for one more pass (Normal event FinalizingDatabase, 30 s:
 *    RequeueDatabaseWait, "the finalizer's cleanup wait"). Nothing was → DatabaseFinalized; then the per-CR metrics
 *    are dropped, the health-probe cache entry and the capability probes are evicted, what runs on this host for the
 *    Nova is stopped (the embedded default's role processes) and the finalizer is released.
 *
 * A cleanup that fails (MariaDB unreachable, the API server refusing) throws: the pass backs off and the next one
 * decides the cleanup again; the finalizer is never released over an unverified cleanup.
 */
import { contextOf } from '../../engine/engine.js';
import type { EffectHandler, EffectResult } from '../../engine/engine.js';
import type { Stimulus } from '../../../machines/definition.js';
import { novaFinalizerDefinition, novaFinalizerStream, type OwnedObject } from '../../../machines/nova-finalizer.js';
import { describeError } from '../../log/logger.js';
import type { Nova } from '../../resources/nova.js';
import { planDatabases } from '../../nova/database/plan.js';
import type { NovaRef } from '../../nova/jobs/render.js';
import { sharedHealthProbes } from '../../nova/health-probe.js';
import { done, yieldFor, type Disposition } from '../disposition.js';
import { NOVA_REQUEUE_MS, type NovaControllerDeps } from './deps.js';
import { novaOfStream } from './render-options.js';

export const NOVA_FINALIZER = 'nova.openstack.c5c3.io/finalizer';

/** Why the pass that added the finalizer ends (the pipeline runs on the next pass, 1 s later). */
export const FINALIZER_ADDED = `the finalizer ${NOVA_FINALIZER} was added; the pipeline runs on the next pass`;

const actor = 'reconciler/nova';

/** The SQL user of a block: the credentials Secret's `username`, else the user Regent claimed for it, else none. */
const usernameOf = async (deps: Pick<NovaControllerDeps, 'secrets'>, nova: Nova, block: 'api' | 'cell', owned: readonly OwnedObject[]): Promise<string> => {
  const secret = nova.spec.database[block].secretRef.name;
  try {
    const read = (await deps.secrets.get(nova.metadata.namespace ?? 'default', secret))?.data.username;
    if (read) return read;
  } catch {
    // the Secret may be gone with the namespace's other objects: the ledger still names what Regent created
  }
  return owned.find((o) => o.kind === 'user' && o.block === block)?.name ?? nova.spec.database[block].database;
};

/**
 * `nova.deprovisionDatabases {owned}` → `cleanupAnswered {live, message}`: both blocks through the provisioner,
 * each observing liveness before its Deletes. Throws when a block could not be cleaned (the next pass decides again).
 */
export const deprovisionHandler =
  (deps: Pick<NovaControllerDeps, 'source' | 'secrets' | 'provisioner'>): EffectHandler =>
  async (effect, context): Promise<EffectResult | undefined> => {
    const { owned } = effect as unknown as { owned: OwnedObject[] };
    const ref = novaOfStream(context.stream);
    if (!ref) return undefined;
    const nova = (await deps.source.get('Nova', ref.namespace, ref.name)) as Nova | undefined;
    // gone already (someone removed the finalizer by hand): nothing to hold; the next pass finds it gone
    if (!nova || nova.metadata.uid !== ref.uid) return { type: 'cleanupAnswered', live: [], message: 'the Nova is gone: nothing left to clean up here' };
    const credentials = { api: { username: await usernameOf(deps, nova, 'api', owned) }, cell: { username: await usernameOf(deps, nova, 'cell', owned) } };
    const plan = planDatabases(nova, credentials);
    if (!plan.ok) return { type: 'cleanupAnswered', live: [], message: `no schema was provisioned under a valid plan (${plan.problems.join('; ')}): nothing to clean up` };
    const namespace = ref.namespace;
    const secrets = async (secret: { name: string; key: string }) => (await deps.secrets.get(namespace, secret.name))?.data[secret.key];
    const live: string[] = [];
    const messages: string[] = [];
    const [api, cell] = plan.blocks;
    for (const [name, block] of [['api', api], ['cell', cell]] as const) {
      const mine = owned.filter((o) => o.block === name);
      const answer = await deps.provisioner.deprovision(ref.namespace, block, mine.map(({ kind, name }) => ({ kind, name })), secrets);
      if (answer.live) live.push(block.instance);
      if (answer.message) messages.push(`${block.instance}: ${answer.message}`);
    }
    return { type: 'cleanupAnswered', live, message: messages.join('; ') };
  };

/** What the finalizer leaves behind once released: the per-CR metrics, the probe caches, the local processes. */
const forget = async (deps: NovaControllerDeps, ref: NovaRef, endpoint: string | undefined): Promise<void> => {
  deps.metrics?.deleteForNova({ namespace: ref.namespace, name: ref.name });
  if (endpoint) (deps.healthProbe ?? sharedHealthProbes).evict(endpoint);
  deps.group?.evict?.();
  await deps.released?.(ref.namespace, ref.name);
};

const recordEvent = async (deps: NovaControllerDeps, nova: Nova, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> => {
  try {
    await deps.source.recordEvent(nova as never, type, reason, message);
  } catch (error) {
    deps.logger.debug('could not record a Kubernetes event', describeError(error));
  }
};

/** NF1: records the objects about to be created (before the provisioner creates them). */
export const claimOwnership = async (deps: NovaControllerDeps, ref: NovaRef, objects: readonly OwnedObject[]): Promise<void> => {
  if (objects.length === 0) return;
  await deps.engine.dispatch(novaFinalizerStream(ref.uid), { stimulus: { type: 'claimed', source: 'reconciler', objects } as unknown as Stimulus, actor });
};

/** The pass of a Nova being deleted that carries Regent's finalizer. */
export const finalizeNova = async (deps: NovaControllerDeps, nova: Nova, ref: NovaRef, endpoint: string | undefined): Promise<Disposition> => {
  const stream = novaFinalizerStream(ref.uid);
  const seen = { stimulus: { type: 'deletionSeen', source: 'reconciler', generation: nova.metadata.generation ?? 1 } as unknown as Stimulus, actor };
  await deps.engine.dispatch(stream, seen);
  // NF2: the first one arms the cleanup; read back, the second decides it (and the engine runs it after the append)
  if ((await deps.engine.load(novaFinalizerDefinition, stream)).value === 'cleanupArmed') await deps.engine.dispatch(stream, seen);
  const { value, snapshot } = await deps.engine.load(novaFinalizerDefinition, stream);
  const context = contextOf(novaFinalizerDefinition, snapshot);
  if (value !== 'released') {
    const message = `still live before the Deletes: ${(context.live ?? []).join(', ') || 'not answered yet'}${context.message ? ` (${context.message})` : ''}; the finalizer is held for one more pass`;
    await recordEvent(deps, nova, 'Normal', 'FinalizingDatabase', message);
    return yieldFor(NOVA_REQUEUE_MS.databaseWait, `FinalizingDatabase: ${message}`);
  }
  await recordEvent(deps, nova, 'Normal', 'DatabaseFinalized', context.message || 'no MariaDB object of this Nova was live');
  await forget(deps, ref, endpoint);
  if ((nova.metadata.finalizers ?? []).includes(NOVA_FINALIZER)) await deps.source.removeFinalizer('Nova', ref.namespace, ref.name, NOVA_FINALIZER);
  return done('DatabaseFinalized: the finalizer is released');
};
