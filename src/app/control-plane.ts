/**
 * The whole control plane in one process (`regent serve`, `npm start`):
 *
 *   resource source (embedded SQLite or Kubernetes) ──informers──► work queues ──► controllers
 *   controllers ──► engine (machines decide, events appended, effects run) ──► OpenStack
 *   monitor ──(one paged Nova list per poll)──► engine
 *   event store ──subscription──► status runner ──► status subresource
 *   HTTP on loopback: /metrics, /healthz, /readyz, audit pages
 *
 * Leader election (a lease in the resource store) makes sure only one replica reconciles: controllers,
 * the monitor and the status runner run only while this process leads, every event records the term it
 * was decided under, and the engine refuses to append or start an effect outside an unexpired term.
 */
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStore } from '../store/open.js';
import type { EventStore } from '../store/port.js';
import { Engine, type EffectHandler, type Fence, type LeaderTerm, type Subject } from '../engine/engine.js';
import { streamSubjects } from './stream-subjects.js';
import { IdentitySessions, IdentityNotReady } from '../provider/identity/sessions.js';
import { Scopes } from './scopes.js';
import { done, yieldFor, type Disposition } from '../controllers/disposition.js';
import { isDeleting } from '../kube/object.js';
import { SERVER_FINALIZER } from '../controllers/server/reconcile.js';
import { NETWORK_FINALIZER } from '../controllers/network/reconcile.js';
import { serverLifecycleStream } from '../../machines/server-lifecycle.js';
import { networkLifecycleStream } from '../../machines/network-lifecycle.js';
import type { LifecycleContext } from '../../machines/lifecycle.js';
import { NotLeader } from '../engine/errors.js';
import { CancelScope } from '../openstack/cancel.js';
import { Cancelled, Unauthorized } from '../openstack/errors.js';
import { createProductRegistry } from '../../machines/index.js';
import { connect, connectAsUser } from '../openstack/session.js';
import { RegionConnections } from '../provider/regions/connections.js';
import { identityHandlers } from '../provider/identity/handlers.js';
import { reconcileRegion } from '../controllers/region/reconcile.js';
import { reconcileIdentity } from '../controllers/identity/reconcile.js';
import { reconcileVolume } from '../controllers/volume/reconcile.js';
import { reconcileLoadBalancer } from '../controllers/load-balancer/reconcile.js';
import { loadBalancerHandlers } from '../provider/load-balancers.js';
import { reconcileNova } from '../controllers/nova/reconcile.js';
import { novaEffectHandlers } from '../controllers/nova/effects.js';
import { openNovaRuntime } from './nova-runtime.js';
import { VolumeClassInventory } from '../provider/inventory/volume-classes.js';
import { createVolumeHandler, deleteVolumeHandler, extendVolumeHandler } from '../provider/volumes.js';
import { attachVolumeHandler, detachVolumeHandler, readVolumeAttachmentHandler } from '../provider/volume-attachments.js';
import type { OpenStackSession } from '../openstack/session.js';
import { openResourceSource } from '../kube/open.js';
import type { ResourceSource } from '../kube/port.js';
import { Informer } from '../kube/informer.js';
import { remainingCreateGates } from '../../projections/server-create-gates.js';
import type { ServerSpec } from '../resources/server.js';
import { LeaderElector } from '../kube/leader/elector.js';
import { EmbeddedLeaseBackend } from '../kube/embedded/lease.js';
import { EmbeddedResourceSource } from '../kube/embedded/store.js';
import type { LeaseBackend } from '../kube/leader/lease.js';
import { applyFirstStartExamples } from './first-start-examples.js';
import { KIND_NAMES, type KindName } from '../resources/index.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import { Metrics } from '../observability/metrics.js';
import { Controller } from '../controllers/controller.js';
import { reconcileServer } from '../controllers/server/reconcile.js';
import { reconcileNetwork } from '../controllers/network/reconcile.js';
import { securityGroupWiring } from '../controllers/security-group/wiring.js';
import { scopeReachabilityRecorder, type ScopeNote } from '../controllers/scope-reachability.js';
import { ServerMonitor } from '../controllers/server-monitor/monitor.js';
import { baremetalProgressLookup } from '../controllers/server-monitor/baremetal.js';
import { pinnedCreateContext } from './pinned-context.js';
import { startApi } from '../api/server.js';
import type { AuthOptions } from '../api/auth.js';
import { identityCompute } from '../api/verbs.js';
import { inventoryImageValidator, regionInventoryFor } from '../api/images.js';
import { RegionImageInventories } from '../provider/inventory/region-images.js';
import { FlavorInventory } from '../provider/inventory/flavors.js';
import { novaRebuildHandler } from '../controllers/server-rebuild/nova-rebuild-effect.js';
import { createServerHandler, deleteServerHandler } from '../provider/servers.js';
import { createNetworkHandler, deleteNetworkHandler, isVlanRequest } from '../provider/networks.js';
import { StatusRunner } from '../status/runner.js';
import { FileCheckpoint, MemoryCheckpoint, StoreCheckpoint } from '../status/checkpoint.js';
import { keepsCheckpoints } from '../store/port.js';
import { checkKeptSimulatorPort, openStackTarget, type OpenStackTarget } from './openstack-target.js';
import { ListenError, startHttpEndpoint, type HttpEndpoint, type Guard, type Route } from './http-server.js';

export interface ControlPlaneOptions {
  storeUrl: string;
  resourcesUrl: string;
  logger: Logger;
  host?: string;
  port?: number;
  /**
   * Manifests applied when the resource store holds no resources yet (first start). `explicit: false`
   * (the default `examples/` of `regent serve`) applies them only to the simulator Regent started
   * itself, never to a configured cloud; `explicit: true` (`--examples <dir>`) applies them anywhere.
   */
  examples?: { dir: string; explicit: boolean };
  monitorIntervalMs?: number;
  /** Where the status runner keeps its checkpoint (default next to the sqlite store; memory for memory:). */
  checkpointPath?: string;
  routes?: (deps: { store: EventStore; engine: Engine }) => readonly Route[];
  /**
   * Serve `routes` on a listener of their own, behind `guard` (src/cli/commands/listeners.ts decides when):
   * the operations listener then serves only /metrics, /healthz and /readyz.
   */
  app?: { host: string; port: number; guard?: Guard };
  /**
   * Write `status.auditURL` (the resource's audit page) on every resource: under `baseUrl` (how users reach the
   * audit pages, e.g. behind an ingress), else under the URL of the listener serving them.
   */
  auditLinks?: { baseUrl?: string };
  /** Serve the server REST API (src/api, issue 17) on its own listener, verifying bearer tokens with `auth`. */
  api?: { host: string; port: number; auth: AuthOptions };
  env?: NodeJS.ProcessEnv;
  /** Namespace of the Lease on Kubernetes (default $POD_NAMESPACE, else default). */
  leaseNamespace?: string;
  /** Use this OpenStack instead of choosing one from the environment (tests share a simulator). */
  openstack?: OpenStackTarget;
  /** Leader-election timings (tests shorten them). */
  lease?: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** How long a clean stop lets passes in flight finish before their OpenStack requests are cancelled. */
  stopGraceMs?: number;
  /**
   * The Region name the process's own cloud (OS_CLOUD / OS_*, the built-in simulator, `openstack`)
   * stands for when no Region resource of that name exists. Default `default` (`region-one` with the
   * built-in simulator, which the examples name).
   */
  processRegionName?: string;
}

export interface ControlPlane {
  /** The operations listener (/metrics, /healthz, /readyz; and the routes unless `appUrl`). */
  url: string;
  /** The routes' own listener, when `options.app` asked for one. */
  appUrl?: string;
  /** The server REST API, when `options.api` asked for it. */
  apiUrl?: string;
  openstack: OpenStackTarget;
  source: ResourceSource;
  store: EventStore;
  engine: Engine;
  metrics: Metrics;
  isLeader(): boolean;
  /** The leadership term this process leads under (recorded on every event it appends), if it leads. */
  term(): LeaderTerm | undefined;
  stop(): Promise<void>;
}

const SERVED: readonly KindName[] = ['Server', 'Network', 'Region', 'Identity', 'Volume', 'LoadBalancer', 'Nova', 'SecurityGroup'];
const DEFAULT_STOP_GRACE_MS = 10_000;
/** The status runner's checkpoint name in a store that keeps checkpoints. */
const STATUS_CHECKPOINT = 'status-runner';

/** The lease two replicas compete for: a row of the embedded store, or a coordination.k8s.io Lease. */
const leaseFor = async (source: ResourceSource, namespace: string): Promise<LeaseBackend | undefined> => {
  if (source instanceof EmbeddedResourceSource) return new EmbeddedLeaseBackend(source.database, 'default', 'regent-controller');
  const kubernetes = await import('../kube/kubernetes/index.js');
  if (source instanceof kubernetes.KubernetesResourceSource) return new kubernetes.KubernetesLeaseBackend(source.kubeConfig, namespace, 'regent-controller');
  return undefined;
};

const keyParts = (key: string): [string, string] => {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
};

const keyOf = (object: { metadata: { namespace?: string; name: string } }): string => `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;

/**
 * Start order, so that a start that fails has no cloud effect (a port another program holds used to
 * fail only after this process had become leader and created a Nova server): open the stores, bind the
 * HTTP listener, reach OpenStack, sync the informers, apply first-start examples; only then campaign for
 * leadership, and only a leader runs controllers, the monitor and the status runner.
 */
export const startControlPlane = async (options: ControlPlaneOptions): Promise<ControlPlane> => {
  const { logger } = options;
  const metrics = new Metrics();
  // What has been opened so far, closed in reverse if starting fails half-way (a port in use, a
  // cloud that refuses our credentials): a failed start must not leave a process that never exits.
  const opened: Array<() => Promise<unknown>> = [];
  const unwind = async () => {
    for (const close of opened.reverse()) await close().catch(() => undefined);
  };
  try {
    const sqlitePath = options.storeUrl.startsWith('sqlite:') ? options.storeUrl.slice('sqlite:'.length).split('?')[0] : undefined;
    const simulatorStatePath = sqlitePath ? join(dirname(sqlitePath), 'simulator.json') : undefined;
    if (!options.openstack) await checkKeptSimulatorPort({ env: options.env ?? process.env, ...(simulatorStatePath ? { simulatorStatePath } : {}) });
    const store = await openStore(options.storeUrl);
    opened.push(() => store.close());
    const source = await openResourceSource(options.resourcesUrl);
    opened.push(() => source.close());
    const lease = await leaseFor(source, options.leaseNamespace ?? process.env.POD_NAMESPACE ?? 'default');
    let elector: LeaderElector | undefined;
    // Every append and every effect is fenced on the lease: a deposed leader resuming from a pause is
    // refused at once, before its deadline timer runs (src/kube/leader/elector.ts term()).
    const fence: Fence | undefined = lease ? { current: () => elector?.term() } : undefined;
    // every event names the resource its stream belongs to, from the caches below (filled once they exist)
    // (the Nova server id → Server key map the Server passes fill; the rebuild streams are named by that id)
    const serverKeyByNovaId = new Map<string, string>();
    const subjectOf: (stream: string) => Subject | undefined = streamSubjects({ list: (kind) => informers[kind]?.list() ?? [], serverKeyByNovaId });
    const engine = new Engine({ store, registry: createProductRegistry(), logger, observer: metrics.engineObserver(), ...(fence ? { fence } : {}), subjectOf });

    // Leadership state is read by /readyz, so it exists before the listener.
    let leading = false;
    const reached: { openstack?: OpenStackTarget } = {};
    const informers: Partial<Record<KindName, Informer<KindName>>> = {};
    const listenError = (host: string, port: number, flag: string) => (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? new ListenError(`${host}:${port} is already in use (another Regent? pass ${flag})`) : new ListenError(`cannot listen on ${host}:${port}: ${error.code ?? error.message}`);
    const routes = options.routes?.({ store, engine }) ?? [];
    const http: HttpEndpoint = await startHttpEndpoint({
      onListenError: listenError(options.host ?? '127.0.0.1', options.port ?? 0, '--port'),
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      ops: {
        metrics,
        ready: () => {
          const all = Object.values(informers);
          const synced = all.length === KIND_NAMES.length && all.every((i) => i.synced);
          return { ready: synced, detail: { informersSynced: synced, leader: leading, openstack: reached.openstack?.description ?? 'connecting', store: store.description, resources: source.description } };
        },
      },
      // the routes (audit pages) share it only when no listener of their own is asked for
      ...(options.app ? {} : { routes }),
    });
    opened.push(() => http.close());
    // the audit pages on a listener of their own, behind its guard (no /metrics, /healthz, /readyz there)
    const app: HttpEndpoint | undefined = options.app
      ? await startHttpEndpoint({ onListenError: listenError(options.app.host, options.app.port, '--audit-port'), host: options.app.host, port: options.app.port, routes, ...(options.app.guard ? { guard: options.app.guard } : {}) })
      : undefined;
    if (app) opened.push(() => app.close());

    const target =
      options.openstack ??
      (await openStackTarget({ env: options.env ?? process.env, ...(simulatorStatePath ? { simulatorStatePath } : {}) }));
    reached.openstack = target;
    if (!options.openstack && target.simulator) opened.push(() => (target.simulator as { close(): Promise<void> }).close());
    // Cancelled when leadership ends: a deposed leader's passes stop waiting on OpenStack at once.
    const cancel = new CancelScope();
    const os: OpenStackSession = await connect(target.cloud, { logger, cancel });
    logger.info('openstack', { target: target.description });

    // User data is read when the create runs, from the resource itself, so it never enters an event.
    const userData = new Map<string, string>();
    // Regions are clouds: their clients come from the Region resource and its credentials Secret. The
    // cloud this process was given stands for the Region named processRegionName when no such resource
    // exists. On Kubernetes Regent's Secrets live in its own namespace (its RBAC reaches secrets there only).
    const kubernetesSource = !(source instanceof EmbeddedResourceSource);
    const processRegionName = options.processRegionName ?? (target.simulator && !options.openstack ? 'region-one' : 'default');
    const connections = new RegionConnections({
      source,
      connect: (cloud) => connect(cloud, { logger, cancel }),
      processRegion: { name: processRegionName, cloud: target.cloud, session: os },
      ...(kubernetesSource ? { secretNamespace: options.leaseNamespace ?? process.env.POD_NAMESPACE ?? 'default' } : {}),
    });
    // Servers and Networks work with their Identity's credentials, in its project (issue 11).
    const sessions = new IdentitySessions({ source, connections, connect: (cloud) => connect(cloud, { logger, cancel }) });
    const scopes = new Scopes(sessions, { list: (kind) => informers[kind]?.list() ?? [], serverKeyByNovaId }, connections);
    const pinnedContextOf = pinnedCreateContext({ scopes, sessions, connections });
    /** An effect handler built for the session of the stream's Identity, at the moment it runs. */
    const scoped = (build: (session: OpenStackSession) => EffectHandler): EffectHandler => async (effect, context) => build((await scopes.forStream(context.stream)).session)(effect, context);
    engine
      .handle('nova.rebuild', scoped((session) => novaRebuildHandler(session.nova)))
      // a pinned create (desired.host) goes with the region credentials bound to the identity's project (issue 16)
      .handle('nova.createServer', async (effect, context) => {
        const scope = await scopes.forStream(context.stream);
        return createServerHandler(scope.session, (uid) => userData.get(uid), () => sessions.regionBoundTo(scope))(effect, context);
      })
      .handle('nova.deleteServer', scoped((session) => deleteServerHandler(session)))
      // a VLAN provider network (a segment in the request) with the Region's credentials into the Identity's project (issue 16)
      .handle('neutron.createNetwork', async (effect, context) => createNetworkHandler(await scopes.networkNeutron(context.stream, isVlanRequest(effect.desired)))(effect, context))
      .handle('neutron.deleteNetwork', async (effect, context) => deleteNetworkHandler(await scopes.networkNeutron(context.stream))(effect, context))
      .handle('cinder.createVolume', scoped((session) => createVolumeHandler(session.cinder)))
      .handle('cinder.extendVolume', scoped((session) => extendVolumeHandler(session.cinder)))
      .handle('cinder.deleteVolume', scoped((session) => deleteVolumeHandler(session.cinder)))
      .handle('nova.attachVolume', scoped((session) => attachVolumeHandler(session.nova)))
      .handle('nova.readVolumeAttachment', scoped((session) => readVolumeAttachmentHandler(session.nova)))
      .handle('nova.detachVolume', scoped((session) => detachVolumeHandler(session.nova)));
    for (const type of Object.keys(loadBalancerHandlers(os))) {
      engine.handle(type, scoped((session) => (loadBalancerHandlers(session)[type] as EffectHandler)));
    }
    // The Region's exported VolumeClasses, cached with its clients (refreshed when its config or Secret changes).
    const volumeClasses = new VolumeClassInventory(connections);
    // The server REST API (issue 17) on its own listener, over the same resource source and event store; the
    // Region's image inventory is kept warm for it (refresh-ahead: a create never waits on Glance).
    const imageInventories = new RegionImageInventories({ connections, keepWarm: true });
    opened.push(async () => imageInventories.close());
    const api = options.api
      ? await startApi({
          source,
          events: store,
          logger,
          host: options.api.host,
          port: options.api.port,
          auth: options.api.auth,
          compute: identityCompute(sessions),
          // sshkey reads the Identity's Secret where Regent writes it (its own namespace on Kubernetes)
          secretNamespace: connections.secretNamespaceFor('default'),
          images: inventoryImageValidator({ source, inventoryFor: regionInventoryFor({ images: imageInventories, flavors: new FlavorInventory(connections) }) }),
        }).catch((error: NodeJS.ErrnoException) => {
          throw error.code === 'EADDRINUSE' ? new ListenError(`${options.api?.host}:${options.api?.port} is already in use (another Regent? pass --api-port)`) : error;
        })
      : undefined;
    if (api) opened.push(() => api.close());
    for (const [type, handler] of Object.entries(identityHandlers({ connections, secrets: source.secrets, connectAsUser: (cloud, login) => connectAsUser(cloud, login, { logger, cancel }) }))) {
      engine.handle(type, handler);
    }

    // The Nova control plane's Database step (issue 14): SQL and local Jobs embedded, CRs and Jobs on Kubernetes.
    const novaRuntime = await openNovaRuntime(source, { dataDir: sqlitePath !== undefined ? dirname(sqlitePath) : join(tmpdir(), `regent-${process.pid}`), env: options.env ?? process.env, logger, installNamespace: options.leaseNamespace ?? process.env.POD_NAMESPACE ?? 'default' });
    opened.push(() => novaRuntime.close());
    logger.info('nova runtime', { runtime: novaRuntime.description });
    const novaDeps = { engine, source, secrets: source.secrets, logger, ...novaRuntime };
    for (const [type, handler] of Object.entries(novaEffectHandlers(novaDeps))) engine.handle(type, handler);

    // A store that keeps checkpoints (PostgreSQL) holds the status runner's, so the replica that takes over
    // resumes where the last leader stopped; next to an sqlite file otherwise; in memory for memory:.
    const checkpoint = options.checkpointPath
      ? new FileCheckpoint(options.checkpointPath)
      : keepsCheckpoints(store)
        ? new StoreCheckpoint(store, STATUS_CHECKPOINT)
        : sqlitePath !== undefined
          ? new FileCheckpoint(`${sqlitePath}.status-checkpoint.json`)
          : new MemoryCheckpoint();
    logger.info('status checkpoint', { checkpoint: checkpoint.description });
    // every status links the resource's audit page when the audit pages are served (options.auditLinks)
    const auditBaseUrl = options.auditLinks ? (options.auditLinks.baseUrl ?? app?.url ?? http.url) : undefined;
    const status = new StatusRunner({ store, engine, source, checkpoint, logger, servedKinds: SERVED, ...(auditBaseUrl !== undefined ? { auditBaseUrl } : {}) });

    /**
     * Runs a Server or Network pass with its Identity's session. An Identity not ready yet is a wait; a
     * resource being deleted that never got anything in the cloud needs no session and is released.
     * Keystone refusing the identity's credential wakes the Identity, which rotates it.
     */
    const withScope = async (kind: 'Server' | 'Network', key: string, note: ScopeNote, pass: (session: OpenStackSession) => Promise<Disposition>): Promise<Disposition> => {
      const [namespace, name] = keyParts(key);
      const object = await source.get(kind, namespace, name);
      if (!object) return done('gone');
      // held from the first pass, also while its Identity is not ready: nothing is created without it
      const finalizer = kind === 'Server' ? SERVER_FINALIZER : NETWORK_FINALIZER;
      if (!isDeleting(object) && !(object.metadata.finalizers ?? []).includes(finalizer)) await source.addFinalizer(kind, namespace, name, finalizer);
      let scope;
      try {
        scope = await (kind === 'Server' ? scopes.onNetwork(object) : scopes.network(object));
        note.scopeResolved();
      } catch (error) {
        if (!(error instanceof IdentityNotReady)) throw error;
        note.failed(error);
        if (isDeleting(object) && (await neverCreated(kind, object.metadata.uid))) {
          await source.removeFinalizer(kind, namespace, name, finalizer);
          return done('nothing was created in the cloud; finalizer removed');
        }
        return yieldFor(5_000, `waiting: ${error.message}`);
      }
      try {
        return await pass(scope.session);
      } catch (error) {
        if (error instanceof Unauthorized && scope.isolated) {
          sessions.invalidate(scope.identity.metadata.uid);
          identities.enqueue(keyOf(scope.identity));
        }
        throw error;
      }
    };
    const neverCreated = async (kind: 'Server' | 'Network', uid: string) => {
      const loaded = await engine.load(kind === 'Server' ? serverLifecycleStream(uid) : networkLifecycleStream(uid));
      const context = loaded.snapshot.context as LifecycleContext;
      return loaded.revision === undefined || (context.createAttempts === 0 && context.resourceId === null);
    };

    // every pass of a kind worked with through a Network's Identity records whether it could see its resource (issue 24, item 2)
    const reach = scopeReachabilityRecorder({ engine, logger });
    const uidOf = (kind: KindName) => (key: string) => informers[kind]?.get(...keyParts(key))?.metadata.uid;
    /** A Volume or LoadBalancer whose Network is not there cannot be looked at: its pass does not get as far as the scope. */
    const noteMissingNetwork = (kind: 'Volume' | 'LoadBalancer', key: string, note: ScopeNote) => {
      const object = informers[kind]?.get(...keyParts(key));
      if (object && !isDeleting(object)) scopes.onNetwork(object).catch((error: unknown) => note.failed(error));
    };
    const servers = new Controller({
      name: 'Server',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: reach.track(uidOf('Server'), (key, note) => withScope('Server', key, note, (scopedOs) => {
        const [ns, name] = keyParts(key);
        return reconcileServer(
          {
            engine,
            source,
            os: scopedOs,
            logger,
            pinned: async () => {
              const server = await source.get('Server', ns, name);
              if (!server) throw new IdentityNotReady(`${ns}/?`, `Server ${name} is gone`);
              return pinnedContextOf(server);
            },
            // an attachment changed: its Volume's InUse (and a deletion waiting for the detach) follows now
            onAttachmentChanged: (volumeUid) => {
              const volume = informers.Volume?.list().find((v) => v.metadata.uid === volumeUid);
              if (volume) volumes.enqueue(keyOf(volume));
            },
            onServerId: (serverId, resourceKey) => {
              serverKeyByNovaId.set(serverId, resourceKey);
              const object = informers.Server?.get(...keyParts(resourceKey));
              if (object) status.noteServerId(serverId, object.metadata.uid);
            },
          },
          ns,
          name,
        );
      })),
    });
    const regions = new Controller({
      name: 'Region',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: (key) => reconcileRegion({ engine, source, connections, logger }, ...keyParts(key)),
    });
    const identities = new Controller({
      name: 'Identity',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: (key) => reconcileIdentity({ engine, source, connections, logger, connectAsUser: (cloud, login) => connectAsUser(cloud, login, { logger, cancel }) }, ...keyParts(key)),
    });
    // An Identity follows its Region (a new Secret, a domain); a deleting Identity follows its dependents.
    const wakeIdentitiesOf = (namespace: string, regionName?: string) => {
      for (const identity of (informers.Identity?.list() ?? []).filter((i) => (i.metadata.namespace ?? 'default') === namespace)) {
        const spec = identity.spec as { regionRef?: { name?: string } };
        if (regionName === undefined || spec.regionRef?.name === regionName) identities.enqueue(keyOf(identity));
      }
    };
    const volumes = new Controller({
      name: 'Volume',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: reach.track(uidOf('Volume'), async (key, note) => {
        noteMissingNetwork('Volume', key, note);
        return reconcileVolume(
          {
            engine,
            source,
            classes: volumeClasses,
            logger,
            serverName: (novaId) => {
              const key = serverKeyByNovaId.get(novaId);
              return key ? keyParts(key)[1] : 'a server Regent does not manage';
            },
            scope: async (volume, identity) => {
              try {
                const scope = await scopes.onNetwork(volume);
                note.scopeResolved();
                return { kind: 'realized', projectId: scope.projectId, cinder: scope.session.cinder };
              } catch (error) {
                note.failed(error);
                if (error instanceof IdentityNotReady) return { kind: 'notReady', why: error.message };
                if (error instanceof Unauthorized) {
                  sessions.invalidate(identity.metadata.uid);
                  identities.enqueue(keyOf(identity));
                }
                throw error;
              }
            },
          },
          ...keyParts(key),
        );
      }),
    });
    const loadBalancers = new Controller({
      name: 'LoadBalancer',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: reach.track(uidOf('LoadBalancer'), async (key, note) => {
        noteMissingNetwork('LoadBalancer', key, note);
        return reconcileLoadBalancer(
          {
            engine,
            source,
            logger,
            scope: async (lb) => {
              try {
                const session = (await scopes.onNetwork(lb)).session;
                note.scopeResolved();
                return { kind: 'ready', session };
              } catch (error) {
                note.failed(error);
                if (error instanceof IdentityNotReady) return { kind: 'notReady', why: error.message };
                throw error;
              }
            },
          },
          ...keyParts(key),
        );
      }),
    });
    const novas = new Controller({
      name: 'Nova',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: (key) => reconcileNova(novaDeps, ...keyParts(key)),
    });
    const networks = new Controller({
      name: 'Network',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: reach.track(uidOf('Network'), (key, note) => withScope('Network', key, note, (scopedOs) => reconcileNetwork({ engine, source, os: scopedOs, region: (network) => scopes.networkRegion(network) }, ...keyParts(key)))),
    });
    // SecurityGroups (issue 17): controller, Neutron handlers and wakes in one place (src/controllers/security-group/wiring.ts)
    const securityGroups = securityGroupWiring({ engine, source, logger, observer: metrics.controllerObserver(), onNetwork: (o) => scopes.onNetwork(o), list: (kind) => informers[kind]?.list() ?? [], wakeServer: (key) => servers.enqueue(key), reach });
    for (const [type, handler] of Object.entries(securityGroups.handlers)) engine.handle(type, handler);
    // A Network becoming ready unblocks the Servers waiting on it: requeue them.
    const wakeServersOn = (networkName: string) => {
      for (const server of informers.Server?.list() ?? []) {
        if ((server.spec as { networkID?: string }).networkID === networkName) servers.enqueue(keyOf(server));
      }
    };

    // A Network (hence its Identity) becoming ready unblocks the Volumes and LoadBalancers on it.
    const wakeNetworkDependents = (namespace: string, networkName: string) => {
      for (const volume of informers.Volume?.list() ?? []) {
        if ((volume.metadata.namespace ?? 'default') === namespace && (volume.spec as { networkID?: string }).networkID === networkName) volumes.enqueue(keyOf(volume));
      }
      for (const lb of informers.LoadBalancer?.list() ?? []) {
        if ((lb.metadata.namespace ?? 'default') === namespace && (lb.spec as { networkID?: string }).networkID === networkName) loadBalancers.enqueue(keyOf(lb));
      }
    };

    // The monitor's observations are stimulus: they wake the pass that must act on them (a settlement
    // or park after a marker advance; the bounded delete-and-retry after a never-booted ERROR) at once,
    // not at the next resync (openstack-provider.md: "it takes effect at worst one poll later").
    const serverByNovaId = (serverId: string) => {
      const key = serverKeyByNovaId.get(serverId);
      return key === undefined ? undefined : informers.Server?.list().find((o) => keyOf(o) === key);
    };
    const wakeServer = (serverId: string) => {
      const key = serverKeyByNovaId.get(serverId);
      if (key) servers.enqueue(key);
    };
    // Whether the last poll could look into each Network's project; a change wakes every pass on that Network,
    // so their statuses say so (or recover) within one poll (issue 24, item 2), not at their next resync.
    const networkSeen = new Map<string, boolean>();
    const noteNetworkSeen = (network: { metadata: { uid: string; namespace?: string; name: string } }, error?: unknown) => {
      const seen = error === undefined;
      const before = networkSeen.get(network.metadata.uid);
      networkSeen.set(network.metadata.uid, seen);
      if (before === undefined || before === seen || !leading) return;
      logger.info(seen ? 'a network\'s project can be seen again: waking what is on it' : 'a network\'s project cannot be seen: waking what is on it', { network: keyOf(network), ...(error ? describeError(error) : {}) });
      const namespace = network.metadata.namespace ?? 'default';
      networks.enqueue(keyOf(network));
      for (const server of informers.Server?.list() ?? []) {
        if ((server.metadata.namespace ?? 'default') === namespace && (server.spec as { networkID?: string }).networkID === network.metadata.name) servers.enqueue(keyOf(server));
      }
      wakeNetworkDependents(namespace, network.metadata.name);
      securityGroups.onNetwork(namespace, network.metadata.name);
    };
    const monitor = new ServerMonitor({
      engine,
      // one list per project Regent works in (each Identity's, or the region's own)
      novas: () => scopes.novas(noteNetworkSeen),
      logger,
      isManaged: (serverId) => serverKeyByNovaId.has(serverId),
      onMarkerAdvanced: wakeServer,
      onErrored: wakeServer,
      // a BUILD server on a baremetal flavor: Queued or Building from Ironic, with the Region's own credentials
      baremetalProgress: baremetalProgressLookup({
        serverOf: (serverId) => {
          const server = serverByNovaId(serverId);
          return server ? { flavor: (server.spec as { flavor: { id?: string; name?: string } }).flavor } : undefined;
        },
        regionOf: async (serverId) => {
          const server = serverByNovaId(serverId);
          if (!server) return undefined;
          const { identity } = await scopes.onNetwork(server);
          const connection = await connections.region(identity.metadata.namespace ?? 'default', identity.spec.regionRef.name);
          if (!connection) return undefined;
          return { uid: connection.region.metadata.uid, baremetalFlavorIDs: connection.region.spec.openstack.compute?.baremetalFlavorIDs ?? [], session: connection.session };
        },
      }),
    });

    // Informers: every kind, so every resource gets a status; served kinds also feed their queues.
    const generations = new Map<string, number>();
    const gateSignatures = new Map<string, string>();
    for (const kind of KIND_NAMES) {
      informers[kind] = new Informer(source, kind, async (event) => {
        const object = event.object;
        const key = keyOf(object);
        if (event.type === 'DELETED') {
          status.forgetResource(object.metadata.uid);
          generations.delete(`${kind}:${key}`);
          if (kind === 'Server') gateSignatures.delete(key);
          if (kind === 'Region') {
            connections.forget(object.metadata.uid);
            volumeClasses.forget(object.metadata.uid);
            imageInventories.forget(object.metadata.uid);
          }
          // a dependent is gone: a deleting Identity waiting for it may proceed
          if (leading && (kind === 'Network' || kind === 'Server' || kind === 'Volume' || kind === 'LoadBalancer')) wakeIdentitiesOf(object.metadata.namespace ?? 'default');
          return;
        }
        status.noteResource(kind, object);
        if (kind === 'Server') {
          const data = (object.spec as { userData?: string }).userData;
          if (data !== undefined) userData.set(object.metadata.uid, data);
          else userData.delete(object.metadata.uid);
        }
        // Reconcile on spec changes (generation) and deletion, not on our own status writes.
        const generation = object.metadata.generation ?? 1;
        const seen = generations.get(`${kind}:${key}`);
        generations.set(`${kind}:${key}`, generation);
        const changed = event.type === 'ADDED' || seen !== generation || object.metadata.deletionTimestamp !== undefined;
        // a provider-create gate satisfied (the API's status-only write): the Server's create may go now (src/controllers/server/create-gates.ts)
        const gates = kind === 'Server' ? JSON.stringify(remainingCreateGates(object.spec as Partial<ServerSpec>, object.status as never)) : '';
        const gatesBefore = gateSignatures.get(key);
        if (kind === 'Server') gateSignatures.set(key, gates);
        if (!leading) return;
        if (kind === 'Server' && (changed || (gatesBefore !== undefined && gatesBefore !== gates))) servers.enqueue(key);
        else if (kind === 'LoadBalancer' && changed) loadBalancers.enqueue(key);
        else if (kind === 'Nova' && changed) novas.enqueue(key);
        else if (kind === 'Volume') {
          if (changed) volumes.enqueue(key);
          // its status changed (available): the Servers that list it attach it now, not at their next retry
          for (const server of informers.Server?.list() ?? []) {
            const wants = ((server.spec as { volumes?: Array<{ volumeID?: string }> }).volumes ?? []).some((v) => v.volumeID === object.metadata.name);
            if (wants && (server.metadata.namespace ?? 'default') === (object.metadata.namespace ?? 'default')) servers.enqueue(keyOf(server));
          }
        }
        else if (kind === 'Region') {
          if (changed) regions.enqueue(key);
          if (changed) wakeIdentitiesOf(object.metadata.namespace ?? 'default', object.metadata.name);
        } else if (kind === 'Identity') {
          if (changed) identities.enqueue(key);
          // its status changed (realized, rotated): the Networks waiting on it go now, not at their next retry
          for (const network of informers.Network?.list() ?? []) {
            if ((network.metadata.namespace ?? 'default') === (object.metadata.namespace ?? 'default') && (network.spec as { identityRef?: { name?: string } }).identityRef?.name === object.metadata.name) networks.enqueue(keyOf(network));
          }
        } else if (kind === 'Network') {
          if (changed) networks.enqueue(key);
          wakeServersOn(object.metadata.name);
          wakeNetworkDependents(object.metadata.namespace ?? 'default', object.metadata.name);
          securityGroups.onNetwork(object.metadata.namespace ?? 'default', object.metadata.name);
        } else if (kind === 'SecurityGroup') securityGroups.onGroup(object, changed);
        else if (!SERVED.includes(kind) && changed) await status.render({ kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });
      }, { logger });
    }

    let monitorTimer: NodeJS.Timeout | undefined;
    let monitorRunning: Promise<void> | undefined;
    const monitorLoop = () => {
      monitorTimer = setTimeout(() => {
        monitorRunning = monitor
          .pollOnce()
          .then(() => metrics.monitorPolls.inc({ outcome: 'ok' }))
          .catch((error: unknown) => {
            metrics.monitorPolls.inc({ outcome: 'error' });
            if (error instanceof NotLeader || error instanceof Cancelled) return;
            logger.warn('monitor poll failed', describeError(error));
          })
          .finally(() => {
            if (leading) monitorLoop();
          });
      }, options.monitorIntervalMs ?? 3_000);
    };

    // Leadership comes and goes any number of times (a missed renew deadline after a long pause, then
    // a won election). Transitions run one at a time, in order, so a start never overlaps a stop.
    let transitions: Promise<void> = Promise.resolve();
    const inOrder = (step: () => Promise<void>): Promise<void> => {
      transitions = transitions.then(step).catch((error: unknown) => {
        logger.error('leadership transition failed', describeError(error));
      });
      return transitions;
    };
    const startLeading = () =>
      inOrder(async () => {
        if (leading) return;
        leading = true;
        metrics.leader.set(1);
        cancel.renew();
        await status.start();
        servers.start();
        networks.start();
        regions.start();
        identities.start();
        volumes.start();
        loadBalancers.start();
        novas.start();
        securityGroups.controller.start();
        novaRuntime.start();
        for (const [kind, informer] of Object.entries(informers) as Array<[KindName, Informer<KindName>]>) {
          for (const object of informer.list()) {
            if (kind === 'Server') servers.enqueue(keyOf(object));
            else if (kind === 'Network') networks.enqueue(keyOf(object));
            else if (kind === 'Region') regions.enqueue(keyOf(object));
            else if (kind === 'Identity') identities.enqueue(keyOf(object));
            else if (kind === 'Volume') volumes.enqueue(keyOf(object));
            else if (kind === 'LoadBalancer') loadBalancers.enqueue(keyOf(object));
            else if (kind === 'Nova') novas.enqueue(keyOf(object));
            else if (kind === 'SecurityGroup') securityGroups.controller.enqueue(keyOf(object));
            await status.render({ kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });
          }
        }
        monitorLoop();
        logger.info('leading: controllers, monitor and status runner started', { term: elector?.term() });
      });
    /**
     * Ends leadership. A clean stop (still holding the lease) lets passes in flight finish for a grace
     * period, then cancels their OpenStack requests; a lost lease cancels at once — the fence already
     * refuses their appends and effects, and nothing may wait on an answer it can no longer act on.
     */
    const stopLeading = (why: 'lost' | 'stopping') =>
      inOrder(async () => {
        if (!leading) return;
        leading = false;
        metrics.leader.set(0);
        if (monitorTimer) clearTimeout(monitorTimer);
        const cut = () => cancel.cancel(why === 'lost' ? 'leadership lost' : 'Regent is stopping');
        if (why === 'lost') cut();
        const graceMs = why === 'lost' ? 0 : (options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS);
        novaRuntime.stop();
        await Promise.all([...[servers, networks, regions, identities, volumes, loadBalancers, novas, securityGroups.controller].map((c) => c.stop({ graceMs, onGraceOver: cut })), monitorRunning]);
        await status.stop();
        logger.info('controllers, monitor and status runner stopped', { why });
      });

    for (const informer of Object.values(informers)) {
      opened.push(() => informer.stop());
      await informer.start();
    }

    if (options.examples) {
      await applyFirstStartExamples({
        ...options.examples, source, target, logger, cancel, regionName: processRegionName,
        ownSimulator: target.simulator !== undefined && !options.openstack,
      });
    }

    if (lease) {
      const started = new LeaderElector({
        lease,
        identity: `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
        leaseDurationMs: options.lease?.durationMs ?? 15_000,
        renewDeadlineMs: options.lease?.renewDeadlineMs ?? 10_000,
        retryPeriodMs: options.lease?.retryPeriodMs ?? 2_000,
        logger,
        onStartedLeading: () => startLeading(),
        // The elector logs the end of leadership (once); here it only stops the work.
        onStoppedLeading: (reason) => void stopLeading(reason === 'elector stopped' ? 'stopping' : 'lost'),
      });
      elector = started;
      started.start();
      opened.push(() => started.stop({ release: true }));
    } else {
      await startLeading();
    }
    opened.push(() => stopLeading('stopping'));

    const lag = setInterval(() => {
      // Only the leader renders status, so only its checkpoint means anything.
      if (!leading) return void metrics.projectionLag.set(0);
      void store.readAll({ after: status.checkpointPosition, maxCount: 10_000 }).then((events) => metrics.projectionLag.set(events.length)).catch(() => undefined);
    }, 5_000);
    lag.unref();

    return {
      url: http.url,
      ...(app ? { appUrl: app.url } : {}),
      ...(api ? { apiUrl: api.url } : {}),
      openstack: target,
      source,
      store,
      engine,
      metrics,
      isLeader: () => leading,
      term: () => elector?.term(),
      stop: async () => {
        clearInterval(lag);
        await http.close();
        await app?.close();
        await api?.close();
        imageInventories.close();
        // Stop the work while the lease is still held (results of passes in flight are still recorded),
        // then give the lease up so a standby takes over without waiting for it to expire.
        await stopLeading('stopping');
        if (elector) await elector.stop({ release: true });
        await transitions;
        for (const informer of Object.values(informers)) await informer.stop();
        // the Nova runtime's MariaDB pool and archive scheduler would keep the process alive
        await novaRuntime.close();
        await source.close();
        await store.close();
        if (!options.openstack) await target.simulator?.close();
      },
    };
  } catch (error) {
    await unwind();
    throw error;
  }
};
