/**
 * The Nova ports on a target cluster (src/nova/) (issue 27; nova-operator.md, "Watches and indexes", last paragraph): the same
 * Kubernetes adapters as the management cluster's (src/app/nova-runtime.ts), built on the target's kubeconfig with
 * `remote: true` (src/nova/ownership.ts: no owner reference, the label regent.dev/nova-uid), a SecretStore on the target
 * (the credentials are read there and the derived Secrets written there), and the remote-children sweep.
 *
 * Built once per cluster name and server and reused: a Nova pass, its effects and the finalizer share one set of
 * clients. The target is reached with its own kubeconfig's credentials; no grant of the management cluster is used.
 * Caveat: a kubeconfig rotated under the same name and server keeps the clients built from the old one until
 * Regent restarts.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import type { TargetPorts } from '../controllers/nova/deps.js';
import { KubernetesSecretStore } from '../kube/kubernetes/secrets.js';
import { KubernetesConfigStore } from '../nova/config/kubernetes.js';
import type { NovaConfigSettings } from '../nova/config/settings.js';
import { MariaDbOperatorProvisioner } from '../nova/database/mariadb-operator.js';
import { KubernetesGroupObjects } from '../nova/group/kubernetes.js';
import { KubernetesJobRunner } from '../nova/jobs/kubernetes.js';
import { remoteSecretStore } from '../nova/ownership.js';
import { KubernetesRemoteChildren } from '../nova/remote-children.js';
import { namespacedSecretStoreGate } from '../nova/secret-store.js';
import { kubernetesSecretStoreReader } from '../nova/secret-store-kubernetes.js';
import type { TargetCluster } from '../nova/target-clusters.js';
import { KubernetesWorkloads } from '../nova/workloads/kubernetes.js';

export const targetPortsFactory = (settings: Partial<NovaConfigSettings>): ((cluster: TargetCluster) => TargetPorts) => {
  const built = new Map<string, TargetPorts>();
  return (cluster) => {
    const key = `${cluster.name}\n${cluster.server}`;
    const kept = built.get(key);
    if (kept) return kept;
    const kubeConfig = cluster.kubeConfig;
    const ports: TargetPorts = {
      provisioner: new MariaDbOperatorProvisioner({ kubeConfig, remote: true }),
      // the MariaDB the CRs name runs on the target: its Service there
      databaseEndpoint: async (namespace, clusterRef) => ({ host: `${clusterRef}.${namespace}.svc`, port: 3306 }),
      jobs: new KubernetesJobRunner({ kubeConfig, remote: true }),
      workloads: new KubernetesWorkloads({ kubeConfig, remote: true }),
      configs: new KubernetesConfigStore({ kubeConfig, settings, remote: true }),
      group: new KubernetesGroupObjects({ kubeConfig, remote: true }),
      secrets: remoteSecretStore(new KubernetesSecretStore(kubeConfig.makeApiClient(CoreV1Api))),
      secretStoreGate: namespacedSecretStoreGate(kubernetesSecretStoreReader(kubeConfig)),
      remoteChildren: new KubernetesRemoteChildren({ kubeConfig }),
    };
    built.set(key, ports);
    return ports;
  };
};
