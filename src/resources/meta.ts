/**
 * Object metadata: the shape every kind shares, and the checks the API server applies to what a
 * client may set (name, namespace, labels, annotations, finalizers, owner references). Fields the
 * server owns (uid, resourceVersion, generation, timestamps) pass through untouched: the store sets
 * them, a client cannot.
 */
import * as t from 'io-ts';
import { DNS1123_LABEL, ObjectName } from './codec/common.js';
import { bool, int, invalid, str } from './codec/primitives.js';
import { isPlainObject, list, record, struct } from './codec/structure.js';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace: string;
  uid: string;
  /** Opaque to clients; the embedded store uses a global, monotonic integer. */
  resourceVersion: string;
  /** Bumped on every spec change (and, as in Kubernetes, when deletion starts with finalizers). */
  generation: number;
  creationTimestamp: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

// A qualified name: an optional DNS subdomain prefix and '/', then a name of at most 63 characters.
const QUALIFIED_NAME = '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$';
const isQualifiedName = (key: string): boolean => {
  if (!new RegExp(QUALIFIED_NAME).test(key)) return false;
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? '' : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  return prefix.length <= 253 && name.length <= 63;
};

const qualifiedKeys = <C extends t.Mixed>(name: string, inner: t.Type<Record<string, t.TypeOf<C>>, Record<string, t.TypeOf<C>>, unknown>) =>
  new t.Type<Record<string, t.TypeOf<C>>, Record<string, t.TypeOf<C>>, unknown>(
    name,
    inner.is,
    (u, c) => {
      if (isPlainObject(u)) {
        const bad = Object.keys(u).find((key) => !isQualifiedName(key));
        if (bad !== undefined) return t.failure(u, t.appendContext(c, `[${bad}]`, inner, u), invalid(bad, 'name part must consist of alphanumeric characters, "-", "_" or "." (at most 63), with an optional DNS subdomain prefix and "/"'));
      }
      return inner.validate(u, c);
    },
    t.identity,
  );

const LabelValue = str('LabelValue', { maxLength: 63, pattern: '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$' });
const MAX_ANNOTATIONS_BYTES = 256 * 1024;
const Annotations = new t.Type<Record<string, string>, Record<string, string>, unknown>(
  'Annotations',
  (u): u is Record<string, string> => isPlainObject(u),
  (u, c) => {
    const inner = qualifiedKeys('Annotations', record('Annotations', str('AnnotationValue')));
    const result = inner.validate(u, c);
    if (result._tag === 'Right') {
      const size = Object.entries(result.right).reduce((n, [k, v]) => n + k.length + v.length, 0);
      if (size > MAX_ANNOTATIONS_BYTES) return t.failure(u, c, `Too long: must have at most ${MAX_ANNOTATIONS_BYTES} bytes`);
    }
    return result;
  },
  t.identity,
);

export const OwnerReferenceCodec = struct(
  'OwnerReference',
  { apiVersion: str('ApiVersion', { minLength: 1 }), kind: str('Kind', { minLength: 1 }), name: ObjectName, uid: str('Uid', { minLength: 1 }) },
  { controller: bool, blockOwnerDeletion: bool },
);

const ownerReferences = list('OwnerReferences', OwnerReferenceCodec, { listType: 'map', mapKeys: ['uid'] });
const OwnerReferences = new t.Type<OwnerReference[], OwnerReference[], unknown>(
  'OwnerReferences',
  ownerReferences.is,
  (u, c) => {
    const result = ownerReferences.validate(u, c);
    if (result._tag === 'Right' && result.right.filter((o) => o.controller === true).length > 1) {
      return t.failure(u, c, 'Invalid value: "array": only one reference can have controller set to true');
    }
    return result;
  },
  t.identity,
);

const Finalizer = new t.Type<string, string, unknown>(
  'Finalizer',
  (u): u is string => typeof u === 'string' && isQualifiedName(u),
  (u, c) => (typeof u === 'string' && isQualifiedName(u) ? t.success(u) : t.failure(u, c, invalid(u, 'must be a qualified name such as regent.dev/cleanup'))),
  t.identity,
);

/** What a client may send as metadata. Server-owned fields are accepted and ignored by the store. */
export const ObjectMetaInput = struct(
  'ObjectMeta',
  { name: ObjectName },
  {
    namespace: str('Namespace', { minLength: 1, maxLength: 63, pattern: DNS1123_LABEL }),
    labels: qualifiedKeys('Labels', record('Labels', LabelValue)),
    annotations: Annotations,
    finalizers: list('Finalizers', Finalizer, { listType: 'set' }),
    ownerReferences: OwnerReferences,
    uid: str('Uid'),
    resourceVersion: str('ResourceVersion'),
    generation: int('Generation', { minimum: 0 }),
    creationTimestamp: str('Timestamp'),
    deletionTimestamp: str('Timestamp'),
    deletionGracePeriodSeconds: int('GracePeriod', { minimum: 0 }),
  },
);
export type ObjectMetaInput = t.TypeOf<typeof ObjectMetaInput>;

