/**
 * The watches of a Nova's children on a target cluster (nova-operator.md, "Watches and indexes": "A CR that names a
 * target cluster has the same children watched once more on the clusters it can project onto, by ownership label
 * rather than by owner reference, because an owner reference does not cross a cluster boundary"; issue 27).
 *
 * One watch set per target cluster (name and server) and namespace, started by the first Nova pass placed there
 * (src/controllers/nova/reconcile.ts through deps.watchTarget) and kept until the process stops leading (stopAll).
 * The set is the owned legs of ./watches.ts on the target's own kubeconfig — Deployments, Services, ConfigMaps,
 * Secrets, PodDisruptionBudgets, HPAs, NetworkPolicies, Jobs, CronJobs, HTTPRoutes — each listed and watched with
 * the label selector `regent.dev/nova-uid` (what ./ownership.ts puts on everything projected there), and each event
 * mapped by ./watch-legs.ts targetLeg to the Nova of that uid. No Secret-index, MariaDB-cluster or SecretStore leg
 * runs on a target: those are not children (the passes still read them, as before).
 *
 * The target is reached with its kubeconfig's credentials; no grant of the management cluster is used. A leg the
 * target does not serve (a CRD not installed there) is off, as on the management cluster. Caveat: as with the
 * target's ports (src/app/nova-target-ports.ts), a kubeconfig rotated under the same name and server keeps the set
 * built from the old one until Regent stops leading.
 */
import type { Logger } from '../log/logger.js';
import { NOVA_UID_LABEL } from './ownership.js';
import type { TargetCluster } from './target-clusters.js';
import { targetLeg, type NovaSnapshot } from './watch-legs.js';
import { leg, startLegWatches, type NovaWatches, type WatchLeg, type WatchTiming } from './watches.js';

/** The selector of every Nova's children on a target: the uid label exists. */
export const TARGET_CHILDREN_SELECTOR = NOVA_UID_LABEL;

/** The owned legs on the target cluster `cluster`, in `namespace`, by the uid label. */
export const targetWatchLegs = (cluster: string, namespace: string): WatchLeg[] => {
  const wakes = targetLeg(cluster);
  const owned = (group: string, version: string, plural: string): WatchLeg => leg(group, version, plural, namespace, wakes, TARGET_CHILDREN_SELECTOR);
  return [
    owned('apps', 'v1', 'deployments'),
    owned('', 'v1', 'services'),
    owned('', 'v1', 'configmaps'),
    owned('', 'v1', 'secrets'),
    owned('policy', 'v1', 'poddisruptionbudgets'),
    owned('autoscaling', 'v2', 'horizontalpodautoscalers'),
    owned('networking.k8s.io', 'v1', 'networkpolicies'),
    owned('batch', 'v1', 'jobs'),
    owned('batch', 'v1', 'cronjobs'),
    owned('gateway.networking.k8s.io', 'v1', 'httproutes'),
  ];
};

export interface TargetWatchesOptions {
  /** The Novas the legs map to: the controller's informer cache. */
  readonly novas: () => NovaSnapshot;
  readonly enqueue: (key: string) => void;
  readonly logger: Logger;
  readonly timing?: Partial<WatchTiming>;
}

/** The registry of target watch sets. */
export class TargetWatches {
  private readonly sets = new Map<string, NovaWatches>();
  private stopped = false;

  constructor(private readonly options: TargetWatchesOptions) {}

  /**
   * Starts the watch set of `cluster` in `namespace` unless it runs already (one per name, server and namespace).
   * True when it is live: every leg listed and watching (false on its first call, and while the target fails).
   */
  ensure(cluster: TargetCluster, namespace: string): boolean {
    if (this.stopped) return false;
    const key = `${cluster.name}\n${cluster.server}\n${namespace}`;
    let set = this.sets.get(key);
    if (!set) {
      const legs = targetWatchLegs(cluster.name, namespace);
      this.options.logger.info('the Nova controller watches the children on a target cluster by the uid label', { cluster: cluster.name, server: cluster.server, namespace, resources: legs.map((l) => l.resource) });
      set = startLegWatches(legs, { kubeConfig: cluster.kubeConfig, cluster: cluster.name, novas: this.options.novas, enqueue: this.options.enqueue, logger: this.options.logger, ...(this.options.timing ? { timing: this.options.timing } : {}) });
      this.sets.set(key, set);
    }
    return set.live();
  }

  /** How many watch sets run. */
  get size(): number {
    return this.sets.size;
  }

  /** Ends every set; resolves when every leg's loop has returned. Later `ensure` calls start nothing. */
  async stopAll(): Promise<void> {
    this.stopped = true;
    const sets = [...this.sets.values()];
    this.sets.clear();
    await Promise.all(sets.map((s) => s.stop()));
  }
}

export const startTargetWatches = (options: TargetWatchesOptions): TargetWatches => new TargetWatches(options);
