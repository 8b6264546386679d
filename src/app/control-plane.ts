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
import { workloadMachineDefinition } from '../../machines/workload-machine.js';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStore } from '../store/open.js';
import type { EventStore } from '../store/port.js';
import { keepsCheckpoints } from '../store/port.js';
import { Engine, type Fence, type LeaderTerm } from '../engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { serverLifecycleDefinition } from '../../machines/server-lifecycle.js';
import { CancelScope } from '../openstack/cancel.js';
import { connect, connectAsUser, type OpenStackSession } from '../openstack/session.js';
import { IdentitySessions } from '../provider/identity/sessions.js';
import { RegionConnections } from '../provider/regions/connections.js';
import { VolumeClassInventory } from '../provider/inventory/volume-classes.js';
import { RegionImageInventories } from '../provider/inventory/region-images.js';
import { FlavorInventory } from '../provider/inventory/flavors.js';
import { openResourceSource } from '../kube/open.js';
import type { ResourceSource } from '../kube/port.js';
import { Informer } from '../kube/informer.js';
import { LeaderElector } from '../kube/leader/elector.js';
import { EmbeddedLeaseBackend } from '../kube/embedded/lease.js';
import { EmbeddedResourceSource } from '../kube/embedded/store.js';
import type { LeaseBackend } from '../kube/leader/lease.js';
import { CORE_KIND_NAMES, KIND_NAMES, type KindName, type ObjectOf } from '../resources/index.js';
import type { Logger } from '../log/logger.js';
import { Metrics } from '../observability/metrics.js';
import { Controller } from '../controllers/controller.js';
import { Scopes } from '../controllers/scopes.js';
import { scopeReachabilityRecorder } from '../controllers/scope-reachability.js';
import { keyOf, type KindRuntime, type Lookups, type PlaneServices } from '../controllers/kind.js';
import { WakeGraph } from '../controllers/wake-graph.js';
import { startApi } from '../api/server.js';
import type { AuthOptions } from '../api/auth.js';
import { identityCompute } from '../api/verbs.js';
import { inventoryImageValidator, regionInventoryFor } from '../api/images.js';
import { StatusRunner } from '../status/runner.js';
import { ResourceRecorder } from '../resource-history/recorder.js';
import { FileCheckpoint, MemoryCheckpoint, StoreCheckpoint } from '../status/checkpoint.js';
import { kindTable, statusRenderers, streamOwnersOf } from './kinds.js';
import { Leadership } from './leadership.js';
import { streamSubjects } from './stream-subjects.js';
import { applyFirstStartExamples } from './first-start-examples.js';
import { openNovaRuntime, type NovaRuntime } from './nova-runtime.js';
import { checkKeptSimulatorPort, openStackTarget, type OpenStackTarget } from './openstack-target.js';
import { ListenError, startHttpEndpoint, type HttpEndpoint, type Guard, type Route } from './http-server.js';
import { plan } from '../plan/planner.js';
import { exportsPublisherFor } from '../workload/exports-publisher.js';
import type { CloudConfig } from '../openstack/keystone/clouds-config.js';
import { PlanUnavailable, type AuditPlanner } from '../audit/web/plan-routes.js';

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
  /** The HTTP routes (the audit pages); `planner` plans over this process's stores and cloud (the plan view). */
  routes?: (deps: { store: EventStore; engine: Engine; planner: AuditPlanner }) => readonly Route[];
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
  /**
   * Serve the validating admission webhook (issue 30, src/kube/kubernetes/admission-webhook.ts) over HTTPS with
   * `tls.crt` and `tls.key` from `tlsDir`: it records the user the Kubernetes API server authenticated for each write.
   */
  admissionWebhook?: { host: string; port: number; tlsDir: string };
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
  /** The admission webhook (https), when `options.admissionWebhook` asked for it. */
  admissionWebhookUrl?: string;
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

/**
 * Start order, so that a start that fails has no cloud effect (a port another program holds used to fail only
 * after this process had become leader and created a Nova server): open the stores, bind the HTTP listener,
 * reach OpenStack, sync the informers, apply first-start examples; only then campaign for leadership, and only a
 * leader runs controllers, the monitor and the status runner.
 *
 * Everything kind-specific comes from the kind table (src/app/kinds.ts): each kind's controller, effect handlers,
 * wakes, streams and status renderer. This function is the composition root: the shared services, then a loop.
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
    const installNamespace = options.leaseNamespace ?? process.env.POD_NAMESPACE ?? 'default';
    const sqlitePath = options.storeUrl.startsWith('sqlite:') ? options.storeUrl.slice('sqlite:'.length).split('?')[0] : undefined;
    const simulatorStatePath = sqlitePath ? join(dirname(sqlitePath), 'simulator.json') : undefined;
    if (!options.openstack) await checkKeptSimulatorPort({ env: options.env ?? process.env, ...(simulatorStatePath ? { simulatorStatePath } : {}) });
    const store = await openStore(options.storeUrl);
    opened.push(() => store.close());
    const source = await openResourceSource(options.resourcesUrl);
    opened.push(() => source.close());
    const lease = await leaseFor(source, installNamespace);
    let elector: LeaderElector | undefined;
    // Every append and every effect is fenced on the lease: a deposed leader resuming from a pause is
    // refused at once, before its deadline timer runs (src/kube/leader/elector.ts term()).
    const fence: Fence | undefined = lease ? { current: () => elector?.term() } : undefined;

    const table = kindTable(options.monitorIntervalMs !== undefined ? { monitorIntervalMs: options.monitorIntervalMs } : {});
    const informers: Partial<Record<KindName, Informer<KindName>>> = {};
    const lookups: Lookups = {
      list: (kind) => informers[kind]?.list() ?? [],
      get: (kind, namespace, name) => informers[kind]?.get(namespace, name),
    };
    // Which resource each stream belongs to: one map, from the kind table's prefixes and the Servers' recorded Nova ids.
    const owners = streamOwnersOf(table, (kind, uid) => lookups.list(kind).some((o) => o.metadata.uid === uid));
    const engine = new Engine({ store, registry: createProductRegistry(), logger, observer: metrics.engineObserver(), ...(fence ? { fence } : {}), subjectOf: streamSubjects({ list: lookups.list, owners }) });
    await owners.warm(store, engine, serverLifecycleDefinition);
    await owners.warmKind(store, engine, workloadMachineDefinition, 'WorkloadMachine', (context) => context.serverId);

    // Leadership state is read by /readyz, so it exists before the listener.
    let leadership: Leadership | undefined;
    const reached: { openstack?: OpenStackTarget } = {};
    const listenError = (host: string, port: number, flag: string) => (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? new ListenError(`${host}:${port} is already in use (another Regent? pass ${flag})`) : new ListenError(`cannot listen on ${host}:${port}: ${error.code ?? error.message}`);
    // The audit pages' plan view (issue 32): src/plan's plan() over this process's stores and cloud, once the cloud
    // is reached below (the routes exist before: the listener is bound first); until then it answers 503. Its
    // sessions are its own, outside the leadership's cancel scope: a standby, or a leader just deposed, plans too.
    // The Nova runtime (opened below) is handed to each plan once open: the planner puts it behind its read-only guard.
    const planCloud: { reached?: { region: string; cloud: CloudConfig; secretNamespace?: string }; session?: Promise<OpenStackSession>; nova?: NovaRuntime } = {};
    const planner: AuditPlanner = async (request) => {
      const reached = planCloud.reached;
      if (!reached) throw new PlanUnavailable('the control plane has not reached its cloud yet; try again in a moment');
      const session = await (planCloud.session ??= connect(reached.cloud, { logger })).catch((error: unknown) => {
        planCloud.session = undefined;
        throw error;
      });
      const processRegion = { name: reached.region, cloud: reached.cloud, session };
      return plan({ store, source, logger, connect: (cloud) => connect(cloud, { logger }), processRegion, ...(reached.secretNamespace !== undefined ? { secretNamespace: reached.secretNamespace } : {}), ...(planCloud.nova ? { nova: planCloud.nova } : {}), ...request });
    };
    const routes = options.routes?.({ store, engine, planner }) ?? [];
    const http: HttpEndpoint = await startHttpEndpoint({
      onListenError: listenError(options.host ?? '127.0.0.1', options.port ?? 0, '--port'),
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      ops: {
        metrics,
        ready: () => {
          const all = Object.values(informers);
          const synced = all.length === KIND_NAMES.length && all.every((i) => i.synced);
          return { ready: synced, detail: { informersSynced: synced, leader: leadership?.leading ?? false, openstack: reached.openstack?.description ?? 'connecting', store: store.description, resources: source.description } };
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

    // Regions are clouds: their clients come from the Region resource and its credentials Secret. The
    // cloud this process was given stands for the Region named processRegionName when no such resource
    // exists. On Kubernetes Regent's Secrets live in its own namespace (its RBAC reaches secrets there only).
    const kubernetesSource = !(source instanceof EmbeddedResourceSource);
    const processRegionName = options.processRegionName ?? (target.simulator && !options.openstack ? 'region-one' : 'default');
    planCloud.reached = { region: processRegionName, cloud: target.cloud, ...(kubernetesSource ? { secretNamespace: installNamespace } : {}) };
    const connections = new RegionConnections({
      source,
      connect: (cloud) => connect(cloud, { logger, cancel }),
      processRegion: { name: processRegionName, cloud: target.cloud, session: os },
      ...(kubernetesSource ? { secretNamespace: installNamespace } : {}),
    });
    // Servers and Networks work with their Identity's credentials, in its project (issue 11).
    const sessions = new IdentitySessions({ source, connections, connect: (cloud) => connect(cloud, { logger, cancel }) });
    const scopes = new Scopes(sessions, { list: lookups.list, ownerOf: (stream) => owners.ownerOf(stream) }, connections);
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
          // ?dryRun=All plans against the cloud the passes use (the planner puts each session behind its read-only guard);
          // like the plan view's, the sessions it connects are not cancelled with leadership (a plan only reads); the process
          // Region's session is the passes' own `os`
          plan: { connect: (cloud) => connect(cloud, { logger }), processRegion: { name: processRegionName, cloud: target.cloud, session: os }, logger, ...(kubernetesSource ? { secretNamespace: installNamespace } : {}) },
        }).catch((error: NodeJS.ErrnoException) => {
          throw error.code === 'EADDRINUSE' ? new ListenError(`${options.api?.host}:${options.api?.port} is already in use (another Regent? pass --api-port)`) : error;
        })
      : undefined;
    if (api) opened.push(() => api.close());
    // The admission webhook (issue 30: who changed it on Kubernetes), on every replica: it only appends to the store.
    const admission = options.admissionWebhook
      ? await (await import('../kube/kubernetes/admission-webhook.js')).startAdmissionWebhook({
          store,
          logger,
          ...options.admissionWebhook,
          onListenError: listenError(options.admissionWebhook.host, options.admissionWebhook.port, '--admission-webhook-port'),
        })
      : undefined;
    if (admission) opened.push(() => admission.close());

    // The Nova control plane's Database step (issue 14): SQL and local Jobs embedded, CRs and Jobs on Kubernetes.
    const novaRuntime = await openNovaRuntime(source, { dataDir: sqlitePath !== undefined ? dirname(sqlitePath) : join(tmpdir(), `regent-${process.pid}`), env: options.env ?? process.env, logger, installNamespace });
    opened.push(() => novaRuntime.close());
    planCloud.nova = novaRuntime;
    logger.info('nova runtime', { runtime: novaRuntime.description });

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
    const status = new StatusRunner({ store, engine, source, checkpoint, logger, renderers: statusRenderers(table), ownerOf: (stream) => owners.ownerOf(stream), ...(auditBaseUrl !== undefined ? { auditBaseUrl } : {}) });

    // Every change of desired state and every status written, in the resource's own stream (issue 30: who changed
    // what, src/resource-history/). The leader records; what it finds already recorded it does not record again.
    const recorder = new ResourceRecorder({
      store,
      platform: kubernetesSource ? 'kubernetes' : 'embedded',
      ...(fence ? { fence } : {}),
      onError: (error, ref) => logger.warn('could not record a change of the resource', { ...ref, error: error instanceof Error ? error.message : String(error) }),
    });
    opened.push(() => recorder.idle());

    // The kinds: each builds its controller pass, handlers and background work from the shared services.
    const wakes = new WakeGraph(table, lookups);
    const controllers = new Map<KindName, Controller>();
    const enqueue = (kind: KindName, key: string) => {
      if (leadership?.leading) controllers.get(kind)?.enqueue(key);
    };
    const services: PlaneServices = {
      engine, store, source, logger, metrics, scopes, sessions, connections, owners, lookups, cancel, volumeClasses,
      observer: metrics.controllerObserver(),
      reach: scopeReachabilityRecorder({ engine, logger }),
      connect: (cloud) => connect(cloud, { logger, cancel }),
      connectAsUser: (cloud, login) => connectAsUser(cloud, login, { logger, cancel }),
      enqueue,
      wakeDependents: (kind, object, on) => {
        for (const wake of wakes.dependentsOf(kind, object, on)) enqueue(wake.kind, wake.key);
      },
      leading: () => leadership?.leading ?? false,
      renderStatus: (object) => status.render({ kind: object.kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name }),
      forgetRegion: (uid) => {
        connections.forget(uid);
        volumeClasses.forget(uid);
        imageInventories.forget(uid);
      },
      nova: novaRuntime,
      exports: exportsPublisherFor(source),
    };
    const runtimes = new Map<KindName, KindRuntime>();
    for (const wiring of table) {
      const runtime = wiring.build?.(services);
      if (!runtime) continue;
      runtimes.set(wiring.kind, runtime);
      for (const [type, handler] of Object.entries(runtime.handlers ?? {})) engine.handle(type, handler);
      if (runtime.reconcile) controllers.set(wiring.kind, new Controller({ name: wiring.kind, logger, observer: services.observer, reconcile: runtime.reconcile, ...(runtime.concurrency ? { concurrency: runtime.concurrency } : {}) }));
    }
    const renderOf = (object: ObjectOf<KindName>) => status.render({ kind: object.kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });

    // Informers: every kind, so every resource gets a status; the wake graph says which passes a change wakes.
    for (const kind of KIND_NAMES) {
      informers[kind] = new Informer(source, kind, async (event) => {
        const object = event.object;
        const runtime = runtimes.get(kind);
        if (event.type === 'DELETED') {
          status.forgetResource(object.metadata.uid);
          runtime?.onDeleted?.(object);
        } else {
          status.noteResource(kind, object);
          runtime?.onObject?.(object);
        }
        const change = wakes.onChange({ type: event.type, kind, object });
        if (!leadership?.leading) return;
        void (event.type === 'DELETED' ? recorder.deleted(object) : recorder.observe(object));
        for (const wake of change.wakes) enqueue(wake.kind, wake.key);
        // a kind without a controller (an SSH CA, a kind not built yet) has its status rendered from the object
        // on a spec change: no event of its own will ever re-render it
        if (change.spec && !controllers.has(kind)) await renderOf(object);
      }, { logger });
    }

    const current = leadership = new Leadership({
      status,
      controllers: [...controllers.values()],
      runtimes: [...runtimes.values()],
      cancel,
      metrics,
      logger,
      stopGraceMs: options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS,
      term: () => elector?.term(),
      // every object of every kind is looked at again: its pass enqueued, its status rendered
      catchUp: async () => {
        for (const [kind, informer] of Object.entries(informers) as Array<[KindName, Informer<KindName>]>) {
          for (const object of informer.list()) {
            void recorder.observe(object);
            controllers.get(kind)?.enqueue(keyOf(object));
            await renderOf(object);
          }
        }
      },
    });

    // The core kinds the store holds besides Regent's (the embedded default's Nodes, which NovaCompute pools select):
    // watched only for the wakes they declare, never given a status; a source that does not serve them (Kubernetes,
    // where a pool reads Nodes uncached) gets no informer.
    const coreInformers: Array<Informer<KindName>> = [];
    for (const kind of CORE_KIND_NAMES) {
      if (!(await source.list(kind).then(() => true, () => false))) continue;
      coreInformers.push(new Informer(source, kind, async (event) => {
        const change = wakes.onChange({ type: event.type, kind, object: event.object });
        if (!leadership?.leading) return;
        for (const wake of change.wakes) enqueue(wake.kind, wake.key);
      }, { logger }));
    }

    for (const informer of [...Object.values(informers), ...coreInformers]) {
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
        onStartedLeading: () => current.start(),
        // The elector logs the end of leadership (once); here it only stops the work.
        onStoppedLeading: (reason) => void current.stop(reason === 'elector stopped' ? 'stopping' : 'lost'),
      });
      elector = started;
      started.start();
      opened.push(() => started.stop({ release: true }));
    } else {
      await current.start();
    }
    opened.push(() => current.stop('stopping'));

    const lag = setInterval(() => {
      // Only the leader renders status, so only its checkpoint means anything.
      if (!current.leading) return void metrics.projectionLag.set(0);
      void store.readAll({ after: status.checkpointPosition, maxCount: 10_000 }).then((events) => metrics.projectionLag.set(events.length)).catch(() => undefined);
    }, 5_000);
    lag.unref();

    return {
      url: http.url,
      ...(app ? { appUrl: app.url } : {}),
      ...(api ? { apiUrl: api.url } : {}),
      ...(admission ? { admissionWebhookUrl: admission.url } : {}),
      openstack: target,
      source,
      store,
      engine,
      metrics,
      isLeader: () => current.leading,
      term: () => elector?.term(),
      stop: async () => {
        clearInterval(lag);
        await http.close();
        await app?.close();
        await api?.close();
        await admission?.close();
        imageInventories.close();
        // Stop the work while the lease is still held (results of passes in flight are still recorded),
        // then give the lease up so a standby takes over without waiting for it to expire.
        await current.stop('stopping');
        if (elector) await elector.stop({ release: true });
        await current.settled();
        for (const informer of [...Object.values(informers), ...coreInformers]) await informer.stop();
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
