/**
 * What the Nova controller runs on, chosen by the resource source (issue 14):
 *
 * | | embedded default | Kubernetes |
 * |---|---|---|
 * | schemas, users, grants | plain SQL (src/nova/database/sql.ts) on the MariaDB the Secret `mariadb-<clusterRef>` describes | mariadb-operator CRs |
 * | Nova's DSNs point at | that Secret's `host`/`port` | the MariaDB Service `<clusterRef>.<namespace>.svc:3306` |
 * | Jobs and the archive CronJob | child processes of this host (src/nova/jobs/local.ts), nova-manage from `REGENT_NOVA_BIN_DIR` or PATH; spec.image is not pulled | batch/v1 Jobs and CronJobs |
 * | the roles' Deployments | none: the embedded default runs no Nova role, so an upgrade waits in RollingUpdate | apps/v1 Deployments |
 * | namespaces | any | the install namespace only (the RBAC of deploy/manifests); elsewhere NamespaceNotServed |
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
import { noWorkloads } from '../nova/workloads/port.js';
import type { NovaRuntime } from '../controllers/nova/runtime.js';

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

export const openNovaRuntime = async (source: ResourceSource, options: { dataDir: string; env: NodeJS.ProcessEnv; logger: Logger; installNamespace: string }): Promise<NovaRuntime> => {
  if (source instanceof EmbeddedResourceSource) {
    const resolve = resolveClusterFromSecrets(source.secrets);
    const provisioner = new SqlDatabaseProvisioner(resolve);
    const nova = findNovaManage(options.env);
    const jobs = new LocalJobRunner({
      dir: join(options.dataDir, 'nova-jobs'),
      readSecret: async (namespace, name, key) => (await source.secrets.get(namespace, name))?.data[key],
      ...(nova.binDir ? { binDir: nova.binDir } : {}),
    });
    return {
      description: `embedded: SQL provisioning, local Jobs (${nova.found ? `nova-manage in ${nova.binDir}` : 'no nova-manage found'}), no role Deployments`,
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
      workloads: noWorkloads,
      jobsUnavailable: () =>
        findNovaManage(options.env).found
          ? null
          : `the embedded default runs the Database step's Jobs on this host and found no nova-manage ${options.env.REGENT_NOVA_BIN_DIR ? `in REGENT_NOVA_BIN_DIR=${options.env.REGENT_NOVA_BIN_DIR}` : 'on PATH'} (set REGENT_NOVA_BIN_DIR to the directory holding nova-manage and nova-status)`,
      start: () => jobs.start(15_000, (error) => options.logger.warn('the local archive scheduler failed a tick', describeError(error))),
      stop: () => jobs.stop(),
      close: async () => {
        jobs.stop();
        await provisioner.close?.();
      },
    };
  }
  const kubernetes = await import('../kube/kubernetes/index.js');
  if (!(source instanceof kubernetes.KubernetesResourceSource)) throw new Error('the Nova controller needs the embedded store or Kubernetes');
  const { KubernetesJobRunner } = await import('../nova/jobs/kubernetes.js');
  const { MariaDbOperatorProvisioner } = await import('../nova/database/mariadb-operator.js');
  const { KubernetesWorkloads } = await import('../nova/workloads/kubernetes.js');
  const kubeConfig = source.kubeConfig;
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
    start: () => undefined,
    stop: () => undefined,
    close: async () => undefined,
  };
};
