/**
 * A kind is one registration (issue 25): everything the control plane needs to serve it, contributed from the
 * kind's own folder (`src/controllers/<kind>/wiring.ts`) and listed once in the kind table (src/app/kinds.ts).
 *
 *   streams  the event streams its resources own (prefix → how the name carries the resource): the stream-owner map
 *   wakes    what wakes a pass of it, as data: a change of some kind → the keys of this kind to enqueue (the wake graph)
 *   status   its status renderer (the status runner writes what it returns)
 *   build    its controller pass, effect handlers and background work, from the plane's shared services
 *
 * Adding a kind is its folder plus one line in the table; `startControlPlane` loops over the table.
 */
import type { EffectHandler, Engine } from '../engine/engine.js';
import type { EventStore } from '../store/port.js';
import type { ResourceSource } from '../kube/port.js';
import type { KindName, ObjectOf } from '../resources/index.js';
import type { Logger } from '../log/logger.js';
import type { Disposition } from './disposition.js';
import type { ControllerObserver } from './controller.js';
import type { Metrics } from '../observability/metrics.js';
import type { ScopeReachabilityRecorder } from './scope-reachability.js';
import type { StatusRenderer } from '../status/renderer.js';
import type { StreamOwners, StreamOwnership } from './stream-owners.js';
import type { Scopes } from './scopes.js';
import type { IdentitySessions } from '../provider/identity/sessions.js';
import type { RegionConnections } from '../provider/regions/connections.js';
import type { CancelScope } from '../openstack/cancel.js';
import type { CloudConfig } from '../openstack/keystone/clouds-config.js';
import type { OpenStackSession } from '../openstack/session.js';
import type { UserLogin } from '../openstack/keystone/admin/user-session.js';
import type { VolumeClassInventory } from '../provider/inventory/volume-classes.js';
import type { NovaRuntime } from './nova/runtime.js';
import type { ExportsPublisher } from '../workload/exports-publisher.js';

/** What a change of a resource is, as far as waking others goes. */
export type ChangeKind =
  /** created, a new spec generation, or deletion requested: the resource's own pass must run */
  | 'spec'
  /** any write, status included (a Network realized, a Volume available) */
  | 'any'
  /** the resource is gone from the store */
  | 'deleted';

/** The informer caches, as the wakes and passes read them. */
export interface Lookups {
  list(kind: KindName): ReadonlyArray<ObjectOf<KindName>>;
  get(kind: KindName, namespace: string, name: string): ObjectOf<KindName> | undefined;
}

/**
 * "A change of `from` wakes these passes of the declaring kind." Declared by the woken kind, so its folder says
 * everything it depends on; the wake graph (src/app/wake-graph.ts) dispatches them and the audit pages draw them.
 */
export interface WakeRule {
  from: KindName;
  on: ChangeKind;
  /** For people and the drawn graph: why the change matters to the woken kind. */
  why: string;
  /** The keys (`<namespace>/<name>`) of the declaring kind to enqueue. */
  keys: (changed: ObjectOf<KindName>, lookups: Lookups) => string[];
  /**
   * Only for `on: 'any'`: wake only when this value of the changed object differs from the last one seen (a
   * Server's remaining provider-create gates: the API's status-only write must wake its create, our own status
   * writes must not loop).
   */
  signature?: (changed: ObjectOf<KindName>) => string;
}

/** The shared services of one control plane, built once by startControlPlane and handed to every kind. */
export interface PlaneServices {
  engine: Engine;
  store: EventStore;
  source: ResourceSource;
  logger: Logger;
  observer: ControllerObserver;
  metrics: Metrics;
  scopes: Scopes;
  sessions: IdentitySessions;
  connections: RegionConnections;
  owners: StreamOwners;
  reach: ScopeReachabilityRecorder;
  lookups: Lookups;
  /** Cancelled when leadership ends: passes stop waiting on OpenStack at once. */
  cancel: CancelScope;
  connect: (cloud: CloudConfig) => Promise<OpenStackSession>;
  connectAsUser: (cloud: CloudConfig, login: UserLogin) => Promise<OpenStackSession>;
  /** Enqueues a pass of `kind` for `key` (only while leading; a no-op otherwise). */
  enqueue(kind: KindName, key: string): void;
  /** Enqueues every pass the wake graph declares for a change of `object` (as if it changed `on`). */
  wakeDependents(kind: KindName, object: ObjectOf<KindName>, on: ChangeKind): void;
  /** Whether this process leads (passes, the monitor and the status runner run only then). */
  leading(): boolean;
  /**
   * Renders one resource's status now. For a kind whose status reads something its streams do not carry and that
   * appends no event when it changes (a WorkloadCluster's exports, as published in the ConfigMap the machines read).
   */
  renderStatus(object: ObjectOf<KindName>): Promise<void>;
  /** The Region's exported VolumeClasses, cached with its clients (refreshed when its config or Secret changes). */
  volumeClasses: VolumeClassInventory;
  /** A Region is gone from the store: its cached clients and inventories go too. */
  forgetRegion(regionUid: string): void;
  /** The Nova control plane's runtime (embedded: SQL and local Jobs; Kubernetes: CRs and Jobs). */
  nova: NovaRuntime;
  /**
   * Where a WorkloadCluster's exports are published and its machines read them: the control plane's is
   * exportsPublisherFor(source) (the core API's ConfigMaps on Kubernetes, the embedded store's otherwise); a plan's
   * records its publish and remove instead (src/plan/read-only-exports.ts).
   */
  exports: ExportsPublisher;
  /**
   * The passes' clock, for the `at` of the stimuli a pass decides on (the grace a create may still land in, a
   * delete's backoff); absent: the wall clock. A plan hands its own, which moves by each yield.
   */
  now?: () => Date;
}

/** What a kind runs while this process leads. */
export interface KindRuntime {
  /** One reconcile pass (run by a Controller named after the kind). */
  reconcile?: (key: string) => Promise<Disposition>;
  /** Concurrent passes of this kind (default 1 per key, the Controller's default). */
  concurrency?: number;
  /** Effect type → handler, registered on the engine. */
  handlers?: Record<string, EffectHandler>;
  /** Every object the informer sees (added or modified), leader or not: caches the kind keeps (a Server's user data). */
  onObject?(object: ObjectOf<KindName>): void;
  /** The object is gone from the store: forget what is cached for it. */
  onDeleted?(object: ObjectOf<KindName>): void;
  /** Background work while leading (the Nova monitor, the Nova runtime's scheduler), started after the controllers. */
  startLeading?(): void;
  /** Stops it; resolves when work in flight is done (or cancelled after the grace). */
  stopLeading?(): Promise<void>;
}

export interface KindWiring {
  kind: KindName;
  streams: readonly StreamOwnership[];
  wakes: readonly WakeRule[];
  status?: StatusRenderer;
  /** Absent: the kind has no controller (its status says so, or its renderer reads the object alone). */
  build?(services: PlaneServices): KindRuntime;
}

/** `<namespace>/<name>`: a work-queue key. */
export const keyOf = (object: { metadata: { namespace?: string; name: string } }): string => `${object.metadata.namespace ?? 'default'}/${object.metadata.name}`;

export const keyParts = (key: string): [string, string] => {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
};

export const namespaceOf = (object: { metadata: { namespace?: string } }): string => object.metadata.namespace ?? 'default';

/** The objects of `kind` in `changed`'s namespace whose spec field `field` names `changed` (a Server's networkID). */
export const naming = (lookups: Lookups, kind: KindName, changed: ObjectOf<KindName>, refOf: (spec: Record<string, unknown>) => string | undefined): string[] =>
  lookups
    .list(kind)
    .filter((o) => namespaceOf(o) === namespaceOf(changed) && refOf(o.spec as Record<string, unknown>) === changed.metadata.name)
    .map(keyOf);
