/**
 * The Kubernetes reader of a namespaced External Secrets SecretStore (@kubernetes/client-node 1.4.0), for
 * `namespacedSecretStoreGate` (./secret-store.ts): one GET of `external-secrets.io/v1beta1` `secretstores/<name>` in
 * the Nova's namespace, its status conditions returned. Never a list, never a watch: the Secrets step reads it afresh
 * on every pass (RequeueSecretPolling), so the Role needs `get secretstores.external-secrets.io` and nothing more.
 *
 * - 404 → undefined (the gate: "there is none"). That covers both a SecretStore that does not exist and an API server
 *   without the External Secrets CRDs (the path itself is 404): neither has a store to wait for.
 * - any other failure → SecretStoreReadError with the HTTP status (none when the API server is unreachable), in words
 *   of our own plus the Status reason and message, as the config store's errors (./config/kubernetes.ts).
 */
import { CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { ObservedSecretStore } from './secret-store.js';
import { apiCodeOf, describeApiError } from './kube-api-error.js';

export const SECRET_STORE_GROUP = 'external-secrets.io';
export const SECRET_STORE_VERSION = 'v1beta1';
export const SECRET_STORE_PLURAL = 'secretstores';

export class SecretStoreReadError extends Error {
  override readonly name = 'SecretStoreReadError';
  constructor(
    message: string,
    /** The API server's HTTP status; undefined when it could not be reached. */
    readonly status?: number,
  ) {
    super(message);
  }
}

const readError = (error: unknown, what: string): SecretStoreReadError => {
  const { message, code } = describeApiError(error, what);
  return new SecretStoreReadError(message, code);
};

type Condition = NonNullable<ObservedSecretStore['conditions']>[number];

/** The well-formed conditions of a stored object's status (type and status strings; reason and message when strings). */
const conditionsOf = (object: unknown): Condition[] | undefined => {
  const raw = (object as { status?: { conditions?: unknown } } | undefined)?.status?.conditions;
  if (!Array.isArray(raw)) return undefined;
  return raw.flatMap((c: unknown): Condition[] => {
    const { type, status, reason, message } = (c ?? {}) as Record<string, unknown>;
    if (typeof type !== 'string' || typeof status !== 'string') return [];
    return [{ type, status, ...(typeof reason === 'string' ? { reason } : {}), ...(typeof message === 'string' ? { message } : {}) }];
  });
};

class SecretStoreReader {
  private readonly custom: CustomObjectsApi;

  constructor(kubeConfig: KubeConfig) {
    this.custom = kubeConfig.makeApiClient(CustomObjectsApi);
  }

  async read(namespace: string, name: string): Promise<ObservedSecretStore | undefined> {
    let object: unknown;
    try {
      object = await this.custom.getNamespacedCustomObject({ group: SECRET_STORE_GROUP, version: SECRET_STORE_VERSION, namespace, plural: SECRET_STORE_PLURAL, name });
    } catch (error) {
      if (apiCodeOf(error) === 404) return undefined;
      throw readError(error, `reading SecretStore ${namespace}/${name} (${SECRET_STORE_GROUP}/${SECRET_STORE_VERSION})`);
    }
    const conditions = conditionsOf(object);
    return conditions === undefined ? {} : { conditions };
  }
}

/** The reader `namespacedSecretStoreGate` takes: a namespaced SecretStore's conditions, undefined when there is none. */
export const kubernetesSecretStoreReader = (kubeConfig: KubeConfig): ((namespace: string, name: string) => Promise<ObservedSecretStore | undefined>) => {
  const reader = new SecretStoreReader(kubeConfig);
  return (namespace, name) => reader.read(namespace, name);
};
