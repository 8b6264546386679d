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
 * the monitor and the status runner run only while this process leads.
 */
import { hostname } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openStore } from '../store/open.js';
import type { EventStore } from '../store/port.js';
import { Engine } from '../engine/engine.js';
import { createProductRegistry } from '../../machines/index.js';
import { connect } from '../openstack/session.js';
import type { OpenStackSession } from '../openstack/session.js';
import { openResourceSource } from '../kube/open.js';
import type { ResourceSource } from '../kube/port.js';
import { Informer } from '../kube/informer.js';
import { LeaderElector } from '../kube/leader/elector.js';
import { EmbeddedLeaseBackend } from '../kube/embedded/lease.js';
import { EmbeddedResourceSource } from '../kube/embedded/store.js';
import type { LeaseBackend } from '../kube/leader/lease.js';
import { applyManifests } from '../kube/cli/manifests.js';
import { KINDS, type KindName } from '../resources/index.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import { Metrics } from '../observability/metrics.js';
import { Controller } from '../controllers/controller.js';
import { reconcileServer } from '../controllers/server/reconcile.js';
import { reconcileNetwork } from '../controllers/network/reconcile.js';
import { ServerMonitor } from '../controllers/server-monitor/monitor.js';
import { novaRebuildHandler } from '../controllers/server-rebuild/nova-rebuild-effect.js';
import { createServerHandler, deleteServerHandler } from '../provider/servers.js';
import { createNetworkHandler, deleteNetworkHandler } from '../provider/networks.js';
import { StatusRunner } from '../status/runner.js';
import { FileCheckpoint, MemoryCheckpoint } from '../status/checkpoint.js';
import { openStackTarget, type OpenStackTarget } from './openstack-target.js';
import { ListenError, startHttpEndpoint, type HttpEndpoint, type Route } from './http-server.js';

export interface ControlPlaneOptions {
  storeUrl: string;
  resourcesUrl: string;
  logger: Logger;
  host?: string;
  port?: number;
  /** Apply these manifests when the resource store holds no resources yet (first start). */
  examplesDir?: string;
  monitorIntervalMs?: number;
  /** Where the status runner keeps its checkpoint (default next to the sqlite store; memory for memory:). */
  checkpointPath?: string;
  routes?: (deps: { store: EventStore; engine: Engine }) => readonly Route[];
  env?: NodeJS.ProcessEnv;
  /** Namespace of the Lease on Kubernetes (default $POD_NAMESPACE, else default). */
  leaseNamespace?: string;
  /** Use this OpenStack instead of choosing one from the environment (tests share a simulator). */
  openstack?: OpenStackTarget;
  /** Leader-election timings (tests shorten them). */
  lease?: { durationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
}

export interface ControlPlane {
  url: string;
  openstack: OpenStackTarget;
  source: ResourceSource;
  store: EventStore;
  engine: Engine;
  metrics: Metrics;
  isLeader(): boolean;
  stop(): Promise<void>;
}

const SERVED: readonly KindName[] = ['Server', 'Network'];

/** The lease two replicas compete for: a row of the embedded store, or a coordination.k8s.io Lease. */
const leaseFor = async (source: ResourceSource, namespace: string): Promise<LeaseBackend | undefined> => {
  if (source instanceof EmbeddedResourceSource) return new EmbeddedLeaseBackend(source.database, 'default', 'regent-controller');
  const kubernetes = await import('../kube/kubernetes/index.js');
  if (source instanceof kubernetes.KubernetesResourceSource) return new kubernetes.KubernetesLeaseBackend(source.kubeConfig, namespace, 'regent-controller');
  return undefined;
};
const KIND_NAMES = KINDS.map((definition) => definition.kind as KindName);

const keyParts = (key: string): [string, string] => {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
};

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
    const store = await openStore(options.storeUrl);
    opened.push(() => store.close());
    const source = await openResourceSource(options.resourcesUrl);
    opened.push(() => source.close());
    const sqlitePath = options.storeUrl.startsWith('sqlite:') ? options.storeUrl.slice('sqlite:'.length).split('?')[0] : undefined;
    const openstack =
      options.openstack ??
      (await openStackTarget({ env: options.env ?? process.env, ...(sqlitePath ? { simulatorStatePath: join(dirname(sqlitePath), 'simulator.json') } : {}) }));
    if (!options.openstack && openstack.simulator) opened.push(() => (openstack.simulator as { close(): Promise<void> }).close());
    const os: OpenStackSession = await connect(openstack.cloud, { logger });
    logger.info('openstack', { target: openstack.description });

    // User data is read when the create runs, from the resource itself, so it never enters an event.
    const userData = new Map<string, string>();
    const serverKeyByNovaId = new Map<string, string>();
    const engine = new Engine({
      store,
      registry: createProductRegistry(),
      logger,
      observer: metrics.engineObserver(),
      handlers: {
        'nova.rebuild': novaRebuildHandler(os.nova),
        'nova.createServer': createServerHandler(os, (uid) => userData.get(uid)),
        'nova.deleteServer': deleteServerHandler(os),
        'neutron.createNetwork': createNetworkHandler(os),
        'neutron.deleteNetwork': deleteNetworkHandler(os),
      },
    });

    const checkpoint = options.checkpointPath
      ? new FileCheckpoint(options.checkpointPath)
      : options.storeUrl.startsWith('sqlite:')
        ? new FileCheckpoint(`${options.storeUrl.slice('sqlite:'.length).split('?')[0]}.status-checkpoint.json`)
        : new MemoryCheckpoint();
    const status = new StatusRunner({ store, engine, source, checkpoint, logger, servedKinds: SERVED });

    const servers = new Controller({
      name: 'Server',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: (key) => {
        const [ns, name] = keyParts(key);
        return reconcileServer(
          {
            engine,
            source,
            os,
            logger,
            onServerId: (serverId, resourceKey) => {
              serverKeyByNovaId.set(serverId, resourceKey);
              const object = informers.Server?.get(...keyParts(resourceKey));
              if (object) status.noteServerId(serverId, object.metadata.uid);
            },
          },
          ns,
          name,
        );
      },
    });
    const networks = new Controller({
      name: 'Network',
      logger,
      observer: metrics.controllerObserver(),
      reconcile: (key) => reconcileNetwork({ engine, source, os }, ...keyParts(key)),
    });
    // A Network becoming ready unblocks the Servers waiting on it: requeue them.
    const wakeServersOn = (networkName: string) => {
      for (const server of informers.Server?.list() ?? []) {
        if ((server.spec as { networkID?: string }).networkID === networkName) servers.enqueue(`${server.metadata.namespace ?? 'default'}/${server.metadata.name}`);
      }
    };

    const monitor = new ServerMonitor({
      engine,
      nova: os.nova,
      logger,
      isManaged: (serverId) => serverKeyByNovaId.has(serverId),
      onMarkerAdvanced: (serverId) => {
        const key = serverKeyByNovaId.get(serverId);
        if (key) servers.enqueue(key);
      },
    });

    // Informers: every kind, so every resource gets a status; served kinds also feed their queues.
    const informers: Partial<Record<KindName, Informer<KindName>>> = {};
    const generations = new Map<string, number>();
    for (const kind of KIND_NAMES) {
      informers[kind] = new Informer(source, kind, async (event) => {
        const object = event.object;
        const key = `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
        if (event.type === 'DELETED') {
          status.forgetResource(object.metadata.uid);
          generations.delete(`${kind}:${key}`);
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
        if (!leading) return;
        if (kind === 'Server' && changed) servers.enqueue(key);
        else if (kind === 'Network') {
          if (changed) networks.enqueue(key);
          wakeServersOn(object.metadata.name);
        } else if (!SERVED.includes(kind) && changed) await status.render({ kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });
      }, { logger });
    }

    let leading = false;
    let monitorTimer: NodeJS.Timeout | undefined;
    let monitorRunning: Promise<void> | undefined;
    const monitorLoop = () => {
      monitorTimer = setTimeout(() => {
        monitorRunning = monitor
          .pollOnce()
          .then(() => metrics.monitorPolls.inc({ outcome: 'ok' }))
          .catch((error: unknown) => {
            metrics.monitorPolls.inc({ outcome: 'error' });
            logger.warn('monitor poll failed', describeError(error));
          })
          .finally(() => {
            if (leading) monitorLoop();
          });
      }, options.monitorIntervalMs ?? 3_000);
    };

    const startLeading = async () => {
      leading = true;
      metrics.leader.set(1);
      await status.start();
      servers.start();
      networks.start();
      for (const [kind, informer] of Object.entries(informers) as Array<[KindName, Informer<KindName>]>) {
        for (const object of informer.list()) {
          const key = `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;
          if (kind === 'Server') servers.enqueue(key);
          else if (kind === 'Network') networks.enqueue(key);
          await status.render({ kind, namespace: object.metadata.namespace ?? 'default', name: object.metadata.name });
        }
      }
      monitorLoop();
      logger.info('leading: controllers, monitor and status runner started');
    };
    const stopLeading = async () => {
      if (!leading) return;
      leading = false;
      metrics.leader.set(0);
      if (monitorTimer) clearTimeout(monitorTimer);
      await monitorRunning;
      await Promise.all([servers.stop(), networks.stop()]);
      await status.stop();
    };

    for (const informer of Object.values(informers)) {
      opened.push(() => informer.stop());
      await informer.start();
    }

    if (options.examplesDir) {
      const empty = (await Promise.all(KIND_NAMES.map((k) => source.list(k)))).every((l) => l.items.length === 0);
      if (empty) {
        for (const file of readdirSync(options.examplesDir).filter((f) => f.endsWith('.yaml')).sort()) {
          const outcomes = await applyManifests(source, readFileSync(join(options.examplesDir, file), 'utf8'));
          logger.info('applied example', { file, objects: outcomes.map((o) => `${o.kind}/${o.name}`) });
        }
      }
    }

    const lease = await leaseFor(source, options.leaseNamespace ?? process.env.POD_NAMESPACE ?? 'default');
    let elector: LeaderElector | undefined;
    if (lease) {
      elector = new LeaderElector({
        lease,
        identity: `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`,
        leaseDurationMs: options.lease?.durationMs ?? 15_000,
        renewDeadlineMs: options.lease?.renewDeadlineMs ?? 10_000,
        retryPeriodMs: options.lease?.retryPeriodMs ?? 2_000,
        logger,
        onStartedLeading: () => startLeading(),
        onStoppedLeading: (reason) => {
          logger.warn('stopped leading', { reason });
          void stopLeading();
        },
      });
      elector.start();
      const started = elector;
      opened.push(() => started.stop({ release: true }));
    } else {
      await startLeading();
    }
    opened.push(() => stopLeading());

    const http: HttpEndpoint = await startHttpEndpoint({
      onListenError: (error) => (error.code === 'EADDRINUSE' ? new ListenError(`${options.host ?? '127.0.0.1'}:${options.port ?? 0} is already in use (another Regent? pass --port)`) : new ListenError(`cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0}: ${error.code ?? error.message}`)),
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      metrics,
      routes: options.routes?.({ store, engine }) ?? [],
      ready: () => {
        const synced = Object.values(informers).every((i) => i.synced);
        return { ready: synced, detail: { informersSynced: synced, leader: leading, openstack: openstack.description, store: store.description, resources: source.description } };
      },
    });

    const lag = setInterval(() => {
      // Only the leader renders status, so only its checkpoint means anything.
      if (!leading) return void metrics.projectionLag.set(0);
      void store.readAll({ after: status.checkpointPosition, maxCount: 10_000 }).then((events) => metrics.projectionLag.set(events.length)).catch(() => undefined);
    }, 5_000);
    lag.unref();

    return {
      url: http.url,
      openstack,
      source,
      store,
      engine,
      metrics,
      isLeader: () => leading,
      stop: async () => {
        clearInterval(lag);
        await http.close();
        if (elector) await elector.stop({ release: true });
        await stopLeading();
        for (const informer of Object.values(informers)) await informer.stop();
        await source.close();
        await store.close();
        if (!options.openstack) await openstack.simulator?.close();
      },
    };
  } catch (error) {
    await unwind();
    throw error;
  }
};
