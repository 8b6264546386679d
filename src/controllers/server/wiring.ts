/**
 * The Server kind as the control plane runs it (src/app/kind.ts): its streams, what wakes it, its status, its pass
 * (with its Identity's session: ../scoped-pass.ts), its Nova effect handlers, and the Nova monitor, whose
 * observations are stimulus: they wake the pass that must act on them (a settlement or park after a marker advance;
 * the bounded delete-and-retry after a never-booted ERROR) at once, not at the next resync (openstack-provider.md:
 * "it takes effect at worst one poll later").
 */
import type { EffectHandler } from '../../engine/engine.js';
import { NotLeader } from '../../engine/errors.js';
import { Cancelled } from '../../openstack/errors.js';
import type { OpenStackSession } from '../../openstack/session.js';
import { IdentityNotReady } from '../../provider/identity/sessions.js';
import { createServerHandler, deleteServerHandler } from '../../provider/servers.js';
import { attachVolumeHandler, detachVolumeHandler, readVolumeAttachmentHandler } from '../../provider/volume-attachments.js';
import { describeError } from '../../log/logger.js';
import type { ServerSpec } from '../../resources/server.js';
import { remainingCreateGates } from '../../../projections/server-create-gates.js';
import { keyOf, keyParts, naming, namespaceOf, type KindWiring, type PlaneServices } from '../kind.js';
import { pinnedCreateContext } from './pinned-context.js';
import { novaRebuildHandler } from '../server-rebuild/nova-rebuild-effect.js';
import { ServerMonitor } from '../server-monitor/monitor.js';
import { baremetalProgressLookup } from '../server-monitor/baremetal.js';
import { withIdentityScope } from '../scoped-pass.js';
import { serverLifecycleDefinition, serverLifecycleStream } from '../../../machines/server-lifecycle.js';
import { reconcileServer, SERVER_FINALIZER } from './reconcile.js';
import { serverStatus } from './status.js';

/** How often the monitor lists each project's servers; `regent serve --monitor-interval`. */
export const DEFAULT_MONITOR_INTERVAL_MS = 3_000;

export const serverWiring = (options: { monitorIntervalMs?: number } = {}): KindWiring => ({
  kind: 'Server',
  streams: [
    { prefix: 'server-lifecycle-', kind: 'Server', key: 'uid' },
    { prefix: 'server-rebuild-', kind: 'Server', key: 'nova-server' },
    // volume-attachment-<server uid>-<volume uid>: the Server's status.volumes (the attaching side)
    { prefix: 'volume-attachment-', kind: 'Server', key: 'uid-prefix' },
    { prefix: 'scope-reachability-', kind: 'Server', key: 'uid' },
  ],
  status: serverStatus,
  wakes: [
    { from: 'Server', on: 'spec', why: 'its own spec changed, or its deletion was requested', keys: (o) => [keyOf(o)] },
    {
      from: 'Server',
      on: 'any',
      why: 'a provider-create gate was satisfied (the API\'s status-only write): the create may go now',
      keys: (o) => [keyOf(o)],
      signature: (o) => JSON.stringify(remainingCreateGates(o.spec as Partial<ServerSpec>, o.status as never)),
    },
    { from: 'Network', on: 'any', why: 'its Network became ready (or changed): the create waits for it', keys: (n, l) => naming(l, 'Server', n, (s) => s.networkID as string | undefined) },
    {
      from: 'Volume',
      on: 'any',
      why: 'a Volume it lists changed (available): it is attached now, not at the next retry',
      keys: (v, l) => l.list('Server').filter((s) => namespaceOf(s) === namespaceOf(v) && ((s.spec as { volumes?: Array<{ volumeID?: string }> }).volumes ?? []).some((x) => x.volumeID === v.metadata.name)).map(keyOf),
    },
    {
      from: 'SecurityGroup',
      on: 'any',
      why: 'a SecurityGroup it lists changed (realized): its first create waits for the groups\' Neutron ids',
      keys: (g, l) => l.list('Server').filter((s) => namespaceOf(s) === namespaceOf(g) && ((s.spec as { securityGroups?: string[] }).securityGroups ?? []).includes(g.metadata.name)).map(keyOf),
    },
  ],
  build: (services) => buildServer(services, options.monitorIntervalMs ?? DEFAULT_MONITOR_INTERVAL_MS),
});

const buildServer = (services: PlaneServices, monitorIntervalMs: number) => {
  const { engine, source, logger, scopes, sessions, connections, owners, lookups } = services;
  // User data is read when the create runs, from the resource itself, so it never enters an event.
  const userData = new Map<string, string>();
  const pinnedContextOf = pinnedCreateContext({ scopes, sessions, connections });
  /** An effect handler built for the session of the stream's Identity, at the moment it runs. */
  const scoped = (build: (session: OpenStackSession) => EffectHandler): EffectHandler => async (effect, context) => build((await scopes.forStream(context.stream)).session)(effect, context);
  const uidOf = (key: string) => lookups.get('Server', ...keyParts(key))?.metadata.uid;
  const serverOfNovaId = (novaId: string) => {
    const uid = owners.serverOfNovaId(novaId);
    return uid === undefined ? undefined : lookups.list('Server').find((o) => o.metadata.uid === uid);
  };
  const wakeByNovaId = (novaId: string) => {
    const server = serverOfNovaId(novaId);
    if (server) services.enqueue('Server', keyOf(server));
  };

  const reconcile = services.reach.track(uidOf, (key, note) => {
    const [namespace, name] = keyParts(key);
    return withIdentityScope(
      { engine, source, sessions, wakeIdentity: (identity) => services.enqueue('Identity', keyOf(identity)) },
      { kind: 'Server', finalizer: SERVER_FINALIZER, scopeOf: (o) => scopes.onNetwork(o), lifecycle: serverLifecycleDefinition, lifecycleStream: serverLifecycleStream },
      namespace,
      name,
      note,
      (session) =>
        reconcileServer(
          {
            engine,
            source,
            os: session,
            logger,
            pinned: async () => {
              const server = await source.get('Server', namespace, name);
              if (!server) throw new IdentityNotReady(`${namespace}/?`, `Server ${name} is gone`);
              return pinnedContextOf(server);
            },
            // an attachment changed: its Volume's InUse (and a deletion waiting for the detach) follows now
            onAttachmentChanged: (volumeUid) => {
              const volume = lookups.list('Volume').find((v) => v.metadata.uid === volumeUid);
              if (volume) services.enqueue('Volume', keyOf(volume));
            },
            onServerId: (serverId, resourceKey) => {
              const object = lookups.get('Server', ...keyParts(resourceKey));
              if (object) owners.noteNovaServer(serverId, object.metadata.uid);
            },
          },
          namespace,
          name,
        ),
    );
  });

  const handlers: Record<string, EffectHandler> = {
    'nova.rebuild': scoped((session) => novaRebuildHandler(session.nova)),
    // a pinned create (desired.host) goes with the region credentials bound to the identity's project (issue 16)
    'nova.createServer': async (effect, context) => {
      const scope = await scopes.forStream(context.stream);
      return createServerHandler(scope.session, (uid) => userData.get(uid), () => sessions.regionBoundTo(scope))(effect, context);
    },
    'nova.deleteServer': scoped((session) => deleteServerHandler(session)),
    'nova.attachVolume': scoped((session) => attachVolumeHandler(session.nova)),
    'nova.readVolumeAttachment': scoped((session) => readVolumeAttachmentHandler(session.nova)),
    'nova.detachVolume': scoped((session) => detachVolumeHandler(session.nova)),
  };

  // Whether the last poll could look into each Network's project; a change wakes every pass on that Network, so
  // their statuses say so (or recover) within one poll (issue 24, item 2), not at their next resync.
  const networkSeen = new Map<string, boolean>();
  const noteNetworkSeen = (network: Parameters<PlaneServices['wakeDependents']>[1], error?: unknown) => {
    const seen = error === undefined;
    const before = networkSeen.get(network.metadata.uid);
    networkSeen.set(network.metadata.uid, seen);
    if (before === undefined || before === seen || !services.leading()) return;
    logger.info(seen ? 'a network\'s project can be seen again: waking what is on it' : 'a network\'s project cannot be seen: waking what is on it', { network: keyOf(network), ...(error ? describeError(error) : {}) });
    services.enqueue('Network', keyOf(network));
    services.wakeDependents('Network', network, 'any');
  };
  const monitor = new ServerMonitor({
    engine,
    // one list per project Regent works in (each Identity's, or the region's own)
    novas: () => scopes.novas(noteNetworkSeen),
    logger,
    isManaged: (serverId) => owners.isManagedNovaServer(serverId),
    onMarkerAdvanced: wakeByNovaId,
    onErrored: wakeByNovaId,
    // a BUILD server on a baremetal flavor: Queued or Building from Ironic, with the Region's own credentials
    baremetalProgress: baremetalProgressLookup({
      serverOf: (serverId) => {
        const server = serverOfNovaId(serverId);
        return server ? { flavor: (server.spec as { flavor: { id?: string; name?: string } }).flavor } : undefined;
      },
      regionOf: async (serverId) => {
        const server = serverOfNovaId(serverId);
        if (!server) return undefined;
        const { identity } = await scopes.onNetwork(server);
        const connection = await connections.region(identity.metadata.namespace ?? 'default', identity.spec.regionRef.name);
        if (!connection) return undefined;
        return { uid: connection.region.metadata.uid, baremetalFlavorIDs: connection.region.spec.openstack.compute?.baremetalFlavorIDs ?? [], session: connection.session };
      },
    }),
  });
  let timer: NodeJS.Timeout | undefined;
  let polling: Promise<void> | undefined;
  let running = false;
  const loop = () => {
    timer = setTimeout(() => {
      polling = monitor
        .pollOnce()
        .then(() => services.metrics.monitorPolls.inc({ outcome: 'ok' }))
        .catch((error: unknown) => {
          services.metrics.monitorPolls.inc({ outcome: 'error' });
          if (error instanceof NotLeader || error instanceof Cancelled) return;
          logger.warn('monitor poll failed', describeError(error));
        })
        .finally(() => {
          if (running) loop();
        });
    }, monitorIntervalMs);
  };

  return {
    reconcile,
    handlers,
    onObject: (object: Parameters<PlaneServices['wakeDependents']>[1]) => {
      const data = (object.spec as { userData?: string }).userData;
      if (data !== undefined) userData.set(object.metadata.uid, data);
      else userData.delete(object.metadata.uid);
    },
    onDeleted: (object: Parameters<PlaneServices['wakeDependents']>[1]) => void userData.delete(object.metadata.uid),
    startLeading: () => {
      running = true;
      loop();
    },
    stopLeading: async () => {
      running = false;
      if (timer) clearTimeout(timer);
      await polling;
    },
  };
};
