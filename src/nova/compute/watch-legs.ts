/**
 * What a change of a Kubernetes object means to the NovaCompute controller (nova-operator.md, "Watches"; issue 28): for
 * each leg, the pool keys (`<namespace>/<name>`) the event wakes. Pure: no I/O, no clock; the shell that streams the
 * events and enqueues the keys is ./watches.ts, on the Nova's leg machinery (../watches.ts startLegWatches).
 *
 * - poolOwnedLeg: what the pool owns, its DaemonSet `{pool}-nova-compute` and its `{pool}-config-<hash>` ConfigMaps
 *   (the spec's Owns(DaemonSet) and Owns(ConfigMap)): the pool the POOL_LABEL names, and the pool a `kind: NovaCompute`
 *   owner reference of group regent.dev names by uid, in the object's namespace.
 * - contractSecretLeg: the contract Secret `<nova>-compute-config` wakes every pool of its namespace whose
 *   spec.novaRef.name is `<nova>`.
 * - poolWatchLegs(namespace): the legs, in the install namespace: apps/v1 daemonsets and v1 configmaps listed and
 *   watched by the existence of POOL_LABEL (no other object of the namespace is streamed), v1 secrets unselected (the
 *   contract Secret is the Nova's, labelled for the Nova, not for a pool).
 *
 * The CR-level wakes (its spec, its Nova's status, the rival pools, the embedded store's Nodes) are the wake graph's
 * (src/controllers/nova-compute/wiring.ts), not legs here. Every answer is deduplicated and sorted, and names only pools
 * in the snapshot handed in: an object labelled for a pool that is gone wakes nothing.
 */
import type { NovaCompute } from '../../resources/nova-compute.js';
import { computeConfigSecretName } from '../config/compute.js';
import { NOVA_GROUP, type WatchedObject } from '../watch-legs.js';
import { leg, type WatchLeg } from '../watches.js';
import { POOL_LABEL } from './port.js';

/** The pools a leg can wake: the NovaCompute controller's cached snapshot. */
export type PoolSnapshot = ReadonlyArray<Pick<NovaCompute, 'metadata' | 'spec'>>;

const keyOfPool = (pool: Pick<NovaCompute, 'metadata'>): string => `${pool.metadata.namespace}/${pool.metadata.name}`;
const unique = (keys: Iterable<string>): string[] => [...new Set(keys)].sort();
const groupOf = (apiVersion: string | undefined): string => {
  const slash = (apiVersion ?? '').indexOf('/');
  return slash < 0 ? '' : (apiVersion ?? '').slice(0, slash);
};

/**
 * The pool's own objects (its DaemonSet, its ConfigMaps): the pool POOL_LABEL names, and the pool a NovaCompute owner
 * reference (group regent.dev, a known pool's uid) names, in the object's namespace (an owner reference cannot cross one).
 */
export const poolOwnedLeg = (object: WatchedObject, pools: PoolSnapshot): string[] => {
  const namespace = object.metadata?.namespace;
  if (namespace === undefined) return [];
  const local = pools.filter((p) => p.metadata.namespace === namespace);
  const label = object.metadata?.labels?.[POOL_LABEL];
  const byLabel = label === undefined || label === '' ? [] : local.filter((p) => p.metadata.name === label);
  const owners = (object.metadata?.ownerReferences ?? []).filter((ref) => ref.kind === 'NovaCompute' && groupOf(ref.apiVersion) === NOVA_GROUP);
  const byOwner = local.filter((p) => p.metadata.uid !== undefined && owners.some((ref) => ref.uid === p.metadata.uid));
  return unique([...byLabel, ...byOwner].map(keyOfPool));
};

/** A Secret: when it is `<nova>-compute-config`, the pools of its namespace that join `<nova>`; any other Secret, none. */
export const contractSecretLeg = (secret: WatchedObject, pools: PoolSnapshot): string[] => {
  const namespace = secret.metadata?.namespace;
  const name = secret.metadata?.name;
  if (namespace === undefined || name === undefined) return [];
  return unique(pools.filter((p) => p.metadata.namespace === namespace && computeConfigSecretName(p.spec.novaRef.name) === name).map(keyOfPool));
};

/** The selector of the pool's own objects: POOL_LABEL exists. */
export const POOL_OBJECTS_SELECTOR = POOL_LABEL;

/** The pools' legs in the install namespace `namespace`. */
export const poolWatchLegs = (namespace: string): WatchLeg<PoolSnapshot>[] => [
  leg<PoolSnapshot>('apps', 'v1', 'daemonsets', namespace, poolOwnedLeg, POOL_OBJECTS_SELECTOR),
  leg<PoolSnapshot>('', 'v1', 'configmaps', namespace, poolOwnedLeg, POOL_OBJECTS_SELECTOR),
  leg<PoolSnapshot>('', 'v1', 'secrets', namespace, contractSecretLeg),
];
