/** Small helpers over stored objects: keys, owner references, finalizers, conditions. */
import type { Condition, KindName, ObjectOf, OwnerReference } from '../resources/index.js';

export const objectKey = (namespace: string, name: string): string => `${namespace}/${name}`;
export const keyOf = (object: { metadata: { namespace?: string; name: string } }): string => objectKey(object.metadata.namespace ?? 'default', object.metadata.name);

/** An owner reference to `owner`, for a dependent in the same namespace. */
export const ownerReferenceTo = (owner: ObjectOf<KindName>, options: { controller?: boolean; blockOwnerDeletion?: boolean } = {}): OwnerReference => ({
  apiVersion: owner.apiVersion,
  kind: owner.kind,
  name: owner.metadata.name,
  uid: owner.metadata.uid,
  ...(options.controller === undefined ? {} : { controller: options.controller }),
  ...(options.blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion: options.blockOwnerDeletion }),
});

export const hasFinalizer = (object: { metadata: { finalizers?: string[] } }, finalizer: string): boolean => (object.metadata.finalizers ?? []).includes(finalizer);
export const isDeleting = (object: { metadata: { deletionTimestamp?: string } }): boolean => object.metadata.deletionTimestamp !== undefined;

export const findCondition = (status: { conditions?: Condition[] } | undefined, type: string): Condition | undefined => status?.conditions?.find((c) => c.type === type);

/** RFC 3339 at second precision, as metav1.Time serialises. */
export const rfc3339 = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** RFC 3339 with microseconds, as metav1.MicroTime serialises. */
export const rfc3339Micro = (date: Date): string => date.toISOString().replace(/Z$/, '000Z');
