/**
 * What the pool's Kubernetes adapters share: the typed error of a failed call and how a pool's object says whose it is.
 *
 * On the management cluster every object of a pool carries a controller owner reference to its NovaCompute, so the
 * garbage collector reclaims it with the CR. On a target cluster the owner's uid does not exist, and a reference to it
 * would have the garbage collector delete the object the moment it appeared (src/nova/ownership.ts): there the object
 * carries no owner reference, only the POOL_LABEL every pool object carries anyway, which the remote-children sweep
 * selects by. The Nova's `regent.dev/nova-uid` label is NOT put on: it names a Nova's uid, and the Nova's target
 * watches would read a NovaCompute's uid there as a Nova that does not exist.
 */
import { describeApiError } from '../../kube-api-error.js';
import { ComputeClusterError, type PoolOwner } from '../port.js';
import type { Ownership } from '../../ownership.js';

export const NOVA_COMPUTE_API_VERSION = 'regent.dev/v1alpha1';
export const NOVA_COMPUTE_KIND = 'NovaCompute';

/** A failed client call as ComputeClusterError: our words, the API server's status, reason and message. */
export const clusterError = (error: unknown, what: string): ComputeClusterError => {
  const { message, code } = describeApiError(error, what);
  return new ComputeClusterError(message, code);
};

export const poolOwnerReference = (owner: PoolOwner) => ({ apiVersion: NOVA_COMPUTE_API_VERSION, kind: NOVA_COMPUTE_KIND, name: owner.name, uid: owner.uid, controller: true, blockOwnerDeletion: true });

interface WithOwners {
  metadata?: { ownerReferences?: unknown } | undefined;
}

/** The body as written: unchanged on the management cluster, without owner references on a target. */
export const withPoolOwnership = <T extends WithOwners>(body: T, ownership: Ownership | undefined): T => {
  if (ownership?.remote !== true) return body;
  const { ownerReferences: _dropped, ...metadata } = body.metadata ?? {};
  return { ...body, metadata };
};

/** `k=v,k2=v2` with the keys sorted (the same selector string for the same labels), or undefined for none. */
export const labelSelectorOf = (labels: Readonly<Record<string, string>>): string | undefined => {
  const pairs = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return pairs.length === 0 ? undefined : pairs.map(([k, v]) => `${k}=${v}`).join(',');
};
