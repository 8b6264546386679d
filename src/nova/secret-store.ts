/**
 * The secret-store gate of the Secrets step (nova-operator.md, "Pipeline": "Gates on the selected secret store
 * (spec.secretStoreRef, default openbao-cluster-store)"; "Watches": "Both the cluster-scoped ClusterSecretStore and
 * the namespaced SecretStore a Nova can select … The ClusterSecretStore leg is not registered when the operator runs
 * with --namespace"). The credentials a Nova reads are materialized from that store (External Secrets, OpenBao);
 * a store that is not Ready means the Secrets the gates below it read may be stale or absent, so the step waits on
 * the store first and says so (SecretStoreNotReady) instead of blaming a credential.
 *
 * Two adapters:
 * - the embedded default: Regent's own secret store (the `secrets` table Regent reads every credential from) stands
 *   for whichever store the Nova selects, of either kind. It is the store, so it is Ready whenever Regent runs;
 * - Kubernetes: Regent serves Novas in its own namespace only (src/app/nova-runtime.ts, namespaceRefused), with
 *   namespaced RBAC — the spec's --namespace mode. A namespace-scoped install can neither read nor watch a
 *   cluster-scoped ClusterSecretStore, so selecting one (the default openbao-cluster-store is one) is
 *   ClusterSecretStoreUnsupported: Regent cannot tell whether the store serves, and will not pretend it does. A
 *   namespaced SecretStore is read in the Nova's namespace and gates on its Ready condition.
 */
import type { NovaSpec } from '../resources/nova.js';

export type SecretStoreKind = 'SecretStore' | 'ClusterSecretStore';

export interface SelectedSecretStore {
  name: string;
  kind: SecretStoreKind;
}

/** The store a Nova selects when spec.secretStoreRef is unset: the platform's OpenBao cluster store. */
export const DEFAULT_SECRET_STORE: SelectedSecretStore = { name: 'openbao-cluster-store', kind: 'ClusterSecretStore' };

/**
 * The store the Nova selects. An unset spec.secretStoreRef is the default cluster store; a ref without a kind is a
 * SecretStore, as External Secrets reads a storeRef without one.
 */
export const selectedSecretStore = (spec: NovaSpec): SelectedSecretStore =>
  spec.secretStoreRef ? { name: spec.secretStoreRef.name, kind: spec.secretStoreRef.kind ?? 'SecretStore' } : DEFAULT_SECRET_STORE;

export const describeStore = (store: SelectedSecretStore): string => `${store.kind} ${store.name}`;

export type SecretStoreVerdict =
  | { kind: 'ready'; message: string }
  | { kind: 'notReady'; message: string }
  | { kind: 'unsupported'; message: string };

export interface SecretStoreGate {
  check(namespace: string, store: SelectedSecretStore): Promise<SecretStoreVerdict>;
}

/** The embedded default: Regent's own secret store is the selected store, so it is ready. */
export const embeddedSecretStoreGate: SecretStoreGate = {
  check: async (_namespace, store) => ({
    kind: 'ready',
    message: `Regent's own secret store stands for the selected ${describeStore(store)}: the embedded default reads every credential from it`,
  }),
};

/** What Kubernetes reports of a namespaced External Secrets SecretStore (undefined: there is none). */
export interface ObservedSecretStore {
  conditions?: ReadonlyArray<{ type: string; status: string; reason?: string; message?: string }>;
}

/**
 * The Kubernetes gate, given a reader of a namespaced SecretStore (external-secrets.io): ClusterSecretStore is
 * unsupported in Regent's namespace-scoped install; a SecretStore gates on its Ready condition.
 */
export const namespacedSecretStoreGate = (read: (namespace: string, name: string) => Promise<ObservedSecretStore | undefined>): SecretStoreGate => ({
  async check(namespace, store) {
    if (store.kind === 'ClusterSecretStore') {
      return {
        kind: 'unsupported',
        message: `spec.secretStoreRef selects ${describeStore(store)}${store === DEFAULT_SECRET_STORE ? ' (the default)' : ''}, a cluster-scoped store: Regent serves Novas in its own namespace with namespaced RBAC, so it can neither read nor watch a ClusterSecretStore; select a SecretStore in namespace ${namespace}`,
      };
    }
    const observed = await read(namespace, store.name);
    if (!observed) return { kind: 'notReady', message: `waiting for ${describeStore(store)}: there is none in namespace ${namespace}` };
    const ready = observed.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'True') return { kind: 'ready', message: `${describeStore(store)} is Ready` };
    const why = ready ? `${ready.reason ?? 'not Ready'}${ready.message ? `: ${ready.message}` : ''}` : 'it reports no Ready condition yet';
    return { kind: 'notReady', message: `waiting for ${describeStore(store)} to be Ready: ${why}` };
  },
});
