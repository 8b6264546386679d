/**
 * How a write changes a stored object, as pure functions: what create sets, what update and apply
 * replace or merge, when generation moves. The embedded store applies them in its transactions, the
 * kubernetes adapter to compute the object it PUTs for `apply`, so both merge the same way.
 */
import type { KindName, ObjectMeta, ObjectOf, OwnerReference, ResourceInput } from '../resources/index.js';
import { Invalid } from './errors.js';
import { canonicalJson } from '../resources/codec/transitions.js';
import { rfc3339 } from './object.js';
import { AUTHOR_ANNOTATION, CHANNEL_ANNOTATION, REQUEST_ANNOTATION, STAMP_ANNOTATIONS, STAMP_GENERATION_ANNOTATION, type AuthorStamp } from '../resource-history/author.js';

type Input = ResourceInput<string, unknown, unknown>;

const compactMap = (m: Record<string, string> | undefined): Record<string, string> | undefined => (m && Object.keys(m).length > 0 ? m : undefined);
const compactList = <T>(l: T[] | undefined): T[] | undefined => (l && l.length > 0 ? l : undefined);

/** Metadata with empty maps and lists omitted, keys in a stable order. */
export const normalizeMeta = (m: ObjectMeta): ObjectMeta => {
  const out: ObjectMeta = {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    generation: m.generation,
    creationTimestamp: m.creationTimestamp,
  };
  if (m.deletionTimestamp !== undefined) out.deletionTimestamp = m.deletionTimestamp;
  if (m.deletionGracePeriodSeconds !== undefined) out.deletionGracePeriodSeconds = m.deletionGracePeriodSeconds;
  const finalizers = compactList(m.finalizers);
  const labels = compactMap(m.labels);
  const annotations = compactMap(m.annotations);
  const ownerReferences = compactList<OwnerReference>(m.ownerReferences);
  if (labels) out.labels = labels;
  if (annotations) out.annotations = annotations;
  if (finalizers) out.finalizers = finalizers;
  if (ownerReferences) out.ownerReferences = ownerReferences;
  return out;
};

const ENVELOPE = new Set(['apiVersion', 'kind', 'metadata', 'spec', 'status']);
/**
 * The top-level fields of an object besides its envelope: a core ConfigMap's `data` (KindOptions.fields). Only what
 * the kind's validate kept reaches a write, so a Regent kind has none.
 */
const fieldsOf = (object: object): Record<string, unknown> => Object.fromEntries(Object.entries(object).filter(([key, value]) => !ENVELOPE.has(key) && value !== undefined));

/** `fields`: the top-level fields to carry (the input's on create and update, the stored object's otherwise). */
const assemble = <K extends KindName>(base: { apiVersion: string; kind: string }, metadata: ObjectMeta, spec: unknown, status: unknown, fields: object = base): ObjectOf<K> =>
  ({ apiVersion: base.apiVersion, kind: base.kind, metadata: normalizeMeta(metadata), spec, ...(status === undefined ? {} : { status }), ...fieldsOf(fields) }) as ObjectOf<K>;

/** A new object: generation 1, no status (create ignores status, as with a status subresource). */
export const created = <K extends KindName>(input: Input, namespace: string, uid: string, now: Date): ObjectOf<K> =>
  assemble<K>(
    input,
    {
      ...input.metadata,
      annotations: settleAuthorStamp(undefined, input.metadata.annotations, input.metadata.annotations, true, 1),
      name: input.metadata.name,
      namespace,
      uid,
      resourceVersion: '',
      generation: 1,
      creationTimestamp: rfc3339(now),
      deletionTimestamp: undefined,
      deletionGracePeriodSeconds: undefined,
    },
    input.spec,
    undefined,
  );

export type UpdateMode = 'replace' | 'apply';

/**
 * The object after an update. `replace` (PUT): spec, labels, annotations, finalizers and owner
 * references come from the input. `apply`: spec from the input, labels and annotations merged,
 * owner references replaced only when given, finalizers kept. Status is never touched here.
 */
export const updated = <K extends KindName>(old: ObjectOf<K>, input: Input, mode: UpdateMode): ObjectOf<K> => {
  const m = input.metadata;
  const metadata: ObjectMeta =
    mode === 'replace'
      ? { ...old.metadata, labels: m.labels, annotations: m.annotations, finalizers: m.finalizers, ownerReferences: m.ownerReferences }
      : {
          ...old.metadata,
          labels: { ...old.metadata.labels, ...m.labels },
          annotations: { ...old.metadata.annotations, ...m.annotations },
          ownerReferences: m.ownerReferences ?? old.metadata.ownerReferences,
        };
  assertNoNewFinalizers(old, metadata.finalizers);
  const specChanged = canonicalJson(old.spec) !== canonicalJson(input.spec);
  const generation = old.metadata.generation + (specChanged ? 1 : 0);
  return assemble<K>(old, { ...metadata, annotations: settleAuthorStamp(old.metadata.annotations, metadata.annotations, m.annotations, specChanged, generation), generation }, input.spec, old.status, input);
};

/** The API server refuses to add finalizers once deletion has started. */
export const assertNoNewFinalizers = (old: ObjectOf<KindName>, next: readonly string[] | undefined): void => {
  if (old.metadata.deletionTimestamp === undefined) return;
  const before = new Set(old.metadata.finalizers ?? []);
  const added = (next ?? []).filter((f) => !before.has(f));
  if (added.length > 0) {
    const message = 'Forbidden: no new finalizers can be added if the object is being deleted';
    throw new Invalid(`${old.kind} "${old.metadata.namespace}/${old.metadata.name}" is invalid: metadata.finalizers: ${message}`, [{ path: 'metadata.finalizers', message }]);
  }
};

export const withStatus = <K extends KindName>(old: ObjectOf<K>, status: unknown): ObjectOf<K> => assemble<K>(old, old.metadata, old.spec, status);

export const withFinalizers = <K extends KindName>(old: ObjectOf<K>, finalizers: string[]): ObjectOf<K> => {
  assertNoNewFinalizers(old, finalizers);
  return assemble<K>(old, { ...old.metadata, finalizers }, old.spec, old.status);
};

/**
 * Deletion with finalizers pending: deletionTimestamp set once, and generation bumped, as Kubernetes does. The
 * deleting writer's stamp, when it gives one, is for that generation.
 */
export const markedForDeletion = <K extends KindName>(old: ObjectOf<K>, now: Date, stamp?: AuthorStamp): ObjectOf<K> => {
  const generation = old.metadata.generation + 1;
  const stamped = withAuthorStamp(old, stamp, generation);
  return assemble<K>(old, { ...stamped.metadata, deletionTimestamp: rfc3339(now), deletionGracePeriodSeconds: 0, generation }, old.spec, old.status);
};

/** The object with the writer's stamp for `generation` (unchanged without a stamp): a deletion's author. */
export const withAuthorStamp = <K extends KindName>(old: ObjectOf<K>, stamp: AuthorStamp | undefined, generation: number): ObjectOf<K> =>
  stamp ? assemble<K>(old, { ...old.metadata, annotations: settleAuthorStamp(old.metadata.annotations, old.metadata.annotations, stampAnnotations(stamp), true, generation) }, old.spec, old.status) : old;

const stampAnnotations = (stamp: AuthorStamp): Record<string, string> => ({
  [AUTHOR_ANNOTATION]: stamp.name,
  [CHANNEL_ANNOTATION]: stamp.channel,
  ...(stamp.requestId ? { [REQUEST_ANNOTATION]: stamp.requestId } : {}),
});

/**
 * The author annotations after a write (src/resource-history/author.ts). A write that changes the spec keeps a
 * fresh stamp its input gave (author and channel, no generation yet: `stampAuthor` writes none) for the new
 * generation, and drops any other: one merged from the stored object, or copied from a read (it names the
 * generation it was for). A write that leaves the spec alone keeps the stored stamp exactly, so re-applying an
 * unchanged manifest writes nothing.
 */
export const settleAuthorStamp = (
  stored: Record<string, string> | undefined,
  next: Record<string, string> | undefined,
  input: Record<string, string> | undefined,
  specChanged: boolean,
  generation: number,
): Record<string, string> | undefined => {
  const out: Record<string, string> = { ...(next ?? {}) };
  for (const key of STAMP_ANNOTATIONS) delete out[key];
  if (specChanged) {
    const fresh = input?.[AUTHOR_ANNOTATION] && input[CHANNEL_ANNOTATION] && input[STAMP_GENERATION_ANNOTATION] === undefined;
    if (fresh) {
      out[AUTHOR_ANNOTATION] = input[AUTHOR_ANNOTATION] as string;
      out[CHANNEL_ANNOTATION] = input[CHANNEL_ANNOTATION] as string;
      if (input[REQUEST_ANNOTATION]) out[REQUEST_ANNOTATION] = input[REQUEST_ANNOTATION];
      out[STAMP_GENERATION_ANNOTATION] = String(generation);
    }
  } else {
    for (const key of STAMP_ANNOTATIONS) if (stored?.[key] !== undefined) out[key] = stored[key];
  }
  return Object.keys(out).length > 0 ? out : undefined;
};

/** Equal apart from resourceVersion: such a write is a no-op and is not stored. */
export const sameObject = (a: ObjectOf<KindName>, b: ObjectOf<KindName>): boolean =>
  canonicalJson({ ...a, metadata: { ...a.metadata, resourceVersion: '' } }) === canonicalJson({ ...b, metadata: { ...b.metadata, resourceVersion: '' } });
