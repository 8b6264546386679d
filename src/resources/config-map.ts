/**
 * ConfigMap: a core v1 ConfigMap, as the embedded default holds one (issue 29): where a WorkloadCluster's exports are
 * published for its machines (src/workload/exports-publisher.ts, `<cluster>-openstack-exports`). On a cluster
 * ConfigMaps are the API server's own and Regent writes them through the core API; on one machine the embedded store
 * keeps them, so `regent get configmaps -n <ns>` and `regent apply -f configmap.yaml` work as they do for a Node.
 *
 * Namespaced, as in Kubernetes. Not a Regent CRD: no deploy/crds file, no RBAC of its own, no informer or status of
 * the control plane (it is in STORED_KINDS, not in KINDS / KIND_NAMES), and the Kubernetes resource source refuses it.
 * A ConfigMap has no spec: its `data` and `binaryData` sit at the top level (defineKind's `fields`); the stored
 * object carries the empty `spec: {}` every stored object has. `immutable` is not kept.
 */
import type * as t from 'io-ts';
import { str } from './codec/primitives.js';
import { record, struct } from './codec/structure.js';
import { defineKind, type ResourceObject } from './kind.js';
import { withRules } from './workload-cluster.js';

/** A ConfigMap key: alphanumerics, '-', '_' or '.', at most 253 characters (the API server's IsConfigMapKey). */
export const CONFIG_MAP_KEY = '^[-._a-zA-Z0-9]+$';
export const CONFIG_MAP_KEY_MESSAGE = "every key must consist of alphanumeric characters, '-', '_' or '.', at most 253 characters";
const configMapKey = new RegExp(CONFIG_MAP_KEY, 'u');

const keyed = <A>(inner: t.Type<Record<string, A>, Record<string, A>, unknown>) =>
  withRules(inner, [{ message: CONFIG_MAP_KEY_MESSAGE, check: (map) => Object.keys(map).every((key) => key.length <= 253 && configMapKey.test(key)) }]);

/** At most 1 MiB in all, as the API server limits an object; each value here at most that. */
export const ConfigMapData = keyed(record('ConfigMapData', str('ConfigMapValue', { maxLength: 1048576 }), { maxProperties: 1024 }));
export const ConfigMapBinaryData = keyed(record('ConfigMapBinaryData', str('ConfigMapBinaryValue', { format: 'byte', maxLength: 1398104 }), { maxProperties: 1024 }));

export const ConfigMapSpec = struct('ConfigMapSpec', {}, {});
export type ConfigMapSpec = t.TypeOf<typeof ConfigMapSpec>;
export const ConfigMapStatus = struct('ConfigMapStatus', {}, {});
export type ConfigMapStatus = t.TypeOf<typeof ConfigMapStatus>;

export const ConfigMapKind = defineKind({
  kind: 'ConfigMap',
  apiVersion: 'v1',
  plural: 'configmaps',
  shortNames: ['cm'],
  spec: ConfigMapSpec,
  status: ConfigMapStatus,
  optionalSpec: true,
  fields: { data: ConfigMapData, binaryData: ConfigMapBinaryData },
  columns: [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
});
export type ConfigMap = ResourceObject<'ConfigMap', ConfigMapSpec, ConfigMapStatus> & { data?: Record<string, string>; binaryData?: Record<string, string> };
export const validateConfigMap = ConfigMapKind.validate;
