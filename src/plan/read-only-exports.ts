/**
 * The exports publisher of a plan's passes (PlaneServices `exports`): a WorkloadCluster's exports are read where the
 * control plane reads them — `exportsPublisherFor(<the stored source>)`: on Kubernetes a GET of the ConfigMap through
 * the core API, on the embedded store its ConfigMap — and what a pass would publish or remove is recorded in the plan
 * source's writes (`apply` or `delete` of ConfigMap `<cluster>-openstack-exports`), never sent. The plan's source
 * cannot stand in for the cluster here: it serves Regent's kinds, and on Kubernetes a ConfigMap is the core API's.
 *
 * What it recorded is kept in an overlay, so the plan's later passes (and the cluster's machines) read the exports the
 * pass would have published. A write that would change nothing is none: publishing the exports already there (compared
 * as canonical JSON, as the pass compares them before it publishes), or removing a ConfigMap that is not there.
 */
import type { ResourceSource } from '../kube/port.js';
import type { ClusterExports } from '../resources/index.js';
import { canonicalJson } from '../resources/codec/transitions.js';
import { EXPORTS_JSON_KEY, EXPORTS_SCHEMA_KEY, exportsConfigMapName, exportsPublisherFor, type ExportsPublisher } from '../workload/exports-publisher.js';
import type { RecordedWrite } from './read-only-source.js';

/** Where the recorded writes go: the plan's read-only source (src/plan/read-only-source.ts). */
export interface WriteLog {
  readonly writes: RecordedWrite[];
}

/** The ConfigMap's exports as a pass would find them: undefined when absent, `unreadable` when they do not decode. */
type Found = ClusterExports | undefined | 'unreadable';

/**
 * A publisher that reads through `stored` (only read) and records into `plan`'s writes. The planner hands it to the
 * plane: `assemblePlane({ …, exports: readOnlyExports(options.source, source) })`.
 */
export const readOnlyExports = (stored: ResourceSource, plan: WriteLog): ExportsPublisher => {
  const published = exportsPublisherFor(stored);
  /** Per `<namespace>/<configmap>`: the exports a recorded publish left, or null after a recorded remove. */
  const overlay = new Map<string, ClusterExports | null>();
  const keyOf = (namespace: string, clusterName: string) => `${namespace}/${exportsConfigMapName(clusterName)}`;

  const read = async (namespace: string, clusterName: string): Promise<ClusterExports | undefined> => {
    const key = keyOf(namespace, clusterName);
    if (overlay.has(key)) return overlay.get(key) ?? undefined;
    return published.read(namespace, clusterName);
  };
  // a publish overwrites exports that do not decode, and a remove deletes them: both are writes
  const found = (namespace: string, clusterName: string): Promise<Found> => read(namespace, clusterName).catch(() => 'unreadable' as const);
  const record = (op: 'apply' | 'delete', namespace: string, clusterName: string) => {
    const name = exportsConfigMapName(clusterName);
    plan.writes.push({ op, kind: 'ConfigMap', namespace, name, ...(op === 'apply' ? { detail: `data keys ${[EXPORTS_JSON_KEY, EXPORTS_SCHEMA_KEY].sort().join(', ')}` } : {}) });
  };

  return {
    read,
    async publish(namespace, clusterName, exports) {
      const current = await found(namespace, clusterName);
      if (current === 'unreadable' || current === undefined || canonicalJson(current) !== canonicalJson(exports)) {
        record('apply', namespace, clusterName);
        overlay.set(keyOf(namespace, clusterName), exports);
      }
      return { name: exportsConfigMapName(clusterName) };
    },
    async remove(namespace, clusterName) {
      if ((await found(namespace, clusterName)) === undefined) return;
      record('delete', namespace, clusterName);
      overlay.set(keyOf(namespace, clusterName), null);
    },
  };
};
