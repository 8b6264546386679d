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
 *
 * A Nova on a target cluster (it carries `openstack.c5c3.io/remote-children` too; ./target.ts) runs the same named
 * cleanup on the target (NF6), then the write-ahead sweep `nova.sweepRemoteChildren` by the label
 * `regent.dev/nova-uid` (NF7; Normal RemoteChildrenSwept), and releases both finalizers. While its target does not
 * resolve each pass records `targetUnresolved {at}` (15 s); the first pass at or past five minutes after the first
 * one abandons (NF8): a Warning RemoteChildrenAbandoned names the cluster and what stays behind, and both finalizers
 * are released.
 */
import { contextOf } from '../../engine/engine.js';
import type { EffectHandler, EffectResult } from '../../engine/engine.js';
import type { Stimulus } from '../../../machines/definition.js';
import { ABANDON_WINDOW_MS, novaFinalizerDefinition, novaFinalizerStream, type NovaFinalizerContext, type OwnedObject } from '../../../machines/nova-finalizer.js';
import { describeError } from '../../log/logger.js';
import type { Nova } from '../../resources/nova.js';
import { planDatabases } from '../../nova/database/plan.js';
import type { NovaRef } from '../../nova/jobs/render.js';
import { sharedHealthProbes } from '../../nova/health-probe.js';
import { done, yieldFor, type Disposition } from '../disposition.js';
import { NOVA_REQUEUE_MS, type NovaControllerDeps } from './deps.js';
import { novaOfStream } from './render-options.js';
import { REMOTE_CHILDREN_FINALIZER, placeNova, portsFor } from './target.js';
import { SWEPT_KINDS } from '../../nova/remote-children.js';

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
  (deps: Pick<NovaControllerDeps, 'source' | 'secrets' | 'provisioner'> & Partial<Pick<NovaControllerDeps, 'targetClusters' | 'forTarget'>>): EffectHandler =>
  async (effect, context): Promise<EffectResult | undefined> => {
    const { owned } = effect as unknown as { owned: OwnedObject[] };
    const ref = novaOfStream(context.stream);
    if (!ref) return undefined;
    const nova = (await deps.source.get('Nova', ref.namespace, ref.name)) as Nova | undefined;
    // gone already (someone removed the finalizer by hand): nothing to hold; the next pass finds it gone
    if (!nova || nova.metadata.uid !== ref.uid) return { type: 'cleanupAnswered', live: [], message: 'the Nova is gone: nothing left to clean up here' };
    // NF6: on a target cluster the CRs were created there, and the credentials Secrets are read there
    deps = await portsFor(deps, nova);
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

/**
 * `nova.sweepRemoteChildren {}` → `remoteChildrenSwept {deleted}` (NF7): every child on the Nova's target cluster
 * labelled `regent.dev/nova-uid=<uid>` (src/nova/remote-children.ts). A target that does not resolve now throws:
 * the next pass sees it unresolved (NF8) or decides the sweep again.
 */
export const sweepHandler =
  (deps: Pick<NovaControllerDeps, 'source' | 'logger'> & Partial<Pick<NovaControllerDeps, 'targetClusters' | 'forTarget'>>): EffectHandler =>
  async (_effect, context): Promise<EffectResult | undefined> => {
    const ref = novaOfStream(context.stream);
    if (!ref) return undefined;
    const nova = (await deps.source.get('Nova', ref.namespace, ref.name)) as Nova | undefined;
    // gone already (its finalizers removed by hand): its spec no longer says where the children are
    if (!nova || nova.metadata.uid !== ref.uid) return { type: 'remoteChildrenSwept', deleted: [] };
    const placement = await placeNova(deps, nova);
    if (placement.kind === 'unavailable') throw new Error(placement.message);
    // nothing was projected anywhere else (no target, or a runtime that cannot project): nothing to sweep
    if (placement.kind !== 'remote') return { type: 'remoteChildrenSwept', deleted: [] };
    const { deleted } = await placement.deps.remoteChildren.sweep(ref.namespace, ref.uid);
    context.logger.info('remote children swept', { nova: `${ref.namespace}/${ref.name}`, cluster: placement.cluster.name, deleted: deleted.length });
    return { type: 'remoteChildrenSwept', deleted };
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

/** The finalizers Regent holds on this Nova. */
const heldFinalizers = (nova: Nova): string[] => (nova.metadata.finalizers ?? []).filter((f) => f === NOVA_FINALIZER || f === REMOTE_CHILDREN_FINALIZER);

/** Releases every finalizer Regent holds (both, for a Nova on a target cluster). */
const release = async (deps: NovaControllerDeps, nova: Nova, ref: NovaRef): Promise<void> => {
  for (const finalizer of heldFinalizers(nova)) await deps.source.removeFinalizer('Nova', ref.namespace, ref.name, finalizer);
};

/** NF8: what a RemoteChildrenAbandoned Warning says stays behind on the cluster. */
export const abandonedMessage = (context: NovaFinalizerContext, cluster: string): string => {
  const databases = context.databasesFinalized
    ? 'the MariaDB Database/User/Grant CRs were deleted by name before'
    : `the MariaDB Database/User/Grant CRs were not cleaned (${context.live && context.live.length > 0 ? `last seen live: ${context.live.join(', ')}` : 'both blocks, under {name}-api and {name}'})`;
  return `the target cluster ${cluster} has not resolved for ${ABANDON_WINDOW_MS / 60_000} minutes (since ${context.unresolvedSince ?? 'unknown'}): its children stay behind there, unswept: every ${SWEPT_KINDS.join(', ')} labelled regent.dev/nova-uid; ${databases}; both finalizers are released`;
};

/** The pass of a Nova being deleted that carries Regent's finalizer (or only the remote-children one). */
export const finalizeNova = async (deps: NovaControllerDeps, nova: Nova, ref: NovaRef, endpoint: string | undefined, now: () => Date = () => new Date()): Promise<Disposition> => {
  const stream = novaFinalizerStream(ref.uid);
  const remote = (nova.metadata.finalizers ?? []).includes(REMOTE_CHILDREN_FINALIZER);
  let run = deps;
  if (remote) {
    const placement = await placeNova(deps, nova);
    if (placement.kind === 'unavailable' || placement.kind === 'notSupported') {
      // NF8: time arrives on the stimulus (the pass's clock); the machine decides whether the window has ended
      const unresolved = { stimulus: { type: 'targetUnresolved', source: 'reconciler', cluster: placement.kind === 'unavailable' ? placement.cluster : placement.cluster.name, at: now().toISOString() } as unknown as Stimulus, actor };
      await deps.engine.dispatch(stream, unresolved);
      const { value, snapshot } = await deps.engine.load(novaFinalizerDefinition, stream);
      const context = contextOf(novaFinalizerDefinition, snapshot);
      const cluster = context.unresolvedCluster ?? nova.spec.targetClusterRef?.name ?? '';
      if (value === 'abandoned') {
        await recordEvent(deps, nova, 'Warning', 'RemoteChildrenAbandoned', abandonedMessage(context, cluster));
        await forget(deps, ref, endpoint);
        await release(deps, nova, ref);
        return done('RemoteChildrenAbandoned: both finalizers are released');
      }
      return yieldFor(NOVA_REQUEUE_MS.secretPolling, `TargetClusterUnavailable: ${placement.message}; the remote children are abandoned once it has not resolved for ${ABANDON_WINDOW_MS / 60_000} minutes (since ${context.unresolvedSince})`);
    }
    run = placement.deps;
  }
  const seen = { stimulus: { type: 'deletionSeen', source: 'reconciler', generation: nova.metadata.generation ?? 1, ...(remote ? { remote: true } : {}) } as unknown as Stimulus, actor };
  const valueOf = async (): Promise<string> => String((await deps.engine.load(novaFinalizerDefinition, stream)).value);
  await deps.engine.dispatch(stream, seen);
  // NF2: the first one arms the cleanup; read back, the second decides it (and the engine runs it after the append)
  if ((await valueOf()) === 'cleanupArmed') await deps.engine.dispatch(stream, seen);
  if ((await valueOf()) === 'databasesReleased') {
    // NF6 → NF7: the named cleanup released in this pass (or an earlier one); now the sweep, armed then read back
    await recordEvent(deps, nova, 'Normal', 'DatabaseFinalized', contextOf(novaFinalizerDefinition, (await deps.engine.load(novaFinalizerDefinition, stream)).snapshot).message || 'no MariaDB object of this Nova was live');
    await deps.engine.dispatch(stream, seen);
  }
  if ((await valueOf()) === 'sweepArmed') await deps.engine.dispatch(stream, seen);
  const { value, snapshot } = await deps.engine.load(novaFinalizerDefinition, stream);
  const context = contextOf(novaFinalizerDefinition, snapshot);
  if (value === 'swept') {
    await recordEvent(deps, nova, 'Normal', 'RemoteChildrenSwept', `deleted on the target cluster ${nova.spec.targetClusterRef?.name ?? ''}: ${(context.swept ?? []).join(', ') || 'nothing was left'}`);
    await forget(run, ref, endpoint);
    await release(deps, nova, ref);
    return done('RemoteChildrenSwept: both finalizers are released');
  }
  if (value !== 'released') {
    const message = `still live before the Deletes: ${(context.live ?? []).join(', ') || 'not answered yet'}${context.message ? ` (${context.message})` : ''}; the finalizer is held for one more pass`;
    await recordEvent(deps, nova, 'Normal', 'FinalizingDatabase', message);
    return yieldFor(NOVA_REQUEUE_MS.databaseWait, `FinalizingDatabase: ${message}`);
  }
  await recordEvent(deps, nova, 'Normal', 'DatabaseFinalized', context.message || 'no MariaDB object of this Nova was live');
  await forget(deps, ref, endpoint);
  await release(deps, nova, ref);
  return done('DatabaseFinalized: the finalizer is released');
};
