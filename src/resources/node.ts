/**
 * Node: a core v1 Node, as the embedded default holds one (issue 28). On a cluster Nodes are the API server's and
 * Regent reads them through the core API (src/nova/compute/); on one machine an operator declares them with
 * `regent apply -f node.yaml`, so a NovaCompute's nodeSelector has Nodes to select (the embedded pool adapter reads
 * them with `source.list('Node')`). What the pool's rules read is the metadata: name, labels, annotations.
 *
 * Cluster-scoped, as in Kubernetes: the embedded store keeps every Node under CLUSTER_NAMESPACE whatever namespace a
 * caller names, and `regent get nodes` prints no namespace. Not a Regent CRD: no deploy/crds file, no RBAC of its
 * own, no informer or status of the control plane (it is in STORED_KINDS, not in KINDS / KIND_NAMES), and the
 * Kubernetes resource source refuses it (it serves Regent's custom resources only).
 */
import * as t from 'io-ts';
import { isLeft } from 'fp-ts/lib/Either.js';
import { bool, str } from './codec/primitives.js';
import { isPlainObject, list, struct } from './codec/structure.js';
import { defineKind, type ResourceObject } from './kind.js';

/** Keeps the fields a codec does not know (x-kubernetes-preserve-unknown-fields), after validating the ones it does. */
const preservingUnknown = <A>(inner: t.Type<A, A, unknown>): t.Type<A, A, unknown> =>
  new t.Type<A, A, unknown>(
    inner.name,
    inner.is,
    (u, c) => {
      const result = inner.validate(u, c);
      if (isLeft(result) || !isPlainObject(u)) return result;
      const unknown = Object.fromEntries(Object.entries(u).filter(([key, value]) => value !== null && value !== undefined && !Object.hasOwn(result.right as object, key)));
      return t.success({ ...unknown, ...result.right } as A);
    },
    t.identity,
  );

export const Taint = struct(
  'Taint',
  { key: str('TaintKey', { minLength: 1, maxLength: 317 }), effect: str('TaintEffect', { minLength: 1, maxLength: 64 }) },
  { value: str('TaintValue', { maxLength: 63 }), timeAdded: str('Timestamp', { maxLength: 64 }) },
);

/** core/v1 NodeSpec: the fields Regent names, validated; any other field is kept as given. */
export const NodeSpec = preservingUnknown(
  struct(
    'NodeSpec',
    {},
    {
      providerID: str('ProviderID', { maxLength: 1024 }),
      unschedulable: bool,
      podCIDR: str('PodCIDR', { maxLength: 64 }),
      podCIDRs: list('PodCIDRs', str('PodCIDR', { maxLength: 64 }), { maxItems: 2 }),
      taints: list('Taints', Taint, { maxItems: 256 }),
    },
  ),
);
export type NodeSpec = t.TypeOf<typeof NodeSpec>;

/** core/v1 NodeStatus is the kubelet's; the embedded default has no kubelet, so a Node's status is kept as written. */
export const NodeStatus = preservingUnknown(struct('NodeStatus', {}, {}));
export type NodeStatus = t.TypeOf<typeof NodeStatus>;

export const NodeKind = defineKind({
  kind: 'Node',
  apiVersion: 'v1',
  scope: 'Cluster',
  plural: 'nodes',
  shortNames: ['no'],
  spec: NodeSpec,
  status: NodeStatus,
  optionalSpec: true,
  columns: [
    { name: 'Unschedulable', type: 'boolean', jsonPath: '.spec.unschedulable' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
});
export type Node = ResourceObject<'Node', NodeSpec, NodeStatus>;
export const validateNode = NodeKind.validate;
