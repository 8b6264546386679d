/**
 * The NovaCompute controller's watches on Kubernetes (nova-operator.md, "Watches"; issue 28): a pool is woken when its
 * DaemonSet `{pool}-nova-compute` or one of its ConfigMaps changes (the spec's Owns), and when its Nova's contract
 * Secret `<nova>-compute-config` changes, instead of waiting for its poll. The legs (./watch-legs.ts poolWatchLegs, in
 * the install namespace) run on the Nova's machinery (../watches.ts startLegWatches: list, then watch from its version,
 * resume, relist after a 410, a backoff, a leg off while its resource is not served), each event's pool keys enqueued.
 *
 * Only the management cluster's legs: a pool of a Nova on a target cluster is not served yet (TargetClusterNotSupported).
 * The CR-level wakes (its spec, its Nova's status, the rival pools, the embedded store's Nodes) are the wake graph's
 * (src/controllers/nova-compute/wiring.ts); Kubernetes Nodes wake no pool here (the spec's Node leg is target-only).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from '../../log/logger.js';
import { startLegWatches, type NovaWatches, type WatchTiming } from '../watches.js';
import { poolWatchLegs, type PoolSnapshot } from './watch-legs.js';

export interface PoolWatchOptions {
  readonly kubeConfig: KubeConfig;
  /** The install namespace: every leg watches it alone. */
  readonly namespace: string;
  /** The pools the legs map to: the controller's informer cache, read at each event (no API call). */
  readonly pools: () => PoolSnapshot;
  readonly enqueue: (key: string) => void;
  readonly logger: Logger;
  readonly timing?: Partial<WatchTiming>;
}

/** Starts one watch per pool leg of the install; `stop()` ends them all. */
export const startPoolWatches = (options: PoolWatchOptions): NovaWatches => {
  const legs = poolWatchLegs(options.namespace);
  options.logger.debug('the NovaCompute controller watches its DaemonSets, ConfigMaps and contract Secrets', { namespace: options.namespace, resources: legs.map((l) => l.resource) });
  return startLegWatches(legs, {
    kubeConfig: options.kubeConfig,
    novas: options.pools,
    enqueue: options.enqueue,
    logger: options.logger,
    controller: 'NovaCompute',
    ...(options.timing ? { timing: options.timing } : {}),
  });
};
