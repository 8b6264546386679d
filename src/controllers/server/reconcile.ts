/**
 * The Server controller's pass (server-api.md; openstack-provider.md):
 * 1. the create/delete lifecycle under the server's deterministic name (machines/server-lifecycle.ts),
 *    gated on its Network being realized; deletion waits for the finalizer flow; an image or flavor
 *    name that resolves to nothing or to two is recorded for status (L9) and re-checked in 30 s; before the
 *    first create, every provider-create gate the spec declares must be satisfied (./create-gates.ts:
 *    ProviderCreateGatesPending, L9, re-checked every 10 s);
 * 2. once the server exists, the image pass (controllers/server-rebuild/reconcile.ts): a changed
 *    spec image becomes the write-ahead rebuild protocol;
 * 3. then the volume pass (./volume-attachments.ts): every Volume of spec.volumes attached, every one
 *    removed from it detached. A server being deleted detaches its volumes before its Nova delete.
 */
import type { Decision, Engine } from '../../engine/engine.js';
import type { ResourceSource } from '../../kube/port.js';
import { isDeleting } from '../../kube/object.js';
import type { OpenStackSession } from '../../openstack/session.js';
import type { Logger } from '../../log/logger.js';
import { validateServer, type Server } from '../../resources/index.js';
import { serverLifecycleDefinition, serverLifecycleStream } from '../../../machines/server-lifecycle.js';
import { networkLifecycleDefinition, networkLifecycleStream } from '../../../machines/network-lifecycle.js';
import type { LifecycleContext, Observed } from '../../../machines/lifecycle.js';
import { serverRebuildDefinition, serverRebuildStream } from '../../../machines/server-rebuild.js';
import { confirmFlavorId, confirmImageId, observeServer, resolveFlavorId, resolveImageId, serverMetadata, type ServerLinkage } from '../../provider/servers.js';
import { done, yieldFor, type Disposition } from '../disposition.js';
import { runLifecyclePass } from '../lifecycle-pass.js';
import { reconcileServerImage } from '../server-rebuild/reconcile.js';
import { recordDecisionEvents } from '../kube-events.js';
import { reconcileServerVolumes } from './volume-attachments.js';
import { pinnedDestination, type PinnedCreateContext } from './pinned-create.js';
import { createGatesPassed, PROVIDER_CREATE_GATE_RECHECK_MS } from './create-gates.js';
import { DesiredUnresolvable } from '../../provider/errors.js';
import { securityGroupIdsFor } from '../security-group/for-server.js';
import { sshCertificateAuthorityForCreate } from './ssh-ca.js';
// the identity keypair's name, for identityKeypair servers only (server-api.md; src/provider/identity/keypair.ts)
import { identityKeyNameFor } from '../../provider/identity/keypair.js';

export const SERVER_FINALIZER = 'regent.dev/server';

export interface ServerControllerDeps {
  engine: Engine;
  source: ResourceSource;
  os: Pick<OpenStackSession, 'nova' | 'glance' | 'cinder'>;
  logger: Logger;
  /** Called with (Nova server id, resource key) whenever the pass learns the mapping. */
  onServerId?: (serverId: string, key: string) => void;
  /** The pass's clock (default: the system clock); tests use the simulator's. */
  now?: () => Date;
  /**
   * The pinned create's context (spec.infrastructureRef): the Region's preflight settings and Placement,
   * and the region credentials bound to the identity's project. Without it a pinned Server cannot be created.
   */
  pinned?: () => Promise<PinnedCreateContext>;
  /** Called with the Volume uid of every attachment pair whose stream a pass changed (its Volume's InUse may have). */
  onAttachmentChanged?: (volumeUid: string) => void;
}

/** The Network's Neutron id, from its lifecycle stream; undefined until it exists. */
const networkIdOf = async (deps: ServerControllerDeps, namespace: string, name: string): Promise<string | undefined> => {
  const network = await deps.source.get('Network', namespace, name);
  if (!network) return undefined;
  const loaded = await deps.engine.load(networkLifecycleDefinition, networkLifecycleStream(network.metadata.uid));
  return loaded.state === 'present' ? (loaded.context.resourceId ?? undefined) : undefined;
};

/**
 * What the server's metadata links it to (issue 24 B; src/provider/servers.ts serverMetadata): its Network, and
 * through the Network its Identity — the organization, project and region are the Identity's spec (immutable
 * there, so a recreate writes the same values). A Network naming no Identity resource (the process's own cloud
 * stands in for it) links the network only.
 */
const linkageOf = async (deps: ServerControllerDeps, namespace: string, networkName: string): Promise<ServerLinkage> => {
  const network = await deps.source.get('Network', namespace, networkName);
  const identityName = network?.spec.identityRef.name;
  const identity = identityName ? await deps.source.get('Identity', namespace, identityName) : undefined;
  return {
    networkID: network?.metadata.uid ?? '',
    ...(identity ? { identityID: identity.metadata.uid, organizationID: identity.spec.organizationID, projectID: identity.spec.projectID, regionID: identity.spec.regionRef.name } : {}),
  };
};

/**
 * L10 (machines/lifecycle.ts): the observation carries the monitor's provisionedAt latch for the Nova id it
 * found (the server-rebuild stream's: write-once, set the first time the monitor saw launched_at), so a server
 * the monitor saw booted is never deleted and recreated when this pass's fresh read shows ERROR with launched_at
 * empty — also when no pass ever read it booted itself. The latch only withholds the destructive retry; it never
 * authorizes anything (the rebuild gate reads launched_at fresh).
 */
const withBootLatch = async (engine: Engine, observed: Observed): Promise<Observed> => {
  if (observed.kind !== 'present') return observed;
  const provisionedAt = (await engine.load(serverRebuildDefinition, serverRebuildStream(observed.id))).context.provisionedAt;
  return provisionedAt ? { ...observed, provisionedAt } : observed;
};

/**
 * Whether this pass may decide a create: before the first one (no Nova id yet), and during L5's delete-and-retry
 * (recreateArmed, recreating: the errored server's id is still recorded). What only a create carries — the
 * SecurityGroups' Neutron ids, the SSH CA's user data, the image and flavor confirmed — is computed then; a
 * recreate computed it only for the first create and sent the new server without its groups and CA.
 */
const createMayFollow = (lifecycle: { state: string; context: LifecycleContext }): boolean =>
  lifecycle.context.resourceId === null || ['recreateArmed', 'recreating'].includes(lifecycle.state);

export const reconcileServer = async (deps: ServerControllerDeps, namespace: string, name: string): Promise<Disposition> => {
  const object = await deps.source.get('Server', namespace, name);
  if (!object) return done('gone');
  const server = object as Server;
  const uid = server.metadata.uid;
  const validation = validateServer(server);
  const deleting = isDeleting(server);
  let imageId: string | undefined;
  let networkId: string | undefined;
  if (validation.ok && !deleting) {
    networkId = await networkIdOf(deps, namespace, server.spec.networkID);
    if (!networkId) return yieldFor(2_000, `waiting for Network ${server.spec.networkID}`);
  }
  // spec.securityGroups: before the first create, every listed group realized in Neutron (its id goes to Nova)
  const groups = validation.ok && !deleting && (server.spec.securityGroups ?? []).length > 0 && createMayFollow(await deps.engine.load(serverLifecycleDefinition, serverLifecycleStream(uid))) ? await securityGroupIdsFor(deps, namespace, server.spec) : undefined;
  if (groups?.kind === 'waiting') return yieldFor(2_000, groups.why);
  const volumeDeps = { engine: deps.engine, source: deps.source, os: deps.os, logger: deps.logger, ...(deps.now ? { now: deps.now } : {}) };
  if (deleting) {
    // detach first: a volume is never left attached to a server Regent is deleting (spec: "or the server deleted")
    const recorded = (await deps.engine.load(serverLifecycleDefinition, serverLifecycleStream(uid))).context;
    if (recorded.resourceId) {
      const volumes = await reconcileServerVolumes(volumeDeps, { server, serverId: recorded.resourceId, deleting: true });
      await recordDecisionEvents(deps.source, object, volumes.decisions, deps.logger);
      noteAttachmentChanges(deps, volumes.decisions);
      if (volumes.outstanding > 0) return yieldFor(2_000, `detaching ${volumes.outstanding} volume(s) before the Nova delete`);
    }
  }
  const result = await runLifecyclePass({
    engine: deps.engine,
    source: deps.source,
    kind: 'Server',
    object,
    definition: serverLifecycleDefinition,
    stream: serverLifecycleStream(uid),
    finalizer: SERVER_FINALIZER,
    what: 'Nova server',
    specProblems: validation.ok ? [] : validation.errors.map((e) => `${e.path}: ${e.message}`),
    observe: async () => withBootLatch(deps.engine, await observeServer(deps.os, server.spec.name, uid)),
    // An image or flavor name that matches nothing or two throws DesiredUnresolvable: recorded, nothing else happens.
    desired: async () => {
      imageId = await resolveImageId(deps.os, server.spec.image);
      const recorded = await deps.engine.load(serverLifecycleDefinition, serverLifecycleStream(uid));
      const lifecycle = { state: recorded.state, context: recorded.context };
      // an id is confirmed before the first create, as a name is by its lookup: a missing image is ImageNotFound either way
      const creating = createMayFollow(recorded);
      if (server.spec.image.id !== undefined && creating) imageId = await confirmImageId(deps.os, imageId);
      let flavorId = await resolveFlavorId(deps.os, server.spec.flavor);
      if (server.spec.flavor.id !== undefined && creating) flavorId = await confirmFlavorId(deps.os, flavorId);
      // provider-create gates: before the first create, every declared gate satisfied (./create-gates.ts)
      // the metadata: the in-guest linkage and the ownership lookup aid, on the recorded request (Regent's keys win)
      const metadata = serverMetadata({ serverUid: uid, linkage: await linkageOf(deps, namespace, server.spec.networkID) });
      const request = { name: server.spec.name, imageId, flavorId, networkId: networkId ?? '', ownerUid: uid, metadata, ...createGatesPassed(server, lifecycle), ...(await identityKeyNameFor(deps, namespace, server.spec)), ...(groups?.kind === 'ready' ? { securityGroupIds: groups.ids, securityGroups: [...(server.spec.securityGroups ?? [])].sort() } : {}) };
      // sshInjection ca: the CA of the server's tenancy, asked before a create only (./ssh-ca.ts)
      const ca = creating ? await sshCertificateAuthorityForCreate(deps.source, server) : undefined;
      if (ca) Object.assign(request, { sshCertificateAuthority: ca });
      const ref = server.spec.infrastructureRef;
      if (ref === undefined) return request;
      // a pinned create: the destination rides on the request; before the create, the preflight (pinned-create.ts)
      const created = lifecycle.context.resourceId !== null;
      if (created) return { ...request, host: ref.host };
      if (!deps.pinned) throw new DesiredUnresolvable('PinnedCreateUnavailable', 'this control plane has no Region credentials to bind for a pinned create');
      return { ...request, ...(await pinnedDestination(await deps.pinned(), deps.os.nova, ref, flavorId)) };
    },
    ...(deps.now ? { now: deps.now } : {}),
  });
  await recordDecisionEvents(deps.source, object, result.decisions, deps.logger);
  const serverId = result.context.resourceId;
  if (serverId) deps.onServerId?.(serverId, `${namespace}/${name}`);
  // gates pending: looked at again sooner than other unresolvable requests (the API's status write wakes no pass by itself)
  if (result.unresolvable && result.context.unresolvable?.reason === 'ProviderCreateGatesPending') return yieldFor(PROVIDER_CREATE_GATE_RECHECK_MS, `ProviderCreateGatesPending: ${result.context.unresolvable.message}`);
  if (result.state !== 'present' || !serverId || deleting || result.unresolvable) return result.disposition;
  // The image: a desired change on an existing server is the write-ahead rebuild protocol.
  const image = await reconcileServerImage(
    { engine: deps.engine, nova: deps.os.nova, logger: deps.logger, ...(deps.now ? { now: deps.now } : {}) },
    { serverId, desiredImage: imageId ?? (await resolveImageId(deps.os, server.spec.image)), generation: server.metadata.generation ?? 1 },
  );
  await recordDecisionEvents(deps.source, object, image.decisions, deps.logger);
  const volumes = await reconcileServerVolumes(volumeDeps, { server, serverId, deleting: false });
  await recordDecisionEvents(deps.source, object, volumes.decisions, deps.logger);
  noteAttachmentChanges(deps, volumes.decisions);
  return sooner(image.disposition, volumes.disposition);
};

const noteAttachmentChanges = (deps: ServerControllerDeps, decisions: readonly Decision[]) => {
  for (const decision of decisions) if (decision.changed) deps.onAttachmentChanged?.(decision.stream.slice(-36));
};

/** Two passes' dispositions as one: a failure or a park first, then the sooner of two yields. */
const sooner = (a: Disposition, b: Disposition): Disposition => {
  for (const kind of ['fail', 'park'] as const) {
    if (a.kind === kind) return a;
    if (b.kind === kind) return b;
  }
  if (a.kind === 'yield' && b.kind === 'yield') return a.afterMs <= b.afterMs ? a : b;
  return a.kind === 'yield' ? a : b;
};

