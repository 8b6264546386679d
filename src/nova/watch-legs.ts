/**
 * What a change of a Kubernetes object means to the Nova controller (nova-operator.md, "Watches and indexes"): for each
 * watched leg, the Nova keys (`<namespace>/<name>`) the event wakes. Pure: no I/O, no clock; the imperative shell that
 * streams the events and enqueues the keys is ./watches.ts.
 *
 * - ownedLeg: the owned set (Deployment, Service, ConfigMap, Secret, PodDisruptionBudget, HPA, NetworkPolicy, Job,
 *   CronJob, HTTPRoute) wakes the Nova named by a `kind: Nova` owner reference of group regent.dev whose uid is a known
 *   Nova's, and the Nova named by the label `regent.dev/nova` in the object's namespace. The label is what reaches what
 *   Regent labels but does not own: the derived Secrets (the DSNs, the transport URL, the compute contract: written
 *   through the secret store, which keeps the owner as the label `regent.dev/owner-uid`, never as an owner reference)
 *   and the archive CronJob's runs (owned by the CronJob, labelled from its jobTemplate).
 * - secretLeg: a Secret wakes every Nova whose Secret index (secretIndex) holds its name in its namespace, plus the
 *   Novas that own it (ownedLeg, and the secret store's owner-uid label).
 * - mariaDBLeg: one leg for both clusterRefs, so a Nova whose two blocks name the same cluster is woken once.
 * - secretStoreLeg / clusterSecretStoreLeg: the store a Nova selects (./secret-store.ts selectedSecretStore: unset is
 *   the default ClusterSecretStore openbao-cluster-store, a ref without a kind is a SecretStore).
 * - targetLeg(cluster): a Nova's children on a target cluster (./target-watches.ts), which carry no owner reference but
 *   the label `regent.dev/nova-uid` (./ownership.ts): the Nova of that uid, only while its spec.targetClusterRef names
 *   that cluster.
 * - novaSpecChanged: the filter of the CR's own watch (a status-only write wakes nothing).
 *
 * Every answer is deduplicated and sorted, and names only Novas in the snapshot handed in: an object labelled for a
 * Nova that is gone wakes nothing.
 */
import type { Nova, NovaSpec } from '../resources/nova.js';
import { OWNER_UID_LABEL } from '../kube/secrets.js';
import { NOVA_UID_LABEL } from './ownership.js';
import { selectedSecretStore } from './secret-store.js';

/** The Nova CR's API group: an owner reference to a Nova names `regent.dev/<version>`. */
export const NOVA_GROUP = 'regent.dev';
/** The label on what Regent writes for a Nova (owned or not): the Nova's name. */
export const NOVA_NAME_LABEL = 'regent.dev/nova';

/** What a watch event carries that the legs read: metadata only (a Secret's data is never looked at). */
export interface WatchedObject {
  metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string> | undefined;
    ownerReferences?: ReadonlyArray<{ apiVersion?: string; kind?: string; name?: string; uid?: string }> | undefined;
  };
}

/** The Novas a leg can wake: the controller's cached snapshot. */
export type NovaSnapshot = ReadonlyArray<Pick<Nova, 'metadata' | 'spec'>>;

const keyOfNova = (nova: Pick<Nova, 'metadata'>): string => `${nova.metadata.namespace}/${nova.metadata.name}`;
const unique = (keys: Iterable<string>): string[] => [...new Set(keys)].sort();
const namespaceOf = (object: WatchedObject): string | undefined => object.metadata?.namespace;
const groupOf = (apiVersion: string | undefined): string => {
  const slash = (apiVersion ?? '').indexOf('/');
  return slash < 0 ? '' : (apiVersion ?? '').slice(0, slash);
};

/**
 * The owned set: the Nova an owner reference (`kind: Nova`, group regent.dev, a known Nova's uid) or the
 * `regent.dev/nova` label names, in the object's namespace. A Nova's owner reference cannot cross a namespace, so the
 * uid is matched in the object's namespace only.
 */
export const ownedLeg = (object: WatchedObject, novas: NovaSnapshot): string[] => {
  const namespace = namespaceOf(object);
  if (namespace === undefined) return [];
  const local = novas.filter((n) => n.metadata.namespace === namespace);
  const owners = (object.metadata?.ownerReferences ?? []).filter((ref) => ref.kind === 'Nova' && groupOf(ref.apiVersion) === NOVA_GROUP);
  const byOwner = local.filter((n) => owners.some((ref) => ref.uid === n.metadata.uid));
  const label = object.metadata?.labels?.[NOVA_NAME_LABEL];
  const byLabel = label === undefined ? [] : local.filter((n) => n.metadata.name === label);
  return unique([...byOwner, ...byLabel].map(keyOfNova));
};

/** A database block's TLS Secrets, only while its tls is enabled (a disabled block's refs are not read: not indexed). */
const tlsSecrets = (block: NovaSpec['database']['api']): string[] =>
  block.tls?.enabled === true ? [block.tls.caSecretRef?.name, block.tls.clientCertSecretRef?.name].filter((n): n is string => n !== undefined) : [];

/**
 * The spec.secretRefs.name index of one Nova: the deduplicated union of every Secret name it references — both
 * database credentials, the service-user password, the metadata shared secret, each TLS-enabled database block's CA
 * bundle and client certificate, the brownfield spec.messaging.secretRef, the broker CA bundle while messaging.tls is
 * enabled, and spec.remoteCompute.transportURLSecretRef while that block is set.
 */
export const secretIndex = (nova: Pick<Nova, 'spec'>): string[] => {
  const { spec } = nova;
  const names = [
    spec.database.api.secretRef.name,
    spec.database.cell.secretRef.name,
    ...tlsSecrets(spec.database.api),
    ...tlsSecrets(spec.database.cell),
    spec.serviceUser.secretRef.name,
    spec.metadata?.sharedSecretRef.name,
    spec.messaging.secretRef?.name,
    spec.messaging.tls?.enabled === true ? spec.messaging.tls.caSecretRef?.name : undefined,
    spec.remoteCompute?.transportURLSecretRef.name,
  ];
  return unique(names.filter((n): n is string => n !== undefined));
};

/** A Secret: the Novas of its namespace whose index holds its name, and the Novas that own it. */
export const secretLeg = (secret: WatchedObject, novas: NovaSnapshot): string[] => {
  const namespace = namespaceOf(secret);
  const name = secret.metadata?.name;
  if (namespace === undefined || name === undefined) return [];
  const local = novas.filter((n) => n.metadata.namespace === namespace);
  const referencing = local.filter((n) => secretIndex(n).includes(name));
  // the secret store keeps a put's owner as a label (src/kube/secrets.ts), not as an owner reference
  const ownerUid = secret.metadata?.labels?.[OWNER_UID_LABEL];
  const ownedByLabel = ownerUid === undefined ? [] : local.filter((n) => n.metadata.uid === ownerUid);
  return unique([...referencing, ...ownedByLabel].map(keyOfNova).concat(ownedLeg(secret, novas)));
};

/** A MariaDB cluster: the Novas of its namespace either of whose blocks names it, each once. */
export const mariaDBLeg = (cluster: WatchedObject, novas: NovaSnapshot): string[] => {
  const namespace = namespaceOf(cluster);
  const name = cluster.metadata?.name;
  if (namespace === undefined || name === undefined) return [];
  return unique(
    novas
      .filter((n) => n.metadata.namespace === namespace && (n.spec.database.api.clusterRef.name === name || n.spec.database.cell.clusterRef.name === name))
      .map(keyOfNova),
  );
};

/** A namespaced SecretStore: the Novas of its namespace that select it (a ref without a kind is a SecretStore). */
export const secretStoreLeg = (store: WatchedObject, novas: NovaSnapshot): string[] => {
  const namespace = namespaceOf(store);
  const name = store.metadata?.name;
  if (namespace === undefined || name === undefined) return [];
  return unique(
    novas
      .filter((n) => n.metadata.namespace === namespace)
      .filter((n) => {
        const selected = selectedSecretStore(n.spec);
        return selected.kind === 'SecretStore' && selected.name === name;
      })
      .map(keyOfNova),
  );
};

/** A ClusterSecretStore: the Novas of every namespace that select it (an unset ref selects the default one). */
export const clusterSecretStoreLeg = (store: WatchedObject, novas: NovaSnapshot): string[] => {
  const name = store.metadata?.name;
  if (name === undefined) return [];
  return unique(
    novas
      .filter((n) => {
        const selected = selectedSecretStore(n.spec);
        return selected.kind === 'ClusterSecretStore' && selected.name === name;
      })
      .map(keyOfNova),
  );
};

/**
 * An owned object on the target cluster `cluster` (the owned set and the Secrets the target's store wrote, every one
 * labelled `regent.dev/nova-uid`): the Nova whose uid the label holds, if its spec.targetClusterRef names `cluster`.
 * An owner reference does not cross a cluster boundary, so none is read; nor the `regent.dev/nova` name label (a name
 * is not unique across namespaces, the uid is). A Nova that no longer names the cluster is not woken by what it left.
 */
export const targetLeg =
  (cluster: string) =>
  (object: WatchedObject, novas: NovaSnapshot): string[] => {
    const uid = object.metadata?.labels?.[NOVA_UID_LABEL];
    if (uid === undefined || uid === '') return [];
    return unique(novas.filter((n) => n.metadata.uid === uid && n.spec.targetClusterRef?.name === cluster).map(keyOfNova));
  };

type NovaMeta = { metadata: { generation?: number; deletionTimestamp?: string; finalizers?: readonly string[] } };

/**
 * The CR's own watch: a new spec generation, a deletion requested or finalizers changed. A status-only write (ours,
 * every pass) is none of these, so it does not re-wake the controller.
 */
export const novaSpecChanged = (before: NovaMeta, after: NovaMeta): boolean =>
  before.metadata.generation !== after.metadata.generation ||
  before.metadata.deletionTimestamp !== after.metadata.deletionTimestamp ||
  JSON.stringify(before.metadata.finalizers ?? []) !== JSON.stringify(after.metadata.finalizers ?? []);
