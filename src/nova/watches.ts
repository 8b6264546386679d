/**
 * The Nova controller's watches on Kubernetes (nova-operator.md, "Watches and indexes"; issue 27): instead of re-reading
 * its children on a timer, the controller is woken when one changes. The imperative shell around ./watch-legs.ts (what
 * an event wakes, pure): one watch per leg with @kubernetes/client-node's Watch, each event's Nova keys enqueued.
 *
 * The legs, in the install namespace:
 *   owned set  apps/v1 deployments, v1 services, configmaps, policy/v1 poddisruptionbudgets, autoscaling/v2
 *              horizontalpodautoscalers, networking.k8s.io/v1 networkpolicies, batch/v1 jobs, cronjobs (for
 *              status.active: what wakes the pass that refreshes DBArchiveReady), gateway.networking.k8s.io/v1
 *              httproutes (the spec: only while the Gateway API CRD is installed) → ownedLeg
 *   v1 secrets → secretLeg (the Secret index, and owners)
 *   k8s.mariadb.com/v1alpha1 mariadbs → mariaDBLeg (both clusterRefs, one key per Nova)
 *   external-secrets.io/v1beta1 secretstores → secretStoreLeg
 *   external-secrets.io/v1beta1 clustersecretstores, cluster-wide → clusterSecretStoreLeg, ONLY when `clusterScoped`:
 *              "The ClusterSecretStore leg is not registered when the operator runs with --namespace", and Regent's
 *              install is namespace-scoped (src/app/nova-runtime.ts passes false; its RBAC could not list them).
 * The CR's own watch is the control plane's Nova informer, not here: its wake rule (`on: 'spec'`) already drops
 * status-only writes (novaSpecChanged states the same filter, and a test holds both to it).
 *
 * Each leg: LIST for a resourceVersion, then WATCH from it; a stream the server ends is resumed from the last version
 * seen (events and bookmarks); a 410 Gone (an ERROR event or the HTTP status) relists. The first list wakes nothing
 * (the informer's start enqueues every Nova anyway); every later one — after a 410, after a leg came back — wakes what
 * its items map to, since events in the gap are lost. Other failures reconnect with a backoff (1 s doubling to 30 s),
 * logged at debug; a 403 is logged once at warn, because it is the Role lacking list/watch and retrying will not fix
 * it. A 404 on the list or the watch is a CRD that is not installed (external-secrets, mariadb-operator, Gateway API):
 * the leg is off, said once at info, and tried again every 5 minutes; the other legs are unaffected.
 *
 * Every event may enqueue a Nova that is already queued: the work queue collapses duplicates, and a pass that changes
 * nothing writes nothing, so Regent's own writes to its children settle instead of looping.
 */
import { CoreV1Api, CustomObjectsApi, Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import { apiCodeOf } from './kube-api-error.js';
import { clusterSecretStoreLeg, mariaDBLeg, ownedLeg, secretLeg, secretStoreLeg, type NovaSnapshot, type WatchedObject } from './watch-legs.js';

/**
 * One watched resource and what its events wake. `S` is the snapshot its wake function maps an event through: the
 * Novas (NovaSnapshot, the default), or another controller's cache (the NovaCompute pools' legs, ./compute/watches.ts).
 */
export interface WatchLeg<S = NovaSnapshot> {
  /** `<plural>[.<group>]`, as RBAC names it. */
  readonly resource: string;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  /** The namespace watched; undefined: cluster-wide (a cluster-scoped kind). */
  readonly namespace: string | undefined;
  readonly wakes: (object: WatchedObject, snapshot: S) => string[];
  /** Lists and watches only the objects this selector matches (a target cluster's: the uid label); undefined: all. */
  readonly labelSelector?: string;
}

export const leg = <S = NovaSnapshot>(group: string, version: string, plural: string, namespace: string | undefined, wakes: WatchLeg<S>['wakes'], labelSelector?: string): WatchLeg<S> => ({
  resource: group === '' ? plural : `${plural}.${group}`,
  group,
  version,
  plural,
  namespace,
  wakes,
  ...(labelSelector === undefined ? {} : { labelSelector }),
});

/** The legs registered for an install in `namespace`; the ClusterSecretStore leg only when `clusterScoped`. */
export const novaWatchLegs = (namespace: string, clusterScoped: boolean): WatchLeg[] => [
  leg('apps', 'v1', 'deployments', namespace, ownedLeg),
  leg('', 'v1', 'services', namespace, ownedLeg),
  leg('', 'v1', 'configmaps', namespace, ownedLeg),
  leg('', 'v1', 'secrets', namespace, secretLeg),
  leg('policy', 'v1', 'poddisruptionbudgets', namespace, ownedLeg),
  leg('autoscaling', 'v2', 'horizontalpodautoscalers', namespace, ownedLeg),
  leg('networking.k8s.io', 'v1', 'networkpolicies', namespace, ownedLeg),
  leg('batch', 'v1', 'jobs', namespace, ownedLeg),
  leg('batch', 'v1', 'cronjobs', namespace, ownedLeg),
  leg('gateway.networking.k8s.io', 'v1', 'httproutes', namespace, ownedLeg),
  leg('k8s.mariadb.com', 'v1alpha1', 'mariadbs', namespace, mariaDBLeg),
  leg('external-secrets.io', 'v1beta1', 'secretstores', namespace, secretStoreLeg),
  ...(clusterScoped ? [leg('external-secrets.io', 'v1beta1', 'clustersecretstores', undefined, clusterSecretStoreLeg)] : []),
];

/** The API path of a leg's collection. */
export const legPath = (l: Pick<WatchLeg, 'group' | 'version' | 'plural' | 'namespace'>): string =>
  `${l.group === '' ? `/api/${l.version}` : `/apis/${l.group}/${l.version}`}${l.namespace === undefined ? '' : `/namespaces/${l.namespace}`}/${l.plural}`;

export interface WatchTiming {
  /** A leg whose CRD is not installed is tried again after this long (the spec's 5 minutes). */
  notInstalledRetryMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** The server ends each watch after this long; it is resumed from the last version. */
  watchTimeoutSeconds: number;
}

const DEFAULT_TIMING: WatchTiming = { notInstalledRetryMs: 5 * 60_000, backoffInitialMs: 1_000, backoffMaxMs: 30_000, watchTimeoutSeconds: 300 };

/** What runs a set of legs (startLegWatches): the cluster they watch, the Novas (or pools) they map to, where keys go. */
export interface LegWatchOptions<S = NovaSnapshot> {
  readonly kubeConfig: KubeConfig;
  /** The cluster watched, for the logs (undefined: the management cluster, with Regent's own Role). */
  readonly cluster?: string;
  /** The Novas the legs map to (for the pools' legs: the NovaComputes): the controller's informer cache, read at each event (no API call). */
  readonly novas: () => S;
  readonly enqueue: (key: string) => void;
  readonly logger: Logger;
  readonly timing?: Partial<WatchTiming>;
  /** The kind whose controller the legs wake, in the info and warn logs: 'Nova' unless said (the pools': 'NovaCompute'). */
  readonly controller?: string;
}

export interface NovaWatchOptions extends LegWatchOptions {
  /** The install namespace: every namespaced leg watches it alone. */
  readonly namespace: string;
  /** Registers the ClusterSecretStore leg (a cluster-scoped install); false under --namespace. */
  readonly clusterScoped: boolean;
}

export interface NovaWatches {
  /** The resources watched (`<plural>[.<group>]`). */
  readonly resources: readonly string[];
  /**
   * Whether every leg is listed and watching now (a leg whose resource is not served counts: nothing of it can
   * change); false before the first lists and while a leg fails (a 403, a cluster that does not answer).
   */
  live(): boolean;
  /** Ends every watch; resolves when every leg's loop has returned. */
  stop(): Promise<void>;
}

type Outcome = { kind: 'ended'; delivered: boolean } | { kind: 'gone' } | { kind: 'failed'; code: number | undefined; error: unknown } | { kind: 'stopped' };

/** The HTTP status of a failed list (the client's ApiException) or watch (its Error's statusCode). */
const statusOf = (error: unknown): number | undefined => apiCodeOf(error) ?? ((error as { statusCode?: unknown } | undefined)?.statusCode as number | undefined);

interface ListResult {
  items: WatchedObject[];
  resourceVersion: string | undefined;
}

/** One leg's list-then-watch loop. */
class LegWatch<S> {
  private version: string | undefined;
  /** The first list wakes nothing; later ones (a relist) wake what they list. */
  private listedOnce = false;
  private installed = true;
  private forbiddenSaid = false;
  private failures = 0;
  private interrupt: (() => void) | undefined;
  private stopped = false;
  readonly done: Promise<void>;

  constructor(
    private readonly leg: WatchLeg<S>,
    private readonly options: LegWatchOptions<S>,
    private readonly timing: WatchTiming,
    private readonly list: () => Promise<ListResult>,
  ) {
    this.done = this.run();
  }

  stop(): void {
    this.stopped = true;
    this.interrupt?.();
  }

  /** Listed and watching (a version to resume from), or off because its resource is not served. */
  get live(): boolean {
    return !this.stopped && (this.version !== undefined || !this.installed);
  }

  private get path(): string {
    return legPath(this.leg);
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      if (this.version === undefined) {
        let listed: ListResult;
        try {
          listed = await this.list();
        } catch (error) {
          await this.failed(statusOf(error), error, 'list');
          continue;
        }
        if (this.stopped) return;
        this.listedUp(listed);
      }
      const outcome = await this.watchOnce();
      if (outcome.kind === 'stopped') return;
      if (outcome.kind === 'gone') {
        this.options.logger.debug('a Nova watch leg is too old to resume (410 Gone): relisting', { resource: this.leg.resource, resourceVersion: this.version });
        this.version = undefined;
      } else if (outcome.kind === 'failed') {
        await this.failed(outcome.code, outcome.error, 'watch');
      } else if (outcome.delivered) {
        this.failures = 0;
      } else {
        // a stream that ended without an event: resume, but never in a tight loop against a server that hangs up at once
        await this.sleep(this.timing.backoffInitialMs);
      }
    }
  }

  private listedUp(listed: ListResult): void {
    if (!this.installed) {
      this.installed = true;
      this.options.logger.info('a Nova watch leg is on again: its resource is served now', { resource: this.leg.resource });
    }
    this.failures = 0;
    this.version = listed.resourceVersion;
    const relist = this.listedOnce;
    this.listedOnce = true;
    if (!relist) return;
    const keys = new Set<string>();
    const novas = this.options.novas();
    for (const item of listed.items) for (const key of this.leg.wakes(item, novas)) keys.add(key);
    if (keys.size > 0) this.options.logger.debug('a Nova watch leg relisted: waking what it lists', { resource: this.leg.resource, novas: [...keys] });
    for (const key of keys) this.options.enqueue(key);
  }

  private async failed(code: number | undefined, error: unknown, during: 'list' | 'watch'): Promise<void> {
    this.version = undefined;
    if (code === 404) {
      if (this.installed) {
        this.installed = false;
        this.options.logger.info(`the ${this.leg.resource} watch of the ${this.options.controller ?? 'Nova'} controller is off: the resource is not served (its CRD is not installed); tried again every ${Math.round(this.timing.notInstalledRetryMs / 1000)} s`, {
          resource: this.leg.resource,
        });
      } else this.options.logger.debug('a Nova watch leg is still not served', { resource: this.leg.resource });
      await this.sleep(this.timing.notInstalledRetryMs);
      return;
    }
    this.failures += 1;
    const delay = Math.min(this.timing.backoffMaxMs, this.timing.backoffInitialMs * 2 ** Math.min(this.failures - 1, 16));
    if (code === 403 && !this.forbiddenSaid) {
      this.forbiddenSaid = true;
      const who = this.options.cluster === undefined ? 'its Role needs' : `the identity of the target cluster ${this.options.cluster}'s kubeconfig needs`;
      this.options.logger.warn(`the ${this.options.controller ?? 'Nova'} controller may not ${during === 'list' ? 'list' : 'watch'} ${this.leg.resource} in ${this.leg.namespace ?? 'the cluster'}${this.options.cluster === undefined ? '' : ` on the target cluster ${this.options.cluster}`} (403): ${who} list and watch on it; retrying`, { resource: this.leg.resource, ...this.clusterMeta() });
    } else {
      this.options.logger.debug(`a Nova watch leg's ${during} failed: reconnecting after a backoff`, { resource: this.leg.resource, status: code, delayMs: delay, ...describeError(error) });
    }
    await this.sleep(delay);
  }

  private clusterMeta(): { cluster?: string } {
    return this.options.cluster === undefined ? {} : { cluster: this.options.cluster };
  }

  private watchOnce(): Promise<Outcome> {
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      let delivered = false;
      let controller: AbortController | undefined;
      const settle = (outcome: Outcome): void => {
        if (settled) return;
        settled = true;
        this.interrupt = undefined;
        controller?.abort();
        resolve(outcome);
      };
      this.interrupt = () => settle({ kind: 'stopped' });
      const onEvent = (type: string, object: unknown): void => {
        if (settled) return;
        const body = (object ?? {}) as { metadata?: { resourceVersion?: string }; code?: number; message?: string };
        const version = body.metadata?.resourceVersion;
        if (type === 'BOOKMARK') {
          if (version) this.version = version;
          return;
        }
        if (type === 'ERROR') {
          if (body.code === 410) settle({ kind: 'gone' });
          else settle({ kind: 'failed', code: body.code, error: new Error(`the watch stream reported ${body.code ?? 'an error'}${body.message ? `: ${body.message}` : ''}`) });
          return;
        }
        if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
        this.deliver(type, object as WatchedObject);
        if (version) this.version = version;
        delivered = true;
      };
      const onDone = (error: unknown): void => {
        if (this.stopped) return settle({ kind: 'stopped' });
        if (error === null || error === undefined) return settle({ kind: 'ended', delivered });
        const code = statusOf(error);
        settle(code === 410 ? { kind: 'gone' } : { kind: 'failed', code, error });
      };
      if (this.stopped) return settle({ kind: 'stopped' });
      new Watch(this.options.kubeConfig)
        .watch(this.path, { resourceVersion: this.version, allowWatchBookmarks: true, timeoutSeconds: this.timing.watchTimeoutSeconds, ...(this.leg.labelSelector === undefined ? {} : { labelSelector: this.leg.labelSelector }) }, onEvent, onDone)
        .then(
          (c) => {
            controller = c;
            if (settled) c.abort();
          },
          onDone,
        );
    });
  }

  private deliver(type: string, object: WatchedObject): void {
    let keys: string[];
    try {
      keys = this.leg.wakes(object, this.options.novas());
    } catch (error) {
      this.options.logger.warn('a Nova watch event could not be mapped to Novas: dropped', { resource: this.leg.resource, ...describeError(error) });
      return;
    }
    if (keys.length === 0) return;
    this.options.logger.debug('a watch event wakes Novas', { resource: this.leg.resource, type, name: object.metadata?.name, novas: keys, ...this.clusterMeta() });
    for (const key of keys) this.options.enqueue(key);
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.interrupt = undefined;
        resolve();
      }, ms);
      this.interrupt = () => {
        clearTimeout(timer);
        this.interrupt = undefined;
        resolve();
      };
    });
  }
}

const listed = (list: { items?: unknown[]; metadata?: { resourceVersion?: string } }): ListResult => ({ items: (list.items ?? []) as WatchedObject[], resourceVersion: list.metadata?.resourceVersion });

/**
 * The legs' LISTs: the core kinds through CoreV1Api, every other group through CustomObjectsApi (raw JSON). The clients
 * live in fields, as in the other Nova adapters, so the RBAC tables' scan of `this.<client>.<call>(` sees every call.
 */
class LegLists {
  private readonly core: CoreV1Api;
  private readonly custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async list(l: Pick<WatchLeg, 'group' | 'version' | 'plural' | 'namespace' | 'labelSelector'>): Promise<ListResult> {
    const selector = l.labelSelector === undefined ? {} : { labelSelector: l.labelSelector };
    if (l.group === '') {
      const namespace = l.namespace;
      if (namespace === undefined) throw new Error(`no cluster-wide list of the core resource ${l.plural}`);
      switch (l.plural) {
        case 'services':
          return listed(await this.core.listNamespacedService({ namespace, ...selector }));
        case 'configmaps':
          return listed(await this.core.listNamespacedConfigMap({ namespace, ...selector }));
        case 'secrets':
          return listed(await this.core.listNamespacedSecret({ namespace, ...selector }));
        default:
          throw new Error(`no list of the core resource ${l.plural}`);
      }
    }
    const coordinates = { group: l.group, version: l.version, plural: l.plural, ...selector };
    return listed((l.namespace === undefined ? await this.custom.listClusterCustomObject(coordinates) : await this.custom.listNamespacedCustomObject({ ...coordinates, namespace: l.namespace })) as { items?: unknown[]; metadata?: { resourceVersion?: string } });
  }
}

/**
 * Starts one list-then-watch loop per leg on `options.kubeConfig`; `stop()` ends them all. The machinery of both the
 * management cluster's watches (startNovaWatches) and a target cluster's (./target-watches.ts).
 */
export const startLegWatches = <S = NovaSnapshot>(legs: readonly WatchLeg<S>[], options: LegWatchOptions<S>): NovaWatches => {
  const timing = { ...DEFAULT_TIMING, ...options.timing };
  const lists = new LegLists(options.kubeConfig);
  const watches = legs.map((l) => new LegWatch(l, options, timing, () => lists.list(l)));
  return {
    resources: legs.map((l) => l.resource),
    live: () => watches.every((w) => w.live),
    async stop() {
      for (const w of watches) w.stop();
      await Promise.all(watches.map((w) => w.done));
    },
  };
};

/** Starts one watch per leg of the install; `stop()` ends them all. */
export const startNovaWatches = (options: NovaWatchOptions): NovaWatches => {
  const legs = novaWatchLegs(options.namespace, options.clusterScoped);
  options.logger.debug('the Nova controller watches its children', { namespace: options.namespace, resources: legs.map((l) => l.resource) });
  return startLegWatches(legs, options);
};
