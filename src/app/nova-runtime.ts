/**
 * What the Nova controller runs on, chosen by the resource source (issue 14):
 *
 * | | embedded default | Kubernetes |
 * |---|---|---|
 * | schemas, users, grants | plain SQL (src/nova/database/sql.ts) on the MariaDB the Secret `mariadb-<clusterRef>` describes | mariadb-operator CRs |
 * | Nova's DSNs point at | that Secret's `host`/`port` | the MariaDB Service `<clusterRef>.<namespace>.svc:3306` |
 * | Jobs and the archive CronJob | child processes of this host (src/nova/jobs/local.ts), nova-manage from `REGENT_NOVA_BIN_DIR` or PATH; spec.image is not pulled; a Job's end wakes its Nova; the finalizer's release removes the Nova's Jobs and CronJob (what the garbage collector does on Kubernetes) | batch/v1 Jobs and CronJobs |
 * | the rendered config | files under `<dataDir>/nova` (src/nova/config/local.ts) | immutable content-addressed ConfigMaps |
 * | the roles | one supervised process of the installed Nova per role on loopback ports (src/nova/workloads/local.ts), started by `REGENT_NOVA_PYTHON` (default /usr/bin/python3, which imports Debian's python3-nova) | apps/v1 Deployments, Services, the API's PodDisruptionBudget |
 * | the selected secret store | Regent's own store stands for it | a namespaced SecretStore by its Ready condition (a ClusterSecretStore is refused) |
 * | the cloud the roles join | `REGENT_NOVA_KEYSTONE_URL`, `REGENT_NOVA_REGION` (unset: those keys are left to spec.extraConfig) | the same |
 * | namespaces | any | the install namespace only (the RBAC of deploy/manifests); elsewhere NamespaceNotServed |
 * | the parallel group (routes, HPA, VPA, NetworkPolicy) | not installed on a host without Kubernetes (src/nova/group/local.ts) | Gateway API, autoscaling/v2, autoscaling.k8s.io (probed), networking.k8s.io |
 * | NovaCompute pools | the store's Node objects (`regent apply` of a v1 Node); one nova-compute process per node (Nova's fake virt driver, src/nova/compute/local.ts); no Hypervisor kind, no VPA | Nodes (uncached), apps/v1 DaemonSets, ConfigMaps, kvm.cloud.sap/v1 Hypervisors, the VPA (src/nova/compute/kubernetes/) |
| target clusters | none registered: a spec.targetClusterRef is TargetClusterUnavailable | Secrets `target-cluster-<name>` (key kubeconfig) in the Nova's namespace; the children projected there (src/app/nova-target-ports.ts) |
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ResourceSource } from '../kube/port.js';
import type { Logger } from '../log/logger.js';
import { describeError } from '../log/logger.js';
import { EmbeddedResourceSource } from '../kube/embedded/store.js';
import { SqlDatabaseProvisioner } from '../nova/database/sql.js';
import { resolveClusterFromSecrets } from '../nova/database/cluster-secret.js';
import { LocalJobRunner } from '../nova/jobs/local.js';
import { LocalWorkloads } from '../nova/workloads/local.js';
import { novaLauncher } from '../nova/workloads/nova-launcher.js';
import { LocalConfigStore } from '../nova/config/local.js';
import type { NovaConfigSettings } from '../nova/config/settings.js';
import { namespacedSecretStoreGate } from '../nova/secret-store.js';
import { localComputeCluster } from '../nova/compute/local.js';
import { novaComputeLauncher } from '../nova/compute/compute-launcher.js';
import type { NovaRuntime } from '../controllers/nova/runtime.js';
import { objectKey } from '../kube/object.js';

export type { NovaRuntime };

const executable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The directory holding nova-manage: REGENT_NOVA_BIN_DIR, else the first PATH entry that has it. */
export const findNovaManage = (env: NodeJS.ProcessEnv): { binDir: string | undefined; found: boolean } => {
  const configured = env.REGENT_NOVA_BIN_DIR;
  if (configured) return { binDir: configured, found: executable(join(configured, 'nova-manage')) };
  const onPath = (env.PATH ?? '').split(delimiter).find((dir) => dir && executable(join(dir, 'nova-manage')));
  return { binDir: onPath, found: onPath !== undefined };
};

/** The cloud the roles join, from the environment (unset keys are not rendered: spec.extraConfig may set them). */
export const novaCloudSettings = (env: NodeJS.ProcessEnv): Partial<NovaConfigSettings> => ({
  ...(env.REGENT_NOVA_KEYSTONE_URL ? { keystoneURL: env.REGENT_NOVA_KEYSTONE_URL } : {}),
  ...(env.REGENT_NOVA_REGION ? { regionName: env.REGENT_NOVA_REGION } : {}),
});

/**
 * The loopback ports the embedded roles may take (`REGENT_NOVA_PORT_RANGE=<low>-<high>`; default 21000-28999): two
 * Regents on one host whose Novas share a name would otherwise start probing at the same port. Bad input throws.
 */
export const novaPortRange = (env: NodeJS.ProcessEnv): [number, number] | undefined => {
  const text = env.REGENT_NOVA_PORT_RANGE;
  if (text === undefined || text === '') return undefined;
  const m = /^(\d{4,5})-(\d{4,5})$/.exec(text.trim());
  const [low, high] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  if (!(low >= 1024 && high <= 65535 && low <= high)) throw new Error(`REGENT_NOVA_PORT_RANGE=${JSON.stringify(text)} is not <low>-<high> within 1024-65535`);
  return [low, high];
};

export interface NovaRuntimeOptions {
  dataDir: string;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  installNamespace: string;
  /**
   * Embedded store: the roles are not this process's to run; it reads what the Regent serving the same data directory
   * runs from its process records (`regent plan`, which puts the whole runtime behind its read-only guard).
   */
  observeRoles?: boolean;
}

export const openNovaRuntime = async (source: ResourceSource, options: NovaRuntimeOptions): Promise<NovaRuntime> => {
  if (source instanceof EmbeddedResourceSource) {
    const resolve = resolveClusterFromSecrets(source.secrets);
    const provisioner = new SqlDatabaseProvisioner(resolve);
    const nova = findNovaManage(options.env);
    const jobs = new LocalJobRunner({
      dir: join(options.dataDir, 'nova-jobs'),
      readSecret: async (namespace, name, key) => (await source.secrets.get(namespace, name))?.data[key],
      ...(nova.binDir ? { binDir: nova.binDir } : {}),
    });
    const readSecret = async (namespace: string, name: string, key: string) => (await source.secrets.get(namespace, name))?.data[key];
    const python = options.env.REGENT_NOVA_PYTHON;
    // only the leader runs the roles and the compute nodes (a standby on the same data directory runs none of them)
    const portRange = novaPortRange(options.env);
    const workloads = new LocalWorkloads({ dir: join(options.dataDir, 'nova'), readSecret, launcher: novaLauncher(python ? { python } : {}), leaderScoped: true, ...(options.observeRoles ? { observeRecorded: true } : {}), ...(portRange ? { portRange } : {}) });
    const configs = new LocalConfigStore({ dir: join(options.dataDir, 'nova'), settings: novaCloudSettings(options.env), liveConfig: (namespace, name) => workloads.liveConfig(namespace, name) });
    // NovaCompute pools (issue 28): the store's Node objects, one nova-compute process (the fake virt driver) per node
    const compute = localComputeCluster({
      dir: join(options.dataDir, 'nova-compute'),
      readSecret,
      listNodes: async () => (await source.list('Node')).items,
      launcher: novaComputeLauncher(python ? { python } : {}),
      leaderScoped: true,
    });
    return {
      description: `embedded: SQL provisioning, local Jobs (${nova.found ? `nova-manage in ${nova.binDir}` : 'no nova-manage found'}), the roles as local processes (${python ?? '/usr/bin/python3'})`,
      provisioner,
      databaseEndpoint: async (namespace, clusterRef) => {
        try {
          const server = await resolve(namespace, clusterRef);
          return server ? { host: server.host, port: server.port } : undefined;
        } catch {
          return undefined;
        }
      },
      jobs,
      workloads,
      configs,
      // what Kubernetes' garbage collector does for the Nova's owner references: its roles, Jobs, CronJob and TLS files
      released: async (namespace, name) => {
        await workloads.removeAll(namespace, name);
        const removed = await jobs.removeOwnedBy(namespace, name);
        if (removed.length > 0) options.logger.info('nova released: its local Jobs removed', { namespace, name, removed });
      },
      compute: { cluster: compute },
      jobsUnavailable: () =>
        findNovaManage(options.env).found
          ? null
          : `the embedded default runs the Database step's Jobs on this host and found no nova-manage ${options.env.REGENT_NOVA_BIN_DIR ? `in REGENT_NOVA_BIN_DIR=${options.env.REGENT_NOVA_BIN_DIR}` : 'on PATH'} (set REGENT_NOVA_BIN_DIR to the directory holding nova-manage and nova-status)`,
      start: () => {
        jobs.start(15_000, (error) => options.logger.warn('the local archive scheduler failed a tick', describeError(error)));
        // what another replica or an earlier Regent left running is stopped before this leader's first ensure
        void workloads.lead().catch((error: unknown) => options.logger.warn('could not stop the Nova roles an earlier leader left', describeError(error)));
        void compute.workloads.lead().catch((error: unknown) => options.logger.warn('could not stop the nova-compute processes an earlier leader left', describeError(error)));
      },
      // the stand-in for a Job watch: a Job this process started that ends wakes its Nova at once (not after the 30 s requeue)
      startWatches: (enqueue) => {
        const off = jobs.onJobEnded(({ namespace, owner }) => enqueue(objectKey(namespace, owner.name)));
        return { stop: async () => off() };
      },
      // a replica that stops leading stops its roles and compute nodes: the next leader runs them alone (Jobs run on)
      stop: async () => {
        jobs.stop();
        await Promise.all([workloads.resign(), compute.workloads.resign()]);
      },
      close: async () => {
        jobs.stop();
        await workloads.close();
        await compute.workloads.close();
        await provisioner.close?.();
      },
    };
  }
  const kubernetes = await import('../kube/kubernetes/index.js');
  if (!(source instanceof kubernetes.KubernetesResourceSource)) throw new Error('the Nova controller needs the embedded store or Kubernetes');
  const { KubernetesJobRunner } = await import('../nova/jobs/kubernetes.js');
  const { MariaDbOperatorProvisioner } = await import('../nova/database/mariadb-operator.js');
  const { KubernetesWorkloads } = await import('../nova/workloads/kubernetes.js');
  const { KubernetesConfigStore } = await import('../nova/config/kubernetes.js');
  const { kubernetesSecretStoreReader } = await import('../nova/secret-store-kubernetes.js');
  const { KubernetesGroupObjects } = await import('../nova/group/kubernetes.js');
  const { SecretTargetClusters } = await import('../nova/target-clusters.js');
  const { targetPortsFactory } = await import('./nova-target-ports.js');
  const { startNovaWatches } = await import('../nova/watches.js');
  const { startTargetWatches } = await import('../nova/target-watches.js');
  const { kubernetesComputeCluster } = await import('../nova/compute/kubernetes.js');
  const { startPoolWatches } = await import('../nova/compute/watches.js');
  const kubeConfig = source.kubeConfig;
  // NovaCompute pools (issue 28): Nodes, DaemonSets, ConfigMaps, Hypervisors and the VPA of the install namespace
  const compute = kubernetesComputeCluster(kubeConfig, options.installNamespace);
  return {
    description: `kubernetes: mariadb-operator CRs, batch/v1 Jobs, apps/v1 Deployments, for Novas in ${options.installNamespace}`,
    // Regent's RBAC grants Secrets, Jobs, Deployments and the MariaDB CRs in its own namespace only (deploy/manifests)
    namespaceRefused: (namespace) =>
      namespace === options.installNamespace
        ? null
        : `Regent reconciles Novas in its own namespace ${options.installNamespace} only: its RBAC grants the Secrets, Jobs, Deployments and MariaDB resources a Nova needs there and nowhere else`,
    provisioner: new MariaDbOperatorProvisioner({ kubeConfig }),
    databaseEndpoint: async (namespace, clusterRef) => ({ host: `${clusterRef}.${namespace}.svc`, port: 3306 }),
    jobs: new KubernetesJobRunner({ kubeConfig }),
    workloads: new KubernetesWorkloads({ kubeConfig }),
    configs: new KubernetesConfigStore({ kubeConfig, settings: novaCloudSettings(options.env) }),
    secretStoreGate: namespacedSecretStoreGate(kubernetesSecretStoreReader(kubeConfig)),
    group: new KubernetesGroupObjects({ kubeConfig }),
    targetClusters: new SecretTargetClusters({ secrets: source.secrets }),
    forTarget: targetPortsFactory(novaCloudSettings(options.env)),
    start: () => undefined,
    stop: () => undefined,
    // namespace-scoped (the install's RBAC, and namespaceRefused above): no ClusterSecretStore leg
    startWatches: (enqueue, novas) => startNovaWatches({ kubeConfig, namespace: options.installNamespace, clusterScoped: false, novas, enqueue, logger: options.logger }),
    // a target cluster's children, by the uid label on the target's own kubeconfig: started by the first pass placed there
    startTargetWatches: (enqueue, novas) => startTargetWatches({ novas, enqueue, logger: options.logger }),
    // the watches above wake a Nova on its children's changes: its passes poll no rollout or Job here
    childrenWatched: true,
    compute: {
      cluster: compute,
      vpa: { probe: () => compute.vpa.vpaAPI(), ensure: (namespace, owner, pool) => compute.vpa.ensurePoolVPA(namespace, owner, pool), remove: (namespace, pool) => compute.vpa.removePoolVPA(namespace, pool) },
      // the pool's DaemonSets and ConfigMaps (by the pool label) and the contract Secrets, in the install namespace
      startWatches: (enqueue, pools) => startPoolWatches({ kubeConfig, namespace: options.installNamespace, pools, enqueue, logger: options.logger }),
    },
    close: async () => undefined,
  };
};
