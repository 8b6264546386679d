/**
 * What the Nova controller runs with besides the plane's services: the database provisioner, the Job runner and the
 * workload port of the runtime the control plane opened (embedded: SQL and local Jobs; Kubernetes: CRs and Jobs;
 * src/app/nova-runtime.ts opens it).
 */
import type { NovaControllerDeps } from './deps.js';

export type NovaRuntime = Pick<NovaControllerDeps, 'provisioner' | 'databaseEndpoint' | 'jobs' | 'workloads' | 'jobsUnavailable' | 'namespaceRefused' | 'configs' | 'secretStoreGate' | 'healthProbe' | 'released' | 'group' | 'targetClusters'> & {
  description: string;
  /** Starts what runs in the background (the local runner's CronJob scheduler). */
  start(): void;
  stop(): void;
  close(): Promise<void>;
};
