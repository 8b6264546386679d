/**
 * The shared services a kind's wiring builds its pass from (src/controllers/kind.ts `PlaneServices`), assembled from
 * parts the caller chooses, so a plan runs each kind's real pass — `wiring.build(services).reconcile(key)`, exactly as
 * the control plane runs it — over a fork and a read-only cloud. The same assembly over the real store and cloud is
 * how the tests run the real pass a plan is compared with.
 *
 * What a plan does not have, its services do not pretend to have: nothing is enqueued or re-rendered (the plan runs
 * the passes itself), no status is rendered, and the Nova runtime (Databases, Jobs) is absent unless the caller hands
 * one (`nova`: a plan's is read-only, src/plan/nova-guards.ts). The workload kinds' exports publisher is a part too
 * (`exports`: a plan's records what it would publish, src/plan/read-only-exports.ts), and so is the passes' clock.
 */
import { serverLifecycleDefinition } from '../../machines/server-lifecycle.js';
import { workloadMachineDefinition } from '../../machines/workload-machine.js';
import type { Engine } from '../engine/engine.js';
import type { EventStore } from '../store/port.js';
import type { ResourceSource } from '../kube/port.js';
import type { Logger } from '../log/logger.js';
import type { OpenStackSession } from '../openstack/session.js';
import type { CloudConfig } from '../openstack/keystone/clouds-config.js';
import { userCloudConfig } from '../openstack/keystone/admin/user-session.js';
import { CancelScope } from '../openstack/cancel.js';
import { KIND_NAMES, type KindName, type ObjectOf } from '../resources/index.js';
import type { KindWiring, Lookups, PlaneServices } from '../controllers/kind.js';
import type { NovaRuntime } from '../controllers/nova/runtime.js';
import { Scopes } from '../controllers/scopes.js';
import { scopeReachabilityRecorder } from '../controllers/scope-reachability.js';
import { Metrics } from '../observability/metrics.js';
import { IdentitySessions } from '../provider/identity/sessions.js';
import { RegionConnections } from '../provider/regions/connections.js';
import { VolumeClassInventory } from '../provider/inventory/volume-classes.js';
import { streamOwnersOf } from '../app/kinds.js';
import { exportsPublisherFor, type ExportsPublisher } from '../workload/exports-publisher.js';

export interface PlaneParts {
  engine: Engine;
  store: EventStore;
  source: ResourceSource;
  logger: Logger;
  /** Connects a cloud (for a plan: read-only sessions, src/plan/read-only-cloud.ts). */
  connect: (cloud: CloudConfig) => Promise<OpenStackSession>;
  /** The kinds whose streams the stream-owner map knows (the kind table). */
  table: readonly KindWiring[];
  /** The process's own cloud, standing for the Region of this name when no Region resource has it. */
  processRegion?: { name: string; cloud: CloudConfig; session: OpenStackSession };
  /** Where Regent's Secrets live on Kubernetes (its own namespace); unset on the embedded store. */
  secretNamespace?: string;
  /** The passes' clock (PlaneServices `now`, and the scope-reachability records'); absent: the wall clock. */
  clock?: () => Date;
  /**
   * The Nova runtime the Nova and NovaCompute passes run with (for a plan: behind src/plan/nova-guards.ts
   * `readOnlyNovaRuntime`); absent: none, and a pass that reaches for it fails saying so.
   */
  nova?: NovaRuntime;
  /**
   * Where the workload kinds publish and read a WorkloadCluster's exports (for a plan: src/plan/read-only-exports.ts,
   * which records a publish or remove); absent: exportsPublisherFor(source), as the control plane's.
   */
  exports?: ExportsPublisher;
}

export interface AssembledPlane {
  services: PlaneServices;
  /** Re-reads every kind's objects from the source: the lookups (informer caches) a pass reads synchronously. */
  refresh(): Promise<void>;
}

const noNovaRuntime = (): NovaRuntime =>
  new Proxy({} as NovaRuntime, {
    get: (_target, property) => {
      throw new Error(`the Nova runtime (${String(property)}) is not available here: plan is not built for Nova yet`);
    },
  });

export const assemblePlane = async (parts: PlaneParts): Promise<AssembledPlane> => {
  const { engine, store, source, logger, connect } = parts;
  let cached = new Map<KindName, ReadonlyArray<ObjectOf<KindName>>>();
  const refresh = async () => {
    const next = new Map<KindName, ReadonlyArray<ObjectOf<KindName>>>();
    for (const kind of KIND_NAMES) next.set(kind, (await source.list(kind)).items);
    cached = next;
  };
  await refresh();
  const lookups: Lookups = {
    list: (kind) => cached.get(kind) ?? [],
    get: (kind, namespace, name) => (cached.get(kind) ?? []).find((o) => (o.metadata.namespace ?? 'default') === namespace && o.metadata.name === name),
  };
  const owners = streamOwnersOf(parts.table, (kind, uid) => lookups.list(kind).some((o) => o.metadata.uid === uid));
  // which Server each Nova id is, as the control plane learns it at start (a Volume's pass names its attachments' servers)
  await owners.warm(store, engine, serverLifecycleDefinition);
  await owners.warmKind(store, engine, workloadMachineDefinition, 'WorkloadMachine', (context) => context.serverId);
  const connections = new RegionConnections({
    source,
    connect,
    ...(parts.processRegion ? { processRegion: parts.processRegion } : {}),
    ...(parts.secretNamespace !== undefined ? { secretNamespace: parts.secretNamespace } : {}),
  });
  const sessions = new IdentitySessions({ source, connections, connect });
  const scopes = new Scopes(sessions, { list: lookups.list, ownerOf: (stream) => owners.ownerOf(stream) }, connections);
  const metrics = new Metrics();
  const volumeClasses = new VolumeClassInventory(connections);
  const services: PlaneServices = {
    engine,
    store,
    source,
    logger,
    metrics,
    scopes,
    sessions,
    connections,
    owners,
    lookups,
    volumeClasses,
    observer: metrics.controllerObserver(),
    reach: scopeReachabilityRecorder({ engine, logger, ...(parts.clock ? { now: parts.clock } : {}) }),
    cancel: new CancelScope(),
    connect,
    connectAsUser: (cloud, login) => connect(userCloudConfig(cloud, login)),
    enqueue: () => undefined,
    wakeDependents: () => undefined,
    leading: () => true,
    renderStatus: async () => undefined,
    forgetRegion: (uid) => {
      connections.forget(uid);
      volumeClasses.forget(uid);
    },
    nova: parts.nova ?? noNovaRuntime(),
    exports: parts.exports ?? exportsPublisherFor(source),
    ...(parts.clock ? { now: parts.clock } : {}),
  };
  return { services, refresh };
};
