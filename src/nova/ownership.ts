/**
 * How a Nova's children say whose they are (nova-operator.md, "Watches and indexes", last paragraph; "Rotation and
 * deletion", second paragraph; issue 27).
 *
 * On the management cluster a child carries a controller owner reference to its Nova, and the garbage collector
 * reclaims it when the Nova goes. On a target cluster that reference would be fatal: the owner's uid does not exist
 * there, so the garbage collector would delete the child the moment it appeared. A child projected onto a target
 * therefore carries NO owner reference and instead the label `regent.dev/nova-uid: <uid>`, next to the
 * `regent.dev/nova` and `app.kubernetes.io/managed-by: regent` labels it always carries. That label is what the
 * target's watches select by and what the remote-children finalizer sweeps by.
 *
 * The Kubernetes adapters take `remote` in their options and pass every body they write through `withOwnership`; with
 * `remote` unset the body is returned as it is, so the management cluster's objects stay byte-identical.
 */
import type { SecretPutOptions, SecretStore } from '../kube/secrets.js';

/** The ownership label of a child on a target cluster: the Nova's uid. */
export const NOVA_UID_LABEL = 'regent.dev/nova-uid';

/** The selector of everything one Nova projected onto a target cluster. */
export const novaUidSelector = (uid: string): string => `${NOVA_UID_LABEL}=${uid}`;

/** The options every Kubernetes adapter of a Nova's children shares. */
export interface Ownership {
  /** The adapter writes onto a target cluster: no owner references, the uid label on every object. */
  readonly remote?: boolean;
}

interface WithMetadata {
  metadata?: { labels?: Record<string, string> | undefined; ownerReferences?: unknown } | undefined;
}

/**
 * The body as it is written: unchanged on the management cluster; on a target, without owner references and
 * labelled with the Nova's uid (a body without a uid to label with is written as rendered).
 */
export const withOwnership = <T extends WithMetadata>(body: T, uid: string | undefined, ownership: Ownership | undefined): T => {
  if (!ownership?.remote || !uid) return body;
  const { ownerReferences: _dropped, ...metadata } = body.metadata ?? {};
  return { ...body, metadata: { ...metadata, labels: { ...(metadata.labels ?? {}), [NOVA_UID_LABEL]: uid } } };
};

/**
 * A SecretStore on a target cluster: every Secret written for a Nova (the put names its uid as ownerUid) carries
 * the uid label too, so the sweep finds the derived DSN, transport-URL and contract Secrets.
 */
export const remoteSecretStore = (store: SecretStore): SecretStore => ({
  get: (namespace, name) => store.get(namespace, name),
  put: (namespace, name, data, options: SecretPutOptions = {}) =>
    store.put(namespace, name, data, options.ownerUid ? { ...options, labels: { ...(options.labels ?? {}), [NOVA_UID_LABEL]: options.ownerUid } } : options),
  delete: (namespace, name) => store.delete(namespace, name),
  list: (namespace, labelSelector) => store.list(namespace, labelSelector),
});
