/**
 * The remote-children sweep (nova-operator.md, "Rotation and deletion", second paragraph; issue 27): everything one
 * Nova projected onto a target cluster, found by its ownership label `regent.dev/nova-uid=<uid>`
 * (./ownership.ts) and deleted, kind by kind, in the Nova's namespace on that cluster.
 *
 * It runs only as the effect `nova.sweepRemoteChildren`, which machines/nova-finalizer.ts decides after the named
 * MariaDB cleanup released, never before it: that cleanup waits a pass on the CRs it deletes by name, and a sweep
 * running first would delete them out from under it.
 *
 * Each kind is listed by the label, then each object is deleted by name with the listed uid as a precondition, so a
 * Delete reaches only an object that carried this Nova's label (one re-created under the name since is left). A
 * kind the cluster does not serve (a CRD not installed: 404 on the list) has nothing to sweep; gone already (404)
 * is success. Any other failure throws: the finalizer stays, and the next pass decides the sweep again.
 */
import { AppsV1Api, AutoscalingV2Api, BatchV1Api, CoreV1Api, CustomObjectsApi, NetworkingV1Api, PolicyV1Api, type KubeConfig } from '@kubernetes/client-node';
import { apiCodeOf, describeApiError } from './kube-api-error.js';
import { novaUidSelector } from './ownership.js';
import { MARIADB_GROUP, MARIADB_VERSION } from './database/mariadb-operator.js';
import { GATEWAY_GROUP, GATEWAY_VERSION, HTTPROUTE_PLURAL, VPA_GROUP, VPA_PLURAL, VPA_VERSION } from './group/render.js';

/** The kinds the sweep deletes, in the order it deletes them (the workloads first, the MariaDB CRs last). */
export const SWEPT_KINDS = ['Deployment', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'VerticalPodAutoscaler', 'NetworkPolicy', 'HTTPRoute', 'CronJob', 'Job', 'ConfigMap', 'Secret', 'Grant', 'User', 'Database'] as const;
export type SweptKind = (typeof SWEPT_KINDS)[number];

export interface SweepResult {
  /** `<Kind> <name>` of every object deleted (or already going). */
  deleted: string[];
}

export interface RemoteChildren {
  sweep(namespace: string, uid: string): Promise<SweepResult>;
}

interface Listed {
  metadata?: { name?: string; uid?: string };
}

interface KindAccess {
  list(namespace: string, labelSelector: string): Promise<{ items: Listed[] }>;
  remove(namespace: string, name: string, uid: string | undefined): Promise<unknown>;
}

const preconditions = (uid: string | undefined) => (uid === undefined ? {} : { body: { preconditions: { uid } } });

export class KubernetesRemoteChildren implements RemoteChildren {
  private readonly kinds: Readonly<Record<SweptKind, KindAccess>>;

  constructor(options: { kubeConfig: KubeConfig }) {
    const apps = options.kubeConfig.makeApiClient(AppsV1Api);
    const core = options.kubeConfig.makeApiClient(CoreV1Api);
    const batch = options.kubeConfig.makeApiClient(BatchV1Api);
    const policy = options.kubeConfig.makeApiClient(PolicyV1Api);
    const autoscaling = options.kubeConfig.makeApiClient(AutoscalingV2Api);
    const networking = options.kubeConfig.makeApiClient(NetworkingV1Api);
    const custom = options.kubeConfig.makeApiClient(CustomObjectsApi);
    const customKind = (group: string, version: string, plural: string): KindAccess => ({
      list: async (namespace, labelSelector) => (await custom.listNamespacedCustomObject({ group, version, plural, namespace, labelSelector })) as { items: Listed[] },
      remove: (namespace, name, uid) => custom.deleteNamespacedCustomObject({ group, version, plural, namespace, name, ...preconditions(uid) }),
    });
    this.kinds = {
      Deployment: { list: (namespace, labelSelector) => apps.listNamespacedDeployment({ namespace, labelSelector }), remove: (namespace, name, uid) => apps.deleteNamespacedDeployment({ namespace, name, propagationPolicy: 'Background', ...preconditions(uid) }) },
      Service: { list: (namespace, labelSelector) => core.listNamespacedService({ namespace, labelSelector }), remove: (namespace, name, uid) => core.deleteNamespacedService({ namespace, name, ...preconditions(uid) }) },
      PodDisruptionBudget: { list: (namespace, labelSelector) => policy.listNamespacedPodDisruptionBudget({ namespace, labelSelector }), remove: (namespace, name, uid) => policy.deleteNamespacedPodDisruptionBudget({ namespace, name, ...preconditions(uid) }) },
      HorizontalPodAutoscaler: { list: (namespace, labelSelector) => autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace, labelSelector }), remove: (namespace, name, uid) => autoscaling.deleteNamespacedHorizontalPodAutoscaler({ namespace, name, ...preconditions(uid) }) },
      VerticalPodAutoscaler: customKind(VPA_GROUP, VPA_VERSION, VPA_PLURAL),
      NetworkPolicy: { list: (namespace, labelSelector) => networking.listNamespacedNetworkPolicy({ namespace, labelSelector }), remove: (namespace, name, uid) => networking.deleteNamespacedNetworkPolicy({ namespace, name, ...preconditions(uid) }) },
      HTTPRoute: customKind(GATEWAY_GROUP, GATEWAY_VERSION, HTTPROUTE_PLURAL),
      // Background: a Job's and a CronJob's pods go with them (batch/v1's legacy default would orphan them)
      CronJob: { list: (namespace, labelSelector) => batch.listNamespacedCronJob({ namespace, labelSelector }), remove: (namespace, name, uid) => batch.deleteNamespacedCronJob({ namespace, name, propagationPolicy: 'Background', ...preconditions(uid) }) },
      Job: { list: (namespace, labelSelector) => batch.listNamespacedJob({ namespace, labelSelector }), remove: (namespace, name, uid) => batch.deleteNamespacedJob({ namespace, name, propagationPolicy: 'Background', ...preconditions(uid) }) },
      ConfigMap: { list: (namespace, labelSelector) => core.listNamespacedConfigMap({ namespace, labelSelector }), remove: (namespace, name, uid) => core.deleteNamespacedConfigMap({ namespace, name, ...preconditions(uid) }) },
      Secret: { list: (namespace, labelSelector) => core.listNamespacedSecret({ namespace, labelSelector }), remove: (namespace, name, uid) => core.deleteNamespacedSecret({ namespace, name, ...preconditions(uid) }) },
      Grant: customKind(MARIADB_GROUP, MARIADB_VERSION, 'grants'),
      User: customKind(MARIADB_GROUP, MARIADB_VERSION, 'users'),
      Database: customKind(MARIADB_GROUP, MARIADB_VERSION, 'databases'),
    };
  }

  async sweep(namespace: string, uid: string): Promise<SweepResult> {
    const selector = novaUidSelector(uid);
    const deleted: string[] = [];
    for (const kind of SWEPT_KINDS) {
      const access = this.kinds[kind];
      let items: Listed[];
      try {
        items = (await access.list(namespace, selector)).items;
      } catch (error) {
        // the kind is not served on this cluster (its CRD is not installed): nothing of it to sweep
        if (apiCodeOf(error) === 404) continue;
        throw new Error(describeApiError(error, `listing the ${kind}s labelled ${selector} in ${namespace}`).message, { cause: error });
      }
      for (const item of items) {
        const name = item.metadata?.name;
        if (!name) continue;
        try {
          await access.remove(namespace, name, item.metadata?.uid);
          deleted.push(`${kind} ${name}`);
        } catch (error) {
          const code = apiCodeOf(error);
          // gone already; or the name holds another object since the list (the uid precondition): not ours to delete
          if (code === 404 || code === 409) continue;
          throw new Error(describeApiError(error, `deleting ${kind} ${namespace}/${name}`).message, { cause: error });
        }
      }
    }
    return { deleted };
  }
}
